/* engine_bench.c: crawl() over an in-memory graph; edges per second.
 *
 * usage: engine_bench [PAGES [LINKS [DW PW [QUEUE]]]]
 *        engine_bench -o [PAGES [LINKS [DW PW [HOSTS [RATE]]]]]
 * Defaults: 100,000 pages, 1,000,000 link occurrences, worker pairs 1/1,
 * 4/2 and 16/2. Every page is reachable (page i links i+1), the rest of the
 * links go to random pages. Prints one line per configuration: wall time,
 * edges/s, pages fetched, peak RSS.
 *
 * -o drives the engine (engine.h) as the crawler program does, which
 * crawl() does not: ordered mode, the program's window, fetched limit and
 * speculation bounds, page i on host i % HOSTS (default 64), per-host
 * RATE requests/s with burst 1 (default 0: no limit). So it also times
 * the host map, the ready and waiting heaps, the reorder heap and the
 * speculation map; worker pairs 4/2 and 16/2 by default. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "crawl.h"
#include "engine.h"

static int npages;
static int *deg, **adj;
static atomic_long edges, fetches, speculated, spec_fetches;

static char *fetch(char *link)
{
  int i = atoi(link + 1); /* "p<i>" */
  atomic_fetch_add(&fetches, 1);
  if (i < 0 || i >= npages)
    return NULL;
  char *body = malloc(32 + (size_t)deg[i] * 16);
  size_t len = (size_t)sprintf(body, "page %d", i);
  for (int k = 0; k < deg[i]; k++)
    len += (size_t)sprintf(body + len, " link:p%d", adj[i][k]);
  return body;
}

static void edge(char *from, char *to)
{
  (void)from;
  (void)to;
  atomic_fetch_add_explicit(&edges, 1, memory_order_relaxed);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run(int dw, int pw, int q)
{
  atomic_store(&edges, 0);
  atomic_store(&fetches, 0);
  double t0 = now();
  int rc = crawl("p0", dw, pw, q, fetch, edge);
  double t = now() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("workers %2d/%d queue %6d: %.3f s, %ld edges, %.0f edges/s, "
         "%ld pages, peak RSS %ld MB%s\n",
         dw, pw, q, t, atomic_load(&edges), atomic_load(&edges) / t,
         atomic_load(&fetches), ru.ru_maxrss / 1024,
         rc == 0 ? "" : " (crawl failed)");
  fflush(stdout);
}

/* ---- -o: the engine in ordered mode ---- */

static int nhosts = 64;
static char scanned; /* it->data once the links were speculated */

static void names(int j, char *url, char *host)
{
  snprintf(url, 16, "p%d", j);
  snprintf(host, 16, "h%d", j % nhosts);
}

static engine_fetched_t o_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)ws;
  (void)e;
  atomic_fetch_add(&fetches, 1);
  if (it->flags & FITEM_SPEC)
    atomic_fetch_add(&spec_fetches, 1);
  return ENGINE_PARSE;
}

/* o_parse: speculate the page's links once, as the program's parse does
 * at the first call (speculative or not). */
static void o_parse(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  if (it->data == &scanned)
    return;
  it->data = &scanned;
  int i = atoi(it->url + 1);
  for (int k = 0; k < deg[i]; k++) {
    char u[16], h[16];
    names(adj[i][k], u, h);
    if (engine_speculate(e, u, it->depth + 1, h) == 1)
      atomic_fetch_add_explicit(&speculated, 1, memory_order_relaxed);
  }
}

static void o_commit(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  int i = atoi(it->url + 1);
  for (int k = 0; k < deg[i]; k++) {
    char u[16], h[16];
    names(adj[i][k], u, h);
    atomic_fetch_add_explicit(&edges, 1, memory_order_relaxed);
    if (engine_add(e, u, it->depth + 1, h) == -2)
      engine_fail(e, CRAWL_ENOMEM);
  }
}

static const engine_hooks_t o_hooks = {
  .fetch = o_fetch,
  .parse = o_parse,
  .commit = o_commit,
};

static void run_ordered(int dw, int pw, double rate)
{
  atomic_store(&edges, 0);
  atomic_store(&fetches, 0);
  atomic_store(&speculated, 0);
  atomic_store(&spec_fetches, 0);
  /* The crawler program's settings (webcrawl.c). */
  engine_config_t cfg = {
    .download_workers = dw,
    .parse_workers = pw,
    .fetched_limit = (size_t)(4 * pw + dw),
    .ordered = true,
    .window = rate > 0 ? 0 : (size_t)(1024 + 64 * dw),
    .speculate = 4096,
    .speculate_out = 256,
    .rate = rate,
    .burst = 1,
    .hooks = &o_hooks,
  };
  double t0 = now();
  engine_t *e = engine_new(&cfg);
  char u[16], h[16];
  names(0, u, h);
  int rc = e != NULL && engine_add(e, u, 0, h) == 1 ? engine_run(e) : -1;
  engine_delete(e);
  double t = now() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("ordered %2d/%d hosts %4d rate %g: %.3f s, %ld edges, %.0f "
         "edges/s, %ld speculated, %ld fetches (%ld speculative), peak RSS "
         "%ld MB%s\n",
         dw, pw, nhosts, rate, t, atomic_load(&edges), atomic_load(&edges) / t,
         atomic_load(&speculated), atomic_load(&fetches),
         atomic_load(&spec_fetches), ru.ru_maxrss / 1024,
         rc == 0 ? "" : " (crawl failed)");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  bool ordered = argc > 1 && strcmp(argv[1], "-o") == 0;
  if (ordered) {
    argv++;
    argc--;
  }
  npages = argc > 1 ? atoi(argv[1]) : 100000;
  long nlinks = argc > 2 ? atol(argv[2]) : 1000000;
  deg = calloc(npages, sizeof(int));
  adj = calloc(npages, sizeof(int *));
  srand(1);
  int per = (int)(nlinks / npages);
  for (int i = 0; i < npages; i++) {
    deg[i] = per;
    adj[i] = malloc(sizeof(int) * per);
    adj[i][0] = (i + 1) % npages;
    for (int k = 1; k < per; k++)
      adj[i][k] = rand() % npages;
  }
  if (ordered) {
    if (argc > 5)
      nhosts = atoi(argv[5]);
    double rate = argc > 6 ? atof(argv[6]) : 0;
    if (argc > 4) {
      run_ordered(atoi(argv[3]), atoi(argv[4]), rate);
    } else {
      run_ordered(4, 2, rate);
      run_ordered(16, 2, rate);
    }
  } else if (argc > 4) {
    run(atoi(argv[3]), atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 1000);
  } else {
    run(1, 1, 1000);
    run(4, 2, 1000);
    run(16, 2, 1000);
  }
  return 0;
}
