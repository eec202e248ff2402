/* hosts_test.c: unit tests for web/hosts: the robots.txt gate over a
 * real frontier (answers made up, no HTTP) and what it tells its cache
 * of answers, the per-host page limit, the back-off, and the table under
 * concurrent callers. */
#include "clock.h"
#include "hosts.h"

#include "../../testhelp.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A cache of answers (hosts.h) that notes what the gate tells it, and
 * answers the next find with ANSWER if HAS. */
static struct memo {
  int finds, keeps;
  char key[64], url[64]; /* of the last call */
  bool last;             /* of the last keep */
  double again;
  bool has;
  fetch_result_t answer; /* owned until handed out */
} memo;

static bool memo_find(void *ctx, const char *hostkey, const char *url,
                      fetch_result_t *r)
{
  (void)ctx;
  memo.finds++;
  snprintf(memo.key, sizeof(memo.key), "%s", hostkey);
  snprintf(memo.url, sizeof(memo.url), "%s", url);
  if (!memo.has)
    return false;
  *r = memo.answer;
  memo.has = false;
  return true;
}

static void memo_keep(void *ctx, const char *hostkey, const char *url,
                      const fetch_result_t *r, bool last, double again)
{
  (void)ctx, (void)r;
  memo.keeps++;
  snprintf(memo.key, sizeof(memo.key), "%s", hostkey);
  snprintf(memo.url, sizeof(memo.url), "%s", url);
  memo.last = last;
  memo.again = again;
}

static const hosts_cache_ops_t memo_ops = { memo_find, memo_keep };
static const hosts_cache_t memo_cache = { &memo_ops, NULL };

/* A gated frontier and a table; the gate items popped, to free. */
struct fix {
  frontier_t *f;
  hosts_t *h;
  fitem_t *gates[8];
  int ngates;
};

static struct fix fix_new(int retries)
{
  frontier_config_t cfg = { .rate = 0, .burst = 1, .gate = true };
  memo = (struct memo){ .again = -1 };
  struct fix x = { .f = frontier_new(&cfg),
                   .h = hosts_new("TestBot/1.0", retries, 0, true,
                                  &memo_cache) };
  CHECK(x.f != NULL && x.h != NULL);
  return x;
}

static void fix_delete(struct fix *x)
{
  for (int i = 0; i < x->ngates; i++)
    fitem_delete(x->gates[i]);
  hosts_delete(x->h);
  frontier_delete(x->f);
}

/* pop_gate: pop the next item, which must be a gate item. */
static fitem_t *pop_gate(struct fix *x)
{
  fitem_t *g = frontier_pop(x->f);
  CHECK(g != NULL && (g->flags & FITEM_GATE));
  if (g != NULL && x->ngates < 8)
    x->gates[x->ngates++] = g;
  return g;
}

/* gate: queue a page of host KEY and pop the host's gate item. */
static fitem_t *gate(struct fix *x, const char *key)
{
  fitem_t *it = fitem_new("http://h/x", 0);
  CHECK_INT(frontier_push(x->f, it, key), 0);
  return pop_gate(x);
}

/* answer: a response as fetcher_get_robots would give it (owned): a
 * network failure is a transient one (a timeout), as are 5xx and 429. */
static fetch_result_t answer(fetch_outcome_t outcome, long status,
                             const char *body, const char *location)
{
  fetch_result_t r = {
    .outcome = outcome,
    .status = status,
    .retry_after = -1,
    .retryable = outcome == FETCH_NET_ERROR ||
                 (outcome == FETCH_HTTP_ERROR &&
                  (status >= 500 || status == 429)),
    .curl_code = outcome == FETCH_NET_ERROR ? 28 : 0, /* a timeout */
  };
  if (body != NULL) {
    r.body = strdup(body);
    r.len = strlen(body);
  }
  if (location != NULL)
    r.location = strdup(location);
  return r;
}

/* step: one gate round: begin must ask for WANT; end gets R. Returns
 * the wait before the next try the cache was told (0 for none), or -1. */
static double step(struct fix *x, fitem_t *g, const char *want,
                   fetch_result_t r)
{
  char *url = NULL;
  CHECK(hosts_gate_begin(x->h, x->f, g, true, &url));
  CHECK_STR(url, want);
  if (url == NULL) {
    fetch_result_free(&r);
    return -1;
  }
  memo.again = -1;
  hosts_gate_end(x->h, x->f, g, url, &r);
  return memo.again;
}

/* opened: the host's page comes out now: its gate is done. */
static void opened(struct fix *x)
{
  fitem_t *it = frontier_pop(x->f);
  CHECK(it != NULL && !(it->flags & FITEM_GATE));
  fitem_delete(it);
}

