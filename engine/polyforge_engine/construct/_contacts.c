/* The closest contacts of a built system, compiled: the smallest distance between atoms of different
 * molecules and between atoms of one molecule more than three bonds apart, over every pair closer
 * than a search distance (cells.h). What report.json states and what a dense build is relaxed until.
 * Also the pairs of points of two sets closer than a distance (ring centres and bond midpoints, for
 * the ring-piercing check in rings.py). */

#include "buffers.h"
#include "cells.h"

typedef struct {
    const int32_t *molecule_of;     /* (atoms,) */
    const int64_t *molecule_base;   /* (molecules,) first atom */
    const int64_t *molecule_kind;   /* (molecules,) */
    const int64_t *kind_size;       /* (kinds,) atoms per molecule */
    const int64_t *key_start;       /* (kinds + 1,) each kind's slice of keys */
    const int64_t *keys;            /* per kind, sorted i * size + j (i < j) of pairs within three bonds */
    double inter2, intra2;          /* smallest squared distances so far */
} Closest;

static int closer(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]) {
    (void)d, (void)shift;
    Closest *c = context;
    int32_t molecule = c->molecule_of[i];
    if (molecule != c->molecule_of[j]) {
        if (d2 < c->inter2) c->inter2 = d2;
        return 0;
    }
    if (d2 >= c->intra2) return 0;
    int64_t kind = c->molecule_kind[molecule], size = c->kind_size[kind], base = c->molecule_base[molecule];
    int64_t a = i - base, b = j - base;
    int64_t key = a < b ? a * size + b : b * size + a;
    if (!sorted_contains(c->keys + c->key_start[kind], c->key_start[kind + 1] - c->key_start[kind], key)) c->intra2 = d2;
    return 0;
}

static PyObject *closest_contacts(PyObject *module, PyObject *args, PyObject *kwargs) {
    (void)module;
    static char *keywords[] = {"positions", "box", "periodic_z", "search", "molecule_of", "molecule_base", "molecule_kind",
                               "kind_size", "key_start", "keys", NULL};
    PyObject *objects[7];
    double box[3], search;
    int periodic_z;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O(ddd)pdOOOOOO", keywords, &objects[0], &box[0], &box[1], &box[2], &periodic_z,
                                     &search, &objects[1], &objects[2], &objects[3], &objects[4], &objects[5], &objects[6]))
        return NULL;
    Buffer positions = {0}, molecule_of = {0}, base = {0}, kind = {0}, size = {0}, start = {0}, keys = {0};
    PyObject *result = NULL;
    if (open_buffer(objects[0], "positions", "d", 8, 2, 0, &positions) < 0 ||
        open_buffer(objects[1], "molecule_of", "i", 4, 1, 0, &molecule_of) < 0 ||
        open_buffer(objects[2], "molecule_base", "ql", 8, 1, 0, &base) < 0 ||
        open_buffer(objects[3], "molecule_kind", "ql", 8, 1, 0, &kind) < 0 ||
        open_buffer(objects[4], "kind_size", "ql", 8, 1, 0, &size) < 0 ||
        open_buffer(objects[5], "key_start", "ql", 8, 1, 0, &start) < 0 || open_buffer(objects[6], "keys", "ql", 8, 1, 0, &keys) < 0)
        goto done;
    int64_t atoms = positions.view.shape[0];
    if (positions.view.shape[1] != 3 || molecule_of.view.shape[0] != atoms || kind.view.shape[0] != base.view.shape[0] ||
        start.view.shape[0] != size.view.shape[0] + 1) {
        PyErr_SetString(PyExc_ValueError, "closest_contacts: array shapes do not agree");
        goto done;
    }
    if (search <= 0 || box[0] < 2 * search || box[1] < 2 * search || (periodic_z && box[2] < 2 * search)) {
        PyErr_SetString(PyExc_ValueError, "search: positive and at most half of every periodic side");
        goto done;
    }
    Closest c = {molecule_of.view.buf, base.view.buf, kind.view.buf, size.view.buf, start.view.buf, keys.view.buf, INFINITY,
                 INFINITY};
    if (for_each_close_pair(positions.view.buf, atoms, box, periodic_z, search, closer, &c) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *inter = isinf(c.inter2) ? Py_NewRef(Py_None) : PyFloat_FromDouble(sqrt(c.inter2));
    PyObject *intra = isinf(c.intra2) ? Py_NewRef(Py_None) : PyFloat_FromDouble(sqrt(c.intra2));
    if (inter && intra) result = PyTuple_Pack(2, inter, intra);
    Py_XDECREF(inter), Py_XDECREF(intra);
done:
    close_buffer(&positions), close_buffer(&molecule_of), close_buffer(&base), close_buffer(&kind), close_buffer(&size);
    close_buffer(&start), close_buffer(&keys);
    return result;
}

