"""Planning a distributed read: paths, folders and globs -> files -> splits, by the
sidecar index when it is usable, else one split per file with an IndexWarning."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from support.cluster import a_records, write_records, zp  # noqa: F401  (zp: a fixture)

import zebrapack
from zebrapack.streams.planning import expand_paths, plan_splits


@pytest.fixture
def folder(tmp_path: Path, zp: zebrapack.Schema) -> Path:
    write_records(zp, tmp_path / "b.zpk", a_records(zp, 5), index=True)
    write_records(zp, tmp_path / "a.zpk", a_records(zp, 3))
    (tmp_path / "_SUCCESS").write_bytes(b"")
    (tmp_path / ".hidden.zpk").write_bytes(b"\x80")
    (tmp_path / "sub").mkdir()
    write_records(zp, tmp_path / "sub" / "c.zpk", a_records(zp, 2))
    return tmp_path


def test_a_folder_is_its_data_files_sorted_without_indexes_hidden_or_marker_files(folder: Path) -> None:
    assert expand_paths(folder) == [str(folder / "a.zpk"), str(folder / "b.zpk")]


def test_globs_expand_sorted_and_recursive_with_double_star(folder: Path) -> None:
    assert expand_paths(str(folder / "*.zpk")) == [str(folder / "a.zpk"), str(folder / "b.zpk")]
    assert expand_paths([folder / "b.zpk", str(folder / "**" / "c.*")]) == [
        str(folder / "b.zpk"), str(folder / "sub" / "c.zpk")]


def test_a_path_or_glob_naming_no_file_is_an_error(folder: Path) -> None:
    with pytest.raises(FileNotFoundError, match="glob matches none"):
        expand_paths(str(folder / "*.nothing"))
    with pytest.raises(FileNotFoundError, match="no such record file"):
        expand_paths([folder / "a.zpk", folder / "missing.zpk"])
    with pytest.raises(ValueError, match="no paths"):
        expand_paths([])
    with pytest.raises(TypeError, match="str or os.PathLike"):
        expand_paths([3])  # type: ignore[list-item]


def test_an_indexed_file_gives_a_split_per_entry_merged_on_request(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = write_records(zp, tmp_path / "x.zpk", a_records(zp, 10), index=True, index_every=2)
    write_records(zp, tmp_path / "y.zpk", a_records(zp, 4))
    splits = plan_splits([path, tmp_path / "y.zpk"])
    assert [split.records for split in splits] == [2, 2, 2, 2, 2, None]
    assert [split.records for split in plan_splits(path, split_records=4)] == [4, 4, 2]
    assert len(plan_splits(path, split_bytes=1)) == 5
    assert [record for split in splits for record in zebrapack.iter_split(zp, split)] == \
        a_records(zp, 10) + a_records(zp, 4)


@pytest.mark.parametrize("damage", ["stale", "corrupt"])
def test_an_unusable_index_gives_one_split_for_the_file_with_a_warning(tmp_path: Path, zp: zebrapack.Schema,
                                                                     damage: str) -> None:
    path = write_records(zp, tmp_path / "x.zpk", a_records(zp, 10), index=True, index_every=2)
    if damage == "stale":
        with open(path, "ab") as out:
            out.write(zp.encode(a_records(zp, 1, start=10)[0]))
    else:
        index = tmp_path / "x.zpk.zpi"
        index.write_bytes(index.read_bytes()[:-1] + b"\x00")
    with pytest.warns(zebrapack.IndexWarning, match=f"{damage} index"):
        splits = plan_splits(path)
    assert len(splits) == 1 and not splits[0].indexed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = list(zebrapack.iter_split(zp, splits[0]))
    assert records == a_records(zp, 10 + (damage == "stale"))
