/*
 * derivatives.c — the vjp table: for each differentiable op, its node's name (as PyTorch prints
 * grad_fn), its backward formula and what the formula reads (saved when the op is recorded).
 * Ops flagged NT_OPF_NO_GRAD in the op list have no row; a differentiable op without one fails
 * when recorded ("the derivative for 'x' is not implemented."), and a test walks the op list
 * for such ops.
 */
#include "derivatives.h"
#include "dispatch/dispatch.h"

#define S(slot) (1u << (slot))
#define ROW(ID, NAME, FN, SAVES, RESULT)                                                           \
    [NT_OP_##ID] = {.name = NAME, .fn = FN, .saves = SAVES, .saves_result = RESULT}
#define UNARY(ID, NAME, FN) ROW(ID, NAME, FN, S(0), false) /* reads x */
#define UNARY_Y(ID, NAME, FN) ROW(ID, NAME, FN, 0, true)   /* reads the result */
#define PLAIN(ID, NAME, FN) ROW(ID, NAME, FN, 0, false)    /* reads neither */

const nt_vjp_row nt_vjp_rows[NT_OP_COUNT] = {
    /* pointwise unary */
    UNARY(ABS, "AbsBackward0", nt_vjp_abs),
    UNARY(ACOS, "AcosBackward0", nt_vjp_acos),
    UNARY(ASIN, "AsinBackward0", nt_vjp_asin),
    UNARY(ATAN, "AtanBackward0", nt_vjp_atan),
    PLAIN(CEIL, "CeilBackward0", nt_vjp_zero),
    PLAIN(FLOOR, "FloorBackward0", nt_vjp_zero),
    PLAIN(ROUND, "RoundBackward0", nt_vjp_zero),
    PLAIN(TRUNC, "TruncBackward0", nt_vjp_zero),
    PLAIN(FRAC, "FracBackward0", nt_vjp_identity),
    UNARY(COS, "CosBackward0", nt_vjp_cos),
    UNARY(COSH, "CoshBackward0", nt_vjp_cosh),
    UNARY(SIN, "SinBackward0", nt_vjp_sin),
    UNARY(SINH, "SinhBackward0", nt_vjp_sinh),
    UNARY_Y(TAN, "TanBackward0", nt_vjp_tan),
    UNARY_Y(TANH, "TanhBackward0", nt_vjp_tanh),
    UNARY_Y(EXP, "ExpBackward0", nt_vjp_exp),
    UNARY_Y(EXPM1, "Expm1Backward0", nt_vjp_expm1),
    UNARY(LOG, "LogBackward0", nt_vjp_log),
    UNARY(LOG2, "Log2Backward0", nt_vjp_log2),
    UNARY(LOG10, "Log10Backward0", nt_vjp_log10),
    UNARY(LOG1P, "Log1PBackward0", nt_vjp_log1p),
    UNARY_Y(SQRT, "SqrtBackward0", nt_vjp_sqrt),
    UNARY_Y(RSQRT, "RsqrtBackward0", nt_vjp_rsqrt),
    UNARY_Y(RECIPROCAL, "ReciprocalBackward0", nt_vjp_reciprocal),
    PLAIN(NEG, "NegBackward0", nt_vjp_neg),
    PLAIN(SIGN, "SignBackward0", nt_vjp_zero),
    UNARY_Y(SIGMOID, "SigmoidBackward0", nt_vjp_sigmoid),
    UNARY(ERF, "ErfBackward0", nt_vjp_erf),
    UNARY(ERFC, "ErfcBackward0", nt_vjp_erfc),
    UNARY_Y(ERFINV, "ErfinvBackward0", nt_vjp_erfinv),
    UNARY(DIGAMMA, "DigammaBackward0", nt_vjp_digamma),
    UNARY_Y(RELU, "ReluBackward0", nt_vjp_relu),
    PLAIN(ROUND_DECIMALS, "RoundBackward1", nt_vjp_zero),
    PLAIN(POSITIVE, "AliasBackward0", nt_vjp_identity),
    UNARY(LGAMMA, "LgammaBackward0", nt_vjp_lgamma),
    UNARY(POLYGAMMA, "PolygammaBackward0", nt_vjp_polygamma),
    UNARY(POLYGAMMA_METHOD, "PolygammaBackward0", nt_vjp_polygamma),

    /* pointwise binary and ternary */
    PLAIN(ADD, "AddBackward0", nt_vjp_add),
    PLAIN(SUB, "SubBackward0", nt_vjp_sub),
    ROW(MUL, "MulBackward0", nt_vjp_mul, S(0) | S(1), false),
    ROW(DIV, "DivBackward0", nt_vjp_div, S(0) | S(1), false),
    PLAIN(DIV_TRUNC, "DivBackward2", nt_vjp_div_rounding),
    PLAIN(FLOOR_DIVIDE, "NotImplemented", nt_vjp_not_implemented),
    ROW(POW, "PowBackward0", nt_vjp_pow, S(0) | S(1), true),
    ROW(ATAN2, "Atan2Backward0", nt_vjp_atan2, S(0) | S(1), false),
    ROW(MAXIMUM, "MaximumBackward0", nt_vjp_maximum, S(0) | S(1), false),
    ROW(MINIMUM, "MinimumBackward0", nt_vjp_minimum, S(0) | S(1), false),
    ROW(REMAINDER, "RemainderBackward0", nt_vjp_remainder, S(0) | S(1), false),
    ROW(FMOD, "FmodBackward0", nt_vjp_fmod, S(0) | S(1), false),
    ROW(WHERE, "WhereBackward0", nt_vjp_where, S(0), false),
    ROW(WHERE_METHOD, "WhereBackward0", nt_vjp_where_method, S(1), false),
    ROW(CLAMP, "ClampBackward1", nt_vjp_clamp, S(0) | S(1) | S(2), false),
    ROW(CLAMP_MIN, "ClampMinBackward0", nt_vjp_clamp_min, S(0) | S(1), false),
    ROW(CLAMP_MAX, "ClampMaxBackward0", nt_vjp_clamp_max, S(0) | S(1), false),
    UNARY(THRESHOLD, "ThresholdBackward0", nt_vjp_threshold),
    ROW(ADDCMUL, "AddcmulBackward0", nt_vjp_addcmul, S(1) | S(2), false),
    ROW(ADDCDIV, "AddcdivBackward0", nt_vjp_addcdiv, S(1) | S(2), false),
    ROW(LERP, "LerpBackward0", nt_vjp_lerp, S(0) | S(1) | S(2), false),

    /* reductions and softmax */
    [NT_OP_SUM] = {.name = "SumBackward1", .fn = nt_vjp_sum, .name_all = "SumBackward0"},
    [NT_OP_MEAN] = {.name = "MeanBackward1", .fn = nt_vjp_mean, .name_all = "MeanBackward0"},
    ROW(LOGSUMEXP, "LogsumexpBackward0", nt_vjp_logsumexp, S(0), true),
    UNARY_Y(SOFTMAX, "SoftmaxBackward0", nt_vjp_softmax),
    UNARY_Y(LOG_SOFTMAX, "LogSoftmaxBackward0", nt_vjp_log_softmax),
    [NT_OP_PROD] = {.name = "ProdBackward1",
                    .fn = nt_vjp_prod,
                    .saves = S(0),
                    .saves_result = true,
                    .name_all = "ProdBackward0"},
    UNARY(VAR, "VarBackward0", nt_vjp_var),
    ROW(STD, "StdBackward0", nt_vjp_std, S(0), true),
    UNARY(VAR_MEAN, "VarMeanBackward0", nt_vjp_var_mean),
    ROW(STD_MEAN, "StdMeanBackward0", nt_vjp_std_mean, S(0), true),

    /* selecting reductions (indices saved as results), scans */
    ROW(AMAX, "AmaxBackward0", nt_vjp_amax, S(0), true),
    ROW(AMIN, "AminBackward0", nt_vjp_amax, S(0), true),
    ROW(MAX_ALL, "MaxBackward1", nt_vjp_evenly, S(0), true),
    ROW(MIN_ALL, "MinBackward1", nt_vjp_evenly, S(0), true),
    ROW(MEDIAN_ALL, "MedianBackward0", nt_vjp_evenly, S(0), true),
    ROW(MAX_OTHER, "MaximumBackward0", nt_vjp_maximum, S(0) | S(1), false),
    ROW(MIN_OTHER, "MinimumBackward0", nt_vjp_minimum, S(0) | S(1), false),
    UNARY_Y(MAX_DIM, "MaxBackward0", nt_vjp_select_dim),
    UNARY_Y(MIN_DIM, "MinBackward0", nt_vjp_select_dim),
    UNARY_Y(MEDIAN_DIM, "MedianBackward1", nt_vjp_select_dim),
    UNARY_Y(MODE, "ModeBackward0", nt_vjp_select_dim),
    UNARY_Y(KTHVALUE, "KthvalueBackward0", nt_vjp_kthvalue),
    UNARY_Y(TOPK, "TopkBackward0", nt_vjp_topk),
    UNARY_Y(CUMMAX, "CummaxBackward0", nt_vjp_cumextreme),
    UNARY_Y(CUMMIN, "CumminBackward0", nt_vjp_cumextreme),
    PLAIN(CUMSUM, "CumsumBackward0", nt_vjp_cumsum),
    ROW(CUMPROD, "CumprodBackward0", nt_vjp_cumprod, S(0), true),
    ROW(LOGCUMSUMEXP, "LogcumsumexpBackward0", nt_vjp_logcumsumexp, S(0), true),

    /* pooling (the plain forms pool the saved input again for the indices), distances */
    UNARY(MAX_POOL1D, "SqueezeBackward1", nt_vjp_max_pool),
    UNARY(MAX_POOL2D, "MaxPool2DWithIndicesBackward0", nt_vjp_max_pool),
    UNARY(MAX_POOL3D, "MaxPool3DWithIndicesBackward0", nt_vjp_max_pool),
    UNARY_Y(MAX_POOL1D_WITH_INDICES, "SqueezeBackward1", nt_vjp_max_pool),
    UNARY_Y(MAX_POOL2D_WITH_INDICES, "MaxPool2DWithIndicesBackward0", nt_vjp_max_pool),
    UNARY_Y(MAX_POOL3D_WITH_INDICES, "MaxPool3DWithIndicesBackward0", nt_vjp_max_pool),
    ROW(CDIST, "CdistBackward0", nt_vjp_cdist, S(0) | S(1), true),
    ROW(PDIST, "PdistBackward0", nt_vjp_pdist, S(0), true),

    /* matrix products */
    ROW(MM, "MmBackward0", nt_vjp_matmul, S(0) | S(1), false),
    ROW(MV, "MvBackward0", nt_vjp_matmul, S(0) | S(1), false),
    ROW(DOT, "DotBackward0", nt_vjp_matmul, S(0) | S(1), false),
    ROW(BMM, "BmmBackward0", nt_vjp_matmul, S(0) | S(1), false),
    ROW(MATMUL, "MatmulBackward0", nt_vjp_matmul, S(0) | S(1), false),
    ROW(ADDMM, "AddmmBackward0", nt_vjp_addmm, S(1) | S(2), false),
    ROW(ADDMV, "AddmvBackward0", nt_vjp_addmm, S(1) | S(2), false),

    /* views and names */
    PLAIN(TRANSPOSE, "TransposeBackward0", nt_vjp_transpose),
    PLAIN(TRANSPOSE_INPLACE, "TransposeBackward0", nt_vjp_transpose),
    PLAIN(SWAPAXES, "TransposeBackward0", nt_vjp_transpose),
    PLAIN(SWAPDIMS, "TransposeBackward0", nt_vjp_transpose),
    PLAIN(T, "TBackward0", nt_vjp_t),
    PLAIN(PERMUTE, "PermuteBackward0", nt_vjp_permute),
    PLAIN(EXPAND, "ExpandBackward0", nt_vjp_identity),
    PLAIN(EXPAND_AS, "ExpandBackward0", nt_vjp_identity),
    PLAIN(SQUEEZE, "SqueezeBackward0", nt_vjp_reshape),
    PLAIN(SQUEEZE_DIM, "SqueezeBackward1", nt_vjp_reshape),
    PLAIN(UNSQUEEZE, "UnsqueezeBackward0", nt_vjp_reshape),
    PLAIN(SELECT, "SelectBackward0", nt_vjp_select),
    PLAIN(NARROW, "NarrowBackward0", nt_vjp_narrow),
    PLAIN(VIEW, "ViewBackward0", nt_vjp_reshape),
    PLAIN(RESHAPE, "ReshapeAliasBackward0", nt_vjp_reshape),
    PLAIN(VIEW_AS, "ViewBackward0", nt_vjp_reshape),
    PLAIN(RESHAPE_AS, "ReshapeAliasBackward0", nt_vjp_reshape),
    PLAIN(FLATTEN, "ViewBackward0", nt_vjp_reshape),
    PLAIN(FLATTEN_OUT, "ViewBackward0", nt_vjp_reshape),
    PLAIN(FLATTEN_NAMED_RANGE, "ViewBackward0", nt_vjp_reshape),
    PLAIN(FLATTEN_NAMES, "ViewBackward0", nt_vjp_reshape),
    PLAIN(UNFLATTEN, "ViewBackward0", nt_vjp_reshape),
    PLAIN(UNFLATTEN_NAMED, "ViewBackward0", nt_vjp_reshape),
    PLAIN(RENAME, "AliasBackward0", nt_vjp_rename),
    PLAIN(RENAME_MAP, "AliasBackward0", nt_vjp_rename),
    PLAIN(REFINE_NAMES, "AliasBackward0", nt_vjp_rename),
    PLAIN(ALIGN_TO, "AlignToBackward0", nt_vjp_align),
    PLAIN(ALIGN_AS, "AlignToBackward0", nt_vjp_align),
    PLAIN(CONTIGUOUS, "CloneBackward0", nt_vjp_identity),
    PLAIN(CLONE, "CloneBackward0", nt_vjp_identity),

    /* conversions: the engine casts the gradient back */
    PLAIN(TO_DTYPE, "ToCopyBackward0", nt_vjp_identity),
    PLAIN(TO_FLOAT, "ToCopyBackward0", nt_vjp_identity),
    PLAIN(TO_DOUBLE, "ToCopyBackward0", nt_vjp_identity),
    PLAIN(TO_HALF, "ToCopyBackward0", nt_vjp_identity),
    PLAIN(TO_BFLOAT16, "ToCopyBackward0", nt_vjp_identity),

    /* masks, joins, splits */
    ROW(MASKED_FILL, "MaskedFillBackward0", nt_vjp_masked_fill, S(1), false),
    ROW(MASKED_FILL_TENSOR, "MaskedFillBackward1", nt_vjp_masked_fill, S(1), false),
    PLAIN(CAT, "CatBackward0", nt_vjp_cat),
    PLAIN(CONCAT, "CatBackward0", nt_vjp_cat),
    PLAIN(STACK, "StackBackward0", nt_vjp_stack),
    PLAIN(SPLIT, "SplitBackward0", nt_vjp_split),
    PLAIN(SPLIT_SIZES, "SplitWithSizesBackward0", nt_vjp_split),
    PLAIN(SPLIT_WITH_SIZES, "SplitWithSizesBackward0", nt_vjp_split),
    PLAIN(CHUNK, "SplitBackward0", nt_vjp_split),
    PLAIN(UNBIND, "UnbindBackward0", nt_vjp_unbind),
    [NT_OP_DROPOUT] = {.name = "MulBackward0", .composite = nt_composite_dropout},

    /* neural-network ops: their backward ops (derivatives_nn.c) */
    UNARY(GELU, "GeluBackward0", nt_vjp_gelu),
    UNARY(SILU, "SiluBackward0", nt_vjp_silu),
    ROW(LAYER_NORM, "NativeLayerNormBackward0", nt_vjp_layer_norm, S(0) | S(2), false),
    ROW(EMBEDDING, "EmbeddingBackward0", nt_vjp_embedding, S(1), false),
    ROW(NLL_LOSS, "NllLossBackward0", nt_vjp_nll_loss, S(0) | S(1) | S(2), false),
    ROW(NLL_LOSS_ND, "NllLossBackward0", nt_vjp_nll_loss, S(0) | S(1) | S(2), false),
    ROW(LINEAR, "AddmmBackward0", nt_vjp_linear, S(0) | S(1), false),

    /* more views */
    PLAIN(DIAGONAL, "DiagonalBackward0", nt_vjp_diagonal),
    PLAIN(DIAGONAL_NAMED, "DiagonalBackward0", nt_vjp_diagonal),
    ROW(NARROW_TENSOR, "SliceBackward0", nt_vjp_narrow_tensor, S(2), false),
    PLAIN(MOVEDIM, "PermuteBackward0", nt_vjp_movedim),
    PLAIN(MOVEDIM_LIST, "PermuteBackward0", nt_vjp_movedim),
    PLAIN(MOVEAXIS, "PermuteBackward0", nt_vjp_movedim),
    PLAIN(MOVEAXIS_LIST, "PermuteBackward0", nt_vjp_movedim),
    PLAIN(UNFOLD, "UnfoldBackward0", nt_vjp_unfold),
    [NT_OP_AS_STRIDED] = {.name = "AsStridedBackward0", .fn = nt_vjp_as_strided, .geometry = true},
    PLAIN(TYPE_AS, "ToCopyBackward0", nt_vjp_identity),

    /* indexing, fills, writes */
    [NT_OP_INDEX] = {.name = "IndexBackward0",
                     .fn = nt_vjp_index,
                     .saves = S(1),
                     .pick = nt_vjp_pick_index},
    [NT_OP_INDEX_PUT] = {.name = "IndexPutBackward0",
                         .fn = nt_vjp_index_put,
                         .saves = S(1),
                         .pick = nt_vjp_pick_index_put},
    ROW(INDEX_FILL, "IndexFillBackward0", nt_vjp_index_fill, S(2), false),
    ROW(INDEX_FILL_TENSOR, "IndexFillBackward1", nt_vjp_index_fill, S(2), false),
    ROW(MASKED_SELECT, "MaskedSelectBackward0", nt_vjp_masked_select, S(1), false),
    PLAIN(COPY, "CopyBackwards", nt_vjp_copy),
    [NT_OP_FILL_] = {.name = "FillBackward2", .fn = nt_vjp_fill, .pick = nt_vjp_pick_fill},
    PLAIN(ZERO_, "ZeroBackward0", nt_vjp_fill),

    /* the backward ops of the nn rows: differentiable, their own derivative not written; a
     * second backward through them fails as PyTorch's NotImplemented nodes do */
    PLAIN(GELU_BACKWARD, "NotImplemented", nt_vjp_not_implemented),
    PLAIN(SILU_BACKWARD, "NotImplemented", nt_vjp_not_implemented),
    PLAIN(LAYER_NORM_BACKWARD, "NotImplemented", nt_vjp_not_implemented),
    PLAIN(EMBEDDING_DENSE_BACKWARD, "NotImplemented", nt_vjp_not_implemented),
    PLAIN(NLL_LOSS_BACKWARD, "NotImplemented", nt_vjp_not_implemented),

    /* the index family */
    ROW(GATHER, "GatherBackward0", nt_vjp_gather, S(2), false),
    ROW(SCATTER, "ScatterBackward0", nt_vjp_scatter, S(2), false),
    ROW(SCATTER_VALUE, "ScatterBackward1", nt_vjp_scatter, S(2), false),
    ROW(SCATTER_ADD, "ScatterAddBackward0", nt_vjp_scatter, S(2), false),
    ROW(INDEX_SELECT, "IndexSelectBackward0", nt_vjp_index_select, S(2), false),
    ROW(INDEX_ADD, "IndexAddBackward0", nt_vjp_index_add, S(2), false),
    ROW(TAKE_ALONG_DIM, "GatherBackward0", nt_vjp_take_along_dim, S(1), false),
    UNARY_Y(SORT, "SortBackward0", nt_vjp_sort),
    ROW(MASKED_SCATTER, "MaskedScatterBackward0", nt_vjp_masked_scatter, S(1), false),

    /* the shape and factory family (ops/arrange.c): flip, triu and tril have their formulas,
     * the others are recorded as the public ops they are written with (the names below are
     * PyTorch's nodes, unused: the nodes are those ops') */
    PLAIN(FLIP, "FlipBackward0", nt_vjp_flip),
    [NT_OP_ROLL] = {.name = "RollBackward0", .composite = nt_composite_ops},
    [NT_OP_REPEAT] = {.name = "RepeatBackward0", .composite = nt_composite_ops},
    [NT_OP_TILE] = {.name = "RepeatBackward0", .composite = nt_composite_ops},
    PLAIN(TRIU, "TriuBackward0", nt_vjp_triangle),
    PLAIN(TRIL, "TrilBackward0", nt_vjp_triangle),
    [NT_OP_OUTER] = {.name = "MulBackward0", .composite = nt_composite_ops},
    [NT_OP_GER] = {.name = "MulBackward0", .composite = nt_composite_ops},
    [NT_OP_DIAG] = {.name = "DiagBackward0", .composite = nt_composite_ops},
    [NT_OP_NORM] = {.name = "NormBackward1", .composite = nt_composite_ops},
    [NT_OP_PAD] = {.name = "ConstantPadNdBackward0", .composite = nt_composite_ops},
    [NT_OP_EINSUM] = {.name = "BmmBackward0", .composite = nt_composite_ops},
    [NT_OP_REPEAT_INTERLEAVE_TENSOR] = {.name = "IndexSelectBackward0",
                                        .composite = nt_composite_ops},
    [NT_OP_REPEAT_INTERLEAVE] = {.name = "IndexSelectBackward0", .composite = nt_composite_ops},
    PLAIN(DIAG_EMBED, "DiagEmbedBackward0", nt_vjp_diag_embed),
};

nt_status nt_composite_ops(nt_call *c) {
    return nt_op_row_of(c->op)->impl(c);
}

/* dropout(x, p, train) while recording: x times a mask of zeros and 1 / (1 - p) drawn by the
 * same kernel (dropout of ones), so the product's gradient is the mask's */
nt_status nt_composite_dropout(nt_call *c) {
    nt_tensor *x = nt_call_tensor(c, 0), *ones = NULL, *mask = NULL;
    double p = c->args[1].v.f;
    bool train = c->args[2].v.b;
    if (!train || p == 0.0 || !x || x->numel == 0 || !nt_dtype_is_floating(x->dtype)) {
        bool was = nt_set_grad_enabled(false);
        nt_status st = nt_op_row_of(c->op)->impl(c);
        nt_set_grad_enabled(was);
        return st;
    }
    bool was = nt_set_grad_enabled(false);
    nt_status st = nt_ones_like(x, -1, &ones);
    if (st == NT_OK) st = nt_dropout(ones, p, true, &mask);
    nt_set_grad_enabled(was);
    if (st == NT_OK) {
        if (c->inplace) {
            st = nt_binary_(NT_BINARY_MUL, x, mask);
            if (st == NT_OK) c->result[0] = nt_tensor_retain(x);
        } else {
            st = nt_mul(x, mask, &c->result[0]);
        }
    }
    nt_tensor_release(ones);
    nt_tensor_release(mask);
    return st;
}
