/* The exact solver's search for regions of up to 64 cells, compiled ahead of time.

   The numba kernels' algorithm (kernel.py's conventions, kernel128.py's search on one word
   per set of cells: the same scores, table layout, shortcuts, move order and matching
   theorem), built by `pip install` as an extension module so that a fresh process solves
   without loading numba or numpy.  `negamax` takes kernel128.negamax's arguments with one
   word of free cells, its arrays as any contiguous buffers (array.array or numpy).  It
   releases the interpreter lock; another thread stops it by setting stats[S_ABORT].
   One addition: a stats buffer of three slots gives a node limit in its third (0: none), so
   that a caller can start with a small table and grow it only for a big search. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <time.h>

typedef uint64_t u64;
typedef int64_t i64;

#define MATE 1000
#define INF 10000
#define ILLEGAL 20000
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define P_TAYLOR 0
#define P_DIST 1
#define P_MATCHING 2
#define P_PRUNE 3
#define S_NODES 0
#define S_ABORT 1
#define S_LIMIT 2 /* optional: stop (as at the deadline) once this many nodes are counted */
#define CLOCK_EVERY 4095
/* A table entry is the key word then the data word; a bucket of two entries is 32 bytes
   (half a cache line), so a probe misses the cache at most once. */
#define ENTRY_WORDS 2
#define GENERATION_SHIFT 40
#define MAX_GENERATION 0xFFFF
#define STAMPED_TAG ((((i64)MAX_GENERATION) << GENERATION_SHIFT) | 255)
#define ONE_GOAL_MATCHING_CELLS 25 /* see kernel.py */
/* Regions at least this big try enhanced transposition cutoffs (a flood per child); below,
   a flood per child costs more than the subtrees it saves (numba kernel, 7x7 from the start,
   no book, CPU s / nodes by threshold: 20: 7.7 s / 20.0 M, 40: 5.9 s / 25.2 M, off: 6.1 s /
   25.9 M; the 7x7 mid-game set 1.2x faster than at 20). */
#define ETC_MIN_CELLS 40
#define MAX_CELLS 64

#define BIT(i) (((u64)1) << (i))

static inline int lowest(u64 x) { return __builtin_ctzll(x); }
static inline int count(u64 x) { return __builtin_popcountll(x); }

/* time.monotonic(), which is CLOCK_MONOTONIC on Linux. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Cells of `free` reachable from `seed`, walking on only through `passable`. */
static inline u64 flood(u64 seed, u64 free, const u64 *nbr, u64 passable) {
    u64 left = free, frontier = seed;
    while (frontier) {
        int i = lowest(frontier);
        frontier &= frontier - 1;
        u64 fresh = nbr[i] & left;
        left ^= fresh;
        frontier |= fresh & passable;
    }
    return free ^ left;
}

/* -- maximum matching (Edmonds' blossom algorithm) ---------------------------------------- */

typedef struct {
    i64 parent[MAX_CELLS], base[MAX_CELLS], queue[MAX_CELLS], match[MAX_CELLS];
} Work;

static i64 common_base(i64 a, i64 b, Work *w) {
    u64 seen = 0;
    for (;;) {
        a = w->base[a];
        seen |= BIT(a);
        if (w->match[a] == -1) break;
        a = w->parent[w->match[a]];
    }
    for (;;) {
        b = w->base[b];
        if (seen & BIT(b)) return b;
        b = w->parent[w->match[b]];
    }
}

static u64 mark_path(i64 v, i64 b, i64 child, Work *w, u64 blossom) {
    while (w->base[v] != b) {
        blossom |= BIT(w->base[v]) | BIT(w->base[w->match[v]]);
        w->parent[v] = child;
        child = w->match[v];
        v = w->parent[w->match[v]];
    }
    return blossom;
}

