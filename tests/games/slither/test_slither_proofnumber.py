"""The proof-number search of Slither against the plain reference search (and, through
test_slither_solver.py, brute force): every kind of 4x4 first turn, random 4x4 middle games
and random 5x5 endgames in both games; and a stopped search resuming from its saved table."""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import brute
import numpy as np
import pytest
from test_slither_fast_solver import middle_games

from slimetrail.core.registry import get_game
from slimetrail.games.slither.game import SlitherState
from slimetrail.games.slither.proofnumber import (
    INF,
    ProofSearch,
    first_turns,
    join_split,
    kept_files,
    main,
    prove_line,
    replies,
    watch_split,
)
from slimetrail.games.slither.solver import SlitherSolver, canonical_key


def reference_wins(state: SlitherState) -> bool:
    stats = np.zeros(2, dtype=np.int64)
    return SlitherSolver(reference=True).mover_wins(state, 1e18, stats)


def agree(state: SlitherState, game_id: str) -> None:
    search = ProofSearch(state.game.size, game_id == "slither-advanced")
    assert search.mover_wins(state, 600) == reference_wins(state), state.fen()


def test_first_turns_are_one_of_each_kind():
    assert first_turns(5) == ["c3", "b3", "c2", "a3", "b2", "c1", "a2", "b1", "a1"]
    assert first_turns(4) == ["b2", "a2", "b1", "a1"]


@pytest.mark.slow
@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_every_kind_of_4x4_first_turn(game_id):
    search = ProofSearch(4, game_id == "slither-advanced")
    for first in first_turns(4):
        state = get_game(game_id, size="4", pie="off").new_state()
        state.push_str(first)
        assert search.mover_wins(state, 600) is False  # solved: Black wins after each
        assert search.check(state, False) > 0  # the proof, against every legal turn
        assert search.check_by_rules(state, False) > 0  # again, by the engine's own rules
        with pytest.raises(ValueError, match="no proof"):
            search.check(state, True)
        with pytest.raises(ValueError, match="no proof"):
            search.check_by_rules(state, True)


def test_the_rules_check_reads_only_the_winners_turns_from_the_table():
    state = get_game("slither-advanced", size="4", pie="off").new_state()
    state.push_str("b2")
    search = ProofSearch(4, True)
    # An empty table names no turn of Black's: only wins at once, and b2 is no such position.
    with pytest.raises(ValueError, match="engine's rules find no proof"):
        search.check_by_rules(state, False)
    assert search.mover_wins(state, 600) is False
    assert search.check_by_rules(state, False) > 0  # the search's table names them


def test_the_rules_check_trusts_only_what_an_earlier_check_found(tmp_path):
    state = get_game("slither-advanced", size="4", pie="off").new_state()
    state.push_str("b2")
    state.push_str("a1")
    first = ProofSearch(4, True)
    assert first.mover_wins(state, 600) is True
    walked = first.check_by_rules(state, True)
    first.save_ruled(tmp_path / "a1.ruled.npz")
    # A sibling position: its check meets the positions a1's check settled.
    other = get_game("slither-advanced", size="4", pie="off").new_state()
    other.push_str("b2")
    other.push_str("d4")
    alone = ProofSearch(4, True)
    assert alone.mover_wins(other, 600) is True
    shared = ProofSearch(4, True)
    shared.table = alone.table
    assert shared.take_ruled(tmp_path / "a1.ruled.npz") == walked == len(first.ruled_here)
    assert 0 < shared.check_by_rules(other, True) < alone.check_by_rules(other, True)
    # A finding is used only where it says what this check needs: turned round (each
    # position's mover said to win where it loses), the check walks as if it had none.
    turned = ProofSearch(4, True)
    turned.table = alone.table
    turned.ruled = {key: not wins for key, wins in first.ruled_here.items()}
    assert turned.check_by_rules(other, True) == alone.check_by_rules(other, True)


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_random_4x4_middle_games(game_id):
    positions = middle_games(game_id, 4, 4, range(4))
    assert len(positions) >= 3
    for state in positions:
        agree(state, game_id)


