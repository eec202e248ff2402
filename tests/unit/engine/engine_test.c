/* engine_test.c: the engine in ordered mode, with and without speculation,
 * over in-memory graphs (no HTTP): the commit order is the plain
 * breadth-first order whatever the workers and limits, no page is fetched
 * twice, speculation fetches a page while the commit waits for a slow one,
 * and speculative items the commit never adds are dropped (no leaks under
 * ASan). Timing: one page sleeps 300 ms where the test needs the commit
 * to wait (far longer than the microseconds the rest takes); others sleep
 * 3 ms only to vary the interleavings. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "crawl.h"
#include "engine.h"
#include "testhelp.h"

enum { N = 3000, FANOUT = 6, MAX_DEPTH = 3 };

struct graph {
  int (*links)[FANOUT]; /* links[i]: the pages page i links to; -1 none */
  int max_depth;
  int slow;              /* this page's fetch sleeps 300 ms; -1 none */
  bool jitter;           /* every 7th page's fetch sleeps 3 ms */
  int claim_by, claimed; /* commit of page claim_by marks claimed seen */
  atomic_int fetches[N];
  atomic_int spec_fetches;
  atomic_bool spec_fetched[N]; /* page i was fetched speculatively */
  int order[N], depth[N], ncommitted;
  int stop_after; /* engine_stop after this many commits; 0 never */
  int refuse;     /* this page's commit adds no links (as a page over a
                     limit); -1 none */
  int records[N]; /* engine_speculating() at page i's commit; -1 none */
  int sleep_ms;   /* every fetch sleeps this long; 0 none */
  atomic_int inflight, max_inflight; /* fetches at once, now and at most */
};

static int page_no(const char *url)
{
  return atoi(url + 1);
}

static void name(char *buf, int i)
{
  snprintf(buf, 16, "p%d", i);
}

static void host(char *buf, int i)
{
  snprintf(buf, 16, "h%d", i % 4);
}

static engine_fetched_t g_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  struct graph *g = ctx;
  (void)ws;
  (void)e;
  int i = page_no(it->url);
  atomic_fetch_add(&g->fetches[i], 1);
  if (it->flags & FITEM_SPEC) {
    atomic_fetch_add(&g->spec_fetches, 1);
    atomic_store(&g->spec_fetched[i], true);
  }
  int now = atomic_fetch_add(&g->inflight, 1) + 1;
  int max = atomic_load(&g->max_inflight);
  while (now > max &&
         !atomic_compare_exchange_weak(&g->max_inflight, &max, now))
    ;
  if (i == g->slow || (g->jitter && i % 7 == 0) || g->sleep_ms) {
    int ms = i == g->slow ? 300 : g->sleep_ms ? g->sleep_ms : 3;
    struct timespec ts = { 0, ms * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  atomic_fetch_sub(&g->inflight, 1);
  return ENGINE_PARSE;
}

static void g_parse(void *ctx, engine_t *e, fitem_t *it)
{
  struct graph *g = ctx;
  if (it->depth >= g->max_depth)
    return;
  int i = page_no(it->url);
  for (int k = 0; k < FANOUT && g->links[i][k] >= 0; k++) {
    char u[16], h[16];
    name(u, g->links[i][k]);
    host(h, g->links[i][k]);
    engine_speculate(e, u, it->depth + 1, h);
  }
}

static void g_commit(void *ctx, engine_t *e, fitem_t *it)
{
  struct graph *g = ctx;
  int i = page_no(it->url);
  g->order[g->ncommitted] = i;
  g->depth[g->ncommitted++] = it->depth;
  if (g->stop_after && g->ncommitted == g->stop_after)
    engine_stop(e);
  if (i == g->claim_by) {
    char u[16];
    name(u, g->claimed);
    engine_mark_seen(e, u);
  }
  g->records[i] = (int)engine_speculating(e);
  if (it->depth >= g->max_depth || i == g->refuse)
    return;
  for (int k = 0; k < FANOUT && g->links[i][k] >= 0; k++) {
    char u[16], h[16];
    name(u, g->links[i][k]);
    host(h, g->links[i][k]);
    engine_add(e, u, it->depth + 1, h);
  }
}

static const engine_hooks_t hooks = {
  .fetch = g_fetch,
  .parse = g_parse,
  .commit = g_commit,
};

static struct graph *graph_new(void)
{
  struct graph *g = calloc(1, sizeof(*g));
  g->links = malloc(sizeof(*g->links) * N);
  for (int i = 0; i < N; i++)
    for (int k = 0; k < FANOUT; k++)
      g->links[i][k] = -1;
  g->max_depth = MAX_DEPTH;
  g->slow = g->claim_by = g->claimed = g->refuse = -1;
  for (int i = 0; i < N; i++)
    g->records[i] = -1;
  return g;
}

/* random_links: a fixed pseudo-random graph, the same every run. */
static void random_links(struct graph *g)
{
  unsigned x = 12345;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < FANOUT; k++) {
      x = x * 1103515245u + 12345u;
      g->links[i][k] = (int)((x >> 8) % N);
    }
}

