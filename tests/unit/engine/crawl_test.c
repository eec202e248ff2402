/* crawl_test.c: the crawl() API of libcrawler.so over in-memory graphs.
 *
 * The callbacks of crawl() carry no user pointer, so the graph under test
 * is a global. A page's URL is "g<G>/<i>"; its body lists its links in the
 * link format, with some text around them. The harness records, under a
 * mutex, how often each page is fetched, each page's edge_fn calls in
 * order, and which threads called which callback. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crawl.h"
#include "testhelp.h"

typedef struct graph {
  int n;
  int *deg;
  int **adj;      /* adj[i][k]: the k-th link of page i (-1: "ext") */
  bool *broken;   /* fetch_fn returns NULL */
  int *fetches;   /* per page */
  int *nedges;    /* edge_fn calls from page i so far */
  bool *edge_bad; /* an edge from i came out of order or wrong */
  long sleep_ns;  /* per fetch */
} graph_t;

static graph_t *graphs[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t main_thread;
static bool callback_on_main;
enum { MAXT = 256 };
static pthread_t fetch_threads[MAXT], edge_threads[MAXT];
static int nfetch_threads, nedge_threads;
static atomic_long discovered, fetch_started;
static long max_outstanding;
static char *first_seen; /* per page of graph 0: seen by edge_fn */

static graph_t *graph_new(int n)
{
  graph_t *g = calloc(1, sizeof(*g));
  g->n = n;
  g->deg = calloc(n, sizeof(int));
  g->adj = calloc(n, sizeof(int *));
  g->broken = calloc(n, sizeof(bool));
  g->fetches = calloc(n, sizeof(int));
  g->nedges = calloc(n, sizeof(int));
  g->edge_bad = calloc(n, sizeof(bool));
  return g;
}

static void graph_link(graph_t *g, int from, int to)
{
  g->adj[from] = realloc(g->adj[from], (g->deg[from] + 1) * sizeof(int));
  g->adj[from][g->deg[from]++] = to;
}

static void graph_delete(graph_t *g)
{
  for (int i = 0; i < g->n; i++)
    free(g->adj[i]);
  free(g->deg);
  free(g->adj);
  free(g->broken);
  free(g->fetches);
  free(g->nedges);
  free(g->edge_bad);
  free(g);
}

/* parse_url: "g<G>/<i>" -> graph and page; false for anything else. */
static bool parse_url(const char *url, graph_t **g, int *i)
{
  int gi, pi;
  char tail;
  if (sscanf(url, "g%d/%d%c", &gi, &pi, &tail) != 2 || gi < 0 || gi > 1 ||
      graphs[gi] == NULL || pi < 0 || pi >= graphs[gi]->n)
    return false;
  *g = graphs[gi];
  *i = pi;
  return true;
}

static void note_thread(pthread_t *v, int *n)
{
  pthread_t self = pthread_self();
  if (pthread_equal(self, main_thread))
    callback_on_main = true;
  for (int k = 0; k < *n; k++)
    if (pthread_equal(v[k], self))
      return;
  if (*n < MAXT)
    v[(*n)++] = self;
}

static char *fetch(char *link)
{
  graph_t *g;
  int i;
  atomic_fetch_add(&fetch_started, 1);
  pthread_mutex_lock(&mu);
  note_thread(fetch_threads, &nfetch_threads);
  bool ok = parse_url(link, &g, &i);
  if (ok)
    g->fetches[i]++;
  pthread_mutex_unlock(&mu);
  if (!ok || g->broken[i])
    return NULL;
  if (g->sleep_ns) {
    struct timespec ts = { 0, g->sleep_ns };
    nanosleep(&ts, NULL);
  }
  int gi = g == graphs[0] ? 0 : 1;
  size_t cap = 64 + (size_t)g->deg[i] * 32, len = 0;
  char *body = malloc(cap);
  len += (size_t)sprintf(body, "page %d of graph %d\n", i, gi);
  for (int k = 0; k < g->deg[i]; k++) {
    int to = g->adj[i][k];
    if (to < 0)
      len += (size_t)sprintf(body + len, "\tlink:ext/%d words", k);
    else
      len += (size_t)sprintf(body + len, " link:g%d/%d\n", gi, to);
  }
  return body;
}

static void edge(char *from, char *to)
{
  graph_t *g, *g2;
  int i, j;
  pthread_mutex_lock(&mu);
  note_thread(edge_threads, &nedge_threads);
  if (!parse_url(from, &g, &i)) {
    pthread_mutex_unlock(&mu);
    return;
  }
  int k = g->nedges[i]++;
  if (k >= g->deg[i]) {
    g->edge_bad[i] = true;
  } else if (g->adj[i][k] < 0) {
    char want[32];
    snprintf(want, sizeof(want), "ext/%d", k);
    if (strcmp(to, want) != 0)
      g->edge_bad[i] = true;
  } else if (!parse_url(to, &g2, &j) || g2 != g || j != g->adj[i][k]) {
    g->edge_bad[i] = true;
  } else if (g == graphs[0] && first_seen && !first_seen[j]) {
    first_seen[j] = 1;
    long out = atomic_fetch_add(&discovered, 1) + 1 -
               atomic_load(&fetch_started);
    if (out > max_outstanding)
      max_outstanding = out;
  }
  pthread_mutex_unlock(&mu);
}

static void reset(void)
{
  nfetch_threads = nedge_threads = 0;
  callback_on_main = false;
  atomic_store(&discovered, 0);
  atomic_store(&fetch_started, 1); /* the start page is never an edge */
  max_outstanding = 0;
}

/* reachable: pages reachable from START through fetchable pages. */
static bool *reachable(const graph_t *g, int start)
{
  bool *r = calloc(g->n, sizeof(bool));
  int *stack = malloc(sizeof(int) * (g->n + 1)), sp = 0;
  r[start] = true;
  stack[sp++] = start;
  while (sp > 0) {
    int i = stack[--sp];
    if (g->broken[i])
      continue;
    for (int k = 0; k < g->deg[i]; k++) {
      int j = g->adj[i][k];
      if (j >= 0 && !r[j]) {
        r[j] = true;
        stack[sp++] = j;
      }
    }
  }
  free(stack);
  return r;
}

/* verify: every reachable page fetched exactly once, no other page
 * fetched, every fetched page's edges reported in order, completely. */
static int verify(const graph_t *g, int start)
{
  bool *r = reachable(g, start);
  int bad = 0;
  for (int i = 0; i < g->n; i++) {
    int want_fetch = r[i] ? 1 : 0;
    int want_edges = r[i] && !g->broken[i] ? g->deg[i] : 0;
    if (g->fetches[i] != want_fetch || g->nedges[i] != want_edges ||
        g->edge_bad[i]) {
      if (bad++ < 5)
        fprintf(stderr,
                "page %d: fetched %d (want %d), edges %d (want "
                "%d)%s\n",
                i, g->fetches[i], want_fetch, g->nedges[i], want_edges,
                g->edge_bad[i] ? ", wrong edge" : "");
    }
  }
  free(r);
  return bad;
}

static int run_graph(graph_t *g, int start, int dw, int pw, int q)
{
  char url[32];
  snprintf(url, sizeof(url), "g0/%d", start);
  graphs[0] = g;
  reset();
  int rc = crawl(url, dw, pw, q, fetch, edge);
  if (rc != 0) {
    fprintf(stderr, "crawl returned %d\n", rc);
    return 1;
  }
  return verify(g, start);
}

static graph_t *random_graph(int n, int avg_deg, unsigned seed)
{
  graph_t *g = graph_new(n);
  srand(seed);
  for (int i = 0; i < n; i++) {
    int d = rand() % (2 * avg_deg + 1);
    for (int k = 0; k < d; k++)
      graph_link(g, i, rand() % 50 == 0 ? -1 : rand() % n);
    if (rand() % 40 == 0)
      g->broken[i] = true;
  }
  /* A spine so that most of the graph is reachable. */
  for (int i = 0; i + 1 < n; i += 1 + rand() % 3)
    graph_link(g, i, i + 1);
  return g;
}

/* ---- tests ---- */

/* Every status crawl.h defines has a description of its own: the one
 * status type is named by one crawl_strerror. */
static void test_strerror_names_every_status(void)
{
  const char *unknown = crawl_strerror(1);
  for (int s = CRAWL_EDONE; s <= CRAWL_OK; s++) {
    CHECK(strcmp(crawl_strerror(s), unknown) != 0);
    for (int t = CRAWL_EDONE; t < s; t++)
      CHECK(strcmp(crawl_strerror(s), crawl_strerror(t)) != 0);
  }
  CHECK(strcmp(crawl_strerror(CRAWL_EDONE - 1), unknown) == 0);
}

static void test_invalid_arguments(void)
{
  CHECK_INT(crawl(NULL, 1, 1, 1, fetch, edge), -1);
  CHECK_INT(crawl("g0/0", 0, 1, 1, fetch, edge), -1);
  CHECK_INT(crawl("g0/0", 1, 0, 1, fetch, edge), -1);
  CHECK_INT(crawl("g0/0", 1, 1, 0, fetch, edge), -1);
  CHECK_INT(crawl("g0/0", 1, 1, 1, NULL, edge), -1);
  CHECK_INT(crawl("g0/0", 1, 1, 1, fetch, NULL), -1);
  CHECK_INT(crawl("g0/0", -5, 1, 1, fetch, edge), -1);
}

static void test_cycle_self_duplicates(void)
{
  /* 0 -> 1 -> 2 -> 0, with self links and duplicates everywhere. */
  graph_t *g = graph_new(4);
  graph_link(g, 0, 1);
  graph_link(g, 0, 0);
  graph_link(g, 0, 1);
  graph_link(g, 0, -1);
  graph_link(g, 1, 2);
  graph_link(g, 1, 1);
  graph_link(g, 2, 0);
  graph_link(g, 2, 2);
  graph_link(g, 2, 1);
  graph_link(g, 2, 0);
  CHECK_INT(run_graph(g, 0, 3, 2, 2), 0);
  CHECK(g->fetches[3] == 0);
  graph_delete(g);
}

static void test_broken_links(void)
{
  graph_t *g = graph_new(5);
  graph_link(g, 0, 1);
  graph_link(g, 0, 2);
  graph_link(g, 1, 3);
  graph_link(g, 2, 4);
  g->broken[1] = true; /* so 3 is unreachable */
  CHECK_INT(run_graph(g, 0, 2, 2, 4), 0);
  CHECK_INT(g->fetches[3], 0);
  CHECK_INT(g->fetches[4], 1);
  graph_delete(g);
}

static void test_missing_start_page(void)
{
  graph_t *g = graph_new(2);
  graph_link(g, 0, 1);
  g->broken[0] = true;
  CHECK_INT(run_graph(g, 0, 4, 4, 1), 0);
  CHECK_INT(g->fetches[0], 1);
  CHECK_INT(g->nedges[0], 0);
  CHECK_INT(g->fetches[1], 0);
  /* A URL the fetcher knows nothing of is just a broken start page. */
  reset();
  CHECK_INT(crawl("nowhere", 2, 2, 2, fetch, edge), 0);
  graph_delete(g);
}

static void test_star(void)
{
  enum { N = 5001 };
  graph_t *g = graph_new(N);
  for (int i = 1; i < N; i++) {
    graph_link(g, 0, i);
    graph_link(g, i, 0);
    graph_link(g, i, i);
  }
  first_seen = calloc(N, 1);
  CHECK_INT(run_graph(g, 0, 4, 2, 8), 0);
  /* The links queue is bounded: what parsers found and downloaders have
   * not started stays within queue_size plus the links in hand (one per
   * parse and download worker). */
  CHECK(max_outstanding <= 8 + 4 + 2);
  free(first_seen);
  first_seen = NULL;
  graph_delete(g);
}

static void test_long_chain(void)
{
  enum { N = 3000 };
  graph_t *g = graph_new(N);
  for (int i = 0; i + 1 < N; i++) {
    graph_link(g, i, i + 1);
    graph_link(g, i + 1, i);
  }
  CHECK_INT(run_graph(g, 0, 8, 8, 1), 0);
  graph_delete(g);
}

static void test_random_graph_worker_counts(void)
{
  static const int cfg[][3] = {
    { 1, 1, 1 },  { 1, 1, 1000 }, { 2, 3, 16 },  { 8, 8, 64 },
    { 64, 1, 1 }, { 1, 64, 1 },   { 64, 64, 1 }, { 64, 64, 100000 },
  };
  graph_t *g = random_graph(10000, 5, 7);
  for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
    memset(g->fetches, 0, sizeof(int) * g->n);
    memset(g->nedges, 0, sizeof(int) * g->n);
    memset(g->edge_bad, 0, sizeof(bool) * g->n);
    int bad = run_graph(g, 0, cfg[c][0], cfg[c][1], cfg[c][2]);
    if (bad)
      fprintf(stderr, "workers %d/%d queue %d: %d bad pages\n", cfg[c][0],
              cfg[c][1], cfg[c][2], bad);
    CHECK_INT(bad, 0);
    /* Only pool threads call back, never more than the pools hold, and
     * no thread is in both pools. */
    CHECK(!callback_on_main);
    CHECK(nfetch_threads >= 1 && nfetch_threads <= cfg[c][0]);
    CHECK(nedge_threads >= 1 && nedge_threads <= cfg[c][1]);
    for (int a = 0; a < nfetch_threads; a++)
      for (int b = 0; b < nedge_threads; b++)
        CHECK(!pthread_equal(fetch_threads[a], edge_threads[b]));
  }
  graph_delete(g);
}

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_no_busy_waiting(void)
{
  /* A chain of slow pages crawled by 32+32 threads: 31 of each pool have
   * nothing to do for about a second. Waiting threads must sleep: the
   * bound, 0.3 s of CPU, is generous (busy waiting would burn about 60 s
   * of CPU here) and leaves room for slow sanitizer builds. */
  enum { N = 10 };
  graph_t *g = graph_new(N);
  for (int i = 0; i + 1 < N; i++)
    graph_link(g, i, i + 1);
  g->sleep_ns = 100 * 1000 * 1000;
  /* Under valgrind (tests/integration/valgrind.sh sets CRAWL_TEST_SLOW)
   * starting 64 threads alone costs about a second of CPU. */
  double bound = getenv("CRAWL_TEST_SLOW") ? 5.0 : 0.3;
  double c0 = cpu_seconds();
  CHECK_INT(run_graph(g, 0, 32, 32, 4), 0);
  double used = cpu_seconds() - c0;
  if (used >= bound)
    fprintf(stderr, "an idle crawl used %.3f s of CPU\n", used);
  CHECK(used < bound);
  graph_delete(g);
}

