"""The examples of the spec (named_tensor_api.md, name_inference_rules.md, tutorial.md) that
use only factories, the names API, views, printing of names and size('D'), written as the
spec writes them (`import ntensor as torch`) and asserting the documented results. Where an
example prints random values, the names, shapes and the repr's names suffix are checked, and
values are checked against PyTorch 1.13 on the same data."""
import contextlib
import io

import numpy as np
import pytest
import torch as real_torch

import ntensor as torch


def same_values(a, b):
    """ntensor `a` holds the values of torch `b` (names ignored)."""
    return np.array_equal(np.array(a.rename(None).tolist()), np.array(b.rename(None).tolist()))


def as_torch(x):
    """A torch tensor with x's values and names."""
    t = real_torch.tensor(x.rename(None).tolist())
    return t.refine_names(*x.names) if x.has_names() else t


def catch_error(fn):
    """The tutorial's helper: prints the RuntimeError's text (cut at 180 characters)."""
    try:
        fn()
        assert False
    except RuntimeError as err:
        err = str(err)
        if len(err) > 180:
            err = err[:180] + "..."
        print(err)


def printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


# ---- named_tensor_api.md ----

def test_creating_named_tensors():
    x = torch.zeros(2, 3, names=("N", "C"))
    assert repr(x) == "tensor([[0., 0., 0.],\n        [0., 0., 0.]], names=('N', 'C'))"
    assert repr(x) == repr(real_torch.zeros(2, 3, names=("N", "C")))


def test_named_dimensions():
    imgs = torch.randn(1, 2, 2, 3, names=("N", "C", "H", "W"))
    assert imgs.names == ("N", "C", "H", "W")
    renamed_imgs = imgs.rename(H="height", W="width")
    assert renamed_imgs.names == ("N", "C", "height", "width")
    imgs = torch.randn(1, 2, 2, 3, names=(None, "C", "H", "W"))
    assert imgs.names == (None, "C", "H", "W")


def test_explicit_alignment_by_names():
    num_channels = 3
    scale = torch.randn(num_channels, names=("C",))
    imgs = torch.rand(3, 3, 3, num_channels, names=("N", "H", "W", "C"))
    more_imgs = torch.rand(3, num_channels, 3, 3, names=("N", "C", "H", "W"))
    videos = torch.randn(3, num_channels, 3, 3, 3, names=("N", "C", "H", "W", "D"))
    for inp, shape in [(imgs, (1, 1, 1, 3)), (more_imgs, (1, 3, 1, 1)), (videos, (1, 3, 1, 1, 1))]:
        aligned = scale.refine_names("C").align_as(inp)
        assert aligned.names == inp.names and tuple(aligned.shape) == shape
        assert aligned.rename(None).reshape(-1).tolist() == scale.rename(None).tolist()


def test_manipulating_dimensions_align_to():
    tensor = torch.randn(2, 2, 2, 2, 2, 2)
    named_tensor = tensor.refine_names("A", "B", "C", "D", "E", "F")
    permuted = tensor.permute(5, 4, 0, 1, 2, 3)
    aligned = named_tensor.align_to("F", "E", ...)
    assert aligned.names == ("F", "E", "A", "B", "C", "D")
    assert aligned.shape == permuted.shape and aligned.stride() == permuted.stride()
    assert aligned.rename(None).tolist() == permuted.tolist()


def test_flatten_and_unflatten():
    imgs = torch.randn(32, 3, 128, 128)
    named_imgs = imgs.refine_names("N", "C", "H", "W")
    flat_imgs = imgs.view(32, -1)
    named_flat_imgs = named_imgs.flatten(["C", "H", "W"], "features")
    assert named_flat_imgs.names == ("N", "features")
    assert named_flat_imgs.rename(None).tolist() == flat_imgs.tolist()
    unflattened_imgs = imgs.view(32, 3, 128, 128)
    unflattened_named_imgs = named_flat_imgs.unflatten("features", [("C", 3), ("H", 128), ("W", 128)])
    assert unflattened_named_imgs.names == ("N", "C", "H", "W")
    assert unflattened_named_imgs.shape == unflattened_imgs.shape
    assert unflattened_named_imgs.data_ptr() == imgs.data_ptr()


