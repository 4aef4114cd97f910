# The C kernel's interface (ckernel.c); see slimetrail.games.trail.solver.kernel128.negamax.
from typing_extensions import Buffer

MATE: int
ILLEGAL: int
ENTRY_WORDS: int
WIDE_ENTRY_WORDS: int
GENERATION_SHIFT: int
MAX_GENERATION: int
S_NODES: int
S_ABORT: int
S_LIMIT: int

def negamax(
    free: int,
    snail: int,
    side: int,
    alpha: int,
    beta: int,
    nbr: Buffer,
    goals: Buffer,
    order: Buffer,
    params: Buffer,
    table: Buffer,
    generation: int,
    stats: Buffer,
    deadline: float,
    /,
) -> int: ...
def max_matching(verts: int, nbr: Buffer, words: int, /) -> tuple[int, list[int]]: ...
