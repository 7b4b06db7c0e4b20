/*
 * test_infer.c — the name inference rules (src/names/infer.h) against PyTorch 1.13.
 *
 * The tables below were produced by running PyTorch 1.13 on random named tensors of ranks
 * 0..5 (the generator is in docs/name_inference.md): each row gives the inputs' names
 * ("A _ C" is ('A', None, 'C'); "" a 0-dim tensor) and torch's result names, or "!" and its
 * exact error text. Every table runs twice: once with all-None lists passed as NULL (the
 * fast path where nothing is named), once as explicit arrays of None.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "core/tensor.h"
#include "names/infer.h"
#include "nt_test.h"

#define COUNT(table) ((int)(sizeof(table) / sizeof(table[0])))

/* A parsed name list: `ptr` is `names`, or NULL for an all-None list when the test passes
 * unnamed inputs as NULL. */
typedef struct spec {
    nt_name names[NT_MAX_DIMS];
    int ndim;
    const nt_name *ptr;
} spec;

static void parse(const char *text, bool null_if_unnamed, spec *s) {
    char copy[512];
    snprintf(copy, sizeof copy, "%s", text);
    s->ndim = 0;
    bool named = false;
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        nt_name n = strcmp(tok, "_") == 0 ? NT_NAME_NONE : N(tok);
        named |= n != NT_NAME_NONE;
        s->names[s->ndim++] = n;
    }
    s->ptr = named || !null_if_unnamed ? s->names : NULL;
}

/* Checks a result against a table's expectation: "!text" is an error with exactly that
 * text, anything else the names (a NULL result reads as all None). */
static bool check(const char *what, nt_status st, const nt_name *result, int ndim,
                  const char *expected) {
    bool ok;
    if (expected[0] == '!') {
        ok = st == NT_ERR_RUNTIME && strcmp(nt_last_error(), expected + 1) == 0;
    } else {
        spec want;
        parse(expected, false, &want);
        ok = st == NT_OK && ndim == want.ndim;
        for (int i = 0; ok && i < ndim; i++)
            ok = (result ? result[i] : NT_NAME_NONE) == want.names[i];
    }
    if (!ok) {
        char got[1024] = "";
        if (st == NT_OK) nt_names_repr(result, ndim, got, sizeof got);
        fprintf(stderr, "  %s: expected %s\n    got status %d: %s\n", what, expected, (int)st,
                st == NT_OK ? got : nt_last_error());
    }
    return ok;
}

/* The names a tensor ends up with: its own when it has a named dim, else `computed`. */
static const nt_name *names_after(const spec *t, const nt_name *computed) {
    for (int i = 0; t->ptr && i < t->ndim; i++)
        if (t->ptr[i] != NT_NAME_NONE) return t->ptr;
    return computed;
}

#define CHECK(what, st, result, ndim, expected) EXPECT(check(what, st, result, ndim, expected))

