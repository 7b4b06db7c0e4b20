/*
 * random_ops.c — the in-place distributions beyond uniform_ and normal_ (cauchy_,
 * exponential_, geometric_, log_normal_, bernoulli_, random_), torch.bernoulli, and
 * torch.normal with tensor means and standard deviations (layer L4).
 *
 * Every fill runs on the block engine (nt_random_run): values are numbered in row-major
 * order and computed from their own Philox counters, so a fill does not depend on the
 * thread count, and a strided target gets the values a contiguous one would (it is filled
 * through a contiguous temporary). Only the distributions follow PyTorch, not its streams;
 * the dtype support, argument checks and their texts are PyTorch 1.13's.
 *
 * Names: a fill keeps the names of its target (rule "none"); torch.bernoulli keeps its
 * input's; torch.normal unifies the names of mean and std (PyTorch 1.13 refuses named
 * inputs there; see docs/decisions_ops_random.md).
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "core/parallel.h"
#include "core/scalar.h"
#include "core/status.h"
#include "core/tensor.h"
#include "iter/iter.h"
#include "iter/random.h"
#include "kernels/random_kernels.h"
#include "names/infer.h"
#include "ops/factory_call.h"
#include "ops/out.h"

/* ------------------------------------------------------------------ dtype facts */

/* PyTorch's ScalarType name (for "not implemented" errors), the C++ type name its bound
 * errors print, the float digits (0 for integers), the integer range, the largest float. */
static const struct {
    const char *torch, *cpp;
    int digits;
    int64_t imin, imax;
    double fmax;
} info[NT_DTYPE_COUNT] = {
    [NT_BOOL] = {"Bool", "bool", 0, 0, 1, 0},
    [NT_UINT8] = {"Byte", "unsigned char", 0, 0, 255, 0},
    [NT_INT8] = {"Char", "signed char", 0, -128, 127, 0},
    [NT_INT16] = {"Short", "short int", 0, INT16_MIN, INT16_MAX, 0},
    [NT_INT32] = {"Int", "int", 0, INT32_MIN, INT32_MAX, 0},
    [NT_INT64] = {"Long", "long int", 0, INT64_MIN, INT64_MAX, 0},
    [NT_FLOAT16] = {"Half", "c10::Half", 11, 0, 0, 65504.0},
    [NT_BFLOAT16] = {"BFloat16", "c10::BFloat16", 8, 0, 0, 0x1.fep127},
    [NT_FLOAT32] = {"Float", "float", 24, 0, 0, FLT_MAX},
    [NT_FLOAT64] = {"Double", "double", 53, 0, 0, DBL_MAX},
};

static bool is_float(nt_dtype d) {
    return nt_dtype_table[d].kind == NT_KIND_FLOAT;
}

static nt_status not_implemented(const char *kernel, nt_dtype d) {
    return nt_fail(NT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel, info[d].torch);
}

/* Fills t (any layout) with job's distribution; element i in row-major order gets value i
 * whatever the layout. Bumps the storage version. */
static nt_status dist_fill(nt_tensor *t, nt_dist_job *job) {
    job->dtype = t->dtype;
    if (t->numel == 0 || t->is_contiguous) {
        job->data = nt_tensor_bytes(t);
        nt_random_run(t->numel, nt_dist_words(job->kind, t->dtype), nt_dist_block, job);
        return NT_OK;
    }
    NT_TRY(nt_check_no_internal_overlap(t));
    nt_tensor *tmp = NULL;
    NT_TRY(nt_tensor_alloc(t->dtype, t->ndim, t->sizes, NULL, &tmp));
    job->data = nt_tensor_bytes(tmp);
    nt_random_run(t->numel, nt_dist_words(job->kind, t->dtype), nt_dist_block, job);
    nt_status st = nt_copy_(t, tmp);
    nt_tensor_release(tmp);
    return st;
}

/* ------------------------------------------------------------------ float distributions */

