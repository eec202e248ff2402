/* tally_test.c: unit tests for web/tally, counts by cause. */
#include "tally.h"

#include "../../testhelp.h"

#include <stdio.h>
#include <string.h>

static void test_counts_and_order(void)
{
  tally_t t = { 0 };
  tally_add(&t, "HTTP 404 Not Found");
  tally_add(&t, "Couldn't connect to server");
  tally_add(&t, "Timeout was reached");
  tally_add(&t, "Couldn't connect to server");
  tally_add(&t, "HTTP 404 Not Found");
  tally_add(&t, "HTTP 404 Not Found");
  tally_sort(&t);
  CHECK_INT(t.n, 3);
  CHECK_STR(t.v[0].what, "HTTP 404 Not Found");
  CHECK_INT(t.v[0].n, 3);
  CHECK_STR(t.v[1].what, "Couldn't connect to server");
  CHECK_INT(t.v[1].n, 2);
  CHECK_STR(t.v[2].what, "Timeout was reached");
  CHECK_INT(t.v[2].n, 1);
  CHECK_INT(t.other, 0);
}

/* Causes past the first TALLY_MAX are counted together; a cause known
 * already still counts as itself. */
static void test_full(void)
{
  tally_t t = { 0 };
  char what[32];
  for (int i = 0; i < TALLY_MAX + 3; i++) {
    snprintf(what, sizeof(what), "cause %d", i);
    tally_add(&t, what);
  }
  tally_add(&t, "cause 0");
  CHECK_INT(t.n, TALLY_MAX);
  CHECK_INT(t.other, 3);
  tally_sort(&t);
  CHECK_STR(t.v[0].what, "cause 0");
  CHECK_INT(t.v[0].n, 2);
  CHECK_STR(t.v[1].what, "cause 1");
}

/* A long cause is cut, and the cut text is what is counted. */
static void test_long(void)
{
  tally_t t = { 0 };
  char what[2 * TALLY_WHAT];
  memset(what, 'x', sizeof(what) - 1);
  what[sizeof(what) - 1] = '\0';
  tally_add(&t, what);
  tally_add(&t, what);
  CHECK_INT(t.n, 1);
  CHECK_INT(t.v[0].n, 2);
  CHECK_INT(strlen(t.v[0].what), TALLY_WHAT - 1);
}

int main(void)
{
  RUN(test_counts_and_order);
  RUN(test_full);
  RUN(test_long);
  return TEST_EXIT();
}
