/* feeder_test.c: the feeder thread (cluster_feeder.c) against a real
 * redis-server (redishelp.h), the keeper's part played by the test.
 *
 * Review 2: a partition whose refused item was marked to read again
 * (fresh) while it was being given away, and that the plan then gives
 * back, must be read again at once. The keeper used to wake only the
 * feeder's condition variable for it, while the feeder was blocked in a
 * read of its other partitions (cstate_wait, up to 1 s): the item, the
 * next to commit, waited 0.8 s. cl_feeder_wake also unblocks the read. */
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

static void test_given_back_wakes(void)
{
  char err[256], name[16];
  snprintf(name, sizeof(name), "gbw");
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
  rconn_t *r = cstate_rconn(cs);
  char key[64];
  snprintf(key, sizeof(key), "tse:{%s}:part:%d", name, P);
  redisReply *rep = rconn_cmdf(r, "XRANGE", key, "-", "+", NULL);
  CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1);
  char id[CSTATE_ID_SIZE];
  snprintf(id, sizeof(id), "%s", rep->element[0]->element[0]->str);
  freeReplyObject(rep);
  snprintf(key, sizeof(key), "tse:{%s}:ready", name);
  char ps[8];
  snprintf(ps, sizeof(ps), "%d", P);
  rep = rconn_cmdf(r, "SREM", key, ps, NULL);
  freeReplyObject(rep);
  double now = clock_now();
  pthread_mutex_lock(&c->lock);
  /* P: read here (pos past the seed), being given away; Q: held. */
  c->parts[P] = (struct part){ .held = true,
                               .token = tp,
                               .until = now + 50,
                               .giving = true,
                               .giving_since = now };
  snprintf(c->parts[P].pos, sizeof(c->parts[P].pos), "%s", id);
  c->parts[Q] = (struct part){ .held = true, .token = tq, .until = now + 50 };
  c->inflight++;
  pthread_mutex_unlock(&c->lock);
  /* The seed was refused while P was being given away. */
  struct ticket *t = calloc(1, sizeof(*t));
  t->part = P;
  snprintf(t->id, sizeof(t->id), "%s", id);
  cl_ticket_done(c, t, false);
  /* A keeper tick while P is still being given away: marked, but not
   * a partition to take from now, so no wake-up. */
  pthread_mutex_lock(&c->lock);
  CHECK(!cl_parts_refresh(c));
  CHECK(c->parts[P].fresh);
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_feeder_main, c), 0);
  nap_ms(300); /* the feeder took Q, found nothing, waits on Q */
  /* The next tick: the plan gives P back (nothing refused since). */
  pthread_mutex_lock(&c->lock);
  bool back = cl_part_kept(c, P, clock_now() + 50);
  CHECK(back);
  pthread_mutex_unlock(&c->lock);
  if (back)
    cl_feeder_wake(c); /* as keep_leases does */
  double t0 = clock_now(), took = -1;
  for (int i = 0; i < 300; i++) {
    pthread_mutex_lock(&c->lock);
    size_t n = fptable_count(c->taken);
    pthread_mutex_unlock(&c->lock);
    if (n > 0) {
      took = clock_now() - t0;
      break;
    }
    nap_ms(5);
  }
  printf("# the seed taken again after %.0f ms\n", took * 1000);
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
  RUN(test_given_back_wakes);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
