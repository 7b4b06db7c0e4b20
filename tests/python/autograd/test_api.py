"""The autograd API against PyTorch 1.13: requires_grad, is_leaf, grad, grad_fn, retain_grad,
detach, .data, backward (gradient, retain_graph, create_graph, inputs), autograd.grad and
autograd.backward, hooks, grad modes, the version counter and in-place checks, out= and
non-differentiable results. Each case runs the same code on ntensor and on torch and compares the
results (values, dtypes, shapes, names, requires_grad) or the errors (type and text)."""
import pytest
import torch

import ntensor as nt

CASES = []


def case(f):
    CASES.append(f)
    return f


def norm(v):
    """A comparable form of a result: tensors as (dtype, shape, names, values, requires_grad)."""
    if isinstance(v, (torch.Tensor, nt.Tensor)):
        named = any(n is not None for n in v.names)
        plain = v.rename(None) if named else v
        return ("T", str(v.dtype).split(".")[-1], tuple(v.shape), v.names,
                plain.detach().tolist(), v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [norm(x) for x in v]
    return v


def outcome(fn, lib):
    try:
        return ("ok", norm(fn(lib)))
    except Exception as e:  # noqa: BLE001 - the oracle decides which type
        return ("err", type(e).__name__, str(e))


@case
def rg_factory(L): return L.ones(2, requires_grad=True)
@case
def rg_int_factory(L): return L.ones(2, dtype=L.int64, requires_grad=True)
@case
def rg_int_method(L): return L.ones(2, dtype=L.int64).requires_grad_()
@case
def rg_int_setter(L):
    x = L.ones(2, dtype=L.int64); x.requires_grad = True
@case
def rg_setter_nonbool(L):
    x = L.ones(2); x.requires_grad = 1
@case
def rg_nonleaf_off(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.requires_grad_(False)
@case
def rg_nonleaf_off_set(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.requires_grad = False
@case
def rg_nonleaf_on(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.requires_grad_(True); return y.is_leaf
@case
def isleaf(L):
    x = L.ones(2, requires_grad=True); y = x*2; return x.is_leaf, y.is_leaf, L.ones(2).is_leaf, y.detach().is_leaf
@case
def grad_set_wrong_dtype(L):
    x = L.ones(2, requires_grad=True); x.grad = L.ones(2, dtype=L.float64)
@case
def grad_set_wrong_size(L):
    x = L.ones(2, requires_grad=True); x.grad = L.ones(3)
@case
def grad_set_wrong_type(L):
    x = L.ones(2, requires_grad=True); x.grad = 3
@case
def grad_set_ok(L):
    x = L.ones(2, requires_grad=True); g = L.ones(2); x.grad = g; return x.grad, x.grad is g
@case
def grad_del(L):
    x = L.ones(2, requires_grad=True); x.sum().backward(); del x.grad; return x.grad
@case
def grad_set_none(L):
    x = L.ones(2, requires_grad=True); x.sum().backward(); x.grad = None; return x.grad
@case
def grad_set_int(L):
    x = L.ones(2, dtype=L.int64); x.grad = L.ones(2, dtype=L.int64); return x.grad
@case
def gradfn_leaf(L):
    x = L.ones(2, requires_grad=True); return x.grad_fn, L.ones(2).grad_fn
@case
def gradfn_name(L):
    x = L.ones(2, requires_grad=True); return ((x*2)+1).grad_fn.name()
@case
def gradfn_next_var(L):
    x = L.ones(2, requires_grad=True); y = x*2
    return y.grad_fn.next_functions[0][0].variable is x
@case
def retain(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.retain_grad(); z = (y*y).sum(); z.backward()
    return y.grad, y.retains_grad, x.retains_grad, z.retains_grad
@case
def retain_leaf(L):
    x = L.ones(2, requires_grad=True); x.retain_grad(); return x.retains_grad
@case
def retain_nograd(L):
    x = L.ones(2); x.retain_grad()
@case
def nonleaf_grad_warn(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.sum().backward(); return y.grad
@case
def detach_view(L):
    x = L.ones(2, requires_grad=True); y = x.detach(); y[0] = 5; return x, y.requires_grad, y.is_leaf
@case
def detach_inplace(L):
    x = L.ones(2, requires_grad=True); y = x*2; y.detach_(); return y.requires_grad, y.is_leaf, y.grad_fn
@case
def detach_inplace_leaf(L):
    x = L.ones(2, requires_grad=True); x.detach_(); return x.requires_grad
@case
def data_attr(L):
    x = L.ones(2, requires_grad=True); d = x.data; d[0] = 3; return x, d.requires_grad, d.is_leaf
@case
def data_nonleaf(L):
    x = L.ones(2, requires_grad=True); y = x*2; return y.data, y.data.grad_fn
@case
def bw_nonscalar(L):
    x = L.ones(2, requires_grad=True); (x*2).backward()
@case
def bw_shape_mismatch(L):
    x = L.ones(2, requires_grad=True); (x*2).backward(L.ones(3))
@case
def bw_shape_mismatch2(L):
    x = L.ones(2,3, requires_grad=True); (x*2).backward(L.ones(3,2))
@case
def bw_grad_dtype(L):
    x = L.ones(2, requires_grad=True); (x*2).backward(L.ones(2, dtype=L.float64)); return x.grad
@case
def bw_grad_int(L):
    x = L.ones(2, requires_grad=True); (x*2).backward(L.ones(2, dtype=L.int64)); return x.grad
@case
def bw_noreq(L):
    x = L.ones(2); x.sum().backward()
@case
def bw_twice(L):
    x = L.ones(2, requires_grad=True); y = (x*x).sum(); y.backward(); y.backward()
@case
def bw_twice_nosaved(L):
    x = L.ones(2, requires_grad=True); y = (x*2+1).sum(); y.backward(); y.backward(); return x.grad
@case
def bw_twice_retain(L):
    x = L.ones(2, requires_grad=True); y = (x*x).sum(); y.backward(retain_graph=True); y.backward(); return x.grad
@case
def bw_twice_exp(L):
    x = L.ones(2, requires_grad=True); y = x.exp().sum(); y.backward(); y.backward()
@case
def bw_leaf(L):
    x = L.ones(2, requires_grad=True); x.backward(L.ones(2)*3); return x.grad
@case
def bw_accum(L):
    x = L.tensor([1.,2.], requires_grad=True)
    for i in range(3): (x*x).sum().backward()
    return x.grad
@case
def bw_inputs_leaf(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([3.,4.], requires_grad=True)
    (x*w).sum().backward(inputs=[x]); return x.grad, w.grad
@case
def bw_inputs_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*3
    (y*y).sum().backward(inputs=[y]); return x.grad, y.grad
@case
def bw_inputs_tensor(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([3.,4.], requires_grad=True)
    (x*w).sum().backward(inputs=w); return x.grad, w.grad
@case
def bw_inputs_empty(L):
    x = L.tensor([1.,2.], requires_grad=True); (x*x).sum().backward(inputs=[])
@case
def bw_inputs_noreq(L):
    x = L.tensor([1.,2.], requires_grad=True); (x*x).sum().backward(inputs=[L.ones(2)])
@case
def bw_inputs_unused(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([1.,2.], requires_grad=True); (x*x).sum().backward(inputs=[w]); return w.grad
@case
def create_graph(L):
    x = L.tensor([1.,2.], requires_grad=True); (x**3).sum().backward(create_graph=True)
    g = x.grad; r = (g.requires_grad, g.grad_fn is not None)
    return r, g
@case
def grad_of_grad(L):
    x = L.tensor([1.,2.], requires_grad=True); y = (x**3).sum()
    g, = L.autograd.grad(y, x, create_graph=True)
    gg, = L.autograd.grad(g.sum(), x)
    return g, gg
@case
def grad_basic(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([3.,4.], requires_grad=True)
    r = L.autograd.grad((x*w).sum(), [x, w]); return r, x.grad, w.grad
@case
def grad_unused(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([3.,4.], requires_grad=True)
    return L.autograd.grad((x*x).sum(), [x, w])
@case
def grad_allow_unused(L):
    x = L.tensor([1.,2.], requires_grad=True); w = L.tensor([3.,4.], requires_grad=True)
    return L.autograd.grad((x*x).sum(), [x, w], allow_unused=True)
@case
def grad_outputs(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad(x*x, x, grad_outputs=L.tensor([1., 10.]))
@case
def grad_multi(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad([(x*x).sum(), (x*3).sum()], x)
@case
def grad_multi_go(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad([x*x, x*3], x, grad_outputs=[L.ones(2), L.tensor([2.,2.])])
@case
def grad_multi_go_none(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad([(x*x).sum(), (x*3).sum()], x, grad_outputs=[None, L.tensor(2.)])
@case
def grad_go_count(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad([(x*x).sum(), (x*3).sum()], x, grad_outputs=[None])
@case
def grad_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*2; z = (y*y).sum()
    return L.autograd.grad(z, [y, x])
@case
def grad_nonscalar(L):
    x = L.tensor([1.,2.], requires_grad=True); return L.autograd.grad(x*2, x)
@case
def grad_noreq_input(L):
    x = L.tensor([1.,2.], requires_grad=True); return L.autograd.grad((x*2).sum(), L.ones(2))
@case
def grad_noreq_output(L):
    x = L.tensor([1.,2.], requires_grad=True); return L.autograd.grad(L.ones(2).sum(), x)
@case
def grad_twice(L):
    x = L.tensor([1.,2.], requires_grad=True); y = (x*x).sum(); L.autograd.grad(y, x); L.autograd.grad(y, x)
@case
def grad_empty_inputs(L):
    x = L.tensor([1.,2.], requires_grad=True); return L.autograd.grad((x*2).sum(), [])
@case
def ag_backward(L):
    x = L.tensor([1.,2.], requires_grad=True)
    L.autograd.backward([(x*x).sum(), x*3], [None, L.ones(2)]); return x.grad
@case
def ag_backward_bad(L):
    x = L.tensor([1.,2.], requires_grad=True)
    L.autograd.backward([(x*x).sum(), x*3], [None]); return x.grad
@case
def ag_backward_nonscalar(L):
    x = L.tensor([1.,2.], requires_grad=True)
    L.autograd.backward([x*3]); return x.grad
@case
def ag_backward_single(L):
    x = L.tensor([1.,2.], requires_grad=True)
    L.autograd.backward(x*3, L.ones(2)); return x.grad
@case
def grad_same_input_twice(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad((x*x).sum(), [x, x])
@case
def grad_bool_go(L):
    x = L.tensor([1.,2.], requires_grad=True)
    return L.autograd.grad(x*2, x, grad_outputs=L.ones(3))
@case
def bw_scalar_grad_shape(L):
    x = L.tensor([1.,2.], requires_grad=True)
    (x*2).sum().backward(L.tensor([2.])); return x.grad
@case
def bw_retain_on_leaf_out(L):
    x = L.tensor([1.,2.], requires_grad=True); x.sum().backward(); x.sum().backward(); return x.grad
@case
def hook_leaf(L):
    x = L.tensor([1.,2.], requires_grad=True); log = []
    x.register_hook(lambda g: log.append(("a", g.tolist())))
    x.register_hook(lambda g: log.append(("b", g.tolist())))
    (x*3).sum().backward(); return str(log), x.grad
@case
def hook_leaf_replace(L):
    x = L.tensor([1.,2.], requires_grad=True); log = []
    x.register_hook(lambda g: g*2)
    x.register_hook(lambda g: log.append(g.tolist()))
    (x*3).sum().backward(); return str(log), x.grad
@case
def hook_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); log = []
    y = x*3
    y.register_hook(lambda g: log.append(g.tolist()) or g*10)
    (y*y).sum().backward(); return str(log), x.grad, y.grad
@case
def hook_remove(L):
    x = L.tensor([1.,2.], requires_grad=True)
    h = x.register_hook(lambda g: g*2); h.remove()
    (x*3).sum().backward(); return x.grad
@case
def hook_remove_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*3
    h = y.register_hook(lambda g: g*2); h.remove(); h.remove()
    y.sum().backward(); return x.grad
@case
def hook_raises(L):
    x = L.tensor([1.,2.], requires_grad=True)
    def h(g): raise KeyError("boom")
    x.register_hook(h)
    (x*3).sum().backward()
@case
def hook_raises_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*3
    def h(g): raise ValueError("boom2")
    y.register_hook(h)
    y.sum().backward()
@case
def hook_noreq(L):
    x = L.tensor([1.,2.]); x.register_hook(lambda g: g)
@case
def hook_wrong_shape(L):
    x = L.tensor([1.,2.], requires_grad=True); x.register_hook(lambda g: L.ones(3))
    (x*3).sum().backward()
@case
def hook_wrong_type(L):
    x = L.tensor([1.,2.], requires_grad=True); x.register_hook(lambda g: 3)
    (x*3).sum().backward()
@case
def hook_wrong_dtype(L):
    x = L.tensor([1.,2.], requires_grad=True); x.register_hook(lambda g: g.double())
    (x*3).sum().backward(); return x.grad
@case
def hook_grad_mode(L):
    x = L.tensor([1.,2.], requires_grad=True); log=[]
    x.register_hook(lambda g: log.append(L.is_grad_enabled()))
    (x*3).sum().backward(); return str(log)
@case
def hook_on_retain(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*3; log=[]
    y.retain_grad(); y.register_hook(lambda g: g*2)
    y.sum().backward(); return y.grad, x.grad
@case
def hook_after_retain_order(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*3
    y.register_hook(lambda g: g*2); y.retain_grad()
    y.sum().backward(); return y.grad, x.grad
@case
def nograd_ctx(L):
    x = L.ones(2, requires_grad=True)
    with L.no_grad():
        y = x*2; e = L.is_grad_enabled()
        with L.enable_grad():
            z = x*2
    return y.requires_grad, y.grad_fn, z.requires_grad, e, L.is_grad_enabled()
@case
def nograd_deco(L):
    x = L.ones(2, requires_grad=True)
    @L.no_grad()
    def f(a): return a*2
    return f(x).requires_grad, L.is_grad_enabled()
@case
def nograd_gen(L):
    x = L.ones(2, requires_grad=True)
    @L.no_grad()
    def f(a):
        yield L.is_grad_enabled()
        yield (a*2).requires_grad
    return list(f(x)), L.is_grad_enabled()
@case
def set_grad_enabled_fn(L):
    x = L.ones(2, requires_grad=True)
    L.set_grad_enabled(False); y = x*2; L.set_grad_enabled(True); return y.requires_grad
@case
def set_grad_enabled_ctx(L):
    x = L.ones(2, requires_grad=True)
    with L.set_grad_enabled(False): y = x*2; a = L.is_grad_enabled()
    return y.requires_grad, a, L.is_grad_enabled()
@case
def inference(L):
    x = L.ones(2, requires_grad=True)
    with L.inference_mode():
        y = x*2; a = L.is_inference_mode_enabled(); b = L.is_grad_enabled()
    return y.requires_grad, a, b, L.is_inference_mode_enabled()
@case
def inference_false(L):
    x = L.ones(2, requires_grad=True)
    with L.inference_mode(False):
        y = x*2
    return y.requires_grad
@case
def inference_deco(L):
    x = L.ones(2, requires_grad=True)
    @L.inference_mode()
    def f(): return (x*2).requires_grad
    return f()
@case
def nograd_exc(L):
    try:
        with L.no_grad(): raise KeyError
    except KeyError: pass
    return L.is_grad_enabled()
@case
def autograd_ns(L):
    return L.autograd.no_grad is L.no_grad, L.autograd.grad_mode.no_grad is L.no_grad
@case
def version_leaf(L):
    x = L.tensor([1.,2.], requires_grad=True); a = x.detach(); y = x*a; a.add_(1); y.sum().backward()
@case
def version_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*2; z = y*y; y.add_(1); z.sum().backward()
@case
def version_result(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x.exp(); y.mul_(2); y.sum().backward()
@case
def version_result2(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x.exp(); z = y.sum(); y.add_(2); z.backward()
@case
def version_value(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*2; v0 = y._version; y.add_(1); return v0, y._version
@case
def inplace_leaf(L):
    x = L.tensor([1.,2.], requires_grad=True); x.add_(1)
@case
def inplace_leaf_view(L):
    x = L.tensor([1.,2.], requires_grad=True); x.narrow(0,0,1).mul_(2)
@case
def inplace_leaf_nograd(L):
    x = L.tensor([1.,2.], requires_grad=True)
    with L.no_grad(): x.add_(1)
    return x, x.requires_grad, x.is_leaf
@case
def inplace_nonleaf(L):
    x = L.tensor([1.,2.], requires_grad=True); y = x*2; y.mul_(3); y.sum().backward(); return x.grad, y.grad_fn.name()
@case
def inplace_view_nonleaf(L):
    x = L.tensor([1.,2.,3.], requires_grad=True); y = x*1; v = y.narrow(0,1,2); v.mul_(x.narrow(0,0,2))
    (y*y).sum().backward(); return x.grad, y.grad_fn.name(), v.grad_fn.name()
@case
def inplace_view_nonleaf2(L):
    x = L.tensor([[1.,2.],[3.,4.]], requires_grad=True); y = x.exp(); y.t().select(0,1).mul_(2)
    (y*y).sum().backward(); return x.grad
@case
def out_req(L):
    x = L.tensor([1.,2.], requires_grad=True); o = L.empty(2); L.mul(x, 2, out=o)
@case
def out_req_exp(L):
    x = L.tensor([1.,2.], requires_grad=True); o = L.empty(2); L.exp(x, out=o)
@case
def out_req_nograd(L):
    x = L.tensor([1.,2.], requires_grad=True); o = L.empty(2)
    with L.no_grad(): L.exp(x, out=o)
    return o
@case
def cmp_req(L):
    x = L.tensor([1.,2.], requires_grad=True); return x > 1, x == x, x.argmax(), (x > 1).requires_grad, x.argmax().requires_grad
@case
def detach_inplace_version(L):
    x = L.tensor([1.,2.], requires_grad=True); y = (x*x).sum(); x.detach().mul_(2); y.backward(); return x.grad
@case
def nograd_inplace_version(L):
    x = L.tensor([1.,2.], requires_grad=True); y = (x*x).sum()
    with L.no_grad(): x.mul_(2)
    y.backward(); return x.grad
@case
def sgd_like(L):
    w = L.tensor([1.,2.], requires_grad=True)
    for i in range(3):
        loss = (w*w).sum(); loss.backward()
        with L.no_grad(): w.sub_(0.1*w.grad)
        w.grad.zero_()
    return w
@case
def sgd_data(L):
    w = L.tensor([1.,2.], requires_grad=True)
    for i in range(3):
        loss = (w*w).sum(); loss.backward()
        w.data.sub_(0.1*w.grad); w.grad = None
    return w

@case
def gradfn_next_structure(L):
    x = L.ones(2, requires_grad=True)
    w = L.ones(2)
    y = (x * w + x).sum(0)

    def walk(f):
        if f is None:
            return None
        return (f.name(), [(walk(g), nr) for g, nr in f.next_functions])
    return str(walk(y.grad_fn))


@case
def gradfn_next_multi_output(L):
    x = L.ones(4, requires_grad=True)
    a, b = x.split(2)
    return [(f.name() if f else None, nr) for f, nr in (a * b).grad_fn.next_functions]


@case
def retain_after_hooks(L):
    # PyTorch 1.13: a tensor's Python hooks act as one hook placed at the first registration
    x = L.tensor([1., 2.], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    y.register_hook(lambda g: g * 5)
    y.sum().backward()
    return y.grad, x.grad


@case
def retain_before_hooks(L):
    x = L.tensor([1., 2.], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    y.sum().backward()
    return y.grad, x.grad


@case
def retain_through_inplace(L):
    x = L.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    return y.grad, y.retains_grad, x.grad


@case
def retain_accumulates(L):
    x = L.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    z.backward()
    return y.grad, x.grad


@case
def version_factory_leaf(L):
    x = L.ones(2, requires_grad=True)
    y = (x * x).sum()
    with L.no_grad():
        x.mul_(2)
    y.backward()


@case
def version_counts(L):
    x = L.ones(2)
    v = [x._version]
    x.add_(1)
    v.append(x._version)
    x.mul_(2)
    v.append(x._version)
    x.narrow(0, 0, 1).zero_()
    v.append(x._version)
    return v, (x * 2)._version


def fresh_versions(L):
    x = L.rand(3, 4)
    fresh = [L.ones(3), L.full((2,), 1.0), L.rand(3), L.randn(3), x.t().contiguous(), x.clone(),
             L.nn.functional.dropout(x, 0.5), x.masked_fill(x > 0.5, 0.0),
             x.index_fill(0, L.tensor([0]), 1.0), x.to(L.float64), x @ x.t(), L.cat([x, x]),
             L.stack([x, x]), L.ones_like(x), L.full_like(x, 2.0), L.rand_like(x),
             L.where(x > 0.5, x, 0.0), x.clamp(0.2, 0.4), x.bernoulli(), x.topk(2)[0],
             x.cumsum(0), L.tensor([1.0])]
    return [t._version for t in fresh]


@case
def version_fresh_results(L):
    # a fresh result starts at version 0 however its op filled it (ones: fill_), whether or
    # not some tensor requires grad (the dispatcher's two paths)
    plain = fresh_versions(L)
    w = L.ones(1, requires_grad=True)
    return plain, fresh_versions(L), w._version


@case
def version_one_per_write(L):
    # one version per in-place or out= call however the kernel writes (addmm out= copies the
    # bias first), none for the metadata-only ones
    x, v = L.rand(3, 3), L.rand(3)
    o, ov, ob = L.empty(3, 3), L.empty(3), L.empty(2, 3, 3)
    L.mm(x, x, out=o)
    L.mv(x, v, out=ov)
    L.bmm(L.rand(2, 3, 3), L.rand(2, 3, 3), out=ob)
    b, c = L.rand(3, 3), L.rand(3)
    b.addmm_(x, x)
    c.addmv_(x, v)
    versions = [o._version, ov._version, ob._version, b._version, c._version]
    L.addmm(b, x, x, out=o)
    versions.append(o._version)
    for method, args in (("detach_", ()), ("t_", ()), ("squeeze_", ()), ("unsqueeze_", (0,)),
                         ("transpose_", (0, 1)), ("as_strided_", ((2,), (1,))), ("resize_", (4,)),
                         ("rename_", ("a", "b")), ("requires_grad_", ()), ("fill_", (1,)),
                         ("zero_", ())):
        y = L.rand(2, 3)
        getattr(y, method)(*args)
        versions.append(y._version)
    return versions


@case
def version_out(L):
    x = L.ones(2)
    o = L.empty(2)
    L.mul(x, 2, out=o)
    return o._version


@case
def create_graph_grad_requires(L):
    x = L.tensor([1., 2.], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    g2, = L.autograd.grad(g.sum(), x)
    return g.requires_grad, g2


@case
def third_order(L):
    x = L.tensor([1., 2.], requires_grad=True)
    g1, = L.autograd.grad((x ** 4).sum(), x, create_graph=True)
    g2, = L.autograd.grad(g1.sum(), x, create_graph=True)
    g3, = L.autograd.grad(g2.sum(), x)
    return g1, g2, g3


@case
def grad_does_not_touch_grad(L):
    x = L.tensor([1., 2.], requires_grad=True)
    L.autograd.grad((x * x).sum(), x)
    return x.grad


@case
def grad_retain_graph(L):
    x = L.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    a = L.autograd.grad(y, x, retain_graph=True)
    b = L.autograd.grad(y, x)
    return a, b


@case
def backward_inputs_accumulate(L):
    x = L.tensor([1., 2.], requires_grad=True)
    w = L.tensor([3., 4.], requires_grad=True)
    y = (x * w).sum()
    y.backward(inputs=[x], retain_graph=True)
    y.backward(inputs=[x, w])
    return x.grad, w.grad


@case
def hook_grad_of_nonleaf_chain(L):
    x = L.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = y * 3
    log = []
    y.register_hook(lambda g: log.append(("y", g.tolist())))
    z.register_hook(lambda g: log.append(("z", g.tolist())))
    (z * z).sum().backward()
    return str(log), x.grad


@case
def hook_returns_none_keeps(L):
    x = L.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: None)
    (x * 3).sum().backward()
    return x.grad


@case
def hook_handle_context(L):
    x = L.tensor([1., 2.], requires_grad=True)
    with x.register_hook(lambda g: g * 100):
        pass
    (x * 3).sum().backward()
    return x.grad


@case
def set_grad_enabled_call(L):
    x = L.ones(2, requires_grad=True)
    L.set_grad_enabled(False)
    try:
        y = x * 2
    finally:
        L.set_grad_enabled(True)
    return y.requires_grad, L.is_grad_enabled()


@case
def nested_modes(L):
    x = L.ones(2, requires_grad=True)
    out = []
    with L.no_grad():
        with L.enable_grad():
            with L.set_grad_enabled(False):
                out.append((x * 2).requires_grad)
            out.append((x * 2).requires_grad)
        out.append((x * 2).requires_grad)
    out.append((x * 2).requires_grad)
    return out


@case
def enable_grad_deco(L):
    x = L.ones(2, requires_grad=True)

    @L.enable_grad()
    def f():
        return (x * 2).requires_grad
    with L.no_grad():
        return f(), L.is_grad_enabled()


@case
def nograd_gen_send(L):
    @L.no_grad()
    def f():
        got = yield L.is_grad_enabled()
        yield got, L.is_grad_enabled()
        return
    g = f()
    first = next(g)
    second = g.send(5)
    return first, second, L.is_grad_enabled()


@case
def inplace_in_nograd_on_view_of_leaf(L):
    x = L.tensor([1., 2.], requires_grad=True)
    with L.no_grad():
        x.narrow(0, 0, 1).mul_(5)
    (x * x).sum().backward()
    return x.grad


@case
def no_grad_results(L):
    x = L.ones(2, requires_grad=True)
    with L.no_grad():
        ys = [x * 2, x.exp(), x.sum(), x + x, x.matmul(x)]
    return [(y.requires_grad, y.grad_fn is None, y.is_leaf) for y in ys]


@case
def int_results_of_grad_inputs(L):
    x = L.tensor([1.5, -2.0], requires_grad=True)
    return x.argmax(), x.argmin(), x.gt(0), x.isfinite(), x.eq(x), x.ne(1.5), x.isnan()


@case
def requires_grad_float_dtypes(L):
    return [L.ones(2, dtype=d, requires_grad=True).requires_grad
            for d in (L.float16, L.bfloat16, L.float32, L.float64)]


@case
def requires_grad_bool(L):
    return L.ones(2, dtype=L.bool, requires_grad=True)


@case
def requires_grad_off(L):
    x = L.ones(2, requires_grad=True)
    x.requires_grad_(False)
    return x.requires_grad, (x * 2).requires_grad


@case
def backward_twice_message_exp(L):
    x = L.ones(2, requires_grad=True)
    y = x.exp()
    z = y.sum()
    z.backward()
    z.backward()


@case
def grad_nonleaf_input_and_leaf(L):
    x = L.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    z = (y * x).sum()
    return L.autograd.grad(z, [x, y])



@case
def gradfn_names_by_overload(L):
    x = L.ones(2, 3, requires_grad=True)
    return [y.grad_fn.name() for y in (x.sum(), x.sum(0), x.sum([]), x.sum(dtype=L.float64),
                                       x.mean(), x.mean(1), x.sum((0, 1)),
                                       x.prod(), x.prod(1))]


@case
def detach_inplace_on_views(L):
    x = L.ones(2, 3, requires_grad=True)
    out = []
    for make in (lambda: x.narrow(0, 0, 1), lambda: x.t(), lambda: (x * 2).select(0, 1)):
        try:
            make().detach_()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@case
def detach_shares_memory(L):
    x = L.ones(2, requires_grad=True)
    d = x.detach()
    d.mul_(3)
    return x, d.requires_grad, d.is_leaf, d.grad_fn


@case
def inference_mode_false_enables_grad(L):
    out = []
    with L.no_grad():
        with L.inference_mode(False):
            out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))
    with L.inference_mode():
        with L.inference_mode(False):
            out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))
        with L.no_grad():
            out.append(L.is_grad_enabled())
        out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))
    out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))
    return out


@case
def data_set(L):
    x = L.ones(2, requires_grad=True)
    x.data = L.zeros(3)
    return x, x.requires_grad, x.is_leaf


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_same_as_torch(fn):
    with torch.enable_grad(), nt.enable_grad():
        got, want = outcome(fn, nt), outcome(fn, torch)
    assert got == want
