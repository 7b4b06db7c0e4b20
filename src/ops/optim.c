/*
 * optim.c — the fused optimizer steps (layer L4): _fused_sgd_, _fused_adam_ and
 * _fused_adamw_ update every parameter of a group, and its state, in place in one call
 * (ntensor/optim.h). ntensor.optim's SGD, Adam and AdamW call them once per group.
 *
 * The lists are parallel: entry i of each belongs to parameter i. Everything is checked
 * before anything is written (lengths, floating dtypes, equal dtypes and shapes, names that
 * agree, no shared memory among one parameter's tensors, one-element step counters), so a
 * failed call changes nothing. Then each parameter is one pass over its elements
 * (kernels/optim_kernels.c): contiguous tensors as one flat run, in parallel when large;
 * strided ones through the iterator. The ops are not differentiable and record nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "dispatch/dispatch.h"
#include "iter/iter.h"
#include "kernels/optim_kernels.h"

/* The tensor lists of one call, by role; list 0 holds the parameters. */
#define MAX_LISTS 6

typedef struct step_lists {
    const char *fn;               /* "_fused_adam_" */
    int nlists;                   /* lists with one tensor per parameter (the step last) */
    const char *names[MAX_LISTS]; /* "self", "grads", ... */
    nt_tensor *const *lists[MAX_LISTS];
    int64_t n;     /* parameters */
    int nupdated;  /* lists 0 .. nupdated-1 are written element by element, list
                      nupdated is the grads (read) */
    bool has_step; /* the last list holds step counters, not elementwise state */
} step_lists;

static nt_status fail_names(const step_lists *s, int l, int64_t i, const nt_tensor *t,
                            const nt_tensor *p) {
    char a[256], b[256];
    nt_names_repr(t->names, t->ndim, a, sizeof a);
    nt_names_repr(p->names, p->ndim, b, sizeof b);
    return nt_fail(NT_ERR_RUNTIME,
                   "%s(): %s[%lld] has names %s but its parameter self[%lld] has %s", s->fn,
                   s->names[l], (long long)i, a, (long long)i, b);
}

static void sizes_repr(const nt_tensor *t, char *buf, size_t cap) {
    int len = snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && len < (int)cap; d++)
        len +=
            snprintf(buf + len, cap - (size_t)len, d ? ", %lld" : "%lld", (long long)t->sizes[d]);
    if (len < (int)cap) snprintf(buf + len, cap - (size_t)len, "]");
}

/* Names agree when each dim named in both has one name (None is the wildcard). */
static bool names_agree(const nt_tensor *t, const nt_tensor *p) {
    if (!t->names || !p->names) return true;
    for (int d = 0; d < t->ndim; d++)
        if (t->names[d] && p->names[d] && t->names[d] != p->names[d]) return false;
    return true;
}

