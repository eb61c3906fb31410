/* The inner loops of chain growth (growth.py), compiled, over the cell list of cell_grid.py (a table of
 * cell -> atoms, each cell's atoms in its first slots, -1 after them; the last row, always empty,
 * stands for "beyond a wall").
 *
 * acceptable: which candidate placements of a unit keep every distance limit (SystemGrower._assess).
 * For each group (one chain's next unit) the atoms already placed near its centre are gathered once
 * from the cell list, each paired with the limit it keeps from each point of the unit; then every
 * candidate is compared point by point and given up at its first clash. NumPy, which computed every
 * distance of every candidate before looking at any, spent about half of a build's growth there.
 * Limits: an atom of another molecule `inter` Å; one of the same molecule `intra` Å, or none when it
 * is within three bonds of the atom the point stands for (the kind's sorted keys i * atoms + j, i < j)
 * or, given a window w >= 0 and each atom's unit, more than w units away along the chain;
 * look-ahead points (from `ahead_from` on) keep `ahead_room` more. x and y are periodic, z too unless
 * the cell has walls (minimum image); a distance exactly at the limit keeps it.
 *
 * add_around, clashing_newcomers and junction_energy: the crowding counts kept as atoms come and go,
 * the clashes between units placed in the same step, and MMFF's torsion energy about each candidate's
 * junction (CellGrid._add_around, SystemGrower._clashing_newcomers and _junction_energy).
 *
 * probe_energy: the energy of every row of a chain-statistics probe (chain_statistics._log_weights),
 * a row at a time; NumPy spent two thirds of a first build's table time gathering and reducing
 * (rows, terms) arrays. */

#include "buffers.h"
#include "cells.h"

/* Cells along one axis of the block around cell `at` reaching `reach` cells each way, each once. */
static int cells_along(int64_t at, int64_t reach, int64_t size, int periodic, int64_t *out) {
    int count = 0;
    if (periodic && 2 * reach + 1 >= size) {
        for (int64_t k = 0; k < size; k++) out[count++] = k;
        return count;
    }
    for (int64_t d = -reach; d <= reach; d++) {
        int64_t k = at + d;
        if (periodic) k = ((k % size) + size) % size;
        else if (k < 0 || k >= size) continue;
        out[count++] = k;
    }
    return count;
}

/* Per-group scratch of acceptable(): the nearby atoms in local-grid order, coordinates apart (x, y, z
 * relative to the centre, single precision, so that the compiler compares several atoms at once; the
 * building margin covers the rounding), and the squared limit of every (point, atom). */
typedef struct {
    int64_t *cell_of, *start, *fill; /* local cell of each nearby atom; each cell's first atom (+1 end) */
    double *sorted;                  /* (found, 4) in cell order: x, y, z, local atom or -1 */
    float *x, *y, *z, *limits;       /* (found,) each; (points, found) */
    size_t atoms, cells, entries;    /* capacities */
} Scratch;

