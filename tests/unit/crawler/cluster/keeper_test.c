/* keeper_test.c: what the keeper (cluster_keeper.c) makes of a lease it
 * renewed, without Redis.
 *
 * A partition the plan gave away and then back before it was released
 * (or whose time here ran out before a late renewal) keeps its token,
 * but the items of it the download threads were handed meanwhile were
 * refused (cl_admit) and are still in the partition, before the
 * feeder's position: only a take with RECOVER reads them again. Without
 * one at once they waited for the feeder's periodic RECOVER (5 s), and
 * the commit with them: a 2-worker crawl of the generated site took 6 s
 * instead of 0.9 in about one run of ten (bench/RESULTS.md). */
#include <stdlib.h>

#include "cluster.h"
#include "cluster_int.h"
#include "frontier.h"
#include "testhelp.h"

static void test_given_back_recovers(void)
{
  cluster_t *c = calloc(1, sizeof(*c));
  CHECK(c != NULL);
  if (c == NULL)
    return;
  double now = frontier_now();
  /* Given away, then back. */
  c->parts[3] = (struct part){ .held = true,
                               .token = 7,
                               .until = now + 10,
                               .giving = true,
                               .giving_since = now };
  cl_part_kept(c, 3, now + 20);
  CHECK(!c->parts[3].giving);
  CHECK(c->parts[3].fresh);
  CHECK(c->parts[3].until == now + 20);
  /* Its time here was up before the renewal. */
  c->parts[4] = (struct part){ .held = true, .token = 8, .until = now - 1 };
  cl_part_kept(c, 4, now + 20);
  CHECK(c->parts[4].fresh);
  /* Renewed in time, held all along: nothing was refused. */
  c->parts[5] = (struct part){ .held = true, .token = 9, .until = now + 10 };
  cl_part_kept(c, 5, now + 20);
  CHECK(!c->parts[5].fresh);
  free(c);
}

int main(void)
{
  RUN(test_given_back_recovers);
  return TEST_EXIT();
}