static void *crawl_thread(void *arg)
{
  long gi = (long)arg;
  char url[16];
  snprintf(url, sizeof(url), "g%ld/0", gi);
  return (void *)(long)crawl(url, 3, 2, 5, fetch, edge);
}

static void test_two_crawls_at_once(void)
{
  graphs[0] = random_graph(3000, 4, 11);
  graphs[1] = random_graph(3000, 4, 12);
  reset();
  pthread_t t[2];
  void *rc[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, crawl_thread, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], &rc[i]);
  CHECK(rc[0] == NULL && rc[1] == NULL);
  CHECK_INT(verify(graphs[0], 0), 0);
  CHECK_INT(verify(graphs[1], 0), 0);
  graph_delete(graphs[0]);
  graph_delete(graphs[1]);
  graphs[0] = graphs[1] = NULL;
}

static void test_many_crawls_no_hang(void)
{
  /* Hundreds of short crawls with assorted pool sizes: a lost wake-up or
   * a termination race shows up as a hang (the alarm kills the test). */
  graph_t *g = random_graph(60, 3, 3);
  alarm(300);
  int bad = 0;
  for (int r = 0; r < 300; r++) {
    memset(g->fetches, 0, sizeof(int) * g->n);
    memset(g->nedges, 0, sizeof(int) * g->n);
    memset(g->edge_bad, 0, sizeof(bool) * g->n);
    bad += run_graph(g, 0, 1 + r % 7, 1 + r % 5, 1 + r % 3) != 0;
  }
  alarm(0);
  CHECK_INT(bad, 0);
  graph_delete(g);
}