/* Entry i of every elementwise list against parameter i. */
static nt_status check_param(const step_lists *s, int64_t i) {
    const nt_tensor *p = s->lists[0][i];
    if (!p) return nt_fail(NT_ERR_TYPE, "%s(): self[%lld] is a NULL tensor", s->fn, (long long)i);
    if (!nt_dtype_is_floating(p->dtype))
        return nt_fail(NT_ERR_RUNTIME,
                       "%s(): expected floating-point parameters, but self[%lld] has dtype %s",
                       s->fn, (long long)i, nt_dtype_torch_name(p->dtype));
    int nelementwise = s->nlists - (s->has_step ? 1 : 0);
    for (int l = 1; l < nelementwise; l++) {
        const nt_tensor *t = s->lists[l][i];
        if (!t)
            return nt_fail(NT_ERR_TYPE, "%s(): %s[%lld] is a NULL tensor", s->fn, s->names[l],
                           (long long)i);
        bool same = t->ndim == p->ndim;
        for (int d = 0; same && d < p->ndim; d++)
            same = t->sizes[d] == p->sizes[d];
        if (!same) {
            char a[256], b[256];
            sizes_repr(t, a, sizeof a);
            sizes_repr(p, b, sizeof b);
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): %s[%lld] has size %s but its parameter self[%lld] has size %s",
                           s->fn, s->names[l], (long long)i, a, (long long)i, b);
        }
        if (t->dtype != p->dtype)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): %s[%lld] has dtype %s but its parameter self[%lld] has dtype %s",
                           s->fn, s->names[l], (long long)i, nt_dtype_torch_name(t->dtype),
                           (long long)i, nt_dtype_torch_name(p->dtype));
        if (!names_agree(t, p)) return fail_names(s, l, i, t, p);
    }
    /* the written tensors: each element once, none sharing memory with another's */
    for (int l = 0; l < nelementwise; l++) {
        const nt_tensor *t = s->lists[l][i];
        if (l < s->nupdated && !t->is_contiguous) NT_TRY(nt_check_no_internal_overlap(t));
        for (int k = 0; k < l; k++) {
            const nt_tensor *u = s->lists[k][i];
            if (t->storage == u->storage && t->numel && u->numel && nt_extents_overlap(t, u))
                return nt_fail(NT_ERR_RUNTIME, "%s(): %s[%lld] and %s[%lld] share memory", s->fn,
                               s->names[k], (long long)i, s->names[l], (long long)i);
        }
    }
    if (s->has_step) {
        const nt_tensor *t = s->lists[s->nlists - 1][i];
        if (!t)
            return nt_fail(NT_ERR_TYPE, "%s(): state_steps[%lld] is a NULL tensor", s->fn,
                           (long long)i);
        if (!nt_dtype_is_floating(t->dtype) || t->numel != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "%s(): state_steps[%lld] must be a floating-point tensor of one "
                           "element (PyTorch's float32 step count), got %s of %lld elements",
                           s->fn, (long long)i, nt_dtype_torch_name(t->dtype), (long long)t->numel);
    }
    return NT_OK;
}

/* Lengths, then every parameter's tensors. */
static nt_status check_lists(const step_lists *s) {
    for (int l = 1; l < s->nlists; l++)
        if (s->lists[l] == NULL && s->n > 0)
            return nt_fail(NT_ERR_RUNTIME, "%s(): %s is missing", s->fn, s->names[l]);
    for (int64_t i = 0; i < s->n; i++)
        NT_TRY(check_param(s, i));
    return NT_OK;
}

static nt_status check_length(const char *fn, const nt_arg *a, const char *name, int64_t n) {
    int64_t len = a->kind == NT_ARG_TENSORS ? a->n : 0;
    if (len != n)
        return nt_fail(NT_ERR_RUNTIME,
                       "%s(): Tensor lists must have the same number of tensors, got %lld (self) "
                       "and %lld (%s)",
                       fn, (long long)n, (long long)len, name);
    return NT_OK;
}

static nt_tensor *const *list_of(const nt_arg *a) {
    return a->kind == NT_ARG_TENSORS && a->n > 0 ? a->v.tensors : NULL;
}

/* ------------------------------------------------------------------ running a group */

/* A group's passes, after every check: the operands of parameter i are lists[k][i] (written
 * ones first, the grad last), its constants at ctx + i * ctx_stride. */
typedef struct group_run {
    int nops;
    nt_tensor *const *lists[5];
    const nt_optim_loop *loops; /* by dtype */
    const char *ctx;
    size_t ctx_stride;
    const int64_t *small; /* the small contiguous parameters, by index */
} group_run;

static void *ctx_of(const group_run *g, int64_t i) {
    return (void *)(g->ctx + (size_t)i * g->ctx_stride);
}

static void bump_written(const group_run *g, int64_t i) {
    for (int k = 0; k < g->nops - 1; k++)
        nt_storage_bump_version(g->lists[k][i]->storage);
}

/* Small contiguous parameters [b, e) of g->small, one flat pass each, on this thread. */
static void small_task(void *ctx, int64_t b, int64_t e) {
    const group_run *g = ctx;
    for (int64_t r = b; r < e; r++) {
        int64_t i = g->small[r];
        const nt_tensor *p = g->lists[0][i];
        int64_t es = (int64_t)nt_dtype_table[p->dtype].size, strides[10];
        char *data[5];
        for (int k = 0; k < g->nops; k++) {
            data[k] = nt_tensor_bytes(g->lists[k][i]);
            strides[k] = es;
            strides[g->nops + k] = 0;
        }
        if (p->numel) g->loops[p->dtype](data, strides, p->numel, 1, ctx_of(g, i));
    }
}

