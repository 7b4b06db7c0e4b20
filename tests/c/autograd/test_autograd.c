/*
 * test_autograd.c — the public autograd API (ntensor/autograd.h), function by function: grad
 * mode, requires_grad, leaves, grads (with names), retain_grad, grad_fn walking, hooks, backward
 * and nt_autograd_grad; values checked against PyTorch 1.13, and the status and message of each
 * bad input (NULL tensors, integer tensors, mismatched gradients). Every tensor is released, so
 * the ASan build checks for leaks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "nt_test.h"

/* A float64 vector (or a 0-dim tensor when n == 0) of the given values. */
static nt_tensor *vec(int n, const double *values) {
    nt_tensor *t = NULL;
    int64_t size = n;
    nt_status st = nt_from_buffer(values, NT_FLOAT64, n ? 1 : 0, &size, NULL, &t);
    return st == NT_OK ? t : NULL;
}

static nt_tensor *leaf(int n, const double *values) {
    nt_tensor *t = vec(n, values);
    if (t && nt_set_requires_grad(t, true) != NT_OK) {
        nt_tensor_release(t);
        return NULL;
    }
    return t;
}

/* Whether t (float64) holds exactly `want`; releases t. */
static bool holds(nt_tensor *t, int n, const double *want) {
    if (!t) return false;
    nt_tensor *c = NULL;
    bool ok = nt_contiguous(t, &c) == NT_OK && nt_tensor_dtype(c) == NT_FLOAT64 &&
              nt_tensor_numel(c) == (n ? n : 1) &&
              !memcmp(nt_tensor_data(c), want, (size_t)(n ? n : 1) * sizeof(double));
    nt_tensor_release(c);
    nt_tensor_release(t);
    return ok;
}

/* sum(x * x * w) as a 0-dim tensor */
static nt_tensor *cube_sum(nt_tensor *x, nt_tensor *w) {
    nt_tensor *a = NULL, *b = NULL, *s = NULL;
    if (nt_mul(x, x, &a) == NT_OK && nt_mul(a, w, &b) == NT_OK) nt_sum(b, 0, NULL, false, -1, &s);
    nt_tensor_release(a);
    nt_tensor_release(b);
    return s;
}

static void test_grad_mode(void) {
    EXPECT(nt_is_grad_enabled());
    EXPECT(nt_set_grad_enabled(false));
    EXPECT(!nt_is_grad_enabled());
    nt_tensor *x = leaf(2, (double[]){1, 2}), *y = NULL;
    EXPECT_OK(nt_mul(x, x, &y));
    EXPECT(!nt_requires_grad(y) && nt_is_leaf(y) && !nt_grad_fn_name(y));
    nt_tensor_release(y);
    EXPECT(!nt_set_grad_enabled(true));
    EXPECT(!nt_is_inference_mode_enabled());
    EXPECT(!nt_set_inference_mode(true));
    EXPECT(nt_is_inference_mode_enabled() && !nt_is_grad_enabled());
    EXPECT_OK(nt_mul(x, x, &y)); /* not recorded in inference mode */
    EXPECT(!nt_requires_grad(y));
    nt_tensor_release(y);
    EXPECT(nt_set_inference_mode(false));
    EXPECT(nt_is_grad_enabled());
    EXPECT_OK(nt_mul(x, x, &y));
    EXPECT(nt_requires_grad(y) && !nt_is_leaf(y));
    EXPECT(!strcmp(nt_grad_fn_name(y), "MulBackward0"));
    nt_tensor_release(y);
    nt_tensor_release(x);
}

