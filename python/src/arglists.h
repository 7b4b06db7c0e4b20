/*
 * arglists.h — argument helpers shared by the hand-written Python entries (names.c and the
 * families not yet generated from the op table): name lists with one Ellipsis, int lists,
 * and some texts of PyTorch's argument-parser errors ("missing 1 required positional
 * arguments"), so that a bad call fails as it does in PyTorch 1.13.
 */
#ifndef NT_PY_ARGLISTS_H
#define NT_PY_ARGLISTS_H

#include "pyntensor.h"

/* Wraps the result of a C call made as nt_py_result_of(nt_f(..., &out), &out). (Not
 * nt_py_result(nt_f(..., &out), out): C leaves the order in which arguments are evaluated
 * open, so `out` may be read before the call has set it.) */
static inline PyObject *nt_py_result_of(nt_status st, nt_tensor **out) {
    return st == NT_OK ? nt_py_wrap(*out) : nt_py_raise(st);
}

/* ---- PyTorch's argument-parser messages ---- */

/* The type name PyTorch prints for an argument ("int", "Tensor", "NoneType"). */
const char *nt_py_type_name(PyObject *o);

/* True for an int argument as PyTorch's parser takes one (bool excluded). */
int nt_py_is_int(PyObject *o);

/* ---- name lists ---- */

/* The index of the one Ellipsis (Ellipsis or "...") among items, -1 if there is none;
 * -2 with PyTorch's RuntimeError ("f: More than one Ellipsis ('...') found in names
 * (...)") if there are several. */
int nt_py_find_ellipsis(const char *fname, PyObject *const *items, Py_ssize_t n);

/* An entry of a name list: a Python object still to be converted, or a name already known
 * (the placeholder of an Ellipsis, a tensor's name). */
typedef struct nt_py_name_item {
    PyObject *obj; /* borrowed; NULL when `name` is given */
    nt_name name;
} nt_py_name_item;

/* Converts entries to names as PyTorch's parser converts a "tuple of names" argument: a
 * first entry that is neither str nor None is "f(): argument 'arg' (position 1) must be
 * tuple of names, not <container>"; a later one "expected None or string for Dimname but
 * got int". Returns 0 or -1. */
int nt_py_convert_names(const char *fname, const char *arg, const char *container,
                        const nt_py_name_item *items, int n, nt_name *out);

/* Reads a list of ints given as varargs or as one list/tuple/Size, the way PyTorch reads a
 * "tuple of SymInts"/"tuple of ints" argument, with its TypeErrors. `what` is "SymInts" or
 * "ints", `arg` the parameter name and `position` its (1-based) position. Returns the count or -1.
 */
int nt_py_int_list(const char *fname, const char *arg, int position, const char *what,
                   PyObject *const *args, Py_ssize_t nargs, int64_t *out);

#endif
