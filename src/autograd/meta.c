/*
 * meta.c — a tensor's autograd state (requires_grad, grad, history, hooks) and grad mode.
 */
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "core/status.h"
#include "names/names.h"

_Atomic int64_t nt_ag_live;

static _Thread_local bool grad_disabled, inference_mode;
static _Atomic int64_t next_hook_id = 1;

/* Recording is on unless grad is disabled or inference mode is on (the two flags are kept
 * apart, so that each setter gives back its own previous setting). */
bool nt_ag_grad_mode(void) {
    return !grad_disabled && !inference_mode;
}
bool nt_is_grad_enabled(void) {
    return !grad_disabled && !inference_mode;
}
bool nt_set_grad_enabled(bool enabled) {
    bool was = !grad_disabled;
    grad_disabled = !enabled;
    return was;
}
bool nt_set_inference_mode(bool enabled) {
    bool was = inference_mode;
    inference_mode = enabled;
    return was;
}
bool nt_is_inference_mode_enabled(void) {
    return inference_mode;
}

nt_ag_meta *nt_ag_meta_of(nt_tensor *t) {
    if (!t->ag) {
        nt_tensor_ag_free = nt_ag_meta_free;
        t->ag = calloc(1, sizeof *t->ag);
        if (!t->ag) nt_fail(NT_ERR_MEMORY, "out of memory");
    }
    return t->ag;
}

static void mark(nt_ag_meta *m, bool requires_grad) {
    if (m->requires_grad != requires_grad)
        atomic_fetch_add_explicit(&nt_ag_live, requires_grad ? 1 : -1, memory_order_relaxed);
    m->requires_grad = requires_grad;
}

static void free_hooks(nt_hook *h) {
    while (h) {
        nt_hook *next = h->next;
        if (h->free_ctx) h->free_ctx(h->ctx);
        free(h);
        h = next;
    }
}

static void unretain(nt_ag_meta *m);

void nt_ag_meta_free(nt_tensor *t) {
    nt_ag_meta *m = t->ag;
    t->ag = NULL;
    mark(m, false);
    unretain(m);
    nt_node_release(m->grad_fn);
    nt_tensor_release(m->grad);
    nt_tensor_release(m->base);
    free_hooks(m->hooks);
    free(m);
}

/* Takes t off its node's retained outputs (the node may outlive t's link to it). */
static void unretain(nt_ag_meta *m) {
    if (m->retains_grad && m->grad_fn && m->grad_fn->retained)
        m->grad_fn->retained[m->output_nr] = NULL;
    m->retains_grad = false;
}

nt_status nt_ag_set_history(nt_tensor *t, nt_node *n, int nr) {
    nt_ag_meta *m = nt_ag_meta_of(t);
    if (!m) return NT_ERR_MEMORY;
    bool retains = m->retains_grad; /* an in-place op's result keeps retaining, as PyTorch's */
    unretain(m);
    nt_node_retain(n);
    if (m->grad_fn) nt_node_release(m->grad_fn);
    m->grad_fn = n;
    m->output_nr = nr;
    mark(m, true);
    return retains ? nt_retain_grad(t) : NT_OK;
}

void nt_ag_detach(nt_tensor *t) {
    nt_ag_meta *m = t->ag;
    if (!m) return;
    unretain(m);
    if (m->grad_fn) nt_node_release(m->grad_fn), m->grad_fn = NULL;
    nt_tensor_release(m->base);
    m->base = NULL;
    mark(m, false);
}

const char *nt_ag_type_name(nt_dtype dtype) {
    static const char *const names[] = {
        [NT_BOOL] = "torch.BoolTensor",     [NT_UINT8] = "torch.ByteTensor",
        [NT_INT8] = "torch.CharTensor",     [NT_INT16] = "torch.ShortTensor",
        [NT_INT32] = "torch.IntTensor",     [NT_INT64] = "torch.LongTensor",
        [NT_FLOAT16] = "torch.HalfTensor",  [NT_BFLOAT16] = "torch.BFloat16Tensor",
        [NT_FLOAT32] = "torch.FloatTensor", [NT_FLOAT64] = "torch.DoubleTensor",
    };
    return names[dtype];
}

bool nt_requires_grad(const nt_tensor *t) {
    return t && nt_ag_requires(t);
}

bool nt_is_leaf(const nt_tensor *t) {
    return !t || !t->ag || !t->ag->grad_fn;
}

nt_status nt_set_requires_grad(nt_tensor *t, bool requires_grad) {
    if (!t) return nt_fail_null_tensor("requires_grad_", "self");
    if (!nt_is_leaf(t)) {
        if (requires_grad) return NT_OK;
        return nt_fail(NT_ERR_RUNTIME,
                       "you can only change requires_grad flags of leaf variables. If you want to "
                       "use a computed variable in a subgraph that doesn't require differentiation "
                       "use var_no_grad = var.detach().");
    }
    if (requires_grad && !nt_dtype_is_floating(t->dtype))
        return nt_fail(NT_ERR_RUNTIME,
                       "only Tensors of floating point and complex dtype can require gradients");
    if (!requires_grad && !t->ag) return NT_OK;
    nt_ag_meta *m = nt_ag_meta_of(t);
    if (!m) return NT_ERR_MEMORY;
    mark(m, requires_grad);
    return NT_OK;
}

nt_tensor *nt_grad(const nt_tensor *t) {
    return t && t->ag && t->ag->grad ? nt_tensor_retain(t->ag->grad) : NULL;
}

