/* hosts.c: see hosts.h.
 *
 * One array of struct hoststate indexed by the frontier's host ids, under
 * one mutex. Every access reads or writes the fields it needs in place,
 * under the lock: no state is copied out across a fetch and written back,
 * so no writer can undo what another wrote meanwhile, whatever order the
 * threads run in. What is done outside the lock (parsing robots.txt,
 * resolving URLs, matching a path against the rules, calling the
 * frontier) works on values taken out under it. */
#include "hosts.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hashtable.h"
#include "robots.h"
#include "strbuf.h"
#include "url.h"

enum { MAX_ROBOTS_REDIRECTS = 5 }; /* RFC 9309 2.3.1.2 */
#define MAX_CRAWL_DELAY 60.0       /* seconds; slower hosts skipped */
#define MAX_RETRY_AFTER 60.0       /* seconds a host is paused, at most */

/* What the crawl knows of one host. Who writes what (always under
 * hosts.lock):
 *  - the gate fields, the download thread holding the host's gate item.
 *    The frontier hands out one gate item of a host at a time, and the
 *    next only after frontier_gate_retry (frontier.h, Gates), so a host's
 *    gate steps run one after another (asserted: gating);
 *  - rules and skip, the gate, before it opens the host. The frontier
 *    hands out no page item of a host before frontier_gate_done, so
 *    hosts_forbids finds them final (asserted: open);
 *  - saved and full, commit.
 * rules is immutable once set (robots.h), so a reader takes the pointer
 * under the lock and matches after dropping it. */
struct hoststate {
  char *next_url;     /* gate: the robots.txt URL to fetch next
                         (after a redirect); owned */
  int hops, failures; /* gate: redirects followed, fetches failed */
  bool gating;        /* gate: between begin and end */
  bool open;          /* the gate is done: rules, skip are final */
  robots_t *rules;    /* owned; NULL until set, or out of memory */
  const char *skip;   /* the whole host is skipped, and why */
  char *unreachable;  /* owned; skip's text when robots.txt was
                         unreachable, with the reason */
  long saved;         /* pages saved */
  bool full;          /* saved reached max_pages */
};

struct hosts {
  pthread_mutex_t lock; /* guards v, n and every field of every v[i] */
  struct hoststate *v;  /* index = host id; zeroed as it grows */
  size_t n;
  /* Read-only after hosts_new (replayed: once the crawl starts): */
  hashtable_t *replayed; /* host key -> the skip reason of a host whose
                            robots.txt was unreachable in the crawl
                            resumed (owned); NULL if none */
  const char *user_agent;
  int retries;
  long max_pages;
  bool robots;
  hosts_cache_t cache; /* ops NULL if none */
};

hosts_t *hosts_new(const char *user_agent, int retries, long max_pages,
                   bool robots, const hosts_cache_t *cache)
{
  hosts_t *h = calloc(1, sizeof(*h));
  if (h == NULL)
    return NULL;
  pthread_mutex_init(&h->lock, NULL);
  h->user_agent = user_agent;
  h->retries = retries;
  h->max_pages = max_pages;
  h->robots = robots;
  if (cache != NULL)
    h->cache = *cache;
  return h;
}

/* hoststate_get: host ID's state, the array grown as needed; NULL if out
 * of memory. Valid until the lock is dropped (growing moves the array).
 * Caller holds h->lock. */
static struct hoststate *hoststate_get(hosts_t *h, uint32_t id)
{
  if (id >= h->n) {
    size_t n = h->n ? h->n * 2 : 16;
    while (n <= id)
      n *= 2;
    struct hoststate *v = realloc(h->v, n * sizeof(*v));
    if (v == NULL)
      return NULL;
    memset(v + h->n, 0, (n - h->n) * sizeof(*v));
    h->v = v;
    h->n = n;
  }
  return &h->v[id];
}

/* gate_then: how a gate step of HOST ends, told to the frontier: with
 * AGAIN at 0 or above, the gate is asked for again then (clock_now()'s
 * time; 0: at once); else the host opens, to a request every INTERVAL
 * seconds at most if above 0 (Crawl-delay). Without the lock. */