def test_rename_reference():
    imgs = torch.rand(2, 3, 5, 7, names=("N", "C", "H", "W"))
    renamed_imgs = imgs.rename(N="batch", C="channels")
    assert renamed_imgs.names == ("batch", "channels", "H", "W")
    renamed_imgs = imgs.rename(None)
    assert renamed_imgs.names == (None, None, None, None)
    renamed_imgs = imgs.rename("batch", "channel", "height", "width")
    assert renamed_imgs.names == ("batch", "channel", "height", "width")


def test_rename_takes_not_both_forms():
    imgs = torch.rand(2, 3, names=("N", "C"))
    with pytest.raises(RuntimeError, match=r"rename: This function takes either positional args or "
                                           r"keyword args, but not both\."):
        imgs.rename("a", "b", N="c")


def test_rename__is_in_place():
    imgs = torch.rand(2, 3, names=("N", "C"))
    assert imgs.rename_(N="batch") is imgs and imgs.names == ("batch", "C")


def test_refine_names_reference():
    imgs = torch.randn(32, 3, 128, 128)
    named_imgs = imgs.refine_names("N", "C", "H", "W")
    assert named_imgs.names == ("N", "C", "H", "W")
    tensor = torch.randn(2, 3, 5, 7, 11)
    tensor = tensor.refine_names("A", ..., "B", "C")
    assert tensor.names == ("A", None, None, "B", "C")
    assert tensor.refine_names("A", "...", "B", "C").names == ("A", None, None, "B", "C")


def test_align_as_mask_example():
    mask = torch.ones(127, 128, dtype=torch.bool).refine_names("W", "H")
    imgs = torch.randn(32, 128, 127, 3, names=("N", "H", "W", "C"))
    aligned = mask.align_as(imgs)
    assert aligned.names == ("N", "H", "W", "C") and aligned.shape == (1, 128, 127, 1)
    assert aligned.dtype == torch.bool and aligned.data_ptr() == mask.data_ptr()


def test_align_to_reference():
    tensor = torch.randn(2, 2, 2, 2, 2, 2)
    named_tensor = tensor.refine_names("A", "B", "C", "D", "E", "F")
    assert named_tensor.align_to("F", "E", ...).names == ("F", "E", "A", "B", "C", "D")


def test_unflatten_reference():
    assert torch.randn(3, 4, 1).unflatten(1, (2, 2)).shape == torch.Size([3, 2, 2, 1])
    assert torch.randn(3, 4, 1).unflatten(1, (-1, 2)).shape == torch.Size([3, 2, 2, 1])
    assert repr(torch.randn(3, 4, 1).unflatten(1, (-1, 2)).shape) == "torch.Size([3, 2, 2, 1])"
    a = torch.randn(2, 4, names=("A", "B")).unflatten("B", (("B1", 2), ("B2", 2)))
    assert a.names == ("A", "B1", "B2") and a.shape == (2, 2, 2)
    assert repr(a).endswith("]]], names=('A', 'B1', 'B2'))")
    assert repr(a) == repr(as_torch(a))
    b = torch.randn(2, names=("A",)).unflatten("A", (("B1", -1), ("B2", 1)))
    assert b.names == ("B1", "B2") and b.shape == (2, 1)
    assert repr(b).endswith("]], names=('B1', 'B2'))")
    assert repr(b) == repr(as_torch(b))


def test_flatten_reference():
    imgs = torch.randn(32, 3, 128, 128, names=("N", "C", "H", "W"))
    flat_imgs = imgs.flatten(["C", "H", "W"], "features")
    assert (flat_imgs.names, flat_imgs.shape) == (("N", "features"), torch.Size([32, 49152]))
    assert repr((flat_imgs.names, flat_imgs.shape)) == "(('N', 'features'), torch.Size([32, 49152]))"