/* verdict: host KEY's robots.txt (at ROBOTS) answers R, once; then what
 * hosts_forbids says of PATH on that host. */
static const char *verdict(struct fix *x, const char *key, const char *robots,
                           fetch_result_t r, const char *path)
{
  fitem_t *g = gate(x, key);
  if (g == NULL) {
    fetch_result_free(&r);
    return "no gate";
  }
  step(x, g, robots, r);
  opened(x);
  return hosts_forbids(x->h, g->host, path);
}

static void test_rules(void)
{
  struct fix x = fix_new(2);
  const char *txt = "User-agent: testbot\nDisallow: /private\n"
                    "User-agent: *\nDisallow: /\n";
  CHECK_STR(verdict(&x, "http://a:80", "http://a/robots.txt",
                    answer(FETCH_OK, 200, txt, NULL), "/private/x"),
            "disallowed by robots.txt");
  CHECK_STR(hosts_forbids(x.h, x.gates[0]->host, "/public"), NULL);
  fix_delete(&x);
}

/* Up to 5 redirects are followed, each a gate item of its own; the 6th
 * is a robots.txt without end: no restrictions. */
static void test_redirects(void)
{
  struct fix x = fix_new(2);
  fitem_t *g = gate(&x, "http://a:80");
  step(&x, g, "http://a/robots.txt", answer(FETCH_REDIRECT, 301, NULL, "/r1"));
  for (int i = 1; i <= 5; i++) {
    char want[64], to[16];
    snprintf(want, sizeof(want), "http://a/r%d", i);
    snprintf(to, sizeof(to), "/r%d", i + 1);
    step(&x, pop_gate(&x), want, answer(FETCH_REDIRECT, 301, NULL, to));
  }
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/anything"), NULL);
  fix_delete(&x);
}

/* A redirect to another host's robots.txt is a request to that host: it
 * waits for that host's token (not the gated host's, which the gate item
 * took and which is given back) and takes it. The rules found are the
 * gated host's. */
static void test_redirect_other_host(void)
{
  frontier_config_t cfg = { .rate = 4, .burst = 1, .gate = true };
  struct fix x = { .f = frontier_new(&cfg),
                   .h = hosts_new("TestBot/1.0", 2, 0, true, NULL) };
  CHECK(x.f != NULL && x.h != NULL);
  fitem_t *g = gate(&x, "http://a:80");
  step(&x, g, "http://a/robots.txt",
       answer(FETCH_REDIRECT, 301, NULL, "http://b/robots.txt"));
  fitem_t *g2 = pop_gate(&x);
  /* Host b's token goes elsewhere just now: the hop must wait 0.25 s. */
  double when;
  while (frontier_host_take(x.f, "http://b:80", &when))
    continue;
  double t0 = clock_now();
  char *url = NULL;
  if (hosts_gate_begin(x.h, x.f, g2, true, &url)) {
    CHECK(!"the hop to b waits for b's token");
    fetch_result_t r = answer(FETCH_HTTP_ERROR, 404, NULL, NULL);
    hosts_gate_end(x.h, x.f, g2, url, &r); /* settle it: no hang */
    opened(&x);
    fix_delete(&x);
    return;
  }
  CHECK(when > t0 && when <= t0 + 0.26);
  fitem_t *g3 = pop_gate(&x);
  CHECK(clock_now() - t0 >= 0.2);
  step(&x, g3, "http://b/robots.txt",
       answer(FETCH_OK, 200, "User-agent: *\nDisallow: /x\n", NULL));
  /* The hop took b's token; a's was given back. */
  CHECK(!frontier_host_take(x.f, "http://b:80", &when));
  CHECK(frontier_host_take(x.f, "http://a:80", &when));
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/x"), "disallowed by robots.txt");
  fix_delete(&x);
}

/* 4xx: everything allowed, but 429; 429, 5xx and network failures, no
 * retries left: nothing. */
static void test_unavailable_and_unreachable(void)
{
  struct fix x = fix_new(0);
  CHECK_STR(verdict(&x, "http://a:80", "http://a/robots.txt",
                    answer(FETCH_HTTP_ERROR, 404, NULL, NULL), "/x"),
            NULL);
  CHECK_STR(verdict(&x, "http://d:80", "http://d/robots.txt",
                    answer(FETCH_HTTP_ERROR, 429, NULL, NULL), "/x"),
            "robots.txt unreachable");
  CHECK_STR(verdict(&x, "http://b:80", "http://b/robots.txt",
                    answer(FETCH_HTTP_ERROR, 503, NULL, NULL), "/x"),
            "robots.txt unreachable");
  CHECK_STR(verdict(&x, "http://c:80", "http://c/robots.txt",
                    answer(FETCH_NET_ERROR, 0, NULL, NULL), "/x"),
            "host unreachable");
  fix_delete(&x);
}