static void gate_then(frontier_t *fr, uint32_t host, double again,
                      double interval)
{
  if (again >= 0) {
    frontier_gate_retry(fr, host, again);
    return;
  }
  if (interval > 0)
    frontier_host_interval(fr, host, interval);
  frontier_gate_done(fr, host);
}

/* hop_charged: whether the robots.txt redirect target U (owned) of IT's
 * host may be fetched now, charged to the host it goes to. The pop of the
 * gate item took its own host's token; a target on another host takes
 * that host's instead (the token of IT's host is given back), or, if
 * that host may not be fetched yet, U is kept for the next gate item,
 * to be asked for at *AGAIN, when it may (and false is returned). IT's
 * host is gating (hosts_gate_begin has set it). */
static bool hop_charged(hosts_t *h, frontier_t *fr, const fitem_t *it, char *u,
                        double *again)
{
  char *key = url_host_key_normal(u);
  if (key != NULL && strcmp(key, it->url) == 0) {
    free(key); /* same host: its gate item's token pays */
    return true;
  }
  double when = clock_now() + 1; /* if out of memory */
  bool now = key != NULL && frontier_host_take(fr, key, &when);
  free(key);
  frontier_refund(fr, it->host);
  if (now)
    return true;
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = &h->v[it->host]; /* begin put it there */
  hs->gating = false;
  hs->next_url = u;
  pthread_mutex_unlock(&h->lock);
  *again = when;
  return false;
}

int hosts_replay_unreachable(hosts_t *h, const char *key, const char *why)
{
  if (h->replayed == NULL && (h->replayed = hashtable_new(16)) == NULL)
    return -1;
  if (hashtable_find(h->replayed, key) != NULL)
    return 0;
  char *copy = strdup(why);
  if (copy == NULL || !hashtable_insert(h->replayed, key, copy)) {
    free(copy);
    return -1;
  }
  return 0;
}

bool hosts_robots_unreachable(const fetch_result_t *r)
{
  if (r->outcome == FETCH_OK || r->outcome == FETCH_REDIRECT)
    return false;
  return !(r->outcome == FETCH_HTTP_ERROR && r->status >= 400 &&
           r->status < 500 && r->status != 429);
}

/* unreachable_text: the skip reason for a robots.txt that failed for
 * WHY: no answer at all (NET: the network, DNS, TLS) is the host's
 * failure, an answer (5xx, 429) its robots.txt's. Returned owned
 * (free()); NULL if out of memory. */
static char *unreachable_text(const char *why, bool net)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s: %s", net ? HOSTS_NET_UNREACHABLE : HOSTS_UNREACHABLE,
              why);
  return strbuf_detach(&b);
}

bool hosts_is_unreachable(const char *why)
{
  return strncmp(why, HOSTS_UNREACHABLE, strlen(HOSTS_UNREACHABLE)) == 0 ||
         strncmp(why, HOSTS_NET_UNREACHABLE, strlen(HOSTS_NET_UNREACHABLE)) ==
           0;
}

/* gate_answer: what the answer R to URL says for the host of the gate
 * item IT, whose gate is under way: its rules are set and it is to open
 * (-1 returned; *INTERVAL its Crawl-delay, if above 0), or its gate is
 * to be asked for again at the time returned (0: at once), for gate_then
 * to tell the frontier. The cache is told R, unless SETTLED: R came from
 * it, and an unreachable one is then final at once. URL and R's contents
 * are freed. Without the lock. */
