"""The documentation stays true: every Python code block of the tutorial and the other pages
runs, and every C code block of the README and the C guide compiles (warnings are errors) and
runs against the library that was built.

A page's ```python blocks run in order in one namespace, as a reader would paste them; a block
that must fail to make its point shows the failure with try/except. A ```c block with a main
is a whole program (its main returns 0 when every check in it holds); other C blocks are
fragments shown for reading.
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import ntensor

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(ntensor.__file__).resolve().parents[2]  # <build>/python/ntensor
PYTHON_PAGES = ['README.md', 'docs/tutorial.md', 'docs/beyond_pytorch.md']
C_PAGES = ['README.md', 'docs/c_guide.md']


def blocks(page, lang):
    """The fenced code blocks of `lang` in a page, with the line each starts on."""
    text = (ROOT / page).read_text(encoding='utf-8')
    found = []
    for m in re.finditer(r'^```' + lang + r'\n(.*?)^```', text, re.S | re.M):
        found.append((text.count('\n', 0, m.start()) + 2, m.group(1)))
    return found


@pytest.mark.parametrize('page', PYTHON_PAGES)
def test_python_blocks_run(page, capsys):
    code = blocks(page, 'python')
    assert code, page + ' has no python blocks'
    namespace = {'__name__': '__docs__'}
    for line, source in code:
        # the file name and line numbers of a failure point into the page itself
        exec(compile('\n' * (line - 1) + source, str(ROOT / page), 'exec'), namespace)
    capsys.readouterr()


def c_programs():
    return [pytest.param(page, line, source, id='%s:%d' % (page, line))
            for page in C_PAGES for line, source in blocks(page, 'c') if 'int main(' in source]


@pytest.mark.skipif(not list((BUILD).glob('libntensor.so*')), reason='no shared library')
@pytest.mark.parametrize('page,line,source', c_programs())
def test_c_blocks_compile_and_run(page, line, source, tmp_path):
    src = tmp_path / 'snippet.c'
    src.write_text('#line %d "%s"\n%s' % (line, ROOT / page, source))
    exe = tmp_path / 'snippet'
    env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}  # sanitizer runtimes
    sanitized = b'__asan_init' in (BUILD / 'libntensor.so').read_bytes()
    flags = ['-fsanitize=address,undefined'] if sanitized else []
    subprocess.run(['cc', '-std=c11', '-Wall', '-Wextra', '-Werror', *flags,
                    '-I', str(ROOT / 'include'), '-I', str(BUILD / 'include'),  # version.h
                    str(src), '-o', str(exe), '-L', str(BUILD), '-lntensor', '-lpthread', '-Wl,-rpath,' + str(BUILD)],
                   check=True, env=env)
    run_env = dict(env, ASAN_OPTIONS='detect_leaks=1') if sanitized else env
    result = subprocess.run([str(exe)], capture_output=True, text=True, env=run_env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_links_stay_in_the_repository():
    """The README and the docs/ pages stand on their own in a clone: every relative link
    points to a file of the repository, and none leaves it."""
    pages = ['README.md'] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / 'docs').glob('*.md'))
    for page in pages:
        text = (ROOT / page).read_text(encoding='utf-8')
        assert '../shared' not in text, page
        for target in re.findall(r'\]\(([^)#\s]+)[^)]*\)', text):
            if re.match(r'[a-z]+://', target):
                continue
            path = ((ROOT / page).parent / target).resolve()
            assert path.is_relative_to(ROOT) and path.exists(), (page, target)


def test_python_reference_is_generated(tmp_path):
    """scripts/docs_python.py (run by scripts/docs.sh) writes a page per public module and the
    op table."""
    env = dict(os.environ, PYTHONPATH=str(BUILD / 'python'))
    subprocess.run([sys.executable, str(ROOT / 'scripts' / 'docs_python.py'), str(tmp_path)],
                   check=True, env=env, capture_output=True)
    for page in ['index.html', 'ntensor.html', 'ntensor.nn.functional.html', 'ntensor.dim.html']:
        assert (tmp_path / page).exists(), page
    if (BUILD / 'libntensor.so').exists():
        assert '<b>sum</b>' in (tmp_path / 'ops.html').read_text(encoding='utf-8')
