#!/usr/bin/env bash
# Builds ntensor (installing what is missing) and runs the demos: the C example, the
# spec's examples through the Python module (`import ntensor as torch`), the first-class-dims
# examples (ntensor.dim), then a training run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "== examples/demo.c"
./build/examples/demo
echo
echo "== examples/demo.py"
PYTHONPATH=build/python /usr/bin/python3 examples/demo.py
echo
echo "== examples/dims_demo.py (the first-class-dims spec's examples with ntensor.dim)"
PYTHONPATH=build/python /usr/bin/python3 examples/dims_demo.py
echo
echo "== examples/train_attention.py (a named transformer block trained with Adam)"
PYTHONPATH=build/python /usr/bin/python3 examples/train_attention.py
