/* The Slime Trail solver's search for regions of up to 128 cells, compiled ahead of time.

   Built by `pip install` as an extension module, so that a fresh process solves without
   loading numpy or numba.  The position comes relabelled onto the region the snail can
   still reach (solver/__init__.py); a set of cells is one 64-bit word up to 64 vertices,
   else an unsigned __int128 (the search, ckernel_search.h, is compiled once for each).
   `free` is always canonical: exactly the empty cells the snail can still reach (walking
   through non-goal cells; goal corners end the walk), so positions that differ only in
   walled-off cells share a table entry.

   Scores are for the side to move.  Without distances a win is 1, a loss -1, a draw 0.  With
   distances a win in k plies is MATE - k and a loss in k plies -(MATE - k); each ply pulls
   a score one step towards zero, so the winner prefers short games and the loser long ones.

   negamax(free, snail, side, alpha, beta, nbr, goals, order, params, table, generation,
   stats, deadline) takes its arrays as any contiguous buffers (array.array or numpy), a
   set's words low word first.  It releases the interpreter lock; another thread stops it
   by setting stats[S_ABORT].  A stats buffer of three slots gives a node limit in its third
   (0: none), so that a caller can start with a small table and grow it as the search
   needs. */

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
/* Two words: the key's two, then the data word, side by side, so that a probe misses the
   cache once or twice (a bucket of two is 48 bytes), not once per array (numba two-word
   kernel, hex 10x10 Taylor: 1.2x faster than with two arrays, and a little faster than a
   padded bucket of one 64-byte line). */
#define WIDE_ENTRY_WORDS 3
/* A data word holds its solve's generation from this bit: a new solve takes the next
   generation instead of zeroing the table (the wide layer's frames share one of up to 2**24
   entries; a thread's small spare tables gain nothing, bench/solve_reuse.py); after
   MAX_GENERATION, or when the entries change size, the table is zeroed (KernelTable.renew).
   Entries another process wrote in the same generation would answer as live, so a table is
   never shared (solver/__init__.py maps it private, also from forked children). */
#define GENERATION_SHIFT 40
#define MAX_GENERATION 0xFFFF
#define STAMPED_TAG ((((i64)MAX_GENERATION) << GENERATION_SHIFT) | 255)
/* With one goal cut off, the matching bounds are tried only on regions at least this big:
   on smaller ones the search is quicker than the matchings (numba kernel, 7x7 mid-game set,
   CPU s for all 60 positions by threshold: 0: 0.38, 15: 0.31, 25: 0.25, 35: 0.27, never:
   0.32).  With no goal reachable the matching decides, so it is always used. */
#define ONE_GOAL_MATCHING_CELLS 25
/* Regions at least this big try enhanced transposition cutoffs (a flood per child); below,
   a flood per child costs more than the subtrees it saves (numba kernel, 7x7 from the start,
   no book, CPU s / nodes by threshold: 20: 7.7 s / 20.0 M, 40: 5.9 s / 25.2 M, off: 6.1 s /
   25.9 M; the 7x7 mid-game set 1.2x faster than at 20). */
#define ETC_MIN_CELLS 40
/* Two words: higher, as a flood of two words per child costs more than the subtrees it saves
   below this (numba two-word kernel, hex 10x10 Taylor positions 12-30 plies in: 1.55x faster
   than at 20 cells, 1.22x the nodes; bench/RESULTS.md). */
#define WIDE_ETC_MIN_CELLS 60
#define MAX_CELLS 128

/* time.monotonic(), which is CLOCK_MONOTONIC on Linux. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* -- scores and table entries ------------------------------------------------------------- */

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

static inline i64 tag_of(i64 snail, i64 side) { return snail * 2 + side; }

static inline i64 entry_value(i64 data) { return ((data >> 8) & 0xFFFF) - 0x8000; }
static inline int entry_flag(i64 data) { return (int)((data >> 24) & 3); }