static nt_status check_target(const nt_tensor *t, const char *fn) {
    return t ? NT_OK : nt_fail_null_tensor(fn, "self");
}

static nt_status exponential_fill(nt_tensor *t, double lambd) {
    NT_TRY(check_target(t, "exponential_"));
    if (!(lambd >= 0.0))
        return nt_fail(NT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found lambda=%g",
                       lambd);
    if (!is_float(t->dtype)) return not_implemented("exponential_cpu", t->dtype);
    nt_dist_job job = {.kind = NT_DIST_EXPONENTIAL, .a = lambd};
    return dist_fill(t, &job);
}

static nt_status cauchy_fill(nt_tensor *t, double median, double sigma) {
    NT_TRY(check_target(t, "cauchy_"));
    if (!is_float(t->dtype)) return not_implemented("cauchy_cpu", t->dtype);
    nt_dist_job job = {.kind = NT_DIST_CAUCHY, .a = median, .b = sigma};
    return dist_fill(t, &job);
}

static nt_status log_normal_fill(nt_tensor *t, double mean, double std) {
    NT_TRY(check_target(t, "log_normal_"));
    if (!(std > 0.0))
        return nt_fail(NT_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%g", std);
    if (!is_float(t->dtype)) return not_implemented("log_normal_cpu", t->dtype);
    nt_dist_job job = {.kind = NT_DIST_LOG_NORMAL, .a = mean, .b = std};
    return dist_fill(t, &job);
}

static nt_status geometric_fill(nt_tensor *t, double p) {
    NT_TRY(check_target(t, "geometric_"));
    if (!(p > 0.0 && p < 1.0))
        return nt_fail(NT_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g", p);
    if (t->dtype == NT_BOOL) return not_implemented("geometric_cpu", t->dtype);
    nt_dist_job job = {.kind = NT_DIST_GEOMETRIC, .a = p};
    return dist_fill(t, &job);
}

/* ------------------------------------------------------------------ bernoulli */

/* The job that draws 1 with probability p (from one 32-bit word: w < p * 2^32). */
static nt_dist_job bernoulli_job(double p) {
    nt_dist_job job = {.kind = NT_DIST_BERNOULLI};
    double thr = floor(p * 4294967296.0 + 0.5); /* in [0, 2^32] */
    job.keep_any = thr >= 1.0;
    job.keep_max = job.keep_any ? (uint32_t)(thr - 1.0) : 0;
    return job;
}

static nt_status bernoulli_fill(nt_tensor *t, double p) {
    NT_TRY(check_target(t, "bernoulli_"));
    if (!(p >= 0.0 && p <= 1.0))
        return nt_fail(NT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    if (t->dtype == NT_FLOAT16) return not_implemented("bernoulli_scalar_cpu_", t->dtype);
    NT_TRY(nt_check_no_internal_overlap(t));
    nt_dist_job job = bernoulli_job(p);
    return dist_fill(t, &job);
}

static nt_status check_probabilities(nt_tensor *p) {
    nt_iter_config cfg = {.noutputs = 0, .check_mem_overlap = false};
    nt_iter it;
    NT_TRY(nt_iter_build(&it, 1, &p, &cfg));
    nt_random_check_ctx c = {.dtype = p->dtype, .bad = 0};
    nt_iter_run(&it, nt_prob_range_loop, &c);
    if (c.bad)
        return nt_fail(NT_ERR_RUNTIME,
                       "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                       "error message be improved?  If so, please report an enhancement request "
                       "to PyTorch.)");
    return NT_OK;
}

static nt_status bernoulli_tensor_fill(nt_tensor *t, const nt_tensor *p) {
    NT_TRY(check_target(t, "bernoulli_"));
    if (!p) return nt_fail_null_tensor("bernoulli_", "p");
    NT_TRY(nt_check_no_internal_overlap(t));
    if (t->dtype == NT_FLOAT16) return not_implemented("bernoulli_tensor_cpu_self_", t->dtype);
    nt_status st = NT_OK;
    nt_tensor *pe = NULL, *words = NULL;
    NT_CHECK(st, nt_expand((nt_tensor *)p, t->ndim, t->sizes, &pe));
    if (p->dtype != NT_FLOAT32 && p->dtype != NT_FLOAT64 && p->dtype != NT_BFLOAT16) {
        st = not_implemented("bernoulli_tensor_cpu_p_", p->dtype);
        goto fail;
    }
    NT_CHECK(st, check_probabilities(pe));
    NT_CHECK(st, nt_tensor_alloc(NT_INT32, t->ndim, t->sizes, NULL, &words));
    nt_dist_job job = {.kind = NT_DIST_WORDS, .dtype = NT_INT32, .data = nt_tensor_bytes(words)};
    nt_random_run(words->numel, 1, nt_dist_block, &job);
    nt_tensor *ops[3] = {t, pe, words};
    nt_iter it;
    NT_CHECK(st, nt_iter_build(&it, 3, ops, NULL));
    nt_bernoulli_tensor_ctx c = {.out_dtype = t->dtype, .p_dtype = p->dtype};
    nt_iter_run(&it, nt_bernoulli_tensor_loop, &c);
fail:
    nt_tensor_release(pe);
    nt_tensor_release(words);
    return st;
}

static nt_status bernoulli_of(const nt_tensor *input, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("bernoulli", "input");
    if (input->dtype == NT_FLOAT16)
        return not_implemented("bernoulli_tensor_cpu_self_", NT_FLOAT16);
    nt_tensor *r = NULL;
    NT_TRY(nt_tensor_alloc(input->dtype, input->ndim, input->sizes, input->names, &r));
    nt_status st = bernoulli_tensor_fill(r, input);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

static nt_status bernoulli_p_of(const nt_tensor *input, double p, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("bernoulli", "input");
    nt_tensor *r = NULL;
    NT_TRY(nt_tensor_alloc(input->dtype, input->ndim, input->sizes, input->names, &r));
    nt_status st = bernoulli_fill(r, p);
    if (st != NT_OK) {
        nt_tensor_release(r);
        return st;
    }
    *out = r;
    return NT_OK;
}

/* ------------------------------------------------------------------ random_ */

/* static_cast<int64_t>(static_cast<scalar_t>(v)) for a floating dtype, as x86 does it. */
static int64_t through_dtype(int64_t v, nt_dtype dt) {
    double x;
    switch (dt) {
    case NT_FLOAT16:
        x = nt_f16_to_f32(nt_f32_to_f16((float)v));
        break;
    case NT_BFLOAT16:
        x = nt_bf16_to_f32(nt_f32_to_bf16((float)v));
        break;
    case NT_FLOAT32:
        x = (float)v;
        break;
    default:
        x = (double)v;
        break;
    }
    return nt_double_to_i64(x);
}

static int floor_log2(uint64_t x) {
    int n = 0;
    while (x >>= 1)
        n++;
    return n;
}

static uint64_t abs_u64(int64_t v) {
    return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* PyTorch's update_from / update_to: moves a bound that the dtype cannot hold exactly to
 * one it rounds to inside [from, to). */
static int64_t update_from(int64_t from, nt_dtype dt) {
    if (from == INT64_MAX) return from;
    int64_t from_plus_1 = through_dtype(from + 1, dt);
    if (from_plus_1 < from) {
        int n = floor_log2(abs_u64(from + 1));
        from = (int64_t)((uint64_t)from_plus_1 + (UINT64_C(1) << (n - info[dt].digits + 1)));
    }
    return from;
}

static int64_t update_to(int64_t to, nt_dtype dt) {
    if (to == INT64_MIN) return to;
    int64_t to_minus_1 = through_dtype(to - 1, dt);
    if (to_minus_1 >= to) {
        int n = floor_log2(abs_u64(to - 1));
        to = (int64_t)((uint64_t)to_minus_1 - (UINT64_C(1) << (n - info[dt].digits + 1)));
    }
    return to;
}

/* PyTorch's check_from_to_in_range. */
static nt_status check_in_range(int64_t from, int64_t to_inc, nt_dtype dt) {
    bool from_ok, to_ok;
    if (is_float(dt)) {
        double max = info[dt].fmax;
        from_ok = (double)from >= -max && (double)from <= max;
        to_ok = (double)to_inc >= -max && (double)to_inc <= max;
    } else {
        from_ok = from >= info[dt].imin && from <= info[dt].imax;
        to_ok = to_inc >= info[dt].imin && to_inc <= info[dt].imax;
    }
    if (!from_ok) return nt_fail(NT_ERR_RUNTIME, "from is out of bounds for %s", info[dt].cpp);
    if (!to_ok) return nt_fail(NT_ERR_RUNTIME, "to - 1 is out of bounds for %s", info[dt].cpp);
    return NT_OK;
}

/* The values [lo, lo + range) (range 0: all 2^64) of random_(from, to) or, with to NULL,
 * random_(from, None); validated with PyTorch's checks and texts. */
static nt_status random_bounds(nt_dtype dt, int64_t from, const int64_t *to, int64_t *lo,
                               uint64_t *range, int64_t *checked_to_inc) {
    if (to) {
        int64_t hi = *to;
        if (from >= hi)
            return nt_fail(NT_ERR_RUNTIME,
                           "random_ expects 'from' to be less than 'to', but got from=%" PRId64
                           " >= to=%" PRId64,
                           from, hi);
        if (is_float(dt)) {
            from = update_from(from, dt);
            hi = update_to(hi, dt);
            if (from >= hi)
                return nt_fail(NT_ERR_RUNTIME,
                               "random_ expects 'from' casted to dtype to be less than 'to' "
                               "casted to dtype, but got from=%" PRId64 " >= to=%" PRId64,
                               from, hi);
        }
        NT_TRY(check_in_range(from, hi - 1, dt));
        *lo = from;
        *range = (uint64_t)hi - (uint64_t)from;
        *checked_to_inc = hi - 1;
        return NT_OK;
    }
    if (from != INT64_MIN) {
        int64_t to_inc;
        if (is_float(dt)) {
            to_inc = INT64_C(1) << info[dt].digits;
            from = update_from(from, dt);
            if (from >= to_inc)
                return nt_fail(NT_ERR_RUNTIME,
                               "random_ expects 'from' casted to dtype to be less than or equal "
                               "to 'to_inc' casted to dtype, but got from=%" PRId64
                               " > to_inc=%" PRId64,
                               from, to_inc);
        } else {
            to_inc = info[dt].imax;
        }
        NT_TRY(check_in_range(from, to_inc, dt));
        *lo = from;
        *range = (uint64_t)to_inc - (uint64_t)from + 1; /* 0 when it spans all of int64 */
        *checked_to_inc = to_inc;
        return NT_OK;
    }
    /* [INT64_MIN, INT64_MAX]: the full 64 bits */
    if (dt == NT_FLOAT16 || dt == NT_BOOL)
        return not_implemented("random_full_64_bits_range_kernel_cpu", dt);
    if (dt != NT_INT64 && dt != NT_FLOAT64 && dt != NT_FLOAT32 && dt != NT_BFLOAT16)
        return nt_fail(NT_ERR_RUNTIME, "random_full_64_bits_range_kernel_cpu handles only int64, "
                                       "double, float and bfloat16");
    *lo = INT64_MIN;
    *range = 0;
    *checked_to_inc = INT64_MAX;
    return NT_OK;
}

static nt_status random_fill(nt_tensor *t, int64_t lo, uint64_t range) {
    nt_dist_job job = {.kind = NT_DIST_RANDOM, .from = lo, .range = range};
    if (range == 0) job.from = 0; /* all 64 bits are the value */
    return dist_fill(t, &job);
}

static nt_status random_all(nt_tensor *t) {
    NT_TRY(check_target(t, "random_"));
    NT_TRY(nt_check_no_internal_overlap(t));
    nt_dtype dt = t->dtype;
    uint64_t range = is_float(dt) ? (UINT64_C(1) << info[dt].digits) + 1
                                  : (uint64_t)info[dt].imax + 1; /* [0, max] */
    return random_fill(t, 0, range);
}

static nt_status random_from_to(nt_tensor *t, int64_t from, const int64_t *to) {
    NT_TRY(check_target(t, "random_"));
    int64_t lo = 0, to_inc = 0;
    uint64_t range = 0;
    NT_TRY(random_bounds(t->dtype, from, to, &lo, &range, &to_inc));
    NT_TRY(nt_check_no_internal_overlap(t));
    return random_fill(t, lo, range);
}

int nt_random_precision_warnings(nt_dtype dtype, int64_t from, const int64_t *to) {
    if (!nt_dtype_valid((int)dtype) || !is_float(dtype)) return 0;
    int64_t lo = 0, to_inc = 0;
    uint64_t range = 0;
    if (random_bounds(dtype, from, to, &lo, &range, &to_inc) != NT_OK) {
        nt_clear_error();
        return 0;
    }
    if (range == 0) return 0;
    int64_t limit = INT64_C(1) << info[dtype].digits;
    int flags = 0;
    if (lo < -limit || lo > limit) flags |= 1;
    if (to_inc < -limit || to_inc > limit) flags |= 2;
    return flags;
}

/* ------------------------------------------------------------------ torch.normal */

static nt_status check_std_tensor(const nt_tensor *std) {
    if (std->numel == 0) return NT_OK;
    nt_tensor *op = (nt_tensor *)std;
    nt_iter_config cfg = {.noutputs = 0, .check_mem_overlap = false};
    nt_iter it;
    NT_TRY(nt_iter_build(&it, 1, &op, &cfg));
    nt_random_check_ctx c = {.dtype = std->dtype, .bad = 0};
    nt_iter_run(&it, nt_negative_loop, &c);
    if (c.bad) return nt_fail(NT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
    return NT_OK;
}

/* The general torch.normal: mean and std each a tensor or (when NULL) the constant. The
 * result goes into `into` when given (its shape must be the broadcast shape; an unnamed one
 * takes the computed names, a named one must match them), else into a new tensor of the
 * dtype of mean (or of std when mean is a constant). */
static nt_status normal_impl(const nt_tensor *mean_t, double mean_v, const nt_tensor *std_t,
                             double std_v, nt_tensor *into, nt_tensor **out) {
    if (std_t) {
        NT_TRY(check_std_tensor(std_t));
    } else if (!(std_v >= 0.0)) {
        return nt_fail(NT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std_v);
    }
    /* names: unified from the right, as for a binary op */
    nt_name names_buf[NT_MAX_DIMS];
    const nt_name *names = NULL;
    int names_ndim = 0;
    const nt_tensor *a = mean_t ? mean_t : std_t, *b = mean_t ? std_t : NULL;
    if (b)
        NT_TRY(nt_names_unify_from_right(a->names, a->ndim, b->names, b->ndim, names_buf,
                                         &names_ndim, &names));
    else
        names = a->names;
    nt_tensor *ins[2];
    int nin = 0;
    if (mean_t) ins[nin++] = (nt_tensor *)mean_t;
    if (std_t) ins[nin++] = (nt_tensor *)std_t;
    int ndim;
    int64_t shape[NT_MAX_DIMS];
    NT_TRY(nt_broadcast_shapes(nin, ins, &ndim, shape));
    if (into) {
        /* PyTorch broadcasts a tensor mean with out when std is a number (its std tensor is
         * made like out), so out's shape may be larger than mean's; a number mean with a
         * tensor std gives std's shape */
        if (mean_t && !std_t) {
            nt_tensor *pair[2] = {ins[0], into};
            NT_TRY(nt_broadcast_shapes(2, pair, &ndim, shape));
            if (names && ndim > a->ndim) { /* a's names, padded with None on the left */
                NT_TRY(nt_names_unify_from_right_slow("broadcast", names, a->ndim, NULL, ndim,
                                                      names_buf));
                names = names_buf;
            }
        }
        bool same = into->ndim == ndim;
        for (int d = 0; same && d < ndim; d++)
            same = into->sizes[d] == shape[d];
        if (!same) NT_TRY(nt_out_resize(into, ndim, shape)); /* PyTorch's resize_output */
        if (names) NT_TRY(nt_names_check_out(into->names, into->ndim, names, ndim));
    }
    nt_tensor *r = NULL;
    nt_status st = NT_OK;
    if (into) {
        r = nt_tensor_retain(into);
    } else {
        NT_CHECK(st, nt_tensor_alloc(a->dtype, ndim, shape, names, &r));
    }
    NT_CHECK(st, nt_normal_(r, 0.0, 1.0));
    nt_tensor *ops[3] = {r, NULL, NULL};
    nt_normal_affine_ctx c = {.out_dtype = r->dtype, .mean = mean_v, .std = std_v};
    int k = 1;
    if (mean_t) {
        c.mean_op = k;
        c.mean_dtype = mean_t->dtype;
        ops[k++] = (nt_tensor *)mean_t;
    }
    if (std_t) {
        c.std_op = k;
        c.std_dtype = std_t->dtype;
        ops[k++] = (nt_tensor *)std_t;
    }
    nt_iter it;
    NT_CHECK(st, nt_iter_build(&it, k, ops, NULL));
    nt_iter_run(&it, nt_normal_affine_loop, &c);
    if (into && names && !into->names) NT_CHECK(st, nt_tensor_set_names(into, names));
    *out = r;
    return NT_OK;
fail:
    nt_tensor_release(r);
    return st;
}

/* ------------------------------------------------------------------ the rows */

/* The tensor written, returned as the call's result. */
static nt_status written(nt_call *c, nt_status st) {
    if (st == NT_OK) c->result[0] = nt_tensor_retain(c->args[0].v.t);
    return st;
}

nt_status nt_impl_cauchy_(nt_call *c) {
    return written(
        c, cauchy_fill(nt_call_tensor(c, 0), nt_call_float(c, 1, 0.0), nt_call_float(c, 2, 1.0)));
}

nt_status nt_impl_exponential_(nt_call *c) {
    return written(c, exponential_fill(nt_call_tensor(c, 0), nt_call_float(c, 1, 1.0)));
}

nt_status nt_impl_geometric_(nt_call *c) {
    return written(c, geometric_fill(nt_call_tensor(c, 0), c->args[1].v.f));
}

nt_status nt_impl_log_normal_(nt_call *c) {
    return written(c, log_normal_fill(nt_call_tensor(c, 0), nt_call_float(c, 1, 1.0),
                                      nt_call_float(c, 2, 2.0)));
}

nt_status nt_impl_bernoulli_(nt_call *c) {
    return written(c, bernoulli_fill(nt_call_tensor(c, 0), nt_call_float(c, 1, 0.5)));
}

nt_status nt_impl_bernoulli_tensor_(nt_call *c) {
    return written(c, bernoulli_tensor_fill(nt_call_tensor(c, 0), nt_call_tensor(c, 1)));
}

/* random_(): [0, max]; random_(to); random_(from, to) (to none: the dtype's max). A bound
 * a float dtype cannot hold exactly earns PyTorch's precision warning (one per bound). */
nt_status nt_impl_random_(nt_call *c) {
    nt_tensor *t = nt_call_tensor(c, 0);
    bool given_from = c->args[1].kind == NT_ARG_INT, given_to = c->args[2].kind == NT_ARG_INT;
    if (!given_from && !given_to) return written(c, random_all(t));
    int64_t from = given_from ? c->args[1].v.i : 0;
    const int64_t *to = given_to ? &c->args[2].v.i : NULL;
    NT_TRY(written(c, random_from_to(t, from, to)));
    int flags = nt_random_precision_warnings(t->dtype, from, to);
    static const char *const what[2] = {"from", "to - 1"};
    int digits = info[t->dtype].digits;
    for (int i = 0; i < 2; i++)
        if (flags & (1 << i))
            nt_warn("%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s can "
                    "support discrete uniform distribution only within this range. This warning "
                    "will become an error in version 1.7 release, please fix the code in advance",
                    what[i], digits, digits, info[t->dtype].cpp);
    return NT_OK;
}

/* torch.bernoulli(input), and its out= form: out gets input's shape (resize_as_, as in
 * PyTorch), then 1 with probability input[i] */
nt_status nt_impl_bernoulli(nt_call *c) {
    nt_tensor *input = nt_call_tensor(c, 0);
    if (!c->out[0]) return bernoulli_of(input, &c->result[0]);
    if (!input) return nt_fail_null_tensor("bernoulli", "input");
    NT_TRY(nt_resize_as_(c->out[0], input)); /* PyTorch's resize_as_: no warning */
    NT_TRY(bernoulli_tensor_fill(c->out[0], input));
    c->result[0] = nt_tensor_retain(c->out[0]);
    return NT_OK;
}

nt_status nt_impl_bernoulli_p(nt_call *c) {
    return bernoulli_p_of(nt_call_tensor(c, 0), c->args[1].v.f, &c->result[0]);
}

static double scalar_value(nt_scalar s) {
    return s.kind == NT_SCALAR_FLOAT ? s.v.f : s.kind == NT_SCALAR_INT ? (double)s.v.i : s.v.b;
}

/* normal(mean, std): each a tensor or a number; both numbers with a size: the sized form */
nt_status nt_impl_normal_tensors(nt_call *c) {
    const nt_tensor *mean = nt_call_tensor(c, 0), *std = nt_call_tensor(c, 1);
    double mean_v = 0.0, std_v = 0.0;
    if (!mean) mean_v = c->args[0].kind == NT_ARG_SCALAR ? scalar_value(c->args[0].v.s) : 0.0;
    if (!std) std_v = c->args[1].kind == NT_ARG_SCALAR ? scalar_value(c->args[1].v.s) : 1.0;
    if (!mean && !std && c->args[2].kind != NT_ARG_NONE) { /* (mean, std, size): the sized form */
        c->args[0] = nt_arg_float(mean_v);
        c->args[1] = nt_arg_float(std_v);
        return nt_impl_normal_sized(c);
    }
    if (!mean && !std) return nt_fail(NT_ERR_TYPE, "normal(): mean or std must be a tensor");
    if (c->out[0]) {
        NT_TRY(normal_impl(mean, mean_v, std, std_v, c->out[0], &c->result[0]));
        return NT_OK;
    }
    return normal_impl(mean, mean_v, std, std_v, NULL, &c->result[0]);
}

/* ------------------------------------------------------------------ the public functions */

static nt_status fill_call(nt_op op, nt_tensor *t, nt_arg a, nt_arg b) {
    nt_call c;
    nt_call_init(&c, op);
    c.inplace = true;
    c.args[0] = nt_arg_tensor(t);
    c.args[1] = a;
    c.args[2] = b;
    return nt_dispatch_result(&c, NULL);
}

nt_status nt_exponential_(nt_tensor *t, double lambd) {
    return fill_call(NT_OP_EXPONENTIAL_, t, nt_arg_float(lambd), nt_arg_none());
}

nt_status nt_cauchy_(nt_tensor *t, double median, double sigma) {
    return fill_call(NT_OP_CAUCHY_, t, nt_arg_float(median), nt_arg_float(sigma));
}

nt_status nt_log_normal_(nt_tensor *t, double mean, double std) {
    return fill_call(NT_OP_LOG_NORMAL_, t, nt_arg_float(mean), nt_arg_float(std));
}

nt_status nt_geometric_(nt_tensor *t, double p) {
    return fill_call(NT_OP_GEOMETRIC_, t, nt_arg_float(p), nt_arg_none());
}

nt_status nt_bernoulli_(nt_tensor *t, double p) {
    return fill_call(NT_OP_BERNOULLI_, t, nt_arg_float(p), nt_arg_none());
}

nt_status nt_bernoulli_tensor_(nt_tensor *t, const nt_tensor *p) {
    if (!p) return nt_fail_null_tensor("bernoulli_", "p");
    return fill_call(NT_OP_BERNOULLI_TENSOR_, t, nt_arg_tensor((nt_tensor *)p), nt_arg_none());
}

nt_status nt_random_(nt_tensor *t) {
    return fill_call(NT_OP_RANDOM_, t, nt_arg_none(), nt_arg_none());
}

nt_status nt_random_to_(nt_tensor *t, int64_t to) {
    return fill_call(NT_OP_RANDOM_, t, nt_arg_none(), nt_arg_int(to));
}

nt_status nt_random_from_to_(nt_tensor *t, int64_t from, const int64_t *to) {
    return fill_call(NT_OP_RANDOM_, t, nt_arg_int(from), to ? nt_arg_int(*to) : nt_arg_none());
}

nt_status nt_bernoulli(const nt_tensor *input, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("bernoulli", "input");
    nt_call c;
    nt_call_init(&c, NT_OP_BERNOULLI);
    c.args[0] = nt_arg_tensor((nt_tensor *)input);
    return nt_dispatch_result(&c, out);
}

nt_status nt_bernoulli_p(const nt_tensor *input, double p, nt_tensor **out) {
    if (!input) return nt_fail_null_tensor("bernoulli", "input");
    nt_call c;
    nt_call_init(&c, NT_OP_BERNOULLI_P);
    c.args[0] = nt_arg_tensor((nt_tensor *)input);
    c.args[1] = nt_arg_float(p);
    return nt_dispatch_result(&c, out);
}

/* normal with tensors: a NULL tensor is the number beside it. */
static nt_status normal_call(const nt_tensor *mean, double mean_v, const nt_tensor *std,
                             double std_v, nt_tensor *into, nt_tensor **out) {
    nt_call c;
    nt_call_init(&c, NT_OP_NORMAL_TENSORS);
    c.out[0] = into;
    c.args[0] = mean ? nt_arg_tensor((nt_tensor *)mean) : nt_arg_scalar(nt_scalar_float(mean_v));
    c.args[1] = std ? nt_arg_tensor((nt_tensor *)std) : nt_arg_scalar(nt_scalar_float(std_v));
    return nt_dispatch_result(&c, out);
}

nt_status nt_normal_tensors(const nt_tensor *mean, const nt_tensor *std, nt_tensor **out) {
    if (!mean) return nt_fail_null_tensor("normal", "mean");
    if (!std) return nt_fail_null_tensor("normal", "std");
    return normal_call(mean, 0.0, std, 0.0, NULL, out);
}

nt_status nt_normal_mean_tensor(const nt_tensor *mean, double std, nt_tensor **out) {
    if (!mean) return nt_fail_null_tensor("normal", "mean");
    return normal_call(mean, 0.0, NULL, std, NULL, out);
}

nt_status nt_normal_std_tensor(double mean, const nt_tensor *std, nt_tensor **out) {
    if (!std) return nt_fail_null_tensor("normal", "std");
    return normal_call(NULL, mean, std, 0.0, NULL, out);
}

nt_status nt_normal_out(nt_tensor *out, const nt_tensor *mean, double mean_value,
                        const nt_tensor *std, double std_value) {
    if (!out) return nt_fail_null_tensor("normal", "out");
    if (!mean && !std) return nt_fail(NT_ERR_TYPE, "normal(): mean or std must be a tensor");
    return normal_call(mean, mean_value, std, std_value, out, NULL);
}