nt_status nt_ag_check_grad_names(const nt_tensor *grad, const nt_name *names, int ndim,
                                 const char *what) {
    if (!grad->names || !names) return NT_OK;
    for (int i = 0; i < ndim; i++) {
        nt_name a = grad->names[i], b = names[i];
        if (a != NT_NAME_NONE && b != NT_NAME_NONE && a != b) {
            char have[256], want[256];
            nt_names_repr(grad->names, grad->ndim, have, sizeof have);
            nt_names_repr(names, ndim, want, sizeof want);
            return nt_fail(NT_ERR_RUNTIME,
                           "%s: the gradient's names %s do not match the tensor's names %s "
                           "(dim %d: '%s' vs '%s')",
                           what, have, want, i, nt_name_str(a), nt_name_str(b));
        }
    }
    return NT_OK;
}

/* g named as t (g itself when the names are already t's). */
static nt_status named_as(nt_tensor *g, const nt_tensor *t, nt_tensor **out) {
    if (g->names == t->names ||
        (g->names && t->names && !memcmp(g->names, t->names, (size_t)t->ndim * sizeof(nt_name)))) {
        *out = nt_tensor_retain(g);
        return NT_OK;
    }
    bool was = nt_set_grad_enabled(false);
    nt_status st = nt_rename(g, t->names, out);
    nt_set_grad_enabled(was);
    return st;
}

nt_status nt_set_grad(nt_tensor *t, nt_tensor *grad) {
    if (!t) return nt_fail_null_tensor("set_grad", "self");
    if (!grad) {
        if (t->ag) {
            nt_tensor_release(t->ag->grad);
            t->ag->grad = NULL;
        }
        return NT_OK;
    }
    if (grad->dtype != t->dtype)
        return nt_fail(NT_ERR_RUNTIME, "assigned grad has data of a different type");
    if (grad->ndim != t->ndim ||
        memcmp(grad->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t)) != 0)
        return nt_fail(NT_ERR_RUNTIME, "assigned grad has data of a different size");
    NT_TRY(nt_ag_check_grad_names(grad, t->names, t->ndim, "assigning .grad"));
    nt_ag_meta *m = nt_ag_meta_of(t);
    if (!m) return NT_ERR_MEMORY;
    nt_tensor *named;
    NT_TRY(named_as(grad, t, &named));
    nt_tensor_release(m->grad);
    m->grad = named;
    return NT_OK;
}

nt_status nt_retain_grad(nt_tensor *t) {
    if (!t) return nt_fail_null_tensor("retain_grad", "self");
    if (!nt_ag_requires(t))
        return nt_fail(NT_ERR_RUNTIME, "can't retain_grad on Tensor that has requires_grad=False");
    nt_ag_meta *m = t->ag;
    if (!m->grad_fn || m->retains_grad) return NT_OK;
    nt_node *n = m->grad_fn;
    if (!n->retained) {
        n->retained = calloc((size_t)n->noutputs, sizeof *n->retained);
        if (!n->retained) return nt_fail(NT_ERR_MEMORY, "out of memory");
    }
    /* When the gradient is kept, among the output's hooks: as PyTorch 1.13's, where all of a
     * tensor's Python hooks are one hook of its node, placed at the first registration: a
     * tensor with hooks already keeps its gradient after all of them, else before them all. */
    bool late = false;
    for (nt_hook *h = n->hooks; h; h = h->next)
        late |= h->fn && h->output_nr == m->output_nr;
    nt_hook *marker = calloc(1, sizeof *marker);
    if (!marker) return nt_fail(NT_ERR_MEMORY, "out of memory");
    *marker = (nt_hook){.id = 0, .output_nr = m->output_nr, .fn = NULL, .ctx = NULL, .late = late};
    nt_hook **list = &n->hooks;
    while (*list)
        list = &(*list)->next;
    *list = marker;
    n->retained[m->output_nr] = t;
    m->retains_grad = true;
    return NT_OK;
}

bool nt_retains_grad(const nt_tensor *t) {
    return t && t->ag && t->ag->retains_grad;
}

const char *nt_grad_fn_name(const nt_tensor *t) {
    return t && t->ag && t->ag->grad_fn ? nt_node_name(t->ag->grad_fn) : NULL;
}

nt_status nt_register_hook(nt_tensor *t, nt_grad_hook fn, void *ctx, void (*free_ctx)(void *),
                           int64_t *id) {
    if (!t) return nt_fail_null_tensor("register_hook", "self");
    if (!fn || !id)
        return nt_fail(NT_ERR_VALUE, "register_hook(): the hook and id must not be NULL");
    if (!nt_ag_requires(t))
        return nt_fail(NT_ERR_RUNTIME,
                       "cannot register a hook on a tensor that doesn't require gradient");
    nt_hook *h = malloc(sizeof *h);
    if (!h) return nt_fail(NT_ERR_MEMORY, "out of memory");
    *h = (nt_hook){.id = atomic_fetch_add(&next_hook_id, 1),
                   .output_nr = t->ag->output_nr,
                   .fn = fn,
                   .ctx = ctx,
                   .free_ctx = free_ctx};
    nt_hook **list = t->ag->grad_fn ? &t->ag->grad_fn->hooks : &t->ag->hooks;
    while (*list)
        list = &(*list)->next; /* hooks run in registration order */
    *list = h;
    *id = h->id;
    return NT_OK;
}

static bool remove_from(nt_hook **list, int64_t id) {
    for (; *list; list = &(*list)->next)
        if ((*list)->id == id) {
            nt_hook *h = *list;
            *list = h->next;
            h->next = NULL;
            free_hooks(h);
            return true;
        }
    return false;
}

bool nt_remove_hook(nt_tensor *t, int64_t id) {
    if (!t || !t->ag || id <= 0) return false; /* id 0: a retain marker, never the user's */
    return remove_from(&t->ag->hooks, id) ||
           (t->ag->grad_fn && remove_from(&t->ag->grad_fn->hooks, id));
}
