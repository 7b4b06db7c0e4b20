"""Persistence with names: pickle, copy.copy and copy.deepcopy keep values, dtype, names,
strides and requires_grad by PyTorch's rules (PyTorch refuses named tensors here: "NYI: Named
tensors don't support serialization"); ntensor.save / load write and read safetensors files,
readable by any safetensors reader (checked against a file built by hand from the format's
specification), with the names in the header's metadata; hostile files are refused."""
import copy
import json
import pickle
import struct

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, to_torch


def transposed(named=True):
    """A named transpose: strides (1, 3), not contiguous."""
    x = nt.arange(6.0).reshape(2, 3).t()
    return x.rename("A", "B") if named else x


def assert_same_tensor(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.names == b.names and a.shape == b.shape
    assert a.stride() == b.stride()
    assert torch.equal(to_torch(a.rename(None)), to_torch(b.rename(None)))


# ---- pickle, copy, deepcopy ----

class Sub(nt.Tensor):
    """A subclass at module level, so that pickle finds it by name."""

@pytest.mark.parametrize("ntd,_", DTYPE_PAIRS)
def test_pickle_keeps_values_dtype_names_strides(ntd, _):
    x = transposed().to(ntd)
    for proto in (2, 4, 5):
        r = pickle.loads(pickle.dumps(x, protocol=proto))
        assert_same_tensor(r, x)
        assert r.data_ptr() != x.data_ptr()


def test_pickle_of_views_expanded_scalar_and_empty():
    base = nt.arange(10.0)
    for x in (base[2:5], base[::3], nt.tensor(3.5), nt.ones(3, 1).expand(3, 4),
              nt.empty(0, 4, names=("N", None))):
        assert_same_tensor(pickle.loads(pickle.dumps(x)), x)
    # torch keeps the whole storage and the offset; ntensor the elements the view spans
    r = pickle.loads(pickle.dumps(base[2:5]))
    assert r.tolist() == [2.0, 3.0, 4.0]


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_requires_grad_and_leaves_as_pytorch(how):
    ops = {"pickle": lambda t: pickle.loads(pickle.dumps(t)), "copy": copy.copy,
           "deepcopy": copy.deepcopy}
    for lib in (torch, nt):
        leaf = lib.ones(2, 3, requires_grad=True)
        leaf.grad = lib.ones(2, 3)
        nonleaf = leaf * 2
        r = ops[how](leaf)
        row = (r.requires_grad, r.is_leaf, r.grad is None, r.grad_fn is None,
               r.data_ptr() == leaf.data_ptr())
        if lib is torch:
            expected = row
            if how == "deepcopy":
                with pytest.raises(RuntimeError, match="graph leaves") as e:
                    copy.deepcopy(nonleaf)
                text = str(e.value)
            else:
                expected_nonleaf = (ops[how](nonleaf).requires_grad, ops[how](nonleaf).is_leaf)
        else:
            assert row == expected
            if how == "deepcopy":
                with pytest.raises(RuntimeError) as e:
                    copy.deepcopy(nonleaf)
                assert str(e.value) == text
            else:
                r2 = ops[how](nonleaf)
                assert (r2.requires_grad, r2.is_leaf) == expected_nonleaf


def test_copy_shares_memory_and_keeps_names_deepcopy_does_not():
    x = transposed()
    c = copy.copy(x)
    assert c is not x and c.data_ptr() == x.data_ptr() and c.names == x.names
    assert c.stride() == x.stride()
    d = copy.deepcopy(x)
    assert_same_tensor(d, x)
    assert d.data_ptr() != x.data_ptr()


def test_parameter_and_subclass_pickle_and_copy():
    p = nt.nn.Parameter(transposed(named=False))
    for r in (pickle.loads(pickle.dumps(p)), copy.copy(p), copy.deepcopy(p)):
        assert type(r) is nt.nn.Parameter and r.requires_grad
        assert r.stride() == p.stride()

    s = Sub._make_subclass(Sub, nt.ones(2, names=("N",)))
    s.tag = [1]
    r = pickle.loads(pickle.dumps(s))
    assert type(r) is Sub and r.tag == [1] and r.names == ("N",)
    assert copy.copy(s).tag is s.tag


def test_pickle_in_containers_keeps_identity():
    x = transposed()
    a, b = pickle.loads(pickle.dumps([x, x]))
    assert a is b


# ---- save / load ----

def test_save_load_dict_keeps_values_dtypes_names_order(tmp_path):
    path = tmp_path / "t.safetensors"
    tensors = {f"t_{ntd}": transposed().to(ntd) for ntd, _ in DTYPE_PAIRS}
    tensors["scalar"] = nt.tensor(2.5)
    tensors["empty"] = nt.empty(0, 3)
    tensors["partly"] = nt.ones(2, 3, names=(None, "C"))
    nt.save(tensors, path)
    got = nt.load(str(path))
    assert list(got) == list(tensors)
    for k, v in tensors.items():
        g = got[k]
        assert g.dtype == v.dtype and g.names == v.names and g.shape == v.shape
        assert g.is_contiguous() and not g.requires_grad
        assert torch.equal(to_torch(g.rename(None)), to_torch(v.rename(None)))


def test_save_load_one_tensor(tmp_path):
    path = tmp_path / "one.safetensors"
    x = transposed()
    nt.save(x, path)
    y = nt.load(path)
    assert isinstance(y, nt.Tensor) and y.names == x.names
    assert y.tolist() == x.rename(None).tolist()


def test_file_layout_follows_the_specification(tmp_path):
    path = tmp_path / "spec.safetensors"
    nt.save({"w": nt.tensor([[1, 2, 3]], dtype=nt.int16, names=("N", None)),
             "b": nt.tensor([0.5], dtype=nt.float32)}, path)
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0
    header = json.loads(raw[8:8 + n])
    assert header["w"] == {"dtype": "I16", "shape": [1, 3], "data_offsets": [0, 6]}
    assert header["b"] == {"dtype": "F32", "shape": [1], "data_offsets": [6, 10]}
    assert json.loads(header["__metadata__"]["ntensor.names.w"]) == ["N", None]
    data = raw[8 + n:]
    assert np.frombuffer(data[0:6], "<i2").tolist() == [1, 2, 3]
    assert np.frombuffer(data[6:10], "<f4").tolist() == [0.5]


def write_safetensors(path, tensors, metadata=None):
    """A safetensors file written by hand from the format's description, as another writer
    would, without the padding ntensor adds (the format does not require it): tensors maps
    key -> (dtype code, shape, little-endian bytes)."""
    ends = np.cumsum([0] + [len(blob) for _, _, blob in tensors.values()]).tolist()
    header = {key: {"dtype": code, "shape": shape, "data_offsets": ends[i:i + 2]}
              for i, (key, (code, shape, _)) in enumerate(tensors.items())}
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    blobs = b"".join(blob for _, _, blob in tensors.values())
    path.write_bytes(struct.pack("<Q", len(text)) + text + blobs)


def test_reads_a_file_written_by_another_writer(tmp_path):
    path = tmp_path / "other.safetensors"
    write_safetensors(path, {
        "a": ("F64", [2, 2], np.arange(4, dtype="<f8").tobytes()),
        "b": ("BF16", [3], torch.tensor([1.0, -2.0, 0.5], dtype=torch.bfloat16).view(
            torch.int16).numpy().astype("<i2").tobytes()),
        "c": ("BOOL", [2], bytes([1, 0])),
    }, metadata={"format": "pt"})
    got = nt.load(path)
    assert got["a"].tolist() == [[0.0, 1.0], [2.0, 3.0]] and got["a"].dtype == nt.float64
    assert got["b"].dtype == nt.bfloat16 and got["b"].tolist() == [1.0, -2.0, 0.5]
    assert got["c"].tolist() == [True, False]
    assert all(t.names == (None,) * t.ndim for t in got.values())


@pytest.mark.parametrize("header,data,text", [
    ({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, 8, 'has dtype "C64"'),
    ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 4]}}, 4, "need 12"),
    ({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
      "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}}, 3, "overlaps"),
    ({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, 5, "bytes of data follow"),
    ({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 9]}}, 1, "outside the file"),
    ({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
      "__metadata__": {"ntensor.names.a": '["1x"]'}}, 1, "the names of tensor 'a'"),
    ({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
      "__metadata__": {"ntensor.names.a": '["N", "C"]'}}, 1, "not a JSON list of 1"),
])
def test_hostile_files_are_refused(tmp_path, header, data, text):
    path = tmp_path / "bad.safetensors"
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + bytes(data))
    with pytest.raises(ValueError, match=text.replace("(", r"\(")):
        nt.load(path)


def test_truncated_and_garbage_files_are_refused(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x05\x00")
    with pytest.raises(ValueError, match="fewer than the 8"):
        nt.load(path)
    path.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(ValueError, match="does not fit"):
        nt.load(path)
    path.write_bytes(struct.pack("<Q", 4) + b"nope")
    with pytest.raises(ValueError, match="not a JSON object"):
        nt.load(path)


def test_save_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="expected a Tensor or a dict"):
        nt.save([nt.ones(1)], tmp_path / "x")
    with pytest.raises(TypeError, match="dict of str to Tensor"):
        nt.save({1: nt.ones(1)}, tmp_path / "x")
    with pytest.raises(ValueError, match="null character"):
        nt.save({"a\0b": nt.ones(1)}, tmp_path / "x")
    with pytest.raises(ValueError, match="reserved"):
        nt.save({"__metadata__": nt.ones(1)}, tmp_path / "x")
    with pytest.raises(RuntimeError, match="cannot open"):
        nt.load(tmp_path / "missing")