static int ensure_scratch(Scratch *scratch, size_t atoms, size_t cells, size_t entries) {
    if (atoms > scratch->atoms) {
        free(scratch->cell_of), free(scratch->sorted), free(scratch->x), free(scratch->y), free(scratch->z);
        scratch->cell_of = malloc(atoms * sizeof(int64_t));
        scratch->sorted = malloc(atoms * 4 * sizeof(double));
        scratch->x = malloc(atoms * sizeof(float));
        scratch->y = malloc(atoms * sizeof(float));
        scratch->z = malloc(atoms * sizeof(float));
        scratch->atoms = atoms;
    }
    if (cells > scratch->cells) {
        free(scratch->start), free(scratch->fill);
        scratch->start = malloc((cells + 1) * sizeof(int64_t));
        scratch->fill = malloc(cells * sizeof(int64_t));
        scratch->cells = cells;
    }
    if (entries > scratch->entries) {
        free(scratch->limits);
        scratch->limits = malloc(entries * sizeof(float));
        scratch->entries = entries;
    }
    if (!scratch->cell_of || !scratch->sorted || !scratch->x || !scratch->y || !scratch->z || !scratch->start || !scratch->fill ||
        !scratch->limits) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void free_scratch(Scratch *scratch) {
    free(scratch->cell_of), free(scratch->start), free(scratch->fill), free(scratch->sorted);
    free(scratch->x), free(scratch->y), free(scratch->z), free(scratch->limits);
}

/* Whether a point (relative to the centre) comes closer than its limit to any of the nearby atoms
 * from..to: a loop without branches, which the compiler turns into vector instructions. */
static int clashes_in(const Scratch *scratch, const float *limit, const float point[3], int64_t from, int64_t to) {
    int hit = 0;
    for (int64_t n = from; n < to; n++) {
        float dx = point[0] - scratch->x[n], dy = point[1] - scratch->y[n], dz = point[2] - scratch->z[n];
        hit |= dx * dx + dy * dy + dz * dz < limit[n];
    }
    return hit;
}

/* Cell of the local grid (`local` cells a side of `width`, spanning -reach..reach about the centre)
 * holding a point given relative to the centre; points beyond the grid fall in its edge cells. */
static int64_t local_cell(const double *relative, double reach, double width, int64_t local) {
    int64_t index[3];
    for (int a = 0; a < 3; a++) {
        int64_t k = (int64_t)floor((relative[a] + reach) / width);
        index[a] = k < 0 ? 0 : (k >= local ? local - 1 : k);
    }
    return (index[0] * local + index[1]) * local + index[2];
}

/* What every candidate of one acceptable() call is checked against: the cell list (cell_grid.py), the
 * cell and the distance limits. */
typedef struct {
    const int32_t *cell_atoms, *owner; /* table (cells + 1, slots): each cell's atoms; molecule of each atom */
    const double *stored;              /* positions (atoms, 3) */
    const int64_t *first_atom, *keys;  /* molecule_base; close_pairs, sorted */
    const int32_t *unit;               /* unit of each molecule-local atom, or NULL: every unit in reach */
    Py_ssize_t slots, key_count, atom_count, ahead_from, window;
    long long shape[3];
    double box[3], side[3]; /* side: a cell's width along each axis */
    int periodic[3], small_cell;
    int64_t span[3], *along[3]; /* cells within reach each way; room for the cells along one axis */
    double reach, reach2, inter, intra, ahead_room, widest;
} Check;

/* The atoms within reach of one group's centre (x, y, z relative to it; local atom or -1), kept
 * between groups and grown as needed. */
typedef struct {
    double *entries; /* (found, 4) */
    size_t found, capacity;
} Nearby;

/* Adds the atoms of one cell row (ended by -1) that lie within reach of the centre, as seen from it
 * (nearest image), each with its index in `molecule` or -1.0 for an atom of another molecule. */
static inline int gather_from_cell(const Check *check, Nearby *nearby, const int32_t *row, const double *centre, int64_t molecule) {
    for (Py_ssize_t s = 0; s < check->slots && row[s] >= 0; s++) {
        int32_t atom = row[s];
        double d[3], d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            d[a] = check->stored[3 * atom + a] - centre[a];
            if (check->periodic[a]) d[a] -= check->box[a] * nearbyint(d[a] / check->box[a]);
            d2 += d[a] * d[a];
        }
        if (d2 > check->reach2) continue;
        if (nearby->found == nearby->capacity) {
            double *grown = realloc(nearby->entries, nearby->capacity * 2 * 4 * sizeof(double));
            if (!grown) {
                PyErr_NoMemory();
                return -1;
            }
            nearby->entries = grown;
            nearby->capacity *= 2;
        }
        double *entry = nearby->entries + 4 * nearby->found++;
        entry[0] = d[0], entry[1] = d[1], entry[2] = d[2];
        entry[3] = check->owner[atom] == molecule ? (double)(atom - check->first_atom[molecule]) : -1.0;
    }
    return 0;
}

/* Gathers the atoms within reach of `centre` from the block of cells around the centre's cell. */
static int gather_nearby(const Check *check, Nearby *nearby, const double *centre, int64_t molecule) {
    int64_t counts[3];
    for (int a = 0; a < 3; a++) {
        double u = check->periodic[a] ? centre[a] - check->box[a] * floor(centre[a] / check->box[a]) : centre[a];
        int64_t k = (int64_t)floor(u / check->side[a]);
        int64_t home = k < 0 ? 0 : (k >= check->shape[a] ? check->shape[a] - 1 : k);
        counts[a] = cells_along(home, check->span[a], check->shape[a], check->periodic[a], check->along[a]);
    }
    nearby->found = 0;
    const long long *shape = check->shape;
    for (int64_t p = 0; p < counts[0]; p++)
        for (int64_t q = 0; q < counts[1]; q++)
            for (int64_t r = 0; r < counts[2]; r++) {
                int64_t cell = (check->along[0][p] * shape[1] + check->along[1][q]) * shape[2] + check->along[2][r];
                if (gather_from_cell(check, nearby, check->cell_atoms + cell * check->slots, centre, molecule) < 0) return -1;
            }
    return 0;
}

/* Sorts the `found` nearby atoms into the local grid by cell (a counting sort: scratch->start holds
 * each cell's first atom) and copies their coordinates apart in single precision for clashes_in. */
static void sort_into_local_grid(Scratch *scratch, const double *near, size_t found, double reach, double width, int64_t local) {
    size_t local_cells = (size_t)(local * local * local);
    memset(scratch->start, 0, (local_cells + 1) * sizeof(int64_t));
    for (size_t n = 0; n < found; n++) {
        scratch->cell_of[n] = local_cell(near + 4 * n, reach, width, local);
        scratch->start[scratch->cell_of[n] + 1]++;
    }
    for (size_t c = 0; c < local_cells; c++) scratch->start[c + 1] += scratch->start[c];
    memcpy(scratch->fill, scratch->start, local_cells * sizeof(int64_t));
    for (size_t n = 0; n < found; n++) memcpy(scratch->sorted + 4 * scratch->fill[scratch->cell_of[n]]++, near + 4 * n, 4 * sizeof(double));
    const double *atoms_near = scratch->sorted;
    for (size_t n = 0; n < found; n++)
        scratch->x[n] = (float)atoms_near[4 * n], scratch->y[n] = (float)atoms_near[4 * n + 1], scratch->z[n] = (float)atoms_near[4 * n + 2];
}

