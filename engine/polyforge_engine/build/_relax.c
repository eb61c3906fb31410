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
 * coordinates (molecules are kept whole), repulsion the minimum image. Serial, so a given input always
 * gives the same result. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY 8          /* L-BFGS correction pairs kept */
#define MAX_STEP 0.3       /* largest move of one atom in one line-search trial (Å) */
#define FIRST_STEP 0.05    /* largest move of one atom along the first (steepest-descent) direction */
#define ARMIJO 1e-4        /* sufficient decrease */
#define BACKTRACKS 30      /* halvings of a step before the line search gives up */

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
    int32_t *excluded;
    double inter, intra, push;
    /* walls */
    double wall_k, wall_low, wall_high;
    /* Verlet list: pairs within the largest limit plus the skin at the last build */
    double skin;
    double *built_at;   /* positions at the last build */
    int32_t *near;      /* (near_count, 2) */
    double *near_shift; /* (near_count, 3): x[j] - x[i] - shift is the pair's minimum image */
    size_t near_count, near_capacity;
    int list_valid;
    double list_box[3];
} Relaxer;

/* ---------------------------------------------------------------- buffers from Python objects */

/* Whether a buffer's struct format is one of `accepted` (single letters; native byte order). */
static int format_is(const char *format, const char *accepted) {
    if (format[0] == '@' || format[0] == '=') format++;
    return format[0] != '\0' && format[1] == '\0' && strchr(accepted, format[0]) != NULL;
}

/* A copy of a C-contiguous buffer of `item`-byte values in one of the `formats` (int64: "ql",
 * int32: "i", float64: "d"), with `expected` values unless that is negative. */
static int copy_buffer(PyObject *object, const char *name, const char *formats, size_t item, Py_ssize_t expected, void **out,
                       Py_ssize_t *count) {
    Py_buffer view;
    if (PyObject_GetBuffer(object, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if ((size_t)view.itemsize != item || !format_is(view.format, formats)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous array of %zu-byte values of format '%s'", name, item, formats);
        PyBuffer_Release(&view);
        return -1;
    }
    Py_ssize_t n = view.len / (Py_ssize_t)item;
    if (expected >= 0 && n != expected) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd values, got %zd", name, expected, n);
        PyBuffer_Release(&view);
        return -1;
    }
    void *memory = malloc(n > 0 ? (size_t)n * item : 1);
    if (!memory) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(memory, view.buf, (size_t)n * item);
    PyBuffer_Release(&view);
    *out = memory;
    if (count) *count = n;
    return 0;
}

/* ---------------------------------------------------------------- Verlet list */

/* Adds pair (i, j) with its image shift to the list, growing it as needed. */
static int add_near(Relaxer *self, int32_t i, int32_t j, const double shift[3]) {
    if (self->near_count == self->near_capacity) {
        size_t grown = self->near_capacity * 2 + 1024;
        int32_t *pairs = realloc(self->near, grown * 2 * sizeof(int32_t));
        if (pairs) self->near = pairs;
        double *shifts = pairs ? realloc(self->near_shift, grown * 3 * sizeof(double)) : NULL;
        if (!shifts) {
            PyErr_NoMemory();
            return -1;
        }
        self->near_shift = shifts;
        self->near_capacity = grown;
    }
    size_t at = self->near_count++;
    self->near[2 * at] = i;
    self->near[2 * at + 1] = j;
    memcpy(self->near_shift + 3 * at, shift, 3 * sizeof(double));
    return 0;
}

/* Whether atoms i and j (same molecule) are within three bonds: the larger among the smaller's
 * partners (sorted). */
static int is_excluded(const Relaxer *self, int32_t i, int32_t j) {
    if (j < i) {
        int32_t t = i;
        i = j, j = t;
    }
    const int32_t *partners = self->excluded + self->excluded_start[i];
    int64_t lo = 0, count = self->excluded_start[i + 1] - self->excluded_start[i], hi = count;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (partners[mid] < j) lo = mid + 1; else hi = mid;
    }
    return lo < count && partners[lo] == j;
}

