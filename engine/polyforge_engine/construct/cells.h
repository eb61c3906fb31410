/* Every pair of atoms closer than a cutoff, found through a cell list: shared by the relaxation's
 * neighbour list (_relax.c) and the measurement of closest contacts (_contacts.c).
 *
 * Atoms are sorted into cells at least the cutoff wide and each cell is compared with itself and the
 * 13 of its 26 neighbours ahead of it, so every pair is met once (read as columns along z where the
 * cells allow: pair_cells_visit_homes). Along a periodic axis too short for
 * three such cells all atoms share one cell and the minimum image is taken pair by pair. (Cells half
 * as wide with a 5 × 5 × 5 neighbourhood meet fewer pairs, but at melt densities most of them are
 * empty and visiting them cost more than the pairs saved.) x and y are periodic, z when asked; along
 * a non-periodic z the cells span the atoms. Raw coordinates may lie boxes apart (molecules are kept
 * whole): each pair comes with the lattice shift that makes x[j] - x[i] - shift its minimum image.
 * The atoms near one point are found through the same cells (pair_cells_visit_around). */

#ifndef POLYFORGE_CELLS_H
#define POLYFORGE_CELLS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Called for every pair within the cutoff with d = x[j] - x[i] - shift (minimum image) and d2 = |d|².
 * A non-zero return stops the search and is returned by for_each_close_pair. */
typedef int (*PairVisitor)(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]);

/* The cell list for_each_close_pair works through: the cells, then the atoms in cell order with their
 * coordinates wrapped into the box and the lattice shifts taken off apart. */
typedef struct {
    double low[3], span[3];                 /* the region divided: the box; along a non-periodic z the atoms' extent */
    int periodic[3], reach[3], single_cell; /* reach: neighbouring cells compared on each side */
    int64_t cells[3];
    double inverse[3], per_length[3]; /* 1 / span, and cells per unit length (multiplied by: a division cost more than the rest of a sort) */
    double *wrapped;  /* (atoms, 3) in cell order, inside the box */
    double *lattice;  /* (atoms, 3) in cell order: x - wrapped */
    int32_t *atom_at; /* atom in each slot of the cell order */
    int64_t *cell_of, *cell_start, *fill;
} PairCells;

/* The cells: at least the cutoff wide and, in dilute systems, about one atom per cell (a cell per
 * cutoff-wide cube of a large, sparse cell would cost more memory and visits than the atoms); one
 * cell along a periodic axis too short for three. */
static inline void pair_cells_frame(PairCells *list, const double *x, int64_t n, const double box[3], int periodic_z, double cutoff) {
    double *low = list->low, *span = list->span;
    for (int a = 0; a < 3; a++) low[a] = 0.0, span[a] = box[a];
    list->periodic[0] = 1, list->periodic[1] = 1, list->periodic[2] = periodic_z;
    if (!periodic_z) {
        double zmin = INFINITY, zmax = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            if (x[3 * i + 2] < zmin) zmin = x[3 * i + 2];
            if (x[3 * i + 2] > zmax) zmax = x[3 * i + 2];
        }
        low[2] = n > 0 ? zmin : 0.0;
        span[2] = n > 0 ? zmax - zmin + 1e-9 : 1.0;
    }
    double width = cbrt(span[0] * span[1] * span[2] / (double)(n > 0 ? n : 1));
    if (width < cutoff) width = cutoff;
    for (int a = 0; a < 3; a++) {
        int64_t whole = (int64_t)floor(span[a] / width);
        if (whole > 1024) whole = 1024;
        if (!list->periodic[a] || whole >= 3) {
            list->cells[a] = whole < 1 ? 1 : whole, list->reach[a] = 1;
        } else {
            list->cells[a] = 1, list->reach[a] = 0;
        }
    }
    list->single_cell = list->reach[0] == 0 || list->reach[1] == 0 || list->reach[2] == 0;
    for (int a = 0; a < 3; a++) list->inverse[a] = 1.0 / span[a], list->per_length[a] = (double)list->cells[a] / span[a];
}

