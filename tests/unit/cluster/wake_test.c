/* wake_test.c: a partition given back (cl_part_kept: back) while the
 * feeder's take is on its way. The keeper's wake-up (cl_feeder_wake)
 * then finds the feeder neither on its condition variable nor in its
 * blocking read; the feeder's look before blocking saw only partitions
 * marked fresh, not one given back, so it blocked on its other
 * partitions for up to 1 s while the given-back partition had an item
 * ready (review). It now also sees that a wake-up came since its
 * snapshot (`wakes`).
 *
 * cstate_take is wrapped (-Wl,--wrap=cstate_take): after the real take
 * answered, a second thread plays the keeper's tick (give back P, wake
 * the feeder), exactly the interleaving of a tick landing during the
 * take's round trip. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_int.h"
#include "cstate.h"
#include "engine.h"
#include "rconn.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "clusterhelp.h"
#include "redishelp.h"
#pragma GCC diagnostic pop
#include "testhelp.h"

static redis_srv_t srv;

static cluster_t *g_c;
static int g_P = -1;
static int g_armed;
static double g_t0;

static void *keeper_tick(void *arg)
{
  (void)arg;
  pthread_mutex_lock(&g_c->lock);
  bool back = cl_part_kept(g_c, g_P, clock_now() + 50);
  pthread_mutex_unlock(&g_c->lock);
  if (back)
    cl_feeder_wake(g_c); /* as keep_leases does */
  g_t0 = clock_now();
  return NULL;
}

int __real_cstate_take(cstate_t *cs, cstate_hold_t *holds, size_t nh,
                       const char *id, bool recover, size_t max,
                       cstate_item_t **out);
int __wrap_cstate_take(cstate_t *cs, cstate_hold_t *holds, size_t nh,
                       const char *id, bool recover, size_t max,
                       cstate_item_t **out)
{
  int n = __real_cstate_take(cs, holds, nh, id, recover, max, out);
  if (g_armed) {
    g_armed = 0;
    /* The keeper's tick, on its own thread, before the feeder goes on. */
    pthread_t th;
    pthread_create(&th, NULL, keeper_tick, NULL);
    pthread_join(th, NULL);
  }
  return n;
}

static void test_given_back_during_take(void)
{
  char err[256], name[16];
  snprintf(name, sizeof(name), "gbt");
  cluster_t *c = test_worker(srv.url, name);
  if (c == NULL)
    return;
  cstate_t *cs = NULL;
  CHECK_INT(cstate_open(srv.url, name, &cs, err, sizeof(err)), CRAWL_OK);
  int P = cstate_part("http://a.test:80"), Q = (P + 1) % CSTATE_PARTS;
  char wp[16], wq[16];
  snprintf(wp, sizeof(wp), "part:%d", P);
  snprintf(wq, sizeof(wq), "part:%d", Q);
  uint64_t tp = 0, tq = 0;
  CHECK_INT(cstate_lease(cs, wp, cluster_worker(c), 60000, &tp), 1);
  CHECK_INT(cstate_lease(cs, wq, cluster_worker(c), 60000, &tq), 1);
  /* P holds the seed, ready to be read. */
  char key[64], ps[8];
  snprintf(key, sizeof(key), "tse:{%s}:ready", name);
  snprintf(ps, sizeof(ps), "%d", P);
  redisReply *rep = rconn_cmdf(cstate_rconn(cs), "SADD", key, ps, NULL);
  freeReplyObject(rep);
  double now = clock_now();
  pthread_mutex_lock(&c->lock);
  /* P: held, being given away (the feeder does not take from it); Q: held,
   * empty. Neither fresh: nothing dropped, both read before. */
  c->parts[P] = (struct part){ .held = true,
                               .token = tp,
                               .until = now + 50,
                               .giving = true,
                               .giving_since = now };
  c->parts[Q] = (struct part){ .held = true, .token = tq, .until = now + 50 };
  pthread_mutex_unlock(&c->lock);
  g_c = c;
  g_P = P;
  g_armed = 1;
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_feeder_main, c), 0);
  double took = -1;
  for (int i = 0; i < 600; i++) {
    pthread_mutex_lock(&c->lock);
    size_t n = fptable_count(c->taken);
    pthread_mutex_unlock(&c->lock);
    if (n > 0 && g_t0 > 0) {
      took = clock_now() - g_t0;
      break;
    }
    nap_ms(5);
  }
  printf("# P given back during a take: its item taken after %.0f ms\n",
         took * 1000);
  CHECK(took >= 0 && took < 0.2);
  pthread_mutex_lock(&c->lock);
  c->stopping = true;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  cl_unblock(c, false);
  pthread_join(th, NULL);
  cstate_close(cs);
  test_worker_delete(c);
}

int main(void)
{
  redis_start(&srv);
  RUN(test_given_back_during_take);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