/* Whether two atoms of one molecule are more than the window's units apart along the chain. */
static inline int beyond_window(const Check *check, int64_t a, int64_t b) {
    if (!check->unit) return 0;
    int64_t apart = (int64_t)check->unit[a] - (int64_t)check->unit[b];
    return (apart < 0 ? -apart : apart) > check->window;
}

/* Squared limit of every (point, nearby atom) into scratch->limits: inter for another molecule's atom,
 * intra for one of the same molecule or 0 where the two are within three bonds or beyond the window
 * apart; look-ahead points
 * (from ahead_from on) ahead_room more. point_atom: the atom each point stands for. */
static void fill_limits(const Check *check, Scratch *scratch, size_t found, const int64_t *point_atom, Py_ssize_t points) {
    const double *atoms_near = scratch->sorted;
    for (Py_ssize_t p = 0; p < points; p++) {
        double extra = p >= check->ahead_from ? check->ahead_room : 0.0;
        int64_t own = point_atom[p];
        for (size_t n = 0; n < found; n++) {
            double limit;
            if (atoms_near[4 * n + 3] < 0) {
                limit = check->inter + extra;
            } else {
                int64_t other = (int64_t)atoms_near[4 * n + 3];
                int64_t key = own < other ? own * check->atom_count + other : other * check->atom_count + own;
                limit = beyond_window(check, own, other) || sorted_contains(check->keys, check->key_count, key) ? 0.0 : check->intra + extra;
            }
            scratch->limits[p * found + n] = (float)(limit * limit);
        }
    }
}

/* Whether a point (relative to the centre) clashes with a nearby atom pair by pair through the
 * minimum image: in a cell narrower than twice the reach the image nearest the centre need not be
 * the one nearest the point. */
static inline int clashes_through_images(const Check *check, const double *atoms_near, const float *limit, const double point[3],
                                         size_t found) {
    for (size_t n = 0; n < found; n++) {
        double d[3] = {point[0] - atoms_near[4 * n], point[1] - atoms_near[4 * n + 1], point[2] - atoms_near[4 * n + 2]};
        for (int a = 0; a < 3; a++)
            if (check->periodic[a]) d[a] -= check->box[a] * nearbyint(d[a] / check->box[a]);
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < limit[n]) return 1;
    }
    return 0;
}

/* Whether a point (relative to the centre) clashes with an atom of the 27 local cells around its own:
 * nine runs of up to three cells adjacent in z. */
static inline int clashes_in_cells_around(const Scratch *scratch, const float *limit, const double point[3], double reach, double width,
                                          int64_t local) {
    float single[3] = {(float)point[0], (float)point[1], (float)point[2]};
    int64_t at = local_cell(point, reach, width, local), ci[3] = {at / (local * local), (at / local) % local, at % local};
    int64_t low = ci[2] > 0 ? ci[2] - 1 : 0, high = ci[2] + 1 < local ? ci[2] + 1 : local - 1;
    for (int64_t x = ci[0] - 1; x <= ci[0] + 1; x++)
        for (int64_t y = ci[1] - 1; y <= ci[1] + 1; y++) {
            if (x < 0 || y < 0 || x >= local || y >= local) continue;
            int64_t row = (x * local + y) * local;
            if (clashes_in(scratch, limit, single, scratch->start[row + low], scratch->start[row + high + 1])) return 1;
        }
    return 0;
}

/* Whether any point of one candidate (points, 3) comes closer than its limit to a nearby atom; the
 * points in order, given up at the first clash. */
static inline int candidate_clashes(const Check *check, const Scratch *scratch, const double *candidate, const double *centre,
                                    Py_ssize_t points, size_t found, double width, int64_t local) {
    for (Py_ssize_t p = 0; p < points; p++) {
        double point[3] = {candidate[3 * p] - centre[0], candidate[3 * p + 1] - centre[1], candidate[3 * p + 2] - centre[2]};
        const float *limit = scratch->limits + p * found;
        if (check->small_cell ? clashes_through_images(check, scratch->sorted, limit, point, found)
                              : clashes_in_cells_around(scratch, limit, point, check->reach, width, local))
            return 1;
    }
    return 0;
}

/* One group: clears keep[m] (of `options`) for each candidate m (options, points, 3) still kept that
 * clashes. The nearby atoms are gathered once and sorted into a local grid around the centre, cells
 * as wide as the largest limit, so that each point is compared only with the atoms of the 27 cells
 * around it (in a cell too small for that, with every atom). Returns -1 with an exception. */