/* floor(v) for |v| < 2^63, inline (without SSE4.1, floor is a call into libm). */
static inline double pair_cells_floor(double v) {
    double t = (double)(int64_t)v;
    return t > v ? t - 1.0 : t;
}

/* The cell of `point` (returned, and its coordinates in `here`), with the point wrapped into the box
 * (`wrapped`, from the region's low corner) and the lattice shift taken off it apart: point - low =
 * wrapped + lattice. */
static inline int64_t pair_cells_locate(const PairCells *list, const double point[3], int64_t here[3], double wrapped[3], double lattice[3]) {
    const int64_t *cells = list->cells;
    for (int a = 0; a < 3; a++) {
        double u = point[a] - list->low[a], span = list->span[a];
        double turns = list->periodic[a] ? pair_cells_floor(u * list->inverse[a]) : 0.0;
        wrapped[a] = u - turns * span;
        lattice[a] = turns * span;
        int64_t k = (int64_t)pair_cells_floor(wrapped[a] * list->per_length[a]);
        here[a] = k < 0 ? 0 : (k >= cells[a] ? cells[a] - 1 : k);
    }
    return (here[0] * cells[1] + here[1]) * cells[2] + here[2];
}

/* Sorts the n atoms into the cells (a counting sort: cell_start holds each cell's first slot), each
 * with its wrapped coordinates and lattice shift. Returns -1 when memory ran out. */
static inline int pair_cells_sort(PairCells *list, const double *x, int64_t n) {
    const int64_t *cells = list->cells;
    int64_t cell_total = cells[0] * cells[1] * cells[2];
    size_t atoms = (size_t)(n > 0 ? n : 1);
    list->wrapped = malloc(atoms * 3 * sizeof(double));
    list->lattice = malloc(atoms * 3 * sizeof(double));
    list->atom_at = malloc(atoms * sizeof(int32_t));
    list->cell_of = malloc(atoms * sizeof(int64_t));
    list->cell_start = calloc((size_t)cell_total + 1, sizeof(int64_t));
    list->fill = malloc((size_t)cell_total * sizeof(int64_t));
    double *shifts = malloc(atoms * 3 * sizeof(double)); /* each atom's lattice shift, by atom until placed */
    int status = list->wrapped && list->lattice && list->atom_at && list->cell_of && list->cell_start && list->fill && shifts ? 0 : -1;
    if (!status) {
        for (int64_t i = 0; i < n; i++) {
            int64_t here[3];
            double wrapped[3];
            list->cell_of[i] = pair_cells_locate(list, x + 3 * i, here, wrapped, shifts + 3 * i);
            list->cell_start[list->cell_of[i] + 1]++;
        }
        for (int64_t c = 0; c < cell_total; c++) list->cell_start[c + 1] += list->cell_start[c];
        memcpy(list->fill, list->cell_start, (size_t)cell_total * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++) {
            int64_t slot = list->fill[list->cell_of[i]]++;
            list->atom_at[slot] = (int32_t)i;
            for (int a = 0; a < 3; a++) { /* as pair_cells_locate has them: point - low = wrapped + lattice */
                list->lattice[3 * slot + a] = shifts[3 * i + a];
                list->wrapped[3 * slot + a] = (x[3 * i + a] - list->low[a]) - shifts[3 * i + a];
            }
        }
    }
    free(shifts);
    return status;
}

static inline void pair_cells_free(PairCells *list) {
    free(list->wrapped), free(list->lattice), free(list->atom_at), free(list->cell_of), free(list->cell_start), free(list->fill);
}

/* The neighbour of cell `here` at `offset`, across a periodic side if need be, with the image (added
 * to its wrapped coordinates) that makes it adjacent; -1 beyond a non-periodic side. */
