"""Running the code blocks of a Markdown page, in order, in one folder.

- ``python`` blocks run as scripts (a ``text`` block right after one is its output);
- ``go NAME`` blocks are files the following blocks use;
- ``console`` blocks are shell sessions: each ``$ command`` runs in bash with the
  ``zebrapack`` command on PATH, and the lines after it are its output (stdout and
  stderr), where ``...`` stands for any number of lines;
- ``sh`` blocks are set-up commands or procedures, not run here: the caller says
  which it accepts (``setup_commands``), each with the test that exercises it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import cli_env

ROOT = Path(__file__).resolve().parent.parent.parent
README = ROOT / "README.md"
#: The package index's page (pyproject's readme): README.md links into docs/, which the index does not have.
INDEX_PAGE = ROOT / "PYPI.md"


@dataclass
class Block:
    info: str
    text: str
    line: int


def readme_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, with their info string and first line."""
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


def setup_commands(block: Block) -> str:
    """An ``sh`` block's commands without their comments."""
    return "\n".join(re.sub(r"\s+#.*", "", line) for line in block.text.strip().splitlines())


def run_page(page: Path, folder: Path, accepted_setup: dict[str, str] | None) -> int:
    """Runs every block of ``page`` in ``folder``; returns how many blocks ran. ``sh``
    blocks must be among ``accepted_setup``, or are left alone when it is None (the
    procedures of a maintainer page)."""
    env = shell_env()
    # A block must print nothing on stderr; Dask's distributed logs warnings there that
    # depend on the machine's load (an event loop unresponsive for a few seconds), and
    # warns when another process on the machine holds the dashboard's port 8787.
    env["DASK_LOGGING__DISTRIBUTED"] = "error"
    env["PYTHONWARNINGS"] = "ignore:Port 8787 is already in use:UserWarning"
    previous_output: str | None = None
    ran = 0
    for block in readme_blocks(page.read_text()):
        where = f"{page.name}:{block.line}"
        language, _, name = block.info.partition(" ")
        if language == "text":
            assert previous_output is not None, f"{where}: a text block follows no python block"
            assert previous_output == block.text, f"{where}: the python block above printed\n{previous_output}"
            previous_output = None
            continue
        previous_output = None
        if language == "python":
            result = subprocess.run([sys.executable, "-c", block.text], cwd=folder, env=env, capture_output=True,
                                    text=True, timeout=120, check=False)
            assert result.returncode == 0 and result.stderr == "", f"{where}:\n{result.stderr}"
            previous_output = result.stdout
        elif language == "go":
            assert name, f"{where}: a go block names the file it is"
            (folder / name).write_text(block.text)
        elif language == "console":
            for command, expected in console_steps(block.text):
                result = subprocess.run(["bash", "-c", command], cwd=folder, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
                assert matches(expected, result.stdout.splitlines()), f"{where}: $ {command}\n" + result.stdout
        elif language == "sh":
            if accepted_setup is not None:
                assert setup_commands(block) in accepted_setup, f"{where}: a set-up block no test exercises"
            continue
        else:
            pytest.fail(f"{where}: a code block of unknown kind {block.info!r}")
        ran += 1
    return ran
