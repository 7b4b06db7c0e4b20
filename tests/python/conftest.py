"""pytest set-up: find the freshly built ntensor (build/python unless NT_PYTHONPATH says
otherwise) and the shared helpers of the test folders (which mirror src/: core, ops, names,
and python for the binding itself), and silence PyTorch's "named tensors are experimental" warning, since PyTorch
1.13 is the oracle these tests compare against."""
import os
import sys
import warnings

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("NT_PYTHONPATH", os.path.join(_root, "build", "python")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # helpers.py, format_cases.py

warnings.filterwarnings("ignore", message=".*Named tensors.*")

# Randomised tests explore the same examples on every run, so that a failure seen once is
# seen again (and CI cannot turn red by chance); NT_HYPOTHESIS_RANDOM=1 explores anew.
from hypothesis import settings  # noqa: E402

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("NT_HYPOTHESIS_RANDOM") else "deterministic")