/* Every pair not excluded and closer than the largest limit plus the skin, with the lattice shift that
 * makes x[j] - x[i] - shift its minimum image (molecules are whole, so raw coordinates of two atoms may
 * lie boxes apart). Atoms are sorted into cells at least that distance wide and each cell is compared
 * with itself and the 13 of its 26 neighbours ahead of it, so every pair is met once. Along a periodic
 * axis too short for three such cells, all atoms share one cell and the minimum image is taken. (Cells
 * half as wide with a 5 × 5 × 5 neighbourhood meet fewer pairs, but at melt densities most of them
 * are empty and visiting them cost more than the pairs saved.) */
static int build_list(Relaxer *self, const double *x, const double *box) {
    Py_ssize_t n = self->atoms;
    int periodic_z = !(self->wall_k > 0.0);
    double cutoff = (self->inter > self->intra ? self->inter : self->intra) + self->skin;
    double cutoff2 = cutoff * cutoff;
    double low[3] = {0.0, 0.0, 0.0}, span[3] = {box[0], box[1], box[2]};
    int periodic[3] = {1, 1, periodic_z};
    if (!periodic_z) {
        double zmin = INFINITY, zmax = -INFINITY;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (x[3 * i + 2] < zmin) zmin = x[3 * i + 2];
            if (x[3 * i + 2] > zmax) zmax = x[3 * i + 2];
        }
        low[2] = zmin;
        span[2] = zmax - zmin + 1e-9;
    }
    int64_t cells[3];
    int reach[3]; /* neighbouring cells compared on each side */
    for (int a = 0; a < 3; a++) {
        int64_t whole = (int64_t)floor(span[a] / cutoff);
        if (whole > 1024) whole = 1024;
        if (!periodic[a] || whole >= 3) {
            cells[a] = whole < 1 ? 1 : whole, reach[a] = 1;
        } else {
            cells[a] = 1, reach[a] = 0;
        }
    }
    int64_t cell_total = cells[0] * cells[1] * cells[2];
    size_t atoms = (size_t)(n > 0 ? n : 1);
    double *wrapped = malloc(atoms * 3 * sizeof(double)); /* in cell order, inside the box */
    double *lattice = malloc(atoms * 3 * sizeof(double)); /* in cell order: x - wrapped */
    int32_t *atom_at = malloc(atoms * sizeof(int32_t));   /* atom in each slot of the cell order */
    int64_t *cell_of = malloc(atoms * sizeof(int64_t));
    int64_t *cell_start = calloc((size_t)cell_total + 1, sizeof(int64_t));
    int64_t *fill = malloc((size_t)cell_total * sizeof(int64_t));
    int status = -1;
    if (!wrapped || !lattice || !atom_at || !cell_of || !cell_start || !fill) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
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
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t slot = fill[cell_of[i]]++;
        atom_at[slot] = (int32_t)i;
        for (int a = 0; a < 3; a++) {
            double u = x[3 * i + a] - low[a];
            double turns = periodic[a] ? floor(u / span[a]) : 0.0;
            wrapped[3 * slot + a] = u - turns * span[a];
            lattice[3 * slot + a] = turns * span[a];
        }
    }

    self->near_count = 0;
    for (int64_t cx = 0; cx < cells[0]; cx++)
        for (int64_t cy = 0; cy < cells[1]; cy++)
            for (int64_t cz = 0; cz < cells[2]; cz++) {
                int64_t home = (cx * cells[1] + cy) * cells[2] + cz, here[3] = {cx, cy, cz};
                for (int dx = -reach[0]; dx <= reach[0]; dx++)
                    for (int dy = -reach[1]; dy <= reach[1]; dy++)
                        for (int dz = -reach[2]; dz <= reach[2]; dz++) {
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
                            for (int64_t p = cell_start[home]; p < cell_start[home + 1]; p++) {
                                const double *wp = wrapped + 3 * p;
                                for (int64_t q = same_cell ? p + 1 : cell_start[other]; q < cell_start[other + 1]; q++) {
                                    double d[3], shift[3], d2 = 0.0;
                                    for (int a = 0; a < 3; a++) {
                                        double img = image[a];
                                        d[a] = wrapped[3 * q + a] + img - wp[a];
                                        if (reach[a] == 0) { /* one cell along a periodic axis */
                                            if (d[a] > 0.5 * span[a]) d[a] -= span[a], img -= span[a];
                                            else if (d[a] < -0.5 * span[a]) d[a] += span[a], img += span[a];
                                        }
                                        d2 += d[a] * d[a];
                                        shift[a] = lattice[3 * q + a] - lattice[3 * p + a] - img;
                                    }
                                    if (d2 >= cutoff2) continue;
                                    int32_t i = atom_at[p], j = atom_at[q];
                                    if (self->molecule[i] == self->molecule[j] && is_excluded(self, i, j)) continue;
                                    if (add_near(self, i, j, shift) < 0) goto done;
                                }
                            }
                        }
            }
    memcpy(self->built_at, x, (size_t)n * 3 * sizeof(double));
    memcpy(self->list_box, box, sizeof(self->list_box));
    self->list_valid = 1;
    status = 0;