/* One large or strided parameter, split across threads by its elements: a flat run when
 * every operand is contiguous, else the iterator. */
static void large_param(const group_run *g, int64_t i) {
    nt_tensor *ops[5] = {NULL};
    for (int k = 0; k < g->nops; k++)
        ops[k] = g->lists[k][i];
    const nt_tensor *p = ops[0];
    if (p->numel == 0) return;
    bool flat = true;
    for (int k = 0; k < g->nops; k++)
        flat &= ops[k]->is_contiguous;
    if (flat) {
        char *data[5];
        for (int k = 0; k < g->nops; k++)
            data[k] = nt_tensor_bytes(ops[k]);
        nt_optim_run_flat(g->loops[p->dtype], g->nops, data, p->dtype, p->numel, ctx_of(g, i));
    } else {
        nt_iter it;
        nt_iter_config cfg = {.noutputs = g->nops - 1, .check_mem_overlap = false};
        /* the shapes are equal and the written tensors checked: building cannot fail */
        if (nt_iter_build(&it, g->nops, ops, &cfg) == NT_OK)
            nt_iter_run(&it, g->loops[p->dtype], ctx_of(g, i));
    }
}

/* Runs every parameter of g (n of them; `small` has room for n indices). Parameters of at
 * least NT_GRAIN_SIZE elements, or strided, run one by one, each split across threads by its
 * elements; the small contiguous ones are split across threads by parameter, so that a group
 * of many mid-sized parameters uses every thread too. Elements are independent, so the
 * values do not depend on the split. Never fails. */
static void run_group(group_run *g, int64_t n, int64_t *small) {
    int64_t nsmall = 0, small_numel = 0;
    for (int64_t i = 0; i < n; i++) {
        bool flat = g->lists[0][i]->numel < NT_GRAIN_SIZE;
        for (int k = 0; flat && k < g->nops; k++)
            flat = g->lists[k][i]->is_contiguous;
        if (flat) {
            small[nsmall++] = i;
            small_numel += g->lists[0][i]->numel;
        } else {
            large_param(g, i);
        }
    }
    g->small = small;
    /* parameters per thread for about NT_GRAIN_SIZE elements each */
    int64_t grain = small_numel ? NT_GRAIN_SIZE * nsmall / small_numel + 1 : nsmall + 1;
    if (nsmall) nt_parallel_for(0, nsmall, grain, small_task, g);
    for (int64_t i = 0; i < n; i++)
        bump_written(g, i);
}

/* ------------------------------------------------------------------ SGD */

/* _fused_sgd_(self, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening,
 * nesterov, maximize, is_first_step) */
nt_status nt_impl_fused_sgd(nt_call *c) {
    const char *fn = "_fused_sgd_";
    int64_t n = c->args[0].n;
    nt_sgd_consts k = {.weight_decay = c->args[3].v.f,
                       .momentum = c->args[4].v.f,
                       .lr = c->args[5].v.f,
                       .dampening = c->args[6].v.f,
                       .nesterov = c->args[7].v.b,
                       .maximize = c->args[8].v.b};
    k.mode = k.momentum == 0 ? NT_SGD_PLAIN : c->args[9].v.b ? NT_SGD_FIRST : NT_SGD_RUNNING;
    NT_TRY(check_length(fn, &c->args[1], "grads", n));
    if (k.mode != NT_SGD_PLAIN) NT_TRY(check_length(fn, &c->args[2], "momentum_buffer_list", n));
    step_lists s = {.fn = fn, .n = n, .has_step = false};
    s.lists[0] = list_of(&c->args[0]);
    s.names[0] = "self";
    if (k.mode != NT_SGD_PLAIN) {
        s.lists[1] = list_of(&c->args[2]);
        s.names[1] = "momentum_buffer_list";
    }
    s.nupdated = k.mode == NT_SGD_PLAIN ? 1 : 2;
    s.lists[s.nupdated] = list_of(&c->args[1]);
    s.names[s.nupdated] = "grads";
    s.nlists = s.nupdated + 1;
    NT_TRY(check_lists(&s));
    int64_t *small = malloc((size_t)(n > 0 ? n : 1) * sizeof *small);
    if (!small) return nt_fail_oom((size_t)n * sizeof *small);
    group_run g = {.nops = s.nlists, .loops = nt_sgd_loops, .ctx = (const char *)&k};
    for (int l = 0; l < s.nlists; l++)
        g.lists[l] = s.lists[l];
    run_group(&g, n, small);
    free(small);
    return NT_OK;
}

