/* frontier_test.c: the frontier's ordering, token buckets, gates and
 * horizon, without HTTP. Timing checks use generous bounds. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "frontier.h"
#include "testhelp.h"

static frontier_t *make(double rate, double burst, bool gate)
{
  frontier_config_t cfg = { 0, rate, burst, gate };
  return frontier_new(&cfg);
}

static void push(frontier_t *f, const char *url, uint64_t seq,
                 const char *host)
{
  fitem_t *it = fitem_new(url, 0);
  it->seq = seq;
  CHECK_INT(frontier_push(f, it, host), 0);
}

static void test_discovery_order_across_hosts(void)
{
  frontier_t *f = make(0, 1, false);
  push(f, "a0", 0, "A");
  push(f, "b1", 1, "B");
  push(f, "a2", 2, "A");
  push(f, "c3", 3, "C");
  push(f, "b4", 4, "B");
  for (uint64_t want = 0; want < 5; want++) {
    fitem_t *it = frontier_pop(f);
    CHECK(it != NULL && it->seq == want);
    fitem_delete(it);
  }
  CHECK_INT(frontier_count(f), 0);
  frontier_delete(f);
}

static double now(void)
{
  return frontier_now();
}

static void test_token_bucket_paces_a_host(void)
{
  /* 10/s, burst 2: 5 pops from one host need at least 0.3 s (2 at once,
   * then one every 0.1 s); a second host is not slowed by the first. */
  frontier_t *f = make(10, 2, false);
  for (int i = 0; i < 5; i++)
    push(f, "a", (uint64_t)i, "A");
  double t0 = now();
  for (int i = 0; i < 5; i++)
    fitem_delete(frontier_pop(f));
  double took = now() - t0;
  CHECK(took >= 0.29);
  CHECK(took < 2.0);
  push(f, "b", 5, "B");
  t0 = now();
  fitem_delete(frontier_pop(f));
  CHECK(now() - t0 < 0.05);
  frontier_delete(f);
}

static void test_gate_comes_first_and_blocks_the_host(void)
{
  frontier_t *f = make(0, 1, true);
  push(f, "http://a/1", 0, "http://a:80");
  fitem_t *g = frontier_pop(f);
  CHECK(g != NULL && (g->flags & FITEM_GATE));
  CHECK_STR(g->url, "http://a:80");
  push(f, "http://b/1", 1, "http://b:80");
  fitem_t *g2 = frontier_pop(f);  /* b's gate, not a's page */
  CHECK(g2 != NULL && (g2->flags & FITEM_GATE));
  CHECK_STR(g2->url, "http://b:80");
  frontier_gate_done(f, g->host);
  fitem_t *it = frontier_pop(f);
  CHECK(it != NULL && it->seq == 0);
  fitem_delete(it);
  fitem_delete(g);
  fitem_delete(g2);
  frontier_delete(f);
}

static void *pop_one(void *arg)
{
  return frontier_pop(arg);
}

static void test_horizon_holds_back_and_wakes(void)
{
  frontier_t *f = make(0, 1, false);
  for (int i = 0; i < 6; i++)
    push(f, "x", (uint64_t)i, "A");
  frontier_set_horizon(f, 2);
  for (int i = 0; i < 2; i++)
    fitem_delete(frontier_pop(f));
  pthread_t t;
  pthread_create(&t, NULL, pop_one, f);
  struct timespec ts = { 0, 200 * 1000 * 1000 };
  nanosleep(&ts, NULL);
  CHECK_INT(frontier_count(f), 4);  /* nothing beyond the horizon went */
  frontier_set_horizon(f, 1);       /* lower: ignored */
  CHECK_INT(frontier_count(f), 4);
  frontier_set_horizon(f, 3);       /* wakes the waiting pop */
  void *got;
  pthread_join(t, &got);
  CHECK(got != NULL && ((fitem_t *)got)->seq == 2);
  fitem_delete(got);
  frontier_close(f);
  CHECK(frontier_pop(f) == NULL);
  frontier_delete(f);  /* frees the 3 items left */
}

static void test_requeue_not_before(void)
{
  frontier_t *f = make(0, 1, false);
  push(f, "x", 0, "A");
  fitem_t *it = frontier_pop(f);
  double t0 = now();
  CHECK_INT(frontier_requeue(f, it, "A", t0 + 0.2), 0);
  it = frontier_pop(f);
  CHECK(now() - t0 >= 0.19);
  fitem_delete(it);
  frontier_delete(f);
}

int main(void)
{
  RUN(test_discovery_order_across_hosts);
  RUN(test_token_bucket_paces_a_host);
  RUN(test_gate_comes_first_and_blocks_the_host);
  RUN(test_horizon_holds_back_and_wakes);
  RUN(test_requeue_not_before);
  return TEST_EXIT();
}