/* One case per line, as generated. */
/* clang-format off */
/* from torch 1.13: binary_cases */
static const char *const binary_cases[][3] = {
    {"E A _ B", "_ _", "E A _ B"},
    {"D", "_ _ D", "_ _ D"},
    {"E B", "A B", "!Error when attempting to broadcast dims ['E', 'B'] and dims ['A', 'B']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"_ E", "_ _", "_ E"},
    {"A", "B", "!Error when attempting to broadcast dims ['A'] and dims ['B']: dim 'A' and dim 'B' are at the same position from the right but do not match."},
    {"_ B A D _", "_", "_ B A D _"},
    {"_ A", "_ _ A", "_ _ A"},
    {"_ B _", "C B", "!Misaligned dims when attempting to broadcast dims ['C', 'B'] and dims [None, 'B', None]: dim 'B' appears in a different position from the right across both lists."},
    {"_ C D _ B", "B A", "!Error when attempting to broadcast dims [None, 'C', 'D', None, 'B'] and dims ['B', 'A']: dim 'B' and dim 'A' are at the same position from the right but do not match."},
    {"", "C _", "C _"},
    {"_ D", "D C", "!Error when attempting to broadcast dims [None, 'D'] and dims ['D', 'C']: dim 'D' and dim 'C' are at the same position from the right but do not match."},
    {"C D _ B", "B", "C D _ B"},
    {"C A _ D", "A _ D _", "!Misaligned dims when attempting to broadcast dims ['C', 'A', None, 'D'] and dims ['A', None, 'D', None]: dim 'D' appears in a different position from the right across both lists."},
    {"C _ D _", "_ _ _ _", "C _ D _"},
    {"", "C E A B", "C E A B"},
    {"B E _", "_ E _ _", "!Misaligned dims when attempting to broadcast dims ['B', 'E', None] and dims [None, 'E', None, None]: dim 'E' appears in a different position from the right across both lists."},
    {"B D E C", "_ E C", "B D E C"},
    {"_ C", "_ C", "_ C"},
    {"", "C _ _", "C _ _"},
    {"_ _", "D _ E _ _", "D _ E _ _"},
    {"_ _ B", "_ _ C", "!Error when attempting to broadcast dims [None, None, 'B'] and dims [None, None, 'C']: dim 'B' and dim 'C' are at the same position from the right but do not match."},
    {"_ _ E B", "_ _ _", "_ _ E B"},
    {"A C _ E", "A C _ B", "!Error when attempting to broadcast dims ['A', 'C', None, 'E'] and dims ['A', 'C', None, 'B']: dim 'E' and dim 'B' are at the same position from the right but do not match."},
    {"_ E", "E", "_ E"},
    {"D", "A", "!Error when attempting to broadcast dims ['D'] and dims ['A']: dim 'D' and dim 'A' are at the same position from the right but do not match."},
    {"C A E", "_ D B", "!Error when attempting to broadcast dims ['C', 'A', 'E'] and dims [None, 'D', 'B']: dim 'E' and dim 'B' are at the same position from the right but do not match."},
    {"B C E D _", "C A D _", "!Error when attempting to broadcast dims ['B', 'C', 'E', 'D', None] and dims ['C', 'A', 'D', None]: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"A D B", "_ _ _ _ _", "_ _ A D B"},
    {"A", "B A", "B A"},
    {"", "A _ _ _ _", "A _ _ _ _"},
    {"_ _ E D _", "_", "_ _ E D _"},
    {"A E _", "A E _", "A E _"},
    {"_", "E A B C", "E A B C"},
    {"B A", "_ _ _ _ _", "_ _ _ B A"},
    {"", "_ B D", "_ B D"},
    {"_ _ D B", "", "_ _ D B"},
    {"_", "_ D _", "_ D _"},
    {"C", "_ A", "!Error when attempting to broadcast dims ['C'] and dims [None, 'A']: dim 'C' and dim 'A' are at the same position from the right but do not match."},
    {"A C D E", "D", "!Error when attempting to broadcast dims ['A', 'C', 'D', 'E'] and dims ['D']: dim 'E' and dim 'D' are at the same position from the right but do not match."},
    {"_ _ E B", "", "_ _ E B"},
    {"B _ D C A", "C A _ _", "!Misaligned dims when attempting to broadcast dims ['B', None, 'D', 'C', 'A'] and dims ['C', 'A', None, None]: dim 'A' appears in a different position from the right across both lists."},
    {"_ E C B D", "B _ C _", "!Error when attempting to broadcast dims [None, 'E', 'C', 'B', 'D'] and dims ['B', None, 'C', None]: dim 'B' and dim 'C' are at the same position from the right but do not match."},
    {"E", "E", "E"},
    {"_ A D E _", "D _", "!Error when attempting to broadcast dims [None, 'A', 'D', 'E', None] and dims ['D', None]: dim 'E' and dim 'D' are at the same position from the right but do not match."},
    {"E D", "E _ _ _", "!Misaligned dims when attempting to broadcast dims ['E', 'D'] and dims ['E', None, None, None]: dim 'E' appears in a different position from the right across both lists."},
    {"_ E D B A", "", "_ E D B A"},
    {"_ B C", "_ E", "!Error when attempting to broadcast dims [None, 'B', 'C'] and dims [None, 'E']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"", "E", "E"},
    {"_ _ B _", "A C _", "!Error when attempting to broadcast dims [None, None, 'B', None] and dims ['A', 'C', None]: dim 'B' and dim 'C' are at the same position from the right but do not match."},
    {"_", "D _ C", "D _ C"},
    {"E A D C", "B E A _ C", "B E A D C"},
    {"_ C E", "_ _ B", "!Error when attempting to broadcast dims [None, 'C', 'E'] and dims [None, None, 'B']: dim 'E' and dim 'B' are at the same position from the right but do not match."},
    {"B E _", "_ _ _ _", "_ B E _"},
    {"B A", "B _", "B A"},
    {"E D", "D A C _", "!Misaligned dims when attempting to broadcast dims ['E', 'D'] and dims ['D', 'A', 'C', None]: dim 'D' appears in a different position from the right across both lists."},
    {"A _ D", "_", "A _ D"},
    {"_ D", "B D", "B D"},
    {"E _ _", "_", "E _ _"},
    {"B A _ C", "A _ C", "B A _ C"},
    {"_ C _ E B", "E B", "_ C _ E B"},
    {"B C A _", "B", "!Misaligned dims when attempting to broadcast dims ['B'] and dims ['B', 'C', 'A', None]: dim 'B' appears in a different position from the right across both lists."},
    {"E B", "_ C E D", "!Error when attempting to broadcast dims ['E', 'B'] and dims [None, 'C', 'E', 'D']: dim 'B' and dim 'D' are at the same position from the right but do not match."},
    {"_ _ _ _ _", "A _ C _ E", "A _ C _ E"},
    {"C", "A _ _ _ C", "A _ _ _ C"},
    {"A _", "", "A _"},
    {"D A E _", "_ E A", "!Misaligned dims when attempting to broadcast dims [None, 'E', 'A'] and dims ['D', 'A', 'E', None]: dim 'A' appears in a different position from the right across both lists."},
    {"C B E _", "A _ _ E _", "A C B E _"},
    {"D A B", "_ _ D A B", "_ _ D A B"},
    {"_ A", "_ _ _ _ _", "_ _ _ _ A"},
    {"A _ _", "E B C", "!Error when attempting to broadcast dims ['A', None, None] and dims ['E', 'B', 'C']: dim 'A' and dim 'E' are at the same position from the right but do not match."},
    {"B _", "", "B _"},
    {"A _ D E", "", "A _ D E"},
    {"E _ _ _ _", "_ _ _ _", "E _ _ _ _"},
    {"_ A D C _", "D C _", "_ A D C _"},
    {"E", "_ _", "_ E"},
    {"", "_ _ D A C", "_ _ D A C"},
    {"D _ E _", "D _ _ _", "D _ E _"},
    {"", "_ _ E B A", "_ _ E B A"},
    {"_ _ _ A", "_", "_ _ _ A"},
    {"_ _", "E _ D _ B", "E _ D _ B"},
    {"E _ A C", "_ A C _", "!Misaligned dims when attempting to broadcast dims ['E', None, 'A', 'C'] and dims [None, 'A', 'C', None]: dim 'C' appears in a different position from the right across both lists."},
    {"_ _", "E _ D", "E _ D"},
    {"_ E", "_", "_ E"},
    {"E", "_ _ _ _", "_ _ _ E"},
    {"_", "D _ A _ C", "D _ A _ C"},
    {"_ _ _ _ _", "A C", "_ _ _ A C"},
    {"D A B", "_", "D A B"},
    {"A E", "A E", "A E"},
    {"C E", "_ _ _ A", "!Error when attempting to broadcast dims ['C', 'E'] and dims [None, None, None, 'A']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"_ B _", "_ C _ _ _", "_ C _ B _"},
    {"", "_ _ _ _ _", "_ _ _ _ _"},
    {"D E _ B", "_", "D E _ B"},
    {"B C", "B A", "!Error when attempting to broadcast dims ['B', 'C'] and dims ['B', 'A']: dim 'C' and dim 'A' are at the same position from the right but do not match."},
    {"D", "_ B D", "_ B D"},
    {"_ _ _ _ _", "B", "_ _ _ _ B"},
    {"C", "", "C"},
    {"_", "_ _ B", "_ _ B"},
    {"A D", "_", "A D"},
    {"_ B", "_", "_ B"},
    {"_ A E D", "_ E D _ _", "!Misaligned dims when attempting to broadcast dims [None, 'A', 'E', 'D'] and dims [None, 'E', 'D', None, None]: dim 'D' appears in a different position from the right across both lists."},
    {"A D _", "_ D _", "A D _"},
    {"E B _ _ _", "_ _ C _", "E B _ C _"},
    {"_ D", "_", "_ D"},
    {"", "E _ B _ A", "E _ B _ A"},
    {"D", "_", "D"},
    {"E", "_ _ _ _ _", "_ _ _ _ E"},
    {"C _ B D", "", "C _ B D"},
    {"B D", "_ E A C", "!Error when attempting to broadcast dims ['B', 'D'] and dims [None, 'E', 'A', 'C']: dim 'D' and dim 'C' are at the same position from the right but do not match."},
    {"A _ C _ B", "_ B", "A _ C _ B"},
    {"D _ _ _ C", "_", "D _ _ _ C"},
};

/* from torch 1.13: cat_cases */
static const char *const cat_cases[][4] = {
    {"E", "E", "-", "E"},
    {"A", "_", "A", "A"},
    {"C A _ D", "C B _ D", "D A _ C", "!Error when attempting to cat dims ['C', 'A', None, 'D'] and dims ['C', 'B', None, 'D']: dim 'A' and dim 'B' are at the same position from the right but do not match."},
    {"C", "_", "A", "!Error when attempting to cat dims ['C'] and dims ['A']: dim 'C' and dim 'A' are at the same position from the right but do not match."},
    {"_ C _ E", "C _ E _", "-", "!Misaligned dims when attempting to cat dims [None, 'C', None, 'E'] and dims ['C', None, 'E', None]: dim 'E' appears in a different position from the right across both lists."},
    {"D E _", "D _ _", "-", "D E _"},
    {"E A C", "A C _", "A B C", "!Misaligned dims when attempting to cat dims ['E', 'A', 'C'] and dims ['A', 'C', None]: dim 'C' appears in a different position from the right across both lists."},
    {"D", "D", "D", "D"},
    {"_ _ _ _", "_ E D A", "-", "_ E D A"},
    {"D _ B", "E C B", "-", "!Error when attempting to cat dims ['D', None, 'B'] and dims ['E', 'C', 'B']: dim 'D' and dim 'E' are at the same position from the right but do not match."},
    {"D _", "C _", "-", "!Error when attempting to cat dims ['D', None] and dims ['C', None]: dim 'D' and dim 'C' are at the same position from the right but do not match."},
    {"E A B", "B _ _", "E _ B", "!Misaligned dims when attempting to cat dims ['E', 'A', 'B'] and dims ['B', None, None]: dim 'B' appears in a different position from the right across both lists."},
    {"C", "_", "-", "C"},
    {"_ _", "_ _", "-", "_ _"},
    {"A _ _ B", "A _ _ _", "-", "A _ _ B"},
    {"_ _ _ _", "C _ B _", "_ _ _ _", "C _ B _"},
    {"_ _ C", "_ C _", "-", "!Misaligned dims when attempting to cat dims [None, None, 'C'] and dims [None, 'C', None]: dim 'C' appears in a different position from the right across both lists."},
    {"_", "_", "-", "_"},
    {"_ _ _ D", "A C _ _", "D _ B E", "!Error when attempting to cat dims ['A', 'C', None, 'D'] and dims ['D', None, 'B', 'E']: dim 'D' and dim 'E' are at the same position from the right but do not match."},
    {"A _", "A _", "E C", "!Error when attempting to cat dims ['A', None] and dims ['E', 'C']: dim 'A' and dim 'E' are at the same position from the right but do not match."},
    {"_ A _", "C D A", "A B _", "!Misaligned dims when attempting to cat dims ['C', 'D', 'A'] and dims [None, 'A', None]: dim 'A' appears in a different position from the right across both lists."},
    {"D B _", "_ _ _", "_ _ B", "!Misaligned dims when attempting to cat dims [None, None, 'B'] and dims ['D', 'B', None]: dim 'B' appears in a different position from the right across both lists."},
    {"D", "_", "-", "D"},
    {"_ B D", "_ B D", "-", "_ B D"},
    {"_ _", "_ _", "_ _", "_ _"},
    {"A", "_", "-", "A"},
    {"C B A _", "_ E A _", "_ B E C", "!Error when attempting to cat dims ['C', 'B', 'A', None] and dims [None, 'E', 'A', None]: dim 'B' and dim 'E' are at the same position from the right but do not match."},
    {"_ C A E", "A E _ _", "A B _ _", "!Misaligned dims when attempting to cat dims [None, 'C', 'A', 'E'] and dims ['A', 'E', None, None]: dim 'E' appears in a different position from the right across both lists."},
    {"A _", "_ _", "-", "A _"},
    {"C E", "B _", "-", "!Error when attempting to cat dims ['C', 'E'] and dims ['B', None]: dim 'C' and dim 'B' are at the same position from the right but do not match."},
    {"C _", "C _", "C _", "C _"},
    {"_ E _", "_ _ _", "-", "_ E _"},
    {"B D", "_ _", "-", "B D"},
    {"D _", "_ B", "_ A", "!Error when attempting to cat dims ['D', 'B'] and dims [None, 'A']: dim 'B' and dim 'A' are at the same position from the right but do not match."},
    {"E D", "A D", "-", "!Error when attempting to cat dims ['E', 'D'] and dims ['A', 'D']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"_ A B E", "A B E _", "-", "!Misaligned dims when attempting to cat dims [None, 'A', 'B', 'E'] and dims ['A', 'B', 'E', None]: dim 'E' appears in a different position from the right across both lists."},
    {"_ D _", "_ _ _", "_ E D", "!Misaligned dims when attempting to cat dims [None, 'E', 'D'] and dims [None, 'D', None]: dim 'D' appears in a different position from the right across both lists."},
    {"A _ C B", "A _ _ _", "-", "A _ C B"},
    {"_ _ _", "_ _ A", "-", "_ _ A"},
    {"_ E _ A", "_ _ _ A", "-", "_ E _ A"},
};

/* from torch 1.13: matmul_cases */
static const char *const matmul_cases[][3] = {
    {"B A _", "_ _ A _ _", "!matmul: Expected 'B' (index 0 of ['B', 'A', None]) to match 'A' (index 2 of [None, None, 'A', None, None]) but they do not match."},
    {"B A _ E", "_", "B A _"},
    {"_ C _ B E", "C", "_ C _ B"},
    {"B _ _ _", "C D", "B _ _ D"},
    {"A C _ D E", "D _", "A C _ D _"},
    {"_ E", "_ E", "_ E"},
    {"_", "C", ""},
    {"B E C", "_", "B E"},
    {"D _ _ _ _", "C _ A E D", "!matmul: Expected 'D' (index 0 of ['D', None, None, None, None]) to match 'C' (index 0 of ['C', None, 'A', 'E', 'D']) but they do not match."},
    {"_ A _", "_", "_ A"},
    {"A C B D E", "E _", "A C B D _"},
    {"_", "C E D B _", "C E D _"},
    {"_ _ B", "D E A B", "D E _ B"},
    {"C", "_ _ _ _ _", "_ _ _ _"},
    {"_ E C D", "_ _", "_ E C _"},
    {"_ D A _", "_ _ C _", "_ D A _"},
    {"E _ B", "E", "E _"},
    {"C E _", "_", "C E"},
    {"E _ C", "_ _ _ _ _", "_ _ E _ _"},
    {"E _ _", "_ _ _ _ _", "_ _ E _ _"},
    {"_ _ _ B", "D", "_ _ _"},
    {"A _ _", "_ D _ B A", "!matmul: Cannot match 'A' (index 0 of ['A', None, None]) with None (index 2 of [None, 'D', None, 'B', 'A']) because the latter names already have 'A'. Are your tensors misaligned?"},
    {"E C", "_ _", "E _"},
    {"B A E _ D", "_", "B A E _"},
    {"A B D", "_ _", "A B _"},
    {"C D B", "D B", "C D B"},
    {"_", "B A D E", "B A E"},
    {"_", "_ C", "C"},
    {"C B E _ D", "_ _ _ _ _", "C B E _ _"},
    {"E D C _", "C _", "E D C _"},
    {"_ _ _ _", "E _ A", "_ E _ A"},
    {"_ E _ A B", "A B _ _", "!matmul: Expected 'E' (index 1 of [None, 'E', None, 'A', 'B']) to match 'A' (index 0 of ['A', 'B', None, None]) but they do not match."},
    {"A", "D _ A", "D A"},
    {"D _ A E", "D", "D _ A"},
    {"B E _", "_ _ _ _ _", "_ _ B E _"},
    {"A", "_ A", "A"},
    {"_ _ B E C", "E _", "_ _ B E _"},
    {"C A B _", "_", "C A B"},
    {"C A E B", "B C E D A", "!matmul: Expected 'A' (index 1 of ['C', 'A', 'E', 'B']) to match 'E' (index 2 of ['B', 'C', 'E', 'D', 'A']) but they do not match."},
    {"B E _", "_ _ E _ _", "!matmul: Expected 'B' (index 0 of ['B', 'E', None]) to match 'E' (index 2 of [None, None, 'E', None, None]) but they do not match."},
    {"B _ C _ _", "_", "B _ C _"},
    {"A", "A", ""},
    {"A E D _", "_ _ _ D _", "_ A E D _"},
    {"D _ _ A", "_ _ A _", "D _ _ _"},
    {"B _ _ C _", "A _", "B _ _ C _"},
    {"E D _ A B", "B _ _", "!matmul: Cannot match 'B' (index 0 of ['B', None, None]) with None (index 2 of ['E', 'D', None, 'A', 'B']) because the latter names already have 'B'. Are your tensors misaligned?"},
    {"C D E", "_", "C D"},
    {"D A C _", "E A _", "!matmul: Expected 'A' (index 1 of ['D', 'A', 'C', None]) to match 'E' (index 0 of ['E', 'A', None]) but they do not match."},
    {"D A _ E", "_", "D A _"},
    {"_ D _", "E D C _ B", "E D C D B"},
    {"_ _", "_ C", "_ C"},
    {"_ _ _ _ _", "_", "_ _ _ _"},
    {"_ A D C", "D C _ _", "!matmul: Cannot match 'D' (index 0 of ['D', 'C', None, None]) with None (index 0 of [None, 'A', 'D', 'C']) because the latter names already have 'D'. Are your tensors misaligned?"},
    {"_", "A _ C E", "A _ E"},
    {"_ A E", "D _ _ A E", "D _ _ A E"},
    {"_ C E _", "E _ _ _", "!matmul: Cannot match 'E' (index 0 of ['E', None, None, None]) with None (index 0 of [None, 'C', 'E', None]) because the latter names already have 'E'. Are your tensors misaligned?"},
    {"B C D E A", "E A", "B C D E A"},
    {"C _ _ B", "_ _ _", "C _ _ _"},
    {"_ D B A C", "_ C", "_ D B A C"},
    {"D E _", "_ _ C _", "_ D E _"},
    {"A _ _", "C _ B _", "C A _ _"},
    {"_ A D B", "A D B", "_ A D B"},
    {"_ C", "_ E", "_ E"},
    {"A B D E", "_ A E", "A B D E"},
    {"C B E _", "E D A", "!matmul: Expected 'B' (index 1 of ['C', 'B', 'E', None]) to match 'E' (index 0 of ['E', 'D', 'A']) but they do not match."},
    {"B", "_", ""},
    {"D B _ _ _", "D E C _ B", "!matmul: Expected 'B' (index 1 of ['D', 'B', None, None, None]) to match 'E' (index 1 of ['D', 'E', 'C', None, 'B']) but they do not match."},
    {"D C _ _ A", "A _ _", "!matmul: Cannot match 'A' (index 0 of ['A', None, None]) with None (index 2 of ['D', 'C', None, None, 'A']) because the latter names already have 'A'. Are your tensors misaligned?"},
    {"B", "E _ _ A B", "E _ _ B"},
    {"D _ A _ C", "B C E", "!matmul: Expected 'A' (index 2 of ['D', None, 'A', None, 'C']) to match 'B' (index 0 of ['B', 'C', 'E']) but they do not match."},
    {"_ _ _ E", "E _ B C", "!matmul: Cannot match 'E' (index 0 of ['E', None, 'B', 'C']) with None (index 0 of [None, None, None, 'E']) because the latter names already have 'E'. Are your tensors misaligned?"},
    {"A D C B E", "C B E _ _", "!matmul: Expected 'A' (index 0 of ['A', 'D', 'C', 'B', 'E']) to match 'C' (index 0 of ['C', 'B', 'E', None, None]) but they do not match."},
    {"C _ E B", "_ _", "C _ E _"},
    {"_ _ E C _", "_ E _ _", "_ _ E C _"},
    {"C A", "_ _ _ _", "_ _ C _"},
    {"_ _ _", "A C _ _ _", "A C _ _ _"},
    {"_ _ E _", "_", "_ _ E"},
    {"_ E", "E", "_"},
    {"_ C _ _", "_ _", "_ C _ _"},
    {"D C", "A _ _", "A D _"},
    {"D", "D _ A E C", "D _ A C"},
    {"A E _ C D", "D _", "A E _ C _"},
    {"_ E D B", "A _ E D B", "A _ E D B"},
    {"B A D", "A _ _", "!matmul: Expected 'B' (index 0 of ['B', 'A', 'D']) to match 'A' (index 0 of ['A', None, None]) but they do not match."},
    {"_ _ _ _ _", "_ E", "_ _ _ _ E"},
    {"_ A", "_ _ _ _", "_ _ _ _"},
    {"A E", "C", "A"},
    {"E", "_ _ _ _", "_ _ _"},
    {"_ _ D B", "_ D B _ _", "!matmul: Cannot match 'D' (index 1 of [None, 'D', 'B', None, None]) with None (index 0 of [None, None, 'D', 'B']) because the latter names already have 'D'. Are your tensors misaligned?"},
    {"D C A", "_", "D C"},
    {"_ _ _ _", "C _ E B", "C _ _ B"},
    {"_ D A E _", "D A E _", "_ D A E _"},
    {"_ _", "A D C E _", "A D C _ _"},
    {"B A E D", "E D", "B A E D"},
    {"_ _ E _", "E _ C", "!matmul: Cannot match 'E' (index 0 of ['E', None, 'C']) with None (index 1 of [None, None, 'E', None]) because the latter names already have 'E'. Are your tensors misaligned?"},
    {"D B", "_ D B", "_ D B"},
    {"D", "_ _ _", "_ _"},
    {"_ _ _ _", "A B E C", "A B _ C"},
    {"D E _", "A E B C D", "!matmul: Expected 'D' (index 0 of ['D', 'E', None]) to match 'B' (index 2 of ['A', 'E', 'B', 'C', 'D']) but they do not match."},
    {"_ _ A", "_ A", "_ _ A"},
    {"B E A C D", "_ B", "B E A C B"},
    {"C A", "_ C A", "_ C A"},
    {"D B C E", "C E _", "!matmul: Expected 'B' (index 1 of ['D', 'B', 'C', 'E']) to match 'C' (index 0 of ['C', 'E', None]) but they do not match."},
    {"D B A E _", "_ _ _ _", "D B A E _"},
    {"A E", "_", "A"},
    {"_ C D _ A", "A _ D B", "!matmul: Expected 'C' (index 1 of [None, 'C', 'D', None, 'A']) to match 'A' (index 0 of ['A', None, 'D', 'B']) but they do not match."},
    {"E A _ C B", "_", "E A _ C"},
    {"B _ D", "C B _ D", "C B _ D"},
    {"C _ A D", "_ _ D E C", "!matmul: Cannot match 'C' (index 0 of ['C', None, 'A', 'D']) with None (index 1 of [None, None, 'D', 'E', 'C']) because the latter names already have 'C'. Are your tensors misaligned?"},
    {"E A C", "C _ _", "!matmul: Expected 'E' (index 0 of ['E', 'A', 'C']) to match 'C' (index 0 of ['C', None, None]) but they do not match."},
};

/* from torch 1.13: mm_cases */
static const char *const mm_cases[][3] = {
    {"_ B", "B E", "_ E"},
    {"A B", "A B", "A B"},
    {"A _", "_ _", "A _"},
    {"C _", "_ _", "C _"},
    {"B _", "_ _", "B _"},
    {"B D", "_ _", "B _"},
    {"_ B", "_ B", "_ B"},
    {"E _", "_ _", "E _"},
    {"E C", "_ _", "E _"},
    {"_ C", "_ C", "_ C"},
    {"A E", "_ _", "A _"},
    {"C _", "C _", "C _"},
    {"E _", "E _", "E _"},
    {"D E", "D E", "D E"},
    {"C B", "D _", "C _"},
    {"C D", "D _", "C _"},
    {"_ B", "B D", "_ D"},
    {"_ _", "_ A", "_ A"},
    {"_ D", "_ D", "_ D"},
    {"A _", "C E", "A E"},
};

/* from torch 1.13: bmm_cases */
static const char *const bmm_cases[][3] = {
    {"_ _ B", "_ A B", "_ _ B"},
    {"A D E", "_ _ _", "A D _"},
    {"_ _ _", "_ E B", "_ _ B"},
    {"_ _ _", "_ C B", "_ _ B"},
    {"_ C _", "A C _", "A C _"},
    {"C A D", "E D C", "!matmul: Expected 'C' (index 0 of ['C', 'A', 'D']) to match 'E' (index 0 of ['E', 'D', 'C']) but they do not match."},
    {"B C A", "_ _ _", "B C _"},
    {"B D E", "D E _", "!matmul: Expected 'B' (index 0 of ['B', 'D', 'E']) to match 'D' (index 0 of ['D', 'E', None]) but they do not match."},
    {"_ C _", "_ _ _", "_ C _"},
    {"_ _ _", "A E _", "A _ _"},
    {"D A E", "D A B", "D A B"},
    {"D E C", "E A D", "!matmul: Expected 'D' (index 0 of ['D', 'E', 'C']) to match 'E' (index 0 of ['E', 'A', 'D']) but they do not match."},
    {"A C _", "A _ _", "A C _"},
    {"E B _", "E _ _", "E B _"},
    {"E _ _", "A E D", "!matmul: Expected 'E' (index 0 of ['E', None, None]) to match 'A' (index 0 of ['A', 'E', 'D']) but they do not match."},
    {"D _ A", "D _ A", "D _ A"},
    {"_ D _", "_ _ _", "_ D _"},
    {"D C B", "D E A", "D C A"},
    {"A D C", "_ _ _", "A D _"},
    {"_ A _", "_ _ _", "_ A _"},
};

/* from torch 1.13: mv_cases */
static const char *const mv_cases[][3] = {
    {"_ A", "_", "_"},
    {"A E", "_", "A"},
    {"C _", "_", "C"},
    {"D _", "_", "D"},
    {"A C", "C", "A"},
    {"A _", "_", "A"},
    {"C _", "A", "C"},
    {"A B", "_", "A"},
    {"E D", "D", "E"},
    {"B C", "_", "B"},
};

/* from torch 1.13: addmm_cases */
static const char *const addmm_cases[][4] = {
    {"_", "_ E", "C _", "_ _"},
    {"", "A _", "_ _", "A _"},
    {"B A", "B C", "D A", "B A"},
    {"D _", "D A", "_ D", "!Matrix multiplying Tensor['D', 'A'] with Tensor[None, 'D'] would produce output tensor with duplicate names ['D', 'D']. Please rename the input tensors with `Tensor.rename` to prevent this."},
    {"E _", "D B", "_ _", "!Error when attempting to broadcast dims ['D', None] and dims ['E', None]: dim 'D' and dim 'E' are at the same position from the right but do not match."},
    {"B _", "B D", "_ B", "!Matrix multiplying Tensor['B', 'D'] with Tensor[None, 'B'] would produce output tensor with duplicate names ['B', 'B']. Please rename the input tensors with `Tensor.rename` to prevent this."},
    {"_", "_ A", "D B", "_ B"},
    {"D _", "D _", "D _", "D _"},
    {"_ _", "D C", "A C", "D C"},
    {"E", "D E", "_ E", "D E"},
    {"_ _", "D B", "_ D", "!Matrix multiplying Tensor['D', 'B'] with Tensor[None, 'D'] would produce output tensor with duplicate names ['D', 'D']. Please rename the input tensors with `Tensor.rename` to prevent this."},
    {"_ C", "D E", "D C", "D C"},
    {"_", "B _", "_ _", "B _"},
    {"B C", "E _", "_ _", "!Error when attempting to broadcast dims ['E', None] and dims ['B', 'C']: dim 'E' and dim 'B' are at the same position from the right but do not match."},
    {"B C", "B E", "_ E", "!Error when attempting to broadcast dims ['B', 'E'] and dims ['B', 'C']: dim 'E' and dim 'C' are at the same position from the right but do not match."},
    {"C", "_ _", "_ E", "!Error when attempting to broadcast dims [None, 'E'] and dims ['C']: dim 'E' and dim 'C' are at the same position from the right but do not match."},
    {"D C", "D C", "D C", "D C"},
    {"_", "C E", "C _", "C _"},
    {"", "_ B", "_ _", "_ _"},
    {"_ _", "_ A", "E _", "_ _"},
    {"C _", "C E", "C E", "C E"},
    {"A", "_ E", "_ E", "!Error when attempting to broadcast dims [None, 'E'] and dims ['A']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"_ E", "_ _", "A E", "_ E"},
    {"B E", "B E", "B E", "B E"},
    {"C _", "C _", "_ _", "C _"},
    {"_", "C _", "C _", "C _"},
    {"D C", "E A", "_ _", "!Error when attempting to broadcast dims ['E', None] and dims ['D', 'C']: dim 'E' and dim 'D' are at the same position from the right but do not match."},
    {"", "_ _", "_ B", "_ B"},
    {"B _", "D _", "_ _", "!Error when attempting to broadcast dims ['D', None] and dims ['B', None]: dim 'D' and dim 'B' are at the same position from the right but do not match."},
    {"", "C B", "B _", "C _"},
    {"C _", "C E", "D E", "C E"},
    {"D B", "C _", "_ _", "!Error when attempting to broadcast dims ['C', None] and dims ['D', 'B']: dim 'C' and dim 'D' are at the same position from the right but do not match."},
    {"_ _", "_ _", "C _", "_ _"},
    {"_ E", "_ C", "B C", "!Error when attempting to broadcast dims [None, 'C'] and dims [None, 'E']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"", "C E", "_ _", "C _"},
    {"A _", "A C", "A _", "A _"},
    {"_ A", "_ D", "_ B", "!Error when attempting to broadcast dims [None, 'B'] and dims [None, 'A']: dim 'B' and dim 'A' are at the same position from the right but do not match."},
    {"", "C A", "E A", "C A"},
    {"A", "B D", "B _", "B A"},
    {"C", "A C", "_ _", "A C"},
};

/* from torch 1.13: addmv_cases */
static const char *const addmv_cases[][4] = {
    {"", "B D", "_", "B"},
    {"E", "E _", "_", "E"},
    {"B", "B _", "_", "B"},
    {"B", "B E", "_", "B"},
    {"", "_ _", "_", "_"},
    {"_", "C A", "D", "C"},
    {"E", "E _", "C", "E"},
    {"D", "D B", "_", "D"},
    {"", "A _", "_", "A"},
    {"B", "A _", "_", "!Error when attempting to broadcast dims ['A'] and dims ['B']: dim 'A' and dim 'B' are at the same position from the right but do not match."},
    {"D", "_ A", "A", "D"},
    {"A", "A _", "C", "A"},
    {"", "_ _", "E", "_"},
    {"E", "E A", "_", "E"},
    {"D", "D _", "_", "D"},
    {"D", "D _", "B", "D"},
    {"C", "A C", "_", "!Error when attempting to broadcast dims ['A'] and dims ['C']: dim 'A' and dim 'C' are at the same position from the right but do not match."},
    {"", "E A", "_", "E"},
    {"C", "C B", "_", "C"},
    {"_", "D _", "_", "D"},
};

/* from torch 1.13: masked_fill_cases */
static const char *const masked_fill_cases[][3] = {
    {"", "D E B", "!masked_fill: attempted to broadcast Tensor['D', 'E', 'B'] to Tensor[] but the number of dims (3) must be less than or equal to the number of dims in the tensor (0)"},
    {"E B D", "_ B D _", "!masked_fill: attempted to broadcast Tensor[None, 'B', 'D', None] to Tensor['E', 'B', 'D'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (3)"},
    {"_ E", "A", "!Error when attempting to broadcast dims [None, 'E'] and dims ['A']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"B A E _", "B A E _", "B A E _"},
    {"D B", "_ _", "D B"},
    {"D _ _", "_ _ _", "D _ _"},
    {"E _ D", "_", "E _ D"},
    {"_", "E C", "!masked_fill: attempted to broadcast Tensor['E', 'C'] to Tensor[None] but the number of dims (2) must be less than or equal to the number of dims in the tensor (1)"},
    {"D _ B", "B _", "!Misaligned dims when attempting to broadcast dims ['D', None, 'B'] and dims ['B', None]: dim 'B' appears in a different position from the right across both lists."},
    {"D E", "B D", "!Error when attempting to broadcast dims ['D', 'E'] and dims ['B', 'D']: dim 'E' and dim 'D' are at the same position from the right but do not match."},
    {"B", "_ B", "!masked_fill: attempted to broadcast Tensor[None, 'B'] to Tensor['B'] but the number of dims (2) must be less than or equal to the number of dims in the tensor (1)"},
    {"_ _ _ E", "_ _ D E", "_ _ D E"},
    {"C", "A C D E", "!masked_fill: attempted to broadcast Tensor['A', 'C', 'D', 'E'] to Tensor['C'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (1)"},
    {"E _", "E _", "E _"},
    {"D _ _ _", "_ _ _", "D _ _ _"},
    {"_", "_ _ _ D", "!masked_fill: attempted to broadcast Tensor[None, None, None, 'D'] to Tensor[None] but the number of dims (4) must be less than or equal to the number of dims in the tensor (1)"},
    {"_ _ _ _", "E _", "_ _ E _"},
    {"B C", "_ _ B _", "!masked_fill: attempted to broadcast Tensor[None, None, 'B', None] to Tensor['B', 'C'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (2)"},
    {"C D E", "C D E", "C D E"},
    {"_ C", "_ C _", "!masked_fill: attempted to broadcast Tensor[None, 'C', None] to Tensor[None, 'C'] but the number of dims (3) must be less than or equal to the number of dims in the tensor (2)"},
    {"_ C", "", "_ C"},
    {"", "B C D _", "!masked_fill: attempted to broadcast Tensor['B', 'C', 'D', None] to Tensor[] but the number of dims (4) must be less than or equal to the number of dims in the tensor (0)"},
    {"B D _", "B D _", "B D _"},
    {"_", "_ E", "!masked_fill: attempted to broadcast Tensor[None, 'E'] to Tensor[None] but the number of dims (2) must be less than or equal to the number of dims in the tensor (1)"},
    {"D A", "", "D A"},
    {"B", "B", "B"},
    {"", "E B D C", "!masked_fill: attempted to broadcast Tensor['E', 'B', 'D', 'C'] to Tensor[] but the number of dims (4) must be less than or equal to the number of dims in the tensor (0)"},
    {"_ _ E", "_ C", "!Error when attempting to broadcast dims [None, None, 'E'] and dims [None, 'C']: dim 'E' and dim 'C' are at the same position from the right but do not match."},
    {"", "A _ D B", "!masked_fill: attempted to broadcast Tensor['A', None, 'D', 'B'] to Tensor[] but the number of dims (4) must be less than or equal to the number of dims in the tensor (0)"},
    {"C", "", "C"},
    {"B", "_ _ B", "!masked_fill: attempted to broadcast Tensor[None, None, 'B'] to Tensor['B'] but the number of dims (3) must be less than or equal to the number of dims in the tensor (1)"},
    {"C _ A D", "_ A _", "C _ A D"},
    {"D _ _ E", "", "D _ _ E"},
    {"C A B D", "", "C A B D"},
    {"B E C", "B", "!Error when attempting to broadcast dims ['B', 'E', 'C'] and dims ['B']: dim 'C' and dim 'B' are at the same position from the right but do not match."},
    {"C _", "C _", "C _"},
    {"_ B", "_ _", "_ B"},
    {"D _ B", "_ B _ C", "!masked_fill: attempted to broadcast Tensor[None, 'B', None, 'C'] to Tensor['D', None, 'B'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (3)"},
    {"D E _ B", "_", "D E _ B"},
    {"B", "C", "!Error when attempting to broadcast dims ['B'] and dims ['C']: dim 'B' and dim 'C' are at the same position from the right but do not match."},
};

/* from torch 1.13: masked_fill__cases */
static const char *const masked_fill__cases[][3] = {
    {"_ _ _ E", "_", "!masked_fill_: attempted to broadcast Tensor[None, None, None, 'E'] to Tensor[None] but the number of dims (4) must be less than or equal to the number of dims in the tensor (1)"},
    {"_ _ C _", "_ _", "!masked_fill_: attempted to broadcast Tensor[None, None, 'C', None] to Tensor[None, None] but the number of dims (4) must be less than or equal to the number of dims in the tensor (2)"},
    {"E", "_", "E"},
    {"B C E _", "", "!masked_fill_: attempted to broadcast Tensor['B', 'C', 'E', None] to Tensor[] but the number of dims (4) must be less than or equal to the number of dims in the tensor (0)"},
    {"D B _", "A _ _", "!Error when attempting to broadcast dims ['A', None, None] and dims ['D', 'B', None]: dim 'A' and dim 'D' are at the same position from the right but do not match."},
    {"A _ B", "", "!masked_fill_: attempted to broadcast Tensor['A', None, 'B'] to Tensor[] but the number of dims (3) must be less than or equal to the number of dims in the tensor (0)"},
    {"A D B C", "_ _ _ C", "A D B C"},
    {"_ _ _", "_ _ C", "_ _ C"},
    {"E _ C D", "_ _", "!masked_fill_: attempted to broadcast Tensor['E', None, 'C', 'D'] to Tensor[None, None] but the number of dims (4) must be less than or equal to the number of dims in the tensor (2)"},
    {"E _ D B", "", "!masked_fill_: attempted to broadcast Tensor['E', None, 'D', 'B'] to Tensor[] but the number of dims (4) must be less than or equal to the number of dims in the tensor (0)"},
    {"B D C _", "C A", "!masked_fill_: attempted to broadcast Tensor['B', 'D', 'C', None] to Tensor['C', 'A'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (2)"},
    {"D", "C", "!Error when attempting to broadcast dims ['C'] and dims ['D']: dim 'C' and dim 'D' are at the same position from the right but do not match."},
    {"C _ B E", "_ E B", "!masked_fill_: attempted to broadcast Tensor['C', None, 'B', 'E'] to Tensor[None, 'E', 'B'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (3)"},
    {"_ _ _", "_ _ D", "_ _ D"},
    {"_ A D E", "_", "!masked_fill_: attempted to broadcast Tensor[None, 'A', 'D', 'E'] to Tensor[None] but the number of dims (4) must be less than or equal to the number of dims in the tensor (1)"},
    {"B E", "_", "!masked_fill_: attempted to broadcast Tensor['B', 'E'] to Tensor[None] but the number of dims (2) must be less than or equal to the number of dims in the tensor (1)"},
    {"D C B _", "_ _ _ _", "D C B _"},
    {"C A E", "A E", "!masked_fill_: attempted to broadcast Tensor['C', 'A', 'E'] to Tensor['A', 'E'] but the number of dims (3) must be less than or equal to the number of dims in the tensor (2)"},
    {"E _", "", "!masked_fill_: attempted to broadcast Tensor['E', None] to Tensor[] but the number of dims (2) must be less than or equal to the number of dims in the tensor (0)"},
    {"E D _ C", "D _ C _", "!Misaligned dims when attempting to broadcast dims ['E', 'D', None, 'C'] and dims ['D', None, 'C', None]: dim 'C' appears in a different position from the right across both lists."},
    {"E", "C", "!Error when attempting to broadcast dims ['C'] and dims ['E']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"A", "_", "A"},
    {"_ _", "", "_ _"},
    {"D C", "_ _", "D C"},
    {"C E", "_ E", "C E"},
    {"_ _ _ _", "_ A", "!masked_fill_: attempted to broadcast Tensor[None, None, None, None] to Tensor[None, 'A'] but the number of dims (4) must be less than or equal to the number of dims in the tensor (2)"},
    {"_ E D", "_ C A", "!Error when attempting to broadcast dims [None, 'C', 'A'] and dims [None, 'E', 'D']: dim 'A' and dim 'D' are at the same position from the right but do not match."},
    {"E B", "_ _", "E B"},
    {"A", "A", "A"},
    {"A _ B", "_", "!masked_fill_: attempted to broadcast Tensor['A', None, 'B'] to Tensor[None] but the number of dims (3) must be less than or equal to the number of dims in the tensor (1)"},
};

/* from torch 1.13: masked_select_cases */
static const char *const masked_select_cases[][3] = {
    {"B _ _ _", "_ _", "_"},
    {"", "A", "_"},
    {"C E B", "_", "_"},
    {"E", "", "_"},
    {"_", "_ B _", "_"},
    {"", "_ C B _", "_"},
    {"_ B", "_ E", "!Error when attempting to broadcast dims [None, 'B'] and dims [None, 'E']: dim 'B' and dim 'E' are at the same position from the right but do not match."},
    {"A C", "_", "_"},
    {"A _ C D", "D _ _", "!Misaligned dims when attempting to broadcast dims ['A', None, 'C', 'D'] and dims ['D', None, None]: dim 'D' appears in a different position from the right across both lists."},
    {"C _ B _", "C _ B D", "_"},
    {"_ E", "B", "!Error when attempting to broadcast dims [None, 'E'] and dims ['B']: dim 'E' and dim 'B' are at the same position from the right but do not match."},
    {"D _ C", "_ E", "!Error when attempting to broadcast dims ['D', None, 'C'] and dims [None, 'E']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"B A E C", "B", "!Error when attempting to broadcast dims ['B', 'A', 'E', 'C'] and dims ['B']: dim 'C' and dim 'B' are at the same position from the right but do not match."},
    {"B _", "_ _ _ _", "_"},
    {"", "D", "_"},
    {"_", "D _ _", "_"},
    {"_ B _ D", "_", "_"},
    {"E D A C", "_ _", "_"},
    {"_ _ _ D", "", "_"},
    {"_ D", "_", "_"},
    {"_ _", "_ _", "_"},
    {"B", "A _", "_"},
    {"_ B A", "_ B _", "_"},
    {"B E C D", "B", "!Error when attempting to broadcast dims ['B', 'E', 'C', 'D'] and dims ['B']: dim 'D' and dim 'B' are at the same position from the right but do not match."},
    {"_ B _ A", "_", "_"},
    {"A _", "_ _", "_"},
    {"D", "E _", "_"},
    {"B", "_ _ _ _", "_"},
    {"_ D _", "_ _", "_"},
    {"D E _", "A _ _", "!Error when attempting to broadcast dims ['D', 'E', None] and dims ['A', None, None]: dim 'D' and dim 'A' are at the same position from the right but do not match."},
};

/* from torch 1.13: add__cases */
static const char *const add__cases[][3] = {
    {"E", "_", "E"},
    {"_", "B", "B"},
    {"A _ _ B E", "_ B E _", "!Misaligned dims when attempting to broadcast dims ['A', None, None, 'B', 'E'] and dims [None, 'B', 'E', None]: dim 'E' appears in a different position from the right across both lists."},
    {"_ _", "_ A", "_ A"},
    {"E _ B _", "B _", "E _ B _"},
    {"_ E", "D", "!Error when attempting to broadcast dims [None, 'E'] and dims ['D']: dim 'E' and dim 'D' are at the same position from the right but do not match."},
    {"E B", "A _", "!Error when attempting to broadcast dims ['E', 'B'] and dims ['A', None]: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"E _", "_ D", "!Name mismatch: specified out tensor with names ['E', None] are not the same as the computed output names ['E', 'D']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"", "", ""},
    {"C _ D _", "_", "C _ D _"},
    {"C", "", "C"},
    {"_ _ _ B", "_ A _ B", "!Name mismatch: specified out tensor with names [None, None, None, 'B'] are not the same as the computed output names [None, 'A', None, 'B']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ B C E", "_ C", "!Error when attempting to broadcast dims [None, 'B', 'C', 'E'] and dims [None, 'C']: dim 'E' and dim 'C' are at the same position from the right but do not match."},
    {"D B E _ C", "_ _ _ _", "D B E _ C"},
    {"B", "_", "B"},
    {"B", "", "B"},
    {"_ A _ E", "D C A", "!Error when attempting to broadcast dims [None, 'A', None, 'E'] and dims ['D', 'C', 'A']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"C D _", "_ A", "!Name mismatch: specified out tensor with names ['C', 'D', None] are not the same as the computed output names ['C', 'D', 'A']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"C A", "_ A", "C A"},
    {"A _ D _", "_ C E", "!Error when attempting to broadcast dims ['A', None, 'D', None] and dims [None, 'C', 'E']: dim 'D' and dim 'C' are at the same position from the right but do not match."},
    {"_ B _ _", "_ D", "!Name mismatch: specified out tensor with names [None, 'B', None, None] are not the same as the computed output names [None, 'B', None, 'D']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ B _ D", "_ _ _ _", "_ B _ D"},
    {"D _ E C _", "_ _ _", "D _ E C _"},
    {"_ _ C", "_ _ _", "_ _ C"},
    {"A B C", "C A", "!Error when attempting to broadcast dims ['A', 'B', 'C'] and dims ['C', 'A']: dim 'C' and dim 'A' are at the same position from the right but do not match."},
    {"B E", "E", "B E"},
    {"D", "B", "!Error when attempting to broadcast dims ['D'] and dims ['B']: dim 'D' and dim 'B' are at the same position from the right but do not match."},
    {"A _", "A _", "A _"},
    {"A E C B D", "D", "A E C B D"},
    {"E D A B", "A B _", "!Misaligned dims when attempting to broadcast dims ['E', 'D', 'A', 'B'] and dims ['A', 'B', None]: dim 'B' appears in a different position from the right across both lists."},
    {"B _ C E A", "", "B _ C E A"},
    {"D", "_", "D"},
    {"D", "D", "D"},
    {"C A B", "_", "C A B"},
    {"_ _ D _ _", "_ E _", "!Name mismatch: specified out tensor with names [None, None, 'D', None, None] are not the same as the computed output names [None, None, 'D', 'E', None]. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ _ A D", "", "_ _ A D"},
    {"C _", "_", "C _"},
    {"D _ B _", "_ _", "D _ B _"},
    {"_ A E", "D A E", "!Name mismatch: specified out tensor with names [None, 'A', 'E'] are not the same as the computed output names ['D', 'A', 'E']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ _ _ _ _", "_ C", "_ _ _ _ C"},
};

/* from torch 1.13: add_out_cases */
static const char *const add_out_cases[][4] = {
    {"_ A C _", "_ _", "_ _ _ _", "_ A C _"},
    {"_ _ B A", "_ _", "C E D _", "!Name mismatch: specified out tensor with names ['C', 'E', 'D', None] are not the same as the computed output names [None, None, 'B', 'A']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ B D", "_ _", "_ B D", "_ B D"},
    {"C _", "B E A", "_ _ _", "!Error when attempting to broadcast dims ['C', None] and dims ['B', 'E', 'A']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"_ A", "_", "_ A", "_ A"},
    {"A E B C", "_ _", "A E B C", "A E B C"},
    {"_ C", "_ E _", "A E _", "!Name mismatch: specified out tensor with names ['A', 'E', None] are not the same as the computed output names [None, 'E', 'C']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"C D", "_ _ _", "_ C D", "_ C D"},
    {"_", "A _", "A _", "A _"},
    {"_ A C", "_ _ D", "_ _ B", "!Error when attempting to broadcast dims [None, 'A', 'C'] and dims [None, None, 'D']: dim 'C' and dim 'D' are at the same position from the right but do not match."},
    {"D C E", "_", "D C E", "D C E"},
    {"E A C _", "_ C B", "E A C B", "E A C B"},
    {"D", "_ _ _ _", "_ _ _ _", "_ _ _ D"},
    {"E", "C B _", "D A C", "!Name mismatch: specified out tensor with names ['D', 'A', 'C'] are not the same as the computed output names ['C', 'B', 'E']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ _ E", "_ A", "_ _ _", "!Error when attempting to broadcast dims [None, None, 'E'] and dims [None, 'A']: dim 'E' and dim 'A' are at the same position from the right but do not match."},
    {"D _", "E D _", "E D _", "E D _"},
    {"B C _", "C", "_ _ _", "!Misaligned dims when attempting to broadcast dims ['C'] and dims ['B', 'C', None]: dim 'C' appears in a different position from the right across both lists."},
    {"C E D", "_", "C E D", "C E D"},
    {"D C", "D _ E", "_ _ _", "!Error when attempting to broadcast dims ['D', 'C'] and dims ['D', None, 'E']: dim 'C' and dim 'E' are at the same position from the right but do not match."},
    {"_", "_ E _", "_ _ _", "_ E _"},
    {"C", "D", "_", "!Error when attempting to broadcast dims ['C'] and dims ['D']: dim 'C' and dim 'D' are at the same position from the right but do not match."},
    {"A B C _", "_", "A B C _", "A B C _"},
    {"A _ C", "_", "_ E C", "!Name mismatch: specified out tensor with names [None, 'E', 'C'] are not the same as the computed output names ['A', None, 'C']. Please rename the out tensor's dims with `Tensor.rename`."},
    {"B _", "_ B _", "_ B _", "_ B _"},
    {"E D _", "E D _", "E _ _", "!Name mismatch: specified out tensor with names ['E', None, None] are not the same as the computed output names ['E', 'D', None]. Please rename the out tensor's dims with `Tensor.rename`."},
    {"D A E B", "E B _", "A _ _ _", "!Misaligned dims when attempting to broadcast dims ['D', 'A', 'E', 'B'] and dims ['E', 'B', None]: dim 'B' appears in a different position from the right across both lists."},
    {"_", "B C _ _", "B _ _ _", "!Name mismatch: specified out tensor with names ['B', None, None, None] are not the same as the computed output names ['B', 'C', None, None]. Please rename the out tensor's dims with `Tensor.rename`."},
    {"_ C", "A", "_ _", "!Error when attempting to broadcast dims [None, 'C'] and dims ['A']: dim 'C' and dim 'A' are at the same position from the right but do not match."},
    {"_ B A D", "_ B A D", "_ _ _ _", "_ B A D"},
    {"_ _ B C", "_ _ _", "_ _ B C", "_ _ B C"},
};

/* from torch 1.13: reduce_cases */
static const char *const reduce_cases[][4] = {
    {"_ B _ _ E", "1", "0", "_ _ _ E"},
    {"A", "0", "1", "A"},
    {"_ D E A", "0 1 2 3", "0", ""},
    {"_ B", "0 1", "1", "_ B"},
    {"B D A", "0 1 2", "0", ""},
    {"E B _ _", "0 1 2 3", "1", "E B _ _"},
    {"E C A", "0 1 2", "0", ""},
    {"E D A", "0 1", "0", "A"},
    {"D _ B C A", "0 1 2 3", "0", "A"},
    {"_ _ C", "0 1 2", "1", "_ _ C"},
    {"D _ E", "0 1 2", "0", ""},
    {"_ C _", "0 1", "1", "_ C _"},
    {"_ _ C", "1", "1", "_ _ C"},
    {"_ C B", "1", "1", "_ C B"},
    {"C E", "0", "1", "C E"},
    {"A E", "0 1", "1", "A E"},
    {"C B", "0 1", "1", "C B"},
    {"A C E _", "2 3", "0", "A C"},
    {"C _ _", "0 1 2", "1", "C _ _"},
    {"C A", "0 1", "1", "C A"},
    {"C _", "0 1", "0", ""},
    {"A C _", "0 1 2", "0", ""},
    {"A _ _", "0 1", "0", "_"},
    {"E C _", "1 2", "1", "E C _"},
    {"E", "0", "0", ""},
    {"D B _ E _", "1 3", "1", "D B _ E _"},
    {"_ C _", "0 1 2", "0", ""},
    {"_ C A E", "1 3", "0", "_ A"},
    {"_ B _ A", "0 1 2 3", "0", ""},
    {"E B", "0 1", "1", "E B"},
};

/* from torch 1.13: transpose_cases */
static const char *const transpose_cases[][4] = {
    {"D B C _ E", "1", "1", "D B C _ E"},
    {"A C B D", "3", "2", "A C D B"},
    {"E C", "0", "0", "E C"},
    {"_ E D", "1", "0", "E _ D"},
    {"C E D", "0", "2", "D E C"},
    {"D B E C", "3", "3", "D B E C"},
    {"E C A D B", "4", "1", "E B A D C"},
    {"E A _ C B", "3", "1", "E C _ A B"},
    {"C E A", "1", "2", "C A E"},
    {"_ E _ _ C", "0", "3", "_ E _ _ C"},
    {"C _", "1", "0", "_ C"},
    {"D _ C E", "0", "0", "D _ C E"},
    {"A E _ C", "2", "3", "A E C _"},
    {"_ E C B", "0", "1", "E _ C B"},
    {"D E B A", "0", "2", "B E D A"},
    {"C D B", "1", "2", "C B D"},
    {"_ B _ _", "2", "0", "_ B _ _"},
    {"B _", "0", "0", "B _"},
    {"C B E", "0", "0", "C B E"},
    {"C _ _ A D", "4", "4", "C _ _ A D"},
};
/* clang-format on */

/* ------------------------------------------------------------------ match and unify */

static void test_match_and_unify_follow_the_wildcard_rule(void) {
    nt_name x = N("X"), z = N("Z");
    EXPECT(nt_name_match(x, NT_NAME_NONE) && nt_name_match(NT_NAME_NONE, x));
    EXPECT(nt_name_match(x, x) && nt_name_match(NT_NAME_NONE, NT_NAME_NONE));
    EXPECT(!nt_name_match(x, z));
    EXPECT(nt_name_unify(x, NT_NAME_NONE) == x && nt_name_unify(NT_NAME_NONE, x) == x);
    EXPECT(nt_name_unify(x, x) == x);
    EXPECT(nt_name_unify(NT_NAME_NONE, NT_NAME_NONE) == NT_NAME_NONE);
}

/* ------------------------------------------------------------------ unifies names */

static void test_binary_unify_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(binary_cases); i++) {
            spec a, b;
            parse(binary_cases[i][0], pass == 0, &a);
            parse(binary_cases[i][1], pass == 0, &b);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result = out;
            int n = -1;
            nt_status st =
                nt_names_unify_from_right(a.ptr, a.ndim, b.ptr, b.ndim, out, &n, &result);
            CHECK(binary_cases[i][0], st, result, n, binary_cases[i][2]);
            if (st == NT_OK) EXPECT((result == NULL) == (!a.ptr && !b.ptr));
        }
    }
}

/* The examples of name_inference_rules.md and named_tensor_api.md, texts verbatim. */
static void test_binary_unify_spec_examples(void) {
    nt_name n = N("N"), c = N("C"), x = N("X"), z = N("Z");
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int nd;
    nt_name n_none[2] = {n, NT_NAME_NONE}, none_c[2] = {NT_NAME_NONE, c}, nc[2] = {n, c};
    EXPECT_OK(nt_names_unify_from_right(n_none, 2, none_c, 2, out, &nd, &result));
    EXPECT(result == out && nd == 2 && out[0] == n && out[1] == c);
    EXPECT_ERR(nt_names_unify_from_right(nc, 2, &n, 1, out, &nd, &result), NT_ERR_RUNTIME,
               "Error when attempting to broadcast dims ['N', 'C'] and dims ['N']: dim 'C' and "
               "dim 'N' are at the same position from the right but do not match.");
    EXPECT_ERR(nt_names_unify_from_right(n_none, 2, &n, 1, out, &nd, &result), NT_ERR_RUNTIME,
               "Misaligned dims when attempting to broadcast dims ['N'] and dims ['N', None]: "
               "dim 'N' appears in a different position from the right across both lists.");
    /* The operand holding the name that is found elsewhere is listed first. */
    EXPECT_ERR(nt_names_unify_from_right(&n, 1, n_none, 2, out, &nd, &result), NT_ERR_RUNTIME,
               "Misaligned dims when attempting to broadcast dims ['N'] and dims ['N', None]");
    EXPECT_ERR(nt_names_unify_from_right(&x, 1, &z, 1, out, &nd, &result), NT_ERR_RUNTIME,
               "Error when attempting to broadcast dims ['X'] and dims ['Z']: dim 'X' and dim "
               "'Z' are at the same position from the right but do not match.");
    EXPECT_OK(nt_names_unify_from_right(&x, 1, NULL, 1, out, &nd, &result));
    EXPECT(result == out && nd == 1 && out[0] == x);
}

/* matmul may give a result with repeated names (('C', 'C', 'F') from ('C', 'D') @ ('C',
 * 'E', 'F')); broadcasting it then finds the leading 'C' in the shorter list (from torch). */
static void test_binary_unify_with_repeated_names(void) {
    nt_name c = N("C"), f = N("F");
    nt_name ccf[3] = {c, c, f}, cf[2] = {c, f}, none_f[2] = {NT_NAME_NONE, f};
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int nd;
    EXPECT_ERR(nt_names_unify_from_right(ccf, 3, cf, 2, out, &nd, &result), NT_ERR_RUNTIME,
               "Misaligned dims when attempting to broadcast dims ['C', 'C', 'F'] and dims ['C', "
               "'F']: dim 'C' appears in a different position from the right across both lists.");
    EXPECT_ERR(nt_names_unify_from_right(cf, 2, ccf, 3, out, &nd, &result), NT_ERR_RUNTIME,
               "Misaligned dims when attempting to broadcast dims ['C', 'C', 'F'] and dims ['C', "
               "'F']: dim 'C' appears in a different position from the right across both lists.");
    EXPECT_OK(nt_names_unify_from_right(none_f, 2, ccf, 3, out, &nd, &result));
    EXPECT(nd == 3 && out[0] == c && out[1] == c && out[2] == f);
}

static void test_cat_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(cat_cases); i++) {
            spec s[3];
            int count = strcmp(cat_cases[i][2], "-") == 0 ? 2 : 3;
            const nt_name *lists[3];
            int ndims[3];
            for (int k = 0; k < count; k++) {
                parse(cat_cases[i][k], pass == 0, &s[k]);
                lists[k] = s[k].ptr;
                ndims[k] = s[k].ndim;
            }
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n;
            nt_status st = nt_names_unify_many("cat", count, lists, ndims, out, &n, &result);
            CHECK(cat_cases[i][0], st, result, n, cat_cases[i][3]);
        }
    }
}

static void test_unify_many_folds_left_to_right(void) {
    nt_name a = N("A"), b = N("B"), c = N("C");
    nt_name ab[2] = {a, b}, ac[2] = {a, c}, none_b[2] = {NT_NAME_NONE, b};
    const nt_name *lists[3] = {ab, NULL, ac};
    int ndims[3] = {2, 2, 2};
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int n;
    /* torch.cat([('A','B'), unnamed, ('A','C')]): the accumulated names come first. */
    EXPECT_ERR(nt_names_unify_many("cat", 3, lists, ndims, out, &n, &result), NT_ERR_RUNTIME,
               "Error when attempting to cat dims ['A', 'B'] and dims ['A', 'C']: dim 'B' and "
               "dim 'C' are at the same position from the right but do not match.");
    /* Ranks may differ for the broadcasting form: (B,) + (None, B) + (A, B, None)... */
    const nt_name *l2[3] = {&b, none_b, NULL};
    int d2[3] = {1, 2, 3};
    EXPECT_OK(nt_names_unify_many("broadcast", 3, l2, d2, out, &n, &result));
    EXPECT(result == out && n == 3 && out[0] == NT_NAME_NONE && out[1] == NT_NAME_NONE &&
           out[2] == b);
    const nt_name *l3[2] = {NULL, NULL};
    EXPECT_OK(nt_names_unify_many("cat", 2, l3, ndims, out, &n, &result));
    EXPECT(result == NULL && n == 2);
}

/* ------------------------------------------------------------------ contracts away dims */

static void run_matmul_table(const char *const (*cases)[3], int count) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < count; i++) {
            spec a, b;
            parse(cases[i][0], pass == 0, &a);
            parse(cases[i][1], pass == 0, &b);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n = -1;
            nt_status st = nt_names_matmul(a.ptr, a.ndim, b.ptr, b.ndim, out, &n, &result);
            CHECK(cases[i][0], st, result, n, cases[i][2]);
        }
    }
}

static void test_matmul_matches_torch(void) {
    run_matmul_table(matmul_cases, COUNT(matmul_cases));
    run_matmul_table(mm_cases, COUNT(mm_cases));
    run_matmul_table(bmm_cases, COUNT(bmm_cases));
    run_matmul_table(mv_cases, COUNT(mv_cases));
}

static void test_matmul_texts(void) {
    nt_name a = N("A"), b = N("B"), c = N("C"), d = N("D");
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int n;
    nt_name ab[2] = {a, b}, ca[2] = {c, a};
    EXPECT_ERR(nt_names_matmul(ab, 2, ca, 2, out, &n, &result), NT_ERR_RUNTIME,
               "Matrix multiplying Tensor['A', 'B'] with Tensor['C', 'A'] would produce output "
               "tensor with duplicate names ['A', 'A']. Please rename the input tensors with "
               "`Tensor.rename` to prevent this.");
    /* Only the two matrix names must differ: batch names may repeat them. */
    nt_name cd[2] = {c, d}, cab[3] = {c, a, b};
    EXPECT_OK(nt_names_matmul(cd, 2, cab, 3, out, &n, &result));
    EXPECT(n == 3 && out[0] == c && out[1] == c && out[2] == b);
    nt_name none_nd[3] = {NT_NAME_NONE, N("N"), d}, ndm[3] = {N("N"), d, N("M")};
    EXPECT_ERR(nt_names_matmul(none_nd, 3, ndm, 3, out, &n, &result), NT_ERR_RUNTIME,
               "matmul: Cannot match 'N' (index 0 of ['N', 'D', 'M']) with None (index 0 of "
               "[None, 'N', 'D']) because the latter names already have 'N'. Are your tensors "
               "misaligned?");
    EXPECT_ERR(nt_names_matmul(NULL, 0, &a, 1, out, &n, &result), NT_ERR_RUNTIME,
               "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    /* 1-d x 1-d contracts everything. */
    EXPECT_OK(nt_names_matmul(&a, 1, &b, 1, out, &n, &result));
    EXPECT(result == out && n == 0);
}

static void test_addmm_and_addmv_match_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < 2; t++) {
            const char *const(*cases)[4] = t == 0 ? addmm_cases : addmv_cases;
            int count = t == 0 ? COUNT(addmm_cases) : COUNT(addmv_cases);
            for (int i = 0; i < count; i++) {
                spec bias, a, b;
                parse(cases[i][0], pass == 0, &bias);
                parse(cases[i][1], pass == 0, &a);
                parse(cases[i][2], pass == 0, &b);
                nt_name out[NT_MAX_DIMS];
                const nt_name *result;
                int n = -1;
                nt_status st = nt_names_addmm(bias.ptr, bias.ndim, a.ptr, a.ndim, b.ptr, b.ndim,
                                              out, &n, &result);
                CHECK(cases[i][1], st, result, n, cases[i][3]);
            }
        }
    }
}

/* ------------------------------------------------------------------ masks */

static void test_masked_fill_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(masked_fill_cases); i++) {
            spec self, mask;
            parse(masked_fill_cases[i][0], pass == 0, &self);
            parse(masked_fill_cases[i][1], pass == 0, &mask);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n;
            nt_status st =
                nt_names_masked_fill(self.ptr, self.ndim, mask.ptr, mask.ndim, out, &n, &result);
            CHECK(masked_fill_cases[i][0], st, result, n, masked_fill_cases[i][2]);
        }
    }
}

