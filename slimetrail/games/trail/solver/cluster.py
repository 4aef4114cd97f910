"""Long solves on Ray: the positions a few plies below the root are the tasks.

A solve is split into one Ray task per distinct position ``depth`` plies below the root
(transpositions, and mirror images in the a1 diagonal, share one task).  Each task proves its
position's value with the compiled solver (stopping at the first win), saving its table to a
checkpoint file every few minutes; the driver records every finished task in
``results.json`` in the checkpoint directory, backs the values up the tree and cancels the
tasks whose value can no longer matter.  A lost worker's task is retried by Ray and resumes
from its checkpoint; a restarted driver skips every task in ``results.json``.  On a cluster
the checkpoint directory must be one that every node shares.

    pip install 'slimetrail[cluster]'
    python -m slimetrail.games.trail.solver.cluster --size 9 --checkpoint ck9 d4
    python -m slimetrail.games.trail.solver.cluster --address HOST:6379 --depth 2 ...

Without ``--address`` a local Ray instance is started (``--cpus`` of this machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from slimetrail.core.game import GameError, Move, SolveResult, SolveTimeout, State
from slimetrail.core.registry import get_game, parse_game_spec
from slimetrail.games.trail.game import TrailGame, TrailState
from slimetrail.games.trail.solver import MATE, result_from_scores, solve
from slimetrail.games.trail.solver.book import canonical

RESULTS = "results.json"
OPPOSITE = {"win": "loss", "loss": "win", "draw": "draw"}  # child's value -> the mover's


def connect(address: str | None = None, num_cpus: int | None = None):
    """The ``ray`` module, connected to the cluster at ``address`` or to a local instance
    with ``num_cpus`` workers (started once per process and kept for later solves)."""
    try:
        import ray
    except ImportError as exc:
        raise GameError("solving on Ray needs it: pip install 'slimetrail[cluster]'") from exc
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            # Ray starts its workers 15 nice levels below the driver; here they are the work,
            # so they run at the driver's priority (run the command under `nice` to lower it).
            os.environ.setdefault("RAY_worker_niceness", "0")
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return ray


def checkpoint_path(directory: str | os.PathLike[str], state: State, distance: bool) -> str:
    """The checkpoint file of a solve of ``state`` in ``directory``."""
    name = f"{state.game.spec} {state.fen()}".replace(" ", "_").replace("/", "-")
    return os.path.join(directory, f"{name}{'_distance' if distance else ''}.npz")


def solve_task(
    spec: str,
    fen: str,
    distance: bool,
    deadline: float | None,
    checkpoint: str | None,
    table_bits: int | None,
) -> tuple[str, int, int] | None:
    """One task: (value for the side to move, plies, nodes) of the position ``fen`` of the
    game ``spec``, or ``None`` if ``deadline`` (a ``time.time()``) passed first."""
    state = parse_game_spec(spec).state_from_fen(fen)
    left = None if deadline is None else deadline - time.time()
    if left is not None and left <= 0:
        return None
    try:
        # With distances every move is needed for the exact length; without, one win will do.
        r = solve(
            state,
            distance=distance,
            first_win=not distance,
            time_limit=left,
            checkpoint=checkpoint,
            table_bits=table_bits,
            book=False,
        )
    except SolveTimeout:
        return None  # the checkpoint keeps the work done
    return r.value, r.plies or 0, r.nodes


@dataclass
class Node:
    """A position of the split tree: finished (``value`` known), a task (``key``), or
    inner (``children``)."""

    state: State
    line: tuple[str, ...]  # the moves from the root
    value: str | None = None  # for the side to move, once known from the game
    key: str | None = None
    children: dict[Move, Node] = field(default_factory=dict)


class RaySolve:
    """One split solve: the tree down to the tasks, and the results found so far."""

    def __init__(
        self,
        state: State,
        depth: int,
        distance: bool,
        checkpoint_dir: str | os.PathLike[str] | None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if not isinstance(state.game, TrailGame):
            raise GameError(f"the solver handles the Slime Trail games, not {state.game.id}")
        if depth < 1:
            raise GameError(f"the split depth must be at least 1, not {depth}")
        if distance and depth > 1:
            raise GameError("a solve with distances splits only at the root (depth 1)")
        self.distance, self.log = distance, log or (lambda _: None)
        self.directory = None if checkpoint_dir is None else Path(checkpoint_dir)
        self.results: dict[str, list] = {}  # task key -> [value, plies, nodes, line]
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            if (self.directory / RESULTS).exists():
                self.results = json.loads((self.directory / RESULTS).read_text("utf-8"))
        self.tasks: dict[str, Node] = {}  # key -> the first node of that position
        self.root = self.expand(state.copy(), (), depth)

    def expand(self, state: State, line: tuple[str, ...], depth: int) -> Node:
        node = Node(state.copy(), line)
        outcome = state.outcome()
        if outcome is not None:
            node.value = outcome.for_player(state.to_move)
        elif depth == 0:
            key, _ = canonical(cast(TrailState, state))  # the root's game is a TrailGame
            node.key = f"{key}{' distance' if self.distance else ''}"
            self.tasks.setdefault(node.key, node)
        else:
            for move in state.legal_moves():
                state.push(move)
                node.children[move] = self.expand(state, (*line, state.move_str(move)), depth - 1)
                state.pop()
        return node

    def value(self, node: Node) -> str | None:
        """The node's value for its side to move, if the results so far decide it."""
        if node.value is not None:
            return node.value
        if node.key is not None:
            found = self.results.get(node.key)
            return None if found is None else found[0]
        values = [self.value(child) for child in node.children.values()]
        if "loss" in values:
            return "win"
        if None in values:
            return None
        return "draw" if "draw" in values else "loss"

    def needed(self, node: Node, everything: bool = False) -> set[str]:
        """The tasks still needed to decide ``node`` (``everything``: each of its children)."""
        if not everything and self.value(node) is not None:
            return set()
        if node.key is not None:
            return set() if node.key in self.results else {node.key}
        return set().union(*(self.needed(child) for child in node.children.values()))

    def record(self, key: str, answer: tuple[str, int, int]) -> None:
        value, plies, nodes = answer
        self.results[key] = [value, plies, nodes, " ".join(self.tasks[key].line)]
        if self.directory is not None:
            tmp = self.directory / f"{RESULTS}.tmp"
            tmp.write_text(json.dumps(self.results, indent=0, sort_keys=True) + "\n", "utf-8")
            tmp.replace(self.directory / RESULTS)  # never a half-written record
        self.log(f"{' '.join(self.tasks[key].line)}: {value} for the side to move, {nodes} nodes")

    def run(
        self,
        ray,
        time_limit: float | None = None,
        table_bits: int | None = None,
        max_retries: int = 3,
    ) -> SolveResult:
        """Solve every root move on ``ray``; raises :class:`SolveTimeout` (naming the moves
        proven) if some are left after ``time_limit`` seconds."""
        started = time.monotonic()
        deadline = None if time_limit is None else time.time() + time_limit
        remote = ray.remote(num_cpus=1, max_retries=max_retries)(solve_task)
        pending = {}
        for key in sorted(self.needed(self.root, everything=True)):
            node = self.tasks[key]
            path = None
            if self.directory is not None:
                path = checkpoint_path(self.directory, node.state, self.distance)
            spec, fen = node.state.game.spec, node.state.fen()
            pending[remote.remote(spec, fen, self.distance, deadline, path, table_bits)] = key
        timed_out = False
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                key = pending.pop(ref)
                answer = ray.get(ref)
                if answer is None:
                    timed_out = True
                else:
                    self.record(key, answer)
            wanted = self.needed(self.root, everything=True)
            for ref in [ref for ref, key in pending.items() if key not in wanted]:
                # Decided elsewhere in the tree: its worker is freed for the rest.
                ray.cancel(ref, force=True)
                del pending[ref]
        if timed_out or self.needed(self.root, everything=True):
            raise SolveTimeout(f"unsolved within the time limit: {self.summary()}")
        result = self.result()
        result.seconds = time.monotonic() - started
        return result

    def result(self) -> SolveResult:
        """The root's :class:`SolveResult` (every root move decided)."""
        state = self.root.state
        scores: dict[Move, int] = {}
        nodes = sum(self.results[key][2] for key in self.tasks if key in self.results)
        for move, child in self.root.children.items():
            child_value = self.value(child)
            if child_value is None:
                raise RuntimeError(f"the root move {move} is not decided yet: {self.summary()}")
            value = OPPOSITE[child_value]
            sign = {"win": 1, "draw": 0, "loss": -1}[value]
            plies = 0
            if child.key is not None:
                plies = self.results[child.key][1]
            scores[move] = sign * (MATE - plies - 1) if self.distance and sign else sign
        return result_from_scores(scores, state.to_move, MATE if self.distance else None, nodes)

    def summary(self) -> str:
        """Each root move's value for the side to move at the root, or 'open'."""
        state = self.root.state
        parts = []
        for move, child in self.root.children.items():
            value = self.value(child)
            parts.append(f"{state.move_str(move)} {OPPOSITE[value] if value else 'open'}")
        return ", ".join(parts)


