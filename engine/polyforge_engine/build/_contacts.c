/* The closest contacts of a built system, compiled: the smallest distance between atoms of different
 * molecules and between atoms of one molecule more than three bonds apart, over every pair closer
 * than a search distance (cells.h). What report.json states and what a dense build is relaxed until. */

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

static PyMethodDef methods[] = {
    {"closest_contacts", (PyCFunction)(void (*)(void))closest_contacts, METH_VARARGS | METH_KEYWORDS,
     "closest_contacts(positions, box, periodic_z, search, molecule_of, molecule_base, molecule_kind, kind_size, key_start, "
     "keys) -> (between molecules, within one beyond three bonds): the smallest distances (Å) under `search`, None where no "
     "pair is that close. Molecules are whole; x and y periodic, z when asked."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "polyforge_engine.build._contacts",
    .m_doc = "Compiled closest-contact measurement of built systems (see _contacts.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__contacts(void) { return PyModule_Create(&module); }
