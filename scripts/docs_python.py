"""Writes the Python API reference of ntensor as HTML, one page per public module, from the
docstrings (pydoc, the standard library's generator), plus an index page.

    PYTHONPATH=build/python /usr/bin/python3 scripts/docs_python.py OUTDIR

Every public module of the package is documented (names starting with '_' are skipped), so a
new module or docstring appears without editing this file. scripts/docs.sh runs it.
"""
import os
import pkgutil
import pydoc
import sys


def public_modules(package):
    """The names of `package` and of its public submodules, in a stable order."""
    names = [package.__name__]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):
        if not any(part.startswith('_') for part in info.name.split('.')):
            names.append(info.name)
    return sorted(names)


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
    with open(os.path.join(outdir, 'index.html'), 'w', encoding='utf-8') as f:
        f.write('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>ntensor: Python API'
                '</title></head><body>\n<h1>ntensor: the Python API</h1>\n<p>Generated from '
                'the docstrings of ntensor %s.</p>\n<ul>\n%s</ul>\n</body></html>\n'
                % (getattr(ntensor, '__version__', ''), links))
    print('docs: %d Python modules in %s' % (len(names), outdir))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'build/docs/python')
