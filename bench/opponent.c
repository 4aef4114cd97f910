/* An independent Slimetrail (Rastros) / Slime Trail (Taylor rules) player for square boards
 * up to 8x8: iterative-deepening negamax alpha-beta with a transposition table and a simple
 * evaluation (walking distances to the two goals).  Written for bench/perfect.py from the
 * rules in RULES.md; it shares nothing with Slimetrail's solver or search.
 *
 * usage: opponent N RULES SNAIL SIDE FREE_HEX MILLISECONDS
 *   N: board side; RULES: rastros|taylor; SNAIL: cell index (row * N + col, a1 = 0);
 *   SIDE: 1 or 2 (to move); FREE_HEX: the empty cells as a hex bit mask; prints
 *   "MOVE SCORE DEPTH NODES" (MOVE a cell index; SCORE > 90000: a proven win).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN 100000
#define PROVEN 90000
#define TT_BITS 22
#define MAX_PLY 64

typedef uint64_t u64;

static int n, taylor, cells;
static u64 nbr[64], goal[3]; /* goal[p]: bit of player p's goal */
static u64 zob_snail[64], zob_free[64];
static long long nodes;
static double deadline;
static int aborted, hit_horizon;

typedef struct {
    u64 key;
    int score, depth, flag, move;
} Entry;
static Entry *tt;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static u64 rng_state = 0x9E3779B97F4A7C15ull;
static u64 rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int bit_index(u64 b) { return __builtin_ctzll(b); }

/* Cells reachable from the set `from` through `through` (flood fill, `from` included). */
static u64 flood(u64 from, u64 through) {
    u64 seen = from, frontier = from;
    while (frontier) {
        u64 next = 0, f = frontier;
        while (f) {
            next |= nbr[bit_index(f)];
            f &= f - 1;
        }
        next &= through & ~seen;
        seen |= next;
        frontier = next;
    }
    return seen;
}

static u64 legal(u64 free_cells, int snail) {
    u64 steps = nbr[snail] & free_cells;
    if (!taylor) return steps;
    /* Taylor: a step must be a goal or a cell that still reaches a goal through empty cells. */
    u64 goals = (goal[1] | goal[2]) & free_cells;
    return steps & (flood(goals, free_cells) | goals);
}

/* Walking distance from the snail to `target` through empty cells (99: unreachable). */
static int distance(u64 free_cells, int snail, u64 target) {
    u64 seen = 1ull << snail, frontier = seen;
    for (int d = 1; frontier; d++) {
        u64 next = 0, f = frontier;
        while (f) {
            next |= nbr[bit_index(f)];
            f &= f - 1;
        }
        if (next & target & free_cells) return d;
        next &= free_cells & ~seen & ~(goal[1] | goal[2]);
        seen |= next;
        frontier = next;
    }
    return 99;
}

/* For the side to move: nearer its own goal than the opponent to theirs is good; the mover
 * also likes more room. */
static int evaluate(u64 free_cells, int snail, int side) {
    int mine = distance(free_cells, snail, goal[side]);
    int theirs = distance(free_cells, snail, goal[3 - side]);
    if (mine == 99 && theirs == 99) {
        u64 room = flood(1ull << snail, free_cells) & free_cells;
        return (int)__builtin_popcountll(room) % 2 ? 50 : -50; /* a parity guess */
    }
    return 40 * (theirs - mine) + (mine < theirs ? 20 : 0);
}

