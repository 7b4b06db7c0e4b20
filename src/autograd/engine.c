/*
 * engine.c — the backward pass: nt_backward and nt_autograd_grad.
 *
 * The nodes reachable from the outputs are found by a depth-first walk that counts, for each
 * node, the edges that reach it (its dependencies). Each node runs once all of them have
 * delivered: its outputs' gradients (summed in its buffer) go through the hooks, into retained
 * grads and captured results, then through its formula; each input's gradient is fitted to the
 * input (dtype, broadcast dims summed, names) and added into the buffer of the node it comes
 * from, or accumulated into a leaf. With `inputs` given, only nodes that lead to one run.
 * Formulas run with grad mode set to create_graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "core/status.h"

/* "[torch.FloatTensor [3, 4]]" */
static void describe(nt_dtype dtype, int ndim, const int64_t *sizes, char *buf, size_t cap) {
    int len = snprintf(buf, cap, "[%s [", nt_ag_type_name(dtype));
    for (int i = 0; i < ndim && len > 0 && (size_t)len < cap; i++)
        len += snprintf(buf + len, cap - (size_t)len, i ? ", %lld" : "%lld", (long long)sizes[i]);
    if (len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, "]]");
}

static nt_status modified(const nt_tensor *t, const char *output_of, int nr, uint64_t have,
                          uint64_t want) {
    char what[128], which[128] = "";
    describe(t->dtype, t->ndim, t->sizes, what, sizeof what);
    if (output_of) snprintf(which, sizeof which, ", which is output %d of %s,", nr, output_of);
    return nt_fail(NT_ERR_RUNTIME,
                   "one of the variables needed for gradient computation has been modified by an "
                   "inplace operation: %s%s is at version %llu; expected version %llu instead. "
                   "Hint: enable anomaly detection to find the operation that failed to compute "
                   "its gradient, with torch.autograd.set_detect_anomaly(True).",
                   what, which, (unsigned long long)have, (unsigned long long)want);
}

static nt_status check_saved(const nt_node *n) {
    if (n->freed)
        return nt_fail(NT_ERR_RUNTIME,
                       "Trying to backward through the graph a second time (or directly access "
                       "saved tensors after they have already been freed). Saved intermediate "
                       "values of the graph are freed when you call .backward() or "
                       "autograd.grad(). Specify retain_graph=True if you need to backward "
                       "through the graph a second time or if you need to access saved tensors "
                       "after calling backward.");
    for (int k = 0; k < n->ninputs; k++) {
        const nt_tensor *t = n->saved[k];
        uint64_t v = t ? atomic_load(&t->storage->version) : 0;
        if (t && v != n->saved_version[k])
            return modified(t, t->ag && t->ag->grad_fn ? nt_node_name(t->ag->grad_fn) : NULL,
                            t->ag ? t->ag->output_nr : 0, v, n->saved_version[k]);
    }
    for (int j = 0; n->saved_out && j < n->noutputs; j++) {
        const nt_tensor *t = n->saved_out[j];
        uint64_t v = t ? atomic_load(&t->storage->version) : 0;
        if (t && v != n->saved_out_version[j])
            return modified(t, nt_node_name(n), j, v, n->saved_out_version[j]);
    }
    return NT_OK;
}

nt_status nt_ag_zeros(const nt_tmeta *m, nt_tensor **out) {
    return nt_zeros(m->ndim, m->sizes, m->dtype, m->names, out);
}