/* An augmenting path from the exposed vertex `root` inside `verts`: flipped, and 1; or 0. */
static int augment_from(i64 root, u64 verts, const u64 *nbr, Work *w) {
    u64 rest = verts;
    while (rest) {
        int i = lowest(rest);
        rest &= rest - 1;
        w->parent[i] = -1;
        w->base[i] = i;
    }
    u64 used = BIT(root);
    int head = 0, tail = 0;
    w->queue[tail++] = root;
    while (head < tail) {
        i64 v = w->queue[head++];
        u64 others = nbr[v] & verts;
        while (others) {
            i64 to = lowest(others);
            others &= others - 1;
            if (w->base[v] == w->base[to] || w->match[v] == to) continue;
            if (to == root || (w->match[to] != -1 && w->parent[w->match[to]] != -1)) {
                i64 cur = common_base(v, to, w);
                u64 blossom = mark_path(v, cur, to, w, 0);
                blossom = mark_path(to, cur, v, w, blossom);
                rest = verts;
                while (rest) {
                    int i = lowest(rest);
                    rest &= rest - 1;
                    if (blossom & BIT(w->base[i])) {
                        w->base[i] = cur;
                        if (!(used & BIT(i))) {
                            used |= BIT(i);
                            w->queue[tail++] = i;
                        }
                    }
                }
            } else if (w->parent[to] == -1) {
                w->parent[to] = v;
                if (w->match[to] == -1) {
                    while (to != -1) {
                        i64 pv = w->parent[to];
                        i64 next = w->match[pv];
                        w->match[to] = pv;
                        w->match[pv] = to;
                        to = next;
                    }
                    return 1;
                }
                i64 next = w->match[to];
                used |= BIT(next);
                w->queue[tail++] = next;
            }
        }
    }
    return 0;
}

static void grow_matching(u64 verts, const u64 *nbr, Work *w) {
    u64 rest = verts;
    while (rest) { /* greedy start */
        int v = lowest(rest);
        rest &= rest - 1;
        if (w->match[v] != -1) continue;
        u64 open = nbr[v] & verts;
        while (open) {
            int u = lowest(open);
            open &= open - 1;
            if (w->match[u] == -1) {
                w->match[v] = u;
                w->match[u] = v;
                break;
            }
        }
    }
    rest = verts;
    while (rest) {
        int v = lowest(rest);
        rest &= rest - 1;
        if (w->match[v] == -1) augment_from(v, verts, nbr, w);
    }
}

/* Undirected vertex geography: the mover wins iff the snail's vertex is in every maximum
   matching of its region. */
static int geography_wins(u64 free, int snail, const u64 *nbr, int n, Work *w) {
    for (int i = 0; i < n; i++) w->match[i] = -1;
    grow_matching(free, nbr, w);
    return augment_from(snail, free | BIT(snail), nbr, w);
}

/* -- the table ---------------------------------------------------------------------------- */

static inline i64 adjust(i64 score, int dist) {
    i64 s = -score;
    if (dist) {
        if (s > 0) s -= 1;
        else if (s < 0) s += 1;
    }
    return s;
}

static inline i64 unadjust(i64 bound, int dist) {
    if (dist) {
        if (bound > 0) bound += 1;
        else if (bound < 0) bound -= 1;
    }
    return -bound;
}

static inline i64 slot_of(u64 free, i64 snail, i64 side, u64 mask) {
    u64 h = free * 0x9E3779B97F4A7C15ULL;
    h ^= (u64)(snail * 2 + side) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    return (i64)(h & mask) & ~(i64)1;
}

static inline i64 tag_of(i64 snail, i64 side) { return snail * 2 + side; }

static inline i64 find(const u64 *table, i64 slot, u64 key, i64 tag) {
    for (i64 s = slot; s < slot + 2; s++) {
        i64 data = (i64)table[ENTRY_WORDS * s + 1];
        if (table[ENTRY_WORDS * s] == key && (data & STAMPED_TAG) == tag) return s;
    }
    return -1;
}

static inline i64 entry_value(i64 data) { return ((data >> 8) & 0xFFFF) - 0x8000; }
static inline int entry_flag(i64 data) { return (int)((data >> 24) & 3); }

