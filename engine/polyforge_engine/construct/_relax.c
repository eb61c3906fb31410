/* The geometric relaxation behind compression (compress.py), compiled: an L-BFGS minimiser over an
 * energy that holds pairs at their lengths, keeps sp3-sp3 torsions staggered, pushes apart pairs closer
 * than their limit and keeps atoms between walls. Written for this one energy so that a minimisation
 * step costs what its arithmetic costs: OpenMM, general-purpose, spent most of a dense build's
 * relaxation rebuilding its neighbour list and the rest building its System from Python pair by pair.
 *
 * Units are the caller's (the engine passes Å and kJ/mol). Energy terms:
 *   held pair (i, j):      k/2 (r - r0)^2
 *   staggering (i,j,k,l):  s * k (1 + cos 3 phi), s the stagger scale given to minimize()
 *   repulsion, every pair not excluded (within three bonds), closer than its limit:
 *                          push (limit - r)^2, limit = inter between molecules, intra within one
 *   walls (wall_k > 0):    wall_k (low - z)^2 below low, wall_k (z - high)^2 above high
 * x and y are periodic; z too unless there are walls (wall_k > 0). Held pairs and torsions use raw
 * coordinates (molecules are kept whole), repulsion the minimum image.
 *
 * The energy and the neighbour list run on the job's threads (OpenMP), yet a given input always gives
 * the same result on any number of them: the term lists and the neighbour list are cut into CHUNKS
 * fixed parts, each part sums into its own gradient buffer, and the parts are added in one fixed order.
 * The minimiser's vector work is two passes a step (History below), each on the threads in the same
 * CHUNKS parts: with a hand-over between threads at every one of the two-loop recursion's passes it
 * cost more than it saved with threads that sleep when idle (runtime/openmm_cpu.py; bench/README.md). */

#include "buffers.h"
#include "cells.h"
#include <structmember.h>

#define HISTORY 4          /* L-BFGS correction pairs kept (8 took as many steps on dense melts, each with twice the vector work) */
#define MAX_STEP 0.3       /* largest move of one atom in one line-search trial (Å) */
#define FIRST_STEP 0.05    /* largest move of one atom along the first (steepest-descent) direction */
#define ARMIJO 1e-4        /* sufficient decrease */
#define BACKTRACKS 30      /* halvings of a step before the line search gives up */
#define BLOCK_ATOMS 128    /* atoms per block of the L-BFGS passes: their vectors stay in L1 while read */
#define CHUNKS 4           /* fixed parts of all work (see above): more threads than this go unused */
#define MOVED_SHARE 8      /* refresh_moved while at most 1/MOVED_SHARE of the atoms moved, else a whole build */
#define MOVED_FROM 0.25    /* of the skin: atoms that moved farther are refreshed (then no two others moved half the skin) */

/* The first index of part c of n items (part c covers [chunk_start(n, c), chunk_start(n, c + 1))). */
static inline Py_ssize_t chunk_start(Py_ssize_t n, int c) { return (Py_ssize_t)((int64_t)n * c / CHUNKS); }

/* A pair of the Verlet list, in 16 bytes (the list is the largest array an evaluation reads). */
typedef struct {
    int32_t i, j;
    int16_t image[3]; /* x[j] - x[i] - image * list_box is the pair's minimum image */
    int16_t same;     /* 1 within one molecule (limit intra), 0 between two (inter) */
} NearPair;

/* One part of the Verlet list. */
typedef struct {
    NearPair *pairs;
    size_t count, capacity;
} NearList;

typedef struct {
    PyObject_HEAD
    Py_ssize_t atoms;
    /* held pairs */
    Py_ssize_t pair_count;
    int64_t *pairs; /* (pair_count, 2) */
    double *lengths, *pair_k;
    /* staggered torsions */
    Py_ssize_t torsion_count;
    int64_t *torsions; /* (torsion_count, 4) */
    double *torsion_k;
    /* repulsion */
    int32_t *molecule;
    int64_t *excluded_start; /* (atoms + 1): partners j > i of atom i within three bonds, sorted */
    int64_t *excluded;
    /* the same, for partners j = i + 1 .. i + 64 as bits j - i - 1 (the neighbour list asks for every
     * pair within the cutoff: a search through the sorted partners took a fifth of its time) */
    uint64_t *excluded_near;
    /* pairs kept apart from repulsion besides those (sorted keys i * atoms + j, i < j): a caged pair's
     * cages, let through each other (compress.py) */
    int64_t *apart;
    Py_ssize_t apart_count;
    double inter, intra, push;
    /* walls */
    double wall_k, wall_low, wall_high;
    /* Verlet list: pairs whose reference positions lie within the largest limit plus the skin, in
     * CHUNKS parts (part c: from a whole build, pairs whose first atom's cell is in part c of the
     * cells; from refresh_moved, pairs whose moved atom is in part c of the atoms) */
    double skin;
    double *built_at; /* each atom's reference position: where it was when its pairs were last listed */
    NearList near[CHUNKS];
    int list_valid;
    long long builds, refreshes; /* whole builds of the list, and refresh_moved's */
    double list_box[3];
    /* the limits minimize() may stop at (keep_inter <= inter, keep_intra <= intra; walls: keep_low,
     * keep_high), whether it does, and how many pairs and atoms broke them at the last evaluation */
    double keep_inter, keep_intra, keep_low, keep_high;
    int keeping;
    size_t broken;
    /* threads, and the gradient buffers of parts 1 .. CHUNKS - 1 ((CHUNKS - 1) * 3 * atoms; part 0 sums into g) */
    int threads;
    double *part_g;
} Relaxer;

/* ---------------------------------------------------------------- Verlet list */

/* Adds a pair to a part of the list, growing it as needed; -1 when memory ran out (no exception:
 * this runs on worker threads). */
static int add_near(NearList *near, const NearPair *pair) {
    if (near->count == near->capacity) {
        size_t grown = near->capacity * 2 + 1024;
        NearPair *pairs = realloc(near->pairs, grown * sizeof(NearPair));
        if (!pairs) return -1;
        near->pairs = pairs;
        near->capacity = grown;
    }
    near->pairs[near->count++] = *pair;
    return 0;
}

/* Whether atoms i and j (same molecule) are within three bonds: the larger among the smaller's
 * partners (its bit when near, else a search through the sorted partners). */
static int is_excluded(const Relaxer *self, int32_t i, int32_t j) {
    int32_t low = i < j ? i : j, high = i < j ? j : i;
    if (high - low <= 64) return (int)((self->excluded_near[low] >> (high - low - 1)) & 1u);
    int64_t start = self->excluded_start[low];
    return sorted_contains(self->excluded + start, self->excluded_start[low + 1] - start, high);
}

