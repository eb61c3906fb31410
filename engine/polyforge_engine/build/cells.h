/* Every pair of atoms closer than a cutoff, found through a cell list: shared by the relaxation's
 * neighbour list (_relax.c) and the measurement of closest contacts (_contacts.c).
 *
 * Atoms are sorted into cells at least the cutoff wide and each cell is compared with itself and the
 * 13 of its 26 neighbours ahead of it, so every pair is met once. Along a periodic axis too short for
 * three such cells all atoms share one cell and the minimum image is taken pair by pair. (Cells half
 * as wide with a 5 × 5 × 5 neighbourhood meet fewer pairs, but at melt densities most of them are
 * empty and visiting them cost more than the pairs saved.) x and y are periodic, z when asked; along
 * a non-periodic z the cells span the atoms. Raw coordinates may lie boxes apart (molecules are kept
 * whole): each pair comes with the lattice shift that makes x[j] - x[i] - shift its minimum image. */

#ifndef POLYFORGE_CELLS_H
#define POLYFORGE_CELLS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Called for every pair within the cutoff with d = x[j] - x[i] - shift (minimum image) and d2 = |d|².
 * A non-zero return stops the search and is returned by for_each_close_pair. */
typedef int (*PairVisitor)(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]);

/* Visits every pair of the n atoms at x (n, 3) closer than `cutoff`; returns 0, the visitor's
 * non-zero answer, or -1 when memory ran out. */
