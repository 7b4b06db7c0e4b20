/*
 * copy_slices.c — an in-place op on a recorded view (PyTorch's CopySlices).
 *
 * When in-place op `inner` writes `view`, a view of `base`, the base's values change in the
 * view's region. The base's history becomes a CopySlices node: from the base's gradient it cuts
 * the region's gradient, runs inner's formula on it, writes inner's gradient for the old view
 * values back into the region and passes the whole to the base's old history; inner's other
 * inputs get their gradients directly. The view's history becomes an AsStridedBackward0 node
 * over the base's new history. Geometry is kept as storage offsets, so the region is cut with
 * as_strided from a buffer laid out as the base.
 */
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "core/status.h"

typedef struct geom {
    int ndim;
    int64_t offset;
    int64_t sizes[NT_MAX_DIMS], strides[NT_MAX_DIMS];
} geom;

typedef struct slices {
    geom base, view;
    int64_t lo, extent; /* the storage elements both cover: [lo, lo + extent) */
    nt_dtype dtype;
    nt_node *inner; /* CopySlices only */
    int inner_self; /* the flat input of inner that is the view */
} slices;

static void geom_of(const nt_tensor *t, geom *g) {
    g->ndim = t->ndim;
    g->offset = t->offset;
    memcpy(g->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(g->strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
}

static int64_t geom_end(const geom *g) {
    int64_t end = g->offset + 1;
    for (int i = 0; i < g->ndim; i++)
        if (g->sizes[i] == 0)
            return g->offset;
        else
            end += (g->sizes[i] - 1) * g->strides[i];
    return end;
}

static void free_slices(void *p) {
    slices *s = p;
    nt_node_release(s->inner);
    free(s);
}

/* A zeroed buffer covering the storage range of s, and as_strided views of it laid out as the
 * base and as the view. */
static nt_status buffers(const slices *s, nt_tensor **base, nt_tensor **view) {
    nt_tensor *buf;
    int64_t n = s->extent;
    NT_TRY(nt_zeros(1, &n, s->dtype, NULL, &buf));
    nt_status st = nt_as_strided(buf, s->base.ndim, s->base.sizes, s->base.strides,
                                 s->base.offset - s->lo, base);
    if (st == NT_OK) {
        st = nt_as_strided(buf, s->view.ndim, s->view.sizes, s->view.strides,
                           s->view.offset - s->lo, view);
        if (st != NT_OK) nt_tensor_release(*base);
    }
    nt_tensor_release(buf);
    return st;
}

static nt_status copy_slices_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    slices *s = n->extra;
    nt_node *inner = s->inner;
    nt_tensor *base = NULL, *view = NULL, *gview = NULL;
    nt_tensor **ginner = calloc((size_t)inner->ninputs, sizeof *ginner);
    if (!ginner) return nt_fail(NT_ERR_MEMORY, "out of memory");
    nt_status st = buffers(s, &base, &view);
    if (st == NT_OK) st = nt_copy_(base, gout[0]);
    if (st == NT_OK) st = nt_clone(view, &gview);
    if (st == NT_OK) st = nt_node_apply(inner, &gview, ginner);
    nt_tensor *gself = st == NT_OK ? ginner[s->inner_self] : NULL;
    if (st == NT_OK) st = gself ? nt_copy_(view, gself) : nt_zero_(view);
    if (st == NT_OK) {
        gin[0] = base, base = NULL;
        for (int k = 0, i = 1; k < inner->ninputs; k++)
            if (k != s->inner_self) gin[i++] = ginner[k], ginner[k] = NULL;
    }
    for (int k = 0; k < inner->ninputs; k++)
        nt_tensor_release(ginner[k]);
    free(ginner);
    nt_tensor_release(base);
    nt_tensor_release(view);
    nt_tensor_release(gview);
    return st;
}

static nt_status as_strided_vjp(nt_node *n, nt_tensor *const *gout, nt_tensor **gin) {
    slices *s = n->extra;
    nt_tensor *base, *view;
    NT_TRY(buffers(s, &base, &view));
    nt_status st = nt_copy_(view, gout[0]);
    nt_tensor_release(view);
    if (st == NT_OK)
        gin[0] = base;
    else
        nt_tensor_release(base);
    return st;
}

static const nt_vjp_row copy_slices_row = {.name = "torch::autograd::CopySlices",
                                           .fn = copy_slices_vjp};
static const nt_vjp_row as_strided_row = {.name = "AsStridedBackward0", .fn = as_strided_vjp};

static slices *slices_new(const nt_tensor *base, const nt_tensor *view) {
    slices *s = calloc(1, sizeof *s);
    if (!s) {
        nt_fail(NT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    geom_of(base, &s->base);
    geom_of(view, &s->view);
    s->dtype = base->dtype;
    s->lo = base->offset < view->offset ? base->offset : view->offset;
    int64_t hi = geom_end(&s->base), vhi = geom_end(&s->view);
    s->extent = (hi > vhi ? hi : vhi) - s->lo;
    return s;
}

/* A node for `view`'s new history: a view of base's history. */
static nt_status view_history(nt_tensor *view, nt_tensor *base) {
    nt_tensor *in[1] = {base};
    nt_node *n = nt_node_alloc(&as_strided_row, 1, in);
    if (!n) return NT_ERR_MEMORY;
    nt_status st = NT_ERR_MEMORY;
    if ((n->extra = slices_new(base, view))) {
        n->free_extra = free_slices;
        st = nt_node_set_outputs(n, 1, &view);
    }
    if (st == NT_OK) st = nt_ag_set_history(view, n, 0);
    nt_node_release(n);
    return st;
}

nt_status nt_ag_rebase_view(nt_tensor *view, nt_node *inner) {
    nt_tensor *base = view->ag->base;
    int nin = inner->ninputs; /* base, then inner's inputs but the view */
    nt_tensor *small[16] = {NULL}, **in = nin <= 16 ? small : calloc((size_t)nin, sizeof *in);
    if (!in) return nt_fail(NT_ERR_MEMORY, "out of memory");
    in[0] = base;
    nt_node *n = nt_node_alloc(&copy_slices_row, nin, in);
    if (in != small) free(in);
    if (!n) return NT_ERR_MEMORY;
    nt_status st = NT_ERR_MEMORY;
    slices *s = slices_new(base, view);
    if (s) {
        s->inner = nt_node_retain(inner);
        s->inner_self = inner->first[0];
        n->extra = s, n->free_extra = free_slices;
        for (int k = 0, i = 1; k < nin; k++) {
            if (k == s->inner_self) continue;
            n->edges[i] = inner->edges[k]; /* metadata stays in inner's block, kept by s */
            if (n->edges[i].node) nt_node_retain(n->edges[i].node);
            if (n->edges[i].leaf) nt_tensor_retain(n->edges[i].leaf);
            n->in[i++] = inner->in[k];
        }
        st = nt_node_set_outputs(n, 1, &base);
    }
    if (st == NT_OK) st = nt_ag_set_history(base, n, 0);
    nt_node_release(n);
    return st == NT_OK ? view_history(view, base) : st;
}

/* ---- the geometry an op's formula reads (as_strided) ---- */

nt_status nt_node_save_geometry(nt_node *n, const nt_tensor *t) {
    nt_ag_geom *g = malloc(sizeof *g);
    if (!g) return nt_fail(NT_ERR_MEMORY, "out of memory");
    g->ndim = t->ndim;
    g->offset = t->offset;
    memcpy(g->sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(g->strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    n->extra = g;
    n->free_extra = free;
    return NT_OK;
}

const nt_ag_geom *nt_node_geometry(const nt_node *n) {
    return n->extra;
}