static inline i64 pack_entry(i64 tag, i64 value, i64 flag, i64 move) {
    return tag | ((value + 0x8000) << 8) | (flag << 24) | (move << 26);
}

/* One search's arguments, its sets as 64-bit words (low word first). */
typedef struct {
    int n, taylor, dist, matching, prune;
    const u64 *nbr, *goals;
    u64 free[2];
    i64 snail, side, alpha, beta;
    const i64 *order;
    u64 *table;
    u64 mask;
    i64 generation;
    volatile i64 *stats;
    i64 node_limit;
    double deadline;
} Job;

/* -- the two kernels ------------------------------------------------------------------------ */

#define SET u64
#define WORDS 1
#define CELLS 64
#define ETC_CELLS ETC_MIN_CELLS
#define SUFFIX _1
#include "ckernel_search.h"
#undef SET
#undef WORDS
#undef CELLS
#undef ETC_CELLS
#undef SUFFIX

typedef unsigned __int128 u128;
#define SET u128
#define WORDS 2
#define CELLS 128
#define ETC_CELLS WIDE_ETC_MIN_CELLS
#define SUFFIX _2
#include "ckernel_search.h"
#undef SET
#undef WORDS
#undef CELLS
#undef ETC_CELLS
#undef SUFFIX

/* -- the module --------------------------------------------------------------------------- */

static int need(int ok, const char *message) {
    if (!ok) PyErr_SetString(PyExc_ValueError, message);
    return ok;
}

