/*
 * subclass.h — what the binding's entries call for Tensor subclasses (subclass.c): finding
 * the subclass among a call's tensors, what its __torch_function__ asks for, and converting
 * results.
 */
#ifndef NT_PY_SUBCLASS_H
#define NT_PY_SUBCLASS_H

#include "pyntensor.h"

enum { NT_PY_SUB_PLAIN, NT_PY_SUB_KEEP, NT_PY_SUB_OVERRIDE };

/* `best`, or o's type when o is an instance of a Tensor subclass that goes before it
 * (PyTorch's order of overloaded arguments); NULL while none. Plain tensors, non-tensors
 * and calls inside Tensor.__torch_function__ leave `best` as it is. */
PyTypeObject *nt_py_pick_subclass(PyTypeObject *best, PyObject *o);
/* What `type`'s __torch_function__ asks for: NT_PY_SUB_PLAIN (type NULL, or the disabled
 * impl), NT_PY_SUB_KEEP (PyTorch's default: results converted to type) or
 * NT_PY_SUB_OVERRIDE (*override, borrowed: call it instead of the op); -1 on error. */
int nt_py_subclass_policy(PyTypeObject *type, PyObject **override);
/* result's tensors (result itself, or the items of a tuple or list) as instances of type
 * (NULL: as they are); steals result, NULL passes through. */
PyObject *nt_py_keep_subclass(PyObject *result, PyTypeObject *type);
/* type.__torch_function__(func, (type,), args, kwargs) for a vectorcall (self, when not
 * NULL, goes first in args). */
PyObject *nt_py_call_torch_function(PyObject *override, PyTypeObject *type, PyObject *func,
                                    PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames);

/* The operators' and properties' form: result converted to the subclass of a or b (b may be
 * NULL) when their class keeps it. */
PyObject *nt_py_keep_subclass_of(PyObject *result, PyObject *a, PyObject *b);

#endif
