/* loading_test.c: Redis restarting with an AOF that takes a while to
 * load. While it loads, Redis accepts connections and answers every
 * command but a few (PING is not one of them, SELECT is) with
 * "-LOADING". rconn's dial() sent PING on database 0, so a reconnection
 * during the load failed and was tried again; on a redis://HOST:PORT/DB
 * URL it sent SELECT alone, which succeeds, and the script that followed
 * got LOADING: a plain error, on which the keeper stopped the worker
 * (review). It now sends PING after SELECT too. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cstate.h"
#include "rconn.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "redishelp.h"
#pragma GCC diagnostic pop
#include "testhelp.h"

static redis_srv_t srv;
static const cstate_param_t params[] = { { "seedURL", "http://a.test/" },
                                         { "maxDepth", "2" } };

static int keep_once(cstate_t *cs, const char *w, char *err, size_t n)
{
  uint64_t parts[CSTATE_PARTS] = { 0 }, commit = 0;
  bool give[CSTATE_PARTS];
  int alive, moving;
  long pauses;
  int rc = cstate_keep(cs, w, 60000, 0, parts, give, &commit, &alive, &moving,
                       &pauses);
  snprintf(err, n, "%s", rc == CRAWL_OK ? "" : cstate_error(cs));
  return rc;
}

static void test_restart_while_loading(void)
{
  char err[512];
  bool created;
  /* Something for the restarted server to load: about a second's worth. */
  rconn_t *r = rconn_open(srv.url, 10, err, sizeof(err));
  CHECK(r != NULL);
  for (int i = 0; r && i < 8; i++) {
    char a[16];
    snprintf(a, sizeof(a), "%d", i);
    redisReply *rep =
      rconn_cmdf(r, "EVAL",
                 "for i=1,200000 do redis.call('SET','k'..ARGV[1]..'_'..i,"
                 "'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv') end return 1",
                 "0", a, NULL);
    CHECK(rep != NULL && rep->type == REDIS_REPLY_INTEGER);
    if (rep)
      freeReplyObject(rep);
  }
  rconn_close(r);
  char url0[80], url1[80];
  snprintf(url0, sizeof(url0), "%s", srv.url);
  snprintf(url1, sizeof(url1), "%s/1", srv.url);
  cstate_t *c0 = NULL, *c1 = NULL;
  CHECK_INT(cstate_join(url0, "l0", params, 2, "http://a.test/",
                        "http://a.test:80", &c0, &created, err, sizeof(err)),
            CRAWL_OK);
  CHECK_INT(cstate_join(url1, "l1", params, 2, "http://a.test/",
                        "http://a.test:80", &c1, &created, err, sizeof(err)),
            CRAWL_OK);
  if (!c0 || !c1)
    return;
  char w0[32], w1[32];
  CHECK_INT(cstate_register(c0, "t", w0, sizeof(w0)), CRAWL_OK);
  CHECK_INT(cstate_register(c1, "t", w1, sizeof(w1)), CRAWL_OK);
  CHECK_INT(keep_once(c0, w0, err, sizeof(err)), CRAWL_OK);
  CHECK_INT(keep_once(c1, w1, err, sizeof(err)), CRAWL_OK);
  redis_stop(&srv); /* SIGTERM: the AOF is complete */
  CHECK_INT(redis_restart(&srv), 0);
  /* The keeper's next tick, on database 1, then on database 0. */
  int rc1 = keep_once(c1, w1, err, sizeof(err));
  printf("# database 1: keep -> %d (%s)\n", rc1, err);
  CHECK_INT(rc1, CRAWL_OK);
  int rc0 = keep_once(c0, w0, err, sizeof(err));
  printf("# database 0: keep -> %d (%s)\n", rc0, err);
  CHECK_INT(rc0, CRAWL_OK);
  cstate_close(c0);
  cstate_close(c1);
}

/* A worker started while Redis loads its data set (restarted with the
 * workers, say, by one supervisor) waits for the load, saying so, and
 * joins: it failed at once with "LOADING" (exit 9), unlike a worker
 * already running, which waits for RCONN_RETRY_SECONDS. After
 * test_restart_while_loading: the data set is there to load. */
static void test_join_while_loading(void)
{
  char err[512];
  bool created;
  redis_stop(&srv);
  CHECK_INT(redis_restart(&srv), 0);
  rconn_t *r = rconn_open(srv.url, 10, err, sizeof(err));
  bool loading = r == NULL && strstr(err, "LOADING") != NULL;
  rconn_close(r);
  if (!loading) {
    SKIP("Redis loaded its data set before it was asked: nothing tested");
    return;
  }
  cstate_t *cs = NULL;
  int rc = cstate_join(srv.url, "late", params, 2, "http://a.test/",
                       "http://a.test:80", &cs, &created, err, sizeof(err));
  printf("# join while loading -> %d (%s)\n", rc, rc ? err : "");
  CHECK_INT(rc, CRAWL_OK);
  CHECK(created);
  cstate_close(cs);
}

/* A server that answers one connection's first command "-LOADING" and
 * then goes away: connections are refused from then on. */
static void *loading_once(void *arg)
{
  int ls = *(int *)arg;
  int s = accept(ls, NULL, NULL);
  close(ls);
  if (s >= 0) {
    char buf[256];
    if (read(s, buf, sizeof(buf)) > 0) {
      static const char a[] = "-LOADING Redis is loading the dataset\r\n";
      if (write(s, a, sizeof(a) - 1) < 0)
        perror("write");
    }
    close(s);
  }
  return NULL;
}

/* Review: dial() set "loading" only once a server answered; a server
 * that said LOADING and then died left it set, and the first connection
 * waited its whole time on "Connection refused". It fails once the
 * server cannot be reached. */
static void test_loading_then_gone(void)
{
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof(a);
  CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        listen(ls, 1) == 0 && getsockname(ls, (struct sockaddr *)&a, &al) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, loading_once, &ls) == 0);
  char url[64], err[512];
  snprintf(url, sizeof(url), "redis://127.0.0.1:%d", ntohs(a.sin_port));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rconn_t *r = rconn_open_loaded(url, 1, 6, err, sizeof(err));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double took = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("# LOADING, then gone: %.2f s (%s)\n", took, r ? "connected" : err);
  CHECK(r == NULL);
  CHECK(took < 3); /* not the 6 s given for a load */
  rconn_close(r);
  pthread_join(t, NULL);
}

int main(void)
{
  RUN(test_loading_then_gone);
  redis_start(&srv);
  RUN(test_restart_while_loading);
  RUN(test_join_while_loading);
  redis_cleanup(&srv);
  return TEST_EXIT();
}
