"""The engines are optional for users and required in CI: a missing one skips its tests,
unless ZEBRAPACK_REQUIRE_ENGINES=1, and CI installs them all and sets it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from support.engines import EXTRAS, REQUIRE_ENGINES, engine

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_engine_skips_the_test_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_ENGINES, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"zebrapack\[engines\].*REQUIRE_ENGINES=1 to make"):
        engine("zebrapack_no_such_engine")


def test_a_missing_engine_fails_the_test_when_engines_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_ENGINES, "1")
    with pytest.raises(pytest.fail.Exception, match=r"polars\.no_such_part is not installed.*zebrapack\[polars\]"):
        engine("polars.no_such_part")


def test_an_installed_engine_is_the_module_itself() -> None:
    assert engine("json").loads("[1]") == [1]


def test_the_engines_extra_installs_every_engine_the_tests_use() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (combined,) = extras["engines"]
    named = set(re.fullmatch(r"zebrapack\[(.*)\]", combined).group(1).split(","))  # type: ignore[union-attr]
    assert set(EXTRAS.values()) <= named <= set(extras)
    for extra in named:
        assert any(requirement.startswith("pyarrow>=") for requirement in extras[extra]), extra
    installed = " ".join(requirement for extra in named for requirement in extras[extra])
    for module in EXTRAS:
        assert module.replace("pyspark", "pyspark>=4") in installed, module


def test_ci_installs_the_engines_in_both_environments_and_requires_them() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ENGINES}=1" in script
    installs = re.findall(r"pip install -q -e '\.\[([\w,]+)\]'", script)
    assert len(installs) == 2 and all("engines" in extras.split(",") for extras in installs)