static PyObject *py_negamax(PyObject *self, PyObject *args) {
    PyObject *free_set;
    long long snail, side, alpha, beta, generation;
    double deadline;
    Py_buffer nbr, goals, order, params, table, stats;
    if (!PyArg_ParseTuple(args, "O!LLLLy*y*y*y*w*Lw*d", &PyLong_Type, &free_set, &snail, &side,
                          &alpha, &beta, &nbr, &goals, &order, &params, &table, &generation,
                          &stats, &deadline))
        return NULL;
    PyObject *result = NULL;
    u64 free[2] = {0, 0};
    /* The vertices from the order's two rows; the words of a set from nbr's length. */
    Py_ssize_t n = order.len / 16;
    int words = n >= 1 && nbr.len == 8 * n ? 1 : n >= 1 && nbr.len == 16 * n ? 2 : 0;
    Py_ssize_t entries = words ? table.len / (8 * (words + 1)) : 0;
    int free_ok = 0;
    PyObject *zero = PyLong_FromLong(0), *shift = PyLong_FromLong(64);
    PyObject *high = zero && shift ? PyNumber_Rshift(free_set, shift) : NULL;
    if (high != NULL && PyObject_RichCompareBool(free_set, zero, Py_GE) == 1) {
        free[0] = PyLong_AsUnsignedLongLongMask(free_set);
        free[1] = PyLong_AsUnsignedLongLong(high); /* fails past 128 bits */
        free_ok = !PyErr_Occurred();
    }
    Py_XDECREF(high);
    Py_XDECREF(shift);
    Py_XDECREF(zero);
    PyErr_Clear(); /* a bad free set is reported below */
    if (need(order.len % 16 == 0 && n >= 1 && n <= MAX_CELLS,
             "order: 2 rows of int64, 1 to 128 vertices") &&
        need(words != 0 && (words == 2 || n <= 64),
             "nbr: a uint64 per vertex (up to 64), or two (low word first)") &&
        need(snail >= 0 && snail < n, "snail: not a vertex") &&
        need(side == 0 || side == 1, "side: 0 or 1") &&
        need(free_ok && (words == 2 || free[1] == 0) &&
                 (n >= 128 || (n >= 64 ? free[1] >> (n - 64) == 0
                                       : free[0] >> n == 0 && free[1] == 0)),
             "free: a set of the vertices") &&
        need(goals.len == 16 * words, "goals: a set per player") &&
        need(params.len >= 32, "params: 4 int64") &&
        need(entries >= 2 && (entries & (entries - 1)) == 0 &&
                 table.len == entries * 8 * (words + 1),
             "table: a power of two (at least 2) of entries (the key's words, then data)") &&
        need(generation >= 1 && generation <= MAX_GENERATION, "generation: 1 to 0xFFFF") &&
        need(stats.len >= 16, "stats: 2 or 3 int64") &&
        need(((uintptr_t)nbr.buf | (uintptr_t)goals.buf | (uintptr_t)order.buf |
              (uintptr_t)params.buf | (uintptr_t)table.buf | (uintptr_t)stats.buf) % 8 == 0,
             "arrays must be 8-byte aligned")) {
        const i64 *p = params.buf;
        Job job = {
            .n = (int)n,
            .taylor = p[P_TAYLOR] != 0,
            .dist = p[P_DIST] != 0,
            .matching = p[P_DIST] == 0 && p[P_MATCHING] != 0,
            .prune = p[P_PRUNE] != 0,
            .nbr = nbr.buf,
            .goals = goals.buf,
            .free = {free[0], free[1]},
            .snail = snail,
            .side = side,
            .alpha = alpha,
            .beta = beta,
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
        score = words == 1 ? run_1(&job) : run_2(&job);
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

static PyObject *py_max_matching(PyObject *self, PyObject *args) {
    PyObject *verts_set;
    Py_buffer nbr;
    int words;
    if (!PyArg_ParseTuple(args, "O!y*i", &PyLong_Type, &verts_set, &nbr, &words)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = words == 1 || words == 2 ? nbr.len / (8 * words) : 0;
    u64 verts[2] = {0, 0};
    PyObject *shift = PyLong_FromLong(64);
    PyObject *high = shift ? PyNumber_Rshift(verts_set, shift) : NULL;
    int ok = high != NULL;
    if (ok) {
        verts[0] = PyLong_AsUnsignedLongLongMask(verts_set);
        verts[1] = PyLong_AsUnsignedLongLong(high);
        ok = !PyErr_Occurred() && (words == 2 || verts[1] == 0);
    }
    Py_XDECREF(high);
    Py_XDECREF(shift);
    PyErr_Clear();
    if (need(n >= 1 && n <= 64 * words && nbr.len == n * 8 * words,
             "nbr: 1 to 64 sets of `words` uint64 per word") &&
        need(ok && (n >= 64 * words || (n >= 64 ? verts[1] >> (n - 64) == 0
                                                 : verts[0] >> n == 0 && verts[1] == 0)),
             "verts: a set of the vertices")) {
        i64 match[MAX_CELLS];
        int size = words == 1 ? matching_of_1(nbr.buf, (int)n, verts, match)
                              : matching_of_2(nbr.buf, (int)n, verts, match);
        PyObject *partners = PyList_New(n);
        for (Py_ssize_t v = 0; partners != NULL && v < n; v++)
            PyList_SET_ITEM(partners, v, PyLong_FromLongLong(match[v]));
        if (partners != NULL) result = Py_BuildValue("(iN)", size, partners);
    }
    PyBuffer_Release(&nbr);
    return result;
}

static PyMethodDef methods[] = {
    {"max_matching", py_max_matching, METH_VARARGS,
     "max_matching(verts, nbr, words)\n--\n\n"
     "A maximum matching of the graph the set `verts` induces (the search's blossom "
     "algorithm; nbr: a set per vertex, `words` uint64 each): (size, partner of each vertex "
     "or -1)."},
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
    "The Slime Trail solver's search, compiled ahead of time.", -1,
    methods,
};

PyMODINIT_FUNC PyInit_ckernel(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "MATE", MATE) < 0 ||
        PyModule_AddIntConstant(m, "ILLEGAL", ILLEGAL) < 0 ||
        PyModule_AddIntConstant(m, "ENTRY_WORDS", ENTRY_WORDS) < 0 ||
        PyModule_AddIntConstant(m, "WIDE_ENTRY_WORDS", WIDE_ENTRY_WORDS) < 0 ||
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