/* excluded_near from the sorted partners (excluded_start, excluded); -1 when memory ran out. */
static int index_near_exclusions(Relaxer *self) {
    self->excluded_near = calloc((size_t)(self->atoms > 0 ? self->atoms : 1), sizeof(uint64_t));
    if (!self->excluded_near) return -1;
    for (Py_ssize_t i = 0; i < self->atoms; i++)
        for (int64_t k = self->excluded_start[i]; k < self->excluded_start[i + 1]; k++) {
            int64_t apart = self->excluded[k] - i;
            if (apart >= 1 && apart <= 64) self->excluded_near[i] |= (uint64_t)1 << (apart - 1);
        }
    return 0;
}

typedef struct {
    const Relaxer *self;
    NearList *near;
    double inverse_box[3];
} ListPart;

/* A part of the list filled through `part`, for cells over `box`. */
static inline ListPart list_part(const Relaxer *self, NearList *near, const double box[3]) {
    return (ListPart){self, near, {1.0 / box[0], 1.0 / box[1], 1.0 / box[2]}};
}

#define IMAGE_LIMIT 32767 /* box lengths a pair's image may span (NearPair.image): a molecule kept whole spanning more is refused */

/* Lists pair (i, j) unless it is excluded or kept apart; -1 when memory ran out, -2 when its image
 * spans more than IMAGE_LIMIT box lengths. */
static int list_pair(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]) {
    (void)d, (void)d2;
    ListPart *part = context;
    int same = part->self->molecule[i] == part->self->molecule[j];
    if (same && is_excluded(part->self, i, j)) return 0;
    if (part->self->apart_count) {
        int64_t low = i < j ? i : j, high = i < j ? j : i;
        if (sorted_contains(part->self->apart, part->self->apart_count, low * part->self->atoms + high)) return 0;
    }
    NearPair pair = {.i = i, .j = j, .same = (int16_t)same};
    for (int a = 0; a < 3; a++) {
        double turns = shift[a] * part->inverse_box[a]; /* a whole number but for rounding */
        if (fabs(turns) > IMAGE_LIMIT) return -2;
        pair.image[a] = (int16_t)(turns < 0.0 ? turns - 0.5 : turns + 0.5); /* inline: without SSE4.1 round() is a call */
    }
    return add_near(part->near, &pair);
}

/* Raises the exception for a failed listing: -2 (list_pair), else memory. */
static void list_failed(int code) {
    if (code == -2) PyErr_Format(PyExc_ValueError, "a molecule spans more than %d box lengths", IMAGE_LIMIT);
    else PyErr_NoMemory();
}

/* The Verlet list's reach: the largest limit plus the skin. */
static inline double list_cutoff(const Relaxer *self) { return (self->inter > self->intra ? self->inter : self->intra) + self->skin; }

/* The squared displacement past which refresh_moved lists an atom's pairs again. */
static inline double moved_far2(const Relaxer *self) { return (MOVED_FROM * self->skin) * (MOVED_FROM * self->skin); }

/* Keeps in *top and *second the two largest of the values offered so far. */
static inline void keep_two_largest(double value, double *top, double *second) {
    if (value > *second) {
        if (value > *top) *second = *top, *top = value;
        else *second = value;
    }
}

/* |x[i] - built_at[i]|², how far atom i moved from its reference. */
static inline double displacement2(const Relaxer *self, const double *x, Py_ssize_t i) {
    const double *b = self->built_at + 3 * i, *a = x + 3 * i;
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Every pair not excluded and closer than the largest limit plus the skin (cells.h), part c of the
 * list from part c of the cells. */
static int build_list(Relaxer *self, const double *x, const double *box) {
    double cutoff = list_cutoff(self);
    PairCells cells = {0};
    pair_cells_frame(&cells, x, self->atoms, box, !(self->wall_k > 0.0), cutoff);
    int failed = pair_cells_sort(&cells, x, self->atoms) < 0 ? -1 : 0;
    int64_t total = pair_cells_total(&cells);
    if (!failed) {
#pragma omp parallel for num_threads(self->threads) if (self->threads > 1) schedule(static, 1) reduction(min : failed)
        for (int c = 0; c < CHUNKS; c++) {
            ListPart part = list_part(self, &self->near[c], box);
            self->near[c].count = 0;
            int64_t first = total * c / CHUNKS, last = total * (c + 1) / CHUNKS;
            int status = pair_cells_visit_homes(&cells, first, last, cutoff * cutoff, list_pair, &part);
            if (status < failed) failed = status;
        }
    }
    pair_cells_free(&cells);
    if (failed) {
        self->list_valid = 0;
        list_failed(failed);
        return -1;
    }
    memcpy(self->built_at, x, (size_t)self->atoms * 3 * sizeof(double));
    memcpy(self->list_box, box, sizeof(self->list_box));
    self->list_valid = 1;
    self->builds++;
    return 0;
}

typedef struct {
    ListPart part;
    const uint8_t *moved;
} AroundPart;

/* A pair (i, j) found around moved atom i: listed unless j moved too and was searched around first. */
static int around_pair(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]) {
    AroundPart *around = context;
    if (around->moved[j] && j < i) return 0;
    return list_pair(&around->part, i, j, d, d2, shift);
}

/* Brings the list up to date where few atoms moved more than MOVED_FROM of the skin from their
 * reference positions (built_at): each of them becomes its own reference, its pairs are dropped, and
 * its pairs with every atom whose reference lies within the cutoff plus the skin of it are listed
 * again, in part (atom * CHUNKS / atoms) of the list. So every pair left out still has references at
 * least that far apart, and the list holds every pair within the limits while no two atoms together
 * moved more than the skin from their references, as after a whole build. Between whole builds, a
 * dense push-off had moved a handful of its tens of thousands of atoms half the skin and a few
 * hundred a quarter. `count`: how many moved that far. Returns 1 when done, 0 when a whole build is
 * due (too many moved, or cells too few for a search around one atom), below 0 as list_pair fails. */