nt_status nt_node_apply(nt_node *n, nt_tensor *const *given, nt_tensor **gin) {
    NT_TRY(check_saved(n));
    int nout = n->noutputs;
    nt_tensor *gout[nout > 0 ? nout : 1], *unpacked[nout > 0 ? nout : 1];
    nt_status st = NT_OK;
    for (int j = 0; j < nout; j++) {
        gout[j] = unpacked[j] = NULL;
        bool differentiable =
            n->out[j].sizes || n->out[j].ndim == 0 ? nt_dtype_is_floating(n->out[j].dtype) : false;
        if (given[j])
            gout[j] = nt_tensor_retain(given[j]);
        else if (differentiable && st == NT_OK)
            st = nt_ag_zeros(&n->out[j], &gout[j]);
        /* with create_graph a saved result is itself part of the graph: output j of n (a
         * saved index result is not differentiable) */
        nt_tensor *r = n->saved_out ? n->saved_out[j] : NULL;
        if (r && st == NT_OK && nt_ag_grad_mode() && nt_dtype_is_floating(r->dtype)) {
            st = nt_tensor_view_of(r, r->ndim, r->sizes, r->strides, r->offset, r->names,
                                   &unpacked[j]);
            if (st == NT_OK) st = nt_ag_set_history(unpacked[j], n, j);
            if (st == NT_OK) n->saved_out[j] = unpacked[j], unpacked[j] = r;
        }
    }
    if (st == NT_OK) st = n->vjp->fn(n, gout, gin);
    for (int j = 0; j < nout; j++) {
        nt_tensor_release(gout[j]);
        if (unpacked[j] && n->saved_out[j] != unpacked[j]) { /* put the alias back */
            nt_tensor_release(n->saved_out[j]);
            n->saved_out[j] = unpacked[j];
        }
    }
    return st;
}

/* ------------------------------------------------------------------ fitting gradients */

static bool same_names(const nt_name *a, const nt_name *b, int n) {
    if (!a || !b) return a == b;
    return !memcmp(a, b, (size_t)n * sizeof *a);
}

nt_status nt_ag_fit(nt_tensor *g, const nt_tmeta *m, nt_tensor **out) {
    bool same_shape =
        g->ndim == m->ndim && !memcmp(g->sizes, m->sizes, (size_t)m->ndim * sizeof(int64_t));
    if (g->dtype == m->dtype && same_shape && same_names(g->names, m->names, m->ndim)) {
        *out = nt_tensor_retain(g);
        return NT_OK;
    }
    if (same_shape) NT_TRY(nt_ag_check_grad_names(g, m->names, m->ndim, "backward"));
    nt_tensor *cur = nt_tensor_retain(g), *next = NULL;
    nt_status st = NT_OK;
    if (!same_shape) { /* a broadcast gradient: sum over the dims the input was expanded in */
        nt_dim dims[NT_MAX_DIMS];
        int count = 0, lead = g->ndim - m->ndim;
        bool fits = lead >= 0;
        for (int i = 0; fits && i < g->ndim; i++) {
            int64_t want = i < lead ? 1 : m->sizes[i - lead];
            if (i < lead || (want == 1 && g->sizes[i] != 1))
                dims[count++] = i;
            else
                fits = want == g->sizes[i];
        }
        if (!fits) {
            char have[128], want[128];
            describe(g->dtype, g->ndim, g->sizes, have, sizeof have);
            describe(m->dtype, m->ndim, m->sizes, want, sizeof want);
            st = nt_fail(NT_ERR_RUNTIME, "backward: a gradient %s cannot be summed to its input %s",
                         have, want);
        }
        if (st == NT_OK) st = nt_rename(cur, NULL, &next); /* shape work on unnamed tensors */
        if (st == NT_OK) nt_tensor_release(cur), cur = next, next = NULL;
        if (st == NT_OK && count) st = nt_sum(cur, count, dims, true, -1, &next);
        if (st == NT_OK && next) nt_tensor_release(cur), cur = next, next = NULL;
        if (st == NT_OK) st = nt_reshape(cur, m->ndim, m->sizes, &next);
        if (st == NT_OK) nt_tensor_release(cur), cur = next, next = NULL;
    }
    if (st == NT_OK && cur->dtype != m->dtype) {
        st = nt_to_dtype(cur, m->dtype, &next);
        if (st == NT_OK) nt_tensor_release(cur), cur = next, next = NULL;
    }
    if (st == NT_OK && !same_names(cur->names, m->names, m->ndim)) {
        st = nt_rename(cur, m->names, &next);
        if (st == NT_OK) nt_tensor_release(cur), cur = next, next = NULL;
    }
    if (st != NT_OK) {
        nt_tensor_release(cur);
        return st;
    }
    *out = cur;
    return NT_OK;
}