static inline int for_each_close_pair(const double *x, int64_t n, const double box[3], int periodic_z, double cutoff,
                               PairVisitor visit, void *context) {
    double cutoff2 = cutoff * cutoff;
    double low[3] = {0.0, 0.0, 0.0}, span[3] = {box[0], box[1], box[2]};
    int periodic[3] = {1, 1, periodic_z};
    if (!periodic_z) {
        double zmin = INFINITY, zmax = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            if (x[3 * i + 2] < zmin) zmin = x[3 * i + 2];
            if (x[3 * i + 2] > zmax) zmax = x[3 * i + 2];
        }
        low[2] = n > 0 ? zmin : 0.0;
        span[2] = n > 0 ? zmax - zmin + 1e-9 : 1.0;
    }
    /* Cells at least the cutoff wide, and in dilute systems about one atom per cell: a cell per
     * cutoff-wide cube of a large, sparse cell would cost more memory and visits than the atoms. */
    double width = cbrt(span[0] * span[1] * span[2] / (double)(n > 0 ? n : 1));
    if (width < cutoff) width = cutoff;
    int64_t cells[3];
    int reach[3]; /* neighbouring cells compared on each side */
    for (int a = 0; a < 3; a++) {
        int64_t whole = (int64_t)floor(span[a] / width);
        if (whole > 1024) whole = 1024;
        if (!periodic[a] || whole >= 3) {
            cells[a] = whole < 1 ? 1 : whole, reach[a] = 1;
        } else {
            cells[a] = 1, reach[a] = 0;
        }
    }
    int single_cell = reach[0] == 0 || reach[1] == 0 || reach[2] == 0;
    int64_t cell_total = cells[0] * cells[1] * cells[2];
    size_t atoms = (size_t)(n > 0 ? n : 1);
    double *wrapped = malloc(atoms * 3 * sizeof(double)); /* in cell order, inside the box */
    double *lattice = malloc(atoms * 3 * sizeof(double)); /* in cell order: x - wrapped */
    int32_t *atom_at = malloc(atoms * sizeof(int32_t));   /* atom in each slot of the cell order */
    int64_t *cell_of = malloc(atoms * sizeof(int64_t));
    int64_t *cell_start = calloc((size_t)cell_total + 1, sizeof(int64_t));
    int64_t *fill = malloc((size_t)cell_total * sizeof(int64_t));
    int status = -1;
    if (!wrapped || !lattice || !atom_at || !cell_of || !cell_start || !fill) goto done;
    for (int64_t i = 0; i < n; i++) {
        int64_t c[3];
        for (int a = 0; a < 3; a++) {
            double u = x[3 * i + a] - low[a];
            if (periodic[a]) u -= span[a] * floor(u / span[a]);
            int64_t k = (int64_t)floor(u / span[a] * (double)cells[a]);
            c[a] = k < 0 ? 0 : (k >= cells[a] ? cells[a] - 1 : k);
        }
        cell_of[i] = (c[0] * cells[1] + c[1]) * cells[2] + c[2];
        cell_start[cell_of[i] + 1]++;
    }
    for (int64_t c = 0; c < cell_total; c++) cell_start[c + 1] += cell_start[c];
    memcpy(fill, cell_start, (size_t)cell_total * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        int64_t slot = fill[cell_of[i]]++;
        atom_at[slot] = (int32_t)i;
        for (int a = 0; a < 3; a++) {
            double u = x[3 * i + a] - low[a];
            double turns = periodic[a] ? floor(u / span[a]) : 0.0;
            wrapped[3 * slot + a] = u - turns * span[a];
            lattice[3 * slot + a] = turns * span[a];
        }
    }

    status = 0;
    for (int64_t cx = 0; cx < cells[0] && !status; cx++)
        for (int64_t cy = 0; cy < cells[1] && !status; cy++)
            for (int64_t cz = 0; cz < cells[2] && !status; cz++) {
                int64_t home = (cx * cells[1] + cy) * cells[2] + cz, here[3] = {cx, cy, cz};
                for (int dx = -reach[0]; dx <= reach[0] && !status; dx++)
                    for (int dy = -reach[1]; dy <= reach[1] && !status; dy++)
                        for (int dz = -reach[2]; dz <= reach[2] && !status; dz++) {
                            /* the half ahead: offsets after (0, 0, 0) in lexicographic order, and the cell itself */
                            if (dx < 0 || (dx == 0 && (dy < 0 || (dy == 0 && dz < 0)))) continue;
                            int offset[3] = {dx, dy, dz};
                            int64_t there[3];
                            double image[3]; /* added to the neighbour's wrapped coordinates */
                            int outside = 0;
                            for (int a = 0; a < 3; a++) {
                                int64_t k = here[a] + offset[a];
                                image[a] = 0.0;
                                if (k < 0 || k >= cells[a]) {
                                    if (!periodic[a]) outside = 1;
                                    image[a] = k < 0 ? -span[a] : span[a];
                                    k = k < 0 ? k + cells[a] : k - cells[a];
                                }
                                there[a] = k;
                            }
                            if (outside) continue;
                            int64_t other = (there[0] * cells[1] + there[1]) * cells[2] + there[2];
                            int same_cell = other == home;
                            for (int64_t p = cell_start[home]; p < cell_start[home + 1] && !status; p++) {
                                /* the atom at p, moved by the image so that neighbours are compared directly */
                                double px = wrapped[3 * p] - image[0], py = wrapped[3 * p + 1] - image[1],
                                       pz = wrapped[3 * p + 2] - image[2];
                                for (int64_t q = same_cell ? p + 1 : cell_start[other]; q < cell_start[other + 1]; q++) {
                                    double d[3] = {wrapped[3 * q] - px, wrapped[3 * q + 1] - py, wrapped[3 * q + 2] - pz};
                                    double img[3] = {image[0], image[1], image[2]};
                                    if (single_cell) /* one cell along a periodic axis: the minimum image pair by pair */
                                        for (int a = 0; a < 3; a++) {
                                            if (reach[a] != 0) continue;
                                            if (d[a] > 0.5 * span[a]) d[a] -= span[a], img[a] -= span[a];
                                            else if (d[a] < -0.5 * span[a]) d[a] += span[a], img[a] += span[a];
                                        }
                                    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                                    if (d2 >= cutoff2) continue;
                                    double shift[3];
                                    for (int a = 0; a < 3; a++) shift[a] = lattice[3 * q + a] - lattice[3 * p + a] - img[a];
                                    if ((status = visit(context, atom_at[p], atom_at[q], d, d2, shift))) break;
                                }
                            }
                        }
            }
done:
    if (!wrapped || !lattice || !atom_at || !cell_of || !cell_start || !fill) status = -1;
    free(wrapped), free(lattice), free(atom_at), free(cell_of), free(cell_start), free(fill);
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
