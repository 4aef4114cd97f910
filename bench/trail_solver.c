/* A plain C exact solver for Slime Trail positions: the baseline of bench/solver_c.py.
 *
 * Alpha-beta (fail-soft negamax over win/draw/loss) with an exact-key transposition table,
 * written independently of the project's kernels and sharing nothing with them but the rules
 * (RULES.md sections 1-3).  Sets of cells are unsigned __int128 (up to 128 vertices).  The
 * table key is the region the snail can still reach (goal corners end a walk), the snail and
 * the side to move, stored whole; moves are tried table move first, then fewest replies.
 * No other pruning: no matching theorem, no shortcuts near the goals beyond stepping into
 * one's own corner.
 *
 * Input (stdin), one position per line, numbers in decimal, sets as two hex words hi:lo:
 *   n taylor side snail goal1 goal2 free nbr[0] ... nbr[n-1]
 * (goal1/goal2: the vertex of player 1's/2's goal, -1 if out of reach; side 0 = player 1 to
 * move).  Output, one line per position: the score of every legal move for the mover, in
 * vertex order, "vertex:score" (1 win, 0 draw, -1 loss), then "nodes N seconds S search T":
 * S counts the zeroing of the table at the start of the position, T the search alone.
 *
 * A position not solved within the time limit prints "unsolved nodes N seconds S".
 *
 *   gcc -O2 -march=native -o trail_solver trail_solver.c
 *   ./trail_solver [table_bits [seconds]] < positions
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned __int128 set;

#define ILLEGAL 100
#define MAXN 128

static int n, taylor;
static set nbr[MAXN];
static set goal[2];
static uint64_t nodes;
static double deadline; /* 0: none */
static int aborted;

typedef struct {
    set key;
    uint16_t tag; /* snail * 2 + side + 1; 0: empty */
    int8_t value;
    uint8_t flag; /* 0 exact, 1 lower bound, 2 upper bound */
    uint8_t move;
} entry;

static entry *table;
static uint64_t table_mask;

static inline int lowest(set s) {
    uint64_t lo = (uint64_t)s;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(s >> 64));
}

static inline int count(set s) {
    return __builtin_popcountll((uint64_t)s) + __builtin_popcountll((uint64_t)(s >> 64));
}

static inline set one(int i) { return (set)1 << i; }

/* The cells of free reachable from the snail; goal corners are entered but not crossed. */
static set region_of(int snail, set free) {
    set reach = 0, frontier = one(snail), goals = goal[0] | goal[1];
    while (frontier) {
        int i = lowest(frontier);
        frontier &= frontier - 1;
        set fresh = nbr[i] & free & ~reach;
        reach |= fresh;
        frontier |= fresh & ~goals;
    }
    return reach;
}

static inline uint64_t hash(set key, int tag) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)(key >> 64) * 0xD6E8FEB86659FD93ULL;
    h ^= (uint64_t)tag * 0xC2B2AE3D27D4EB4FULL;
    return (h ^ (h >> 29)) & table_mask;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int search(set free, int snail, int side, int alpha, int beta) {
    if (aborted || ((++nodes & 0xFFFF) == 0 && deadline > 0 && now() > deadline)) {
        aborted = 1;
        return 0;
    }
    set mine = goal[side], theirs = goal[1 - side];
    set steps = nbr[snail] & free;
    if (steps & mine) return 1;
    set region = region_of(snail, free);
    if (taylor && !(region & (mine | theirs))) return ILLEGAL;
    int tag = snail * 2 + side + 1;
    entry *e = &table[hash(region, tag)];
    int tt_move = -1, alpha0 = alpha;
    if (e->tag == tag && e->key == region) {
        tt_move = e->move;
        if (e->flag == 0) return e->value;
        if (e->flag == 1 && e->value >= beta) return e->value;
        if (e->flag == 2 && e->value <= alpha) return e->value;
        if (e->flag == 1 && e->value > alpha) alpha = e->value;
        if (e->flag == 2 && e->value < beta) beta = e->value;
    }
    int best = -2, best_move = -1;
    if (steps & theirs) { /* stepping into their corner loses at once */
        best = -1;
        best_move = lowest(theirs);
    }
    int kids[8], ranks[8], k = 0;
    for (set rest = steps & ~theirs; rest; rest &= rest - 1) {
        int m = lowest(rest);
        int rank = m == tt_move ? -1 : count(nbr[m] & region);
        int j = k++;
        while (j > 0 && ranks[j - 1] > rank) {
            kids[j] = kids[j - 1];
            ranks[j] = ranks[j - 1];
            j--;
        }
        kids[j] = m;
        ranks[j] = rank;
    }
    if (best > alpha) alpha = best;
    for (int i = 0; i < k && alpha < beta; i++) {
        int m = kids[i];
        int v = search(region & ~one(m), m, 1 - side, -beta, -alpha);
        if (aborted) return 0;
        if (v == ILLEGAL) continue;
        v = -v;
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) alpha = v;
        }
    }
    if (best == -2) return taylor ? 0 : -1; /* stuck */
    e->key = region;
    e->tag = (uint16_t)tag;
    e->value = (int8_t)best;
    e->flag = best <= alpha0 ? 2 : best >= beta ? 1 : 0;
    e->move = (uint8_t)(best_move < 0 ? 0 : best_move);
    return best;
}

static set read_set(void) {
    unsigned long long hi, lo;
    if (scanf(" %llx:%llx", &hi, &lo) != 2) exit(2);
    return ((set)hi << 64) | lo;
}

int main(int argc, char **argv) {
    int bits = argc > 1 ? atoi(argv[1]) : 22;
    table_mask = (1ULL << bits) - 1;
    double limit = argc > 2 ? atof(argv[2]) : 0.0;
    table = calloc(table_mask + 1, sizeof(entry));
    int side, snail, g1, g2;
    while (scanf(" %d %d %d %d %d %d", &n, &taylor, &side, &snail, &g1, &g2) == 6) {
        set free = read_set();
        for (int i = 0; i < n; i++) nbr[i] = read_set();
        goal[0] = g1 >= 0 ? one(g1) : 0;
        goal[1] = g2 >= 0 ? one(g2) : 0;
        double t0 = now(); /* clearing the table is part of a solve */
        memset(table, 0, (table_mask + 1) * sizeof(entry));
        double t1 = now();
        nodes = 0;
        aborted = 0;
        deadline = limit > 0 ? t0 + limit : 0;
        char out[4096];
        int len = 0;
        for (set moves = nbr[snail] & free; moves; moves &= moves - 1) {
            int m = lowest(moves);
            int v;
            if (one(m) & goal[side]) v = 1;
            else if (one(m) & goal[1 - side]) v = -1;
            else {
                v = search(free & ~one(m), m, 1 - side, -1, 1);
                if (v == ILLEGAL) continue; /* Taylor's rule forbids the move */
                v = -v;
            }
            if (aborted) break;
            len += snprintf(out + len, sizeof out - len, "%d:%d ", m, v);
        }
        printf("%s", aborted ? "unsolved " : out);
        double t2 = now();
        printf("nodes %llu seconds %.6f search %.6f\n", (unsigned long long)nodes, t2 - t0, t2 - t1);
        fflush(stdout);
    }
    return 0;
}
