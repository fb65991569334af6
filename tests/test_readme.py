"""The README runs as written: its code blocks, in order, in one empty folder.

- ``python`` blocks run as scripts (a ``text`` block right after one is its output);
- ``go NAME`` blocks are files the following blocks use;
- ``console`` blocks are shell sessions: each ``$ command`` runs in bash with the
  ``zebrapack`` command on PATH, and the lines after it are its output (stdout and
  stderr), where ``...`` stands for any number of lines;
- ``sh`` blocks are set-up commands, checked where they run (``SETUP_COMMANDS``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_support import cli_env

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# Each set-up block of the README, and where it is exercised.
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


@dataclass
class Block:
    info: str
    text: str
    line: int


def readme_blocks(text: str) -> list[Block]:
    blocks = []
    for match in re.finditer(r"^```([^\n]*)\n(.*?)^```\n", text, re.M | re.S):
        blocks.append(Block(match.group(1).strip(), match.group(2), text.count("\n", 0, match.start()) + 1))
    return blocks


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console block; continuation lines end in a backslash."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        assert line.startswith("$ "), f"console output before any command: {line!r}"
        command = line[2:]
        while command.endswith("\\"):
            index += 1
            command = command[:-1] + lines[index].strip()
        index += 1
        output = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        steps.append((command, output))
    return steps


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` with each ``...`` line standing for any lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line + "\n") for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def shell_env() -> dict[str, str]:
    env = cli_env()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def test_every_block_of_the_readme_runs_as_written(tmp_path: Path) -> None:
    blocks = readme_blocks(README.read_text())
    assert len(blocks) > 20
    env = shell_env()
    previous_output: str | None = None
    for block in blocks:
        where = f"README.md:{block.line}"
        language, _, name = block.info.partition(" ")
        if language == "text":
            assert previous_output is not None, f"{where}: a text block follows no python block"
            assert previous_output == block.text, f"{where}: the python block above printed\n{previous_output}"
            previous_output = None
            continue
        previous_output = None
        if language == "python":
            result = subprocess.run([sys.executable, "-c", block.text], cwd=tmp_path, env=env, capture_output=True,
                                    text=True, timeout=120, check=False)
            assert result.returncode == 0 and result.stderr == "", f"{where}:\n{result.stderr}"
            previous_output = result.stdout
        elif language == "go":
            assert name, f"{where}: a go block names the file it is"
            (tmp_path / name).write_text(block.text)
        elif language == "console":
            for command, expected in console_steps(block.text):
                result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
                actual = result.stdout.splitlines()
                assert matches(expected, actual), f"{where}: $ {command}\n" + result.stdout
        elif language == "sh":
            commands = "\n".join(re.sub(r"\s+#.*", "", line) for line in block.text.strip().splitlines())
            assert commands in SETUP_COMMANDS, f"{where}: a set-up block no test exercises"
        else:
            pytest.fail(f"{where}: a code block of unknown kind {block.info!r}")


def test_the_readme_test_command_is_what_ci_runs() -> None:
    assert "```sh\nbash .ci/run\n```" in README.read_text()
    assert (ROOT / ".ci" / "run").is_file()


def test_the_readme_links_to_files_that_exist() -> None:
    for page in [README, *(ROOT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which does not exist"