static inline i64 pack_entry(i64 tag, i64 value, i64 flag, i64 move) {
    return tag | ((value + 0x8000) << 8) | (flag << 24) | (move << 26);
}

static inline void store(u64 *table, i64 slot, u64 free, i64 tag, i64 data) {
    i64 e = ENTRY_WORDS * slot;
    i64 old = (i64)table[e + 1];
    int same = table[e] == free && (old & STAMPED_TAG) == tag;
    int stale = (old >> GENERATION_SHIFT) != (tag >> GENERATION_SHIFT);
    if (same || stale || count(table[e]) <= count(free)) {
        if (!same) {
            table[e + 2] = table[e];
            table[e + 3] = table[e + 1];
        }
        table[e] = free;
        table[e + 1] = (u64)data;
    } else {
        table[e + 2] = free;
        table[e + 3] = (u64)data;
    }
}

/* -- the search --------------------------------------------------------------------------- */

static inline int joined(int m, i64 parent, u64 free, const u64 *nbr, const u64 *nearby,
                         u64 passable) {
    u64 targets = nbr[parent] & free;
    u64 left = nearby[parent] & free;
    u64 frontier = BIT(m);
    while (frontier && (targets & left)) {
        int i = lowest(frontier);
        frontier &= frontier - 1;
        u64 fresh = nbr[i] & left;
        left ^= fresh;
        frontier |= fresh & passable;
    }
    return (targets & left) == 0;
}

static inline int pick_move(u64 moves, i64 tt_move, u64 free, const u64 *nbr,
                            const i64 *side_order) {
    int pick = -1;
    i64 pick_rank = (i64)1 << 40;
    while (moves) {
        int m = lowest(moves);
        moves &= moves - 1;
        if (m == tt_move) return m;
        i64 rank = (i64)count(nbr[m] & free) * 64 + side_order[m];
        if (rank < pick_rank) {
            pick = m;
            pick_rank = rank;
        }
    }
    return pick;
}

typedef struct {
    int n, taylor, dist, matching, prune;
    const u64 *nbr, *goals;
    const i64 *order; /* 2 rows of n */
    u64 *table;
    u64 mask;
    i64 generation;
    volatile i64 *stats;
    i64 node_limit;
    double deadline;
} Search;

typedef struct {
    u64 free, rest;
    i64 snail, side, alpha, beta, alpha0, best, best_move, tt_move, slot;
} Frame;