static inline int64_t pair_cells_neighbour(const PairCells *list, const int64_t here[3], const int offset[3], double image[3]) {
    int64_t there[3];
    int outside = 0;
    for (int a = 0; a < 3; a++) {
        int64_t k = here[a] + offset[a];
        image[a] = 0.0;
        if (k < 0 || k >= list->cells[a]) {
            if (!list->periodic[a]) outside = 1;
            image[a] = k < 0 ? -list->span[a] : list->span[a];
            k = k < 0 ? k + list->cells[a] : k - list->cells[a];
        }
        there[a] = k;
    }
    return outside ? -1 : (there[0] * list->cells[1] + there[1]) * list->cells[2] + there[2];
}

/* Visits the pairs closer than the cutoff between the atoms of cell `home` and those of cell `other`
 * moved by `image` (each pair once where the two are one cell), taking the minimum image pair by pair
 * along axes of one cell; returns the visitor's first non-zero answer, or 0. For cells along an axis
 * too short for three (pair_cells_visit_homes takes the others by columns). */
static inline int pair_cells_visit(const PairCells *list, int64_t home, int64_t other, const double image[3], double cutoff2,
                                   PairVisitor visit, void *context) {
    const double *wrapped = list->wrapped, *lattice = list->lattice, *span = list->span;
    int same_cell = other == home, status = 0;
    for (int64_t p = list->cell_start[home]; p < list->cell_start[home + 1] && !status; p++) {
        /* the atom at p, moved by the image so that neighbours are compared directly */
        double px = wrapped[3 * p] - image[0], py = wrapped[3 * p + 1] - image[1], pz = wrapped[3 * p + 2] - image[2];
        for (int64_t q = same_cell ? p + 1 : list->cell_start[other]; q < list->cell_start[other + 1]; q++) {
            double d[3] = {wrapped[3 * q] - px, wrapped[3 * q + 1] - py, wrapped[3 * q + 2] - pz};
            double img[3] = {image[0], image[1], image[2]};
            if (list->single_cell) /* one cell along a periodic axis: the minimum image pair by pair */
                for (int a = 0; a < 3; a++) {
                    if (list->reach[a] != 0) continue;
                    if (d[a] > 0.5 * span[a]) d[a] -= span[a], img[a] -= span[a];
                    else if (d[a] < -0.5 * span[a]) d[a] += span[a], img[a] += span[a];
                }
            double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 >= cutoff2) continue;
            double shift[3];
            for (int a = 0; a < 3; a++) shift[a] = lattice[3 * q + a] - lattice[3 * p + a] - img[a];
            if ((status = visit(context, list->atom_at[p], list->atom_at[q], d, d2, shift))) break;
        }
    }
    return status;
}

static inline int64_t pair_cells_total(const PairCells *list) { return list->cells[0] * list->cells[1] * list->cells[2]; }

/* A run of atoms (slots from..to - 1 of the cell order) in cells next to one another along z, all
 * moved by one image. */
typedef struct {
    int64_t from, to;
    double image[3];
} PairCellsRun;

#define PAIR_CELLS_BATCH 64 /* candidates measured before the pairs among them are visited */
/* Inlined whole into each caller, so that its visitor, known there, is inlined too instead of called
 * through a pointer for every pair. */
#define PAIR_CELLS_INLINE static inline __attribute__((always_inline))

/* Visits the pairs closer than sqrt(cutoff2) between `atom`, wrapped at `at` with lattice shift
 * `at_lattice` (pair_cells_locate), and the run's atoms from slot `from` on, itself left out:
 * distances measured a batch at a time without a branch per candidate (at melt densities about one
 * candidate in seven is a pair, and a branch on each was mispredicted more often than not), then the
 * pairs visited in slot order. Returns the visitor's first non-zero answer, or 0. */
