/*
 * node.c — the graph's nodes: allocation (one block for the node and its per-input arrays),
 * edges, metadata, saved tensors, release.
 */
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "core/refcount.h"
#include "core/status.h"

nt_node *nt_node_retain(nt_node *n) {
    nt_ref_add(&n->refcount);
    return n;
}

static void release_saved(nt_node *n) {
    for (int k = 0; k < n->ninputs; k++) {
        nt_tensor_release(n->saved[k]);
        n->saved[k] = NULL;
    }
    for (int j = 0; n->saved_out && j < n->noutputs; j++) {
        nt_tensor_release(n->saved_out[j]);
        n->saved_out[j] = NULL;
    }
}

void nt_node_release(nt_node *n) {
    if (!n || !nt_ref_drop(&n->refcount)) return;
    release_saved(n);
    for (int k = 0; k < n->ninputs; k++) {
        nt_node_release(n->edges[k].node);
        nt_tensor_release(n->edges[k].leaf);
    }
    for (nt_hook *h = n->hooks, *next; h; h = next) {
        next = h->next;
        if (h->free_ctx) h->free_ctx(h->ctx);
        free(h);
    }
    if (n->free_extra) n->free_extra(n->extra);
    free(n->retained);
    free(n->lists);
    free(n->outs_block);
    free(n);
}

void nt_edge_of(nt_tensor *t, nt_edge *e) {
    *e = (nt_edge){0};
    if (!t || !nt_ag_requires(t)) return;
    if (t->ag->grad_fn) {
        e->node = nt_node_retain(t->ag->grad_fn);
        e->nr = t->ag->output_nr;
    } else {
        e->leaf = nt_tensor_retain(t);
    }
}

/* Sets m to t's metadata, its arrays taken from *cursor. */
static void tmeta_fill(nt_tmeta *m, const nt_tensor *t, char **cursor) {
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    m->sizes = (int64_t *)*cursor;
    memcpy(m->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    *cursor += (size_t)t->ndim * sizeof(int64_t);
    m->names = NULL;
    if (t->names) {
        m->names = (nt_name *)*cursor;
        memcpy(m->names, t->names, (size_t)t->ndim * sizeof(nt_name));
    }
    *cursor += (size_t)t->ndim * sizeof(int64_t); /* room for names, 8-byte aligned */
}

static size_t tmeta_bytes(const nt_tensor *t) {
    return t ? 2 * (size_t)t->ndim * sizeof(int64_t) : 0;
}

nt_node *nt_node_alloc(const nt_vjp_row *vjp, int ninputs, nt_tensor *const *inputs) {
    size_t dims = 0;
    for (int k = 0; k < ninputs; k++)
        dims += tmeta_bytes(inputs[k]);
    size_t per =
        sizeof(nt_edge) + sizeof(nt_tmeta) + sizeof(nt_tensor *) + sizeof(uint64_t) + sizeof(int);
    nt_node *n = calloc(1, sizeof *n + (size_t)ninputs * per + dims);
    if (!n) {
        nt_fail(NT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    atomic_init(&n->refcount, 1);
    n->vjp = vjp;
    n->ninputs = ninputs;
    char *p = (char *)(n + 1);
    n->edges = (nt_edge *)p, p += (size_t)ninputs * sizeof(nt_edge);
    n->in = (nt_tmeta *)p, p += (size_t)ninputs * sizeof(nt_tmeta);
    n->saved = (nt_tensor **)p, p += (size_t)ninputs * sizeof(nt_tensor *);
    n->saved_version = (uint64_t *)p, p += (size_t)ninputs * sizeof(uint64_t);
    n->slot_of = (int *)p, p += (size_t)ninputs * sizeof(int);
    p += (8 - (uintptr_t)p % 8) % 8;
    memset(n->first, -1, sizeof n->first);
    for (int k = 0; k < ninputs; k++) {
        if (!inputs[k]) continue;
        nt_edge_of(inputs[k], &n->edges[k]);
        tmeta_fill(&n->in[k], inputs[k], &p);
    }
    return n;
}

nt_status nt_node_set_outputs(nt_node *n, int noutputs, nt_tensor *const *outs) {
    size_t bytes = (size_t)noutputs * (sizeof(nt_tmeta) + 2 * sizeof(void *) + sizeof(uint64_t));
    for (int j = 0; j < noutputs; j++)
        bytes += tmeta_bytes(outs[j]);
    char *p = calloc(1, bytes);
    if (!p) return nt_fail(NT_ERR_MEMORY, "out of memory");
    n->outs_block = p;
    n->noutputs = noutputs;
    n->out = (nt_tmeta *)p, p += (size_t)noutputs * sizeof(nt_tmeta);
    n->saved_out = (nt_tensor **)p, p += (size_t)noutputs * sizeof(nt_tensor *);
    n->buf = (nt_tensor **)p, p += (size_t)noutputs * sizeof(nt_tensor *);
    n->saved_out_version = (uint64_t *)p, p += (size_t)noutputs * sizeof(uint64_t);
    for (int j = 0; j < noutputs; j++) {
        if (outs[j])
            tmeta_fill(&n->out[j], outs[j], &p);
        else
            n->out[j].dtype = NT_INT64; /* no output: not differentiable */
    }
    return NT_OK;
}

nt_tensor *nt_node_saved(const nt_node *n, int slot) {
    int k = n->first[slot];
    return k >= 0 ? n->saved[k] : NULL;
}

nt_tensor *nt_node_result(const nt_node *n, int j) {
    return n->saved_out && j >= 0 && j < n->noutputs ? n->saved_out[j] : NULL;
}

/* ---- the public view of nodes (ntensor/autograd.h) ---- */

nt_grad_fn *nt_tensor_grad_fn(const nt_tensor *t) {
    return t && t->ag && t->ag->grad_fn ? nt_node_retain(t->ag->grad_fn) : NULL;
}

void nt_grad_fn_release(nt_grad_fn *fn) {
    nt_node_release(fn);
}

const char *nt_node_name(const nt_node *n) {
    const nt_vjp_row *v = n->vjp;
    return v->name_all && n->call.args[1].kind == NT_ARG_NONE ? v->name_all : v->name;
}

const char *nt_grad_fn_name_of(const nt_grad_fn *fn) {
    return fn ? nt_node_name(fn) : NULL;
}

int nt_grad_fn_num_next(const nt_grad_fn *fn) {
    return fn ? fn->ninputs : 0;
}

nt_grad_fn *nt_grad_fn_next(const nt_grad_fn *fn, int i, int *nr, nt_tensor **leaf) {
    if (nr) *nr = 0;
    if (leaf) *leaf = NULL;
    if (!fn || i < 0 || i >= fn->ninputs || !nr || !leaf) return NULL;
    const nt_edge *e = &fn->edges[i];
    *nr = e->node ? e->nr : 0;
    *leaf = e->leaf ? nt_tensor_retain(e->leaf) : NULL;
    return e->node ? nt_node_retain(e->node) : NULL;
}