static void test_requires_grad(void) {
    nt_tensor *x = vec(2, (double[]){1, 2}), *i = NULL, *y = NULL;
    EXPECT(!nt_requires_grad(x) && nt_is_leaf(x));
    EXPECT_OK(nt_set_requires_grad(x, true));
    EXPECT(nt_requires_grad(x) && nt_is_leaf(x));
    EXPECT_OK(nt_set_requires_grad(x, false));
    EXPECT(!nt_requires_grad(x));
    EXPECT_OK(nt_set_requires_grad(x, true));
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_INT64, NULL, &i));
    EXPECT_FAIL(nt_set_requires_grad(i, true), NT_ERR_RUNTIME,
                "only Tensors of floating point and complex dtype can require gradients");
    EXPECT_OK(nt_set_requires_grad(i, false));
    EXPECT_FAIL(nt_set_requires_grad(NULL, true), NT_ERR_TYPE,
                "requires_grad_(): argument 'self' must be Tensor, not NULL");
    EXPECT_OK(nt_mul(x, x, &y));
    EXPECT_OK(nt_set_requires_grad(y, true)); /* a non-leaf already requires grad */
    EXPECT_ERR(nt_set_requires_grad(y, false), NT_ERR_RUNTIME,
               "you can only change requires_grad flags of leaf variables.");
    EXPECT(!nt_requires_grad(NULL) && nt_is_leaf(NULL) && !nt_grad(NULL) && !nt_retains_grad(NULL));
    EXPECT(!nt_grad_fn_name(NULL) && !nt_tensor_grad_fn(NULL));
    nt_tensor_release(y);
    nt_tensor_release(i);
    nt_tensor_release(x);
}

static void test_set_grad(void) {
    nt_name names[1], other[1];
    EXPECT_OK(nt_name_intern("N", &names[0]));
    EXPECT_OK(nt_name_intern("M", &other[0]));
    nt_tensor *x = NULL, *g = NULL, *f = NULL, *big = NULL, *bad = NULL;
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_FLOAT64, names, &x));
    EXPECT(!nt_grad(x));
    EXPECT_OK(nt_full(1, (int64_t[]){2}, nt_scalar_float(3), NT_FLOAT64, NULL, &g));
    EXPECT_OK(nt_set_grad(x, g));
    nt_tensor *got = nt_grad(x); /* named as x, the same values */
    EXPECT(got && nt_tensor_names(got) && nt_tensor_names(got)[0] == names[0]);
    EXPECT(holds(got, 2, (double[]){3, 3}));
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_FLOAT32, NULL, &f));
    EXPECT_FAIL(nt_set_grad(x, f), NT_ERR_RUNTIME, "assigned grad has data of a different type");
    EXPECT_OK(nt_ones(1, (int64_t[]){3}, NT_FLOAT64, NULL, &big));
    EXPECT_FAIL(nt_set_grad(x, big), NT_ERR_RUNTIME, "assigned grad has data of a different size");
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_FLOAT64, other, &bad));
    EXPECT_FAIL(nt_set_grad(x, bad), NT_ERR_RUNTIME,
                "assigning .grad: the gradient's names ['M'] do not match the tensor's names "
                "['N'] (dim 0: 'M' vs 'N')");
    EXPECT_FAIL(nt_set_grad(NULL, g), NT_ERR_TYPE,
                "set_grad(): argument 'self' must be Tensor, not NULL");
    EXPECT_OK(nt_set_grad(x, NULL));
    EXPECT(!nt_grad(x));
    nt_tensor *all[] = {x, g, f, big, bad};
    for (int i = 0; i < 5; i++)
        nt_tensor_release(all[i]);
}