done:
    free(wrapped), free(lattice), free(atom_at), free(cell_of), free(cell_start), free(fill);
    return status;
}

/* The list still holds every pair within the largest limit while no two atoms together moved more than
 * the skin since it was built (the two that moved most, that is). */
static int ensure_list(Relaxer *self, const double *x, const double *box) {
    if (self->list_valid && memcmp(self->list_box, box, sizeof(self->list_box)) == 0) {
        double most = 0.0, next = 0.0; /* squared displacements */
        for (Py_ssize_t k = 0; k < 3 * self->atoms; k += 3) {
            double dx = x[k] - self->built_at[k], dy = x[k + 1] - self->built_at[k + 1], dz = x[k + 2] - self->built_at[k + 2];
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > next) {
                if (d2 > most) next = most, most = d2;
                else next = d2;
            }
        }
        if (sqrt(most) + sqrt(next) <= self->skin) return 0;
    }
    return build_list(self, x, box);
}

/* ---------------------------------------------------------------- energy and gradient */

static double evaluate(Relaxer *self, const double *x, double *g, double stagger) {
    Py_ssize_t n = self->atoms;
    double energy = 0.0;
    memset(g, 0, (size_t)n * 3 * sizeof(double));

    for (Py_ssize_t p = 0; p < self->pair_count; p++) {
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

    if (stagger != 0.0) {
        for (Py_ssize_t t = 0; t < self->torsion_count; t++) {
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
            double rkj_len = sqrt(rkj2), inv = 1.0 / sqrt(m2 * n2);
            double cos_phi = (m[0] * nn[0] + m[1] * nn[1] + m[2] * nn[2]) * inv;
            /* sin phi with the sign of rij . n (IUPAC convention) */
            double sin_phi = (rij[0] * nn[0] + rij[1] * nn[1] + rij[2] * nn[2]) * rkj_len * inv;
            double k = stagger * self->torsion_k[t];
            double cos3 = cos_phi * (4.0 * cos_phi * cos_phi - 3.0);
            double sin3 = sin_phi * (3.0 - 4.0 * sin_phi * sin_phi);
            energy += k * (1.0 + cos3);
            double dphi = -3.0 * k * sin3; /* dE/dphi */
            /* Gradient of phi (Bekker; Blondel and Karplus 1996). */
            double fi = -dphi * rkj_len / m2, fl = dphi * rkj_len / n2;
            double p = (rij[0] * rkj[0] + rij[1] * rkj[1] + rij[2] * rkj[2]) / rkj2;
            double s = (rkl[0] * rkj[0] + rkl[1] * rkj[1] + rkl[2] * rkj[2]) / rkj2;
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
    }

    double inter2 = self->inter * self->inter, intra2 = self->intra * self->intra;
    for (size_t p = 0; p < self->near_count; p++) {
        int32_t i = self->near[2 * p], j = self->near[2 * p + 1];
        const double *shift = self->near_shift + 3 * p;
        double dx = x[3 * j] - x[3 * i] - shift[0], dy = x[3 * j + 1] - x[3 * i + 1] - shift[1],
               dz = x[3 * j + 2] - x[3 * i + 2] - shift[2];
        double r2 = dx * dx + dy * dy + dz * dz;
        int same = self->molecule[i] == self->molecule[j];
        if (r2 >= (same ? intra2 : inter2)) continue;
        double r = sqrt(r2), limit = same ? self->intra : self->inter;
        double gap = limit - r;
        energy += self->push * gap * gap;
        double f = r > 0 ? -2.0 * self->push * gap / r : 0.0; /* dE/dr / r */
        g[3 * j] += f * dx, g[3 * j + 1] += f * dy, g[3 * j + 2] += f * dz;
        g[3 * i] -= f * dx, g[3 * i + 1] -= f * dy, g[3 * i + 2] -= f * dz;
    }

    if (self->wall_k > 0.0) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double z = x[3 * i + 2];
            if (z < self->wall_low) {
                energy += self->wall_k * (self->wall_low - z) * (self->wall_low - z);
                g[3 * i + 2] -= 2.0 * self->wall_k * (self->wall_low - z);
            } else if (z > self->wall_high) {
                energy += self->wall_k * (z - self->wall_high) * (z - self->wall_high);
                g[3 * i + 2] += 2.0 * self->wall_k * (z - self->wall_high);
            }
        }
    }
    return energy;
}

