"""pytest set-up: find the freshly built ntensor (build/python unless NT_PYTHONPATH says
otherwise) and silence PyTorch's "named tensors are experimental" warning, since PyTorch
1.13 is the oracle these tests compare against."""
import os
import sys
import warnings

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("NT_PYTHONPATH", os.path.join(_root, "build", "python")))

warnings.filterwarnings("ignore", message=".*Named tensors.*")