def solve_on_ray(
    state: State,
    *,
    depth: int = 1,
    distance: bool = False,
    time_limit: float | None = None,
    checkpoint_dir: str | os.PathLike[str] | None = None,
    table_bits: int | None = None,
    address: str | None = None,
    num_cpus: int | None = None,
    log: Callable[[str], None] | None = None,
) -> SolveResult:
    """Like :func:`slimetrail.games.trail.solver.solve` (every root move's value), as Ray
    tasks ``depth`` plies below ``state``; see the module's description."""
    if state.outcome() is not None:
        return solve(state, distance=distance, book=False)
    split = RaySolve(state, depth, distance, checkpoint_dir, log)
    return split.run(connect(address, num_cpus), time_limit, table_bits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("moves", nargs="*", metavar="MOVES", help="moves from the start")
    parser.add_argument("--game", default="slimetrail")
    parser.add_argument("--size")
    parser.add_argument("--rules")
    parser.add_argument("--start")
    parser.add_argument("--depth", type=int, default=1, help="plies below the position per task")
    parser.add_argument("--checkpoint", metavar="DIR", required=True, help="results, checkpoints")
    parser.add_argument("--address", help="a Ray cluster's address (default: a local Ray)")
    parser.add_argument("--cpus", type=int, help="a local Ray's workers (default: every core)")
    parser.add_argument("--time-limit", type=float, metavar="S")
    parser.add_argument("--table-bits", type=int, help="log2 of each task's table entries")
    args = parser.parse_args(argv)
    game = get_game(args.game, size=args.size, rules=args.rules, start=args.start)
    state = game.new_state()
    for text in args.moves:
        state.push_str(text)

    def log(text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)

    split = RaySolve(state, args.depth, False, args.checkpoint, log)
    log(f"{game.spec} after '{' '.join(args.moves)}': {len(split.tasks)} tasks")
    try:
        split.run(connect(args.address, args.cpus), args.time_limit, args.table_bits)
    except SolveTimeout:
        print(f"unsolved: {split.summary()}")
        return 1
    print(f"{split.value(split.root)} for the side to move: {split.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