static i64 negamax(const Search *S, u64 free, i64 snail, i64 side, i64 alpha, i64 beta) {
    const int dist = S->dist, taylor = S->taylor, matching = S->matching, prune = S->prune;
    const i64 win = dist ? MATE : 1;
    const int n = S->n;
    const u64 *nbr = S->nbr, *goals = S->goals;
    u64 *table = S->table;
    const u64 mask = S->mask;
    volatile i64 *stats = S->stats;
    Work work; /* the matching's scratch rows */
    /* Every child has one cell fewer, so the path is at most n + 1 nodes long. */
    Frame f[MAX_CELLS + 2];
    int depth = 0;
    u64 nearby[MAX_CELLS];
    for (int v = 0; v < n; v++) {
        nearby[v] = nbr[v];
        for (u64 rest = nbr[v]; rest; rest &= rest - 1) nearby[v] |= nbr[lowest(rest)];
    }
    const i64 stamp = S->generation << GENERATION_SHIFT;
    const u64 passable = ~(goals[0] | goals[1]);
    /* Whether free is already the snail's region: the flood, a node's biggest cost, is
       skipped when a walk near the last move shows nothing was cut off. */
    int canonical = 0, reach_mine = 0, reach_theirs = 0;
    u64 rest = 0, steps;
    i64 slot = 0, tag = 0, tt_move = 0, alpha0 = 0, best = 0, best_move = 0;
    for (;;) {
        /* Open the node (free, snail, side, alpha, beta): either its score is known at once
           (`known`, the score in `ret`) or it gets a frame. */
        stats[S_NODES] += 1;
        if ((S->deadline > 0.0 && (stats[S_NODES] & CLOCK_EVERY) == 0 && now() > S->deadline) ||
            (S->node_limit > 0 && stats[S_NODES] > S->node_limit))
            stats[S_ABORT] = 1;
        if (stats[S_ABORT] != 0) return 0;
        int known = 1;
        i64 ret = 0;
        u64 mine = goals[side], theirs = goals[1 - side];
        steps = nbr[snail] & free;
        if (steps & mine) {
            ret = dist ? win - 1 : win;
        } else {
            /* Canonical region: what the snail can still reach (goal corners end a walk). */
            if (!canonical) free = flood(BIT(snail), free, nbr, ~(mine | theirs));
            reach_mine = (free & mine) != 0;
            reach_theirs = (free & theirs) != 0;
            if (!reach_mine && !reach_theirs && (taylor || steps == 0)) {
                ret = taylor ? ILLEGAL : -win;
            } else if (reach_mine != reach_theirs && matching && taylor) {
                /* Every legal move keeps the one reachable goal reachable and the snail
                   cannot get stuck, so the game ends in that goal: its owner wins. */
                ret = reach_mine ? win : -win;
            } else {
                known = 0;
            }
        }
        if (!known) {
            /* The table, probed before the matching shortcuts: they cost more than a probe,
               and their answers are stored too. */
            slot = slot_of(free, snail, side, mask);
            tag = tag_of(snail, side) | stamp;
            tt_move = -1;
            alpha0 = alpha;
            i64 found = find(table, slot, free, tag);
            if (found >= 0) {
                i64 data = (i64)table[ENTRY_WORDS * found + 1];
                i64 value = entry_value(data);
                int flag = entry_flag(data);
                tt_move = (data >> 26) & 127;
                if (flag == EXACT || (flag == LOWER && value >= beta) ||
                    (flag == UPPER && value <= alpha)) {
                    known = 1;
                    ret = value;
                } else if (flag == LOWER && value > alpha) {
                    alpha = value;
                } else if (flag == UPPER && value < beta) {
                    beta = value;
                }
            }
        }
        if (!known && matching && !(reach_mine && reach_theirs) &&
            (!(reach_mine || reach_theirs) || count(free) >= ONE_GOAL_MATCHING_CELLS)) {
            /* No goal reachable: plain geography decides.  One goal (Rastros): if the mover
               wins geography on the cells other than their own goal, they win here too (the
               opponent's extra option, entering it, loses); if the mover loses geography on
               the cells other than the opponent's goal, the opponent's pairing strategy wins
               here too (the mover's extra option, entering it, loses).  Else search on. */
            i64 value = 0;
            if (!reach_mine && !reach_theirs)
                value = geography_wins(free, (int)snail, nbr, n, &work) ? win : -win;
            else if (reach_mine && geography_wins(free & ~mine, (int)snail, nbr, n, &work))
                value = win;
            else if (reach_theirs && !geography_wins(free & ~theirs, (int)snail, nbr, n, &work))
                value = -win;
            if (value != 0) {
                store(table, slot, free, tag, pack_entry(tag, value, EXACT, 0));
                known = 1;
                ret = value;
            }
        }
        if (!known) {
            best = -INF;
            best_move = -1;
            /* Stepping into the opponent's corner loses at once; stepping next to it (when
               pruning) loses on their reply.  Neither needs a search. */
            if (steps & theirs) {
                best = adjust(win, dist);
                best_move = lowest(theirs);
            }
            rest = steps & ~theirs;
            if (prune && theirs) {
                u64 near = rest & nbr[lowest(theirs)];
                if (near) {
                    i64 loss2 = adjust(dist ? win - 1 : win, dist);
                    if (loss2 > best) {
                        best = loss2;
                        best_move = lowest(near);
                    }
                    rest &= ~near;
                }
            }
            if (best > alpha) alpha = best;
            if (alpha < beta && (rest & (rest - 1)) && count(free) >= ETC_MIN_CELLS) {
                /* Enhanced transposition cutoff: a child the table already knows to lose (for
                   the opponent) by enough ends this node before any subtree is searched. */
                u64 goal_bits = mine | theirs;
                for (u64 scan = rest; scan; scan &= scan - 1) {
                    int m = lowest(scan);
                    u64 kid_free = flood(BIT(m), free & ~BIT(m), nbr, ~goal_bits);
                    i64 kid_slot = slot_of(kid_free, m, 1 - side, mask);
                    i64 kid = find(table, kid_slot, kid_free, tag_of(m, 1 - side) | stamp);
                    if (kid >= 0) {
                        i64 data = (i64)table[ENTRY_WORDS * kid + 1];
                        if (entry_flag(data) != LOWER) {
                            i64 score = adjust(entry_value(data), dist);
                            if (score >= beta) {
                                known = 1;
                                ret = score;
                                break;
                            }
                        }
                    }
                }
            }
        }
        if (!known) {
            Frame *fr = &f[depth++];
            fr->free = free;
            fr->rest = rest;
            fr->snail = snail;
            fr->side = side;
            fr->alpha = alpha;
            fr->beta = beta;
            fr->alpha0 = alpha0;
            fr->best = best;
            fr->best_move = best_move;
            fr->tt_move = tt_move;
            fr->slot = slot;
        }
        /* Climb: hand known scores up, finish frames, until one has a child to open. */
        for (;;) {
            if (known) {
                if (depth == 0) return ret;
                Frame *up = &f[depth - 1];
                if (ret != ILLEGAL) {
                    i64 score = adjust(ret, dist);
                    if (score > up->best) {
                        up->best = score;
                        up->best_move = snail;
                        if (score > up->alpha) up->alpha = score;
                    }
                }
            }
            Frame *top = &f[depth - 1];
            /* The next move, picked when its turn comes (a cutoff usually comes at the first,
               so the rest are never ranked): the table's move, then fewest replies for the
               opponent, ties nearer the mover's own goal. */
            if (top->rest && top->alpha < top->beta) {
                int m = pick_move(top->rest, top->tt_move, top->free, nbr,
                                  S->order + top->side * n);
                top->rest &= ~BIT(m);
                free = top->free & ~BIT(m);
                canonical = joined(m, top->snail, free, nbr, nearby, passable);
                snail = m;
                side = 1 - top->side;
                alpha = unadjust(top->beta, dist);
                beta = unadjust(top->alpha, dist);
                break;
            }
            snail = top->snail;
            if (top->best == -INF) {
                /* Stuck.  (Under Taylor's rule only when no goal can be reached, which the
                   rule itself prevents after the first move.) */
                ret = taylor ? 0 : -win;
            } else {
                int flag = top->best <= top->alpha0 ? UPPER : top->best >= top->beta ? LOWER : EXACT;
                i64 t = tag_of(snail, top->side) | stamp;
                store(table, top->slot, top->free, t, pack_entry(t, top->best, flag, top->best_move));
                ret = top->best;
            }
            known = 1;
            depth -= 1;
        }
    }
}