static int refresh_moved(Relaxer *self, const double *x, const double *box, size_t count) {
    Py_ssize_t n = self->atoms;
    double far2 = moved_far2(self);
    if (count == 0 || count > (size_t)n / MOVED_SHARE) return 0;
    double cutoff = list_cutoff(self);
    PairCells cells = {0};
    pair_cells_frame(&cells, self->built_at, n, box, !(self->wall_k > 0.0), cutoff);
    if (cells.single_cell) return 0;
    uint8_t *moved = calloc((size_t)n, 1);
    int32_t *atoms = malloc(count * sizeof(int32_t));
    int status = moved && atoms ? 1 : -1;
    if (status > 0) {
        size_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (displacement2(self, x, i) > far2) {
                moved[i] = 1, atoms[k++] = (int32_t)i;
                memcpy(self->built_at + 3 * i, x + 3 * i, 3 * sizeof(double));
            }
        if (pair_cells_sort(&cells, self->built_at, n) < 0) status = -1;
    }
    if (status > 0) {
        int failed = 0;
        /* Part c: its pairs with a moved atom out, then the moved atoms of its share found again. */
#pragma omp parallel for num_threads(self->threads) if (self->threads > 1) schedule(static, 1) reduction(min : failed)
        for (int c = 0; c < CHUNKS; c++) {
            NearList *near = &self->near[c];
            size_t kept = 0;
            for (size_t p = 0; p < near->count; p++) {
                const NearPair *pair = &near->pairs[p];
                if (!moved[pair->i] && !moved[pair->j]) near->pairs[kept++] = *pair;
            }
            near->count = kept;
            AroundPart around = {list_part(self, near, box), moved};
            int found = 0; /* (the reduction's private `failed` starts at INT_MAX) */
            for (size_t k = 0; !found && k < count; k++) {
                int32_t i = atoms[k];
                if ((int64_t)i * CHUNKS / n == c) found = pair_cells_visit_around(&cells, i, self->built_at + 3 * i, cutoff * cutoff, around_pair, &around);
            }
            if (found < failed) failed = found;
        }
        if (failed) status = failed;
    }
    pair_cells_free(&cells);
    free(moved), free(atoms);
    return status;
}

/* The list still holds every pair within the largest limit while no two atoms together moved more than
 * the skin from their references (the two that moved most, that is); else refreshed about the atoms
 * that moved most (refresh_moved) or built again. */
static int ensure_list(Relaxer *self, const double *x, const double *box) {
    if (self->list_valid && memcmp(self->list_box, box, sizeof(self->list_box)) == 0) {
        /* Per part: the two largest squared displacements, and how many passed MOVED_FROM of the skin. */
        double most[CHUNKS], next[CHUNKS], far2 = moved_far2(self);
        size_t far[CHUNKS];
#pragma omp parallel for num_threads(self->threads) if (self->threads > 1) schedule(static, 1)
        for (int c = 0; c < CHUNKS; c++) {
            double top = 0.0, second = 0.0;
            size_t beyond = 0;
            for (Py_ssize_t i = chunk_start(self->atoms, c); i < chunk_start(self->atoms, c + 1); i++) {
                double d2 = displacement2(self, x, i);
                beyond += d2 > far2;
                keep_two_largest(d2, &top, &second);
            }
            most[c] = top, next[c] = second, far[c] = beyond;
        }
        double top = 0.0, second = 0.0;
        size_t beyond = 0;
        for (int c = 0; c < CHUNKS; c++) {
            beyond += far[c];
            keep_two_largest(most[c], &top, &second);
            keep_two_largest(next[c], &top, &second);
        }
        if (sqrt(top) + sqrt(second) <= self->skin) return 0;
        int refreshed = refresh_moved(self, x, box, beyond);
        if (refreshed < 0) { /* the list half refreshed: built whole next time */
            self->list_valid = 0;
            list_failed(refreshed);
            return -1;
        }
        if (refreshed) {
            self->refreshes++;
            return 0;
        }
    }
    return build_list(self, x, box);
}

/* ---------------------------------------------------------------- energy and gradient */

/* Each term below adds its energy to `energy` (returned) and its gradient to g, in the order evaluate()
 * calls them: the sum is then taken in one sequence, as when they were one function. */

/* Held pairs: k/2 (r - r0)^2 for each (i, j) of part c with its length r0. */
static inline double add_held_pairs(const Relaxer *self, const double *x, double *g, double energy, int c) {
    for (Py_ssize_t p = chunk_start(self->pair_count, c); p < chunk_start(self->pair_count, c + 1); p++) {
        int64_t a = self->pairs[2 * p], b = self->pairs[2 * p + 1];
        double d[3] = {x[3 * b] - x[3 * a], x[3 * b + 1] - x[3 * a + 1], x[3 * b + 2] - x[3 * a + 2]};
        double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double stretch = r - self->lengths[p];
        energy += 0.5 * self->pair_k[p] * stretch * stretch;
        double f = r > 0 ? self->pair_k[p] * stretch / r : 0.0;
        for (int c = 0; c < 3; c++) {
            g[3 * b + c] += f * d[c];
            g[3 * a + c] -= f * d[c];
        }
    }
    return energy;
}

/* Staggering: k (1 + cos 3 phi) about each torsion (i, j, k, l) given, k = stagger * its torsion_k;
 * a torsion with collinear atoms has no angle and adds nothing. */