/* bfs: the plain FIFO crawl from page 0; returns how many pages. */
static int bfs(const struct graph *g, int *order, int *depth)
{
  static int seen[N];
  memset(seen, 0, sizeof(seen));
  int n = 0;
  order[n] = 0;
  depth[n++] = 0;
  seen[0] = 1;
  for (int q = 0; q < n; q++) {
    int i = order[q];
    if (i == g->claim_by && g->claimed >= 0)
      seen[g->claimed] = 1;
    if (depth[q] >= g->max_depth || i == g->refuse)
      continue;
    for (int k = 0; k < FANOUT && g->links[i][k] >= 0; k++) {
      int j = g->links[i][k];
      if (!seen[j]) {
        seen[j] = 1;
        order[n] = j;
        depth[n++] = depth[q] + 1;
      }
    }
  }
  return n;
}

/* run_with: run G's crawl with CFG's workers, speculation and budget. */
static int run_with(struct graph *g, engine_config_t cfg)
{
  cfg.ordered = true;
  cfg.fetched_limit = 8;
  cfg.window = 64;
  cfg.hooks = &hooks;
  cfg.ctx = g;
  engine_t *e = engine_new(&cfg);
  CHECK(e != NULL);
  CHECK_INT(engine_add(e, "p0", 0, "h0"), 1);
  int rc = engine_run(e);
  engine_delete(e);
  return rc;
}

static int run(struct graph *g, int dl, int parse, size_t speculate, size_t out)
{
  engine_config_t cfg = {
    .download_workers = dl,
    .parse_workers = parse,
    .ordered = true,
    .fetched_limit = 8,
    .window = 64,
    .speculate = speculate,
    .speculate_out = out,
    .hooks = &hooks,
    .ctx = g,
  };
  engine_t *e = engine_new(&cfg);
  CHECK(e != NULL);
  CHECK_INT(engine_add(e, "p0", 0, "h0"), 1);
  int rc = engine_run(e);
  engine_delete(e);
  return rc;
}

/* check_order: G's commits are the plain crawl's; and, unless WASTE,
 * every page was fetched once and no speculative fetch was wasted. */
static void check_order(struct graph *g, bool waste)
{
  static int order[N], depth[N];
  int n = bfs(g, order, depth);
  CHECK_INT(g->ncommitted, n);
  int bad = 0, twice = 0, total = 0;
  for (int q = 0; q < n && q < g->ncommitted; q++)
    bad += g->order[q] != order[q] || g->depth[q] != depth[q];
  for (int i = 0; i < N; i++) {
    twice += atomic_load(&g->fetches[i]) > 1;
    total += atomic_load(&g->fetches[i]);
  }
  CHECK_INT(bad, 0);
  CHECK_INT(twice, 0);
  if (!waste)
    CHECK_INT(total, n); /* no speculative fetch was wasted */
}

static void check_bfs(struct graph *g)
{
  check_order(g, false);
}

static void test_bfs_order_with_speculation(void)
{
  static const struct {
    int dl, parse;
    size_t spec, out;
  } runs[] = {
    { 1, 1, 0, 0 },  { 8, 2, 0, 0 },  { 8, 2, 4096, 32 },
    { 16, 3, 2, 1 }, { 3, 1, 64, 0 },
  };
  for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    struct graph *g = graph_new();
    random_links(g);
    g->jitter = true;
    g->slow = g->links[0][0]; /* the commit waits: speculation has room */
    CHECK_INT(run(g, runs[r].dl, runs[r].parse, runs[r].spec, runs[r].out), 0);
    check_bfs(g);
    if (runs[r].spec > 0)
      CHECK(atomic_load(&g->spec_fetches) > 0);
    free(g->links);
    free(g);
  }
}