/* ---- the course's small-buffer scenarios ----
 *
 * The course spec's queue_size is "the size of the links queue (the
 * downloaders pop off this queue to get more work)": a link a downloader
 * has popped has left the queue. Its tests small_buffer and
 * small_buffer_2: a start page of many links, and every other fetch held
 * until the test lets it go. While only the start page is done, the
 * parser reports a link, queues it, and goes on while there is room in
 * the queue; each idle downloader pops one and holds it. So with D
 * downloaders and a queue of 1, exactly D links are out with downloaders,
 * 1 waits in the queue, and the parser holds the next one: D + 2 edges
 * reported, no more. (small_buffer allows at most 3 with D = 1;
 * small_buffer_2 wants at least 5 with D = 5.) Holding the fetches on a
 * condition variable, not sleeping, makes the count exact. */
enum { SB_LINKS = 12 };

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool open;                 /* held fetches may return */
  int held;                  /* fetches being held now */
  int edges;                 /* edge_fn calls */
  int fetches[SB_LINKS + 1]; /* [0]: the start page */
} sb = {
  PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0, { 0 }
};

static char *sb_fetch(char *link)
{
  int i;
  if (strcmp(link, "sb/start") == 0) {
    char *body = malloc(SB_LINKS * 16 + 1), *p = body;
    for (i = 1; i <= SB_LINKS; i++)
      p += sprintf(p, "link:sb/%d ", i);
    pthread_mutex_lock(&sb.mu);
    sb.fetches[0]++;
    pthread_mutex_unlock(&sb.mu);
    return body;
  }
  if (sscanf(link, "sb/%d", &i) != 1 || i < 1 || i > SB_LINKS)
    return NULL;
  pthread_mutex_lock(&sb.mu);
  sb.fetches[i]++;
  sb.held++;
  pthread_cond_broadcast(&sb.cv);
  while (!sb.open)
    pthread_cond_wait(&sb.cv, &sb.mu);
  sb.held--;
  pthread_mutex_unlock(&sb.mu);
  return strdup("a leaf");
}