/* ------------------------------------------------------------------ the pass */

typedef struct engine {
    nt_node **nodes; /* every node reachable, in the order found */
    int nnodes, cap;
    bool retain, create, accumulate;
    int ninputs;
    nt_tensor *const *inputs;
    nt_tensor **captured; /* [ninputs] for nt_autograd_grad, else NULL */
} engine;

static nt_status add_node(engine *e, nt_node *n) {
    if (e->nnodes == e->cap) {
        int cap = e->cap ? 2 * e->cap : 64;
        nt_node **grown = realloc(e->nodes, (size_t)cap * sizeof *grown);
        if (!grown) return nt_fail(NT_ERR_MEMORY, "out of memory");
        e->nodes = grown, e->cap = cap;
    }
    e->nodes[e->nnodes++] = n;
    n->seen = true;
    n->deps = 0;
    n->needed = e->ninputs == 0;
    return NT_OK;
}

/* Finds every node reachable from the roots (nodes[0..nroots)) and counts dependencies. */
static nt_status discover(engine *e) {
    for (int i = 0; i < e->nnodes; i++) { /* nodes grows as the walk goes: a breadth-first walk */
        nt_node *n = e->nodes[i];
        for (int k = 0; k < n->ninputs; k++) {
            nt_node *next = n->edges[k].node;
            if (!next) continue;
            if (!next->seen) NT_TRY(add_node(e, next));
            next->deps++;
        }
    }
    return NT_OK;
}

static int input_index(const engine *e, const nt_tensor *leaf) {
    for (int i = 0; i < e->ninputs; i++)
        if (e->inputs[i] == leaf) return i;
    return -1;
}

/* With inputs given: a node is needed when it leads to one (a leaf input, or an input's own
 * node). Decided in reverse topological order, found by Kahn's walk over the counts. */
static nt_status mark_needed(engine *e) {
    for (int i = 0; i < e->ninputs; i++) {
        const nt_tensor *t = e->inputs[i];
        if (t->ag && t->ag->grad_fn && t->ag->grad_fn->seen) t->ag->grad_fn->needed = true;
    }
    int *deps = malloc((size_t)e->nnodes * sizeof *deps);
    nt_node **order = malloc((size_t)e->nnodes * sizeof *order);
    if (!deps || !order) {
        free(deps);
        free(order);
        return nt_fail(NT_ERR_MEMORY, "out of memory");
    }
    int tail = 0;
    for (int i = 0; i < e->nnodes; i++) {
        e->nodes[i]->index = i;
        deps[i] = e->nodes[i]->deps;
        if (deps[i] == 0) order[tail++] = e->nodes[i];
    }
    for (int head = 0; head < tail; head++) {
        nt_node *n = order[head];
        for (int k = 0; k < n->ninputs; k++)
            if (n->edges[k].node && --deps[n->edges[k].node->index] == 0)
                order[tail++] = n->edges[k].node;
    }
    for (int i = tail - 1; i >= 0; i--) {
        nt_node *n = order[i];
        for (int k = 0; !n->needed && k < n->ninputs; k++)
            n->needed = (n->edges[k].node && n->edges[k].node->needed) ||
                        (n->edges[k].leaf && input_index(e, n->edges[k].leaf) >= 0);
    }
    free(deps);
    free(order);
    return NT_OK;
}

