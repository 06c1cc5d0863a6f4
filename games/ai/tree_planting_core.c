/*
 * The exact Tree Planting solver's search, compiled: games/ai/tree_planting.py's
 * `Solver._search` and what it calls (forced captures, safe moves, one sacrifice per chain or
 * loop, the long-chain theory, the keys with symmetries), line for line, on 64-bit masks.
 *
 * Why: the pure-Python search spends its time on the interpreter, not on the nodes; this file
 * does the same nodes about 20 times faster (benchmarks/solver.py --core). The Python solver
 * stays the reference: games/ai/tree_planting.py's CompiledSolver hands this core the board's geometry
 * that the Python Solver computed, and tests/games/test_ai_tree_planting_core.py compares the
 * two on many random positions. Every rule and its proof is in the Python module's docstrings;
 * the comments here only say where C differs.
 *
 * Where it differs:
 * - The transposition table is a fixed array of buckets of two entries (the first keeps the
 *   entry with the bigger subtree, the second the newest) instead of a dict cleared when full:
 *   losing an entry only costs a re-search, never a wrong value. Entries are packed as the
 *   Python table's ((lo + INF) | (hi + INF) << 12 | (move + 1) << 24), so `Core.get` answers as
 *   `Solver.table.get` does.
 * - Boards of at most 64 grooves (every named board up to the 16-square one); a larger board
 *   keeps the Python solver (tree_planting.fits).
 * - The search runs without the GIL (another thread of the process goes on); it takes it back
 *   every 4096 nodes to read the deadline's clock, as the Python search does, and for Ctrl-C.
 *   One lock per core: two threads asking one solver take turns.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pythread.h"

#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define INF 1024
#define MAX_G 64
#define MAX_SQ 64
#define MAX_SYM 7
#define MAX_SETS 64
#define LOONY_MAX 64 /* components of one loony position: at most one per square */

