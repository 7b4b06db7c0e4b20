#!/bin/sh
# Doxygen's input filter for ntensor/ops.def (docs/Doxyfile): the file's leading comment
# only, which documents it; the rows that follow are X-macro calls, not declarations.
exec sed '/\*\//q' "$1"
