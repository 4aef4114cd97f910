/* The search of ckernel.c on one set type: included once per kernel, with
     SET    the type of a set of cells (u64, or unsigned __int128 for up to 128 cells)
     WORDS  its 64-bit words (1 or 2); a table entry is the key's words then the data word
     CELLS  the most vertices
     ETC_CELLS  the smallest region that tries enhanced transposition cutoffs
     SUFFIX the suffix of this kernel's function names (its names are macros for them). */

#define ENTRY (WORDS + 1)
#define BIT(i) (((SET)1) << (i))
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define flood CAT(flood, SUFFIX)
#define Work CAT(Work, SUFFIX)
#define common_base CAT(common_base, SUFFIX)
#define mark_path CAT(mark_path, SUFFIX)
#define augment_from CAT(augment_from, SUFFIX)
#define grow_matching CAT(grow_matching, SUFFIX)
#define geography_wins CAT(geography_wins, SUFFIX)
#define slot_of CAT(slot_of, SUFFIX)
#define holds CAT(holds, SUFFIX)
#define find CAT(find, SUFFIX)
#define put CAT(put, SUFFIX)
#define store CAT(store, SUFFIX)
#define joined CAT(joined, SUFFIX)
#define pick_move CAT(pick_move, SUFFIX)
#define Search CAT(Search, SUFFIX)
#define Frame CAT(Frame, SUFFIX)
#define negamax CAT(negamax, SUFFIX)
#define lowest CAT(lowest, SUFFIX)
#define count CAT(count, SUFFIX)
#define load CAT(load, SUFFIX)
#define run CAT(run, SUFFIX)
#define matching_of CAT(matching_of, SUFFIX)

static inline int lowest(SET x) {
#if WORDS == 2
    u64 lo = (u64)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((u64)(x >> 64));
#else
    return __builtin_ctzll(x);
#endif
}

static inline int count(SET x) {
#if WORDS == 2
    return __builtin_popcountll((u64)x) + __builtin_popcountll((u64)(x >> 64));
#else
    return __builtin_popcountll(x);
#endif
}

/* Cells of `free` reachable from `seed`, walking on only through `passable`. */
static inline SET flood(SET seed, SET free, const SET *nbr, SET passable) {
    SET left = free, frontier = seed;
    while (frontier) {
        int i = lowest(frontier);
        frontier &= frontier - 1;
        SET fresh = nbr[i] & left;
        left ^= fresh;
        frontier |= fresh & passable;
    }
    return free ^ left;
}

/* -- maximum matching (Edmonds' blossom algorithm) ---------------------------------------- */

typedef struct {
    i64 parent[CELLS], base[CELLS], queue[CELLS], match[CELLS];
} Work;