/* masked_fill_ is the in-place form: its names are then checked against self's. */
static void test_masked_fill_inplace_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(masked_fill__cases); i++) {
            spec self, mask;
            parse(masked_fill__cases[i][0], pass == 0, &self);
            parse(masked_fill__cases[i][1], pass == 0, &mask);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n;
            nt_status st =
                nt_names_masked_fill_(self.ptr, self.ndim, mask.ptr, mask.ndim, out, &n, &result);
            if (st == NT_OK && result) st = nt_names_check_out(self.ptr, self.ndim, result, n);
            const nt_name *final = names_after(&self, result);
            CHECK(masked_fill__cases[i][0], st, final, n, masked_fill__cases[i][2]);
        }
    }
}

static void test_masked_select_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(masked_select_cases); i++) {
            spec self, mask;
            parse(masked_select_cases[i][0], pass == 0, &self);
            parse(masked_select_cases[i][1], pass == 0, &mask);
            nt_status st = nt_names_masked_select(self.ptr, self.ndim, mask.ptr, mask.ndim);
            /* torch's result is 1-dim and unnamed. */
            CHECK(masked_select_cases[i][0], st, NULL, 1, masked_select_cases[i][2]);
        }
    }
}

/* ------------------------------------------------------------------ out= and in-place */