#if defined(__x86_64__) && !defined(__POPCNT__)
/* x86-64 without -mpopcnt would call libgcc's __popcountdi2 (5 % of the time): the bit trick. */
static inline int popcount(u64 x) {
    x = x - (x >> 1 & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + (x >> 2 & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)(x * 0x0101010101010101ULL >> 56);
}
#else
static inline int popcount(u64 x) { return __builtin_popcountll(x); }
#endif
static inline int lowbit(u64 x) { return x ? __builtin_ctzll(x) : -1; }
/* Python's x.bit_length() - 1: the highest set bit, -1 for none. */
static inline int highbit(u64 x) { return x ? 63 - __builtin_clzll(x) : -1; }
static inline u64 bit(int i) { return (u64)1 << i; }

typedef struct {
    u64 key;
    uint32_t data; /* 0: empty (a stored lower bound + INF is never 0) */
    uint32_t pad;
} Entry;

/* The long-chain theory's memo: a sorted multiset of chains and loops -> value. */
typedef struct {
    uint8_t nc, nl;
    uint8_t len[LOONY_MAX * 2]; /* chains then loops, each sorted */
    int16_t value;
    uint8_t used;
} LoonyEntry;

#define LOONY_SLOTS 4096

typedef struct {
    PyObject_HEAD
    /* geometry (from the Python Solver) */
    int n_g, n_sq;
    u64 full;
    u64 sq_mask[MAX_SQ];
    int n_adj[MAX_G];
    int adj_sq[MAX_G][2];     /* the squares groove g borders, in the Python order */
    int other_a[MAX_G], other_b[MAX_G]; /* its squares (-1: the ground) */
    int n_pairs;
    u64 pair_lo[MAX_SQ], pair_hi[MAX_SQ];   /* normal form: corner squares' two edge grooves */
    int n_sets;
    u64 set_mask[MAX_SETS];
    u64 set_lowest[MAX_SETS][5];            /* the lowest m of the set's grooves, m = 0..4 */
    int n_ground;
    u64 ground_lo[MAX_G], ground_hi[MAX_G]; /* interchangeable edge grooves of one square */
    int n_sym;
    int sym[MAX_SYM][MAX_G], inv[MAX_SYM][MAX_G];
    u64 edge_mates[MAX_G];
    int order[MAX_G];
    int symmetric_drawn;
    /* the table */
    Entry *table;
    void *table_map; /* what was mapped (table is aligned inside it) */
    size_t table_map_size;
    u64 slots_mask; /* buckets - 1 */
    int shift;      /* 64 - log2(buckets) */
    Py_ssize_t entries;
    Py_ssize_t max_entries;
    LoonyEntry *loony;
    /* one search */
    unsigned long long nodes;
    PyObject *deadline; /* borrowed for one search: a float or None */
    PyObject *clock;
    PyObject *out_of_time; /* the OutOfTime class */
    PyThreadState *saved;  /* the GIL released while searching */
    int failed;            /* a Python exception is set: unwind */
    PyThread_type_lock lock;
} Core;

/* --- the table --------------------------------------------------------------------------- */

static inline Entry *bucket(Core *c, u64 key) {
    return c->table + 2 * ((key * 0x9E3779B97F4A7C15ULL) >> c->shift & c->slots_mask);
}

static inline uint32_t table_get(Core *c, u64 key) {
    Entry *b = bucket(c, key);
    if (b[0].data && b[0].key == key) return b[0].data;
    if (b[1].data && b[1].key == key) return b[1].data;
    return 0;
}

static void table_put(Core *c, u64 key, uint32_t data) {
    Entry *b = bucket(c, key);
    if (b[0].data && b[0].key == key) { b[0].data = data; return; }
    if (b[1].data && b[1].key == key) { b[1].data = data; return; }
    if (!b[0].data) {
        b[0].key = key;
        b[0].data = data;
        c->entries++;
        return;
    }
    /* The first slot keeps the position with fewer grooves drawn (the bigger subtree);
       what it pushes out, or the newcomer, goes to the second (replaced every time). */
    if (!b[1].data) c->entries++;
    if (popcount(key) <= popcount(b[0].key)) {
        b[1] = b[0];
        b[0].key = key;
        b[0].data = data;
    } else {
        b[1].key = key;
        b[1].data = data;
    }
}

static inline uint32_t pack(int lo, int hi, int move) {
    return (uint32_t)(lo + INF) | (uint32_t)(hi + INF) << 12 | (uint32_t)(move + 1) << 24;
}

#define HUGE_PAGE ((size_t)2 << 20)

static void table_free(Core *c) {
#ifdef __linux__
    if (c->table_map) munmap(c->table_map, c->table_map_size);
#else
    free(c->table_map);
#endif
    c->table = NULL;
    c->table_map = NULL;
}

static int table_alloc(Core *c, Py_ssize_t max_entries) {
    /* Buckets of two: the smallest power of two holding max_entries entries (at least 1024). */
    u64 buckets = 512;
    int log = 9;
    while ((Py_ssize_t)(2 * buckets) < max_entries) { buckets <<= 1; log++; }
    size_t size = 2 * buckets * sizeof(Entry);
#ifdef __linux__
    /* Zeroed pages, touched only where used; on 2 MB pages where the kernel allows (the
       search's lookups are random: with 4 kB pages each one also missed the TLB). */
    size_t map_size = size >= HUGE_PAGE ? size + HUGE_PAGE : size;
    void *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) { PyErr_NoMemory(); return -1; }
    Entry *t = map;
    if (size >= HUGE_PAGE) {
        t = (Entry *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
        madvise(t, size, MADV_HUGEPAGE);
#endif
    }
#else
    void *map = calloc(2 * buckets, sizeof(Entry));
    Entry *t = map;
    if (!t) { PyErr_NoMemory(); return -1; }
    size_t map_size = size;
#endif
    table_free(c);
    c->table = t;
    c->table_map = map;
    c->table_map_size = map_size;
    c->slots_mask = buckets - 1;
    c->shift = 64 - log;
    c->entries = 0;
    c->max_entries = max_entries;
    return 0;
}

/* --- the long-chain theory (tree_planting.loony_value) ------------------------------------ */

static int loony_value(Core *c, const uint8_t *chains, int nc, const uint8_t *loops, int nl);

static int loony_lookup(Core *c, const uint8_t *chains, int nc, const uint8_t *loops, int nl,
                        LoonyEntry **slot) {
    u64 h = 1469598103934665603ULL ^ (u64)(nc * 131 + nl);
    for (int i = 0; i < nc; i++) h = (h ^ chains[i]) * 1099511628211ULL;
    h = (h ^ 255) * 1099511628211ULL;
    for (int i = 0; i < nl; i++) h = (h ^ loops[i]) * 1099511628211ULL;
    LoonyEntry *e = c->loony + (h & (LOONY_SLOTS - 1));
    *slot = e;
    if (e->used && e->nc == nc && e->nl == nl && !memcmp(e->len, chains, nc) &&
        !memcmp(e->len + nc, loops, nl))
        return 1;
    return 0;
}

static int loony_value(Core *c, const uint8_t *chains, int nc, const uint8_t *loops, int nl) {
    if (!nc && !nl) return 0;
    LoonyEntry *slot;
    if (loony_lookup(c, chains, nc, loops, nl, &slot)) return slot->value;
    uint8_t rest[LOONY_MAX];
    int best = -INF;
    for (int i = 0; i < nc; i++) {
        if (i && chains[i - 1] == chains[i]) continue; /* the same length again */
        int n = chains[i];
        memcpy(rest, chains, i);
        memcpy(rest + i, chains + i + 1, nc - i - 1);
        int r = loony_value(c, rest, nc - 1, loops, nl);
        int value = -(n + r);
        if (n >= 3 && 2 + r - (n - 2) < value) value = 2 + r - (n - 2);
        if (value > best) best = value;
    }
    for (int i = 0; i < nl; i++) {
        if (i && loops[i - 1] == loops[i]) continue;
        int n = loops[i];
        memcpy(rest, loops, i);
        memcpy(rest + i, loops + i + 1, nl - i - 1);
        int r = loony_value(c, chains, nc, rest, nl - 1);
        int value = -(n + r);
        if (4 + r - (n - 4) < value) value = 4 + r - (n - 4);
        if (value > best) best = value;
    }
    /* the recursion may have reused the slot: look again before storing */
    loony_lookup(c, chains, nc, loops, nl, &slot);
    slot->used = 1;
    slot->nc = (uint8_t)nc;
    slot->nl = (uint8_t)nl;
    memcpy(slot->len, chains, nc);
    memcpy(slot->len + nc, loops, nl);
    slot->value = (int16_t)best;
    return best;
}

static void sort_u8(uint8_t *a, int n) {
    for (int i = 1; i < n; i++) {
        uint8_t x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

static inline int other(const Core *c, int g, int s) {
    return c->other_a[g] == s ? c->other_b[g] : c->other_a[g];
}

/* Solver._loony: the value when every coin left has one or two strings; `*ok` 0 otherwise. */
static int loony(Core *c, u64 edges, int *ok) {
    int ones[MAX_SQ], twos[MAX_SQ], n1 = 0, n2 = 0;
    for (int s = 0; s < c->n_sq; s++) {
        int n = popcount(edges & c->sq_mask[s]);
        if (n == 2) twos[n2++] = s;
        else if (n == 3) ones[n1++] = s;
        else if (n != 4) { *ok = 0; return 0; }
    }
    *ok = 1;
    u64 seen = 0;
    uint8_t ochains[LOONY_MAX], oloops[LOONY_MAX], chains[LOONY_MAX], loops[LOONY_MAX];
    int noc = 0, nol = 0, nc = 0, nl = 0;
    for (int i = 0; i < n1; i++) {
        int s = ones[i];
        if (seen >> s & 1) continue;
        seen |= bit(s);
        int count = 1, free_end = 0;
        int via = highbit(c->sq_mask[s] & ~edges);
        int cur = other(c, via, s);
        while (cur >= 0) {
            seen |= bit(cur);
            count++;
            u64 rest = c->sq_mask[cur] & ~edges & ~bit(via);
            if (!rest) { free_end = 1; break; }
            via = highbit(rest);
            cur = other(c, via, cur);
        }
        if (free_end) oloops[nol++] = (uint8_t)count;
        else ochains[noc++] = (uint8_t)count;
    }
    for (int i = 0; i < n2; i++) {
        int s = twos[i];
        if (seen >> s & 1) continue;
        seen |= bit(s);
        int count = 1, closed = 0;
        u64 strings = c->sq_mask[s] & ~edges;
        while (strings) {
            int g = lowbit(strings);
            strings &= strings - 1;
            int cur = other(c, g, s), via = g;
            while (cur >= 0 && cur != s) {
                seen |= bit(cur);
                count++;
                via = highbit(c->sq_mask[cur] & ~edges & ~bit(via));
                if (via < 0) { cur = -1; break; } /* never: every coin here has two strings */
                cur = other(c, via, cur);
            }
            if (cur == s) { closed = 1; break; }
        }
        if (closed) loops[nl++] = (uint8_t)count;
        else chains[nc++] = (uint8_t)count;
    }
    sort_u8(chains, nc);
    sort_u8(loops, nl);
    int rest_value = loony_value(c, chains, nc, loops, nl);
    if (!n1) return rest_value;
    int taken = 0, handed = 0, chain2 = 0, loop4 = 0;
    for (int i = 0; i < noc; i++) { taken += ochains[i]; if (ochains[i] >= 2) chain2 = 1; }
    for (int i = 0; i < nol; i++) { taken += oloops[i]; if (oloops[i] >= 4) loop4 = 1; }
    int best = taken + rest_value;
    handed = chain2 ? 2 : loop4 ? 4 : 0;
    if (handed && taken - 2 * handed - rest_value > best) best = taken - 2 * handed - rest_value;
    return best;
}

/* --- keys ------------------------------------------------------------------------------------ */

static inline u64 normal(const Core *c, u64 edges) {
    for (int i = 0; i < c->n_pairs; i++)
        if ((edges & c->pair_hi[i]) && !(edges & c->pair_lo[i])) edges ^= c->pair_lo[i] | c->pair_hi[i];
    for (int i = 0; i < c->n_sets; i++) {
        u64 x = edges & c->set_mask[i];
        if (x) edges ^= x ^ c->set_lowest[i][popcount(x)];
    }
    return edges;
}

/* Solver._key: (the least symmetric image of the normal form, the symmetry's index or -1). */
static inline u64 key_of(const Core *c, u64 edges, int *which) {
    *which = -1;
    if (!c->n_sym || popcount(edges) > c->symmetric_drawn) return edges;
    edges = normal(c, edges);
    u64 best = edges;
    for (int i = 0; i < c->n_sym; i++) {
        u64 image = 0, e = edges;
        while (e) {
            image |= bit(c->sym[i][lowbit(e)]);
            e &= e - 1;
        }
        if (image < best) { best = image; *which = i; }
    }
    return best;
}

static inline int free_mate(const Core *c, u64 edges, int g) {
    if (!(edges >> g & 1)) return g;
    return lowbit(c->edge_mates[g] & ~edges);
}

/* --- moves ----------------------------------------------------------------------------------- */

/* Solver._ends_chain */
static inline int ends_chain(const Core *c, u64 edges, int d, int h) {
    int e = other(c, h, d);
    if (e < 0) return 1;
    if (popcount(edges & c->sq_mask[e]) != 2) return 1;
    int f_string = highbit(c->sq_mask[e] & ~edges & ~bit(h));
    int f = other(c, f_string, e);
    return f >= 0 && popcount(edges & c->sq_mask[f]) == 3;
}

/* Solver._forced: the one move (>= 0), or -1 and the moves worth searching in `moves`. */
static int forced(const Core *c, u64 edges, u64 threes, int *moves, int *nmoves) {
    int n_m = 0, deals = 0;
    u64 t = threes;
    while (t) {
        int s = lowbit(t);
        t &= t - 1;
        int g = highbit(c->sq_mask[s] & ~edges);
        int d = other(c, g, s);
        if (d < 0) { *nmoves = 0; return g; }
        int n = popcount(edges & c->sq_mask[d]);
        if (n == 3) { *nmoves = 0; return g; }
        moves[n_m++] = g;
        if (n == 2) {
            int h = highbit(c->sq_mask[d] & ~edges & ~bit(g));
            if (ends_chain(c, edges, d, h)) { moves[n_m++] = h; deals++; }
        }
    }
    if (!deals) { *nmoves = 0; return moves[0]; }
    /* dict.fromkeys: the first of each groove, in order */
    int k = 0;
    u64 had = 0;
    for (int i = 0; i < n_m; i++) {
        if (had >> moves[i] & 1) continue;
        had |= bit(moves[i]);
        moves[k++] = moves[i];
    }
    *nmoves = k;
    return -1;
}

/* Solver._safe: the safe free grooves centre-out; the two-string coins are `later`. */
static int safe(const Core *c, u64 edges, u64 twos, int *moves) {
    u64 risky = 0, w = twos;
    while (w) {
        risky |= c->sq_mask[lowbit(w)];
        w &= w - 1;
    }
    u64 taken = edges | risky;
    for (int i = 0; i < c->n_ground; i++)
        if (!(edges & (c->ground_lo[i] | c->ground_hi[i]))) taken |= c->ground_hi[i];
    u64 safe_mask = c->full & ~taken;
    int n = 0;
    if (!safe_mask) return 0;
    for (int i = 0; i < c->n_g; i++)
        if (safe_mask >> c->order[i] & 1) moves[n++] = c->order[i];
    return n;
}

typedef struct { int k, g, most; } Sacrifice;

/* Solver._sacrifices: one groove per chain or loop, sorted as Python sorts its tuples. */
static int sacrifices(const Core *c, u64 edges, u64 twos, Sacrifice *found) {
    int n = 0;
    while (twos) {
        int s = lowbit(twos);
        twos &= twos - 1;
        u64 a_b = c->sq_mask[s] & ~edges;
        int a = lowbit(a_b);
        int b = highbit(a_b ^ bit(a));
        int path_len = 1, path_last = a;
        int via = a, cur = other(c, a, s);
        while (cur >= 0 && (twos >> cur & 1)) {
            twos ^= bit(cur);
            via = highbit(c->sq_mask[cur] & ~edges & ~bit(via));
            path_len++;
            path_last = via;
            cur = other(c, via, cur);
        }
        if (cur == s) {
            found[n].k = path_len; found[n].g = a; found[n].most = 4 - path_len; n++;
            continue;
        }
        int back_len = 1;
        via = b;
        cur = other(c, b, s);
        while (cur >= 0 && (twos >> cur & 1)) {
            twos ^= bit(cur);
            via = highbit(c->sq_mask[cur] & ~edges & ~bit(via));
            back_len++;
            cur = other(c, via, cur);
        }
        int k = path_len + back_len - 1;
        int g = k == 2 ? (path_len == 2 ? a : b) : path_last;
        found[n].k = k; found[n].g = g; found[n].most = k >= 3 ? 2 - k : INF; n++;
    }
    for (int i = 1; i < n; i++) {
        Sacrifice x = found[i];
        int j = i - 1;
        while (j >= 0 && (found[j].k > x.k || (found[j].k == x.k && (found[j].g > x.g ||
               (found[j].g == x.g && found[j].most > x.most))))) {
            found[j + 1] = found[j];
            j--;
        }
        found[j + 1] = x;
    }
    return n;
}

/* --- the search (Solver._search) ----------------------------------------------------------- */

/* Every 4096 nodes, with the GIL: the deadline (as Solver._tick) and Ctrl-C. 0, or -1 with a
   Python exception set. */
static int tick(Core *c) {
    PyEval_RestoreThread(c->saved);
    int bad = 0;
    if (PyErr_CheckSignals() < 0) bad = 1;
    else if (c->deadline != Py_None && c->clock != Py_None) {
        PyObject *now = PyObject_CallNoArgs(c->clock);
        if (!now) bad = 1;
        else {
            int past = PyObject_RichCompareBool(now, c->deadline, Py_GT);
            Py_DECREF(now);
            if (past < 0) bad = 1;
            else if (past) { PyErr_SetNone(c->out_of_time); bad = 1; }
        }
    }
    c->saved = PyEval_SaveThread();
    return bad ? -1 : 0;
}

/* Solver._step: draw groove g, keeping the one- and two-string coins; the squares planted. */
static inline int step(const Core *c, u64 *edges, u64 *threes, u64 *twos, int g) {
    int gained = 0;
    *edges |= bit(g);
    for (int k = 0; k < c->n_adj[g]; k++) {
        int sq = c->adj_sq[g][k];
        int n = popcount(*edges & c->sq_mask[sq]);
        if (n == 4) { gained++; *threes &= ~bit(sq); }
        else if (n == 3) { *threes |= bit(sq); *twos &= ~bit(sq); }
        else if (n == 2) *twos |= bit(sq);
    }
    return gained;
}

static int search(Core *c, u64 edges, u64 threes, int alpha, int beta, u64 twos);

/* The value of drawing g for the mover: what it plants and the rest of the game after it
   (the mover moves again after planting, else the opponent does). */
static inline int child(Core *c, u64 edges, u64 threes, u64 twos, int g, int alpha, int beta) {
    int gained = step(c, &edges, &threes, &twos, g);
    if (gained) return gained + search(c, edges, threes, alpha - gained, beta - gained, twos);
    return -search(c, edges, threes, -beta, -alpha, twos);
}

static int search(Core *c, u64 edges, u64 threes, int alpha, int beta, u64 twos) {
    int got = 0;
    int moves[MAX_G * 2];
    int nmoves = 0, have_moves = 0; /* have_moves 0: Python's `moves is None` */
    u64 later = 0;
    const u64 full = c->full;
    if (threes) {
        int f = forced(c, edges, threes, moves, &nmoves);
        have_moves = 1;
        while (f >= 0) {
            got += step(c, &edges, &threes, &twos, f);
            if (!threes) { have_moves = 0; break; }
            f = forced(c, edges, threes, moves, &nmoves);
        }
        alpha -= got;
        beta -= got;
        if (edges == full) return got;
    }
    c->nodes++;
    if (!(c->nodes & 4095) && tick(c) < 0) { c->failed = 1; return 0; }
    int which;
    u64 key = key_of(c, edges, &which);
    uint32_t entry = table_get(c, key);
    int first = -1, lo, hi;
    Sacrifice found[MAX_SQ];
    if (!entry && threes) {
        int ok, v = loony(c, edges, &ok);
        if (ok) { table_put(c, key, pack(v, v, -1)); return got + v; }
    }
    if (entry) {
        lo = (int)(entry & 4095) - INF;
        hi = (int)(entry >> 12 & 4095) - INF;
        first = (int)(entry >> 24) - 1;
        if (lo >= beta) return got + lo;
        if (hi <= alpha) return got + hi;
        if (lo == hi) return got + lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    } else {
        lo = -INF;
        hi = INF;
        if (!have_moves) {
            nmoves = safe(c, edges, twos, moves);
            later = twos;
            have_moves = 1;
            if (!nmoves) {
                int ok, v = loony(c, edges, &ok);
                if (ok) { table_put(c, key, pack(v, v, -1)); return got + v; }
                int ns = sacrifices(c, edges, later, found);
                for (int i = 0; i < ns; i++) moves[i] = found[i].g;
                nmoves = ns;
                later = 0;
            }
        }
    }
    int a0 = alpha, b0 = beta;
    int best = -INF, best_move = -1;
    if (first >= 0) {
        if (which >= 0) first = c->inv[which][first];
        if (edges >> first & 1) first = free_mate(c, edges, first);
    }
    if (first >= 0) {
        int v = child(c, edges, threes, twos, first, alpha, beta);
        if (c->failed) return 0;
        best = v;
        best_move = first;
        if (v > alpha) alpha = v;
    }
    if (best < beta) {
        if (!have_moves) {
            nmoves = safe(c, edges, twos, moves);
            later = twos;
            have_moves = 1;
        }
        for (;;) {
            int cut = 0;
            /* Ask the memory for every child's bucket at once (where the child's key is the
               position itself, past the symmetric opening): the lookups then overlap instead
               of waiting one after another. */
            if (!c->n_sym || popcount(edges) >= c->symmetric_drawn)
                for (int i = 0; i < nmoves; i++) __builtin_prefetch(bucket(c, edges | bit(moves[i])));
            for (int i = 0; i < nmoves; i++) {
                int g = moves[i];
                if (g == first) continue;
                int v = child(c, edges, threes, twos, g, alpha, beta);
                if (c->failed) return 0;
                if (v > best) {
                    best = v;
                    best_move = g;
                    if (v > alpha) {
                        alpha = v;
                        if (alpha >= beta) { cut = 1; break; }
                    }
                }
            }
            if (!cut && later) {
                /* Solver._worth: the sacrifices that may still beat `best` */
                int ns = sacrifices(c, edges, later, found);
                nmoves = 0;
                for (int i = 0; i < ns; i++)
                    if (found[i].most > best) moves[nmoves++] = found[i].g;
                later = 0;
                continue;
            }
            break;
        }
    }
    if (best <= a0) {
        if (best < hi) hi = best;
        best_move = first; /* an upper bound names no best move; keep the old hint */
    } else if (best >= b0) {
        if (best > lo) lo = best;
    } else {
        lo = hi = best;
    }
    if (which >= 0 && best_move >= 0) best_move = c->sym[which][best_move];
    table_put(c, key, pack(lo, hi, best_move));
    return got + best;
}

/* --- the Python type -------------------------------------------------------------------------- */

static int read_u64(PyObject *o, u64 *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

/* A list of non-negative ints (at most `cap`) into `out`; its length, or -1. */
static int read_u64s(PyObject *seq, u64 *out, int cap, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > cap) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: %zd items, at most %d", what, n, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (read_u64(PySequence_Fast_GET_ITEM(fast, i), out + i) < 0) { Py_DECREF(fast); return -1; }
    }
    Py_DECREF(fast);
    return (int)n;
}

/* The same, for indices (grooves, squares): at most MAX_G of them. */
static int read_ints(PyObject *seq, int *out, int cap, const char *what) {
    u64 wide[MAX_G];
    int n = read_u64s(seq, wide, cap < MAX_G ? cap : MAX_G, what);
    for (int i = 0; i < n; i++) {
        if (wide[i] >= MAX_G) {
            PyErr_Format(PyExc_ValueError, "%s: %llu is not a groove or square index", what,
                         (unsigned long long)wide[i]);
            return -1;
        }
        out[i] = (int)wide[i];
    }
    return n;
}

/* Permutations of the grooves (at most MAX_SYM, each of every groove): how many, or -1. */
static int read_perms(Core *c, PyObject *seq, int perms[MAX_SYM][MAX_G], const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    int n = (int)PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_SYM) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: at most %d", what, MAX_SYM);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (read_ints(PySequence_Fast_GET_ITEM(fast, i), perms[i], MAX_G, what) != c->n_g) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: each maps every groove", what);
            return -1;
        }
    Py_DECREF(fast);
    return n;
}