@pytest.mark.slow
@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_random_5x5_endgames(game_id):
    checked = 0
    for back in (2, 3, 4):
        for state in brute.late_positions(game_id, 5, range(6), back):
            if not state.is_over():
                agree(state, game_id)
                checked += 1
    assert checked >= 15


@pytest.mark.parametrize("n", [4, 5, 8])  # 8x8: an engine bitboard of two 64-bit words
def test_a_key_read_from_the_stones_is_the_key_of_the_kernels_grid(n):
    # The rules check keys positions from the state's stones; the search from its grid.
    search = ProofSearch(n, False)

    def grid_key(state: SlitherState) -> int:
        _, _, v, _, keys, _, swaps, side = search.node(state)
        return int(canonical_key(keys, swaps, side, v))

    positions = middle_games("slither", n, 2 * n, range(6))
    assert len(positions) >= 4
    for state in positions:
        assert search.key(state) == grid_key(state), state.fen()
        to_move = search.key(state)
        state.colour = 1 - state.colour  # the same stones, the other colour to move
        assert search.key(state) == grid_key(state) != to_move, state.fen()


def test_a_stopped_search_resumes_from_its_saved_table(tmp_path):
    state = get_game("slither", size="4", pie="off").new_state()
    state.push_str("b2")
    search = ProofSearch(4, False)
    pn, dn = search.numbers(state, 0.0)  # stopped at its first look at the clock
    assert 0 < pn < INF and 0 < dn < INF
    path = tmp_path / "table.npz"
    search.save(path)
    resumed = ProofSearch.load(path, 4, False)
    assert len(resumed.table) == len(search.table) > 0
    assert resumed.mover_wins(state, 600) is False
    with pytest.raises(ValueError, match="no proof"):
        ProofSearch(4, False).check(state, False)  # an empty table proves nothing
    with pytest.raises(ValueError, match=r"another solve.*5x5"):
        ProofSearch.load(path, 5, False)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(path.read_bytes()[:100])  # a save cut short
    with pytest.raises(ValueError, match="unreadable"):
        ProofSearch.load(junk, 4, False)