/* What no retry mends (a name that does not exist, an untrusted
 * certificate: final) closes the host at once, retries left or not, and
 * says it is the host's failure, not its robots.txt's. */
static void test_final_network_failure(void)
{
  struct fix x = fix_new(2);
  fetch_result_t r = answer(FETCH_NET_ERROR, 0, NULL, NULL);
  r.retryable = false;
  r.final = true;
  r.curl_code = 6; /* CURLE_COULDNT_RESOLVE_HOST */
  snprintf(r.error, sizeof(r.error), "cannot resolve host a.nx.test");
  fitem_t *g = gate(&x, "http://a.nx.test:80");
  char *url = NULL;
  CHECK(g != NULL && hosts_gate_begin(x.h, x.f, g, true, &url));
  CHECK_STR(url, "http://a.nx.test/robots.txt");
  if (url != NULL)
    hosts_gate_end(x.h, x.f, g, url, &r);
  else
    fetch_result_free(&r);
  CHECK(memo.keeps == 1 && memo.last && memo.again == 0); /* final */
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/x"),
            "host unreachable: cannot resolve host a.nx.test");
  fix_delete(&x);
  /* A TLS handshake cut short (libcurl's code 35) is no page's to retry,
   * but is not final: the gate asks again. */
  x = fix_new(1);
  r = answer(FETCH_NET_ERROR, 0, NULL, NULL);
  r.retryable = false;
  r.curl_code = 35;
  g = gate(&x, "https://b:443");
  CHECK(step(&x, g, "https://b/robots.txt", r) > 0);
  fix_delete(&x);
}

/* The reason of the failure that closed a host is its skip reason. */
static void test_unreachable_says_why(void)
{
  struct fix x = fix_new(0);
  fetch_result_t r = answer(FETCH_NET_ERROR, 0, NULL, NULL);
  snprintf(r.error, sizeof(r.error),
           "SSL certificate problem: unable "
           "to get local issuer certificate");
  CHECK_STR(verdict(&x, "https://a:443", "https://a/robots.txt", r, "/x"),
            "host unreachable: SSL certificate problem: unable to "
            "get local issuer certificate");
  r = answer(FETCH_HTTP_ERROR, 503, NULL, NULL);
  snprintf(r.error, sizeof(r.error), "HTTP 503 Service Unavailable");
  CHECK_STR(verdict(&x, "http://b:80", "http://b/robots.txt", r, "/x"),
            "robots.txt unreachable: HTTP 503 Service Unavailable");
  fix_delete(&x);
}

/* A host replayed as unreachable (resume) is skipped for the replayed
 * reason without a request; the first reason given stands; other hosts
 * are gated as ever. */
static void test_replay_unreachable(void)
{
  struct fix x = fix_new(2);
  const char *why = "robots.txt unreachable: HTTP 500 Internal Server Error";
  CHECK_INT(hosts_replay_unreachable(x.h, "http://a:80", why), 0);
  CHECK_INT(hosts_replay_unreachable(x.h, "http://a:80", "other"), 0);
  fitem_t *g = gate(&x, "http://a:80");
  char *url = NULL;
  CHECK(g != NULL && !hosts_gate_begin(x.h, x.f, g, true, &url));
  CHECK_STR(url, NULL);
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/x"), why);
  CHECK_STR(hosts_forbids(x.h, g->host, "/robots.txt"), why);
  CHECK_STR(verdict(&x, "http://b:80", "http://b/robots.txt",
                    answer(FETCH_OK, 200, "", NULL), "/x"),
            NULL);
  fix_delete(&x);
}

/* A failure with retries left asks for the gate again after the back-off
 * (1 s for the first); the answer then decides. */
static void test_retry(void)
{
  struct fix x = fix_new(1);
  fitem_t *g = gate(&x, "http://a:80");
  double t0 = clock_now();
  /* The wait is returned too: a shared crawl keeps it for the host. */
  CHECK(step(&x, g, "http://a/robots.txt",
             answer(FETCH_HTTP_ERROR, 500, NULL, NULL)) == 1.0);
  fitem_t *again = pop_gate(&x);
  CHECK(clock_now() - t0 >= 0.9);
  CHECK(step(&x, again, "http://a/robots.txt",
             answer(FETCH_OK, 200, "User-agent: *\nDisallow: /x\n", NULL)) ==
        0);
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/x"), "disallowed by robots.txt");
  fix_delete(&x);
}