static int check_group(const Check *check, Scratch *scratch, Nearby *nearby, char *keep, const double *candidates, const double *centre,
                       int64_t molecule, const int64_t *point_atom, Py_ssize_t options, Py_ssize_t points) {
    int any = 0;
    for (Py_ssize_t m = 0; m < options; m++) any |= keep[m];
    if (!any) return 0;
    if (gather_nearby(check, nearby, centre, molecule) < 0) return -1;
    size_t found = nearby->found;
    if (found == 0) return 0;
    int64_t local = check->small_cell ? 1 : (int64_t)floor(2.0 * check->reach / check->widest);
    if (local < 1) local = 1;
    double width = 2.0 * check->reach / (double)local;
    if (ensure_scratch(scratch, found, (size_t)(local * local * local), (size_t)points * found) < 0) return -1;
    sort_into_local_grid(scratch, nearby->entries, found, check->reach, width, local);
    fill_limits(check, scratch, found, point_atom, points);
    for (Py_ssize_t m = 0; m < options; m++)
        if (keep[m] && candidate_clashes(check, scratch, candidates + m * points * 3, centre, points, found, width, local)) keep[m] = 0;
    return 0;
}

/* The derived figures of a Check and its room for the cells along each axis (freed by the caller). */
static int prepare_check(Check *check, int periodic_z) {
    check->periodic[0] = 1, check->periodic[1] = 1, check->periodic[2] = periodic_z;
    double reach = check->reach, *box = check->box;
    check->small_cell = box[0] < 2 * reach || box[1] < 2 * reach || (periodic_z && box[2] < 2 * reach);
    check->widest = (check->inter > check->intra ? check->inter : check->intra) + check->ahead_room; /* the largest limit of any point */
    check->reach2 = reach * reach;
    for (int a = 0; a < 3; a++) {
        check->side[a] = box[a] / (double)check->shape[a];
        check->span[a] = (int64_t)ceil(reach / check->side[a]);
        check->along[a] = malloc((size_t)(2 * check->span[a] + 1 + check->shape[a]) * sizeof(int64_t));
        if (!check->along[a]) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

static PyObject *acceptable(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"out", "candidates", "centres", "reach", "molecules", "checked", "ahead_from", "ahead_room",
                               "molecule_base", "close_pairs", "atom_count", "inter", "intra", "table", "positions",
                               "molecule_of", "shape", "box", "periodic_z", "unit", "window", NULL};
    PyObject *out_o, *candidates_o, *centres_o, *molecules_o, *checked_o, *base_o, *close_o, *table_o, *positions_o, *molecule_of_o;
    PyObject *unit_o = Py_None;
    Check check = {0};
    long long *shape = check.shape;
    int periodic_z;
    check.window = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOdOOndOOnddOOO(LLL)(ddd)p|On", keywords, &out_o, &candidates_o, &centres_o,
                                     &check.reach, &molecules_o, &checked_o, &check.ahead_from, &check.ahead_room, &base_o, &close_o,
                                     &check.atom_count, &check.inter, &check.intra, &table_o, &positions_o, &molecule_of_o, &shape[0],
                                     &shape[1], &shape[2], &check.box[0], &check.box[1], &check.box[2], &periodic_z, &unit_o,
                                     &check.window))
        return NULL;
    Buffer out = {0}, candidates = {0}, centres = {0}, molecules = {0}, checked = {0}, base = {0}, close = {0}, table = {0},
           positions = {0}, molecule_of = {0}, unit = {0};
    Nearby nearby = {NULL, 0, 256};
    Scratch scratch = {0};
    PyObject *result = NULL;
    if (open_buffer(out_o, "out", "?", 1, 2, 1, &out) < 0 || open_buffer(candidates_o, "candidates", "d", 8, 4, 0, &candidates) < 0 ||
        open_buffer(centres_o, "centres", "d", 8, 2, 0, &centres) < 0 ||
        open_buffer(molecules_o, "molecules", "ql", 8, 1, 0, &molecules) < 0 ||
        open_buffer(checked_o, "checked", "ql", 8, 2, 0, &checked) < 0 ||
        open_buffer(base_o, "molecule_base", "ql", 8, 1, 0, &base) < 0 ||
        open_buffer(close_o, "close_pairs", "ql", 8, 1, 0, &close) < 0 || open_buffer(table_o, "table", "i", 4, 2, 0, &table) < 0 ||
        open_buffer(positions_o, "positions", "d", 8, 2, 0, &positions) < 0 ||
        open_buffer(molecule_of_o, "molecule_of", "i", 4, 1, 0, &molecule_of) < 0 ||
        (check.window >= 0 && open_buffer(unit_o, "unit", "i", 4, 1, 0, &unit) < 0))
        goto done;
    if (check.window >= 0 && unit.view.shape[0] != check.atom_count) {
        PyErr_SetString(PyExc_ValueError, "acceptable: unit must hold one entry per atom of the molecule");
        goto done;
    }
    Py_ssize_t groups = candidates.view.shape[0], options = candidates.view.shape[1], points = candidates.view.shape[2];
    if (candidates.view.shape[3] != 3 || out.view.shape[0] != groups || out.view.shape[1] != options ||
        centres.view.shape[0] != groups || centres.view.shape[1] != 3 || molecules.view.shape[0] != groups ||
        checked.view.shape[0] != groups || checked.view.shape[1] != points || positions.view.shape[1] != 3 ||
        molecule_of.view.shape[0] != positions.view.shape[0] || table.view.shape[0] != shape[0] * shape[1] * shape[2] + 1) {
        PyErr_SetString(PyExc_ValueError, "acceptable: array shapes do not agree");
        goto done;
    }
    check.cell_atoms = table.view.buf, check.owner = molecule_of.view.buf, check.stored = positions.view.buf;
    check.first_atom = base.view.buf, check.keys = close.view.buf;
    check.unit = check.window >= 0 ? unit.view.buf : NULL;
    check.slots = table.view.shape[1], check.key_count = close.view.shape[0];
    if (prepare_check(&check, periodic_z) < 0) goto done;
    nearby.entries = malloc(nearby.capacity * 4 * sizeof(double));
    if (!nearby.entries) {
        PyErr_NoMemory();
        goto done;
    }
    char *keep = out.view.buf;
    const double *xyz = candidates.view.buf, *centre_of = centres.view.buf;
    const int64_t *molecule = molecules.view.buf, *point_atom = checked.view.buf;
    for (Py_ssize_t g = 0; g < groups; g++)
        if (check_group(&check, &scratch, &nearby, keep + g * options, xyz + g * options * points * 3, centre_of + 3 * g, molecule[g],
                        point_atom + g * points, options, points) < 0)
            goto done;
    result = Py_NewRef(Py_None);
