/* publisher_test.c: the cluster's publisher thread (cluster_publisher.c)
 * against a real redis-server (redishelp.h), driven by hand: a worker
 * joined (cluster_join), its lease table filled in by the test, results
 * queued with cl_publish and the publisher thread alone running.
 *
 * A result fenced while the worker holds its partition again under a
 * newer token goes back on the queue (publish_batch's retry): the queue's
 * count (npub) must stay the queue's length, or the publisher, which is
 * woken only for the first result queued and for a full batch, sleeps
 * through the next result.
 *
 * A worker's temporary page file is named by a key of its own for each
 * write (cluster_tmp_key), not by the item's seq: review, an item the
 * worker fetched again (its result lost with a Redis's last second, the
 * item back in its partition) was written again under the same name,
 * unlinked and recreated while the committer, still holding the first
 * result, linked that name: a missing file, or a page published half
 * written.
 *
 * A connection a worker opens later (for its publisher, a download
 * thread's robots.txt, a reconnect) acts for the crawl the worker
 * joined: review, it took whatever crawl of that name Redis held then,
 * so after a Redis that came back empty and a new crawl of the name, an
 * old worker's pauses, counts and robots.txt answers went into it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "cluster_int.h"
#include "cstate.h"
#include "frontier.h"
#include "rconn.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "clusterhelp.h"
#include "redishelp.h"
#pragma GCC diagnostic pop
#include "testhelp.h"

static redis_srv_t srv;

static int pack(void *ctx, const fitem_t *it, char **data, size_t *len)
{
  (void)ctx;
  (void)it;
  *data = malloc(4);
  if (*data == NULL)
    return -2;
  memcpy(*data, "page", 4);
  *len = 4;
  return 0;
}

/* publish: a result of an item of partition PART (entry id ID) queued for
 * the publisher, as a parse thread does. */
static void publish(cluster_t *c, int part, const char *id, uint64_t seq)
{
  struct ticket *t = calloc(1, sizeof(*t));
  t->part = part;
  t->seq = seq;
  snprintf(t->id, sizeof(t->id), "%s", id);
  pthread_mutex_lock(&c->lock);
  c->inflight++;
  pthread_mutex_unlock(&c->lock);
  fitem_t *it = fitem_new("http://a.test/x", 1);
  it->ticket = t;
  CHECK_INT(cl_publish(c, NULL, it), 0);
  fitem_delete(it);
}

static size_t inflight(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  size_t n = c->inflight;
  pthread_mutex_unlock(&c->lock);
  return n;
}

/* wait_done: until nothing is in flight, for at most MS. */
static bool wait_done(cluster_t *c, long ms)
{
  for (long i = 0; i < ms / 10; i++) {
    if (inflight(c) == 0)
      return true;
    nap_ms(10);
  }
  return inflight(c) == 0;
}

static void test_retry_keeps_count(void)
{
  char err[256];
  cluster_t *c = test_worker(srv.url, "pub");
  if (c == NULL)
    return;
  cluster_front_t front = { .pack = pack };
  cluster_set_front(c, &front);
  /* Two partitions held, P and Q, their leases this worker's. */
  cstate_t *cs = NULL;
  CHECK_INT(cstate_open(srv.url, "pub", &cs, err, sizeof(err)), CRAWL_OK);
  const int P = 3, Q = 5;
  uint64_t tp = 0, tq = 0;
  CHECK_INT(cstate_lease(cs, "part:3", cluster_worker(c), 60000, &tp), 1);
  CHECK_INT(cstate_lease(cs, "part:5", cluster_worker(c), 60000, &tq), 1);
  pthread_mutex_lock(&c->lock);
  c->parts[P] = (struct part){ .held = true,
                               .token = tp + 1000,
                               .until = 1e12 };
  c->parts[Q] = (struct part){ .held = true, .token = tq, .until = 1e12 };
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_publisher_main, c), 0);
  /* Warm up: the publisher's connection made and its script loaded. */
  publish(c, Q, "1-1", 1);
  CHECK(wait_done(c, 2000));
  /* Redis answers nothing for 400 ms: the publisher sends P's result
   * under the token it has (not Redis's), and while it waits, the
   * keeper's newer token arrives and three more results are queued. */
  rconn_t *r = rconn_open(srv.url, 5, err, sizeof(err));
  redisReply *rep = rconn_cmdf(r, "CLIENT", "PAUSE", "400", NULL);
  CHECK(rep != NULL && rep->type == REDIS_REPLY_STATUS);
  if (rep)
    freeReplyObject(rep);
  publish(c, P, "2-1", 2);
  nap_ms(100);
  pthread_mutex_lock(&c->lock);
  c->parts[P].token = tp; /* held again, under a newer token */
  pthread_mutex_unlock(&c->lock);
  publish(c, Q, "3-1", 3);
  publish(c, Q, "4-1", 4);
  publish(c, Q, "5-1", 5);
  /* P's result fenced, sent again under the new token; all published. */
  CHECK(wait_done(c, 3000));
  pthread_mutex_lock(&c->lock);
  int npub = c->npub;
  bool empty = c->phead == NULL;
  pthread_mutex_unlock(&c->lock);
  CHECK(empty);
  CHECK_INT(npub, 0); /* the queue is empty: so is its count */
  /* The next result alone goes out within a linger, not never. */
  publish(c, Q, "6-1", 6);
  bool sent = wait_done(c, 1000);
  CHECK(sent);
  pthread_mutex_lock(&c->lock);
  c->pstop = true;
  pthread_cond_broadcast(&c->pcond);
  pthread_mutex_unlock(&c->lock);
  pthread_join(th, NULL);
  if (!sent) {
    /* Left on the queue: cluster_delete frees it; not in flight now. */
    pthread_mutex_lock(&c->lock);
    c->inflight = 0;
    pthread_mutex_unlock(&c->lock);
  }
  rconn_close(r);
  cstate_close(cs);
  test_worker_delete(c);
}

static void test_tmp_key_per_write(void)
{
  cluster_t *c = test_worker(srv.url, "tmpkey");
  if (c == NULL)
    return;
  uint64_t k1 = cluster_tmp_key(c), k2 = cluster_tmp_key(c);
  printf("# worker %s: keys %" PRIx64 ", %" PRIx64 "\n", cluster_worker(c), k1,
         k2);
  CHECK(k1 != k2);
  /* The worker's number above the count, as its local seqs have it: no
   * other worker's key, and never the top bit (unpack keys). */
  CHECK(k1 >> SEQ_BITS == c->worker_no);
  CHECK(k2 >> SEQ_BITS == c->worker_no);
  test_worker_delete(c);
}

static void test_conn_of_another_crawl(void)
{
  cluster_t *c = test_worker(srv.url, "again");
  if (c == NULL)
    return;
  /* Redis comes back empty; another worker creates a crawl of the name. */
  CHECK_INT(redis_flushall(&srv), 0);
  cluster_t *d = test_worker(srv.url, "again");
  cstate_t *cs = cl_open_conn(c);
  CHECK(cs == NULL);
  cstate_close(cs);
  printf("# %s\n", cluster_error(c));
  CHECK_INT(c->failure, CRAWL_ELOST);
  if (d != NULL)
    test_worker_delete(d);
  test_worker_delete(c);
}

int main(void)
{
  redis_start(&srv);
  RUN(test_retry_keeps_count);
  RUN(test_tmp_key_per_write);
  RUN(test_conn_of_another_crawl);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
