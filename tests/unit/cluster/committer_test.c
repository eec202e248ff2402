/* committer_test.c: the committer thread (cluster_committer.c) against a
 * real redis-server (redishelp.h), the keeper's part played by the test:
 * the commit lease taken by hand, results written straight into the
 * results stream, the front end a stub that records what it is given.
 *
 * Review: two results of one seq (an item fetched twice) can wait in the
 * reorder heap at once. The committer named the files an unpacked result
 * spills its links to by the shared seq, so the second copy truncated
 * the first's links file (a read error at the commit, or the other
 * fetch's links committed under this page). Each unpack now has a key
 * of its own, and none is a worker's item's (top bit set).
 *
 * Review: a turn's start cut the page directory back to Redis's recorded
 * position (take_commit) without looking at the lease again: a committer
 * paused past its lease there would undo the next committer's pages.
 *
 * Review: a journal whose length could not be read (stat failing: ESTALE
 * on NFS) was recorded as 0 bytes long, and the next committer to take
 * over would cut the whole journal off. */
#include <errno.h>
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
#include "frontier.h"
#include "rconn.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "clusterhelp.h"
#include "redishelp.h"
#pragma GCC diagnostic pop
#include "testhelp.h"

static redis_srv_t srv;
/* The front end: records the keys unpacks are given. */
static pthread_mutex_t klock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t keys[8];
static int nkeys;

static fitem_t *unpack(void *ctx, const char *data, size_t len, uint64_t key)
{
  (void)ctx;
  (void)data;
  (void)len;
  pthread_mutex_lock(&klock);
  if (nkeys < 8)
    keys[nkeys++] = key;
  pthread_mutex_unlock(&klock);
  return fitem_new("http://a.test/x", 1);
}
static int takes;
static int take_commit(void *ctx, const cstate_commit_t *st)
{
  (void)ctx;
  (void)st;
  pthread_mutex_lock(&klock);
  takes++;
  pthread_mutex_unlock(&klock);
  return 0;
}
static bool unreadable; /* position fails, as a stat of .journal can */
static int position(void *ctx, cstate_commit_t *st)
{
  (void)ctx;
  if (unreadable) {
    errno = ESTALE;
    return -1;
  }
  st->journal = 1000;
  return 0;
}

static const cluster_front_t front = { .unpack = unpack,
                                       .take_commit = take_commit,
                                       .position = position };

static int unpacked(void)
{
  pthread_mutex_lock(&klock);
  int n = nkeys;
  pthread_mutex_unlock(&klock);
  return n;
}

static void test_one_seq_twice(void)
{
  char err[256];
  cluster_t *c = test_worker(srv.url, "dup");
  if (c == NULL)
    return;
  cluster_set_front(c, &front);
  cstate_t *cs = NULL;
  CHECK_INT(cstate_open(srv.url, "dup", &cs, err, sizeof(err)), CRAWL_OK);
  /* Seq 5, published twice (two entries), waits behind seq 0. */
  rconn_t *r = cstate_rconn(cs);
  for (int i = 0; i < 2; i++) {
    redisReply *rep = rconn_cmdf(r, "XADD", "tse:{dup}:results", "*", "5",
                                 i ? "copy b" : "copy a", NULL);
    CHECK(rep != NULL && rep->type == REDIS_REPLY_STRING);
    if (rep)
      freeReplyObject(rep);
  }
  uint64_t ct = 0;
  CHECK_INT(cstate_lease(cs, "commit", cluster_worker(c), 60000, &ct), 1);
  pthread_mutex_lock(&c->lock);
  c->commit_held = true;
  c->commit_token = ct;
  c->commit_until = clock_now() + 50;
  c->commit_turn = 1;
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_committer_main, c), 0);
  for (int i = 0; i < 300 && unpacked() < 2; i++)
    nap_ms(10);
  CHECK_INT(unpacked(), 2);
  if (unpacked() == 2) {
    printf("# keys %" PRIx64 " and %" PRIx64 "\n", keys[0], keys[1]);
    CHECK(keys[0] != keys[1]);
    /* No worker's item's key (its local seq: the worker's number, below
     * 2^21, above SEQ_BITS). */
    CHECK(keys[0] >> 63 == 1 && keys[1] >> 63 == 1);
  }
  pthread_mutex_lock(&c->lock);
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  cl_unblock(c, true);
  pthread_join(th, NULL);
  cstate_close(cs);
  test_worker_delete(c);
}

/* A turn whose lease ran out here before the directory is cut back
 * (the committer paused, say): no take_commit, the turn ends. */
static void test_lapsed_before_cut(void)
{
  cluster_t *c = test_worker(srv.url, "lapsed");
  if (c == NULL)
    return;
  cluster_set_front(c, &front);
  pthread_mutex_lock(&klock);
  takes = 0;
  pthread_mutex_unlock(&klock);
  pthread_mutex_lock(&c->lock);
  c->commit_held = true;
  c->commit_token = 1;
  c->commit_until = clock_now() - 1; /* past, here */
  c->commit_turn = 1;
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_committer_main, c), 0);
  bool ended = false;
  for (int i = 0; i < 200 && !ended; i++) {
    nap_ms(10);
    pthread_mutex_lock(&c->lock);
    ended = !c->commit_held;
    pthread_mutex_unlock(&c->lock);
  }
  CHECK(ended);
  pthread_mutex_lock(&klock);
  CHECK_INT(takes, 0);
  pthread_mutex_unlock(&klock);
  pthread_mutex_lock(&c->lock);
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  cl_unblock(c, true);
  pthread_join(th, NULL);
  test_worker_delete(c);
}

/* The directory's position unreadable after a commit: nothing is
 * recorded (no commit queued), and the worker fails, saying why. */
static void test_position_unreadable(void)
{
  cluster_t *c = test_worker(srv.url, "unread");
  if (c == NULL)
    return;
  cluster_set_front(c, &front);
  unreadable = true;
  fitem_t *it = fitem_new("http://a.test/", 0);
  CHECK(it != NULL);
  if (it != NULL) {
    it->seq = 0;
    CHECK(cl_committed(c, c->e, it) < 0);
    fitem_delete(it);
  }
  CHECK_INT(c->ndone, 0); /* no commit queued, none recorded */
  printf("# %s\n", cluster_error(c));
  CHECK(c->failure != 0);
  CHECK(strstr(cluster_error(c), "journal") != NULL);
  unreadable = false;
  test_worker_delete(c);
}

int main(void)
{
  redis_start(&srv);
  RUN(test_one_seq_twice);
  RUN(test_lapsed_before_cut);
  RUN(test_position_unreadable);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
