"""The benchmarks run: each module once in quick mode with tiny sizes (a smoke run, no timing claims)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("matplotlib")

from benchmarks import __main__ as run_all  # noqa: E402
from benchmarks import bench_decode, bench_encode, bench_streams  # noqa: E402

TINY = ["--quick", "--best-of", "1", "--size", "n=8", "--size", "depth=3",
        "--size", "stream_kb=40", "--size", "append_n=200"]


@pytest.mark.parametrize("module", [bench_decode, bench_encode], ids=["decode", "encode"])
def test_per_shape_benchmark_times_every_shape_against_three_libraries(module, tmp_path: Path) -> None:
    rows = module.main([*TINY, "--out", str(tmp_path)])
    names = [row.shape.name for row in rows]
    assert names == ["A", "tiny", "wide", "8 int64", "8 float64", "8 x A", "3-deep chain",
                     "map[str]int x 8", "interface{} 2KB", "wide 2/40 set", "Compound"]
    for row in rows:
        assert set(row.timings) == {"zebrapack", "Struct", "dataclass", "msgpack"}
        assert all(t.best > 0 for t in row.timings.values())
    table = next(tmp_path.glob("*.md")).read_text(encoding="utf-8")
    assert "| Compound |" in table and "zp/Struct" in table and "msgspec" in table


def test_stream_benchmark_reports_decode_all_iter_decode_appends_memory_and_the_push_decoder(tmp_path: Path) -> None:
    text = bench_streams.main([*TINY, "--out", str(tmp_path)])
    for needle in ("decode_all, GC on", "list[Struct], GC off", "iter_decode(file)", "peak memory",
                   "encode_into(-1), 200 records", "writer.write", "bytes per record", "stream_decoder, 1 KiB",
                   "msgpack Unpacker.feed + A(**d), 64 KiB", "stream_decoder, 64 KiB pieces"):
        assert needle in text
    assert (tmp_path / "streams.md").exists()


def test_full_run_writes_results_and_chart(tmp_path: Path) -> None:
    run_all.main([*TINY, "--skip-streams", "--out", str(tmp_path)])
    assert (tmp_path / "ratios.png").read_bytes().startswith(b"\x89PNG")
    results = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "![ratios](ratios.png)" in results and "Decode per shape" in results and "Encode per shape" in results


def test_family_benchmark_times_every_row_of_every_family_both_ways(tmp_path: Path) -> None:
    from benchmarks import _family, bench_family

    results = bench_family.main([*TINY, "--no-instructions", "--out", str(tmp_path)])
    by_family: dict[str, set[str]] = {}
    for result in results:
        for family in result.timed.shape.families:
            by_family.setdefault(family, set()).add(result.name)
        assert set(result.timed.timings) == {"zebrapack", "Struct", "dataclass", "msgpack"}
        assert all(t.best > 0 for t in result.timed.timings.values())
    assert set(by_family) == set(_family.FAMILIES)
    assert len(by_family["records"]) == 11
    assert len(by_family["random"]) == 12 and all(name.startswith("random ") for name in by_family["random"])
    wanted = {"strings": {"str ascii 16B", "str latin1 1KB", "str cjk 10KB", "str emoji 1MB", "8 x str cjk 16B",
                          "str mostly ASCII 1KB", "str mostly ASCII 10KB"},
              "ints": {"8 int64 fixint", "8 int64 negative fixint", "8 int64 8-bit", "8 int64 16-bit",
                       "8 int64 32-bit", "8 int64 64-bit", "8 int64 full range", "8 uint64 full range"},
              "floats": {"8 float32", "800 float64", "8 float64"},
              "bytes": {"bytes 16B", "bytes 1MB", "8 x bytes 16B", "str 10KB + bytes 100KB"},
              "times": {"8 times", "8 x Event"},
              "any": {"interface{} numbers", "interface{} strings", "interface{} nested maps", "interface{} lists",
                      "interface{} deep", "interface{} 2KB"},
              "maps": {"map[int64]int64 x 8", "map[int64]string x 8", "map[int32]string x 8", "map[string][]int64 x 1"},
              "optional": {"8 *int64 90% nil", "8 *int64 90% set", "1 x Opt 90% nil", "1 x Opt 90% set"},
              "bools": {"8 bool", "8 *bool half nil"},
              "small": {"small: one-str list", "small: name + 2 tags", "small: id + 2-entry map", "small: id + struct",
                        "small: 3 lists of 2", "small: 3 labels + count"}}
    for family, names in wanted.items():
        assert names <= by_family[family], family
    assert [r.direction for r in results].count("decode") == [r.direction for r in results].count("encode")
    table = (tmp_path / "family.md").read_text(encoding="utf-8")
    assert "| records | interface{} 2KB |" in table and "8 float32 †" in table
    assert "Above 1.0x msgspec.Struct" in table and "msgspec: list[float]" in table


def test_family_benchmark_runs_one_family_or_one_row_in_one_direction(tmp_path: Path) -> None:
    from benchmarks import bench_family

    results = bench_family.main([*TINY, "--no-instructions", "maps", "str cjk 16B", "--direction", "encode"])
    assert {r.direction for r in results} == {"encode"}
    assert {r.name for r in results} == {"map[str]int x 8", "map[int64]int64 x 8", "map[int64]string x 8",
                                         "map[int32]string x 8", "map[string][]int64 x 1", "str cjk 16B"}
    with pytest.raises(SystemExit, match="unknown family or row 'nosuch'"):
        bench_family.main([*TINY, "--no-instructions", "nosuch"])


def test_family_benchmark_pools_the_rounds_of_processes_with_their_own_hash_seeds(tmp_path: Path) -> None:
    from benchmarks import bench_family

    results = bench_family.main([*TINY, "--no-instructions", "--processes", "3", "small: id + struct", "bytes 16B",
                                 "--direction", "decode", "--out", str(tmp_path)])
    assert [r.name for r in results] == ["bytes 16B", "small: id + struct"]
    for result in results:
        assert result.process_ratios is not None and len(result.process_ratios) == 3
        assert all(len(timing.rounds) == 3 for timing in result.timed.timings.values())   # one round a process
        assert min(result.process_ratios) <= result.time_ratio() <= max(result.process_ratios)
    table = (tmp_path / "family.md").read_text(encoding="utf-8")
    assert "| process medians |" in table and "in each of 3 processes (PYTHONHASHSEED 1..3" in table
    assert "### Above 1.0x in one process's median (of 3)" in table
    with pytest.raises(SystemExit, match="--processes must be at least 1"):
        bench_family.main([*TINY, "--no-instructions", "--processes", "0", "bytes 16B"])


def test_instruction_breakdown_counts_self_cost_and_leaves_out_the_cost_of_calls(tmp_path: Path) -> None:
    from benchmarks import instructions

    dump = tmp_path / "cg.out.2"
    dump.write_text("events: Ir\nsummary: 1000\n\nob=/usr/lib/libc.so.6\nfl=x.c\nfn=outer\n0 100\n"
                    "cfn=inner\ncalls=4 0\n0 800\n+2 40\n\nob=/x/_core.so\nfn=inner\n0 700\n"
                    "fn=inner'2\n-1 60\n", encoding="utf-8")
    assert instructions._functions(str(dump), 2, 5) == [("inner (_core.so)", 380), ("outer (libc.so.6)", 70)]


def test_arrow_benchmark_sets_zebrapack_arrow_beside_go_generated_code(tmp_path: Path) -> None:
    from benchmarks import bench_arrow

    text = bench_arrow.main(["--records", "300", "--quick", "--best-of", "1", "--out", str(tmp_path)])
    assert "README A records against Go's generated code" in text
    if shutil.which("go") is None and os.environ.get("ZEBRAPACK_REQUIRE_GO") != "1":
        assert "Not measured: the Go toolchain (`go`) is not on PATH." in text
        return
    for needle in ("Go UnmarshalMsg, into a reused A", "Go UnmarshalMsg, into a new A each (kept)",
                   "Go MarshalMsg, into a reused buffer", "zebrapack.arrow.read / UnmarshalMsg into a reused A",
                   "zebrapack.arrow.write / MarshalMsg", "tinylib/msgp v1.6.5", "300 records"):
        assert needle in text
    assert "Go's generated code" in (tmp_path / "arrow.md").read_text(encoding="utf-8")

    alone = bench_arrow.main(["--go-only", "--records", "200", "--quick", "--best-of", "1", "--out", str(tmp_path)])
    assert "zebrapack.arrow.read / UnmarshalMsg into a reused A" in alone and "200 records" in alone
    assert "projection" not in alone and "pyarrow.json" not in alone
    assert (tmp_path / "arrow-go.md").read_text(encoding="utf-8").startswith("## Arrow: zebrapack.arrow against Go")


def test_threads_benchmark_sets_threads_beside_one_thread_with_and_without_an_index(tmp_path: Path) -> None:
    from benchmarks import bench_arrow_threads

    text = bench_arrow_threads.main(["--mb", "1", "--threads", "2", "3", "--rounds", "1", "--dir", str(tmp_path),
                                     "--out", str(tmp_path)])
    for needle in ("| no index (guessed boundaries) | 2 |", "| sidecar index | 3 |", "Control, two threads hashing",
                   "Control, two plain threads reading a half of the file each"):
        assert needle in text
    assert (tmp_path / "a_1mb_indexed.zpk.zpi").exists()
    assert (tmp_path / "arrow_threads.md").read_text(encoding="utf-8") == text


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="callgrind counts need valgrind on PATH")
def test_family_benchmark_counts_instructions_of_both_libraries_beside_the_times(tmp_path: Path) -> None:
    from benchmarks import bench_family

    results = bench_family.main([*TINY, "8 int64 full range", "--direction", "encode", "--out", str(tmp_path)])
    [result] = results
    assert result.instructions is not None
    assert set(result.instructions) == {"zebrapack", "msgspec"} and min(result.instructions.values()) > 100
    ratio = result.instruction_ratio()
    assert ratio is not None and 0.1 < ratio < 10
    table = (tmp_path / "family.md").read_text(encoding="utf-8")
    counts = f"{result.instructions['zebrapack']:,} · {result.instructions['msgspec']:,}"
    assert f"| {ratio:.2f} | {counts} |" in table and "callgrind" in table


@pytest.mark.parametrize("library", ["zebrapack", "msgspec"])
def test_profile_loop_runs_any_row_of_the_family(library: str, capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import profile_shape

    profile_shape.main(["str cjk 16B", "encode", "--seconds", "0.05", "--library", library])
    assert f"{library} str cjk 16B encode:" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="is a family"):
        profile_shape.main(["maps", "--seconds", "0.01"])


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="callgrind counts need valgrind on PATH")
def test_arrow_instruction_counts_set_zebrapack_arrow_beside_go_generated_code() -> None:
    from benchmarks import instructions_arrow

    if shutil.which("go") is None and os.environ.get("ZEBRAPACK_REQUIRE_GO") != "1":
        pytest.skip("the Go toolchain (`go`) is not on PATH")
    text = instructions_arrow.main(["--records", "200", "--top", "8"])
    for label, _, _, _ in instructions_arrow.RATIOS:
        assert f"| {label} | " in text
    for _, label in instructions_arrow.ZEBRAPACK_PASSES + instructions_arrow.GO_PASSES:
        assert f"{label}: " in text       # its costliest functions
    assert "zpeer/zp.(*A).MarshalMsg (zpeer)" in text and "(_core." in text   # both sides


@pytest.mark.skipif(shutil.which("cc") is None, reason="the floor's builder is compiled on first use")
def test_decode_floor_builds_equal_records_of_new_objects_and_refuses_containers() -> None:
    from benchmarks import _family, decode_floor

    decode_floor.build_floor()
    shapes = {shape.name: shape for shape in _family.select(["A", "tiny", "wide", "wide 2/40 set", "8 int64"],
                                                               {"n": 8})}
    for name in ("A", "tiny", "wide", "wide 2/40 set"):
        record = shapes[name].schema.decode(shapes[name].schema.encode(shapes[name].zebrapack_value))
        build = decode_floor.floor_operation(shapes[name], "objects")
        built = build()
        assert type(built) is type(record) and built == record
        for slot in type(record).__slots__:
            if isinstance(getattr(record, slot, None), (str, float)) and getattr(record, slot):
                assert getattr(built, slot) is not getattr(record, slot)     # new objects, not the record's
        assert decode_floor.floor_operation(shapes[name], "loop")() is None
    with pytest.raises(TypeError, match="atoms only, not list"):
        decode_floor.floor_operation(shapes["8 int64"], "objects")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="callgrind counts need valgrind on PATH")
def test_decode_floor_counts_the_objects_below_both_decodes() -> None:
    from benchmarks import decode_floor

    text = decode_floor.main(["tiny"])
    row = next(line for line in text.splitlines() if line.startswith("| tiny |"))
    zp, ms, objects, loop = (int(cell.replace(",", "")) for cell in row.split("|")[2:6])
    assert 0 < loop < objects < min(zp, ms)