/* Checks a hook's replacement for gradient g: same dtype and size, names that unify. */
static nt_status check_replacement(const nt_tensor *r, const nt_tensor *g, const nt_tmeta *m) {
    if (r->dtype != g->dtype)
        return nt_fail(NT_ERR_RUNTIME, "hook has changed the type of value (was %s got %s)",
                       nt_ag_type_name(g->dtype), nt_ag_type_name(r->dtype));
    if (r->ndim != g->ndim || memcmp(r->sizes, g->sizes, (size_t)g->ndim * sizeof(int64_t)))
        return nt_fail(NT_ERR_RUNTIME, "hook has changed the size of value");
    return nt_ag_check_grad_names(r, m->names, m->ndim, "a hook's result");
}

/* Keeps g as the grad of `kept`, a retained non-leaf (added to what an earlier pass kept). */
static nt_status keep(nt_tensor *kept, nt_tensor *g) {
    nt_tensor *grad = kept->ag->grad;
    nt_status st = grad ? nt_add(grad, g, &kept->ag->grad) : nt_clone(g, &kept->ag->grad);
    if (st == NT_OK) nt_tensor_release(grad);
    return st;
}

/* Runs the hooks of `list` for output nr on *g (replacing it when a hook says so), and keeps
 * the gradient of `kept` (a retained output, or NULL) where its marker says. */
static nt_status run_hooks(nt_hook *list, int nr, const nt_tmeta *m, nt_tensor **g,
                           nt_tensor *kept) {
    bool late = false;
    for (nt_hook *h = list; h && *g; h = h->next) {
        if (h->output_nr != nr) continue;
        if (!h->fn) { /* the retain marker */
            if (h->late)
                late = true;
            else if (kept)
                NT_TRY(keep(kept, *g));
            continue;
        }
        nt_tensor *replacement = NULL;
        NT_TRY(h->fn(h->ctx, *g, &replacement));
        if (!replacement) continue;
        nt_tensor *fitted = NULL;
        nt_status st = check_replacement(replacement, *g, m);
        if (st == NT_OK) st = nt_ag_fit(replacement, m, &fitted);
        nt_tensor_release(replacement);
        NT_TRY(st);
        nt_tensor_release(*g);
        *g = fitted;
    }
    return late && kept && *g ? keep(kept, *g) : NT_OK;
}

/* Adds g into *slot (a gradient buffer): out of place, recorded with create_graph. */
static nt_status accumulate(nt_tensor **slot, nt_tensor *g) {
    if (!*slot) {
        *slot = nt_tensor_retain(g);
        return NT_OK;
    }
    nt_tensor *sum;
    NT_TRY(nt_add(*slot, g, &sum));
    nt_tensor_release(*slot);
    *slot = sum;
    return NT_OK;
}

/* A leaf's .grad takes g: stored (copied unless this is its only reference, so that no two
 * grads share memory), or added in place (out of place with create_graph). */
static nt_status into_grad(nt_tensor *leaf, nt_tensor *g, bool create) {
    nt_ag_meta *m = leaf->ag;
    NT_TRY(nt_ag_check_grad_names(g, leaf->names, leaf->ndim, "backward"));
    if (m->grad && !create) return nt_binary_(NT_BINARY_ADD, m->grad, g);
    nt_tensor *own = NULL;
    if (m->grad)
        NT_TRY(nt_add(m->grad, g, &own));
    else if (!create && (atomic_load(&g->refcount) > 1 || atomic_load(&g->storage->refcount) > 1 ||
                         g->ag || !g->is_contiguous))
        NT_TRY(nt_clone(g, &own));
    else
        own = nt_tensor_retain(g);
    nt_status st = nt_set_grad(leaf, own);
    nt_tensor_release(own);
    return st;
}

