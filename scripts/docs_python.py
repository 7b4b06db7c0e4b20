"""Writes the Python API reference of ntensor as HTML, one page per public module, from the
docstrings (pydoc, the standard library's generator), a page of the op table (ops.html: every
op's Python signatures, schema and forms, read from the library through nt_op_name,
nt_op_python, nt_op_schema and nt_op_flags), and an index page.

    PYTHONPATH=build/python /usr/bin/python3 scripts/docs_python.py OUTDIR

Every public module of the package is documented (names starting with '_' are skipped), so a
new module or docstring appears without editing this file. scripts/docs.sh runs it.
"""
import ctypes
import html
import os
import pathlib
import pkgutil
import pydoc
import sys

# NT_OPF_* of ntensor/call.h: how an op is reached from Python
FORMS = [(1, 'ntensor.{}'), (2, 'Tensor.{}'), (4, 'Tensor.{}_'), (32, 'ntensor.{}_'), (8, 'out=')]
NO_GRAD = 16


def public_modules(package):
    """The names of `package` and of its public submodules, in a stable order."""
    names = [package.__name__]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):
        if not any(part.startswith('_') for part in info.name.split('.')):
            names.append(info.name)
    return sorted(names)


def op_rows(library):
    """(name, python signatures, schema, forms, differentiable) of every op, in id order."""
    lib = ctypes.CDLL(str(library))
    for fn in (lib.nt_op_name, lib.nt_op_python, lib.nt_op_schema):
        fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_int]
    lib.nt_op_flags.restype, lib.nt_op_flags.argtypes = ctypes.c_uint, [ctypes.c_int]
    op = 0
    while lib.nt_op_name(op) is not None:
        name = lib.nt_op_name(op).decode()
        flags = lib.nt_op_flags(op)
        forms = [f.format(name) for bit, f in FORMS if flags & bit]
        yield (name, (lib.nt_op_python(op) or b'').decode(), (lib.nt_op_schema(op) or b'').decode(),
               forms, not flags & NO_GRAD)
        op += 1


def write_ops_page(library, path):
    rows = []
    for name, python, schema, forms, grad in op_rows(library):
        rows.append('<tr><td><b>%s</b></td><td><pre>%s</pre></td><td><code>%s</code></td>'
                    '<td>%s</td><td>%s</td></tr>\n'
                    % (html.escape(name), html.escape(python), html.escape(schema),
                       html.escape(', '.join(forms)), 'yes' if grad else 'no'))
    with open(path, 'w', encoding='utf-8') as f:
        f.write('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>ntensor: the ops</title>'
                '</head><body>\n<h1>The op table</h1>\n<p>Every op of ntensor/ops.def, in id order '
                '(NT_OP_&lt;NAME&gt; in C): its Python signatures (PyTorch 1.13\'s; lines ending '
                'in |ntensor are ntensor\'s own), its C-level schema (the slots of nt_call.args), '
                'the forms Python reaches it by, and whether autograd differentiates it.</p>\n'
                '<table border="1" cellspacing="0" cellpadding="4">\n<tr><th>op</th>'
                '<th>Python signatures</th><th>schema</th><th>forms</th><th>grad</th></tr>\n'
                + ''.join(rows) + '</table>\n</body></html>\n')
    return len(rows)


def main(outdir):
    import ntensor
    os.makedirs(outdir, exist_ok=True)
    names = public_modules(ntensor)
    for name in names:
        module = pydoc.locate(name, forceload=False)
        page = pydoc.html.page(pydoc.describe(module), pydoc.html.document(module, name))
        with open(os.path.join(outdir, name + '.html'), 'w', encoding='utf-8') as f:
            f.write(page)
    links = ''.join('<li><a href="%s.html">%s</a></li>\n' % (n, n) for n in names)
    library = pathlib.Path(ntensor.__file__).resolve().parents[2] / 'libntensor.so'
    if library.exists():  # <build>/python/ntensor/__init__.py beside <build>/libntensor.so
        count = write_ops_page(library, os.path.join(outdir, 'ops.html'))
        links += '<li><a href="ops.html">the op table</a> (%d ops)</li>\n' % count
    with open(os.path.join(outdir, 'index.html'), 'w', encoding='utf-8') as f:
        f.write('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>ntensor: Python API'
                '</title></head><body>\n<h1>ntensor: the Python API</h1>\n<p>Generated from '
                'the docstrings of ntensor %s.</p>\n<ul>\n%s</ul>\n</body></html>\n'
                % (getattr(ntensor, '__version__', ''), links))
    print('docs: %d Python modules in %s' % (len(names), outdir))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'build/docs/python')