/* self.add_(other): unify (self first), then self must accept the names. */
static void test_inplace_add_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(add__cases); i++) {
            spec self, other;
            parse(add__cases[i][0], pass == 0, &self);
            parse(add__cases[i][1], pass == 0, &other);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n;
            nt_status st = nt_names_unify_from_right(self.ptr, self.ndim, other.ptr, other.ndim,
                                                     out, &n, &result);
            if (st == NT_OK) st = nt_names_check_out(self.ptr, self.ndim, result, n);
            const nt_name *final = names_after(&self, result);
            CHECK(add__cases[i][0], st, final, n, add__cases[i][2]);
        }
    }
}

/* torch.add(a, b, out=z): a TensorIterator op, so a named z is checked even when neither
 * input is named (computed names all None). */
static void test_add_out_matches_torch(void) {
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < COUNT(add_out_cases); i++) {
            spec a, b, z;
            parse(add_out_cases[i][0], pass == 0, &a);
            parse(add_out_cases[i][1], pass == 0, &b);
            parse(add_out_cases[i][2], true, &z);
            nt_name out[NT_MAX_DIMS];
            const nt_name *result;
            int n;
            nt_status st =
                nt_names_unify_from_right(a.ptr, a.ndim, b.ptr, b.ndim, out, &n, &result);
            if (st == NT_OK) st = nt_names_check_out(z.ptr, z.ndim, result, n);
            const nt_name *final = names_after(&z, result);
            CHECK(add_out_cases[i][0], st, final, n, add_out_cases[i][3]);
        }
    }
}

