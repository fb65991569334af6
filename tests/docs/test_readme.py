"""The README and the documentation pages run as written: each page's code blocks, in
order, in an empty folder of its own (``doc_blocks`` says how each kind of block runs).
A docs page starts in the folder the README's Quick start leaves (``zp.z``, ``records.zpk``).
Every link between them leads to a file and a heading that exist."""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from support.doc_blocks import INDEX_PAGE, README, ROOT, readme_blocks, run_page

import zebrapack.examples

DOCS = ROOT / "docs"

# Each set-up block of the README and the development page, and where it is exercised.
SETUP_COMMANDS = {
    "pip install zebrapack": "test_release.py installs the wheel into a fresh venv and runs the Quick start",
    "python3 -m venv .venv && .venv/bin/pip install .\nsource .venv/bin/activate":
        "test_release.py (a venv with the built wheel)",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test,fuzz,bench,dev]'\n"
    ".venv/bin/python setup.py build_ext --inplace -q\n"
    ".venv/bin/python -m pytest -q -x\n"
    ".venv/bin/python -m benchmarks.bench_decode": "the development set-up of .ci/run",
    "bash .ci/run": "CI itself",
}
# Maintainer pages whose sh blocks are procedures (benchmark runs, sanitizer builds,
# fuzzing) that take minutes: they are not run here.
PROCEDURE_PAGES = {"benchmarks.md", "performance.md", "performance-log.md", "sanitizers-and-fuzzing.md"}
PAGES = sorted(DOCS.glob("*.md"))


#: The bucket the pages' object-store examples read and write (on the session's S3 server).
EXAMPLES_BUCKET = "zebrapack-examples"


@pytest.fixture(autouse=True)
def s3_examples(s3_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples that read and write ``s3://`` URLs reach the session's S3 server (moto's,
    on loopback) as they would reach AWS: through the environment's settings, with the
    bucket they use made."""
    import s3fs

    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    fs = s3fs.S3FileSystem(**s3_server.options(), skip_instance_cache=True)
    if not fs.exists(EXAMPLES_BUCKET):
        fs.mkdir(EXAMPLES_BUCKET)


def test_every_block_of_the_readme_runs_as_written(tmp_path: Path) -> None:
    assert run_page(README, tmp_path, SETUP_COMMANDS) >= 8


def test_every_block_of_the_package_index_page_runs_as_written(tmp_path: Path) -> None:
    assert run_page(INDEX_PAGE, tmp_path, SETUP_COMMANDS) >= 2


def test_the_package_index_page_has_the_readmes_quick_start() -> None:
    def quick_start(page: Path) -> list[str]:
        blocks = readme_blocks(page.read_text())
        first = next(index for index, block in enumerate(blocks) if block.info == "python")
        return [block.text for block in blocks[first:first + 3]]      # the code, its output, the console
    assert quick_start(INDEX_PAGE) == quick_start(README)


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_block_of_a_docs_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    # The files the Quick start copies.
    shutil.copy(zebrapack.examples.SCHEMA, tmp_path / "zp.z")
    shutil.copy(zebrapack.examples.RECORDS, tmp_path / "records.zpk")
    run_page(page, tmp_path, None if page.name in PROCEDURE_PAGES else SETUP_COMMANDS)


def test_the_pages_for_users_have_examples_that_run() -> None:
    for name in ["api.md", "mapping.md", "cli.md", "evolution.md", "schemas.md"]:
        kinds = {block.info.split(" ")[0] for block in readme_blocks((DOCS / name).read_text())}
        assert kinds & {"python", "console"}, name


def test_the_documented_test_command_is_what_ci_runs() -> None:
    assert "```sh\nbash .ci/run\n```" in (DOCS / "development.md").read_text()
    assert (ROOT / ".ci" / "run").is_file()


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page (code blocks left out)."""
    text = re.sub(r"^```.*?^```\n", "", text, flags=re.M | re.S)
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = "".join(char for char in heading.lower()
                       if char in "-_ " or unicodedata.category(char)[0] in "LN").replace(" ", "-")
        anchor, count = slug, 1
        while anchor in anchors:
            anchor, count = f"{slug}-{count}", count + 1
        anchors.add(anchor)
    return anchors


def test_every_link_leads_to_a_file_and_heading_that_exist() -> None:
    for page in [README, ROOT / "CHANGELOG.md", *PAGES]:
        for target, anchor in re.findall(r"\]\(([^)#:]*)(?:#([^)]*))?\)", page.read_text()):
            path = (page.parent / target) if target else page
            assert path.exists(), f"{page.name} links to {target}, which does not exist"
            if anchor and path.suffix == ".md":
                assert anchor in heading_anchors(path.read_text()), f"{page.name} links to {target}#{anchor}"


def test_the_readme_links_to_every_docs_page() -> None:
    linked = set(re.findall(r"\]\(docs/([^)#]+)", README.read_text()))
    assert linked >= {page.name for page in PAGES}