done:
    for (int a = 0; a < 3; a++) free(check.along[a]);
    free(nearby.entries);
    free_scratch(&scratch);
    Buffer *all[] = {&out, &candidates, &centres, &molecules, &checked, &base, &close, &table, &positions, &molecule_of, &unit};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) close_buffer(all[k]);
    return result;
}

/* The 27 cells around cell `c` (with repeats where an axis has fewer than three cells, and the empty
 * row for cells beyond a wall), as cell_grid.py counts crowding. */
static void neighbour_cells(int64_t c, const long long shape[3], int periodic_z, int64_t empty, int64_t out[27]) {
    int64_t ci[3] = {c / (shape[1] * shape[2]), (c / shape[2]) % shape[1], c % shape[2]};
    int n = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                int64_t x = ((ci[0] + dx) % shape[0] + shape[0]) % shape[0], y = ((ci[1] + dy) % shape[1] + shape[1]) % shape[1];
                int64_t z = ci[2] + dz;
                if (periodic_z) z = (z % shape[2] + shape[2]) % shape[2];
                out[n++] = (!periodic_z && (z < 0 || z >= shape[2])) ? empty : (x * shape[1] + y) * shape[2] + z;
            }
}

/* add_around: the crowding counts (atoms in the 27 cells around each cell) as atoms come and go. */
static PyObject *add_around(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *around_o, *cells_o;
    long long shape[3];
    int periodic_z, amount;
    if (!PyArg_ParseTuple(args, "OO(LLL)pi", &around_o, &cells_o, &shape[0], &shape[1], &shape[2], &periodic_z, &amount)) return NULL;
    Buffer around = {0}, cells = {0};
    PyObject *result = NULL;
    if (open_buffer(around_o, "around", "i", 4, 1, 1, &around) == 0 && open_buffer(cells_o, "cells", "ql", 8, 1, 0, &cells) == 0) {
        int64_t empty = shape[0] * shape[1] * shape[2], neighbours[27];
        int32_t *counts = around.view.buf;
        const int64_t *cell = cells.view.buf;
        if (around.view.shape[0] != empty + 1) {
            PyErr_SetString(PyExc_ValueError, "around: one count per cell and one for the empty row");
        } else {
            for (Py_ssize_t i = 0; i < cells.view.shape[0]; i++) {
                neighbour_cells(cell[i], shape, periodic_z, empty, neighbours);
                for (int k = 0; k < 27; k++) counts[neighbours[k]] += amount;
            }
            result = Py_NewRef(Py_None);
        }
    }
    close_buffer(&around), close_buffer(&cells);
    return result;
}

static int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* clashing_newcomers: units placed in one step were each checked against what was there before, not
 * against one another; marks the rows of `atoms` (units, atoms per unit; all stored) whose unit comes
 * closer than `inter` to another row's unit of an earlier molecule (the earlier one keeps its place). */
