#define PY_SSIZE_T_CLEAN
#include <Python.h>
static struct PyModuleDef nt_module = {PyModuleDef_HEAD_INIT, "ntensor._C", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&nt_module); }
