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
#include "clock.h"
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
/* hold_gate: a gate's fetch waits until it is cleared (its robots.txt
 * request on its way); pages_gone: a page item ends at its fetch
 * (ENGINE_GONE: its ticket done, not published). Under c->lock. */
static bool hold_gate, pages_gone;

static bool flag(cluster_t *c, const bool *f)
{
  pthread_mutex_lock(&c->lock);
  bool v = *f;
  pthread_mutex_unlock(&c->lock);
  return v;
}

static engine_fetched_t f_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  cluster_t *c = ctx;
  (void)ws;
  if (it->flags & FITEM_GATE) {
    pthread_mutex_lock(&c->lock);
    gates++; /* a robots.txt request to the host */
    pthread_mutex_unlock(&c->lock);
    while (flag(c, &hold_gate))
      nap_ms(5);
    frontier_gate_done(engine_frontier(e), it->host);
    return ENGINE_CONSUMED;
  }
  pthread_mutex_lock(&c->lock);
  pages++;
  pthread_mutex_unlock(&c->lock);
  return flag(c, &pages_gone) ? ENGINE_GONE : ENGINE_PARSE;
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

static const char *const key = "http://h.test:80";

/* gate_worker: a worker whose state is filled in by hand, holding the
 * partition of h.test (*P), with an engine (c->e) of the hooks above,
 * holding N items of h.test, taken (as the feeder would) and injected,
 * seqs 1 to N. */
static cluster_t *gate_worker(int *P, int n)
{
  static const engine_hooks_t h = { .fetch = f_fetch,
                                    .parse = f_parse,
                                    .commit = f_commit };
  cluster_t *c = calloc(1, sizeof(*c));
  CHECK(c != NULL);
  if (c == NULL)
    return NULL;
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  c->taken = fptable_new(0, 16);
  c->acked = fptable_new(sizeof(uint64_t), 16);
  engine_config_t ec = { .download_workers = 1,
                         .parse_workers = 1,
                         .ordered = true,
                         .rate = 10,
                         .burst = 1,
                         .gate = true,
                         .source = &cluster_source,
                         .source_ctx = c,
                         .hooks = &h,
                         .ctx = c };
  c->e = engine_new(&ec);
  CHECK(c->e != NULL);
  *P = cstate_part(key);
  c->parts[*P] = (struct part){ .held = true,
                                .token = 1,
                                .until = clock_now() + 50 };
  for (int i = 1; i <= n && c->e != NULL; i++) {
    struct ticket *t = calloc(1, sizeof(*t));
    *t = (struct ticket){ .part = *P, .seq = (uint64_t)i };
    snprintf(t->id, sizeof(t->id), "%d-1", i);
    uint64_t fp[2];
    cl_id_fp(t->id, *P, fp);
    fptable_insert(c->taken, fp, NULL);
    c->inflight++;
    char url[32];
    snprintf(url, sizeof(url), "http://h.test/%d", i);
    CHECK_INT(engine_inject(c->e, url, 0, (uint64_t)i, key, t), 0);
  }
  return c;
}

static void gate_worker_delete(cluster_t *c)
{
  if (c->e != NULL)
    engine_delete(c->e);
  fptable_delete(c->taken);
  fptable_delete(c->acked);
  free(c);
}

/* wait_for: until *V (under c->lock) is at least N, for up to 3 s. */
static bool wait_for(cluster_t *c, const int *v, int n)
{
  for (int i = 0; i < 300; i++) {
    pthread_mutex_lock(&c->lock);
    bool ok = *v >= n;
    pthread_mutex_unlock(&c->lock);
    if (ok)
      return true;
    nap_ms(10);
  }
  return false;
}

static void test_gate_after_release(void)
{
  int P;
  cluster_t *c = gate_worker(&P, 3);
  if (c == NULL || c->e == NULL) {
    if (c != NULL)
      gate_worker_delete(c);
    return;
  }
  /* The plan gives P away; nothing of it admitted yet (busy 0), so the
   * keeper releases it at once: held = false, then cstate_release. */
  pthread_mutex_lock(&c->lock);
  c->parts[P].giving = true;
  c->parts[P].held = false;
  pthread_mutex_unlock(&c->lock);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, run, c->e), 0);
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
  engine_stop(c->e); /* if it did not end by itself */
  pthread_join(th, NULL);
  CHECK_INT(pages, 0);
  gate_worker_delete(c);
}

/* A gate admitted counts in its partition's busy until its fetch is
 * over (its answer stored in Redis), as an item does until its result
 * is published: the keeper releases a partition given away only once
 * busy is 0 (cluster_keeper.c). Review: it did not count, so a
 * partition could be released while its robots.txt request was on its
 * way, and the next holder, not finding the answer stored yet, asked
 * too (robots.txt twice for one host in one crawl). */
static void test_gate_counted_busy(void)
{
  int P;
  gates = pages = 0;
  hold_gate = pages_gone = true;
  cluster_t *c = gate_worker(&P, 1);
  if (c == NULL || c->e == NULL) {
    if (c != NULL)
      gate_worker_delete(c);
    return;
  }
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, run, c->e), 0);
  CHECK(wait_for(c, &gates, 1)); /* the gate's request on its way */
  pthread_mutex_lock(&c->lock);
  int busy = c->parts[P].busy;
  hold_gate = false;
  pthread_mutex_unlock(&c->lock);
  printf("# busy while the gate is fetched: %d\n", busy);
  CHECK_INT(busy, 1);
  CHECK(wait_for(c, &pages, 1)); /* the gate over, the page asked */
  bool ended = false;
  for (int i = 0; i < 300 && !ended; i++) {
    pthread_mutex_lock(&c->lock);
    ended = c->inflight == 0;
    pthread_mutex_unlock(&c->lock);
    nap_ms(10);
  }
  CHECK(ended);
  pthread_mutex_lock(&c->lock);
  busy = c->parts[P].busy;
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  printf("# busy once both are over: %d\n", busy);
  CHECK_INT(busy, 0); /* the gate's count given back */
  engine_stop(c->e);
  pthread_join(th, NULL);
  gate_worker_delete(c);
}

int main(void)
{
  RUN(test_gate_after_release);
  RUN(test_gate_counted_busy);
  return TEST_EXIT();
}
