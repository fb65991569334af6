"""The release workflow (.github/workflows/release.yml) and cibuildwheel's configuration
(pyproject.toml), checked here, where none of the workflow's runners is: the wheels
cibuildwheel builds for each platform as the configuration says, the tests each wheel
runs, and the workflow's triggers, jobs and permissions. tests/package/test_release.py builds a
Linux wheel, repairs it and runs those tests on it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
WORKFLOW_PATH = ROOT / ".github" / "workflows" / "release.yml"
CIBUILDWHEEL: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]

PYTHONS = ["cp311", "cp312", "cp313", "cp314", "cp314t"]
#: The platform tags of each platform's wheels, and the architectures they are built on.
PLATFORMS = {
    "linux": {"x86_64": ["manylinux_x86_64", "musllinux_x86_64"], "aarch64": ["manylinux_aarch64", "musllinux_aarch64"]},
    "macos": {"x86_64": ["macosx_x86_64"], "arm64": ["macosx_arm64"]},
    "windows": {"AMD64": ["win_amd64"]},
}
#: The runners of the workflow's matrix, by the platform they are.
RUNNER_PLATFORMS = {"ubuntu": "linux", "macos": "macos", "windows": "windows"}
#: What a wheel's tests must not need: the Go peer, Spark's JVM, the docs and benchmarks of the source tree.
NOT_ON_A_WHEEL = re.compile(r"^(?:from|import) (?:go_peer|cluster_support|doc_blocks|benchmarks)\b",
                            re.M)


def workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW_PATH.read_text())
    assert isinstance(loaded, dict)
    return loaded


def build_identifiers(platform: str) -> list[str]:
    """What ``cibuildwheel --print-build-identifiers`` lists for the platform, from pyproject.toml."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CIBW_")}
    result = subprocess.run([sys.executable, "-m", "cibuildwheel", "--platform", platform, "--print-build-identifiers"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_cibuildwheel_builds_cpython_3_11_to_3_14_and_3_14t_for_every_architecture(platform: str) -> None:
    expected = {f"{python}-{tag}" for python in PYTHONS for tags in PLATFORMS[platform].values() for tag in tags}
    identifiers = build_identifiers(platform)
    assert sorted(identifiers) == sorted(expected)
    assert CIBUILDWHEEL[platform]["archs"] == list(PLATFORMS[platform])


def test_the_linux_wheels_are_manylinux2014_and_musllinux() -> None:
    linux = CIBUILDWHEEL["linux"]
    for arch in PLATFORMS["linux"]:
        assert linux[f"manylinux-{arch}-image"] == "manylinux2014"       # manylinux_2_17: glibc 2.17
        assert linux[f"musllinux-{arch}-image"] == "musllinux_1_2"


def test_free_threaded_wheels_are_tested_with_the_gil_the_core_turns_on() -> None:
    (override,) = [o for o in CIBUILDWHEEL["overrides"] if o["select"] == "cp3??t-*"]
    assert override["test-environment"] == {"PYTHON_GIL": "1"}


def test_each_wheel_runs_the_core_tests_and_none_that_needs_go_java_or_the_source_tree() -> None:
    command = CIBUILDWHEEL["test-command"]
    assert command.startswith("python -m pytest ")
    assert CIBUILDWHEEL["test-sources"] == ["tests", "pyproject.toml"]
    paths = re.findall(r"\btests/[\w/.]+", command)
    for wanted in ["tests/wire/test_decode.py", "tests/wire/test_encode.py", "tests/golden/test_golden.py", "tests/vectors/test_vectors.py",
                   "tests/limits/test_limits_depth.py", "tests/wire/test_paths_undecodable.py", "tests/arrow"]:
        assert wanted in paths
    files = [file for path in paths for file in ([ROOT / path] if path.endswith(".py")
                                                  else sorted((ROOT / path).glob("test_*.py")))]
    assert all(file.is_file() for file in files), paths
    ignored = re.findall(r"--ignore-glob=([^\s\"]+)", command)
    for file in files:
        if not any(Path(file).match(pattern) for pattern in ignored):
            assert not NOT_ON_A_WHEEL.search(file.read_text()), file


def test_the_workflow_runs_on_a_version_tag_and_publishes_only_then() -> None:
    loaded = workflow()
    triggers = loaded[True]           # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["tags"] == ["v*"]
    assert loaded["permissions"] == {"contents": "read"}
    publish = loaded["jobs"]["publish"]
    assert set(publish["needs"]) == {"sdist", "wheels"}
    assert publish["if"] == "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}          # trusted publishing: no stored token
    assert publish["environment"]["name"] == "pypi"
    assert [step["uses"] for step in publish["steps"] if "uses" in step][-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert "secrets." not in WORKFLOW_PATH.read_text() and "password" not in WORKFLOW_PATH.read_text()


def test_the_workflow_builds_every_wheel_of_the_configuration_from_the_sdist() -> None:
    jobs = workflow()["jobs"]
    sdist_runs = " ".join(step.get("run", "") for step in jobs["sdist"]["steps"])
    assert "python -m build --sdist" in sdist_runs and "twine check --strict" in sdist_runs
    wheels = jobs["wheels"]
    assert wheels["needs"] == "sdist"
    (cibuildwheel,) = [step for step in wheels["steps"] if step.get("uses", "").startswith("pypa/cibuildwheel@v4")]
    assert cibuildwheel["with"]["package-dir"] == "${{ env.SDIST }}"
    assert cibuildwheel["env"] == {"CIBW_ARCHS": "${{ matrix.archs }}"}
    built = set()
    for entry in wheels["strategy"]["matrix"]["include"]:
        platform = RUNNER_PLATFORMS[entry["os"].split("-")[0]]
        built |= {(platform, arch) for arch in entry["archs"].split()}
    assert built == {(platform, arch) for platform, archs in PLATFORMS.items() for arch in archs}
    expected = sum(len(build_identifiers(platform)) for platform in PLATFORMS)
    assert jobs["publish"]["env"]["EXPECTED_WHEELS"] == expected == 35