static inline double add_staggering(const Relaxer *self, const double *x, double *g, double stagger, double energy, int c) {
    for (Py_ssize_t t = chunk_start(self->torsion_count, c); t < chunk_start(self->torsion_count, c + 1); t++) {
        const int64_t *q = self->torsions + 4 * t;
        const double *xi = x + 3 * q[0], *xj = x + 3 * q[1], *xk = x + 3 * q[2], *xl = x + 3 * q[3];
        double rij[3], rkj[3], rkl[3];
        for (int c = 0; c < 3; c++) {
            rij[c] = xi[c] - xj[c];
            rkj[c] = xk[c] - xj[c];
            rkl[c] = xk[c] - xl[c];
        }
        double m[3] = {rij[1] * rkj[2] - rij[2] * rkj[1], rij[2] * rkj[0] - rij[0] * rkj[2], rij[0] * rkj[1] - rij[1] * rkj[0]};
        double nn[3] = {rkj[1] * rkl[2] - rkj[2] * rkl[1], rkj[2] * rkl[0] - rkj[0] * rkl[2], rkj[0] * rkl[1] - rkj[1] * rkl[0]};
        double m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2], n2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
        double rkj2 = rkj[0] * rkj[0] + rkj[1] * rkj[1] + rkj[2] * rkj[2];
        if (m2 < 1e-12 || n2 < 1e-12 || rkj2 < 1e-12) continue; /* collinear: no defined torsion */
        /* three independent divisions (each reciprocal used twice), not five in a chain */
        double inv_m2 = 1.0 / m2, inv_n2 = 1.0 / n2, inv_rkj2 = 1.0 / rkj2;
        double rkj_len = sqrt(rkj2), inv = sqrt(inv_m2 * inv_n2);
        double cos_phi = (m[0] * nn[0] + m[1] * nn[1] + m[2] * nn[2]) * inv;
        /* sin phi with the sign of rij . n (IUPAC convention) */
        double sin_phi = (rij[0] * nn[0] + rij[1] * nn[1] + rij[2] * nn[2]) * rkj_len * inv;
        double k = stagger * self->torsion_k[t];
        double cos3 = cos_phi * (4.0 * cos_phi * cos_phi - 3.0);
        double sin3 = sin_phi * (3.0 - 4.0 * sin_phi * sin_phi);
        energy += k * (1.0 + cos3);
        double dphi = -3.0 * k * sin3; /* dE/dphi */
        /* Gradient of phi (Bekker; Blondel and Karplus 1996). */
        double fi = -dphi * rkj_len * inv_m2, fl = dphi * rkj_len * inv_n2;
        double p = (rij[0] * rkj[0] + rij[1] * rkj[1] + rij[2] * rkj[2]) * inv_rkj2;
        double s = (rkl[0] * rkj[0] + rkl[1] * rkj[1] + rkl[2] * rkj[2]) * inv_rkj2;
        for (int c = 0; c < 3; c++) {
            double force_i = fi * m[c], force_l = fl * nn[c];
            double shift = p * force_i - s * force_l;
            /* forces: i gets force_i, l force_l, j -(force_i - shift), k -(force_l + shift) */
            g[3 * q[0] + c] -= force_i;
            g[3 * q[1] + c] += force_i - shift;
            g[3 * q[2] + c] += force_l + shift;
            g[3 * q[3] + c] -= force_l;
        }
    }
    return energy;
}