/* ---------------------------------------------------------------- L-BFGS */

static double dot(const double *a, const double *b, Py_ssize_t n) {
    double sum = 0.0;
    for (Py_ssize_t k = 0; k < n; k++) sum += a[k] * b[k];
    return sum;
}

/* Largest move of one atom along d. */
static double largest_move(const double *d, Py_ssize_t atoms) {
    double worst = 0.0;
    for (Py_ssize_t i = 0; i < atoms; i++) {
        double m2 = d[3 * i] * d[3 * i] + d[3 * i + 1] * d[3 * i + 1] + d[3 * i + 2] * d[3 * i + 2];
        if (m2 > worst) worst = m2;
    }
    return sqrt(worst);
}

/* Minimise from x (updated in place) until the root-mean-square gradient component falls below
 * tolerance or `iterations` iterations have run. Returns the iterations run, or -1 with an exception. */
static Py_ssize_t minimize(Relaxer *self, double *x, const double *box, double stagger, double tolerance,
                           Py_ssize_t iterations, double *energy_out) {
    Py_ssize_t size = 3 * self->atoms;
    double *memory = malloc(((size_t)(2 * HISTORY + 4) * (size_t)size + 1) * sizeof(double));
    if (!memory) {
        PyErr_NoMemory();
        return -1;
    }
    double *s = memory, *y = s + HISTORY * size, *g = y + HISTORY * size, *d = g + size, *trial = d + size, *trial_g = trial + size;
    double rho[HISTORY], alpha[HISTORY];
    int stored = 0, newest = -1;
    Py_ssize_t done = 0;

    if (ensure_list(self, x, box) < 0) goto fail;
    double energy = evaluate(self, x, g, stagger);
    double threshold = tolerance * tolerance * (double)size;
    while (done < iterations && dot(g, g, size) > threshold) {
        /* Direction: -H g by the two-loop recursion; steepest descent while there is no history. */
        for (Py_ssize_t k = 0; k < size; k++) d[k] = -g[k];
        for (int h = 0; h < stored; h++) {
            int at = (newest - h + HISTORY) % HISTORY;
            alpha[at] = rho[at] * dot(s + at * size, d, size);
            for (Py_ssize_t k = 0; k < size; k++) d[k] -= alpha[at] * y[at * size + k];
        }
        double step;
        if (stored > 0) {
            double *yn = y + newest * size;
            double gamma = dot(s + newest * size, yn, size) / dot(yn, yn, size);
            for (Py_ssize_t k = 0; k < size; k++) d[k] *= gamma;
            for (int h = stored - 1; h >= 0; h--) {
                int at = (newest - h + HISTORY) % HISTORY;
                double beta = rho[at] * dot(y + at * size, d, size);
                for (Py_ssize_t k = 0; k < size; k++) d[k] += (alpha[at] - beta) * s[at * size + k];
            }
            step = 1.0;
        } else {
            step = FIRST_STEP / largest_move(d, self->atoms);
        }
        double slope = dot(g, d, size);
        if (slope >= 0.0) { /* not a descent direction: forget the history and go downhill */
            stored = 0;
            for (Py_ssize_t k = 0; k < size; k++) d[k] = -g[k];
            slope = dot(g, d, size);
            step = FIRST_STEP / largest_move(d, self->atoms);
        }
        double move = largest_move(d, self->atoms) * step;
        if (move > MAX_STEP) step *= MAX_STEP / move;

        /* Backtracking line search (sufficient decrease). */
        double trial_energy = energy;
        int accepted = 0;
        for (int b = 0; b < BACKTRACKS; b++) {
            for (Py_ssize_t k = 0; k < size; k++) trial[k] = x[k] + step * d[k];
            if (ensure_list(self, trial, box) < 0) goto fail;
            trial_energy = evaluate(self, trial, trial_g, stagger);
            if (trial_energy <= energy + ARMIJO * step * slope) {
                accepted = 1;
                break;
            }
            step *= 0.5;
        }
        if (!accepted) break; /* no lower energy along this direction: as good as it gets */

        /* History: s = x_new - x, y = g_new - g. */
        int next = (newest + 1) % HISTORY;
        double *sn = s + next * size, *yn = y + next * size;
        for (Py_ssize_t k = 0; k < size; k++) {
            sn[k] = trial[k] - x[k];
            yn[k] = trial_g[k] - g[k];
        }
        double sy = dot(sn, yn, size);
        if (sy > 1e-12) {
            rho[next] = 1.0 / sy;
            newest = next;
            if (stored < HISTORY) stored++;
        } else if (stored == HISTORY) {
            stored--; /* the pair just overwritten in `next` was the oldest kept: it is gone */
        }
        memcpy(x, trial, (size_t)size * sizeof(double));
        memcpy(g, trial_g, (size_t)size * sizeof(double));
        energy = trial_energy;
        done++;
    }
    free(memory);
    *energy_out = energy;
    return done;
fail:
    free(memory);
    return -1;
}

