/* engine_bench.c: crawl() over an in-memory graph; edges per second.
 *
 * usage: engine_bench [PAGES [LINKS [DW PW [QUEUE]]]]
 * Defaults: 100,000 pages, 1,000,000 link occurrences, worker pairs 1/1,
 * 4/2 and 16/2. Every page is reachable (page i links i+1), the rest of the
 * links go to random pages. Prints one line per configuration: wall time,
 * edges/s, pages fetched, peak RSS. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "crawl.h"

static int npages;
static int *deg, **adj;
static atomic_long edges, fetches;

static char *fetch(char *link)
{
  int i = atoi(link + 1);  /* "p<i>" */
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
         "%ld pages, peak RSS %ld MB%s\n", dw, pw, q, t,
         atomic_load(&edges), atomic_load(&edges) / t,
         atomic_load(&fetches), ru.ru_maxrss / 1024,
         rc == 0 ? "" : " (crawl failed)");
  fflush(stdout);
}

int main(int argc, char **argv)
{
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
  if (argc > 4) {
    run(atoi(argv[3]), atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 1000);
  } else {
    run(1, 1, 1000);
    run(4, 2, 1000);
    run(16, 2, 1000);
  }
  return 0;
}