/* d = the minimum image x[j] - x[i] of a pair of the Verlet list; returns |d|². */
static inline double near_pair(const Relaxer *self, const NearPair *pair, const double *x, double d[3]) {
    for (int c = 0; c < 3; c++) d[c] = x[3 * pair->j + c] - x[3 * pair->i + c] - pair->image[c] * self->list_box[c];
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

#define REPULSION_BATCH 256 /* pairs measured before the ones inside their limits are pushed */

/* Repulsion: push (limit - r)^2 for each pair of part c of the Verlet list closer than its limit (intra
 * within a molecule, inter between two), at its minimum image. The pairs inside are picked a batch at
 * a time without a branch per pair (about two in five of a dense list are inside, and a branch on
 * each was mispredicted as often), then pushed in list order. */
static inline double add_repulsion(const Relaxer *self, const double *x, double *g, double energy, int c, size_t *broken) {
    double limit2[2] = {self->inter * self->inter, self->intra * self->intra}, limit[2] = {self->inter, self->intra};
    double keep2[2] = {self->keep_inter * self->keep_inter, self->keep_intra * self->keep_intra};
    const NearList *near = &self->near[c];
    uint32_t inside[REPULSION_BATCH];
    double squared[REPULSION_BATCH];
    for (size_t batch = 0; batch < near->count; batch += REPULSION_BATCH) {
        size_t stop = batch + REPULSION_BATCH < near->count ? batch + REPULSION_BATCH : near->count;
        int count = 0;
        for (size_t p = batch; p < stop; p++) {
            double d[3];
            double r2 = near_pair(self, &near->pairs[p], x, d);
            inside[count] = (uint32_t)(p - batch), squared[count] = r2;
            count += r2 < limit2[near->pairs[p].same];
        }
        for (int k = 0; k < count; k++) {
            const NearPair *pair = &near->pairs[batch + inside[k]];
            int32_t i = pair->i, j = pair->j;
            double d[3], r2 = squared[k];
            near_pair(self, pair, x, d);
            *broken += r2 < keep2[pair->same];
            double r = sqrt(r2), gap = limit[pair->same] - r;
            energy += self->push * gap * gap;
            double f = r > 0 ? -2.0 * self->push * gap / r : 0.0; /* dE/dr / r */
            for (int a = 0; a < 3; a++) {
                g[3 * j + a] += f * d[a];
                g[3 * i + a] -= f * d[a];
            }
        }
    }
    return energy;
}

/* Walls: wall_k (low - z)^2 for each atom of part c below wall_low, wall_k (z - high)^2 above wall_high. */
static inline double add_walls(const Relaxer *self, const double *x, double *g, double energy, int c, size_t *broken) {
    for (Py_ssize_t i = chunk_start(self->atoms, c); i < chunk_start(self->atoms, c + 1); i++) {
        double z = x[3 * i + 2];
        *broken += z <= self->keep_low || z >= self->keep_high;
        if (z < self->wall_low) {
            energy += self->wall_k * (self->wall_low - z) * (self->wall_low - z);
            g[3 * i + 2] -= 2.0 * self->wall_k * (self->wall_low - z);
        } else if (z > self->wall_high) {
            energy += self->wall_k * (z - self->wall_high) * (z - self->wall_high);
            g[3 * i + 2] += 2.0 * self->wall_k * (z - self->wall_high);
        }
    }
    return energy;
}

/* The relaxation energy at x (the Verlet list current for it) and its gradient dE/dx, written to g:
 * each part's terms summed into its own buffer, the buffers then added in order. Counts in
 * self->broken the pairs and atoms that break the kept limits. */
static double evaluate(Relaxer *self, const double *x, double *g, double stagger) {
    Py_ssize_t size = 3 * self->atoms;
    double partial[CHUNKS];
    size_t broken[CHUNKS] = {0};
#pragma omp parallel num_threads(self->threads) if (self->threads > 1)
    {
#pragma omp for schedule(dynamic, 1) /* parts differ in size (a refresh lists pairs by atom): taken as threads come free */
        for (int c = 0; c < CHUNKS; c++) {
            double *part = c ? self->part_g + (size_t)(c - 1) * (size_t)size : g;
            memset(part, 0, (size_t)size * sizeof(double));
            double energy = add_held_pairs(self, x, part, 0.0, c);
            if (stagger != 0.0) energy = add_staggering(self, x, part, stagger, energy, c);
            energy = add_repulsion(self, x, part, energy, c, &broken[c]);
            if (self->wall_k > 0.0) energy = add_walls(self, x, part, energy, c, &broken[c]);
            partial[c] = energy;
        }
#pragma omp for schedule(static)
        for (Py_ssize_t k = 0; k < size; k++) {
            double sum = g[k];
            for (int c = 1; c < CHUNKS; c++) sum += self->part_g[(size_t)(c - 1) * (size_t)size + (size_t)k];
            g[k] = sum;
        }
    }
    double energy = 0.0;
    self->broken = 0;
    for (int c = 0; c < CHUNKS; c++) energy += partial[c], self->broken += broken[c];
    return energy;
}

/* ---------------------------------------------------------------- L-BFGS */

static double dot(const double *a, const double *b, Py_ssize_t n) {
    double sum = 0.0;
    for (Py_ssize_t k = 0; k < n; k++) sum += a[k] * b[k];
    return sum;
}

/* L-BFGS history: the pairs (s, y) kept in HISTORY slots, with every dot product between them and
 * with the current gradient g, so that a direction costs one pass over the vectors and a new pair
 * one more (the two-loop recursion, written over these products; it took four passes and a write of
 * d on each, and the passes were most of a step's memory traffic at 35 k atoms). */
typedef struct {
    float *s, *y;                                 /* HISTORY slots of `size` values each, single precision:
                                                   * only the direction's shape depends on them, and the
                                                   * passes over them were most of a step's memory traffic */
    double rho[HISTORY];                          /* 1 / s·y */
    double sy[HISTORY][HISTORY], yy[HISTORY][HISTORY]; /* s_i·y_j, y_i·y_j */
    double sg[HISTORY], yg[HISTORY];              /* s_i·g, y_i·g */
    double gg;                                    /* g·g */
    int stored, newest;
} History;

/* The slots kept, newest first; returns how many. */
static int kept_slots(const History *h, int order[HISTORY]) {
    for (int k = 0; k < h->stored; k++) order[k] = (h->newest - k + HISTORY) % HISTORY;
    return h->stored;
}

/* The direction d = -H g: the two-loop recursion's coefficients from the kept products, then
 * d = -(gamma (g - sum alpha_j y_j) + sum c_j s_j) in one pass, parts summed in fixed order.
 * *slope = g·d, *largest = the largest move of one atom along d. Returns 1 where history shaped d
 * (a unit step suits it), 0 for steepest descent. */
static int lbfgs_direction(const Relaxer *self, double *d, const double *g, const History *h, double *slope, double *largest) {
    int order[HISTORY], m = kept_slots(h, order);
    double alpha[HISTORY] = {0}, c[HISTORY] = {0}, gamma = 1.0;
    for (int a = 0; a < m; a++) { /* newest to oldest: alpha_i = rho_i s_i·(g - sum over newer of alpha_j y_j) */
        int i = order[a];
        double sq = h->sg[i];
        for (int b = 0; b < a; b++) sq -= alpha[order[b]] * h->sy[i][order[b]];
        alpha[i] = h->rho[i] * sq;
    }
    if (m) gamma = 1.0 / (h->rho[h->newest] * h->yy[h->newest][h->newest]); /* s·y / y·y of the newest pair */
    for (int a = m - 1; a >= 0; a--) { /* oldest to newest: beta_i = rho_i y_i·r */
        int i = order[a];
        double yq = h->yg[i];
        for (int b = 0; b < m; b++) yq -= alpha[order[b]] * h->yy[i][order[b]];
        double yr = gamma * yq;
        for (int b = a + 1; b < m; b++) yr += c[order[b]] * h->sy[order[b]][i];
        c[i] = alpha[i] - h->rho[i] * yr;
    }
    Py_ssize_t size = 3 * self->atoms;
    double slopes[CHUNKS], moves[CHUNKS];
#pragma omp parallel for num_threads(self->threads) if (self->threads > 1) schedule(static, 1)
    for (int part = 0; part < CHUNKS; part++) {
        double gd = 0.0, worst = 0.0;
        Py_ssize_t first = chunk_start(self->atoms, part), last = chunk_start(self->atoms, part + 1);
        for (Py_ssize_t atom = first; atom < last; atom += BLOCK_ATOMS) {
            Py_ssize_t from = 3 * atom, n = 3 * ((atom + BLOCK_ATOMS < last ? atom + BLOCK_ATOMS : last) - atom);
            double *restrict r = d + from; /* this block of d, summed as r = -d */
            const double *restrict gb = g + from;
            for (Py_ssize_t k = 0; k < n; k++) r[k] = gamma * gb[k];
            for (int b = 0; b < m; b++) {
                int j = order[b];
                const float *restrict sj = h->s + j * size + from, *restrict yj = h->y + j * size + from;
                double cs = c[j], ca = gamma * alpha[j];
                for (Py_ssize_t k = 0; k < n; k++) r[k] += cs * sj[k] - ca * yj[k];
            }
            for (Py_ssize_t k = 0; k < n; k += 3) {
                r[k] = -r[k], r[k + 1] = -r[k + 1], r[k + 2] = -r[k + 2];
                gd += gb[k] * r[k] + gb[k + 1] * r[k + 1] + gb[k + 2] * r[k + 2];
                double m2 = r[k] * r[k] + r[k + 1] * r[k + 1] + r[k + 2] * r[k + 2];
                if (m2 > worst) worst = m2;
            }
        }
        slopes[part] = gd, moves[part] = worst;
    }
    *slope = 0.0, *largest = 0.0;
    for (int part = 0; part < CHUNKS; part++) {
        *slope += slopes[part];
        if (moves[part] > *largest) *largest = moves[part];
    }
    *largest = sqrt(*largest);
    return m > 0;
}

/* Backtracking line search (sufficient decrease) from x along d, halving `step` up to BACKTRACKS
 * times; the last trial point, its gradient and energy are left in trial, trial_g and *trial_energy.
 * Returns 1 if a point with enough decrease was found, 0 if none, -1 with an exception. */
static int line_search(Relaxer *self, const double *x, const double *d, const double *box, double stagger,
                       double energy, double slope, double step, double *trial, double *trial_g,
                       double *trial_energy) {
    Py_ssize_t size = 3 * self->atoms;
    for (int b = 0; b < BACKTRACKS; b++) {
        for (Py_ssize_t k = 0; k < size; k++) trial[k] = x[k] + step * d[k];
        if (ensure_list(self, trial, box) < 0) return -1;
        *trial_energy = evaluate(self, trial, trial_g, stagger);
        if (*trial_energy <= energy + ARMIJO * step * slope) return 1;
        step *= 0.5;
    }
    return 0;
}

/* Dot products one pass takes per kept slot j: s_new·y_j, s_j·g_new, y_j·g_new (s_j·y_new and
 * y_j·y_new follow from the last two less the products with g). */
enum { SN_Y, S_GN, Y_GN, PER_SLOT };
/* ... and of the new pair itself: s·y, y·y, g_new·g_new, s·g_new, y·g_new. */
enum { SN_YN, YN_YN, GN_GN, SN_GN, YN_GN, OWN };

/* After a step x -> x_new (gradients g -> g_new): writes the pair s = x_new - x, y = g_new - g into
 * the next slot and keeps it when its curvature s·y is positive; updates every product with g_new,
 * all in one pass, parts summed in fixed order. */
static void remember_pair(const Relaxer *self, History *h, const double *x, const double *x_new, const double *g, const double *g_new) {
    Py_ssize_t size = 3 * self->atoms;
    int next = (h->newest + 1) % HISTORY, order[HISTORY], m = kept_slots(h, order);
    if (m == HISTORY) m--; /* the oldest is in `next`: overwritten now */
    float *sn = h->s + next * size, *yn = h->y + next * size;
    double sums[CHUNKS][HISTORY * PER_SLOT + OWN];
#pragma omp parallel for num_threads(self->threads) if (self->threads > 1) schedule(static, 1)
    for (int part = 0; part < CHUNKS; part++) {
        double *sum = sums[part];
        memset(sum, 0, sizeof(sums[part]));
        Py_ssize_t first = 3 * chunk_start(self->atoms, part), last = 3 * chunk_start(self->atoms, part + 1);
        for (Py_ssize_t from = first; from < last; from += 3 * BLOCK_ATOMS) {
            Py_ssize_t to = from + 3 * BLOCK_ATOMS < last ? from + 3 * BLOCK_ATOMS : last;
            double sy = 0.0, y2 = 0.0, g2 = 0.0, sg = 0.0, yg = 0.0;
#pragma omp simd reduction(+ : sy, y2, g2, sg, yg)
            for (Py_ssize_t k = from; k < to; k++) {
                /* the products of the pair as kept */
                float s32 = (float)(x_new[k] - x[k]), y32 = (float)(g_new[k] - g[k]);
                double sk = s32, yk = y32, gk = g_new[k];
                sn[k] = s32, yn[k] = y32;
                sy += sk * yk, y2 += yk * yk, g2 += gk * gk, sg += sk * gk, yg += yk * gk;
            }
            double *own = sum + HISTORY * PER_SLOT;
            own[SN_YN] += sy, own[YN_YN] += y2, own[GN_GN] += g2, own[SN_GN] += sg, own[YN_GN] += yg;
            for (int b = 0; b < m; b++) {
                int j = order[b];
                const float *restrict sj = h->s + j * size, *restrict yj = h->y + j * size, *restrict sk = sn;
                const double *restrict gk = g_new;
                double a0 = 0.0, a1 = 0.0, a2 = 0.0;
#pragma omp simd reduction(+ : a0, a1, a2)
                for (Py_ssize_t k = from; k < to; k++) a0 += sk[k] * yj[k], a1 += sj[k] * gk[k], a2 += yj[k] * gk[k];
                double *at = sum + b * PER_SLOT;
                at[SN_Y] += a0, at[S_GN] += a1, at[Y_GN] += a2;
            }
        }
    }
    double total[HISTORY * PER_SLOT + OWN] = {0};
    for (int part = 0; part < CHUNKS; part++)
        for (int k = 0; k < HISTORY * PER_SLOT + OWN; k++) total[k] += sums[part][k];
    const double *own = total + HISTORY * PER_SLOT;
    int kept = own[SN_YN] > 1e-12;
    for (int b = 0; b < m; b++) {
        int j = order[b];
        double sg = total[b * PER_SLOT + S_GN], yg = total[b * PER_SLOT + Y_GN];
        if (kept) {
            h->sy[next][j] = total[b * PER_SLOT + SN_Y], h->sy[j][next] = sg - h->sg[j];
            h->yy[next][j] = h->yy[j][next] = yg - h->yg[j];
        }
        h->sg[j] = sg, h->yg[j] = yg;
    }
    h->gg = own[GN_GN];
    if (kept) {
        h->rho[next] = 1.0 / own[SN_YN];
        h->sy[next][next] = own[SN_YN], h->yy[next][next] = own[YN_YN];
        h->sg[next] = own[SN_GN], h->yg[next] = own[YN_GN];
        h->newest = next;
        h->stored = m + 1;
    } else {
        h->stored = m; /* a full history lost its oldest pair to `next` */
    }
}

/* Minimise from x (updated in place) until the root-mean-square gradient component falls below
 * tolerance, `iterations` iterations have run or, when self->keeping, a step leaves no pair inside
 * the kept limits and no atom outside the kept walls. Returns the iterations run, or -1 with an exception. */
static Py_ssize_t minimize(Relaxer *self, double *x, const double *box, double stagger, double tolerance,
                           Py_ssize_t iterations, double *energy_out) {
    Py_ssize_t size = 3 * self->atoms;
    double *memory = malloc(((size_t)5 * (size_t)size + 1) * sizeof(double));
    float *pairs = malloc(((size_t)2 * HISTORY * (size_t)size + 1) * sizeof(float));
    if (!memory || !pairs) {
        free(memory), free(pairs);
        PyErr_NoMemory();
        return -1;
    }
    History h = {.s = pairs, .y = pairs + HISTORY * size, .stored = 0, .newest = HISTORY - 1};
    double *g = memory, *d = g + size, *trial = d + size, *trial_g = trial + size;
    double *result = x; /* the caller's: the minimiser works in its own buffers, swapped as it goes */
    x = trial_g + size;
    memcpy(x, result, (size_t)size * sizeof(double));
    Py_ssize_t done = 0;

    if (ensure_list(self, x, box) < 0) goto fail;
    double energy = evaluate(self, x, g, stagger);
    h.gg = dot(g, g, size);
    double threshold = tolerance * tolerance * (double)size;
    while (done < iterations && h.gg > threshold) {
        double slope, largest;
        double step = lbfgs_direction(self, d, g, &h, &slope, &largest) ? 1.0 : FIRST_STEP / largest;
        if (slope >= 0.0) { /* not a descent direction: forget the history and go downhill */
            h.stored = 0;
            lbfgs_direction(self, d, g, &h, &slope, &largest);
            step = FIRST_STEP / largest;
        }
        double move = largest * step;
        if (move > MAX_STEP) step *= MAX_STEP / move;

        double trial_energy = energy;
        int accepted = line_search(self, x, d, box, stagger, energy, slope, step, trial, trial_g, &trial_energy);
        if (accepted < 0) goto fail;
        if (!accepted) break; /* no lower energy along this direction: as good as it gets */

        remember_pair(self, &h, x, trial, g, trial_g);
        double *swap = x;
        x = trial, trial = swap;
        swap = g, g = trial_g, trial_g = swap;
        energy = trial_energy;
        done++;
        if (self->keeping && self->broken == 0) break;
    }
    memcpy(result, x, (size_t)size * sizeof(double));
    free(memory), free(pairs);
    *energy_out = energy;
    return done;
fail:
    free(memory), free(pairs);
    return -1;
}

/* ---------------------------------------------------------------- Python type */

static void release(Relaxer *self) {
    void **owned[] = {(void **)&self->pairs, (void **)&self->lengths, (void **)&self->pair_k, (void **)&self->torsions,
                      (void **)&self->torsion_k, (void **)&self->molecule, (void **)&self->excluded_start, (void **)&self->excluded_near, (void **)&self->apart,
                      (void **)&self->excluded, (void **)&self->built_at, (void **)&self->part_g};
    for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++) {
        free(*owned[k]);
        *owned[k] = NULL;
    }
    for (int c = 0; c < CHUNKS; c++) {
        free(self->near[c].pairs);
        self->near[c] = (NearList){0};
    }
    self->list_valid = 0;
}