/* self.copy_(src) is the in-place form of unify (cases from torch). */
static void test_copy_is_an_inplace_unify(void) {
    nt_name a = N("A"), b = N("B");
    nt_name a_none[2] = {a, NT_NAME_NONE}, none_b[2] = {NT_NAME_NONE, b}, ab[2] = {a, b};
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int n;
    EXPECT_OK(nt_names_unify_from_right(a_none, 2, none_b, 2, out, &n, &result));
    EXPECT_ERR(nt_names_check_out(a_none, 2, result, n), NT_ERR_RUNTIME,
               "Name mismatch: specified out tensor with names ['A', None] are not the same as "
               "the computed output names ['A', 'B'].");
    EXPECT_OK(nt_names_unify_from_right(ab, 2, &b, 1, out, &n, &result));
    EXPECT_OK(nt_names_check_out(ab, 2, result, n));
    EXPECT_OK(nt_names_unify_from_right(NULL, 2, &b, 1, out, &n, &result));
    EXPECT_OK(nt_names_check_out(NULL, 2, result, n)); /* self then takes (None, 'B') */
    EXPECT(result == out && n == 2 && out[0] == NT_NAME_NONE && out[1] == b);
    EXPECT_ERR(nt_names_unify_from_right(a_none, 2, &a, 1, out, &n, &result), NT_ERR_RUNTIME,
               "Misaligned dims when attempting to broadcast dims ['A'] and dims ['A', None]: "
               "dim 'A' appears in a different position from the right across both lists.");
}

