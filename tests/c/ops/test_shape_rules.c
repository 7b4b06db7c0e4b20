/*
 * test_shape_rules.c — every row's shape rule (src/ops/shape_rules.c, ntensor/call.h:
 * nt_op_result_shape) against the op itself.
 *
 * For each op, calls are built from its schema: each slot gets a value of its kind, drawn
 * (deterministically) from small sets chosen by the slot's name, tensors from a pool of
 * shapes and dtypes; some calls are in-place or out= forms. Before each call the shape
 * query runs on the record; when the op succeeds, the query must have succeeded with the
 * shape of every tensor the op returned (both of a pair; each of a list, and its length).
 * Every op must succeed at least once, and in each of its in-place and out= forms, so every
 * rule is checked; ops that return no tensor
 * or a data-dependent shape must be refused by the query with their marker's message.
 */
#include <stdint.h>
#include <string.h>

#include "nt_test.h"
#include "ops/op_table.h"

/* ------------------------------------------------------------------ inputs */

static nt_name name_n, name_c, name_h;

/* The tensors slots draw from: (dtype, shape, named). */
typedef struct pool_entry {
    nt_dtype dtype;
    int ndim;
    int64_t sizes[4];
    bool named;
} pool_entry;

static const pool_entry pool[] = {
    {NT_FLOAT32, 2, {2, 3}, false},       {NT_FLOAT32, 1, {3}, false},
    {NT_FLOAT32, 2, {3, 2}, false},       {NT_FLOAT32, 3, {2, 3, 4}, false},
    {NT_FLOAT32, 0, {0}, false},          {NT_FLOAT32, 2, {1, 3}, false},
    {NT_FLOAT32, 2, {2, 3}, true},        {NT_INT64, 1, {2}, false},
    {NT_BOOL, 2, {2, 3}, false},          {NT_INT64, 0, {0}, false},
    {NT_FLOAT32, 3, {2, 1, 3}, false},    {NT_FLOAT32, 3, {4, 3, 2}, false},
    {NT_FLOAT32, 4, {2, 3, 5, 5}, false}, {NT_FLOAT32, 2, {0, 3}, false},
    {NT_FLOAT32, 3, {2, 4, 3}, false},    {NT_FLOAT32, 2, {2, 2}, false},
    {NT_FLOAT32, 1, {2}, false},
};
#define NPOOL ((int)(sizeof pool / sizeof pool[0]))

/* A fresh tensor of pool entry i (an in-place op may change it): elements 0, 1, 0, 1, ...
 * (valid indices, both truth values). */
static nt_tensor *make(int i) {
    const pool_entry *e = &pool[i];
    double data[200];
    int64_t n = 1;
    for (int d = 0; d < e->ndim; d++)
        n *= e->sizes[d];
    for (int64_t k = 0; k < n; k++)
        data[k] = (double)(k % 2);
    nt_name names[2] = {name_n, name_c};
    nt_tensor *f = NULL, *t = NULL;
    if (nt_from_buffer(data, NT_FLOAT64, e->ndim, e->sizes, e->named ? names : NULL, &f) != NT_OK ||
        nt_to_dtype(f, e->dtype, &t) != NT_OK) {
        fprintf(stderr, "  cannot make pool tensor %d: %s\n", i, nt_last_error());
        t = NULL;
    }
    nt_tensor_release(f);
    return t;
}

