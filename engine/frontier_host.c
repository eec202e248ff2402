/* frontier_host.c: the frontier's per-host state: buckets, schedules,
 * and what the crawl adjusts per host (its robots.txt gate, Retry-After
 * pauses, Crawl-delay, refunds, drains, a token taken outside a pop).
 * See frontier.h for the contracts, frontier.c for the data and its lock. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "frontier_int.h"

double frontier_host_rate(const frontier_t *f, const struct host *h)
{
  double r = f->cfg.rate;
  if (h->interval > 0 && (r <= 0 || 1.0 / h->interval < r))
    r = 1.0 / h->interval;
  return r;
}

double frontier_host_burst(const frontier_t *f, const struct host *h)
{
  return h->interval > 0 ? 1.0 : f->cfg.burst;
}

/* refill: bring H's bucket up to time NOW. */
void frontier_refill(const frontier_t *f, struct host *h, double now)
{
  double r = frontier_host_rate(f, h);
  if (r <= 0)
    return;
  if (now > h->last) {
    h->tokens += (now - h->last) * r;
    double b = frontier_host_burst(f, h);
    if (h->tokens > b)
      h->tokens = b;
    h->last = now;
  }
}

/* host_schedule: put H in the heap its state calls for. Caller holds lock. */
void frontier_schedule(frontier_t *f, struct host *h, double now)
{
  if (h->where == READY)
    heap_remove(f->ready, h->hpos);
  else if (h->where == WAITING)
    heap_remove(f->waiting, h->hpos);
  h->where = NOWHERE;
  if (frontier_first(h) == NULL || h->gate == GATE_INFLIGHT)
    return;
  double due = h->pause_until;
  double r = frontier_host_rate(f, h);
  if (r > 0) {
    frontier_refill(f, h, now);
    if (h->tokens < 1.0 - 1e-9) {
      double t = now + (1.0 - h->tokens) / r;
      if (t > due)
        due = t;
    }
  }
  h->due = due;
  h->where = due <= now ? READY : WAITING;
  /* Cannot fail: host_get reserved room for every host in both. */
  (void)heap_push(h->where == READY ? f->ready : f->waiting, h);
}

/* host_get: the host for KEY, created if new. Caller holds lock.
 * Returns NULL if out of memory. */
struct host *frontier_host_get(frontier_t *f, const char *key, double now)
{
  uint64_t fp[2];
  uint32_t id;
  fptable_hash128(key, strlen(key), fp);
  if (fptable_find(f->map, fp, &id))
    return f->host[id];
  if (f->nhosts == f->cap_hosts) {
    size_t cap = f->cap_hosts * 2;
    struct host **v = realloc(f->host, cap * sizeof(*v));
    if (v == NULL)
      return NULL;
    f->host = v;
    f->cap_hosts = cap;
  }
  if (!heap_reserve(f->ready, f->nhosts + 1) ||
      !heap_reserve(f->waiting, f->nhosts + 1))
    return NULL;
  id = (uint32_t)f->nhosts;
  if (fptable_insert(f->map, fp, &id) != 1)
    return NULL;
  struct host *h = calloc(1, sizeof(*h));
  if (h == NULL || (h->key = strdup(key)) == NULL) {
    free(h);
    fptable_remove(f->map, fp, NULL);
    return NULL;
  }
  h->tokens = f->cfg.start_empty ? 0 : f->cfg.burst;
  h->last = now;
  h->born = now;
  h->last_take = -1;
  h->gate = f->cfg.gate ? GATE_NEEDED : GATE_OPEN;
  h->id = id;
  f->host[f->nhosts++] = h;
  return h;
}

void frontier_gate_done(frontier_t *f, uint32_t host)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (h->gate == GATE_INFLIGHT)
    f->gates_out--;
  h->gate = GATE_OPEN;
  frontier_schedule(f, h, clock_now());
  frontier_work(f);
  pthread_mutex_unlock(&f->lock);
}