static void Relaxer_dealloc(Relaxer *self) {
    release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A copy of an int64 array of rows `width` long (pairs, torsions): its rows counted in `rows`. */
static int copy_rows(PyObject *object, const char *name, Py_ssize_t width, int64_t **out, Py_ssize_t *rows) {
    Py_ssize_t values;
    if (copy_buffer(object, name, "ql", 8, -1, (void **)out, &values) < 0) return -1;
    if (values % width) {
        PyErr_Format(PyExc_ValueError, "%s: expected (n, %zd)", name, width);
        return -1;
    }
    *rows = values / width;
    return 0;
}

static int Relaxer_init(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"pairs", "lengths", "pair_k", "torsions", "torsion_k", "molecule", "excluded_start", "excluded",
                               "inter", "intra", "push", "wall_k", "wall_low", "wall_high", "skin", "threads", "apart", NULL};
    PyObject *pairs, *lengths, *pair_k, *torsions, *torsion_k, *molecule, *excluded_start, *excluded, *apart = NULL;
    int threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOOddddddd|iO", keywords, &pairs, &lengths, &pair_k, &torsions, &torsion_k,
                                     &molecule, &excluded_start, &excluded, &self->inter, &self->intra, &self->push,
                                     &self->wall_k, &self->wall_low, &self->wall_high, &self->skin, &threads, &apart))
        return -1;
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be at least 1");
        return -1;
    }
    self->threads = threads;
    release(self); /* __init__ called again */
    Py_ssize_t atoms, starts;
    if (copy_buffer(molecule, "molecule", "i", 4, -1, (void **)&self->molecule, &atoms) < 0) return -1;
    self->atoms = atoms;
    if (copy_rows(pairs, "pairs", 2, &self->pairs, &self->pair_count) < 0) return -1;
    if (copy_buffer(lengths, "lengths", "d", 8, self->pair_count, (void **)&self->lengths, NULL) < 0) return -1;
    if (copy_buffer(pair_k, "pair_k", "d", 8, self->pair_count, (void **)&self->pair_k, NULL) < 0) return -1;
    if (copy_rows(torsions, "torsions", 4, &self->torsions, &self->torsion_count) < 0) return -1;
    if (copy_buffer(torsion_k, "torsion_k", "d", 8, self->torsion_count, (void **)&self->torsion_k, NULL) < 0) return -1;
    if (copy_buffer(excluded_start, "excluded_start", "ql", 8, atoms + 1, (void **)&self->excluded_start, &starts) < 0) return -1;
    Py_ssize_t excluded_count;
    if (copy_buffer(excluded, "excluded", "ql", 8, -1, (void **)&self->excluded, &excluded_count) < 0) return -1;
    if (self->excluded_start[atoms] != excluded_count) {
        PyErr_SetString(PyExc_ValueError, "excluded_start must end at len(excluded)");
        return -1;
    }
    if (index_near_exclusions(self) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->apart_count = 0;
    if (apart && apart != Py_None && copy_buffer(apart, "apart", "ql", 8, -1, (void **)&self->apart, &self->apart_count) < 0) return -1;
    for (Py_ssize_t k = 0; k < self->apart_count; k++)
        if (self->apart[k] < 0 || self->apart[k] >= (int64_t)atoms * atoms || (k && self->apart[k] <= self->apart[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "apart: sorted unique keys i * atoms + j expected");
            return -1;
        }
    for (Py_ssize_t p = 0; p < 2 * self->pair_count; p++)
        if (self->pairs[p] < 0 || self->pairs[p] >= atoms) {
            PyErr_SetString(PyExc_ValueError, "pairs: atom index out of range");
            return -1;
        }
    for (Py_ssize_t t = 0; t < 4 * self->torsion_count; t++)
        if (self->torsions[t] < 0 || self->torsions[t] >= atoms) {
            PyErr_SetString(PyExc_ValueError, "torsions: atom index out of range");
            return -1;
        }
    self->built_at = malloc((size_t)(atoms > 0 ? atoms : 1) * 3 * sizeof(double));
    self->part_g = malloc((size_t)(CHUNKS - 1) * (size_t)(atoms > 0 ? atoms : 1) * 3 * sizeof(double));
    int lists = 1;
    for (int c = 0; c < CHUNKS; c++) {
        NearList *near = &self->near[c];
        near->capacity = (size_t)atoms * 2 / CHUNKS + 1024;
        near->pairs = malloc(near->capacity * sizeof(NearPair));
        lists &= near->pairs != NULL;
    }
    if (!self->built_at || !self->part_g || !lists) {
        PyErr_NoMemory();
        return -1;
    }
    self->list_valid = 0;
    return 0;
}

/* Opens `object` as this system's coordinates: float64 (atoms, 3), writable if asked. */
static int open_coordinates(Relaxer *self, PyObject *object, const char *name, int writable, Buffer *out) {
    if (open_buffer(object, name, "d", 8, 2, writable, out) < 0) return -1;
    if (out->view.shape[0] != self->atoms || out->view.shape[1] != 3) {
        PyErr_Format(PyExc_ValueError, "%s: expected (%zd, 3)", name, self->atoms);
        return -1;
    }
    return 0;
}

static PyObject *Relaxer_minimize(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"positions", "box", "stagger", "tolerance", "iterations", "keep", NULL};
    PyObject *positions, *keep = Py_None;
    double box[3], stagger, tolerance;
    Py_ssize_t iterations;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O(ddd)ddn|O", keywords, &positions, &box[0], &box[1], &box[2], &stagger,
                                     &tolerance, &iterations, &keep))
        return NULL;
    /* keep: (inter, intra, low, high), the limits to stop at; none by default (nothing counts as broken) */
    self->keeping = keep != Py_None;
    self->keep_inter = self->keep_intra = 0.0, self->keep_low = -INFINITY, self->keep_high = INFINITY;
    if (self->keeping) {
        if (!PyTuple_Check(keep) || !PyArg_ParseTuple(keep, "dddd;keep: (inter, intra, low, high)", &self->keep_inter, &self->keep_intra,
                                                      &self->keep_low, &self->keep_high)) {
            self->keeping = 0;
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "keep: (inter, intra, low, high)");
            return NULL;
        }
        if (self->keep_inter > self->inter || self->keep_intra > self->intra) {
            self->keeping = 0;
            PyErr_SetString(PyExc_ValueError, "keep: inter and intra must not exceed the relaxer's limits");
            return NULL;
        }
    }
    double cutoff = list_cutoff(self);
    if (box[0] < 2 * cutoff || box[1] < 2 * cutoff || (!(self->wall_k > 0.0) && box[2] < 2 * cutoff)) {
        PyErr_SetString(PyExc_ValueError, "box: every periodic side must be at least twice the cutoff");
        return NULL;
    }
    Buffer x = {0};
    PyObject *result = NULL;
    if (open_coordinates(self, positions, "positions", 1, &x) == 0) {
        double energy = 0.0;
        Py_ssize_t done = minimize(self, x.view.buf, box, stagger, tolerance, iterations, &energy); /* holds the GIL: it may raise */
        if (done >= 0) result = Py_BuildValue("(nd)", done, energy);
    }
    close_buffer(&x);
    return result;
}