static void Core_dealloc(Core *c) {
    table_free(c);
    free(c->loony);
    Py_XDECREF(c->out_of_time);
    if (c->lock) PyThread_free_lock(c->lock);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

/* Core(geometry: dict, max_entries, out_of_time): the geometry's keys are written by
   games/ai/tree_planting.py (CompiledSolver.geometry) from the Python Solver's own tables. */
static int Core_init(Core *c, PyObject *args, PyObject *kw) {
    static char *names[] = {"geometry", "max_entries", "out_of_time", NULL};
    PyObject *geo, *oot;
    Py_ssize_t max_entries;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!nO", names, &PyDict_Type, &geo, &max_entries, &oot))
        return -1;
#define ITEM(name)                                                                   \
    PyObject *name = PyDict_GetItemString(geo, #name);                               \
    if (!name) { PyErr_SetString(PyExc_KeyError, "geometry: no " #name); return -1; }
    ITEM(full) ITEM(sq_mask) ITEM(adj) ITEM(normal_pairs) ITEM(normal_sets) ITEM(ground_pairs)
    ITEM(symmetries) ITEM(inverse) ITEM(edge_mates) ITEM(order) ITEM(symmetric_drawn)
#undef ITEM
    if (read_u64(full, &c->full) < 0) return -1;
    if ((c->n_sq = read_u64s(sq_mask, c->sq_mask, MAX_SQ, "sq_mask")) < 0) return -1;
    c->n_g = popcount(c->full);
    if (c->full != (c->n_g == 64 ? ~(u64)0 : bit(c->n_g) - 1)) {
        PyErr_SetString(PyExc_ValueError, "geometry: full must be the grooves 0..n-1");
        return -1;
    }
    PyObject *fast = PySequence_Fast(adj, "adj");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != c->n_g) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "geometry: adj needs one list per groove");
        return -1;
    }
    for (int g = 0; g < c->n_g; g++) {
        int sq[3];
        int n = read_ints(PySequence_Fast_GET_ITEM(fast, g), sq, 2, "adj[g]");
        if (n < 1) {
            Py_DECREF(fast);
            if (n == 0) PyErr_SetString(PyExc_ValueError, "geometry: a groove borders no square");
            return -1;
        }
        c->n_adj[g] = n;
        c->adj_sq[g][0] = sq[0];
        c->adj_sq[g][1] = n == 2 ? sq[1] : -1;
        c->other_a[g] = sq[0];
        c->other_b[g] = n == 2 ? sq[1] : -1;
    }
    Py_DECREF(fast);
    u64 pairs[2 * MAX_SQ];
    int n = read_u64s(normal_pairs, pairs, 2 * MAX_SQ, "normal_pairs");
    if (n < 0) return -1;
    c->n_pairs = n / 2;
    for (int i = 0; i < c->n_pairs; i++) { c->pair_lo[i] = pairs[2 * i]; c->pair_hi[i] = pairs[2 * i + 1]; }
    u64 sets[6 * MAX_SETS];
    n = read_u64s(normal_sets, sets, 6 * MAX_SETS, "normal_sets"); /* mask, lowest[0..4] */
    if (n < 0) return -1;
    c->n_sets = n / 6;
    for (int i = 0; i < c->n_sets; i++) {
        c->set_mask[i] = sets[6 * i];
        for (int m = 0; m < 5; m++) c->set_lowest[i][m] = sets[6 * i + 1 + m];
    }
    u64 ground[2 * MAX_G];
    n = read_u64s(ground_pairs, ground, 2 * MAX_G, "ground_pairs");
    if (n < 0) return -1;
    c->n_ground = n / 2;
    for (int i = 0; i < c->n_ground; i++) { c->ground_lo[i] = ground[2 * i]; c->ground_hi[i] = ground[2 * i + 1]; }
    if ((c->n_sym = read_perms(c, symmetries, c->sym, "symmetries")) < 0) return -1;
    if (read_perms(c, inverse, c->inv, "inverse") != c->n_sym) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "inverse: one per symmetry");
        return -1;
    }
    if (read_u64s(edge_mates, c->edge_mates, MAX_G, "edge_mates") != c->n_g) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "edge_mates: one per groove");
        return -1;
    }
    if (read_ints(order, c->order, MAX_G, "order") != c->n_g) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "order: every groove");
        return -1;
    }
    long sd = PyLong_AsLong(symmetric_drawn);
    if (sd == -1 && PyErr_Occurred()) return -1;
    c->symmetric_drawn = (int)sd;
    if (!c->loony && !(c->loony = calloc(LOONY_SLOTS, sizeof(LoonyEntry)))) { PyErr_NoMemory(); return -1; }
    if (table_alloc(c, max_entries) < 0) return -1;
    Py_INCREF(oot);
    Py_XSETREF(c->out_of_time, oot);
    if (!c->lock && !(c->lock = PyThread_allocate_lock())) { PyErr_NoMemory(); return -1; }
    return 0;
}