static void test_backward_values(void) {
    nt_tensor *x = leaf(2, (double[]){1, 2}), *w = vec(2, (double[]){3, 4});
    nt_tensor *s = cube_sum(x, w);
    EXPECT(s && !strncmp(nt_grad_fn_name(s), "SumBackward", 11));
    EXPECT_OK(nt_backward(1, &s, NULL, true, false, 0, NULL));
    EXPECT(holds(nt_grad(x), 2, (double[]){6, 16}));            /* 2 x w */
    EXPECT_OK(nt_backward(1, &s, NULL, false, false, 0, NULL)); /* accumulates */
    EXPECT(holds(nt_grad(x), 2, (double[]){12, 32}));
    EXPECT_ERR(nt_backward(1, &s, NULL, false, false, 0, NULL), NT_ERR_RUNTIME,
               "Trying to backward through the graph a second time");
    EXPECT(!nt_grad(w));
    nt_tensor_release(s);
    /* a non-scalar output with a gradient, and without one */
    nt_tensor *y = NULL, *go = vec(2, (double[]){1, 10}), *wrong = vec(1, (double[]){1});
    EXPECT_OK(nt_set_grad(x, NULL));
    EXPECT_OK(nt_mul(x, w, &y));
    EXPECT_FAIL(nt_backward(1, &y, NULL, true, false, 0, NULL), NT_ERR_RUNTIME,
                "grad can be implicitly created only for scalar outputs");
    nt_tensor *gl[1] = {wrong};
    EXPECT_FAIL(nt_backward(1, &y, gl, true, false, 0, NULL), NT_ERR_RUNTIME,
                "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] "
                "has a shape of torch.Size([2]).");
    gl[0] = go;
    EXPECT_OK(nt_backward(1, &y, gl, false, false, 0, NULL));
    EXPECT(holds(nt_grad(x), 2, (double[]){3, 40}));
    /* bad arguments */
    EXPECT_FAIL(nt_backward(0, &y, NULL, false, false, 0, NULL), NT_ERR_VALUE,
                "backward: no outputs");
    nt_tensor *null_out[1] = {NULL};
    EXPECT_FAIL(nt_backward(1, null_out, NULL, false, false, 0, NULL), NT_ERR_VALUE,
                "backward: output 0 is NULL");
    EXPECT_FAIL(nt_backward(1, &w, NULL, false, false, 0, NULL), NT_ERR_RUNTIME,
                "element 0 of tensors does not require grad and does not have a grad_fn");
    EXPECT_FAIL(nt_backward(1, &y, NULL, false, false, 1, &w), NT_ERR_RUNTIME,
                "can't retain_grad on Tensor that has requires_grad=False");
    EXPECT_FAIL(nt_backward(1, &y, NULL, false, false, 1, null_out), NT_ERR_VALUE,
                "backward: input 0 is NULL");
    nt_tensor *all[] = {x, w, y, go, wrong};
    for (int i = 0; i < 5; i++)
        nt_tensor_release(all[i]);
}

static void test_backward_inputs_and_create_graph(void) {
    nt_tensor *x = leaf(2, (double[]){1, 2}), *w = leaf(2, (double[]){3, 4});
    nt_tensor *s = cube_sum(x, w);
    EXPECT_OK(nt_backward(1, &s, NULL, true, false, 1, &w)); /* only into w */
    EXPECT(!nt_grad(x));
    EXPECT(holds(nt_grad(w), 2, (double[]){1, 4}));
    /* create_graph: x.grad is itself differentiable */
    EXPECT_OK(nt_backward(1, &s, NULL, false, true, 1, &x));
    nt_tensor *g = nt_grad(x), *gs = NULL, *gg[2] = {NULL, NULL};
    EXPECT(g && nt_requires_grad(g));
    EXPECT_OK(nt_sum(g, 0, NULL, false, -1, &gs));
    nt_tensor *both[2] = {x, w};
    EXPECT_OK(nt_autograd_grad(1, &gs, NULL, 2, both, false, false, false, gg));
    EXPECT(holds(gg[0], 2, (double[]){6, 8})); /* d(sum 2 x w)/dx = 2 w */
    EXPECT(holds(gg[1], 2, (double[]){2, 4})); /* ... /dw = 2 x */
    nt_tensor_release(g);
    nt_tensor_release(gs);
    nt_tensor_release(s);
    /* with create_graph x.grad's graph reaches x: a cycle (as PyTorch's), broken by hand */
    EXPECT_OK(nt_set_grad(x, NULL));
    nt_tensor_release(x);
    nt_tensor_release(w);
}