void frontier_gate_retry(frontier_t *f, uint32_t host, double not_before)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (h->gate == GATE_INFLIGHT)
    f->gates_out--;
  h->gate = GATE_NEEDED;
  if (not_before > h->pause_until)
    h->pause_until = not_before;
  frontier_schedule(f, h, clock_now());
  frontier_work(f);
  pthread_mutex_unlock(&f->lock);
}

void frontier_host_pause(frontier_t *f, uint32_t host, double until)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (until > h->pause_until) {
    h->pause_until = until;
    frontier_schedule(f, h, clock_now());
  }
  pthread_mutex_unlock(&f->lock);
}

void frontier_host_interval(frontier_t *f, uint32_t host, double seconds)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  double now = clock_now();
  frontier_refill(f, h, now);
  h->interval = seconds > 0 ? seconds : 0;
  /* The new pace counts from the host's last request (its robots.txt),
   * not from a bucket filled under the old one. */
  double r = frontier_host_rate(f, h);
  if (r > 0 && h->last_take >= 0 && h->tokens > (now - h->last_take) * r)
    h->tokens = (now - h->last_take) * r;
  if (h->tokens > frontier_host_burst(f, h))
    h->tokens = frontier_host_burst(f, h);
  frontier_schedule(f, h, now);
  pthread_mutex_unlock(&f->lock);
}

void frontier_refund(frontier_t *f, uint32_t host)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (frontier_host_rate(f, h) > 0) {
    double now = clock_now();
    frontier_refill(f, h, now);
    h->tokens += 1.0;
    if (h->tokens > frontier_host_burst(f, h))
      h->tokens = frontier_host_burst(f, h);
    frontier_schedule(f, h, now);
    frontier_work(f);
  }
  pthread_mutex_unlock(&f->lock);
}

void frontier_empty_buckets(frontier_t *f,
                            bool (*pick)(void *arg, const char *key), void *arg)
{
  pthread_mutex_lock(&f->lock);
  double now = clock_now();
  for (size_t i = 0; i < f->nhosts; i++) {
    struct host *h = f->host[i];
    if (!pick(arg, h->key))
      continue;
    h->tokens = 0;
    h->last = now;
    frontier_schedule(f, h, now);
  }
  pthread_mutex_unlock(&f->lock);
}

const char *frontier_host_key(frontier_t *f, uint32_t host)
{
  pthread_mutex_lock(&f->lock);
  const char *key = host < f->nhosts ? f->host[host]->key : NULL;
  pthread_mutex_unlock(&f->lock);
  return key;
}

int frontier_host_id(frontier_t *f, const char *hostkey, uint32_t *host)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = frontier_host_get(f, hostkey, clock_now());
  if (h != NULL)
    *host = h->id;
  pthread_mutex_unlock(&f->lock);
  return h != NULL ? 0 : -1;
}

bool frontier_host_take(frontier_t *f, const char *hostkey, double *when)
{
  pthread_mutex_lock(&f->lock);
  double now = clock_now();
  struct host *h = frontier_host_get(f, hostkey, now);
  double due = now + 1; /* out of memory: ask again later */
  if (h != NULL) {
    /* As host_schedule computes it, without a queue to schedule. */
    due = h->pause_until;
    double r = frontier_host_rate(f, h);
    if (r > 0) {
      frontier_refill(f, h, now);
      if (h->tokens < 1.0 - 1e-9 && now + (1.0 - h->tokens) / r > due)
        due = now + (1.0 - h->tokens) / r;
    }
    if (due <= now) {
      if (r > 0)
        h->tokens -= 1.0;
      h->last_take = now;
      frontier_schedule(f, h, now); /* its queue, if any, is due later now */
      /* A downloader asleep without a deadline (nothing was due) must
       * learn the host's new time: the take may come from a thread that
       * is no downloader (a seed's sitemaps), and nothing else would
       * wake one when it comes: the crawl would hang. */
      frontier_work(f);
    }
  }
  pthread_mutex_unlock(&f->lock);
  *when = due;
  return h != NULL && due <= now;
}