/* ------------------------------------------------------------------ Adam, AdamW */

/* _fused_adam_ / _fused_adamw_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
 * state_steps, lr, beta1, beta2, weight_decay, eps, maximize): amsgrad when
 * max_exp_avg_sqs has entries */
nt_status nt_impl_fused_adam(nt_call *c) {
    bool decoupled = c->op == NT_OP_FUSED_ADAMW_;
    const char *fn = decoupled ? "_fused_adamw_" : "_fused_adam_";
    int64_t n = c->args[0].n;
    bool amsgrad = c->args[4].kind == NT_ARG_TENSORS && c->args[4].n > 0;
    static const char *const names[] = {"grads", "exp_avgs", "exp_avg_sqs", "max_exp_avg_sqs",
                                        "state_steps"};
    for (int a = 1; a <= 5; a++)
        if (a != 4 || amsgrad) NT_TRY(check_length(fn, &c->args[a], names[a - 1], n));
    step_lists s = {.fn = fn, .n = n, .has_step = true};
    int l = 0;
    s.lists[l] = list_of(&c->args[0]), s.names[l++] = "self";
    s.lists[l] = list_of(&c->args[2]), s.names[l++] = "exp_avgs";
    s.lists[l] = list_of(&c->args[3]), s.names[l++] = "exp_avg_sqs";
    if (amsgrad) s.lists[l] = list_of(&c->args[4]), s.names[l++] = "max_exp_avg_sqs";
    s.nupdated = l;
    s.lists[l] = list_of(&c->args[1]), s.names[l++] = "grads";
    s.lists[l] = list_of(&c->args[5]), s.names[l++] = "state_steps";
    s.nlists = l;
    NT_TRY(check_lists(&s));
    nt_adam_consts k = {.lr = c->args[6].v.f,
                        .beta1 = c->args[7].v.f,
                        .beta2 = c->args[8].v.f,
                        .weight_decay = c->args[9].v.f,
                        .eps = c->args[10].v.f,
                        .maximize = c->args[11].v.b,
                        .amsgrad = amsgrad,
                        .decoupled = decoupled};
    /* each parameter's constants (its own step count) and the runner's index room */
    size_t each = sizeof(nt_adam_consts) + sizeof(int64_t);
    char *room = malloc((size_t)(n > 0 ? n : 1) * each);
    if (!room) return nt_fail_oom((size_t)n * each);
    nt_adam_consts *per = (nt_adam_consts *)room;
    for (int64_t i = 0; i < n; i++) {
        /* step_t += 1 in the counter's dtype (in order: a counter shared by two parameters
         * counts twice, as in PyTorch); the step is the value it holds */
        nt_tensor *step = s.lists[s.nlists - 1][i];
        void *at = nt_tensor_bytes(step);
        nt_store_scalar(at, step->dtype, nt_scalar_float(nt_load_double(at, step->dtype) + 1.0));
        nt_storage_bump_version(step->storage);
        per[i] = k;
        per[i].step = nt_load_double(at, step->dtype);
    }
    group_run g = {.nops = nt_adam_nops(&k),
                   .loops = nt_adam_loops,
                   .ctx = (const char *)per,
                   .ctx_stride = sizeof *per};
    for (int o = 0; o < g.nops; o++)
        g.lists[o] = s.lists[o];
    run_group(&g, n, (int64_t *)(room + (size_t)(n > 0 ? n : 1) * sizeof *per));
    free(room);
    return NT_OK;
}