/* -- the module --------------------------------------------------------------------------- */

static int need(int ok, const char *message) {
    if (!ok) PyErr_SetString(PyExc_ValueError, message);
    return ok;
}

static PyObject *py_negamax(PyObject *self, PyObject *args) {
    unsigned long long free;
    long long snail, side, alpha, beta, generation;
    double deadline;
    Py_buffer nbr, goals, order, params, table, stats;
    if (!PyArg_ParseTuple(args, "KLLLLy*y*y*y*w*Lw*d", &free, &snail, &side, &alpha, &beta,
                          &nbr, &goals, &order, &params, &table, &generation, &stats,
                          &deadline))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = nbr.len / 8, entries = table.len / (8 * ENTRY_WORDS);
    if (need(nbr.len % 8 == 0 && n >= 1 && n <= MAX_CELLS, "nbr: 1 to 64 words of 8 bytes") &&
        need(snail >= 0 && snail < n, "snail: not a vertex of nbr") &&
        need(side == 0 || side == 1, "side: 0 or 1") &&
        need(n == MAX_CELLS || free >> n == 0, "free: holds a vertex beyond nbr") &&
        need(goals.len >= 16, "goals: 2 words") &&
        need(order.len >= 16 * n, "order: 2 rows of len(nbr) int64") &&
        need(params.len >= 32, "params: 4 int64") &&
        need(entries >= 2 && (entries & (entries - 1)) == 0 &&
                 table.len == entries * 8 * ENTRY_WORDS,
             "table: a power of two (at least 2) of 2-word entries") &&
        need(generation >= 1 && generation <= MAX_GENERATION, "generation: 1 to 0xFFFF") &&
        need(stats.len >= 16, "stats: 2 or 3 int64") &&
        need(((uintptr_t)nbr.buf | (uintptr_t)goals.buf | (uintptr_t)order.buf |
              (uintptr_t)params.buf | (uintptr_t)table.buf | (uintptr_t)stats.buf) % 8 == 0,
             "arrays must be 8-byte aligned")) {
        const i64 *p = params.buf;
        Search S = {
            .n = (int)n,
            .taylor = p[P_TAYLOR] != 0,
            .dist = p[P_DIST] != 0,
            .matching = p[P_DIST] == 0 && p[P_MATCHING] != 0,
            .prune = p[P_PRUNE] != 0,
            .nbr = nbr.buf,
            .goals = goals.buf,
            .order = order.buf,
            .table = table.buf,
            .mask = (u64)(entries - 1),
            .generation = generation,
            .stats = stats.buf,
            .node_limit = stats.len >= 24 ? ((const i64 *)stats.buf)[S_LIMIT] : 0,
            .deadline = deadline,
        };
        i64 score;
        Py_BEGIN_ALLOW_THREADS
        score = negamax(&S, (u64)free, snail, side, alpha, beta);
        Py_END_ALLOW_THREADS
        result = PyLong_FromLongLong(score);
    }
    PyBuffer_Release(&nbr);
    PyBuffer_Release(&goals);
    PyBuffer_Release(&order);
    PyBuffer_Release(&params);
    PyBuffer_Release(&table);
    PyBuffer_Release(&stats);
    return result;
}

