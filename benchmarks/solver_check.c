/* An independent exact search of Tree Planting (dots and boxes) positions, to check the
 * solver's values (games/ai/tree_planting.py and its compiled core) where no other oracle
 * reaches: benchmarks/solver_check.py compiles this file with the system's C compiler and calls
 * it through ctypes.
 *
 * It shares no search code with the solver, only the board's geometry (each square's four
 * grooves, from the rules module games/tree_planting.py). Deliberately plain: negamax with
 * alpha-beta over every undrawn groove (moves that plant a tree first, then the others in
 * groove order), and a transposition table of lower and upper bounds keyed by the drawn grooves.
 * None of the solver's own machinery: no forced captures, no safe-move or sacrifice pruning, no
 * long-chain theory, no symmetries, no MTD(f), no move ordering beyond "trees first".
 *
 * The value of a position is what the solver's `value(edges)` returns: the trees the player to
 * move will still plant minus those the opponent will, under perfect play (it depends only on
 * which grooves are drawn; planting a tree gives the mover another move).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define MAX_G 64
#define MAX_S 32

static int n_grooves, n_squares;
static u64 all_edges;
static u64 square_mask[MAX_S];        /* the four grooves of each square */
static int touching[MAX_G][2];        /* the squares (at most two) beside each groove */
static int n_touching[MAX_G];

typedef struct {
    u64 key;       /* the drawn grooves; 0 with lo > hi marks an empty slot */
    int8_t lo, hi; /* the value lies in [lo, hi] */
} Entry;

static Entry *table;
static u64 table_mask;
static long long node_count;

static u64 mix(u64 x) { /* splitmix64's finaliser: spreads the groove bits over the index */
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The trees that drawing groove g plants, with `edges` drawn before it. */
static int plants(u64 edges, int g) {
    u64 after = edges | (1ULL << g);
    int k = 0;
    for (int i = 0; i < n_touching[g]; i++) {
        u64 m = square_mask[touching[g][i]];
        k += (after & m) == m;
    }
    return k;
}

/* Negamax, fail-soft: the value of `edges` for the mover if it lies in (alpha, beta); else a
 * bound on the right side. `left`: squares still unplanted, so |value| <= left. */
static int search(u64 edges, int left, int alpha, int beta) {
    node_count++;
    if (left == 0) return 0;
    if (left <= alpha) return left;
    if (-left >= beta) return -left;
    Entry *e = &table[mix(edges) & table_mask];
    int lo = -left, hi = left;
    if (e->key == edges && e->lo <= e->hi) {
        lo = e->lo; hi = e->hi;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int a0 = alpha, b0 = beta, best = -127;
    for (int pass = 0; pass < 2 && alpha < beta; pass++) {
        for (int g = 0; g < n_grooves && alpha < beta; g++) {
            if (edges >> g & 1) continue;
            int k = plants(edges, g);
            if ((pass == 0) != (k > 0)) continue; /* trees first, then the rest */
            u64 next = edges | (1ULL << g);
            int v = k ? k + search(next, left - k, alpha - k, beta - k)
                      : -search(next, left, -beta, -alpha);
            if (v > best) best = v;
            if (v > alpha) alpha = v;
        }
    }
    /* What was proved: best is exact inside the window, else a bound. */
    if (best <= a0) { if (best < hi) hi = best; }
    else if (best >= b0) { if (best > lo) lo = best; }
    else lo = hi = best;
    e->key = edges; e->lo = (int8_t)lo; e->hi = (int8_t)hi;
    return best;
}

/* The board: `grooves` grooves, `squares` squares, each square's grooves as a bit mask;
 * a table of 2**log_entries entries. Returns 0, or -1 when the board or the memory does not fit. */
int check_setup(int grooves, int squares, const u64 *masks, int log_entries) {
    if (grooves < 1 || grooves > MAX_G || squares < 1 || squares > MAX_S) return -1;
    n_grooves = grooves; n_squares = squares;
    all_edges = grooves == 64 ? ~0ULL : (1ULL << grooves) - 1;
    memset(n_touching, 0, sizeof n_touching);
    for (int s = 0; s < squares; s++) {
        square_mask[s] = masks[s];
        for (int g = 0; g < grooves; g++)
            if (masks[s] >> g & 1) {
                if (n_touching[g] == 2) return -1;
                touching[g][n_touching[g]++] = s;
            }
    }
    free(table);
    table_mask = (1ULL << log_entries) - 1;
    table = malloc(sizeof(Entry) << log_entries);
    if (table == NULL) return -1;
    for (u64 i = 0; i <= table_mask; i++) { table[i].key = 0; table[i].lo = 1; table[i].hi = 0; }
    return 0;
}

/* The value of the position with `edges` drawn; *nodes gets the nodes searched. The table is
 * kept between calls (its entries are exact facts about positions, whatever asked them). */
int check_value(u64 edges, long long *nodes) {
    int left = 0;
    for (int s = 0; s < n_squares; s++) left += (edges & square_mask[s]) != square_mask[s];
    node_count = 0;
    int v = search(edges, left, -127, 127);
    *nodes = node_count;
    return v;
}