static double gate_answer(hosts_t *h, const fitem_t *it, char *url,
                          fetch_result_t *r, bool settled, double *interval)
{
  /* Parsed and resolved before the lock is taken; the redirect target
   * is dropped if the hops are used up. */
  robots_t *parsed = r->outcome == FETCH_OK
                     ? robots_parse(r->body, r->len, h->user_agent)
                     : NULL;
  double delay = robots_crawl_delay(parsed); /* -1 for no rules */
  char *next = r->outcome == FETCH_REDIRECT
               ? url_resolve_normalized(url, r->location)
               : NULL;
  /* Used only if this failure is the last one allowed. */
  char *unreachable = r->outcome != FETCH_OK && r->outcome != FETCH_REDIRECT &&
                          r->error[0] != '\0'
                      ? unreachable_text(r->error, r->curl_code != 0)
                      : NULL;
  double again = -1, wait = 0;
  bool last = false; /* as the cache's keep takes it */
  *interval = 0;

  pthread_mutex_lock(&h->lock);
  /* Begin put the host in the table, which never shrinks. */
  assert(it->host < h->n && h->v[it->host].gating);
  struct hoststate *hs = &h->v[it->host];
  hs->gating = false;
  if (r->outcome == FETCH_OK) {
    hs->rules = parsed;
    if (hs->rules == NULL)
      hs->skip = "out of memory";
  } else if (r->outcome == FETCH_REDIRECT && hs->hops < MAX_ROBOTS_REDIRECTS &&
             next != NULL) {
    hs->hops++;
    hs->next_url = next;
    next = NULL;
    again = 0;
  } else if (!hosts_robots_unreachable(r)) {
    /* Unavailable (4xx, or redirects without end): no restrictions. */
    hs->rules = robots_allow_all();
  } else if (!settled && !r->final && hs->failures++ < h->retries) {
    /* Unreachable for now (5xx, 429, the network, a TLS handshake cut
     * short): retry later (after Retry-After, if a 429 or 503 has one);
     * nothing of the host is fetched meanwhile. What no retry mends (a
     * name that does not exist, a certificate that does not verify:
     * fetch_result_t.final) is final at once. */
    wait = hosts_retry_delay(r, hs->failures);
    again = clock_now() + wait;
  } else {
    last = true;
    hs->rules = robots_disallow_all();
    hs->unreachable = unreachable;
    unreachable = NULL;
    hs->skip = hs->unreachable   ? hs->unreachable
             : r->curl_code != 0 ? HOSTS_NET_UNREACHABLE
                                 : HOSTS_UNREACHABLE;
  }
  if (again < 0) {
    if (delay > MAX_CRAWL_DELAY)
      hs->skip = "Crawl-delay above 60 s";
    else
      *interval = delay;
    hs->open = true;
  }
  pthread_mutex_unlock(&h->lock);

  if (!settled && h->cache.ops != NULL)
    h->cache.ops->keep(h->cache.ctx, it->url, url, r, last, wait);
  free(next);
  free(unreachable);
  fetch_result_free(r);
  free(url);
  return again;
}

bool hosts_gate_begin(hosts_t *h, frontier_t *fr, const fitem_t *it, bool ask,
                      char **url)
{
  /* Made before the lock is taken: the host's own robots.txt URL
   * (unused after a redirect), and the skip reason replayed for it, if
   * any (read-only by now; a gate item's URL is its host key). */
  char *first = url_resolve_normalized(it->url, "/robots.txt");
  const char *why = h->replayed ? hashtable_find(h->replayed, it->url) : NULL;
  char *u = NULL;                  /* the URL to ask (owned) */
  bool hop = false;                /* u is where a redirect led */
  double again = -1, interval = 0; /* as gate_then takes them */
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = hoststate_get(h, it->host);
  assert(hs == NULL || (!hs->gating && !hs->open));
  if (hs == NULL) {
    again = clock_now() + 1; /* out of memory: in a second */
  } else if (why != NULL) {
    /* Unreachable in the crawl resumed: as the last failed attempt
     * would leave it (gate_answer), without asking; so at its first
     * gate step, as it has no other. */
    hs->rules = robots_disallow_all();
    hs->unreachable = strdup(why);
    hs->skip = hs->unreachable ? hs->unreachable : HOSTS_UNREACHABLE;
  } else {
    hop = hs->next_url != NULL;
    u = hop ? hs->next_url : first;
    hs->next_url = NULL;
    /* NEEDSWORK: a host key always resolves, so a URL missing is out of
     * memory, and the host's URLs are then skipped under a reason that
     * is not the real one; retrying the gate later would be truer. */
    if (u == NULL)
      hs->skip = "no robots.txt URL";
    else if (!ask)
      hs->rules = robots_allow_all(); /* as for a robots.txt not found */
  }
  bool asking = u != NULL && ask;
  if (hs != NULL) {
    hs->gating = asking;
    hs->open = !asking;
  }
  pthread_mutex_unlock(&h->lock);
  if (u != first)
    free(first);
  if (!asking)
    free(u);
  /* Asked before (by another process of a shared crawl): no request,
   * so no hop to charge. A gate item's URL is its host key. */
  fetch_result_t r;
  if (asking && h->cache.ops != NULL &&
      h->cache.ops->find(h->cache.ctx, it->url, u, &r)) {
    again = gate_answer(h, it, u, &r, true, &interval);
    asking = false;
  } else if (asking && hop) {
    asking = hop_charged(h, fr, it, u, &again);
  }
  if (asking) {
    *url = u;
    return true;
  }
  gate_then(fr, it->host, again, interval);
  return false;
}