PAIR_CELLS_INLINE int pair_cells_visit_run_at(const PairCells *list, int32_t atom, const double at[3], const double at_lattice[3], int64_t from,
                                          const PairCellsRun *run, double cutoff2, PairVisitor visit, void *context) {
    const double *wrapped = list->wrapped, *lattice = list->lattice;
    double px = at[0] - run->image[0], py = at[1] - run->image[1], pz = at[2] - run->image[2];
    int64_t found[PAIR_CELLS_BATCH];
    for (int64_t batch = from; batch < run->to; batch += PAIR_CELLS_BATCH) {
        int64_t stop = batch + PAIR_CELLS_BATCH < run->to ? batch + PAIR_CELLS_BATCH : run->to;
        int count = 0;
        for (int64_t q = batch; q < stop; q++) {
            double dx = wrapped[3 * q] - px, dy = wrapped[3 * q + 1] - py, dz = wrapped[3 * q + 2] - pz;
            found[count] = q;
            count += dx * dx + dy * dy + dz * dz < cutoff2;
        }
        for (int k = 0; k < count; k++) {
            int64_t q = found[k];
            if (list->atom_at[q] == atom) continue;
            double d[3] = {wrapped[3 * q] - px, wrapped[3 * q + 1] - py, wrapped[3 * q + 2] - pz}, shift[3];
            for (int a = 0; a < 3; a++) shift[a] = lattice[3 * q + a] - at_lattice[a] - run->image[a];
            int status = visit(context, atom, list->atom_at[q], d, d[0] * d[0] + d[1] * d[1] + d[2] * d[2], shift);
            if (status) return status;
        }
    }
    return 0;
}

/* pair_cells_visit_run_at for the atom at slot p. */
PAIR_CELLS_INLINE int pair_cells_visit_run(const PairCells *list, int64_t p, int64_t from, const PairCellsRun *run, double cutoff2,
                                       PairVisitor visit, void *context) {
    return pair_cells_visit_run_at(list, list->atom_at[p], list->wrapped + 3 * p, list->lattice + 3 * p, from, run, cutoff2, visit, context);
}

/* The runs of the neighbours of cell `here` at (dx, dy, dz_low..dz_high) (pair_cells_neighbour, so
 * wrapped across periodic sides and cut at a non-periodic z): cells next to one another with the same
 * image make one run. Returns how many runs were written (at most 3). */
PAIR_CELLS_INLINE int pair_cells_column(const PairCells *list, const int64_t here[3], int dx, int dy, int dz_low, int dz_high,
                                        PairCellsRun runs[3]) {
    int count = 0;
    int64_t last = -2;
    for (int dz = dz_low; dz <= dz_high; dz++) {
        int offset[3] = {dx, dy, dz};
        double image[3];
        int64_t cell = pair_cells_neighbour(list, here, offset, image);
        if (cell < 0) continue;
        PairCellsRun *previous = count ? &runs[count - 1] : NULL;
        if (previous && cell == last + 1 && memcmp(image, previous->image, sizeof(image)) == 0) {
            previous->to = list->cell_start[cell + 1];
        } else {
            runs[count++] = (PairCellsRun){list->cell_start[cell], list->cell_start[cell + 1], {image[0], image[1], image[2]}};
        }
        last = cell;
    }
    return count;
}

/* Visits the pairs closer than sqrt(cutoff2) whose first atom lies in a home cell numbered first to
 * last - 1, comparing each home with itself and the half of its neighbours ahead of it (offsets after
 * (0, 0, 0) in lexicographic order), so that the homes of all ranges together meet every pair once.
 * The neighbours are taken as columns along z (cells (0, 0, 1), then (dx, dy, -1..1) for (dx, dy) =
 * (0, 1), (1, -1), (1, 0), (1, 1)), whose atoms lie next to one another in the cell order: a few long
 * runs instead of thirteen short ones. Returns the visitor's first non-zero answer, or 0. Ranges may
 * be visited at once from several threads. */