static int negamax(u64 free_cells, int snail, int side, int depth, int alpha, int beta, int ply) {
    nodes++;
    if ((nodes & 1023) == 0 && now() > deadline) aborted = 1;
    if (aborted) return 0;
    u64 moves = legal(free_cells, snail);
    if (moves & goal[side]) return WIN - ply - 1; /* step into my goal */
    moves &= ~goal[3 - side];                      /* stepping into theirs loses at once */
    if (!moves) {
        if (legal(free_cells, snail)) return -(WIN - ply - 1); /* only their goal is left */
        return taylor ? 0 : -(WIN - ply);                        /* stuck */
    }
    if (depth <= 0) {
        hit_horizon = 1;
        return evaluate(free_cells, snail, side);
    }
    u64 key = zob_snail[snail] ^ (side == 2 ? 0x5bd1e995ull : 0);
    for (u64 f = free_cells; f; f &= f - 1) key ^= zob_free[bit_index(f)];
    Entry *e = &tt[key & ((1u << TT_BITS) - 1)];
    int tt_move = -1;
    if (e->key == key) {
        tt_move = e->move;
        if (e->depth >= depth) {
            int s = e->score;
            if (s > PROVEN) s -= ply;
            if (s < -PROVEN) s += ply;
            if (e->flag == 0) return s;
            if (e->flag == 1 && s >= beta) return s;
            if (e->flag == 2 && s <= alpha) return s;
        }
    }
    /* Order: the table's move, then nearer my own goal. */
    int list[8], keys[8], count = 0;
    for (u64 m = moves; m; m &= m - 1) {
        int c = bit_index(m);
        list[count] = c;
        keys[count] = c == tt_move ? -1000 : distance(free_cells & ~(1ull << c), c, goal[side]);
        count++;
    }
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && keys[j] < keys[j - 1]; j--) {
            int t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t;
            t = list[j]; list[j] = list[j - 1]; list[j - 1] = t;
        }
    int best = -WIN - 1, best_move = list[0], start_alpha = alpha;
    for (int i = 0; i < count; i++) {
        int c = list[i];
        int s = -negamax(free_cells & ~(1ull << c), c, 3 - side, depth - 1, -beta, -alpha, ply + 1);
        if (aborted) return 0;
        if (s > best) { best = s; best_move = c; }
        if (s > alpha) alpha = s;
        if (alpha >= beta) break;
    }
    int stored = best;
    if (stored > PROVEN) stored += ply;
    if (stored < -PROVEN) stored -= ply;
    e->key = key;
    e->score = stored;
    e->depth = depth;
    e->move = best_move;
    e->flag = best <= start_alpha ? 2 : best >= beta ? 1 : 0;
    return best;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: opponent N RULES SNAIL SIDE FREE_HEX MILLISECONDS\n");
        return 2;
    }
    n = atoi(argv[1]);
    taylor = strcmp(argv[2], "taylor") == 0;
    int snail = atoi(argv[3]), side = atoi(argv[4]);
    u64 free_cells = strtoull(argv[5], NULL, 16);
    double budget = atoi(argv[6]) / 1000.0;
    cells = n * n;
    if (n < 3 || n > 8 || snail < 0 || snail >= cells || (side != 1 && side != 2)) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    for (int c = 0; c < cells; c++) {
        int col = c % n, row = c / n;
        nbr[c] = 0;
        for (int dc = -1; dc <= 1; dc++)
            for (int dr = -1; dr <= 1; dr++) {
                int x = col + dc, y = row + dr;
                if ((dc || dr) && x >= 0 && x < n && y >= 0 && y < n) nbr[c] |= 1ull << (y * n + x);
            }
        zob_snail[c] = rnd();
        zob_free[c] = rnd();
    }
    goal[1] = 1ull;
    goal[2] = 1ull << (cells - 1);
    tt = calloc((size_t)1 << TT_BITS, sizeof(Entry));
    double started = now();
    deadline = started + budget;
    u64 moves = legal(free_cells, snail);
    if (!moves) {
        fprintf(stderr, "no legal move\n");
        return 1;
    }
    int best_move = bit_index(moves), best_score = 0, depth_done = 0;
    for (int depth = 1; depth <= MAX_PLY; depth++) {
        hit_horizon = 0;
        int alpha = -WIN - 1, move = -1, score = -WIN - 1;
        /* Root: the previous best first. */
        int order[8], count = 0;
        order[count++] = best_move;
        for (u64 m = moves; m; m &= m - 1)
            if (bit_index(m) != best_move) order[count++] = bit_index(m);
        for (int i = 0; i < count; i++) {
            int c = order[i], s;
            if (goal[side] >> c & 1) s = WIN - 1;
            else if (goal[3 - side] >> c & 1) s = -(WIN - 1);
            else s = -negamax(free_cells & ~(1ull << c), c, 3 - side, depth - 1, -WIN - 1, -alpha, 1);
            if (aborted) break;
            if (s > score) { score = s; move = c; }
            if (s > alpha) alpha = s;
        }
        if (aborted) break;
        best_move = move;
        best_score = score;
        depth_done = depth;
        if (!hit_horizon || score > PROVEN || score < -PROVEN) break; /* exact */
        if (now() - started > budget * 0.5) break; /* the next depth would not finish */
    }
    printf("%d %d %d %lld\n", best_move, best_score, depth_done, nodes);
    return 0;
}
