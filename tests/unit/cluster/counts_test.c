/* counts_test.c: the requests a worker counts per host (cluster_count),
 * sent by the keeper at its tick (flush_counts), against a real
 * redis-server (redishelp.h).
 *
 * Review: the table kept every host the worker ever asked, and the
 * keeper walked all of it at every tick (4 to 20 a second) under the
 * lock every item's admission takes: at a million hosts, a full walk
 * and a 16 MB allocation a tick. The table now holds the hosts asked
 * since the last tick only. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "cstate.h"
#include "engine.h"
#include "hashtable.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "clusterhelp.h"
#include "redishelp.h"
#pragma GCC diagnostic pop
#include "testhelp.h"

static redis_srv_t srv;
static int counted(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  int n = hashtable_count(c->counts);
  pthread_mutex_unlock(&c->lock);
  return n;
}

static void test_counts_sent_and_forgotten(void)
{
  char err[256];
  cluster_t *c = test_worker(srv.url, "counts");
  if (c == NULL)
    return;
  cluster_count(c, "http://a.test:80");
  cluster_count(c, "http://a.test:80");
  cluster_count(c, "http://b.test:80");
  CHECK_INT(counted(c), 2);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, cl_keeper_main, c), 0);
  for (int i = 0; i < 200 && counted(c) > 0; i++)
    nap_ms(10);
  CHECK_INT(counted(c), 0); /* sent, and no longer kept */
  pthread_mutex_lock(&c->lock);
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  pthread_join(th, NULL);
  cstate_t *cs = NULL;
  CHECK_INT(cstate_open(srv.url, "counts", &cs, err, sizeof(err)), CRAWL_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  if (cs != NULL && fp != NULL)
    cstate_status(cs, fp);
  if (fp != NULL)
    fclose(fp);
  CHECK(buf != NULL && strstr(buf, "requests: 3,") != NULL);
  if (buf != NULL && strstr(buf, "requests: 3,") == NULL)
    fprintf(stderr, "%s", buf);
  free(buf);
  cstate_close(cs);
  test_worker_delete(c);
}

int main(void)
{
  redis_start(&srv);
  RUN(test_counts_sent_and_forgotten);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