static void lock(Core *c) {
    if (!PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(c->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

/* search(edges, threes, alpha, beta, deadline, clock) -> the value, as Solver._search called
   from outside (twos found here, edges normalised). Raises OutOfTime past the deadline. */
static PyObject *Core_search(Core *c, PyObject *args) {
    PyObject *pe, *pt, *deadline, *clock;
    int alpha, beta;
    if (!PyArg_ParseTuple(args, "OOiiOO", &pe, &pt, &alpha, &beta, &deadline, &clock)) return NULL;
    u64 edges, threes;
    if (read_u64(pe, &edges) < 0 || read_u64(pt, &threes) < 0) return NULL;
    if (edges & ~c->full) return PyErr_Format(PyExc_ValueError, "edges: a groove past the board's %d", c->n_g);
    lock(c);
    u64 twos = 0;
    for (int s = 0; s < c->n_sq; s++)
        if (popcount(edges & c->sq_mask[s]) == 2) twos |= bit(s);
    edges = normal(c, edges);
    c->deadline = deadline;
    c->clock = clock;
    c->failed = 0;
    c->saved = PyEval_SaveThread();
    int v = search(c, edges, threes, alpha, beta, twos);
    PyEval_RestoreThread(c->saved);
    c->deadline = c->clock = NULL;
    int failed = c->failed;
    PyThread_release_lock(c->lock);
    if (failed) return NULL;
    return PyLong_FromLong(v);
}

static PyObject *Core_get(Core *c, PyObject *arg) {
    u64 key;
    if (read_u64(arg, &key) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE; /* no such position on this board */
    }
    lock(c);
    uint32_t data = table_get(c, key);
    PyThread_release_lock(c->lock);
    if (!data) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(data);
}

static PyObject *Core_clear(Core *c, PyObject *unused) {
    lock(c);
    int bad = table_alloc(c, c->max_entries); /* fresh zero pages: no memset of the old ones */
    PyThread_release_lock(c->lock);
    if (bad) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Core_resize(Core *c, PyObject *arg) {
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    lock(c);
    int bad = table_alloc(c, n);
    PyThread_release_lock(c->lock);
    if (bad) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Core_loony(Core *c, PyObject *arg) {
    u64 edges;
    if (read_u64(arg, &edges) < 0) return NULL;
    lock(c);
    int ok, v = loony(c, edges, &ok);
    PyThread_release_lock(c->lock);
    if (!ok) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyObject *Core_key(Core *c, PyObject *arg) {
    u64 edges;
    if (read_u64(arg, &edges) < 0) return NULL;
    int which;
    u64 key = key_of(c, edges, &which);
    return Py_BuildValue("(Ki)", (unsigned long long)key, which);
}

static Py_ssize_t Core_len(Core *c) { return c->entries; }

static PyObject *Core_get_nodes(Core *c, void *unused) { return PyLong_FromUnsignedLongLong(c->nodes); }

static int Core_set_nodes(Core *c, PyObject *v, void *unused) {
    if (!v) { PyErr_SetString(PyExc_AttributeError, "nodes cannot be deleted"); return -1; }
    unsigned long long n = PyLong_AsUnsignedLongLong(v);
    if (n == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    c->nodes = n;
    return 0;
}

static PyObject *Core_get_capacity(Core *c, void *unused) {
    return PyLong_FromUnsignedLongLong(2 * (c->slots_mask + 1));
}

static PyMethodDef Core_methods[] = {
    {"search", (PyCFunction)Core_search, METH_VARARGS,
     "search(edges, threes, alpha, beta, deadline, clock) -> the value, as Solver._search"},
    {"get", (PyCFunction)Core_get, METH_O, "get(key) -> the table's entry (packed as Solver.table's) or None"},
    {"clear", (PyCFunction)Core_clear, METH_NOARGS, "empty the table"},
    {"resize", (PyCFunction)Core_resize, METH_O, "resize(max_entries): a new, empty table"},
    {"loony", (PyCFunction)Core_loony, METH_O, "loony(edges) -> Solver._loony's value or None"},
    {"key", (PyCFunction)Core_key, METH_O, "key(edges) -> (key, symmetry index or -1), as Solver._key"},
    {NULL}};

static PyGetSetDef Core_getset[] = {
    {"nodes", (getter)Core_get_nodes, (setter)Core_set_nodes, "nodes searched so far", NULL},
    {"capacity", (getter)Core_get_capacity, NULL, "entries the table can hold", NULL},
    {NULL}};

static PySequenceMethods Core_as_sequence = {.sq_length = (lenfunc)Core_len};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "games.ai.tree_planting_core.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The compiled search of one board's Tree Planting solver (see the file's comment).",
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
    .tp_as_sequence = &Core_as_sequence,
    .tp_init = (initproc)Core_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "tree_planting_core",
    "The exact Tree Planting solver's search, compiled (games/ai/tree_planting.py, CompiledSolver).", -1, NULL};

PyMODINIT_FUNC PyInit_tree_planting_core(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_GROOVES", MAX_G);
    return m;
}