static void sb_edge(char *from, char *to)
{
  (void)from;
  (void)to;
  pthread_mutex_lock(&sb.mu);
  sb.edges++;
  pthread_cond_broadcast(&sb.cv);
  pthread_mutex_unlock(&sb.mu);
}

struct sb_run {
  int dw;
  int rc;
};

static void *sb_thread(void *arg)
{
  struct sb_run *r = arg;
  r->rc = crawl("sb/start", r->dw, 1, 1, sb_fetch, sb_edge);
  return NULL;
}

/* sb_scenario: crawl with DW downloaders, one parser and a queue of 1;
 * wait (10 s at most: generous for sanitizer and valgrind builds) until
 * DW fetches are held and DW + 2 edges reported, then 0.3 s more for any
 * edge beyond the bound to show, and check the counts; then let the
 * fetches go and check the crawl completes, each page fetched once. */
static void sb_scenario(int dw)
{
  struct sb_run r = { dw, -100 };
  pthread_mutex_lock(&sb.mu);
  sb.open = false;
  sb.held = sb.edges = 0;
  memset(sb.fetches, 0, sizeof(sb.fetches));
  pthread_mutex_unlock(&sb.mu);
  pthread_t t;
  CHECK_INT(pthread_create(&t, NULL, sb_thread, &r), 0);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  pthread_mutex_lock(&sb.mu);
  while (!(sb.held == dw && sb.edges >= dw + 2))
    if (pthread_cond_timedwait(&sb.cv, &sb.mu, &until) != 0)
      break;
  pthread_mutex_unlock(&sb.mu);
  struct timespec settle = { 0, 300 * 1000 * 1000 };
  nanosleep(&settle, NULL);
  pthread_mutex_lock(&sb.mu);
  if (sb.held != dw || sb.edges != dw + 2)
    fprintf(stderr,
            "%d downloaders, queue 1: %d fetches held, %d edges "
            "(want %d and %d)\n",
            dw, sb.held, sb.edges, dw, dw + 2);
  CHECK_INT(sb.held, dw);
  CHECK_INT(sb.edges, dw + 2);
  sb.open = true;
  pthread_cond_broadcast(&sb.cv);
  pthread_mutex_unlock(&sb.mu);
  pthread_join(t, NULL);
  CHECK_INT(r.rc, 0);
  CHECK_INT(sb.edges, SB_LINKS);
  for (int i = 0; i <= SB_LINKS; i++)
    CHECK_INT(sb.fetches[i], 1);
}

static void test_small_buffer(void)
{
  sb_scenario(1);
}

static void test_small_buffer_2(void)
{
  sb_scenario(5);
}

int main(void)
{
  main_thread = pthread_self();
  RUN(test_strerror_names_every_status);
  RUN(test_invalid_arguments);
  RUN(test_cycle_self_duplicates);
  RUN(test_broken_links);
  RUN(test_missing_start_page);
  RUN(test_star);
  RUN(test_long_chain);
  RUN(test_random_graph_worker_counts);
  RUN(test_no_busy_waiting);
  RUN(test_two_crawls_at_once);
  RUN(test_many_crawls_no_hang);
  RUN(test_small_buffer);
  RUN(test_small_buffer_2);
  return TEST_EXIT();
}