static i64 common_base(i64 a, i64 b, Work *w) {
    SET seen = 0;
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

static SET mark_path(i64 v, i64 b, i64 child, Work *w, SET blossom) {
    while (w->base[v] != b) {
        blossom |= BIT(w->base[v]) | BIT(w->base[w->match[v]]);
        w->parent[v] = child;
        child = w->match[v];
        v = w->parent[w->match[v]];
    }
    return blossom;
}

/* An augmenting path from the exposed vertex `root` inside `verts`: flipped, and 1; or 0. */
static int augment_from(i64 root, SET verts, const SET *nbr, Work *w) {
    SET rest = verts;
    while (rest) {
        int i = lowest(rest);
        rest &= rest - 1;
        w->parent[i] = -1;
        w->base[i] = i;
    }
    SET used = BIT(root);
    int head = 0, tail = 0;
    w->queue[tail++] = root;
    while (head < tail) {
        i64 v = w->queue[head++];
        SET others = nbr[v] & verts;
        while (others) {
            i64 to = lowest(others);
            others &= others - 1;
            if (w->base[v] == w->base[to] || w->match[v] == to) continue;
            if (to == root || (w->match[to] != -1 && w->parent[w->match[to]] != -1)) {
                i64 cur = common_base(v, to, w);
                SET blossom = mark_path(v, cur, to, w, 0);
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

static void grow_matching(SET verts, const SET *nbr, Work *w) {
    SET rest = verts;
    while (rest) { /* greedy start */
        int v = lowest(rest);
        rest &= rest - 1;
        if (w->match[v] != -1) continue;
        SET open = nbr[v] & verts;
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
static int geography_wins(SET free, int snail, const SET *nbr, int n, Work *w) {
    for (int i = 0; i < n; i++) w->match[i] = -1;
    grow_matching(free, nbr, w);
    return augment_from(snail, free | BIT(snail), nbr, w);
}

/* -- the table ---------------------------------------------------------------------------- */

static inline i64 slot_of(SET free, i64 snail, i64 side, u64 mask) {
    u64 h = (u64)free * 0x9E3779B97F4A7C15ULL;
#if WORDS == 2
    h ^= (u64)(free >> 64) * 0xD6E8FEB86659FD93ULL;
#endif
    h ^= (u64)(snail * 2 + side) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    return (i64)(h & mask) & ~(i64)1;
}

/* Whether entry `e` (its first word) holds the region `key`. */
static inline int holds(const u64 *table, i64 e, SET key) {
#if WORDS == 2
    return table[e] == (u64)key && table[e + 1] == (u64)(key >> 64);
#else
    return table[e] == key;
#endif
}

static inline i64 find(const u64 *table, i64 slot, SET key, i64 tag) {
    for (i64 s = slot; s < slot + 2; s++) {
        i64 data = (i64)table[ENTRY * s + WORDS];
        if (holds(table, ENTRY * s, key) && (data & STAMPED_TAG) == tag) return s;
    }
    return -1;
}

static inline void put(u64 *table, i64 e, SET key, i64 data) {
    table[e] = (u64)key;
#if WORDS == 2
    table[e + 1] = (u64)(key >> 64);
#endif
    table[e + WORDS] = (u64)data;
}

/* Slot 0 of the bucket keeps the bigger region (more work to redo), slot 1 the newest. */
static inline void store(u64 *table, i64 slot, SET free, i64 tag, i64 data) {
    i64 e = ENTRY * slot, f = e + ENTRY;
    i64 old = (i64)table[e + WORDS];
    int same = holds(table, e, free) && (old & STAMPED_TAG) == tag;
    int stale = (old >> GENERATION_SHIFT) != (tag >> GENERATION_SHIFT);
    int size = __builtin_popcountll(table[e]);
#if WORDS == 2
    size += __builtin_popcountll(table[e + 1]);
#endif
    if (same || stale || size <= count(free)) {
        if (!same)
            for (int k = 0; k < ENTRY; k++) table[f + k] = table[e + k];
        put(table, e, free, data);
    } else {
        put(table, f, free, data);
    }
}

/* -- the search --------------------------------------------------------------------------- */

static inline int joined(int m, i64 parent, SET free, const SET *nbr, const SET *nearby,
                         SET passable) {
    SET targets = nbr[parent] & free;
    SET left = nearby[parent] & free;
    SET frontier = BIT(m);
    while (frontier && (targets & left)) {
        int i = lowest(frontier);
        frontier &= frontier - 1;
        SET fresh = nbr[i] & left;
        left ^= fresh;
        frontier |= fresh & passable;
    }
    return (targets & left) == 0;
}

static inline int pick_move(SET moves, i64 tt_move, SET free, const SET *nbr,
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
    const SET *nbr, *goals;
    const i64 *order; /* 2 rows of n */
    u64 *table;
    u64 mask;
    i64 generation;
    volatile i64 *stats;
    i64 node_limit;
    double deadline;
} Search;

typedef struct {
    SET free, rest;
    i64 snail, side, alpha, beta, alpha0, best, best_move, tt_move, slot;
} Frame;

static i64 negamax(const Search *S, SET free, i64 snail, i64 side, i64 alpha, i64 beta) {
    const int dist = S->dist, taylor = S->taylor, matching = S->matching, prune = S->prune;
    const i64 win = dist ? MATE : 1;
    const int n = S->n;
    const SET *nbr = S->nbr, *goals = S->goals;
    u64 *table = S->table;
    const u64 mask = S->mask;
    volatile i64 *stats = S->stats;
    Work work; /* the matching's scratch rows */
    /* Every child has one cell fewer, so the path is at most n + 1 nodes long. */
    Frame f[CELLS + 2];
    int depth = 0;
    SET nearby[CELLS];
    for (int v = 0; v < n; v++) {
        nearby[v] = nbr[v];
        for (SET rest = nbr[v]; rest; rest &= rest - 1) nearby[v] |= nbr[lowest(rest)];
    }
    const i64 stamp = S->generation << GENERATION_SHIFT;
    const SET passable = ~(goals[0] | goals[1]);
    /* Whether free is already the snail's region: the flood, a node's biggest cost, is
       skipped when a walk near the last move shows nothing was cut off. */
    int canonical = 0, reach_mine = 0, reach_theirs = 0;
    SET rest = 0, steps;
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
        SET mine = goals[side], theirs = goals[1 - side];
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
                i64 data = (i64)table[ENTRY * found + WORDS];
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
                SET near = rest & nbr[lowest(theirs)];
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
            if (alpha < beta && (rest & (rest - 1)) && count(free) >= ETC_CELLS) {
                /* Enhanced transposition cutoff: a child the table already knows to lose (for
                   the opponent) by enough ends this node before any subtree is searched. */
                SET goal_bits = mine | theirs;
                for (SET scan = rest; scan; scan &= scan - 1) {
                    int m = lowest(scan);
                    SET kid_free = flood(BIT(m), free & ~BIT(m), nbr, ~goal_bits);
                    i64 kid_slot = slot_of(kid_free, m, 1 - side, mask);
                    i64 kid = find(table, kid_slot, kid_free, tag_of(m, 1 - side) | stamp);
                    if (kid >= 0) {
                        i64 data = (i64)table[ENTRY * kid + WORDS];
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


/* A set from its words (low word first). */
static inline SET load(const u64 *words) {
#if WORDS == 2
    return (SET)words[0] | (SET)words[1] << 64;
#else
    return words[0];
#endif
}

/* The score of `job`, whose sets have this kernel's words. */
static i64 run(const Job *job) {
    SET nbr[CELLS], goals[2];
    for (int v = 0; v < job->n; v++) nbr[v] = load(job->nbr + WORDS * v);
    for (int p = 0; p < 2; p++) goals[p] = load(job->goals + WORDS * p);
    Search S = {
        .n = job->n,
        .taylor = job->taylor,
        .dist = job->dist,
        .matching = job->matching,
        .prune = job->prune,
        .nbr = nbr,
        .goals = goals,
        .order = job->order,
        .table = job->table,
        .mask = job->mask,
        .generation = job->generation,
        .stats = job->stats,
        .node_limit = job->node_limit,
        .deadline = job->deadline,
    };
    return negamax(&S, load(job->free), job->snail, job->side, job->alpha, job->beta);
}

/* A maximum matching of the graph `verts` induces (nbr: n sets as words): its size, and
   each vertex's partner in `match` (-1: unmatched). */
static int matching_of(const u64 *nbr_words, int n, const u64 *verts_words, i64 *match) {
    SET nbr[CELLS];
    Work w;
    for (int v = 0; v < n; v++) nbr[v] = load(nbr_words + WORDS * v);
    for (int v = 0; v < n; v++) w.match[v] = -1;
    SET verts = load(verts_words);
    grow_matching(verts, nbr, &w);
    int size = 0;
    for (int v = 0; v < n; v++) {
        match[v] = w.match[v];
        size += w.match[v] > v;
    }
    return size;
}

#undef flood
#undef Work
#undef common_base
#undef mark_path
#undef augment_from
#undef grow_matching
#undef geography_wins
#undef slot_of
#undef holds
#undef find
#undef put
#undef store
#undef joined
#undef pick_move
#undef Search
#undef Frame
#undef negamax
#undef lowest
#undef count
#undef load
#undef run
#undef matching_of
#undef ENTRY
#undef BIT
#undef CAT
#undef CAT2