static PyObject *Relaxer_energy(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"positions", "gradient", "box", "stagger", NULL};
    PyObject *positions, *gradient;
    double box[3], stagger;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO(ddd)d", keywords, &positions, &gradient, &box[0], &box[1], &box[2],
                                     &stagger))
        return NULL;
    Buffer x = {0}, g = {0};
    PyObject *result = NULL;
    if (open_coordinates(self, positions, "positions", 0, &x) == 0 && open_coordinates(self, gradient, "gradient", 1, &g) == 0 &&
        ensure_list(self, x.view.buf, box) == 0)
        result = PyFloat_FromDouble(evaluate(self, x.view.buf, g.view.buf, stagger));
    close_buffer(&x), close_buffer(&g);
    return result;
}

/* The pairs of the Verlet list closer than `inter` (between molecules) or `intra` (within one), at x. */
static PyObject *close_pair_list(const Relaxer *self, const double *x, double inter, double intra) {
    PyObject *list = PyList_New(0);
    for (int c = 0; list && c < CHUNKS; c++) {
        const NearList *near = &self->near[c];
        for (size_t p = 0; list && p < near->count; p++) {
            double d[3];
            double r2 = near_pair(self, &near->pairs[p], x, d), limit = near->pairs[p].same ? intra : inter;
            if (r2 >= limit * limit) continue;
            PyObject *pair = Py_BuildValue("(ii)", near->pairs[p].i, near->pairs[p].j);
            if (!pair || PyList_Append(list, pair) < 0) Py_CLEAR(list);
            Py_XDECREF(pair);
        }
    }
    return list;
}