PAIR_CELLS_INLINE int pair_cells_visit_homes(const PairCells *list, int64_t first, int64_t last, double cutoff2, PairVisitor visit,
                                         void *context) {
    const int64_t *cells = list->cells;
    static const int columns[4][2] = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};
    if (list->single_cell) { /* the minimum image pair by pair (pair_cells_visit), every neighbour on its own */
        const int *reach = list->reach;
        int status = 0;
        for (int64_t home = first; home < last && !status; home++) {
            int64_t here[3] = {home / (cells[1] * cells[2]), (home / cells[2]) % cells[1], home % cells[2]};
            for (int dx = -reach[0]; dx <= reach[0] && !status; dx++)
                for (int dy = -reach[1]; dy <= reach[1] && !status; dy++)
                    for (int dz = -reach[2]; dz <= reach[2] && !status; dz++) {
                        if (dx < 0 || (dx == 0 && (dy < 0 || (dy == 0 && dz < 0)))) continue; /* the half behind */
                        int offset[3] = {dx, dy, dz};
                        double image[3];
                        int64_t other = pair_cells_neighbour(list, here, offset, image);
                        if (other >= 0) status = pair_cells_visit(list, home, other, image, cutoff2, visit, context);
                    }
        }
        return status;
    }
    for (int64_t home = first; home < last; home++) {
        int64_t here[3] = {home / (cells[1] * cells[2]), (home / cells[2]) % cells[1], home % cells[2]};
        PairCellsRun runs[1 + 1 + 4 * 3];
        int count = 0;
        runs[count++] = (PairCellsRun){list->cell_start[home], list->cell_start[home + 1], {0.0, 0.0, 0.0}}; /* itself */
        count += pair_cells_column(list, here, 0, 0, 1, 1, runs + count);
        for (int c = 0; c < 4; c++) count += pair_cells_column(list, here, columns[c][0], columns[c][1], -1, 1, runs + count);
        for (int64_t p = list->cell_start[home]; p < list->cell_start[home + 1]; p++)
            for (int r = 0; r < count; r++) {
                int status = pair_cells_visit_run(list, p, r == 0 ? p + 1 : runs[r].from, &runs[r], cutoff2, visit, context);
                if (status) return status;
            }
    }
    return 0;
}

/* Visits the atoms closer than sqrt(cutoff2) to atom `atom` at `point` (not itself) in the 27 cells
 * around the point's own, as visit(context, atom, j, d, d2, shift) with d = x[j] - point - shift the
 * minimum image. Not for a single_cell list (whose neighbours repeat). Returns the visitor's first
 * non-zero answer, or 0. */
PAIR_CELLS_INLINE int pair_cells_visit_around(const PairCells *list, int32_t atom, const double point[3], double cutoff2, PairVisitor visit,
                                          void *context) {
    int64_t here[3];
    double wrapped[3], lattice[3];
    pair_cells_locate(list, point, here, wrapped, lattice);
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++) {
            PairCellsRun runs[3];
            int count = pair_cells_column(list, here, dx, dy, -1, 1, runs);
            for (int r = 0; r < count; r++) {
                int status = pair_cells_visit_run_at(list, atom, wrapped, lattice, runs[r].from, &runs[r], cutoff2, visit, context);
                if (status) return status;
            }
        }
    return 0;
}

/* Visits every pair of the n atoms at x (n, 3) closer than `cutoff`; returns 0, the visitor's
 * non-zero answer, or -1 when memory ran out. */
static inline int for_each_close_pair(const double *x, int64_t n, const double box[3], int periodic_z, double cutoff,
                                      PairVisitor visit, void *context) {
    PairCells list = {0};
    pair_cells_frame(&list, x, n, box, periodic_z, cutoff);
    int status = pair_cells_sort(&list, x, n);
    if (!status) status = pair_cells_visit_homes(&list, 0, pair_cells_total(&list), cutoff * cutoff, visit, context);
    pair_cells_free(&list);
    return status;
}

/* Whether `key` is among the sorted `keys`. */
static inline int sorted_contains(const int64_t *keys, int64_t count, int64_t key) {
    int64_t lo = 0, hi = count;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo < count && keys[lo] == key;
}

#endif