# ---- name_inference_rules.md ----

def test_removes_dimensions_squeeze():
    x = torch.randn(1, 3, 3, 3, names=("N", "C", "H", "W"))
    assert x.squeeze("N").names == ("C", "H", "W")


def test_permutes_dimensions_transpose():
    x = torch.randn(3, 3, names=("N", "C"))
    assert x.transpose("N", "C").names == ("C", "N")
    assert x.t().names == ("C", "N")


# ---- tutorial.md ----

def test_tutorial_basics():
    imgs = torch.randn(1, 2, 2, 3, names=("N", "C", "H", "W"))
    assert printed(lambda: print(imgs.names)) == "('N', 'C', 'H', 'W')\n"
    # Method #1: set the .names attribute (this changes name in-place)
    imgs.names = ["batch", "channel", "width", "height"]
    assert printed(lambda: print(imgs.names)) == "('batch', 'channel', 'width', 'height')\n"
    # Method #2: specify new names (this changes names out-of-place)
    imgs = imgs.rename(channel="C", width="W", height="H")
    assert printed(lambda: print(imgs.names)) == "('batch', 'C', 'W', 'H')\n"
    imgs = imgs.rename(None)
    assert printed(lambda: print(imgs.names)) == "(None, None, None, None)\n"


def test_tutorial_unnamed_tensors_print_without_names():
    unnamed = torch.randn(2, 1, 3)
    text = printed(lambda: print(unnamed))
    assert "names=" not in text and text.startswith("tensor([[[")
    assert text == printed(lambda: print(as_torch(unnamed)))
    assert printed(lambda: print(unnamed.names)) == "(None, None, None)\n"


def test_tutorial_partial_names_and_refine():
    imgs = torch.randn(3, 1, 1, 2, names=("N", None, None, None))
    assert imgs.names == ("N", None, None, None)
    imgs = torch.randn(3, 1, 1, 2)
    named_imgs = imgs.refine_names("N", "C", "H", "W")
    assert named_imgs.names == ("N", "C", "H", "W")
    named_imgs = imgs.refine_names(..., "H", "W")
    assert named_imgs.names == (None, None, "H", "W")


def test_tutorial_refine_error():
    imgs = torch.randn(3, 1, 1, 2)
    named_imgs = imgs.refine_names("N", "C", "H", "W")
    text = printed(lambda: catch_error(lambda: named_imgs.refine_names("N", "C", "H", "width")))
    assert text == ("refine_names: cannot coerce Tensor['N', 'C', 'H', 'W'] to Tensor['N', 'C', 'H', "
                    "'width'] because 'W' is different from 'width' at index 3\n")
    oracle = real_torch.randn(3, 1, 1, 2).refine_names("N", "C", "H", "W")
    assert text == printed(lambda: catch_error(lambda: oracle.refine_names("N", "C", "H", "width")))


def test_tutorial_accessors():
    named_imgs = torch.randn(3, 1, 1, 2).refine_names("N", "C", "H", "W")
    img0 = named_imgs.select("N", 0)  # get one image
    assert img0.names == ("C", "H", "W") and img0.shape == (1, 1, 2)
    assert named_imgs.size("W") == 2 and named_imgs.size("N") == 3


def test_tutorial_explicit_broadcasting():
    imgs = torch.randn(2, 2, 2, 2)  # N, C, H, W
    per_batch_scale = torch.rand(2)  # N
    viewed = per_batch_scale.view(2, 1, 1, 1)
    expanded = per_batch_scale.expand_as(imgs)
    assert viewed.shape == (2, 1, 1, 1) and expanded.shape == (2, 2, 2, 2)
    assert expanded.stride() == (0, 0, 0, 1)
    imgs = imgs.refine_names("N", "C", "H", "W")
    per_batch_scale = per_batch_scale.refine_names("N")
    aligned = per_batch_scale.align_as(imgs)
    assert aligned.names == ("N", "C", "H", "W") and aligned.shape == (2, 1, 1, 1)
    assert aligned.rename(None).tolist() == viewed.tolist()


