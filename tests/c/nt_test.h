/*
 * nt_test.h — a minimal test harness for the C tests.
 *
 * A test file defines `static void test_x(void)` functions and lists them in main with
 * NT_RUN(test_x). A failed EXPECT prints the file, line and expression and marks the test
 * failed; main returns nt_test_summary(), which prints "N passed, N failed".
 */
#ifndef NT_TEST_H
#define NT_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ntensor.h"

static int nt_test_failures_in_current;
static int nt_test_passed, nt_test_failed;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: expected %s\n", __FILE__, __LINE__, #cond);                  \
            nt_test_failures_in_current++;                                                         \
        }                                                                                          \
    } while (0)

/* Expects NT_OK, printing the error message otherwise. */
#define EXPECT_OK(expr)                                                                            \
    do {                                                                                           \
        nt_status s_ = (expr);                                                                     \
        if (s_ != NT_OK) {                                                                         \
            fprintf(stderr, "  %s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                 \
                    nt_last_error());                                                              \
            nt_test_failures_in_current++;                                                         \
        }                                                                                          \
    } while (0)

/* Expects a failure with the given status and a message containing `text`. */
#define EXPECT_ERR(expr, status, text)                                                             \
    do {                                                                                           \
        nt_status s_ = (expr);                                                                     \
        if (s_ != (status) || !strstr(nt_last_error(), (text))) {                                  \
            fprintf(stderr, "  %s:%d: %s gave status %d, message '%s'; expected %d, '%s'\n",       \
                    __FILE__, __LINE__, #expr, (int)s_, nt_last_error(), (int)(status), text);     \
            nt_test_failures_in_current++;                                                         \
        }                                                                                          \
    } while (0)

/* Expects a failure with exactly this status and exactly this message. */
#define EXPECT_FAIL(expr, status, text)                                                            \
    do {                                                                                           \
        nt_status s_ = (expr);                                                                     \
        if (s_ != (status) || strcmp(nt_last_error(), (text)) != 0) {                              \
            fprintf(stderr,                                                                        \
                    "  %s:%d: %s gave status %d, message\n    '%s'; expected %d,\n    "            \
                    "'%s'\n",                                                                      \
                    __FILE__, __LINE__, #expr, (int)s_, nt_last_error(), (int)(status), text);     \
            nt_test_failures_in_current++;                                                         \
        }                                                                                          \
    } while (0)

#define EXPECT_NEAR(a, b, tol) EXPECT(fabs((double)(a) - (double)(b)) <= (tol))

#define NT_RUN(fn)                                                                                 \
    do {                                                                                           \
        nt_test_failures_in_current = 0;                                                           \
        fn();                                                                                      \
        if (nt_test_failures_in_current) {                                                         \
            nt_test_failed++;                                                                      \
            fprintf(stderr, "FAIL %s\n", #fn);                                                     \
        } else {                                                                                   \
            nt_test_passed++;                                                                      \
        }                                                                                          \
    } while (0)

static inline int nt_test_summary(void) {
    printf("%d passed, %d failed\n", nt_test_passed, nt_test_failed);
    return nt_test_failed ? 1 : 0;
}

/* Interns a name, failing the test on error. */
static inline nt_name N(const char *s) {
    nt_name n = 0;
    if (nt_name_intern(s, &n) != NT_OK) {
        fprintf(stderr, "  could not intern '%s': %s\n", s, nt_last_error());
        nt_test_failures_in_current++;
    }
    return n;
}

#endif