/* ------------------------------------------------------------------ the public functions */

nt_status nt_fused_sgd_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                        nt_tensor *const *momentum_buffers, double weight_decay, double momentum,
                        double lr, double dampening, bool nesterov, bool maximize,
                        bool is_first_step) {
    if (n < 0) return nt_fail(NT_ERR_VALUE, "_fused_sgd_(): a negative count %d", n);
    if (n > 0 && (!params || !grads))
        return nt_fail(NT_ERR_VALUE, "_fused_sgd_(): the params and grads arrays are NULL");
    nt_call c;
    nt_call_init(&c, NT_OP_FUSED_SGD_);
    c.args[0] = nt_arg_tensors(n, params);
    c.args[1] = nt_arg_tensors(n, grads);
    c.args[2] = nt_arg_tensors(momentum_buffers ? n : 0, momentum_buffers);
    c.args[3] = nt_arg_float(weight_decay);
    c.args[4] = nt_arg_float(momentum);
    c.args[5] = nt_arg_float(lr);
    c.args[6] = nt_arg_float(dampening);
    c.args[7] = nt_arg_bool(nesterov);
    c.args[8] = nt_arg_bool(maximize);
    c.args[9] = nt_arg_bool(is_first_step);
    return nt_dispatch(&c);
}

static nt_status adam_call(nt_op op, int n, nt_tensor *const *params, nt_tensor *const *grads,
                           nt_tensor *const *exp_avgs, nt_tensor *const *exp_avg_sqs,
                           nt_tensor *const *max_exp_avg_sqs, nt_tensor *const *state_steps,
                           double lr, double beta1, double beta2, double weight_decay, double eps,
                           bool maximize) {
    const char *fn = nt_op_rows[op].name;
    if (n < 0) return nt_fail(NT_ERR_VALUE, "%s(): a negative count %d", fn, n);
    if (n > 0 && (!params || !grads || !exp_avgs || !exp_avg_sqs || !state_steps))
        return nt_fail(NT_ERR_VALUE, "%s(): a NULL array of tensors", fn);
    nt_call c;
    nt_call_init(&c, op);
    c.args[0] = nt_arg_tensors(n, params);
    c.args[1] = nt_arg_tensors(n, grads);
    c.args[2] = nt_arg_tensors(n, exp_avgs);
    c.args[3] = nt_arg_tensors(n, exp_avg_sqs);
    c.args[4] = nt_arg_tensors(max_exp_avg_sqs ? n : 0, max_exp_avg_sqs);
    c.args[5] = nt_arg_tensors(n, state_steps);
    c.args[6] = nt_arg_float(lr);
    c.args[7] = nt_arg_float(beta1);
    c.args[8] = nt_arg_float(beta2);
    c.args[9] = nt_arg_float(weight_decay);
    c.args[10] = nt_arg_float(eps);
    c.args[11] = nt_arg_bool(maximize);
    return nt_dispatch(&c);
}

nt_status nt_fused_adam_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                         nt_tensor *const *exp_avgs, nt_tensor *const *exp_avg_sqs,
                         nt_tensor *const *max_exp_avg_sqs, nt_tensor *const *state_steps,
                         double lr, double beta1, double beta2, double weight_decay, double eps,
                         bool maximize) {
    return adam_call(NT_OP_FUSED_ADAM_, n, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                     state_steps, lr, beta1, beta2, weight_decay, eps, maximize);
}

nt_status nt_fused_adamw_(int n, nt_tensor *const *params, nt_tensor *const *grads,
                          nt_tensor *const *exp_avgs, nt_tensor *const *exp_avg_sqs,
                          nt_tensor *const *max_exp_avg_sqs, nt_tensor *const *state_steps,
                          double lr, double beta1, double beta2, double weight_decay, double eps,
                          bool maximize) {
    return adam_call(NT_OP_FUSED_ADAMW_, n, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                     state_steps, lr, beta1, beta2, weight_decay, eps, maximize);
}