static PyObject *clashing_newcomers(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *out_o, *atoms_o, *table_o, *positions_o, *molecule_o, *cell_of_o;
    long long shape[3];
    double box[3], inter;
    int periodic_z;
    if (!PyArg_ParseTuple(args, "OOOOOO(LLL)(ddd)pd", &out_o, &atoms_o, &table_o, &positions_o, &molecule_o, &cell_of_o, &shape[0],
                          &shape[1], &shape[2], &box[0], &box[1], &box[2], &periodic_z, &inter))
        return NULL;
    Buffer out = {0}, atoms = {0}, table = {0}, positions = {0}, molecule = {0}, cell_of = {0};
    int64_t *sorted = NULL;
    PyObject *result = NULL;
    if (open_buffer(out_o, "out", "?", 1, 1, 1, &out) < 0 || open_buffer(atoms_o, "atoms", "ql", 8, 2, 0, &atoms) < 0 ||
        open_buffer(table_o, "table", "i", 4, 2, 0, &table) < 0 || open_buffer(positions_o, "positions", "d", 8, 2, 0, &positions) < 0 ||
        open_buffer(molecule_o, "molecule", "i", 4, 1, 0, &molecule) < 0 || open_buffer(cell_of_o, "cell_of", "ql", 8, 1, 0, &cell_of) < 0)
        goto done;
    Py_ssize_t rows = atoms.view.shape[0], per_row = atoms.view.shape[1], count = rows * per_row, slots = table.view.shape[1];
    int64_t empty = shape[0] * shape[1] * shape[2];
    if (out.view.shape[0] != rows || table.view.shape[0] != empty + 1) {
        PyErr_SetString(PyExc_ValueError, "clashing_newcomers: array shapes do not agree");
        goto done;
    }
    const int64_t *new_atoms = atoms.view.buf, *cell = cell_of.view.buf;
    const int32_t *rows_of_cells = table.view.buf, *owner = molecule.view.buf;
    const double *xyz = positions.view.buf;
    char *clashing = out.view.buf;
    if (!(sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof(int64_t)))) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(sorted, new_atoms, (size_t)count * sizeof(int64_t));
    qsort(sorted, (size_t)count, sizeof(int64_t), compare_int64);
    int periodic[3] = {1, 1, periodic_z};
    double inter2 = inter * inter;
    for (Py_ssize_t r = 0; r < rows; r++) {
        clashing[r] = 0;
        for (Py_ssize_t a = 0; a < per_row && !clashing[r]; a++) {
            int64_t mine = new_atoms[r * per_row + a], neighbours[27];
            neighbour_cells(cell[mine], shape, periodic_z, empty, neighbours);
            for (int k = 0; k < 27 && !clashing[r]; k++) {
                const int32_t *stored = rows_of_cells + neighbours[k] * slots;
                for (Py_ssize_t s = 0; s < slots && stored[s] >= 0; s++) {
                    int32_t other = stored[s];
                    if (owner[other] >= owner[mine] || !sorted_contains(sorted, count, other)) continue;
                    double d2 = 0.0;
                    for (int c = 0; c < 3; c++) {
                        double d = xyz[3 * other + c] - xyz[3 * mine + c];
                        if (periodic[c]) d -= box[c] * nearbyint(d / box[c]);
                        d2 += d * d;
                    }
                    if (d2 < inter2) {
                        clashing[r] = 1;
                        break;
                    }
                }
            }
        }
    }
    result = Py_NewRef(Py_None);
done:
    free(sorted);
    close_buffer(&out), close_buffer(&atoms), close_buffer(&table), close_buffer(&positions), close_buffer(&molecule);
    close_buffer(&cell_of);
    return result;
}

#define MOST_PARTNERS 16 /* neighbours of one atom, more than any has */

/* MMFF's torsion energy at cos φ = c, terms t = V1, V2, V3: 1/2 [V1 (1 + cos φ) + V2 (1 - cos 2φ) + V3 (1 + cos 3φ)]. */
static inline double mmff_torsion(double c, const double *t) {
    return 0.5 * (t[0] * (1 + c) + t[1] * 2 * (1 - c * c) + t[2] * (1 + c * (4 * c * c - 3)));
}

/* `v` (3) made perpendicular to the unit `axis` and normalised; 0 where it lies along the axis. */
static void across(const double *v, const double *axis, double *out) {
    double along = v[0] * axis[0] + v[1] * axis[1] + v[2] * axis[2], length = 0.0;
    for (int c = 0; c < 3; c++) {
        out[c] = v[c] - along * axis[c];
        length += out[c] * out[c];
    }
    length = sqrt(length);
    for (int c = 0; c < 3; c++) out[c] /= length > 1e-9 ? length : 1e-9;
}