/* ---------------------------------------------------------------- Python type */

static void release(Relaxer *self) {
    void **owned[] = {(void **)&self->pairs, (void **)&self->lengths, (void **)&self->pair_k, (void **)&self->torsions,
                      (void **)&self->torsion_k, (void **)&self->molecule, (void **)&self->excluded_start,
                      (void **)&self->excluded, (void **)&self->built_at, (void **)&self->near, (void **)&self->near_shift};
    for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++) {
        free(*owned[k]);
        *owned[k] = NULL;
    }
    self->list_valid = 0;
}

static void Relaxer_dealloc(Relaxer *self) {
    release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Relaxer_init(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"pairs", "lengths", "pair_k", "torsions", "torsion_k", "molecule", "excluded_start", "excluded",
                               "inter", "intra", "push", "wall_k", "wall_low", "wall_high", "skin", NULL};
    PyObject *pairs, *lengths, *pair_k, *torsions, *torsion_k, *molecule, *excluded_start, *excluded;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOOddddddd", keywords, &pairs, &lengths, &pair_k, &torsions, &torsion_k,
                                     &molecule, &excluded_start, &excluded, &self->inter, &self->intra, &self->push,
                                     &self->wall_k, &self->wall_low, &self->wall_high, &self->skin))
        return -1;
    release(self); /* __init__ called again */
    Py_ssize_t pair_values, torsion_values, atoms, starts;
    if (copy_buffer(molecule, "molecule", "i", 4, -1, (void **)&self->molecule, &atoms) < 0) return -1;
    self->atoms = atoms;
    if (copy_buffer(pairs, "pairs", "ql", 8, -1, (void **)&self->pairs, &pair_values) < 0) return -1;
    if (pair_values % 2) {
        PyErr_SetString(PyExc_ValueError, "pairs: expected (n, 2)");
        return -1;
    }
    self->pair_count = pair_values / 2;
    if (copy_buffer(lengths, "lengths", "d", 8, self->pair_count, (void **)&self->lengths, NULL) < 0) return -1;
    if (copy_buffer(pair_k, "pair_k", "d", 8, self->pair_count, (void **)&self->pair_k, NULL) < 0) return -1;
    if (copy_buffer(torsions, "torsions", "ql", 8, -1, (void **)&self->torsions, &torsion_values) < 0) return -1;
    if (torsion_values % 4) {
        PyErr_SetString(PyExc_ValueError, "torsions: expected (n, 4)");
        return -1;
    }
    self->torsion_count = torsion_values / 4;
    if (copy_buffer(torsion_k, "torsion_k", "d", 8, self->torsion_count, (void **)&self->torsion_k, NULL) < 0) return -1;
    if (copy_buffer(excluded_start, "excluded_start", "ql", 8, atoms + 1, (void **)&self->excluded_start, &starts) < 0) return -1;
    Py_ssize_t excluded_count;
    if (copy_buffer(excluded, "excluded", "i", 4, -1, (void **)&self->excluded, &excluded_count) < 0) return -1;
    if (self->excluded_start[atoms] != excluded_count) {
        PyErr_SetString(PyExc_ValueError, "excluded_start must end at len(excluded)");
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
    self->near_count = 0;
    self->near_capacity = (size_t)atoms * 2 + 1024;
    self->near = malloc(self->near_capacity * 2 * sizeof(int32_t));
    self->near_shift = malloc(self->near_capacity * 3 * sizeof(double));
    if (!self->built_at || !self->near || !self->near_shift) {
        PyErr_NoMemory();
        return -1;
    }
    self->list_valid = 0;
    return 0;
}