/* A small deterministic generator. */
static uint64_t rng;
static unsigned draw(unsigned n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

typedef struct ints {
    int n;
    int64_t v[4];
} ints;

/* Candidate int lists by slot name (sizes, strides, kernels, split sizes, destinations). */
static ints pick_ints(const char *name) {
    static const ints size[] = {{2, {2, 3}}, {1, {6}}, {2, {3, 2}}, {0, {0}}, {3, {1, 2, 3}}};
    static const ints shape[] = {{2, {3, 2}}, {1, {-1}}, {1, {6}}, {3, {2, -1, 1}}};
    static const ints stride[] = {{2, {3, 1}}, {1, {1}}, {0, {0}}, {1, {2}}, {2, {1, 1}}};
    static const ints kernel[] = {{1, {1}}, {1, {2}}, {2, {2, 2}}, {3, {1, 1, 1}}};
    static const ints padding[] = {{1, {0}}, {1, {1}}};
    static const ints split[] = {{2, {1, 1}}, {2, {1, 2}}, {2, {2, 1}}, {1, {3}}, {1, {2}}};
    static const ints dest[] = {{1, {0}}, {2, {1, 0}}, {1, {-1}}};
    static const ints sizes[] = {{2, {1, 3}}, {2, {3, 1}}, {2, {-1, 1}}, {1, {2}}};
    static const ints other[] = {{1, {1}}, {2, {2, 3}}};
#define PICK(list) list[draw((unsigned)(sizeof list / sizeof list[0]))]
    if (!strcmp(name, "size")) return PICK(size);
    if (!strcmp(name, "shape")) return PICK(shape);
    if (!strcmp(name, "stride")) return PICK(stride);
    if (!strcmp(name, "kernel_size")) return PICK(kernel);
    if (!strcmp(name, "padding") || !strcmp(name, "dilation")) return PICK(padding);
    if (!strncmp(name, "split_size", 10)) return PICK(split);
    if (!strcmp(name, "destination")) return PICK(dest);
    if (!strcmp(name, "sizes")) return PICK(sizes);
    return PICK(other);
}

static int64_t pick_int(const char *name) {
    static const int64_t k[] = {1, 2}, n[] = {0, 1}, chunks[] = {2, 3}, index[] = {0, 1, -1};
    static const int64_t dim[] = {0, -1, 1}, step[] = {1, 2}, from[] = {0, 1}, to[] = {5};
    static const int64_t other[] = {0, 1, 2};
    if (!strcmp(name, "k") || !strcmp(name, "split_size") || !strcmp(name, "length") ||
        !strcmp(name, "size"))
        return PICK(k);
    if (!strcmp(name, "n") || !strcmp(name, "start") || !strcmp(name, "storage_offset") ||
        !strcmp(name, "compute_mode"))
        return PICK(n);
    if (!strcmp(name, "chunks")) return PICK(chunks);
    if (!strcmp(name, "index")) return PICK(index);
    if (!strcmp(name, "dim") || !strcmp(name, "destination")) return PICK(dim);
    if (!strcmp(name, "step")) return PICK(step);
    if (!strcmp(name, "from")) return PICK(from);
    if (!strcmp(name, "to")) return PICK(to);
    return PICK(other);
}

static nt_dim pick_dim(void) {
    nt_dim dims[] = {0, 1, -1, 2, nt_dim_name(name_n), nt_dim_name(name_c)};
    return PICK(dims);
}

typedef struct dim_list {
    int n;
    nt_dim v[3];
} dim_list;

static dim_list pick_dims(void) {
    dim_list lists[] = {{0, {0}},    {1, {0}},       {1, {1}},
                        {2, {0, 1}}, {1, {-1}},      {1, {nt_dim_name(name_n)}},
                        {2, {1, 0}}, {3, {2, 1, 0}}, {3, {0, 2, 1}}};
    return PICK(lists);
}

typedef struct name_list {
    int n;
    nt_name v[3];
} name_list;

static name_list pick_names(void) {
    name_list lists[] = {{2, {name_n, name_c}},
                         {2, {name_c, name_n}},
                         {1, {name_n}},
                         {1, {name_h}},
                         {3, {name_n, name_c, name_h}}};
    return PICK(lists);
}

/* A pool entry for a tensor slot: by its name (indices, masks, a fill value), else floats
 * mostly and the others sometimes. */
static int pick_tensor(const char *name) {
    static const int common[] = {0, 0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16};
    static const int index[] = {7, 9}, mask[] = {8, 8, 0}, value[] = {4, 9};
    static const int grad[] = {0, 4, 16}, total[] = {4};
    if (!strcmp(name, "index") || !strcmp(name, "start") || !strcmp(name, "target") ||
        !strcmp(name, "indices"))
        return PICK(index);
    if (!strcmp(name, "mask") || !strcmp(name, "condition")) return PICK(mask);
    if (!strcmp(name, "value")) return PICK(value);
    if (!strcmp(name, "grad_output")) return PICK(grad);
    if (!strcmp(name, "total_weight")) return PICK(total);
    return draw(3) ? PICK(common) : (int)draw(NPOOL);
}

static nt_scalar pick_scalar(const char *name) {
    if (!strcmp(name, "end")) return nt_scalar_int(5);
    nt_scalar values[] = {nt_scalar_int(1), nt_scalar_float(0.5), nt_scalar_int(2),
                          nt_scalar_int(0)};
    return PICK(values);
}

static double pick_float(const char *name) {
    static const double p[] = {0.5, 2.0}, other[] = {0.5, 1.0};
    if (!strcmp(name, "p")) return PICK(p);
    return PICK(other);
}
#undef PICK

/* ------------------------------------------------------------------ one call */

/* What a record holds besides itself: the tensors made for it and the lists it points at. */
typedef struct built {
    nt_call c;
    nt_tensor *made[32]; /* up to six lists of three (_fused_adam_) */
    int nmade;
    nt_tensor *lists[NT_CALL_MAX_ARGS][3];
    nt_dim dims[NT_CALL_MAX_ARGS][3];
    int64_t ints[NT_CALL_MAX_ARGS][4];
    nt_name names[NT_CALL_MAX_ARGS][3];
} built;

static nt_tensor *fresh(built *b, int i) {
    nt_tensor *t = make(i);
    if (t && b->nmade < 32) b->made[b->nmade++] = t;
    return t;
}

/* Fills a record for op from its parsed schema. */
static void build(built *b, nt_op op, const nt_sig *sig) {
    memset(b, 0, sizeof *b);
    nt_call *c = &b->c;
    c->op = op;
    int nlist = 0, list_entry[3] = {0}; /* the first list's length and pool entries */
    for (int i = 0; i < sig->nparams; i++) {
        const nt_param *p = &sig->params[i];
        bool operand = strcmp(p->type, "Operand") == 0;
        int kind = operand ? (draw(3) ? NT_ARG_TENSOR : NT_ARG_SCALAR) : nt_sig_kind_of(p->type);
        if ((p->allow_none || p->optional) && draw(4) == 0) {
            c->args[i] = nt_arg_none();
            continue;
        }
        switch (kind) {
        case NT_ARG_TENSOR:
            c->args[i] = nt_arg_tensor(fresh(b, pick_tensor(p->name)));
            break;
        case NT_ARG_SCALAR:
            c->args[i] = nt_arg_scalar(pick_scalar(p->name));
            break;
        case NT_ARG_INT:
            c->args[i] = nt_arg_int(pick_int(p->name));
            break;
        case NT_ARG_FLOAT:
            c->args[i] = nt_arg_float(pick_float(p->name));
            break;
        case NT_ARG_BOOL:
            c->args[i] = nt_arg_bool(draw(2));
            break;
        case NT_ARG_DTYPE:
            c->args[i] = nt_arg_dtype(draw(2) ? NT_FLOAT32 : NT_FLOAT64);
            break;
        case NT_ARG_DIM:
            c->args[i] = nt_arg_dim(pick_dim());
            break;
        case NT_ARG_DIMS: {
            dim_list l = pick_dims();
            memcpy(b->dims[i], l.v, sizeof l.v);
            c->args[i] = nt_arg_dims(l.n, b->dims[i]);
            break;
        }
        case NT_ARG_INTS: {
            ints l = pick_ints(p->name);
            memcpy(b->ints[i], l.v, sizeof l.v);
            c->args[i] = nt_arg_ints(l.n, b->ints[i]);
            break;
        }
        case NT_ARG_NAMES: {
            name_list l = pick_names();
            memcpy(b->names[i], l.v, sizeof l.v);
            c->args[i] = nt_arg_names(l.n, b->names[i], -1);
            break;
        }
        case NT_ARG_TENSORS: {
            /* a second list is parallel to the first (the fused optimizer steps' lists:
             * entry i of each belongs to parameter i), step counters of one element */
            bool steps = !strcmp(p->name, "state_steps");
            int n = nlist ? nlist : 1 + (int)draw(3), first = pick_tensor("");
            for (int k = 0; k < n; k++) {
                int e = nlist ? list_entry[k] : k == 0 || draw(2) ? first : pick_tensor("");
                list_entry[k] = e;
                b->lists[i][k] = fresh(b, steps ? 4 : e);
            }
            nlist = n;
            c->args[i] = nt_arg_tensors(n, b->lists[i]);
            break;
        }
        case NT_ARG_STR: {
            static const char *const equations[] = {"i->i", "ij->ji", "ij,jk->ik", "i,i->"};
            if (!strcmp(p->name, "reduce")) /* scatter's */
                c->args[i] = nt_arg_str(draw(2) ? "add" : "multiply");
            else if (!strcmp(p->name, "equation")) /* einsum's */
                c->args[i] = nt_arg_str(equations[draw(4)]);
            else
                c->args[i] = nt_arg_str(draw(2) ? "floor" : "trunc");
            break;
        }
        default:
            c->args[i] = nt_arg_none();
            break;
        }
    }
    unsigned flags = nt_op_flags(op);
    if ((flags & (NT_OPF_INPLACE | NT_OPF_INPLACE_FUNCTION)) && draw(4) == 0) c->inplace = true;
    if ((flags & NT_OPF_OUT) && !c->inplace && draw(4) == 0) {
        /* out of float32, int64 or the first tensor's dtype: empty (resized by the op) or of
         * a pool shape (kept by some ops when its element count fits, as arange's) */
        int64_t zero = 0;
        nt_tensor *o = NULL, *first = b->nmade ? b->made[0] : NULL, *like = NULL;
        nt_dtype dtypes[3] = {NT_FLOAT32, NT_INT64, first ? nt_tensor_dtype(first) : NT_FLOAT64};
        nt_dtype dtype = dtypes[draw(3)];
        if (draw(2)) {
            if (nt_empty(1, &zero, dtype, NULL, &o) != NT_OK) o = NULL;
        } else if ((like = make(pick_tensor(""))) && nt_to_dtype(like, dtype, &o) != NT_OK) {
            o = NULL;
        }
        nt_tensor_release(like);
        if (o) b->made[b->nmade++] = o;
        c->out[0] = o;
        if (sig->returns[0] == '(' && nt_empty(1, &zero, NT_INT64, NULL, &o) == NT_OK) {
            b->made[b->nmade++] = o;
            c->out[1] = o;
        }
    }
}

static void release(built *b) {
    for (int i = 0; i < b->nmade; i++)
        nt_tensor_release(b->made[i]);
}

static bool same_shape(const nt_tensor *t, int ndim, const int64_t *sizes) {
    if (nt_tensor_ndim(t) != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (nt_tensor_sizes(t)[d] != sizes[d]) return false;
    return true;
}

static void report(nt_op op, const char *what, const nt_tensor *t, int ndim, const int64_t *sizes) {
    char have[256], want[256];
    int len = 0;
    for (int d = 0; t && d < nt_tensor_ndim(t); d++)
        len += snprintf(have + len, sizeof have - (size_t)len, "%lld,",
                        (long long)nt_tensor_sizes(t)[d]);
    have[len] = '\0', len = 0;
    for (int d = 0; d < ndim; d++)
        len += snprintf(want + len, sizeof want - (size_t)len, "%lld,", (long long)sizes[d]);
    want[len] = '\0';
    fprintf(stderr, "  op %d %s: %s: result [%s], rule [%s]\n", (int)op, nt_op_name(op), what, have,
            want);
}

typedef struct outcome {
    int calls, successes, not_implemented, inplace, out;
} outcome;

/* One call of op: the query, then the op, then their agreement. */
static void check_call(nt_op op, const nt_sig *sig, outcome *o) {
    built b;
    build(&b, op, sig);
    nt_call *c = &b.c;
    int ndim = 0;
    int64_t sizes[NT_MAX_DIMS], count = -1;
    nt_status want = nt_op_result_list_shape(c, 0, &count, &ndim, sizes);
    char why[256];
    snprintf(why, sizeof why, "%s", nt_last_error());
    /* the list's entries, asked before the op runs (it may change its input in place) */
    int64_t entry_ndim[8] = {0}, entry_sizes[8][NT_MAX_DIMS];
    for (int64_t k = 1; want == NT_OK && k < count && k < 8; k++) {
        int nd;
        EXPECT(nt_op_result_list_shape(c, k, NULL, &nd, entry_sizes[k]) == NT_OK);
        entry_ndim[k] = nd;
    }
    o->calls++;
    nt_status st = nt_call_op(c);
    nt_shape_rule rule = nt_op_shape_rule(op);
    if (st == NT_ERR_NOT_IMPLEMENTED && want == NT_ERR_NOT_IMPLEMENTED) o->not_implemented++;
    if (st == NT_OK) {
        o->successes++;
        o->inplace += c->inplace;
        o->out += c->out[0] != NULL;
        if (rule == NT_SHAPE_NO_TENSOR || rule == NT_SHAPE_DATA_DEPENDENT) {
            EXPECT(want == NT_ERR_RUNTIME);
            EXPECT(strstr(why, rule == NT_SHAPE_NO_TENSOR ? "returns no tensor"
                                                          : "depends on the data") != NULL);
        } else if (want != NT_OK) {
            EXPECT(want == NT_OK);
            fprintf(stderr, "  op %d %s: the op succeeded, the rule said: %s\n", (int)op,
                    nt_op_name(op), why);
        } else if (c->list || sig->returns[strlen(sig->returns) - 1] == ']') {
            EXPECT(count == c->nlist);
            if (count != c->nlist)
                fprintf(stderr, "  op %s: %lld tensors, rule %lld\n", nt_op_name(op),
                        (long long)c->nlist, (long long)count);
            for (int64_t k = 0; k < c->nlist && k < count && k < 8; k++) {
                int nd = k ? (int)entry_ndim[k] : ndim;
                const int64_t *sz = k ? entry_sizes[k] : sizes;
                EXPECT(same_shape(c->list[k], nd, sz));
                if (!same_shape(c->list[k], nd, sz)) report(op, "list entry", c->list[k], nd, sz);
            }
        } else {
            for (int k = 0; k < 2; k++) {
                if (!c->result[k]) continue;
                EXPECT(same_shape(c->result[k], ndim, sizes));
                if (!same_shape(c->result[k], ndim, sizes))
                    report(op,
                           c->inplace  ? "in place"
                           : c->out[0] ? "out="
                                       : "result",
                           c->result[k], ndim, sizes);
            }
        }
    }
    nt_tensor_release(c->result[0]);
    nt_tensor_release(c->result[1]);
    nt_tensors_release(c->list, c->nlist);
    release(&b);
}

/* ------------------------------------------------------------------ tests */

/* Every op, many calls each: each success agrees with the rule, and each op succeeds. */
static void test_rule_agrees_with_every_op(void) {
    for (int op = 0; op < NT_OP_COUNT; op++) {
        const char *text = nt_op_schema((nt_op)op);
        nt_sig sig;
        EXPECT(nt_sig_parse(text, strlen(text), &sig) == NT_OK);
        rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(op + 1) * 0x100000001B3ull;
        outcome o = {0, 0, 0, 0, 0};
        for (int i = 0; i < 3000; i++)
            check_call((nt_op)op, &sig, &o);
        /* view(dtype) is refused by the op and its rule alike */
        bool refused = o.not_implemented == o.calls;
        EXPECT(o.successes > 0 || refused);
        if (o.successes == 0 && !refused)
            fprintf(stderr, "  op %d %s: no call succeeded (last: %s)\n", op, nt_op_name((nt_op)op),
                    nt_last_error());
        /* and in each form it has: in place, out= */
        unsigned flags = nt_op_flags((nt_op)op);
        bool forms = (!(flags & (NT_OPF_INPLACE | NT_OPF_INPLACE_FUNCTION)) || o.inplace > 0) &&
                     (!(flags & NT_OPF_OUT) || o.out > 0);
        EXPECT(forms || refused);
        if (!forms && !refused)
            fprintf(stderr, "  op %d %s: %d in place, %d out= calls succeeded\n", op,
                    nt_op_name((nt_op)op), o.inplace, o.out);
    }
    nt_clear_error();
}

/* The query checks the record as nt_call_op does, and says why it cannot answer. */
static void test_query_refuses_bad_records(void) {
    int ndim;
    int64_t sizes[NT_MAX_DIMS];
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = (nt_op)NT_OP_COUNT;
    EXPECT_ERR(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_VALUE, "invalid op");
    c.op = NT_OP_ABS;
    c.args[0] = nt_arg_int(3);
    EXPECT_ERR(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_TYPE, "must be a tensor");
    nt_tensor *a = make(0), *b = make(2), *m = make(8);
    c.op = NT_OP_ADD;
    c.args[0] = nt_arg_tensor(a);
    c.args[1] = nt_arg_tensor(b);
    c.args[2] = nt_arg_none();
    EXPECT_FAIL(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_RUNTIME,
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                "dimension 1");
    c.op = NT_OP_SUM;
    int64_t bad = 2;
    c.args[1] = nt_arg_dims(1, &bad);
    c.args[2] = nt_arg_none();
    c.args[3] = nt_arg_none();
    EXPECT_FAIL(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_INDEX,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    c.op = NT_OP_MASKED_SELECT;
    c.args[1] = nt_arg_tensor(m);
    EXPECT_ERR(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_RUNTIME, "depends on the data");
    c.op = NT_OP_NUMEL;
    EXPECT_ERR(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_RUNTIME, "returns no tensor");
    /* a list entry past the end */
    c.op = NT_OP_UNBIND;
    c.args[1] = nt_arg_dim(1);
    int64_t count;
    EXPECT_OK(nt_op_result_list_shape(&c, 2, &count, &ndim, sizes));
    EXPECT(count == 3 && ndim == 1 && sizes[0] == 2);
    EXPECT_ERR(nt_op_result_list_shape(&c, 3, &count, &ndim, sizes), NT_ERR_INDEX, "result 3");
    nt_tensor_release(a);
    nt_tensor_release(b);
    nt_tensor_release(m);
}

/* A few rules by hand: keepdim, in place, out=, a default dim, a list's last entry. */
static void test_rules_by_hand(void) {
    int ndim;
    int64_t sizes[NT_MAX_DIMS], count;
    nt_tensor *t = make(3), *row = make(5), *x = make(0); /* [2, 3, 4], [1, 3], [2, 3] */
    nt_call c;
    memset(&c, 0, sizeof c);
    c.op = NT_OP_SUM;
    c.args[0] = nt_arg_tensor(t);
    nt_dim d[2] = {0, nt_dim_name(name_n)};
    c.args[1] = nt_arg_dims(1, d);
    c.args[2] = nt_arg_bool(true);
    EXPECT_OK(nt_op_result_shape(&c, &ndim, sizes));
    EXPECT(ndim == 3 && sizes[0] == 1 && sizes[1] == 3 && sizes[2] == 4);
    c.op = NT_OP_KTHVALUE; /* kthvalue(self, k, dim=-1, keepdim) */
    c.args[1] = nt_arg_int(1);
    c.args[2] = nt_arg_none();
    c.args[3] = nt_arg_none();
    EXPECT_OK(nt_op_result_shape(&c, &ndim, sizes));
    EXPECT(ndim == 2 && sizes[0] == 2 && sizes[1] == 3);
    c.op = NT_OP_MUL; /* in place: self must be the broadcast shape */
    c.args[0] = nt_arg_tensor(row);
    c.args[1] = nt_arg_tensor(x);
    c.inplace = true;
    EXPECT_FAIL(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_RUNTIME,
                "output with shape [1, 3] doesn't match the broadcast shape [2, 3]");
    c.inplace = false;
    EXPECT_OK(nt_op_result_shape(&c, &ndim, sizes));
    EXPECT(ndim == 2 && sizes[0] == 2 && sizes[1] == 3);
    c.op = NT_OP_CHUNK; /* chunk(self, 3, dim=2) of [2, 3, 4]: 2, 2 */
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = nt_arg_int(3);
    c.args[2] = nt_arg_dim(2);
    EXPECT_OK(nt_op_result_list_shape(&c, 1, &count, &ndim, sizes));
    EXPECT(count == 2 && ndim == 3 && sizes[2] == 2);
    c.op = NT_OP_MATMUL; /* [2, 3, 4] @ [2, 3]: the batch broadcast fails on 4 vs 2 */
    c.args[1] = nt_arg_tensor(x);
    c.args[2] = nt_arg_none();
    EXPECT_ERR(nt_op_result_shape(&c, &ndim, sizes), NT_ERR_RUNTIME, "cannot be multiplied");
    nt_tensor_release(t);
    nt_tensor_release(row);
    nt_tensor_release(x);
}

int main(void) {
    nt_name_intern("N", &name_n);
    nt_name_intern("C", &name_c);
    nt_name_intern("H", &name_h);
    NT_RUN(test_rule_agrees_with_every_op);
    NT_RUN(test_query_refuses_bad_records);
    NT_RUN(test_rules_by_hand);
    return nt_test_summary();
}