static void test_check_out_texts(void) {
    nt_name n = N("N"), c = N("C");
    nt_name n_none[2] = {n, NT_NAME_NONE}, nc[2] = {n, c};
    EXPECT_OK(nt_names_check_out(NULL, 2, nc, 2));
    EXPECT_OK(nt_names_check_out(nc, 2, nc, 2));
    EXPECT_ERR(nt_names_check_out(n_none, 2, nc, 2), NT_ERR_RUNTIME,
               "Name mismatch: specified out tensor with names ['N', None] are not the same as "
               "the computed output names ['N', 'C']. Please rename the out tensor's dims with "
               "`Tensor.rename`.");
    EXPECT_ERR(nt_names_check_out(nc, 2, NULL, 2), NT_ERR_RUNTIME,
               "specified out tensor with names ['N', 'C'] are not the same as the computed "
               "output names [None, None].");
}

/* ------------------------------------------------------------------ removes, permutes */

static void test_reduce_matches_torch(void) {
    for (int i = 0; i < COUNT(reduce_cases); i++) {
        spec x;
        parse(reduce_cases[i][0], true, &x);
        int64_t dims[NT_MAX_DIMS];
        int count = 0;
        char copy[64];
        snprintf(copy, sizeof copy, "%s", reduce_cases[i][1]);
        for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
            dims[count] = atoi(tok) - (count % 2 ? x.ndim : 0); /* every other one negative */
            count++;
        }
        uint64_t mask = 0;
        EXPECT_OK(nt_dim_list_mask(x.ndim, count, dims, &mask));
        nt_name out[NT_MAX_DIMS];
        int n;
        const nt_name *result =
            nt_names_remove_dims(x.ptr, x.ndim, mask, reduce_cases[i][2][0] == '1', out, &n);
        EXPECT(result == (x.ptr ? out : NULL));
        CHECK(reduce_cases[i][0], NT_OK, result, n, reduce_cases[i][3]);
    }
}