void hosts_gate_end(hosts_t *h, frontier_t *fr, const fitem_t *it, char *url,
                    fetch_result_t *r)
{
  double interval;
  double again = gate_answer(h, it, url, r, false, &interval);
  gate_then(fr, it->host, again, interval);
}

const char *hosts_forbids(hosts_t *h, uint32_t host, const char *path)
{
  if (!h->robots)
    return NULL;
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = hoststate_get(h, host);
  if (hs == NULL) {
    pthread_mutex_unlock(&h->lock);
    return "out of memory";
  }
  assert(hs->open);
  const char *skip = hs->skip;
  const robots_t *rules = hs->rules;
  pthread_mutex_unlock(&h->lock);
  if (skip != NULL)
    return skip;
  if (!robots_allowed(rules, path))
    return "disallowed by robots.txt";
  return NULL;
}

const robots_t *hosts_robots(hosts_t *h, uint32_t host)
{
  if (!h->robots)
    return NULL;
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = hoststate_get(h, host);
  const robots_t *rules = hs != NULL && hs->open ? hs->rules : NULL;
  pthread_mutex_unlock(&h->lock);
  return rules;
}

bool hosts_full(hosts_t *h, uint32_t host)
{
  if (h->max_pages <= 0)
    return false;
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = hoststate_get(h, host);
  bool full = hs != NULL && hs->full;
  pthread_mutex_unlock(&h->lock);
  return full;
}

void hosts_count_saved(hosts_t *h, uint32_t host)
{
  pthread_mutex_lock(&h->lock);
  if (host < h->n) {
    struct hoststate *hs = &h->v[host];
    hs->saved++;
    if (h->max_pages > 0 && hs->saved >= h->max_pages)
      hs->full = true;
  }
  pthread_mutex_unlock(&h->lock);
}

double hosts_backoff(int attempt)
{
  double s = 1.0;
  for (int i = 1; i < attempt && s < 60; i++)
    s *= 2;
  return s;
}

bool hosts_overloaded(const fetch_result_t *r)
{
  return r->status == 429 || r->status == 503;
}

double hosts_retry_delay(const fetch_result_t *r, int attempt)
{
  if (hosts_overloaded(r) && r->retry_after >= 0)
    return r->retry_after < MAX_RETRY_AFTER ? r->retry_after : MAX_RETRY_AFTER;
  return hosts_backoff(attempt);
}

void hosts_delete(hosts_t *h)
{
  if (h == NULL)
    return;
  for (size_t i = 0; i < h->n; i++) {
    robots_delete(h->v[i].rules);
    free(h->v[i].next_url);
    free(h->v[i].unreachable);
  }
  free(h->v);
  hashtable_delete(h->replayed, free);
  pthread_mutex_destroy(&h->lock);
  free(h);
}
