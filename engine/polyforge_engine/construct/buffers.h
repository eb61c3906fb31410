/* Arrays from Python (NumPy, through the buffer protocol) for the compiled modules: checked for
 * layout, item size and format, and released once. */

#ifndef POLYFORGE_BUFFERS_H
#define POLYFORGE_BUFFERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_buffer view;
    int held;
} Buffer;

/* Opens a C-contiguous buffer of `item`-byte values in one of the `formats` (single letters, native
 * byte order: "ql" int64, "i" int32, "d" float64, "?" bool), writable if asked, with `ndim`
 * dimensions unless that is negative. On failure an exception is set; close_buffer is always due. */
static inline int open_buffer(PyObject *object, const char *name, const char *formats, Py_ssize_t item, int ndim, int writable,
                              Buffer *out) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, &out->view, flags) < 0) return -1;
    out->held = 1;
    const char *format = out->view.format;
    if (format[0] == '@' || format[0] == '=') format++;
    if (out->view.itemsize != item || format[0] == '\0' || format[1] != '\0' || !strchr(formats, format[0]) ||
        (ndim >= 0 && out->view.ndim != ndim)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous array of %zd-byte values of format '%s'%s", name, item, formats,
                     ndim >= 0 ? " with the expected number of dimensions" : "");
        return -1;
    }
    return 0;
}

static inline void close_buffer(Buffer *buffer) {
    if (buffer->held) PyBuffer_Release(&buffer->view);
    buffer->held = 0;
}

/* A malloc'd copy of such a buffer's values, with `expected` values unless that is negative. */
static inline int copy_buffer(PyObject *object, const char *name, const char *formats, Py_ssize_t item, Py_ssize_t expected,
                              void **out, Py_ssize_t *count) {
    Buffer buffer = {0};
    int status = -1;
    if (open_buffer(object, name, formats, item, -1, 0, &buffer) == 0) {
        Py_ssize_t n = buffer.view.len / item;
        void *memory = NULL;
        if (expected >= 0 && n != expected) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd values, got %zd", name, expected, n);
        } else if (!(memory = malloc(n > 0 ? (size_t)(n * item) : 1))) {
            PyErr_NoMemory();
        } else {
            memcpy(memory, buffer.view.buf, (size_t)(n * item));
            *out = memory;
            if (count) *count = n;
            status = 0;
        }
    }
    close_buffer(&buffer);
    return status;
}

#endif