static void test_speculation_fills_a_wait(void)
{
  /* p0 -> p1 (slow, host h1), p2 (h2); p2 -> p6 (h2) -> p10 (h2). The
   * commit of p2, and with it the add of p6, waits for p1; speculation
   * fetches p6 meanwhile, and from p6's speculative parse p10. */
  struct graph *g = graph_new();
  g->links[0][0] = 1;
  g->links[0][1] = 2;
  g->links[2][0] = 6;
  g->links[6][0] = 10;
  g->slow = 1;
  CHECK_INT(run(g, 4, 2, 16, 4), 0);
  check_bfs(g);
  CHECK(atomic_load(&g->spec_fetched[6]));
  CHECK(atomic_load(&g->spec_fetched[10]));
  CHECK_INT(atomic_load(&g->fetches[6]), 1);
  CHECK_INT(atomic_load(&g->fetches[10]), 1);
  free(g->links);
  free(g);
}

static void test_claimed_speculation_is_dropped(void)
{
  /* As above, but the commit of p1 claims p6 (as a redirect would): p6 is
   * never committed, and the fetched, parked item is freed. */
  struct graph *g = graph_new();
  g->max_depth = 2;
  g->links[0][0] = 1;
  g->links[0][1] = 2;
  g->links[2][0] = 6;
  g->links[2][1] = 7;
  g->slow = 1;
  g->claim_by = 1;
  g->claimed = 6;
  CHECK_INT(run(g, 4, 2, 16, 4), 0);
  CHECK(atomic_load(&g->spec_fetched[6]));
  static int order[N], depth[N];
  CHECK_INT(bfs(g, order, depth), 4); /* p0 p1 p2 p7: p6 is claimed */
  CHECK_INT(g->ncommitted, 4);
  for (int q = 0; q < 4 && q < g->ncommitted; q++)
    CHECK_INT(g->order[q], order[q]);
  free(g->links);
  free(g);
}

static void test_speculation_past_its_depth_is_dropped(void)
{
  /* p0 -> p1 (slow), p2, p3; p2's commit is refused (as a page over
   * --max-pages-per-host), so p6 and p7, speculated from p2's parse while
   * p1 holds the commit, are never added. Once the commit reaches depth
   * 2 (p4, from p1), no add at depth 2 is left: their records go, so a
   * limit cannot fill speculation up for the rest of the crawl. */
  struct graph *g = graph_new();
  g->max_depth = 2;
  g->links[0][0] = 1;
  g->links[0][1] = 2;
  g->links[0][2] = 3;
  g->links[1][0] = 4;
  g->links[2][0] = 6;
  g->links[2][1] = 7;
  g->slow = 1;
  g->refuse = 2;
  CHECK_INT(run(g, 4, 2, 16, 0), 0);
  check_order(g, true); /* p6 and p7 were fetched for nothing */
  CHECK(atomic_load(&g->spec_fetched[6]));
  CHECK(g->records[2] >= 1);   /* p6, p7 alive at p2's commit */
  CHECK_INT(g->records[4], 0); /* and gone at depth 2's first commit */
  free(g->links);
  free(g);
}

static void test_small_budget_stays_exact(void)
{
  /* A budget far too small for the frontier: pushes spill to a file and
   * come back in order; speculation is refused; the commit is the plain
   * breadth-first one all the same, and the file is gone at the end. */
  char dir[] = "/tmp/engine_test_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof(path), "%s/spill", dir);
  budget_t b;
  budget_init(&b, 2048);
  struct graph *g = graph_new();
  random_links(g);
  g->jitter = true;
  engine_config_t cfg = { .download_workers = 8,
                          .parse_workers = 2,
                          .speculate = SIZE_MAX,
                          .budget = &b,
                          .spill_path = path };
  CHECK_INT(run_with(g, cfg), 0);
  check_bfs(g);
  CHECK(atomic_load(&b.spilled) > 0);
  CHECK_INT((int)atomic_load(&b.held), 0);
  CHECK_INT((int)atomic_load(&b.on_disk), 0);
  CHECK(access(path, F_OK) != 0); /* removed */
  rmdir(dir);
  free(g->links);
  free(g);
}