static PyObject *Relaxer_minimize(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"positions", "box", "stagger", "tolerance", "iterations", NULL};
    PyObject *positions;
    double box[3], stagger, tolerance;
    Py_ssize_t iterations;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O(ddd)ddn", keywords, &positions, &box[0], &box[1], &box[2], &stagger,
                                     &tolerance, &iterations))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(positions, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (view.itemsize != 8 || !format_is(view.format, "d") || view.len != (Py_ssize_t)(self->atoms * 3 * 8)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "positions: expected a writable C-contiguous float64 array (atoms, 3)");
        return NULL;
    }
    double cutoff = (self->inter > self->intra ? self->inter : self->intra) + self->skin;
    if (box[0] < 2 * cutoff || box[1] < 2 * cutoff || (!(self->wall_k > 0.0) && box[2] < 2 * cutoff)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "box: every periodic side must be at least twice the cutoff");
        return NULL;
    }
    double energy = 0.0;
    Py_ssize_t done;
    done = minimize(self, (double *)view.buf, box, stagger, tolerance, iterations, &energy); /* holds the GIL: it may raise */
    PyBuffer_Release(&view);
    if (done < 0) return NULL;
    return Py_BuildValue("(nd)", done, energy);
}

static PyObject *Relaxer_energy(Relaxer *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"positions", "gradient", "box", "stagger", NULL};
    PyObject *positions, *gradient;
    double box[3], stagger;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO(ddd)d", keywords, &positions, &gradient, &box[0], &box[1], &box[2],
                                     &stagger))
        return NULL;
    Py_buffer xv, gv;
    if (PyObject_GetBuffer(positions, &xv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (PyObject_GetBuffer(gradient, &gv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    Py_ssize_t expected = self->atoms * 3 * 8;
    if (xv.len != expected || gv.len != expected || !format_is(xv.format, "d") || !format_is(gv.format, "d")) {
        PyBuffer_Release(&xv), PyBuffer_Release(&gv);
        PyErr_SetString(PyExc_ValueError, "positions and gradient: expected C-contiguous float64 arrays (atoms, 3)");
        return NULL;
    }
    double energy = NAN;
    if (ensure_list(self, xv.buf, box) == 0) energy = evaluate(self, xv.buf, gv.buf, stagger);
    PyBuffer_Release(&xv), PyBuffer_Release(&gv);
    if (PyErr_Occurred()) return NULL;
    return PyFloat_FromDouble(energy);
}

static PyMethodDef Relaxer_methods[] = {
    {"minimize", (PyCFunction)(void (*)(void))Relaxer_minimize, METH_VARARGS | METH_KEYWORDS,
     "minimize(positions, box, stagger, tolerance, iterations) -> (iterations run, energy): L-BFGS in place "
     "until the root-mean-square gradient component is below tolerance."},
    {"energy", (PyCFunction)(void (*)(void))Relaxer_energy, METH_VARARGS | METH_KEYWORDS,
     "energy(positions, gradient, box, stagger) -> energy; fills gradient (dE/dx)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RelaxerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "polyforge_engine.build._relax.Relaxer",
    .tp_basicsize = sizeof(Relaxer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The relaxation energy of one system (held pairs, staggering torsions, repulsion, walls) and its minimiser.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Relaxer_init,
    .tp_dealloc = (destructor)Relaxer_dealloc,
    .tp_methods = Relaxer_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "polyforge_engine.build._relax",
                                    "Compiled geometric relaxation for dense builds (see _relax.c).", -1, NULL};

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
    return m;
}