static void test_autograd_grad(void) {
    nt_tensor *x = leaf(2, (double[]){1, 2}), *w = leaf(2, (double[]){3, 4});
    nt_tensor *u = leaf(2, (double[]){0, 0}), *y = NULL, *s = NULL, *out[3] = {NULL};
    EXPECT_OK(nt_mul(x, w, &y));
    EXPECT_OK(nt_sum(y, 0, NULL, false, -1, &s));
    nt_tensor *ins[3] = {x, y, u};
    EXPECT_FAIL(nt_autograd_grad(1, &s, NULL, 3, ins, true, false, false, out), NT_ERR_RUNTIME,
                "One of the differentiated Tensors appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.");
    EXPECT(!out[0] && !out[1] && !out[2]);
    EXPECT_OK(nt_autograd_grad(1, &s, NULL, 3, ins, true, false, true, out));
    EXPECT(holds(out[0], 2, (double[]){3, 4}));
    EXPECT(holds(out[1], 2, (double[]){1, 1})); /* a non-leaf input */
    EXPECT(!out[2]);
    EXPECT(!nt_grad(x) && !nt_grad(w)); /* grads untouched */
    /* grad_outputs */
    nt_tensor *go = vec(2, (double[]){2, 5}), *gl[1] = {go};
    EXPECT_OK(nt_autograd_grad(1, &y, gl, 1, &w, true, false, false, out));
    EXPECT(holds(out[0], 2, (double[]){2, 10}));
    /* bad arguments */
    nt_tensor *plain = vec(2, (double[]){1, 1});
    EXPECT_FAIL(nt_autograd_grad(1, &s, NULL, 0, ins, true, false, false, out), NT_ERR_VALUE,
                "grad requires non-empty inputs.");
    EXPECT_FAIL(nt_autograd_grad(1, &s, NULL, 1, &plain, true, false, false, out), NT_ERR_RUNTIME,
                "One of the differentiated Tensors does not require grad");
    EXPECT_FAIL(nt_autograd_grad(1, &s, NULL, 1, &x, true, false, false, NULL), NT_ERR_VALUE,
                "grad: grads_out is NULL");
    nt_tensor *all[] = {x, w, u, y, s, go, plain};
    for (int i = 0; i < 7; i++)
        nt_tensor_release(all[i]);
}

static void test_retain_grad_and_grad_fn(void) {
    nt_tensor *x = leaf(2, (double[]){1, 2}), *c = vec(2, (double[]){5, 5});
    nt_tensor *y = NULL, *z = NULL, *s = NULL;
    EXPECT_FAIL(nt_retain_grad(c), NT_ERR_RUNTIME,
                "can't retain_grad on Tensor that has requires_grad=False");
    EXPECT_FAIL(nt_retain_grad(NULL), NT_ERR_TYPE,
                "retain_grad(): argument 'self' must be Tensor, not NULL");
    EXPECT_OK(nt_retain_grad(x)); /* no-op on a leaf */
    EXPECT(!nt_retains_grad(x));
    EXPECT_OK(nt_mul(x, c, &y));
    EXPECT_OK(nt_retain_grad(y));
    EXPECT(nt_retains_grad(y));
    EXPECT_OK(nt_mul(y, y, &z));
    EXPECT_OK(nt_sum(z, 0, NULL, false, -1, &s));
    /* walk z's grad_fn: MulBackward0 -> (MulBackward0 of y, 0) twice; y's -> (leaf x, none) */
    nt_grad_fn *fz = nt_tensor_grad_fn(z);
    EXPECT(fz && !strcmp(nt_grad_fn_name_of(fz), "MulBackward0"));
    EXPECT(nt_grad_fn_num_next(fz) == 2);
    int nr = -1;
    nt_tensor *lf = NULL;
    nt_grad_fn *fy = nt_grad_fn_next(fz, 1, &nr, &lf);
    EXPECT(fy && nr == 0 && !lf && fy == nt_tensor_grad_fn(y));
    nt_grad_fn_release(fy); /* the second reference, from nt_tensor_grad_fn */
    nt_grad_fn *none = nt_grad_fn_next(fy, 0, &nr, &lf);
    EXPECT(!none && lf == x);
    nt_tensor_release(lf);
    EXPECT(!nt_grad_fn_next(fy, 1, &nr, &lf) && !lf); /* c does not require grad */
    EXPECT(!nt_grad_fn_next(fy, 2, &nr, &lf) && !lf && !nt_grad_fn_next(NULL, 0, &nr, &lf));
    EXPECT(!nt_grad_fn_name_of(NULL) && nt_grad_fn_num_next(NULL) == 0);
    nt_grad_fn_release(fy);
    nt_grad_fn_release(fz);
    nt_grad_fn_release(NULL);
    EXPECT(!nt_tensor_grad_fn(x));
    EXPECT_OK(nt_backward(1, &s, NULL, false, false, 0, NULL));
    EXPECT(holds(nt_grad(y), 2, (double[]){10, 20}));
    EXPECT(holds(nt_grad(x), 2, (double[]){50, 100}));
    nt_tensor *all[] = {x, c, y, z, s};
    for (int i = 0; i < 5; i++)
        nt_tensor_release(all[i]);
}

