/* testhelp.h: the whole unit-test "framework" (a few macros, no library).
 *
 * A test file defines static void functions and calls RUN(fn) for each from
 * main(), then returns TEST_EXIT(). Each RUN prints one TAP line,
 * "ok - file: name" or "not ok - file: name", which tests/run.sh counts.
 * CHECK(cond) records a failure with file:line and the failed expression and
 * carries on, so one run reports every broken check, not just the first.
 * SKIP(why) marks the current test as not (fully) run here, for a reason
 * outside the code under test (a locale the machine lacks): its line gets
 * TAP's directive, "ok - file: name # SKIP why", which tests/run.sh counts
 * as skipped, not passed; a failed check still makes it "not ok".
 * The output goes to stdout; diagnostics to stderr. */
#ifndef TESTS_TESTHELP_H
#define TESTS_TESTHELP_H

#include <stdio.h>
#include <string.h>

static int testhelp_failed; /* checks failed in the current test */
static int testhelp_tests_failed;
static const char *testhelp_skip; /* SKIP's reason in the current test */

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      testhelp_failed++;                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* CHECK_STR: compare two strings (either may be NULL) and show both. */
#define CHECK_STR(got, want)                                                   \
  do {                                                                         \
    const char *g_ = (got), *w_ = (want);                                      \
    if (!((g_ == NULL && w_ == NULL) ||                                        \
          (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0))) {                \
      testhelp_failed++;                                                       \
      fprintf(stderr, "%s:%d: %s: got \"%s\", want \"%s\"\n", __FILE__,        \
              __LINE__, #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");         \
    }                                                                          \
  } while (0)

#define CHECK_INT(got, want)                                                   \
  do {                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                   \
    if (g_ != w_) {                                                            \
      testhelp_failed++;                                                       \
      fprintf(stderr, "%s:%d: %s: got %lld, want %lld\n", __FILE__, __LINE__,  \
              #got, g_, w_);                                                   \
    }                                                                          \
  } while (0)

#define SKIP(why)                                                              \
  do {                                                                         \
    testhelp_skip = (why);                                                     \
  } while (0)

#define RUN(fn)                                                                \
  do {                                                                         \
    testhelp_failed = 0;                                                       \
    testhelp_skip = NULL;                                                      \
    fn();                                                                      \
    if (testhelp_failed)                                                       \
      testhelp_tests_failed++;                                                 \
    if (testhelp_failed)                                                       \
      testhelp_skip = NULL;                                                    \
    printf("%s - %s: %s%s%s\n", testhelp_failed ? "not ok" : "ok", __FILE__,   \
           #fn, testhelp_skip ? " # SKIP " : "",                               \
           testhelp_skip ? testhelp_skip : "");                                \
    fflush(stdout);                                                            \
  } while (0)

#define TEST_EXIT() (testhelp_tests_failed ? 1 : 0)

#endif /* TESTS_TESTHELP_H */
