"""The shared save/load of search tables: a save replaces the last one only when whole, and a
bad file is a clear error that leaves it as it was."""

import numpy as np
import pytest

from slimetrail.core.checkpoint import read_checkpoint, write_checkpoint
from slimetrail.core.game import GameError


class Unsavable:
    """An array-like whose conversion fails: a save that dies half-way through."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("killed while writing")


def test_a_save_reads_back_and_an_interrupted_one_keeps_the_last(tmp_path) -> None:
    path = tmp_path / "table.npz"
    write_checkpoint(path, "board A", {"words": np.arange(5, dtype=np.uint64)})
    saved = path.read_bytes()
    read = read_checkpoint(path, "board A", ["words"], ["absent"])
    assert read.keys() == {"words"}
    assert read["words"].tolist() == [0, 1, 2, 3, 4]

    with pytest.raises(RuntimeError, match="killed"):
        write_checkpoint(path, "board A", {"words": np.zeros(3), "more": Unsavable()})
    assert path.read_bytes() == saved  # the last whole save is still there
    assert [p.name for p in tmp_path.iterdir()] == ["table.npz"]  # and no half-written one

    write_checkpoint(path, "board A", {"words": np.zeros(2, dtype=np.uint64)})
    assert read_checkpoint(path, "board A", ["words"])["words"].tolist() == [0, 0]


def test_a_file_of_another_solve_or_no_save_is_refused_by_name(tmp_path) -> None:
    path = tmp_path / "table.npz"
    write_checkpoint(path, "board A", {"words": np.arange(3)})
    with pytest.raises(GameError, match=r"another solve.*'board A', not 'board B'"):
        read_checkpoint(path, "board B", ["words"])
    with pytest.raises(GameError, match=r"unreadable.*other"):
        read_checkpoint(path, "board A", ["words", "other"])

    for name, content in (
        ("junk.npz", b"not a table"),
        ("cut.npz", path.read_bytes()[: path.stat().st_size // 2]),
        ("empty.npz", b""),
    ):
        bad = tmp_path / name
        bad.write_bytes(content)
        with pytest.raises(GameError, match=rf"{name}.*unreadable"):
            read_checkpoint(bad, "board A", ["words"])
        assert bad.read_bytes() == content
    with pytest.raises(GameError, match="unreadable"):
        read_checkpoint(tmp_path / "missing.npz", "board A", ["words"])


def test_a_save_where_nothing_can_be_written_says_so(tmp_path) -> None:
    missing = tmp_path / "no such folder" / "table.npz"
    with pytest.raises(FileNotFoundError) as raised:
        write_checkpoint(missing, "board A", {"words": np.arange(3)})
    assert raised.value.__context__ is None  # the open's own error, nothing raised over it
    assert not missing.parent.exists()