/* A 429 or 503 with Retry-After asks for the gate again after it, not
 * after the back-off (1 s for the first failure). */
static void test_retry_after(void)
{
  static const long status[] = { 429, 503 };
  for (int i = 0; i < 2; i++) {
    struct fix x = fix_new(1);
    fitem_t *g = gate(&x, "http://a:80");
    double t0 = clock_now();
    fetch_result_t r = answer(FETCH_HTTP_ERROR, status[i], NULL, NULL);
    r.retry_after = 1.5;
    CHECK(step(&x, g, "http://a/robots.txt", r) == 1.5);
    fitem_t *again = pop_gate(&x);
    CHECK(clock_now() - t0 >= 1.4);
    step(&x, again, "http://a/robots.txt",
         answer(FETCH_HTTP_ERROR, 404, NULL, NULL));
    opened(&x);
    fix_delete(&x);
  }
}

/* The cache is told each answer fetched: the last failure allowed as
 * last (a shared crawl keeps it for every worker), a failure with a try
 * left with its wait; a 404 is no failure. An answer the cache has
 * settles the gate without a request, and an unreachable one skips the
 * host at once, retries left or not: the worker that asked spent them. */
static void test_cache(void)
{
  struct fix x = fix_new(1);
  fitem_t *g = gate(&x, "http://a:80");
  CHECK(step(&x, g, "http://a/robots.txt",
             answer(FETCH_HTTP_ERROR, 503, NULL, NULL)) == 1.0);
  CHECK(memo.finds == 1 && memo.keeps == 1 && !memo.last);
  CHECK_STR(memo.key, "http://a:80");
  CHECK_STR(memo.url, "http://a/robots.txt");
  fitem_t *again = pop_gate(&x);
  CHECK(step(&x, again, "http://a/robots.txt",
             answer(FETCH_HTTP_ERROR, 503, NULL, NULL)) == 0); /* skipped */
  CHECK(memo.keeps == 2 && memo.last);
  opened(&x);
  CHECK(hosts_forbids(x.h, g->host, "/x") != NULL);
  CHECK_STR(verdict(&x, "http://c:80", "http://c/robots.txt",
                    answer(FETCH_HTTP_ERROR, 404, NULL, NULL), "/x"),
            NULL);
  CHECK(memo.keeps == 3 && !memo.last && memo.again == 0);

  memo.answer = answer(FETCH_HTTP_ERROR, 503, NULL, NULL);
  memo.has = true;
  fitem_t *g2 = gate(&x, "http://b:80");
  char *url = NULL;
  CHECK(!hosts_gate_begin(x.h, x.f, g2, true, &url));
  CHECK(url == NULL && !memo.has && memo.keeps == 3); /* not kept again */
  CHECK_STR(memo.key, "http://b:80");
  CHECK_STR(memo.url, "http://b/robots.txt");
  opened(&x); /* no second try */
  CHECK(hosts_forbids(x.h, g2->host, "/x") != NULL);
  fix_delete(&x);
}

/* Told not to ask (--max-pages reached), the gate opens the host as if
 * it had no robots.txt, asking neither the network nor the cache. */
static void test_not_asked(void)
{
  struct fix x = fix_new(1);
  fitem_t *g = gate(&x, "http://a:80");
  char *url = NULL;
  CHECK(g != NULL && !hosts_gate_begin(x.h, x.f, g, false, &url));
  CHECK(url == NULL && memo.finds == 0 && memo.keeps == 0);
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/x"), NULL);
  fix_delete(&x);
}

static void test_crawl_delay(void)
{
  struct fix x = fix_new(2);
  CHECK_STR(verdict(&x, "http://a:80", "http://a/robots.txt",
                    answer(FETCH_OK, 200, "User-agent: *\nCrawl-delay: 61\n",
                           NULL),
                    "/x"),
            "Crawl-delay above 60 s");
  CHECK_STR(verdict(&x, "http://b:80", "http://b/robots.txt",
                    answer(FETCH_OK, 200, "User-agent: *\nCrawl-delay: 0.01\n",
                           NULL),
                    "/x"),
            NULL);
  fix_delete(&x);
}

/* A gate item whose host key makes no robots.txt URL: the host is
 * skipped and opened without a request. */