/* junction_energy: MMFF's torsion energy about each candidate's junction bond (SystemGrower._junction_energy). */
static PyObject *junction_energy(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &objects[7]))
        return NULL;
    Buffer out = {0}, candidates = {0}, ends = {0}, partners = {0}, anchor = {0}, joint = {0}, direction = {0}, terms = {0};
    PyObject *result = NULL;
    if (open_buffer(objects[0], "out", "d", 8, 2, 1, &out) < 0 || open_buffer(objects[1], "candidates", "d", 8, 4, 0, &candidates) < 0 ||
        open_buffer(objects[2], "ends", "ql", 8, 2, 0, &ends) < 0 || open_buffer(objects[3], "partners", "d", 8, 3, 0, &partners) < 0 ||
        open_buffer(objects[4], "anchor", "d", 8, 2, 0, &anchor) < 0 || open_buffer(objects[5], "joint", "d", 8, 2, 0, &joint) < 0 ||
        open_buffer(objects[6], "direction", "d", 8, 2, 0, &direction) < 0 || open_buffer(objects[7], "terms", "d", 8, 4, 0, &terms) < 0)
        goto done;
    Py_ssize_t groups = candidates.view.shape[0], options = candidates.view.shape[1], points = candidates.view.shape[2];
    Py_ssize_t seen = partners.view.shape[1], end_count = ends.view.shape[1];
    if (out.view.shape[0] != groups || out.view.shape[1] != options || ends.view.shape[0] != groups || partners.view.shape[0] != groups ||
        terms.view.shape[0] != groups || terms.view.shape[1] != seen || terms.view.shape[2] != end_count || terms.view.shape[3] != 3 ||
        seen > MOST_PARTNERS) {
        PyErr_SetString(PyExc_ValueError, "junction_energy: array shapes do not agree (or more partners than an atom has)");
        goto done;
    }
    double *energy = out.view.buf;
    const double *xyz = candidates.view.buf, *partner_xyz = partners.view.buf, *v = terms.view.buf;
    const int64_t *end_points = ends.view.buf;
    for (Py_ssize_t g = 0; g < groups; g++) {
        const double *axis = (const double *)direction.view.buf + 3 * g, *from = (const double *)anchor.view.buf + 3 * g;
        const double *to = (const double *)joint.view.buf + 3 * g;
        double seen_across[MOST_PARTNERS][3]; /* the placed partners of the parent's anchor */
        for (Py_ssize_t p = 0; p < seen; p++) {
            double bond[3];
            for (int c = 0; c < 3; c++) bond[c] = partner_xyz[(g * seen + p) * 3 + c] - from[c];
            across(bond, axis, seen_across[p]);
        }
        for (Py_ssize_t m = 0; m < options; m++) {
            double sum = 0.0;
            for (Py_ssize_t e = 0; e < end_count; e++) {
                const double *point = xyz + ((g * options + m) * points + end_points[g * end_count + e]) * 3;
                double bond[3], end_across[3];
                for (int c = 0; c < 3; c++) bond[c] = point[c] - to[c];
                across(bond, axis, end_across);
                for (Py_ssize_t p = 0; p < seen; p++) {
                    const double *t = v + ((g * seen + p) * end_count + e) * 3;
                    double c = end_across[0] * seen_across[p][0] + end_across[1] * seen_across[p][1] + end_across[2] * seen_across[p][2];
                    sum += mmff_torsion(c, t);
                }
            }
            energy[g * options + m] = sum;
        }
    }
    result = Py_NewRef(Py_None);
done:
    close_buffer(&out), close_buffer(&candidates), close_buffer(&ends), close_buffer(&partners), close_buffer(&anchor);
    close_buffer(&joint), close_buffer(&direction), close_buffer(&terms);
    return result;
}

/* cos φ of the dihedral a-b-c-d (1 where a normal vanishes: a collinear triple has no torsion). */
static inline double cos_dihedral(const double *a, const double *b, const double *c, const double *d) {
    double u[3], v[3], w[3], n1[3], n2[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - b[k], w[k] = d[k] - c[k];
    n1[0] = u[1] * v[2] - u[2] * v[1], n1[1] = u[2] * v[0] - u[0] * v[2], n1[2] = u[0] * v[1] - u[1] * v[0];
    n2[0] = v[1] * w[2] - v[2] * w[1], n2[1] = v[2] * w[0] - v[0] * w[2], n2[2] = v[0] * w[1] - v[1] * w[0];
    double dot = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
    double norms = sqrt((n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]) * (n2[0] * n2[0] + n2[1] * n2[1] + n2[2] * n2[2]));
    return dot / (norms > 1e-12 ? norms : 1e-12);
}

/* MMFF's buffered 14-7 van der Waals energy at distance r, plus the buffered Coulomb energy
 * coulomb * qq / (r + buffer); t = R*, epsilon, qq. */
static inline double mmff_pair(double r, const double *t, double coulomb, double buffer) {
    double rho = r / t[0], rho2 = rho * rho, rho7 = rho2 * rho2 * rho2 * rho;
    double near = 1.07 / (rho + 0.07), near2 = near * near, near7 = near2 * near2 * near2 * near;
    return t[1] * near7 * (1.12 / (rho7 + 0.12) - 2.0) + coulomb * t[2] / (r + buffer);
}