static void test_stop_leaves_nothing_behind(void)
{
  /* Stopping mid-crawl with speculative items queued, in flight and
   * parked: engine_delete frees them all (ASan would say otherwise). */
  struct graph *g = graph_new();
  random_links(g);
  g->slow = 3;
  g->stop_after = 40;
  CHECK_INT(run(g, 8, 2, 256, 16), CRAWL_ESTOPPED);
  CHECK(g->ncommitted >= 40);
  free(g->links);
  free(g);
}

static void test_elastic_pool(void)
{
  /* Every fetch sleeps 5 ms and everything is due (no rate): an elastic
   * pool of 2 to 24 grows past 2 and never past 24, a fixed pool of 2
   * stays 2, and the commit is the plain breadth-first one either way;
   * stopped mid-crawl, the grown (detached) threads are gone when
   * engine_run returns (ASan, TSan). */
  static const struct {
    int dl, max, stop;
  } runs[] = { { 2, 24, 0 }, { 2, 0, 0 }, { 2, 24, 60 } };
  for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    struct graph *g = graph_new();
    random_links(g);
    g->sleep_ms = 5;
    g->stop_after = runs[r].stop;
    engine_config_t cfg = { .download_workers = runs[r].dl,
                            .download_max = runs[r].max,
                            .parse_workers = 2,
                            .speculate = 4096 };
    CHECK_INT(run_with(g, cfg), runs[r].stop ? CRAWL_ESTOPPED : 0);
    int max = atomic_load(&g->max_inflight);
    if (runs[r].max > 0) {
      CHECK(max > runs[r].dl);
      CHECK(max <= runs[r].max);
    } else {
      CHECK(max <= runs[r].dl);
    }
    if (!runs[r].stop)
      check_order(g, true);
    free(g->links);
    free(g);
  }
}

/* A driver of its own (engine_config_t.driver): engine_next, the fetch,
 * engine_sink, and between them a sleep until the due time engine_next
 * gives or a wake (cfg.wake). */
struct drv {
  pthread_mutex_t lock;
  pthread_cond_t cond; /* signalled by d_wake; a monotonic clock */
  bool woken;          /* under lock */
  struct graph *g;
  int items, waits, wakes; /* the driver's own counts */
  atomic_int wake_calls;
};

static void d_wake(void *arg)
{
  struct drv *d = arg;
  atomic_fetch_add(&d->wake_calls, 1);
  pthread_mutex_lock(&d->lock);
  d->woken = true;
  pthread_cond_signal(&d->cond);
  pthread_mutex_unlock(&d->lock);
}

static void d_run(void *arg, engine_t *e)
{
  struct drv *d = arg;
  for (;;) {
    pthread_mutex_lock(&d->lock);
    d->woken = false;
    pthread_mutex_unlock(&d->lock);
    engine_job_t job;
    double due;
    int rc = engine_next(e, &job, &due);
    if (rc == ENGINE_CLOSED)
      return;
    if (rc == ENGINE_ITEM) {
      d->items++;
      engine_sink(e, &job, g_fetch(d->g, NULL, e, job.it));
      continue;
    }
    d->waits++;
    pthread_mutex_lock(&d->lock);
    while (!d->woken) {
      if (due == INFINITY) {
        pthread_cond_wait(&d->cond, &d->lock);
        continue;
      }
      struct timespec ts;
      ts.tv_sec = (time_t)due;
      ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
      if (pthread_cond_timedwait(&d->cond, &d->lock, &ts) != 0)
        break; /* due */
    }
    d->wakes += d->woken;
    pthread_mutex_unlock(&d->lock);
  }
}

static void test_driver(void)
{
  /* The commit is the plain breadth-first one, every page fetched once,
   * with a rate that makes the driver wait for due times (4 hosts at
   * 400 requests a second) and speculation that wakes it from parse
   * threads; it waits far less often than it takes items (no spin); a
   * crawl stopped midway returns with nothing left (ASan). */
  for (int stop = 0; stop <= 60; stop += 60) {
    struct graph *g = graph_new();
    random_links(g);
    g->stop_after = stop;
    struct drv d = { .g = g };
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&d.cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&d.lock, NULL);
    atomic_init(&d.wake_calls, 0);
    engine_config_t cfg = { .download_workers = 1,
                            .parse_workers = 2,
                            .speculate = 4096,
                            .rate = 400,
                            .burst = 1,
                            .driver = d_run,
                            .driver_arg = &d,
                            .wake = d_wake,
                            .wake_arg = &d };
    CHECK_INT(run_with(g, cfg), stop ? CRAWL_ESTOPPED : 0);
    if (!stop) {
      check_order(g, true);
      CHECK(d.items > 0);
      CHECK(atomic_load(&d.wake_calls) > 0);
      CHECK(d.waits < d.items); /* slept on due times, never spun */
    }
    pthread_cond_destroy(&d.cond);
    pthread_mutex_destroy(&d.lock);
    free(g->links);
    free(g);
  }
}