/* Gradient g (a reference the caller gives up) arrives at leaf. */
static nt_status arrive_leaf(engine *e, nt_tensor *leaf, nt_tensor *g) {
    nt_tmeta m;
    m.dtype = leaf->dtype, m.ndim = leaf->ndim, m.sizes = leaf->sizes, m.names = leaf->names;
    nt_status st = run_hooks(leaf->ag->hooks, 0, &m, &g, NULL);
    int i = input_index(e, leaf);
    for (int k = i < 0 ? e->ninputs : i;
         st == NT_OK && g && e->captured && !e->accumulate && k < e->ninputs; k++)
        if (e->inputs[k] == leaf) st = accumulate(&e->captured[k], g); /* each time it is listed */
    if (st == NT_OK && g && e->accumulate && (e->ninputs == 0 || i >= 0))
        st = into_grad(leaf, g, e->create);
    nt_tensor_release(g);
    return st;
}

/* Runs node n on its buffer; pushes the nodes it completes onto the ready stack. */
static nt_status run_node(engine *e, nt_node *n, nt_node **ready, int *nready) {
    nt_status st = NT_OK;
    for (int j = 0; j < n->noutputs && st == NT_OK; j++) {
        if (!n->buf[j]) continue;
        st = run_hooks(n->hooks, j, &n->out[j], &n->buf[j], n->retained ? n->retained[j] : NULL);
        for (int i = 0; st == NT_OK && e->captured && i < e->ninputs; i++) {
            const nt_ag_meta *m = e->inputs[i]->ag;
            if (m && m->grad_fn == n && m->output_nr == j)
                st = accumulate(&e->captured[i], n->buf[j]);
        }
    }
    bool any = false;
    for (int j = 0; j < n->noutputs; j++)
        any |= n->buf[j] != NULL;
    nt_tensor **gin = NULL;
    if (st == NT_OK && any && n->needed) {
        gin = calloc((size_t)n->ninputs + 1, sizeof *gin);
        if (!gin) st = nt_fail(NT_ERR_MEMORY, "out of memory");
        if (st == NT_OK) st = nt_node_apply(n, n->buf, gin);
        if (st == NT_OK && !e->retain && n->had_saved) {
            for (int k = 0; k < n->ninputs; k++)
                nt_tensor_release(n->saved[k]), n->saved[k] = NULL;
            for (int j = 0; j < n->noutputs; j++)
                nt_tensor_release(n->saved_out[j]), n->saved_out[j] = NULL;
            n->freed = true;
        }
    }
    for (int j = 0; j < n->noutputs; j++)
        nt_tensor_release(n->buf[j]), n->buf[j] = NULL;
    for (int k = 0; k < n->ninputs; k++) {
        nt_tensor *g = gin ? gin[k] : NULL, *fitted = NULL;
        if (gin) gin[k] = NULL;
        const nt_edge *edge = &n->edges[k];
        if (g && st == NT_OK && (edge->node || edge->leaf)) st = nt_ag_fit(g, &n->in[k], &fitted);
        nt_tensor_release(g);
        if (edge->node) {
            if (fitted && st == NT_OK) st = accumulate(&edge->node->buf[edge->nr], fitted);
            if (--edge->node->deps == 0 && edge->node->needed) ready[(*nready)++] = edge->node;
        } else if (edge->leaf && fitted && st == NT_OK) {
            st = arrive_leaf(e, edge->leaf, nt_tensor_retain(fitted));
        }
        nt_tensor_release(fitted);
    }
    free(gin);
    return st;
}