static PyObject *Relaxer_close_pairs(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"positions", "box", "inter", "intra", NULL};
    PyObject *positions;
    double box[3], inter, intra;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O(ddd)dd", keywords, &positions, &box[0], &box[1], &box[2], &inter, &intra))
        return NULL;
    if (inter > self->inter || intra > self->intra) {
        PyErr_SetString(PyExc_ValueError, "inter and intra must not exceed the relaxer's limits");
        return NULL;
    }
    Buffer x = {0};
    PyObject *result = NULL;
    if (open_coordinates(self, positions, "positions", 0, &x) == 0 && ensure_list(self, x.view.buf, box) == 0)
        result = close_pair_list(self, x.view.buf, inter, intra);
    close_buffer(&x);
    return result;
}

static PyMethodDef Relaxer_methods[] = {
    {"minimize", (PyCFunction)(void (*)(void))Relaxer_minimize, METH_VARARGS | METH_KEYWORDS,
     "minimize(positions, box, stagger, tolerance, iterations, keep=None) -> (iterations run, energy): L-BFGS in place "
     "until the root-mean-square gradient component is below tolerance or, with keep = (inter, intra, low, high), a step "
     "leaves no pair closer than inter (between molecules) or intra (within one) and, with walls, every z between low and high."},
    {"energy", (PyCFunction)(void (*)(void))Relaxer_energy, METH_VARARGS | METH_KEYWORDS,
     "energy(positions, gradient, box, stagger) -> energy; fills gradient (dE/dx)."},
    {"close_pairs", (PyCFunction)(void (*)(void))Relaxer_close_pairs, METH_VARARGS | METH_KEYWORDS,
     "close_pairs(positions, box, inter, intra) -> [(i, j), ...]: pairs not excluded closer than inter (between molecules) "
     "or intra (within one), each at most the relaxer's own limit."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Relaxer_members[] = {
    {"builds", T_LONGLONG, offsetof(Relaxer, builds), READONLY, "whole builds of the neighbour list so far"},
    {"refreshes", T_LONGLONG, offsetof(Relaxer, refreshes), READONLY, "refreshes of the list about the atoms that moved most, so far"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject RelaxerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "polyforge_engine.construct._relax.Relaxer",
    .tp_basicsize = sizeof(Relaxer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The relaxation energy of one system (held pairs, staggering torsions, repulsion, walls) and its minimiser.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Relaxer_init,
    .tp_dealloc = (destructor)Relaxer_dealloc,
    .tp_methods = Relaxer_methods,
    .tp_members = Relaxer_members,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "polyforge_engine.construct._relax",
    .m_doc = "Compiled geometric relaxation for dense builds (see _relax.c).",
    .m_size = -1,
    .m_methods = NULL,
};

PyMODINIT_FUNC PyInit__relax(void) {
    if (PyType_Ready(&RelaxerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&RelaxerType);
    if (PyModule_AddObject(m, "Relaxer", (PyObject *)&RelaxerType) < 0) {
        Py_DECREF(&RelaxerType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "HISTORY", HISTORY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