/* A shared crawl (engine.h, engine_source_t) may deliver a seq's result
 * twice (cstate_queue.c: a result published twice): it is committed
 * once, and the copy is released, not left at the head of the order,
 * where it stopped every commit after it. */
static atomic_int r_committed, r_released;
static int r_zero(void *rctx, engine_t *e, fitem_t *it)
{
  (void)rctx;
  (void)e;
  (void)it;
  return 0;
}
static int r_begin(void *rctx, fitem_t *it)
{
  (void)rctx;
  (void)it;
  return 0;
}
static int r_committed_fn(void *rctx, engine_t *e, fitem_t *it)
{
  (void)rctx;
  (void)e;
  (void)it;
  atomic_fetch_add(&r_committed, 1);
  return 0;
}
static bool r_admit(void *rctx, fitem_t *it)
{
  (void)rctx;
  (void)it;
  return true;
}
static void r_release(void *rctx, fitem_t *it)
{
  (void)rctx;
  it->ticket = NULL;
  atomic_fetch_add(&r_released, 1);
}
static int r_add(void *rctx, engine_t *e, fitem_t *it, const uint64_t fp[2],
                 const char *hostkey)
{
  (void)rctx;
  (void)fp;
  (void)e;
  (void)hostkey;
  fitem_delete(it); /* adopted: the source frees what it does not keep */
  return 1;
}
static int r_seen(void *rctx, const char *url, const uint64_t fp[2])
{
  (void)rctx;
  (void)url;
  (void)fp;
  return 0;
}
static void r_gate_done(void *rctx, const char *hostkey)
{
  (void)rctx;
  (void)hostkey;
}
static void r_commit_hook(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

static void test_delivered_twice_commits_once(void)
{
  static int token;
  static const engine_source_t source = { .add = r_add,
                                          .seen = r_seen,
                                          .gate_done = r_gate_done,
                                          .publish = r_zero,
                                          .commit_begin = r_begin,
                                          .committed = r_committed_fn,
                                          .admit = r_admit,
                                          .release = r_release };
  engine_hooks_t h = hooks;
  h.commit = r_commit_hook;
  engine_config_t cfg = { .download_workers = 1,
                          .parse_workers = 1,
                          .ordered = true,
                          .source = &source,
                          .hooks = &h };
  /* The engine calls every one of a source's calls without asking: a
   * source with one missing is refused, not called through NULL. */
  engine_source_t partial = source;
  partial.gate_done = NULL;
  cfg.source = &partial;
  CHECK(engine_new(&cfg) == NULL);
  cfg.source = &source;
  engine_t *e = engine_new(&cfg);
  CHECK(e != NULL);
  if (e == NULL)
    return;
  engine_commit_at(e, 3, 0, 0);
  const uint64_t seqs[] = { 0, 0, 1, 2, 1 };
  for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
    fitem_t *it = fitem_new("p0", 0);
    CHECK(it != NULL);
    if (it == NULL)
      break;
    it->seq = seqs[i];
    it->ticket = &token;
    engine_deliver(e, it);
  }
  CHECK_INT(atomic_load(&r_committed), 3);
  CHECK_INT(atomic_load(&r_released), 5);
  engine_delete(e);
}

int main(void)
{
  RUN(test_delivered_twice_commits_once);
  RUN(test_bfs_order_with_speculation);
  RUN(test_speculation_fills_a_wait);
  RUN(test_claimed_speculation_is_dropped);
  RUN(test_speculation_past_its_depth_is_dropped);
  RUN(test_small_budget_stays_exact);
  RUN(test_stop_leaves_nothing_behind);
  RUN(test_elastic_pool);
  RUN(test_driver);
  return TEST_EXIT();
}