typedef struct {
    int64_t first_count; /* points 0 .. first_count - 1 are the first set, the rest the second */
    int64_t *pairs;
    size_t count, capacity;
} Between;

static int between(void *context, int32_t i, int32_t j, const double d[3], double d2, const double shift[3]) {
    (void)d, (void)d2, (void)shift;
    Between *b = context;
    if ((i < b->first_count) == (j < b->first_count)) return 0;
    if (b->count == b->capacity) {
        size_t grown = b->capacity * 2 + 1024;
        int64_t *pairs = realloc(b->pairs, grown * 2 * sizeof(int64_t));
        if (!pairs) return -1;
        b->pairs = pairs, b->capacity = grown;
    }
    int32_t in_first = i < b->first_count ? i : j, in_second = i < b->first_count ? j : i;
    b->pairs[2 * b->count] = in_first;
    b->pairs[2 * b->count + 1] = in_second - b->first_count;
    b->count++;
    return 0;
}

static PyObject *pairs_between(PyObject *module, PyObject *args, PyObject *kwargs) {
    (void)module;
    static char *keywords[] = {"first", "second", "box", "periodic_z", "search", NULL};
    PyObject *objects[2];
    double box[3], search;
    int periodic_z;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO(ddd)pd", keywords, &objects[0], &objects[1], &box[0], &box[1], &box[2],
                                     &periodic_z, &search))
        return NULL;
    Buffer first = {0}, second = {0};
    PyObject *result = NULL;
    double *points = NULL;
    Between b = {0};
    if (open_buffer(objects[0], "first", "d", 8, 2, 0, &first) < 0 || open_buffer(objects[1], "second", "d", 8, 2, 0, &second) < 0)
        goto done;
    if (first.view.shape[1] != 3 || second.view.shape[1] != 3) {
        PyErr_SetString(PyExc_ValueError, "pairs_between: points must be (n, 3)");
        goto done;
    }
    if (search <= 0 || box[0] < 2 * search || box[1] < 2 * search || (periodic_z && box[2] < 2 * search)) {
        PyErr_SetString(PyExc_ValueError, "search: positive and at most half of every periodic side");
        goto done;
    }
    int64_t n = first.view.shape[0], m = second.view.shape[0];
    points = malloc((size_t)(n + m > 0 ? n + m : 1) * 3 * sizeof(double));
    if (!points) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(points, first.view.buf, (size_t)n * 3 * sizeof(double));
    memcpy(points + 3 * n, second.view.buf, (size_t)m * 3 * sizeof(double));
    b.first_count = n;
    if (for_each_close_pair(points, n + m, box, periodic_z, search, between, &b) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyBytes_FromStringAndSize((const char *)b.pairs, (Py_ssize_t)(b.count * 2 * sizeof(int64_t)));
done:
    free(points), free(b.pairs);
    close_buffer(&first), close_buffer(&second);
    return result;
}

static PyMethodDef methods[] = {
    {"pairs_between", (PyCFunction)(void (*)(void))pairs_between, METH_VARARGS | METH_KEYWORDS,
     "pairs_between(first, second, box, periodic_z, search) -> bytes of int64 pairs (i in first, j in second) of points "
     "closer than `search` (minimum image; x and y periodic, z when asked), in no particular order."},
    {"closest_contacts", (PyCFunction)(void (*)(void))closest_contacts, METH_VARARGS | METH_KEYWORDS,
     "closest_contacts(positions, box, periodic_z, search, molecule_of, molecule_base, molecule_kind, kind_size, key_start, "
     "keys) -> (between molecules, within one beyond three bonds): the smallest distances (Å) under `search`, None where no "
     "pair is that close. Molecules are whole; x and y periodic, z when asked."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "polyforge_engine.construct._contacts",
    .m_doc = "Compiled closest-contact measurement of built systems (see _contacts.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__contacts(void) { return PyModule_Create(&module); }