def test_the_command_solves_checks_and_saves_its_table(tmp_path, capsys):
    table = tmp_path / "table.npz"
    argv = ["--size", "4", "--first", "a1", "b1", "--table", str(table)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "slither 4x4 after a1: Black wins" in out
    assert "slither 4x4 after b1: Black wins" in out
    assert out.count("checked against every legal turn") == 2
    assert main([*argv, "--advanced"]) == 2  # not this rule set's table: refused
    assert "belongs to another solve" in capsys.readouterr().err
    assert main(argv) == 0  # resumed: proven at once from the loaded table
    assert "loaded" in capsys.readouterr().out


def test_a_line_of_turns_is_one_replys_share_of_a_proof(tmp_path, capsys):
    table = tmp_path / "table.npz"
    assert main(["--size", "4", "--first", "b2 a1", "--table", str(table)]) == 0
    out = capsys.readouterr().out
    # White answered b2 with a1 and loses: Black, to move, wins; the proof is checked too
    assert "slither 4x4 after b2 a1: Black wins" in out
    assert "checked against every legal turn" in out
    saved = table.read_bytes()
    # A bad line is refused by name before any search, the table left as it was.
    assert main(["--size", "4", "--first", "a1", "b2 zz", "--table", str(table)]) == 2
    captured = capsys.readouterr()
    assert "'zz'" in captured.err and "after a1" not in captured.out
    assert main(["--size", "4", "--first", "", "--table", str(table)]) == 2
    assert "no position to solve" in capsys.readouterr().err
    assert table.read_bytes() == saved


def test_replies_are_one_a_position_up_to_the_boards_images():
    game = get_game("slither-advanced", size=5, pie="off")
    state = game.new_state()
    state.push_str("c3")
    # The mirrors and the half turn keep c3: White's 24 placements are 8 positions.
    assert [text for text, _ in replies(state, True)] == [
        "a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3"
    ]  # fmt: skip


B2_SPLIT = ["--size", "4", "--first", "b2", "--split"]


@pytest.fixture(scope="module")
def b2_alone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """b2's split proof on 4x4 with each reply searched alone (no tables): its record and
    what it printed.  Made once (six seconds of search) for the two tests that read it."""
    record = tmp_path_factory.mktemp("b2-alone") / "replies.jsonl"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main([*B2_SPLIT, "--record", str(record)]) == 0
    return record, printed.getvalue()


def test_a_split_proof_records_its_replies_and_resumes_from_them(b2_alone, tmp_path, capsys):
    record = tmp_path / "replies.jsonl"
    shutil.copy(b2_alone[0], record)  # resumed below: the module's record is left as made
    argv = [*B2_SPLIT, "--record", str(record)]
    out = b2_alone[1]
    assert "slither 4x4 after b2: Black wins" in out
    assert "15 distinct replies, 15 proven" in out
    lines = [json.loads(text) for text in record.read_text().splitlines()]
    # One entry a reply of White's, each a Black win (White, to move there, loses), checked.
    assert len(lines) == 15 and {entry["line"].split()[0] for entry in lines} == {"b2"}
    assert all(entry["mover_wins"] and entry["checked"] > 0 for entry in lines)
    assert main(argv) == 0  # every reply read back: nothing searched again
    out = capsys.readouterr().out
    assert out.count("proven before") == 15 and "Black wins (" not in out
    assert len(record.read_text().splitlines()) == 15


def test_a_split_proof_stopped_part_way_resumes_each_reply_from_its_table(tmp_path, capsys):
    record, tables = tmp_path / "replies.jsonl", tmp_path / "tables"
    argv = ["--size", "4", "--first", "b2", "--split", "--record", str(record)]
    argv += ["--tables", str(tables), "--every", "0.001"]
    # Too little time for any reply: each leaves its table, with the nodes spent on it.
    assert main([*argv, "--time", "0.0005"]) == 1
    assert "after b2: not proven" in capsys.readouterr().out
    saved = {path.name: path for path in tables.iterdir()}
    assert len(saved) == 15 and "slither-4-b2-a1.npz" in saved and not record.exists()
    first = ProofSearch.load(saved["slither-4-b2-a1.npz"], 4, False)
    assert first.nodes > 0 and len(first.table) > 0
    assert main(argv) == 0
    assert "after b2: Black wins" in capsys.readouterr().out
    entries = {
        json.loads(text)["line"]: json.loads(text) for text in record.read_text().splitlines()
    }
    assert len(entries) == 15 and all(entry["mover_wins"] for entry in entries.values())
    # The nodes of the stopped run are counted in the reply's total; proven, its table goes,
    # and its proven entries stay for the replies searched after it.
    assert entries["b2 a1"]["nodes"] > first.nodes
    kept = {path.name for path in tables.iterdir()}
    names = [f"slither-4-{line.replace(' ', '-')}" for line in entries]
    assert kept == {f"{name}{suffix}" for name in names for suffix in (".proven.npz", ".ruled.npz")}


def test_each_reply_starts_with_the_proofs_of_the_replies_before_it(b2_alone, tmp_path, capsys):
    # Plain Slither's stones step: the replies' proofs meet the same positions (mirrored,
    # or the stones placed in another order), and a proven entry is exact anywhere.
    alone, shared = b2_alone[0], tmp_path / "shared.jsonl"
    assert main([*B2_SPLIT, "--record", str(shared), "--tables", str(tmp_path / "tables")]) == 0
    assert "beside" in capsys.readouterr().out  # the seeds are reported
    runs = []
    for record in (alone, shared):
        lines = [json.loads(text) for text in record.read_text().splitlines()]
        runs.append({entry["line"]: entry for entry in lines})
    assert runs[0].keys() == runs[1].keys() and len(runs[0]) == 15
    for line, entry in runs[1].items():
        assert entry["mover_wins"] is runs[0][line]["mover_wins"] is True
        assert entry["checked"] > 0 and entry["checked_by_rules"] > 0  # seeds checked too
    assert runs[1]["b2 a1"]["seeded"] == 0 and runs[1]["b2 b1"]["seeded"] > 0
    nodes = [sum(entry["nodes"] for entry in run.values()) for run in runs]
    assert nodes[1] < nodes[0] / 4, nodes
    # Each reply's file holds only what its own search proved: no entry is in two files.
    keys = [np.load(path)["keys"] for path in (tmp_path / "tables").glob("*.proven.npz")]
    assert len(keys) == 15
    assert len(np.unique(np.concatenate(keys))) == sum(len(k) for k in keys)


def test_a_first_turn_starts_from_the_proofs_another_first_turn_left(tmp_path, capsys):
    # b1's replies meet the positions b2's proofs met with the stones placed in another
    # order: proven there, they are exact here.
    tables, alone = tmp_path / "tables", tmp_path / "alone.jsonl"
    assert main(["--size", "4", "--first", "b1", "--split", "--record", str(alone)]) == 0
    capsys.readouterr()
    argv = ["--size", "4", "--split", "--record", str(tmp_path / "shared.jsonl")]
    assert main([*argv, "--tables", str(tables), "--first", "b2", "b1"]) == 0
    assert capsys.readouterr().out.count("Black wins\n") == 2
    runs = []
    for record in (alone, tmp_path / "shared.jsonl"):
        lines = [json.loads(text) for text in record.read_text().splitlines()]
        runs.append({entry["line"]: entry for entry in lines if entry["line"][:2] == "b1"})
    assert runs[0].keys() == runs[1].keys() and len(runs[0]) >= 8
    assert runs[1]["b1 a1"]["seeded"] > 0  # the first reply of b1 already had b2's proofs
    assert all(entry["checked"] > 0 for entry in runs[1].values())
    nodes = [sum(entry["nodes"] for entry in run.values()) for run in runs]
    assert nodes[1] < nodes[0] / 10, nodes
    # The rules' check does not walk again what the checks of b2's replies settled.
    assert runs[1]["b1 a1"]["ruled_before"] > 0 == runs[0]["b1 a1"]["ruled_before"]
    walked = [sum(entry["checked_by_rules"] for entry in run.values()) for run in runs]
    assert walked[1] < walked[0] / 2, walked
    # Only the proofs of the same game on the same board are taken.
    for other in ("slither-advanced-4-b2-a1", "slither-5-c3-a1", "slither-4-b2-a1-x"):
        (tables / f"{other}.npz").touch()
    (tables / "slither-advanced-4-b2-a1.proven.npz").touch()
    (tables / "slither-5-c3-a1.proven.npz").touch()
    kept = kept_files(tables, "slither", 4)
    assert kept and all(path.name.startswith("slither-4-") for path in kept)
    assert all(path.name.endswith(".proven.npz") for path in kept)


def test_a_split_stopped_by_force_takes_its_workers_with_it(tmp_path):
    # Killed, the split leaves no worker holding a core; each saves its reply's table first.
    tables = tmp_path / "tables"
    argv = ["--size", "5", "--advanced", "--first", "c3", "--split", "--workers", "2"]
    argv += ["--tables", str(tables), "--time", "300", "--every", "1000"]
    command = [sys.executable, "-m", "slimetrail.games.slither.proofnumber", *argv]
    split = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(children(split.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = children(split.pid)
    assert len(workers) >= 2, "the split's workers did not start"
    time.sleep(3)  # the workers are searching
    split.kill()
    split.wait()
    deadline = time.monotonic() + 60
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
    assert sorted(path.name for path in tables.iterdir()) == [
        "slither-advanced-5-c3-a1.npz", "slither-advanced-5-c3-b1.npz"
    ]  # fmt: skip


def children(pid: int) -> list[int]:
    """The pool's workers started by ``pid`` (Linux's /proc; not multiprocessing's
    resource tracker)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


# A reply's unfinished table, or the proof a proven reply left for the others.
@pytest.mark.parametrize("name", ["slither-4-b2-c2.npz", "slither-4-b2-a1.proven.npz"])
def test_a_split_proof_names_a_file_that_will_not_load_before_searching(tmp_path, capsys, name):
    tables = tmp_path / "tables"
    tables.mkdir()
    broken = tables / name
    broken.write_bytes(b"not an archive")
    argv = ["--size", "4", "--first", "b2", "--split", "--tables", str(tables)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert f"checkpoint '{broken}' is unreadable" in captured.err
    assert "Black wins" not in captured.out
    assert broken.read_bytes() == b"not an archive" and len(list(tables.iterdir())) == 1
    with pytest.raises(SystemExit):
        main(["--size", "4", "--first", "b2", "--tables", str(tables)])
    assert "--tables is for --split" in capsys.readouterr().err


def test_a_split_proof_refuses_a_bad_record_and_leaves_it_alone(tmp_path, capsys):
    record = tmp_path / "replies.jsonl"
    record.write_text(
        '{"game": "slither", "size": 4, "line": "b2 a1", "mover_wins": true}\n{oops\n'
    )
    before = record.read_bytes()
    assert main(["--size", "4", "--first", "b2", "--split", "--record", str(record)]) == 2
    assert f"{record}, line 2: not a record of a proven reply" in capsys.readouterr().err
    assert record.read_bytes() == before
    with pytest.raises(SystemExit):
        main(["--size", "4", "--split", "--table", str(tmp_path / "t.npz")])
    assert "no --table" in capsys.readouterr().err


def test_a_split_proof_in_worker_processes(capsys):
    assert main(["--size", "4", "--first", "a1", "--split", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "slither 4x4 after a1: Black wins" in out
    assert out.count("checked against every legal turn") == 15
    assert out.count(", by the engine's rules: ") == 15


def test_a_split_proof_stops_at_the_first_winning_reply(capsys):
    state = get_game("slither", size=4, pie="off").new_state()
    for turn in ("b2", "a1"):
        state.push_str(turn)
    assert reference_wins(state)  # Black, to move, wins
    assert main(["--size", "4", "--first", "b2 a1", "--split"]) == 0
    out = capsys.readouterr().out
    assert "slither 4x4 after b2 a1: Black wins" in out
    # Black's first reply searched already wins (White loses after it): no other is tried.
    assert out.count("checked against every legal turn") == 1


def test_a_worker_in_its_checks_stops_once_its_split_has_gone():
    # The checks do not come back between searches: a watch looks at the split meanwhile.
    over, gone = threading.Event(), threading.Event()
    checks_done = watch_split(over.is_set, 0.01, gone.set)
    assert not gone.wait(0.1)  # the split runs: the checks go on
    over.set()
    assert gone.wait(5)
    quiet = watch_split(lambda: False, 0.01, gone.clear)
    quiet.set()  # the checks ended first: the watch stops, whatever the split does later
    time.sleep(0.05)
    assert gone.is_set()
    checks_done.set()


def test_a_worker_stops_its_search_once_its_split_has_its_answer(tmp_path):
    # Another reply won for the opponent: the reply in hand is moot. Its worker saves its
    # table (the search can resume from it) and ends, instead of searching on for hours.
    context = multiprocessing.get_context("spawn")
    answered = context.Event()
    table = tmp_path / "slither-advanced-5-c3-a1.npz"
    with ProcessPoolExecutor(
        1, mp_context=context, initializer=join_split, initargs=(answered,)
    ) as pool:
        future = pool.submit(prove_line, "slither-advanced", 5, "c3 a1", 300.0, table, 1000.0)
        time.sleep(3)  # the worker is searching (the reply takes minutes)
        assert not future.done()
        answered.set()
        stopped = time.monotonic()
        with pytest.raises(BrokenProcessPool, match="terminated abruptly"):
            future.result(timeout=60)
        assert time.monotonic() - stopped < 40
    assert table.exists() and ProofSearch.load(table, 5, True).nodes > 0
