"""The release files: ``python -m build`` makes an sdist and a wheel without a warning,
with the metadata a package index shows, the license, the typing files and the
examples, an extension stripped of debug information, and no tests in the sdist; the
wheel installed into a fresh environment runs the README's Quick start in an empty folder.

It builds the extension once (a minute or two on 2 cores): ``-m "not release"`` leaves it out.
"""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_readme import README, readme_blocks

ROOT = Path(__file__).resolve().parent.parent
VERSION_CLASSIFIERS = [f"Programming Language :: Python :: 3.{minor}" for minor in (11, 12, 13)]
# A stripped -O3 core is about 0.36 MB; with debug information it was 2.5 MB.
MAX_EXTENSION_SIZE = 1 << 20

pytestmark = pytest.mark.release


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # setuptools would warn that it cannot byte-compile
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=out,
                            env=build_env(), capture_output=True, text=True, timeout=1800, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel, result.stdout + result.stderr


def test_build_prints_no_warning(built: tuple[Path, Path, str]) -> None:
    log = built[2]
    assert [line for line in log.splitlines() if re.search(r"warn|deprecat", line, re.I)] == []


def test_wheel_metadata_is_what_a_package_index_shows(built: tuple[Path, Path, str]) -> None:
    with zipfile.ZipFile(built[1]) as wheel:
        (metadata_name,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(wheel.read(metadata_name).decode())
        names = wheel.namelist()
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    classifiers = metadata.get_all("Classifier")
    assert all(c in classifiers for c in VERSION_CLASSIFIERS)
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata.get_all("Project-URL")
    assert 20 < len(metadata["Summary"]) < 120
    assert metadata["Description-Content-Type"] == "text/markdown"


def test_wheel_holds_the_package_its_types_and_examples_and_no_tests(built: tuple[Path, Path, str]) -> None:
    with zipfile.ZipFile(built[1]) as wheel:
        names = set(wheel.namelist())
    for name in ["zebrapack/py.typed", "zebrapack/_core.pyi", "zebrapack/examples/zp.z",
                 "zebrapack/examples/zp.z.json", "zebrapack/examples/zp.go", "zebrapack/examples/A_records.zpk",
                 "zebrapack/cli/cmd_dump.py"]:
        assert name in names
    assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)


def test_wheel_extension_is_stripped_of_debug_information(built: tuple[Path, Path, str]) -> None:
    with zipfile.ZipFile(built[1]) as wheel:
        (core,) = [info for info in wheel.infolist() if re.match(r"zebrapack/_core\..*\.so$", info.filename)]
        data = wheel.read(core)
    assert core.file_size < MAX_EXTENSION_SIZE
    assert b".debug_info" not in data and b".symtab" not in data


def test_sdist_builds_the_package_and_ships_no_tests(built: tuple[Path, Path, str]) -> None:
    with tarfile.open(built[0]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for name in ["LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "setup.py", "MANIFEST.in",
                 "cython/_core.pyx", "cython/zp_wire.h", "src/zebrapack/_core.pyi",
                 "src/zebrapack/examples/zp.z", "docs/typed-json.md"]:
        assert name in names, name
    assert not any(name.startswith(("tests/", "benchmarks/", ".ci/")) for name in names)


def test_the_wheel_runs_the_quick_start_in_an_empty_folder(built: tuple[Path, Path, str],
                                                           tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(built[1])], env=build_env(),
                             capture_output=True, text=True, timeout=600, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    blocks = readme_blocks(README.read_text())
    quick_start = next(block for block in blocks if block.info == "python")
    expected_output = blocks[blocks.index(quick_start) + 1]
    assert expected_output.info == "text"
    folder = tmp_path / "empty"
    folder.mkdir()
    result = subprocess.run([str(python), "-c", quick_start.text], cwd=folder, env=build_env(),
                            capture_output=True, text=True, timeout=120, check=False)
    assert (result.stdout, result.stderr) == (expected_output.text, "")
    command = subprocess.run([str(venv / "bin" / "zebrapack"), "dump", "--schema", "zp.z", "records.zpk"],
                             cwd=folder, capture_output=True, text=True, timeout=120, check=False)
    assert command.returncode == 0 and len(command.stdout.splitlines()) == 5