def test_tutorial_flatten_unflatten():
    imgs = torch.randn(2, 2, 2, 2, names=("N", "C", "H", "W"))
    original = imgs.rename(None).tolist()
    imgs = imgs.flatten(["C", "H", "W"], "features")
    assert printed(lambda: print(imgs.names)) == "('N', 'features')\n"
    imgs = imgs.unflatten("features", (("C", 2), ("H", 2), ("W", 2)))
    assert printed(lambda: print(imgs.names)) == "('N', 'C', 'H', 'W')\n"
    assert imgs.rename(None).tolist() == original


def named_prepare_head(tensor, n_heads, dim_per_head):
    # (II), as the tutorial writes it
    tensor = tensor.refine_names(..., "T", "D")
    return (tensor.unflatten("D", [("H", n_heads), ("D_head", dim_per_head)])
                  .align_to(..., "H", "T", "D_head"))


def parlai_prepare_head(tensor, n_heads, dim_per_head):
    # input is [batch_size, seq_len, n_heads * dim_per_head]
    # output is [batch_size * n_heads, seq_len, dim_per_head]
    batch_size, seq_len, _ = tensor.size()
    tensor = tensor.view(batch_size, tensor.size(1), n_heads, dim_per_head)
    tensor = (
        tensor.transpose(1, 2)
        .contiguous()
        .view(batch_size * n_heads, seq_len, dim_per_head)
    )
    return tensor


def test_tutorial_prepare_head_agrees_with_view_and_transpose():
    n, t, d, h = 7, 5, 2 * 3, 3
    query = torch.randn(n, t, d, names=("N", "T", "D"))
    dim = query.size("D")
    assert dim == 6
    head = named_prepare_head(query, h, dim // h)
    assert head.names == ("N", "H", "T", "D_head") and head.shape == (7, 3, 5, 2)
    k = head.rename(T="T_key")
    assert k.names == ("N", "H", "T_key", "D_head")
    assert k.align_to(..., "D_head", "T_key").names == ("N", "H", "D_head", "T_key")
    flat = parlai_prepare_head(query.rename(None), h, dim // h)
    assert flat.shape == (21, 5, 2)
    assert head.rename(None).reshape(21, 5, 2).tolist() == flat.tolist()
    oracle = named_prepare_head(as_torch(query), h, dim // h)
    assert head.names == oracle.names and head.stride() == oracle.stride()
    assert same_values(head, oracle)


def test_tutorial_attention_reshapes_without_batch_dim():
    t, d, h = 5, 6, 3
    query = torch.randn(t, d, names=("T", "D"))
    mask = torch.ones(t, names=("T",))
    assert mask.refine_names(..., "T").names == ("T",)
    head = named_prepare_head(query, h, d // h)
    assert head.names == ("H", "T", "D_head")
    # (IV): back to [..., T, D]
    attentioned = head.refine_names(..., "H", "T", "D_head").align_to(..., "T", "H", "D_head")
    merged = attentioned.flatten(["H", "D_head"], "D")
    assert merged.names == ("T", "D") and merged.shape == (5, 6)
    assert merged.rename(None).tolist() == query.rename(None).tolist()
    # (III): a [N, T] mask aligned to [N, H, T, T_key]
    dot_prod = torch.zeros(7, h, t, t, names=("N", "H", "T", "T_key"))
    attn_mask = torch.ones(7, t, names=("N", "T")).align_as(dot_prod)
    assert attn_mask.names == ("N", "H", "T", "T_key") and attn_mask.shape == (7, 1, 5, 1)
