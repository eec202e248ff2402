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
};

hosts_t *hosts_new(const char *user_agent, int retries, long max_pages,
                   bool robots)
{
  hosts_t *h = calloc(1, sizeof(*h));
  if (h == NULL)
    return NULL;
  pthread_mutex_init(&h->lock, NULL);
  h->user_agent = user_agent;
  h->retries = retries;
  h->max_pages = max_pages;
  h->robots = robots;
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

/* hop_charged: whether the robots.txt redirect target U (owned) of IT's
 * host may be fetched now, charged to the host it goes to. The pop of the
 * gate item took its own host's token; a target on another host takes
 * that host's instead (the token of IT's host is given back), or, if
 * that host may not be fetched yet, U is kept for the next gate item,
 * asked for when it may (and false is returned). IT's host is gating
 * (hosts_gate_begin has set it). */
static bool hop_charged(hosts_t *h, frontier_t *fr, const fitem_t *it, char *u)
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
  frontier_gate_retry(fr, it->host, when);
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

/* replayed: the skip reason replayed for the host of the gate item IT,
 * if this is its first gate step; else NULL. Caller holds h->lock. */
static const char *replayed(hosts_t *h, const struct hoststate *hs,
                            const fitem_t *it)
{
  if (h->replayed == NULL || hs->next_url != NULL || hs->hops > 0 ||
      hs->failures > 0)
    return NULL;
  return hashtable_find(h->replayed, it->url); /* a gate item's URL is
                                                   its host key */
}

bool hosts_robots_unreachable(const fetch_result_t *r)
{
  if (r->outcome == FETCH_OK || r->outcome == FETCH_REDIRECT)
    return false;
  return !(r->outcome == FETCH_HTTP_ERROR && r->status >= 400 &&
           r->status < 500 && r->status != 429);
}

bool hosts_gate_begin(hosts_t *h, frontier_t *fr, const fitem_t *it, char **url)
{
  /* Made before the lock is taken; unused after a redirect. */
  char *first = url_resolve_normalized(it->url, "/robots.txt");
  pthread_mutex_lock(&h->lock);
  struct hoststate *hs = hoststate_get(h, it->host);
  if (hs == NULL) {
    pthread_mutex_unlock(&h->lock);
    free(first);
    frontier_gate_retry(fr, it->host, clock_now() + 1);
    return false;
  }
  assert(!hs->gating && !hs->open);
  const char *why = replayed(h, hs, it);
  if (why != NULL) {
    /* Unreachable in the crawl resumed: as the last failed attempt
     * would leave it (hosts_gate_end), without asking. */
    hs->rules = robots_disallow_all();
    hs->unreachable = strdup(why);
    hs->skip = hs->unreachable ? hs->unreachable : HOSTS_UNREACHABLE;
    hs->open = true;
    pthread_mutex_unlock(&h->lock);
    free(first);
    frontier_gate_done(fr, it->host);
    return false;
  }
  char *u = hs->next_url ? hs->next_url : first;
  hs->next_url = NULL;
  if (u == NULL) {
    /* NEEDSWORK: a host key always resolves, so this is out of memory,
     * and the host's URLs are then skipped under a reason that is not
     * the real one; retrying the gate later would be truer. */
    hs->skip = "no robots.txt URL";
    hs->open = true;
  } else {
    hs->gating = true;
  }
  pthread_mutex_unlock(&h->lock);
  if (u != first)
    free(first);
  if (u == NULL) {
    frontier_gate_done(fr, it->host);
    return false;
  }
  if (u != first && !hop_charged(h, fr, it, u))
    return false;
  *url = u;
  return true;
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

bool hosts_gate_last(hosts_t *h, const fitem_t *it, const fetch_result_t *r)
{
  if (!hosts_robots_unreachable(r))
    return false;
  pthread_mutex_lock(&h->lock);
  bool last = it->host < h->n &&
              (r->final || h->v[it->host].failures >= h->retries);
  pthread_mutex_unlock(&h->lock);
  return last;
}

/* gate_end: hosts_gate_end, or with SETTLED hosts_gate_settle. */
static double gate_end(hosts_t *h, frontier_t *fr, const fitem_t *it, char *url,
                       fetch_result_t *r, bool settled)
{
  /* Parsed and resolved before the lock is taken; the redirect target
   * is dropped if the hops are used up. */
  robots_t *parsed = r->outcome == FETCH_OK
                     ? robots_parse(r->body, r->len, h->user_agent)
                     : NULL;
  char *next = r->outcome == FETCH_REDIRECT
               ? url_resolve_normalized(url, r->location)
               : NULL;
  /* Used only if this failure is the last one allowed. */
  char *unreachable = r->outcome != FETCH_OK && r->outcome != FETCH_REDIRECT &&
                          r->error[0] != '\0'
                      ? unreachable_text(r->error, r->curl_code != 0)
                      : NULL;
  enum { OPEN, AGAIN_NOW, AGAIN_LATER } then = OPEN;
  int failures = 0;
  double delay = -1, wait = 0;

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
    then = AGAIN_NOW;
  } else if (!hosts_robots_unreachable(r)) {
    /* Unavailable (4xx, or redirects without end): no restrictions. */
    hs->rules = robots_allow_all();
  } else if (!settled && !r->final && hs->failures++ < h->retries) {
    /* Unreachable for now (5xx, 429, the network, a TLS handshake cut
     * short): retry later (after Retry-After, if a 429 or 503 has one);
     * nothing of the host is fetched meanwhile. What no retry mends (a
     * name that does not exist, a certificate that does not verify:
     * fetch_result_t.final) is final at once. */
    failures = hs->failures;
    then = AGAIN_LATER;
  } else {
    hs->rules = robots_disallow_all();
    hs->unreachable = unreachable;
    unreachable = NULL;
    hs->skip = hs->unreachable   ? hs->unreachable
             : r->curl_code != 0 ? HOSTS_NET_UNREACHABLE
                                 : HOSTS_UNREACHABLE;
  }
  if (then == OPEN) {
    delay = robots_crawl_delay(hs->rules);
    if (delay > MAX_CRAWL_DELAY)
      hs->skip = "Crawl-delay above 60 s";
    hs->open = true;
  }
  pthread_mutex_unlock(&h->lock);

  if (then == AGAIN_LATER)
    wait = hosts_retry_delay(r, failures);
  free(next);
  free(unreachable);
  fetch_result_free(r);
  free(url);
  if (then == AGAIN_NOW) {
    frontier_gate_retry(fr, it->host, 0);
  } else if (then == AGAIN_LATER) {
    frontier_gate_retry(fr, it->host, clock_now() + wait);
  } else {
    if (delay > 0 && delay <= MAX_CRAWL_DELAY)
      frontier_host_interval(fr, it->host, delay);
    frontier_gate_done(fr, it->host);
  }
  return wait;
}

double hosts_gate_end(hosts_t *h, frontier_t *fr, const fitem_t *it, char *url,
                      fetch_result_t *r)
{
  return gate_end(h, fr, it, url, r, false);
}

void hosts_gate_settle(hosts_t *h, frontier_t *fr, const fitem_t *it, char *url,
                       fetch_result_t *r)
{
  (void)gate_end(h, fr, it, url, r, true);
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