static void test_no_robots_url(void)
{
  struct fix x = fix_new(2);
  fitem_t *g = gate(&x, "not a url");
  char *url = NULL;
  CHECK(!hosts_gate_begin(x.h, x.f, g, true, &url));
  CHECK(url == NULL);
  opened(&x);
  CHECK_STR(hosts_forbids(x.h, g->host, "/"), "no robots.txt URL");
  fix_delete(&x);
}

static void test_robots_off(void)
{
  hosts_t *h = hosts_new("TestBot", 2, 0, false, NULL);
  CHECK_STR(hosts_forbids(h, 0, "/"), NULL);
  CHECK_STR(hosts_forbids(h, 1000, "/x"), NULL);
  hosts_delete(h);
  hosts_delete(NULL);
}

static void test_page_limit(void)
{
  hosts_t *h = hosts_new("TestBot", 2, 2, false, NULL);
  CHECK(!hosts_full(h, 3));
  hosts_count_saved(h, 3);
  CHECK(!hosts_full(h, 3));
  hosts_count_saved(h, 3);
  CHECK(hosts_full(h, 3));
  CHECK(!hosts_full(h, 2));
  /* Never asked about, so not counted (see hosts.h). */
  hosts_count_saved(h, 5000);
  hosts_count_saved(h, 5000);
  CHECK(!hosts_full(h, 5000));
  hosts_delete(h);
  h = hosts_new("TestBot", 2, 0, false, NULL); /* no limit */
  hosts_count_saved(h, 0);
  CHECK(!hosts_full(h, 0));
  hosts_delete(h);
}

static void test_backoff(void)
{
  static const double want[] = { 1, 1, 2, 4, 8, 16, 32, 64, 64, 64 };
  for (int i = 1; i < 10; i++)
    CHECK(hosts_backoff(i) == want[i]);
}

/* Retry-After counts for a 429 or 503 only, capped at 60 s; otherwise,
 * and without one, the back-off. */
static void test_retry_delay(void)
{
  fetch_result_t r = { .outcome = FETCH_HTTP_ERROR,
                       .status = 503,
                       .retry_after = 5 };
  CHECK(hosts_overloaded(&r));
  CHECK(hosts_retry_delay(&r, 3) == 5);
  r.retry_after = 0;
  CHECK(hosts_retry_delay(&r, 3) == 0);
  r.retry_after = 3600;
  CHECK(hosts_retry_delay(&r, 1) == 60);
  r.status = 429;
  r.retry_after = -1;
  CHECK(hosts_overloaded(&r));
  CHECK(hosts_retry_delay(&r, 3) == 4);
  r.status = 500;
  r.retry_after = 5;
  CHECK(!hosts_overloaded(&r));
  CHECK(hosts_retry_delay(&r, 2) == 2);
  r.outcome = FETCH_NET_ERROR;
  r.status = 0;
  CHECK(!hosts_overloaded(&r));
  CHECK(hosts_retry_delay(&r, 1) == 1);
}

/* Threads growing and reading the table at once (a TSan target). */
struct worker {
  hosts_t *h;
  uint32_t base;
};

static void *hammer(void *arg)
{
  struct worker *w = arg;
  for (uint32_t i = 0; i < 2000; i++) {
    uint32_t id = w->base + i;
    (void)hosts_full(w->h, id);
    hosts_count_saved(w->h, id);
    (void)hosts_full(w->h, id % 64);
  }
  return NULL;
}

static void test_concurrent(void)
{
  hosts_t *h = hosts_new("TestBot", 2, 1, false, NULL);
  pthread_t th[4];
  struct worker w[4];
  int started = 0;
  for (int i = 0; i < 4; i++) {
    w[i] = (struct worker){ .h = h, .base = (uint32_t)i * 2000 };
    if (pthread_create(&th[i], NULL, hammer, &w[i]) == 0)
      started++;
  }
  CHECK_INT(started, 4);
  for (int i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  for (uint32_t id = 0; id < 8000; id++)
    if (!hosts_full(h, id)) {
      CHECK(hosts_full(h, id));
      break;
    }
  hosts_delete(h);
}

int main(void)
{
  RUN(test_rules);
  RUN(test_redirects);
  RUN(test_redirect_other_host);
  RUN(test_unavailable_and_unreachable);
  RUN(test_unreachable_says_why);
  RUN(test_final_network_failure);
  RUN(test_replay_unreachable);
  RUN(test_retry);
  RUN(test_retry_after);
  RUN(test_cache);
  RUN(test_not_asked);
  RUN(test_crawl_delay);
  RUN(test_no_robots_url);
  RUN(test_robots_off);
  RUN(test_page_limit);
  RUN(test_backoff);
  RUN(test_retry_delay);
  RUN(test_concurrent);
  return TEST_EXIT();
}