static void test_dim_list_mask_errors(void) {
    uint64_t mask = 0;
    int64_t dup[2] = {0, -3}, dup2[2] = {-1, 2}, bad[2] = {1, 5}, none[1] = {0};
    EXPECT_ERR(nt_dim_list_mask(3, 2, dup, &mask), NT_ERR_RUNTIME,
               "dim 0 appears multiple times in the list of dims");
    EXPECT_ERR(nt_dim_list_mask(3, 2, dup2, &mask), NT_ERR_RUNTIME,
               "dim 2 appears multiple times in the list of dims");
    EXPECT_ERR(nt_dim_list_mask(3, 2, bad, &mask), NT_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-3, 2], but got 5)");
    int64_t far[2] = {63, -64};
    EXPECT_OK(nt_dim_list_mask(64, 2, far, &mask));
    EXPECT(mask == ((uint64_t)1 << 63 | 1u));
    EXPECT_OK(nt_dim_list_mask(0, 1, none, &mask)); /* a 0-dim tensor accepts dim 0 */
    EXPECT(mask == 1u);
}

static void test_transpose_matches_torch(void) {
    for (int i = 0; i < COUNT(transpose_cases); i++) {
        spec x;
        parse(transpose_cases[i][0], true, &x);
        nt_name out[NT_MAX_DIMS];
        const nt_name *result = nt_names_transpose(x.ptr, x.ndim, atoi(transpose_cases[i][1]),
                                                   atoi(transpose_cases[i][2]), out);
        CHECK(transpose_cases[i][0], NT_OK, result, x.ndim, transpose_cases[i][3]);
    }
}