/* probe_energy: the force-field energy of every row of a chain-statistics probe (chain_statistics._log_weights). */
static PyObject *probe_energy(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[6];
    double coulomb, buffer;
    if (!PyArg_ParseTuple(args, "OOOOOOdd", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4], &objects[5], &coulomb, &buffer))
        return NULL;
    Buffer out = {0}, xyz = {0}, dihedrals = {0}, torsion_terms = {0}, pairs = {0}, pair_terms = {0};
    PyObject *result = NULL;
    if (open_buffer(objects[0], "out", "d", 8, 1, 1, &out) < 0 || open_buffer(objects[1], "xyz", "d", 8, 3, 0, &xyz) < 0 ||
        open_buffer(objects[2], "dihedrals", "ql", 8, 2, 0, &dihedrals) < 0 ||
        open_buffer(objects[3], "torsion_terms", "d", 8, 2, 0, &torsion_terms) < 0 || open_buffer(objects[4], "pairs", "ql", 8, 2, 0, &pairs) < 0 ||
        open_buffer(objects[5], "pair_terms", "d", 8, 2, 0, &pair_terms) < 0)
        goto done;
    Py_ssize_t rows = xyz.view.shape[0], atoms = xyz.view.shape[1], n = dihedrals.view.shape[0], p = pairs.view.shape[0];
    if (out.view.shape[0] != rows || xyz.view.shape[2] != 3 || dihedrals.view.shape[1] != 4 || torsion_terms.view.shape[0] != n ||
        torsion_terms.view.shape[1] != 3 || pairs.view.shape[1] != 2 || pair_terms.view.shape[0] != p || pair_terms.view.shape[1] != 3) {
        PyErr_SetString(PyExc_ValueError, "probe_energy: array shapes do not agree");
        goto done;
    }
    const int64_t *quadruples = dihedrals.view.buf, *couples = pairs.view.buf;
    for (Py_ssize_t i = 0; i < 4 * n + 2 * p; i++) {
        int64_t atom = i < 4 * n ? quadruples[i] : couples[i - 4 * n];
        if (atom < 0 || atom >= atoms) {
            PyErr_SetString(PyExc_IndexError, "probe_energy: an atom index is outside xyz");
            goto done;
        }
    }
    const double *v = torsion_terms.view.buf, *t = pair_terms.view.buf;
    double *energy = out.view.buf;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t row = 0; row < rows; row++) {
        const double *x = (const double *)xyz.view.buf + row * atoms * 3;
        double sum = 0.0;
        for (Py_ssize_t q = 0; q < n; q++) {
            const int64_t *d = quadruples + 4 * q;
            sum += mmff_torsion(cos_dihedral(x + 3 * d[0], x + 3 * d[1], x + 3 * d[2], x + 3 * d[3]), v + 3 * q);
        }
        for (Py_ssize_t k = 0; k < p; k++) {
            const double *a = x + 3 * couples[2 * k], *b = x + 3 * couples[2 * k + 1];
            double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            sum += mmff_pair(sqrt(dx * dx + dy * dy + dz * dz), t + 3 * k, coulomb, buffer);
        }
        energy[row] = sum;
    }
    Py_END_ALLOW_THREADS;
    result = Py_NewRef(Py_None);
done:
    close_buffer(&out), close_buffer(&xyz), close_buffer(&dihedrals), close_buffer(&torsion_terms), close_buffer(&pairs);
    close_buffer(&pair_terms);
    return result;
}

static PyMethodDef methods[] = {
    {"acceptable", (PyCFunction)(void (*)(void))acceptable, METH_VARARGS | METH_KEYWORDS,
     "acceptable(out, candidates, centres, reach, molecules, checked, ahead_from, ahead_room, molecule_base, close_pairs, "
     "atom_count, inter, intra, table, positions, molecule_of, shape, box, periodic_z, unit=None, window=-1): clears out[g, m] (bool, groups x "
     "options) for every candidate (groups, options, points, 3) that comes closer than its limit to an atom stored in the "
     "cell list (table, positions, molecule_of of cell_grid.CellGrid) within `reach` of its group's centre."},
    {"add_around", add_around, METH_VARARGS,
     "add_around(around, cells, shape, periodic_z, amount): adds `amount` to the count of each of the 27 cells around each "
     "given cell (repeats counted)."},
    {"junction_energy", junction_energy, METH_VARARGS,
     "junction_energy(out, candidates, ends, partners, anchor, joint, direction, terms): out[g, m] (float64) the MMFF "
     "torsion energy (kcal/mol) about the junction of candidate m of group g: the parent's anchor at anchor[g] with its placed "
     "neighbours partners[g] (p, 3), the unit's anchor at joint[g] along the unit direction[g], its bonded points "
     "candidates[g, m, ends[g]], terms[g] (p, e, 3) V1, V2, V3 of each dihedral."},
    {"clashing_newcomers", clashing_newcomers, METH_VARARGS,
     "clashing_newcomers(out, atoms, table, positions, molecule, cell_of, shape, box, periodic_z, inter): out[r] (bool) "
     "whether row r of atoms (units placed in one step, all stored) comes closer than inter to a unit of an earlier "
     "molecule among them."},
    {"probe_energy", probe_energy, METH_VARARGS,
     "probe_energy(out, xyz, dihedrals, torsion_terms, pairs, pair_terms, coulomb, buffer): out[r] (float64) the energy "
     "(kcal/mol) of row r of xyz (rows, atoms, 3): MMFF torsions of `dihedrals` (n, 4 atoms) with torsion_terms (n, 3: V1, V2, "
     "V3), and over `pairs` (p, 2 atoms) MMFF's buffered 14-7 van der Waals plus coulomb * qq / (r + buffer), pair_terms "
     "(p, 3: R*, epsilon, qq)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "polyforge_engine.construct._growth",
    .m_doc = "Compiled inner loops of chain growth (see _growth.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__growth(void) { return PyModule_Create(&module); }
