/* gate_test.c: a host's gate item (its robots.txt request) was never
 * asked of cl_admit (engine.c skipped admit for FITEM_GATE, and cl_admit
 * admitted an item without a ticket anyway). A worker whose partition
 * was given away and released still fetched robots.txt of that
 * partition's hosts whose gate was pending, from its own bucket, while
 * the next holder started its bucket empty and asked too: two first
 * requests to the host, against the B + R*t bound, "an owner hands out
 * nothing past its own lease's end" (review). Now a gate is admitted as
 * any item is; refused, no request is made, the gate stays needed, and
 * the host's items waiting behind it are dropped as refused ones are,
 * so that they hold no place in flight here (review of the first fix:
 * held behind a gate asked again every second, they starved the feeder,
 * and the crawl could hang). No Redis: the worker's state is filled in
 * by hand. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include "cluster.h"
#include "cluster_int.h"
#include "cstate.h"
#include "engine.h"
#include "fptable.h"
#include "frontier.h"
#include "testhelp.h"

/* nap_ms: sleep MS milliseconds. */
static void nap_ms(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static int gates, pages;

static engine_fetched_t f_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  cluster_t *c = ctx;
  (void)ws;
  if (it->flags & FITEM_GATE) {
    pthread_mutex_lock(&c->lock);
    gates++; /* a robots.txt request to the host */
    pthread_mutex_unlock(&c->lock);
    frontier_gate_done(engine_frontier(e), it->host);
    return ENGINE_CONSUMED;
  }
  pages++;
  return ENGINE_PARSE;
}
static void f_parse(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}
static void f_commit(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

static void *run(void *arg)
{
  engine_run(arg);
  return NULL;
}

static void test_gate_after_release(void)
{
  cluster_t *c = calloc(1, sizeof(*c));
  CHECK(c != NULL);
  if (c == NULL)
    return;
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  c->taken = fptable_new(0, 16);
  c->acked = fptable_new(sizeof(uint64_t), 16);
  c->remote = (engine_remote_t){ .publish = cl_publish,
                                 .add = cl_add,
                                 .seen = cl_seen,
                                 .commit_begin = cl_commit_begin,
                                 .committed = cl_committed,
                                 .admit = cl_admit,
                                 .release = cl_release,
                                 .ctx = c };
  engine_hooks_t h = { .fetch = f_fetch, .parse = f_parse, .commit = f_commit };
  engine_config_t ec = { .download_workers = 1,
                         .parse_workers = 1,
                         .ordered = true,
                         .rate = 10,
                         .burst = 1,
                         .gate = true,
                         .remote = &c->remote,
                         .hooks = &h,
                         .ctx = c };
  engine_t *e = engine_new(&ec);
  CHECK(e != NULL);
  if (!e)
    return;
  c->e = e;
  const char *key = "http://h.test:80";
  int P = cstate_part(key);
  pthread_mutex_lock(&c->lock);
  c->parts[P] = (struct part){ .held = true,
                               .token = 1,
                               .until = frontier_now() + 50 };
  pthread_mutex_unlock(&c->lock);
  /* The feeder took three items of h (inject, by hand). */
  for (int i = 1; i <= 3; i++) {
    struct ticket *t = calloc(1, sizeof(*t));
    *t = (struct ticket){ .part = P, .seq = (uint64_t)i };
    snprintf(t->id, sizeof(t->id), "%d-1", i);
    uint64_t fp[2];
    cl_id_fp(t->id, P, fp);
    fptable_insert(c->taken, fp, NULL);
    c->inflight++;
    char url[32];
    snprintf(url, sizeof(url), "http://h.test/%d", i);
    CHECK_INT(engine_inject(e, url, 0, (uint64_t)i, key, t), 0);
  }
  /* The plan gives P away; nothing of it admitted yet (busy 0), so the
   * keeper releases it at once: held = false, then cstate_release. */
  pthread_mutex_lock(&c->lock);
  c->parts[P].giving = true;
  c->parts[P].held = false;
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, run, e), 0);
  /* The host's first token comes after 0.1 s: its gate is refused, and
   * the items behind it dropped: nothing is left, the engine ends. */
  bool ended = false;
  for (int i = 0; i < 300 && !ended; i++) {
    nap_ms(10);
    pthread_mutex_lock(&c->lock);
    ended = c->inflight == 0;
    pthread_mutex_unlock(&c->lock);
  }
  CHECK(ended); /* the tickets done: their places in flight free */
  pthread_mutex_lock(&c->lock);
  printf("# after P was released here: %d robots.txt request(s)\n", gates);
  CHECK_INT(gates, 0);
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  engine_stop(e); /* if it did not end by itself */
  pthread_join(th, NULL);
  CHECK_INT(pages, 0);
  engine_delete(e);
  fptable_delete(c->taken);
  fptable_delete(c->acked);
  free(c);
}

int main(void)
{
  RUN(test_gate_after_release);
  return TEST_EXIT();
}