static nt_status check_root(int i, nt_tensor *t, nt_tensor *g, nt_tensor **out) {
    if (!nt_ag_requires(t))
        return nt_fail(NT_ERR_RUNTIME,
                       "element %d of tensors does not require grad and does not have a grad_fn",
                       i);
    if (!g) {
        if (t->numel != 1)
            return nt_fail(NT_ERR_RUNTIME,
                           "grad can be implicitly created only for scalar outputs");
        return nt_ones_like(t, -1, out);
    }
    if (g->ndim != t->ndim || memcmp(g->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t))) {
        char have[160] = "", want[160] = "";
        for (int k = 0, n = 0; k < g->ndim; k++)
            n += snprintf(have + n, sizeof have - (size_t)n, k ? ", %lld" : "%lld",
                          (long long)g->sizes[k]);
        for (int k = 0, n = 0; k < t->ndim; k++)
            n += snprintf(want + n, sizeof want - (size_t)n, k ? ", %lld" : "%lld",
                          (long long)t->sizes[k]);
        return nt_fail(NT_ERR_RUNTIME,
                       "Mismatch in shape: grad_output[%d] has a shape of torch.Size([%s]) and "
                       "output[%d] has a shape of torch.Size([%s]).",
                       i, have, i, want);
    }
    NT_TRY(nt_ag_check_grad_names(g, t->names, t->ndim, "backward"));
    nt_tmeta m = {.dtype = t->dtype, .ndim = t->ndim, .sizes = t->sizes, .names = t->names};
    return nt_ag_fit(g, &m, out);
}

static nt_status run(engine *e, int n, nt_tensor *const *outputs, nt_tensor *const *grads) {
    nt_tensor **root_grads = calloc((size_t)n + 1, sizeof *root_grads);
    if (!root_grads) return nt_fail(NT_ERR_MEMORY, "out of memory");
    nt_status st = NT_OK;
    for (int i = 0; i < n && st == NT_OK; i++)
        st = check_root(i, outputs[i], grads ? grads[i] : NULL, &root_grads[i]);
    bool mode = nt_set_grad_enabled(e->create);
    for (int i = 0; i < n && st == NT_OK; i++) {
        nt_node *root = outputs[i]->ag->grad_fn;
        if (root && !root->seen) st = add_node(e, root);
    }
    if (st == NT_OK) st = discover(e);
    if (st == NT_OK && e->ninputs) st = mark_needed(e);
    for (int i = 0; i < n && st == NT_OK; i++) { /* the roots' gradients */
        nt_tensor *t = outputs[i];
        if (t->ag->grad_fn)
            st = accumulate(&t->ag->grad_fn->buf[t->ag->output_nr], root_grads[i]);
        else
            st = arrive_leaf(e, t, nt_tensor_retain(root_grads[i]));
    }
    nt_node **ready = st == NT_OK ? malloc(((size_t)e->nnodes + 1) * sizeof *ready) : NULL;
    if (st == NT_OK && !ready) st = nt_fail(NT_ERR_MEMORY, "out of memory");
    int nready = 0;
    for (int i = 0; i < e->nnodes && st == NT_OK; i++)
        if (e->nodes[i]->deps == 0 && e->nodes[i]->needed) ready[nready++] = e->nodes[i];
    while (st == NT_OK && nready > 0)
        st = run_node(e, ready[--nready], ready, &nready);
    nt_set_grad_enabled(mode);
    for (int i = 0; i < e->nnodes; i++) { /* clear the scratch, also after a failure */
        nt_node *node = e->nodes[i];
        for (int j = 0; j < node->noutputs; j++)
            nt_tensor_release(node->buf[j]), node->buf[j] = NULL;
        node->seen = false;
    }
    for (int i = 0; i < n; i++)
        nt_tensor_release(root_grads[i]);
    free(root_grads);
    free(ready);
    free(e->nodes);
    return st;
}

/* The arguments' shape: outputs and inputs present, no NULL tensor among them. */
static nt_status check_args(const char *fn, int n, nt_tensor *const *outputs, int ninputs,
                            nt_tensor *const *inputs) {
    if (n <= 0 || !outputs) return nt_fail(NT_ERR_VALUE, "%s: no outputs", fn);
    if (ninputs < 0 || (ninputs > 0 && !inputs))
        return nt_fail(NT_ERR_VALUE, "%s: %d inputs and no array of them", fn, ninputs);
    for (int i = 0; i < n; i++)
        if (!outputs[i]) return nt_fail(NT_ERR_VALUE, "%s: output %d is NULL", fn, i);
    for (int i = 0; i < ninputs; i++)
        if (!inputs[i]) return nt_fail(NT_ERR_VALUE, "%s: input %d is NULL", fn, i);
    return NT_OK;
}