static void test_permute_moves_names_with_dims(void) {
    nt_name names[4] = {N("N"), N("C"), NT_NAME_NONE, N("W")}, out[NT_MAX_DIMS];
    int64_t perm[4] = {3, 1, 0, 2};
    EXPECT(nt_names_permute(names, 4, perm, out) == out);
    EXPECT(out[0] == names[3] && out[1] == names[1] && out[2] == names[0] &&
           out[3] == NT_NAME_NONE);
    EXPECT(nt_names_permute(NULL, 4, perm, out) == NULL);
}

static void test_unsupported_text(void) {
    EXPECT_ERR(nt_names_unsupported("aten::where.self"), NT_ERR_RUNTIME,
               "aten::where.self is not yet supported with named tensors. Please drop names via "
               "`tensor = tensor.rename(None)`, call the op with an unnamed tensor, and set "
               "names on the result of the operation.");
}

/* ------------------------------------------------------------------ the fast path */

/* With no named input every rule returns NULL at once and leaves `out` alone. */
static void test_unnamed_inputs_take_the_fast_path(void) {
    nt_name out[NT_MAX_DIMS];
    for (int i = 0; i < NT_MAX_DIMS; i++)
        out[i] = 0xdeadu;
    const nt_name *result = out;
    int n = -1;
    EXPECT_OK(nt_names_unify_from_right(NULL, 3, NULL, 5, out, &n, &result));
    EXPECT(result == NULL && n == 5);
    result = out;
    EXPECT_OK(nt_names_matmul(NULL, 4, NULL, 3, out, &n, &result));
    EXPECT(result == NULL && n == 4);
    result = out;
    EXPECT_OK(nt_names_matmul(NULL, 1, NULL, 3, out, &n, &result));
    EXPECT(result == NULL && n == 2);
    result = out;
    EXPECT_OK(nt_names_addmm(NULL, 1, NULL, 2, NULL, 2, out, &n, &result));
    EXPECT(result == NULL && n == 2);
    result = out;
    EXPECT_OK(nt_names_masked_fill(NULL, 3, NULL, 2, out, &n, &result));
    EXPECT(result == NULL && n == 3);
    const nt_name *lists[2] = {NULL, NULL};
    int ndims[2] = {2, 2};
    result = out;
    EXPECT_OK(nt_names_unify_many("cat", 2, lists, ndims, out, &n, &result));
    EXPECT(result == NULL && n == 2);
    EXPECT_OK(nt_names_masked_select(NULL, 2, NULL, 5));
    EXPECT(nt_names_remove_dims(NULL, 4, 3u, false, out, &n) == NULL && n == 2);
    EXPECT(nt_names_transpose(NULL, 4, 0, 1, out) == NULL);
    bool untouched = true;
    for (int i = 0; i < NT_MAX_DIMS; i++)
        untouched &= out[i] == 0xdeadu;
    EXPECT(untouched);
}

/* CPU time of this thread, so that other processes on a busy machine count less. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Measures (and prints) the cost per call of the unnamed fast path, of a named 4-d unify
 * where names pair with None (the misalignment scans run) and of one with equal names; the
 * results of every call are checked so the loops cannot be optimised away. */
static void test_report_cost(void) {
    enum { CALLS = 2000000 };
    nt_name a[4] = {N("N"), N("C"), NT_NAME_NONE, N("W")};
    nt_name b[4] = {NT_NAME_NONE, N("C"), N("H"), NT_NAME_NONE};
    const nt_name *volatile unnamed = NULL;
    const nt_name *volatile pa = a;
    nt_name out[NT_MAX_DIMS];
    const nt_name *result;
    int n, bad = 0;
    double t0 = now_ns();
    for (int i = 0; i < CALLS; i++) {
        bad += nt_names_unify_from_right(unnamed, 4, unnamed, 4, out, &n, &result) != NT_OK;
        bad += result != NULL;
    }
    double t1 = now_ns();
    for (int i = 0; i < CALLS; i++) {
        bad += nt_names_unify_from_right(pa, 4, b, 4, out, &n, &result) != NT_OK;
        bad += out[2] != b[2];
    }
    double t2 = now_ns();
    EXPECT(out[0] == a[0] && out[1] == a[1] && out[2] == b[2] && out[3] == a[3]);
    for (int i = 0; i < CALLS; i++) {
        bad += nt_names_unify_from_right(pa, 4, a, 4, out, &n, &result) != NT_OK;
        bad += out[3] != a[3];
    }
    double t3 = now_ns();
    EXPECT(bad == 0);
    printf("unnamed fast path: %.2f ns/call; named 4-d unify with Nones: %.2f ns/call; "
           "4-d unify of equal names: %.2f ns/call\n",
           (t1 - t0) / CALLS, (t2 - t1) / CALLS, (t3 - t2) / CALLS);
}

int main(void) {
    NT_RUN(test_match_and_unify_follow_the_wildcard_rule);
    NT_RUN(test_binary_unify_matches_torch);
    NT_RUN(test_binary_unify_spec_examples);
    NT_RUN(test_binary_unify_with_repeated_names);
    NT_RUN(test_cat_matches_torch);
    NT_RUN(test_unify_many_folds_left_to_right);
    NT_RUN(test_matmul_matches_torch);
    NT_RUN(test_matmul_texts);
    NT_RUN(test_addmm_and_addmv_match_torch);
    NT_RUN(test_masked_fill_matches_torch);
    NT_RUN(test_masked_fill_inplace_matches_torch);
    NT_RUN(test_masked_select_matches_torch);
    NT_RUN(test_inplace_add_matches_torch);
    NT_RUN(test_add_out_matches_torch);
    NT_RUN(test_copy_is_an_inplace_unify);
    NT_RUN(test_check_out_texts);
    NT_RUN(test_reduce_matches_torch);
    NT_RUN(test_dim_list_mask_errors);
    NT_RUN(test_transpose_matches_torch);
    NT_RUN(test_permute_moves_names_with_dims);
    NT_RUN(test_unsupported_text);
    NT_RUN(test_unnamed_inputs_take_the_fast_path);
    NT_RUN(test_report_cost);
    return nt_test_summary();
}