static PyMethodDef methods[] = {
    {"negamax", py_negamax, METH_VARARGS,
     "negamax(free, snail, side, alpha, beta, nbr, goals, order, params, table, generation, "
     "stats, deadline)\n--\n\n"
     "The exact score of the position for the side to move (see kernel128.negamax); the "
     "arrays as contiguous buffers: nbr, goals (uint64), order (2 rows of int64), params "
     "(4 int64), table (writable uint64, a power of two of 2-word entries), stats (writable "
     "int64: nodes, abort flag, and optionally a node limit, 0 for none)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ckernel",
    "The exact solver's search for regions of up to 64 cells, compiled ahead of time.", -1,
    methods,
};

PyMODINIT_FUNC PyInit_ckernel(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "MATE", MATE) < 0 ||
        PyModule_AddIntConstant(m, "ILLEGAL", ILLEGAL) < 0 ||
        PyModule_AddIntConstant(m, "ENTRY_WORDS", ENTRY_WORDS) < 0 ||
        PyModule_AddIntConstant(m, "GENERATION_SHIFT", GENERATION_SHIFT) < 0 ||
        PyModule_AddIntConstant(m, "MAX_GENERATION", MAX_GENERATION) < 0 ||
        PyModule_AddIntConstant(m, "S_NODES", S_NODES) < 0 ||
        PyModule_AddIntConstant(m, "S_ABORT", S_ABORT) < 0 ||
        PyModule_AddIntConstant(m, "S_LIMIT", S_LIMIT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