/* ---- hooks ---- */

typedef struct {
    int calls;
    double scale;       /* replace the gradient by scale * grad (0: keep it) */
    nt_tensor *replace; /* or by this tensor */
    nt_status fail;
    int *freed;
} hook_ctx;

static nt_status hook(void *p, nt_tensor *grad, nt_tensor **replacement) {
    hook_ctx *h = p;
    h->calls++;
    if (h->fail != NT_OK) return nt_fail(h->fail, "the hook failed");
    if (h->replace)
        *replacement = nt_tensor_retain(h->replace);
    else if (h->scale != 0) {
        nt_tensor *k = NULL;
        nt_status st = nt_full(0, NULL, nt_scalar_float(h->scale), NT_FLOAT64, NULL, &k);
        if (st == NT_OK) st = nt_mul(grad, k, replacement);
        nt_tensor_release(k);
        return st;
    }
    return NT_OK;
}

static void free_ctx(void *p) {
    (*((hook_ctx *)p)->freed)++;
}

static void test_hooks(void) {
    int freed = 0;
    hook_ctx a = {.scale = 2, .freed = &freed}, b = {.freed = &freed};
    nt_tensor *x = leaf(2, (double[]){1, 2}), *c = vec(2, (double[]){3, 3}), *y = NULL, *s = NULL;
    int64_t ida = 0, idb = 0;
    EXPECT_FAIL(nt_register_hook(c, hook, &a, NULL, &ida), NT_ERR_RUNTIME,
                "cannot register a hook on a tensor that doesn't require gradient");
    EXPECT_FAIL(nt_register_hook(NULL, hook, &a, NULL, &ida), NT_ERR_TYPE,
                "register_hook(): argument 'self' must be Tensor, not NULL");
    EXPECT_ERR(nt_register_hook(x, NULL, &a, NULL, &ida), NT_ERR_VALUE, "must not be NULL");
    EXPECT_OK(nt_register_hook(x, hook, &a, free_ctx, &ida));
    EXPECT_OK(nt_register_hook(x, hook, &b, free_ctx, &idb));
    EXPECT(ida > 0 && idb > 0 && ida != idb);
    EXPECT_OK(nt_mul(x, c, &y));
    EXPECT_OK(nt_sum(y, 0, NULL, false, -1, &s));
    EXPECT_OK(nt_backward(1, &s, NULL, true, false, 0, NULL));
    EXPECT(a.calls == 1 && b.calls == 1);
    EXPECT(holds(nt_grad(x), 2, (double[]){6, 6}));
    EXPECT(nt_remove_hook(x, ida));
    EXPECT(!nt_remove_hook(x, ida) && !nt_remove_hook(x, 0) && !nt_remove_hook(NULL, idb));
    EXPECT(freed == 1);
    /* a replacement of the wrong size, dtype; a failing hook stops the pass */
    nt_tensor *big = vec(3, (double[]){1, 1, 1}), *f32 = NULL;
    EXPECT_OK(nt_ones(1, (int64_t[]){2}, NT_FLOAT32, NULL, &f32));
    b.replace = big;
    EXPECT_FAIL(nt_backward(1, &s, NULL, true, false, 0, NULL), NT_ERR_RUNTIME,
                "hook has changed the size of value");
    b.replace = f32;
    EXPECT_FAIL(nt_backward(1, &s, NULL, true, false, 0, NULL), NT_ERR_RUNTIME,
                "hook has changed the type of value (was torch.DoubleTensor got "
                "torch.FloatTensor)");
    b.replace = NULL;
    b.fail = NT_ERR_VALUE;
    EXPECT_FAIL(nt_backward(1, &s, NULL, true, false, 0, NULL), NT_ERR_VALUE, "the hook failed");
    b.fail = NT_OK;
    /* a hook on a non-leaf, freed with its graph */
    hook_ctx n = {.scale = 10, .freed = &freed};
    int64_t idn = 0;
    EXPECT_OK(nt_register_hook(y, hook, &n, free_ctx, &idn));
    EXPECT_OK(nt_set_grad(x, NULL));
    EXPECT_OK(nt_backward(1, &s, NULL, false, false, 0, NULL));
    EXPECT(n.calls == 1 && holds(nt_grad(x), 2, (double[]){30, 30}));
    nt_tensor *all[] = {c, y, s, big, f32};
    for (int i = 0; i < 5; i++)
        nt_tensor_release(all[i]);
    EXPECT(freed == 2); /* the graph died with y and s */
    nt_tensor_release(x);
    EXPECT(freed == 3); /* b, with x */
}