nt_status nt_backward(int n, nt_tensor *const *outputs, nt_tensor *const *grads, bool retain_graph,
                      bool create_graph, int ninputs, nt_tensor *const *inputs) {
    NT_TRY(check_args("backward", n, outputs, ninputs, inputs));
    for (int i = 0; i < ninputs; i++)
        if (!nt_ag_requires(inputs[i])) /* PyTorch retains the grad of each input: its text */
            return nt_fail(NT_ERR_RUNTIME,
                           "can't retain_grad on Tensor that has requires_grad=False");
    /* a non-leaf input's gradient is captured at its node, then accumulated into its grad */
    nt_tensor **captured = ninputs ? calloc((size_t)ninputs, sizeof *captured) : NULL;
    if (ninputs && !captured) return nt_fail(NT_ERR_MEMORY, "out of memory");
    engine e = {.retain = retain_graph || create_graph,
                .create = create_graph,
                .accumulate = true,
                .ninputs = ninputs,
                .inputs = inputs,
                .captured = captured};
    nt_status st = run(&e, n, outputs, grads);
    for (int i = 0; i < ninputs; i++) {
        if (st == NT_OK && captured[i] && !nt_is_leaf(inputs[i])) {
            bool mode = nt_set_grad_enabled(create_graph);
            st = into_grad(inputs[i], captured[i], create_graph);
            nt_set_grad_enabled(mode);
        }
        nt_tensor_release(captured[i]);
    }
    free(captured);
    return st;
}

nt_status nt_autograd_grad(int n, nt_tensor *const *outputs, nt_tensor *const *grads, int ninputs,
                           nt_tensor *const *inputs, bool retain_graph, bool create_graph,
                           bool allow_unused, nt_tensor **grads_out) {
    if (ninputs <= 0 || !inputs) return nt_fail(NT_ERR_VALUE, "grad requires non-empty inputs.");
    NT_TRY(check_args("grad", n, outputs, ninputs, inputs));
    if (!grads_out) return nt_fail(NT_ERR_VALUE, "grad: grads_out is NULL");
    for (int i = 0; i < ninputs; i++)
        if (!nt_ag_requires(inputs[i]))
            return nt_fail(NT_ERR_RUNTIME,
                           "One of the differentiated Tensors does not require grad");
    nt_tensor **captured = calloc((size_t)ninputs, sizeof *captured);
    if (!captured) return nt_fail(NT_ERR_MEMORY, "out of memory");
    engine e = {.retain = retain_graph || create_graph,
                .create = create_graph,
                .accumulate = false,
                .ninputs = ninputs,
                .inputs = inputs,
                .captured = captured};
    nt_status st = run(&e, n, outputs, grads);
    for (int i = 0; st == NT_OK && i < ninputs; i++) {
        if (captured[i] || allow_unused) continue;
        st = nt_fail(NT_ERR_RUNTIME,
                     "One of the differentiated Tensors appears to not have been used in the "
                     "graph. Set allow_unused=True if this is the desired behavior.");
    }
    for (int i = 0; i < ninputs; i++) {
        nt_tensor *g = captured[i];
        if (st == NT_OK && g) {
            nt_tmeta m = {.dtype = inputs[i]->dtype,
                          .ndim = inputs[i]->ndim,
                          .sizes = inputs[i]->sizes,
                          .names = inputs[i]->names};
            st = nt_ag_fit(g, &m, &grads_out[i]);
        } else if (st == NT_OK) {
            grads_out[i] = NULL;
        }
        nt_tensor_release(g);
    }
    if (st != NT_OK)
        for (int i = 0; i < ninputs; i++)
            grads_out[i] = NULL;
    free(captured);
    return st;
}
