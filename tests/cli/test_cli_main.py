"""The ``zebrapack`` command itself: help, version, ``python -m``, pipes, progress."""

from __future__ import annotations

import io
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.cli import SCHEMAS, call_main, cli_env, run_cli
from support.vectors import TESTS, VECTORS

import zebrapack
from zebrapack.cli import progress
from zebrapack.cli.progress import Progress

MY_COMMANDS = ("dump", "encode", "gen")


def test_help_lists_the_commands_and_python_m_prints_what_main_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    result = run_cli("--help", COLUMNS="100")
    assert result.returncode == 0
    text = result.stdout.decode()
    assert text.startswith("usage: zebrapack [-h] [--version] COMMAND ...")
    for name in MY_COMMANDS:
        assert f"\n    {name} " in text
    assert call_main(monkeypatch, "--help") == (0, result.stdout, "")


@pytest.mark.parametrize("name", MY_COMMANDS)
def test_each_command_has_help_with_examples(name: str) -> None:
    result = run_cli(name, "--help")
    assert result.returncode == 0
    text = result.stdout.decode()
    assert text.startswith(f"usage: zebrapack {name} ")
    assert f"\nexamples:\n  zebrapack {name} " in text


def test_version_names_the_package_version() -> None:
    result = run_cli("--version")
    assert (result.returncode, result.stdout.decode()) == (0, f"zebrapack {zebrapack.__version__}\n")


def test_unknown_command_is_a_usage_error() -> None:
    result = run_cli("frobnicate")
    assert result.returncode == 2
    assert "invalid choice: 'frobnicate'" in result.stderr.decode()


def test_console_script_is_the_cli_main() -> None:
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["zebrapack"] == "zebrapack.cli:main"


def test_reader_going_away_stops_quietly(tmp_path: Path) -> None:
    stream = tmp_path / "stream.zpk"
    stream.write_bytes((VECTORS / "zp/A_stream.zpk").read_bytes() * 4000)   # more than a pipe holds
    command = [sys.executable, "-m", "zebrapack", "dump", "-s", str(SCHEMAS / "zp.z"), str(stream)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env()) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b'{"$type": "A", "Name": "rec0"')
        process.stdout.close()
        assert process.wait(timeout=60) == 0
        assert process.stderr.read() == b""


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_shows_records_and_rate_after_the_delay_then_erases_itself() -> None:
    clock, stream = FakeClock(), io.StringIO()
    with Progress("dump", stream=stream, enabled=True, clock=clock, delay=1.0, interval=0.25) as meter:
        meter.update(10, 1_000_000)
        assert stream.getvalue() == ""
        clock.now += 2.0
        meter.update(20_000, 5_000_000)
        assert stream.getvalue() == "\r\x1b[Kdump 20,000 records, 5.0 MB, 2.5 MB/s"
        clock.now += 0.1
        meter.update(20_001, 5_000_100)         # within the interval: not redrawn
        assert stream.getvalue().count("\r\x1b[K") == 1
    assert stream.getvalue().endswith("2.5 MB/s\r\x1b[K")


def test_progress_is_silent_when_disabled_or_never_shown() -> None:
    clock, stream = FakeClock(), io.StringIO()
    with Progress("dump", stream=stream, enabled=False, clock=clock) as meter:
        clock.now += 10
        meter.update(1, 1)
    with Progress("dump", stream=stream, enabled=True, clock=clock):
        pass
    assert stream.getvalue() == ""


class Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("stderr_tty", "stdout_tty", "shown"), [
    (True, False, True),       # a person watches a long job whose output goes to a file or pipe
    (False, False, False),     # stderr piped or redirected
    (True, True, False),       # records are printed on that terminal
])
def test_progress_shows_only_on_a_terminal_stderr_with_stdout_elsewhere(
        monkeypatch: pytest.MonkeyPatch, stderr_tty: bool, stdout_tty: bool, shown: bool) -> None:
    stderr = Terminal(stderr_tty)
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(sys, "stdout", Terminal(stdout_tty))
    clock = FakeClock()
    meter = progress.Progress("encode", clock=clock)
    clock.now += 5
    meter.update(1, 1)
    assert (stderr.getvalue() != "") == shown


def test_progress_shows_percent_and_time_left_when_the_size_is_known() -> None:
    clock, stream = FakeClock(), io.StringIO()
    with Progress("convert", total=400_000_000, stream=stream, enabled=True, clock=clock) as meter:
        clock.now += 30.0
        meter.update(1_000_000, 100_000_000)
        assert stream.getvalue() == ("\r\x1b[Kconvert 25%, 1,000,000 records, 100.0 of 400.0 MB, 3.3 MB/s, "
                                     "1m 30s left")
        clock.now += 3570.0
        meter.update(None, 200_000_000)
        assert stream.getvalue().endswith("\r\x1b[Kconvert 50%, 200.0 of 400.0 MB, 0.1 MB/s, 1h 00m left")


class RecordingProgress(Progress):
    """Progress that remembers how each command made it and what it was told."""

    made: list[tuple[str, int | None]] = []
    updates: list[tuple[int | None, int]] = []

    def __init__(self, verb: str, **options: object) -> None:
        total = options.get("total")
        RecordingProgress.made.append((verb, total if isinstance(total, int) else None))
        super().__init__(verb, enabled=False, total=total if isinstance(total, int) else None)

    def update(self, records: int | None, nbytes: int) -> None:
        RecordingProgress.updates.append((records, nbytes))


@pytest.mark.parametrize("command", ["dump", "encode", "index", "convert"])
def test_every_long_command_reports_its_progress_against_the_input_size(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str) -> None:
    import importlib

    from support.cli import SCHEMAS, call_main

    module = importlib.import_module(f"zebrapack.cli.cmd_{command}")
    monkeypatch.setattr(module, "Progress", RecordingProgress)
    RecordingProgress.made, RecordingProgress.updates = [], []
    records = SCHEMAS.parent / "zp" / "A_seed.zpk"
    data = tmp_path / "records.zpk"
    data.write_bytes(records.read_bytes() * 100)
    source = data
    if command == "encode":
        source = tmp_path / "records.jsonl"
        status, out, err = call_main(monkeypatch, "dump", "-s", SCHEMAS / "zp.z", data)
        source.write_bytes(out)
    args = {"dump": ["-s", SCHEMAS / "zp.z", source], "encode": ["-s", SCHEMAS / "zp.z", source, "-o", tmp_path / "o.zpk"],
            "index": [source], "convert": [source, "-s", SCHEMAS / "zp.z", "-t", "A", "-o", tmp_path / "o.arrow"]}
    status, _, err = call_main(monkeypatch, command, *args[command])
    assert status == 0, err
    assert RecordingProgress.made == [(command, source.stat().st_size)]
    assert RecordingProgress.updates and RecordingProgress.updates[-1][1] == source.stat().st_size