static void test_version_and_inplace(void) {
    nt_tensor *x = leaf(2, (double[]){1, 2}), *y = NULL, *z = NULL, *s = NULL, *two = NULL;
    EXPECT(nt_tensor_version(x) == 0);
    EXPECT_OK(nt_full(0, NULL, nt_scalar_float(2), NT_FLOAT64, NULL, &two));
    EXPECT_FAIL(nt_binary_(NT_BINARY_MUL, x, two), NT_ERR_RUNTIME,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    EXPECT_OK(nt_mul(x, two, &y));
    EXPECT(nt_tensor_version(y) == 0);
    EXPECT_OK(nt_mul(y, y, &z));
    EXPECT_OK(nt_sum(z, 0, NULL, false, -1, &s));
    EXPECT_OK(nt_binary_(NT_BINARY_ADD, y, two));
    EXPECT(nt_tensor_version(y) == 1);
    EXPECT_FAIL(nt_backward(1, &s, NULL, false, false, 0, NULL), NT_ERR_RUNTIME,
                "one of the variables needed for gradient computation has been modified by an "
                "inplace operation: [torch.DoubleTensor [2]], which is output 0 of AddBackward0, "
                "is at version 1; expected version 0 instead. Hint: enable anomaly detection to "
                "find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True).");
    /* the in-place op itself is recorded: y = 2x + 2, d sum(y)/dx = 2 */
    nt_tensor *sy = NULL;
    EXPECT_OK(nt_sum(y, 0, NULL, false, -1, &sy));
    EXPECT_OK(nt_backward(1, &sy, NULL, false, false, 0, NULL));
    EXPECT(holds(nt_grad(x), 2, (double[]){2, 2}));
    nt_tensor *all[] = {x, y, z, s, two, sy};
    for (int i = 0; i < 6; i++)
        nt_tensor_release(all[i]);
}

int main(void) {
    NT_RUN(test_grad_mode);
    NT_RUN(test_requires_grad);
    NT_RUN(test_set_grad);
    NT_RUN(test_backward_values);
    NT_RUN(test_backward_inputs_and_create_graph);
    NT_RUN(test_autograd_grad);
    NT_RUN(test_retain_grad_and_grad_fn);
    NT_RUN(test_hooks);
    NT_RUN(test_version_and_inplace);
    return nt_test_summary();
}
