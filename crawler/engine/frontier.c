/* frontier.c: see frontier.h.
 *
 * Data: hosts live in a growable array (index = host id) and are found by
 * key through a small open-addressing map of 128-bit key fingerprints.
 * A host has two queues: ordinary items (singly linked, in seq order) and
 * after them speculative ones (doubly linked, so one can be taken out of
 * the middle when the engine promotes or withdraws it). Its first item is
 * the head of the first non-empty one.
 * A host with queued items and an open gate is in exactly one heap:
 * READY (may be fetched now; key = seq of its first item) or WAITING (key =
 * the time it may be fetched). Items retried later sit in the DELAYED heap
 * (key = not_before) until due, then join their host's queue.
 *
 * Lock: f->lock guards everything in struct frontier and struct host.
 * Condition variables (both on f->lock, monotonic clock):
 *   work     waited on by frontier_pop while nothing is due; signalled when
 *            an item or host may have become due earlier (push, requeue,
 *            promote, gate done, refund, a raised horizon, a speculative
 *            item returned, a push starting to wait for capacity, which
 *            lifts the horizon), and passed on by a pop
 *            that leaves work behind, so a sleeping worker always holds
 *            the next deadline;
 *            broadcast by frontier_close. Waiters re-check: closed, ready
 *            host, or the earliest deadline.
 *   notfull  waited on by frontier_push while count >= capacity; signalled
 *            by each pop, broadcast by close. Waiters re-check: closed or
 *            count < capacity. */
#include "frontier.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpset.h"

enum { NOWHERE, READY, WAITING };
enum { GATE_OPEN, GATE_NEEDED, GATE_INFLIGHT };

struct host {
  char *key;
  uint32_t id;           /* index in f->host */
  fitem_t *head, *tail;  /* ordinary items, in seq order */
  fitem_t *shead, *stail;  /* speculative items, in seq order */
  double tokens;         /* bucket level at time `last` */
  double last;
  double last_take;      /* when the last token was taken; < 0: never */
  double pause_until;    /* Retry-After and gate retries */
  double interval;       /* Crawl-delay; 0 if none */
  double due;            /* when the host may be fetched next */
  int gate;
  int where;             /* NOWHERE, READY or WAITING */
  size_t hpos;           /* index in the heap named by `where` */
};

/* An indexed binary heap of hosts (READY or WAITING) or of items. */
typedef struct heap {
  void **v;
  size_t n, cap;
  int kind;              /* READY, WAITING, or 0 for the delayed items */
} heap_t;

struct hmap_slot {
  uint64_t fp[2];
  uint32_t id;
};

struct frontier {
  pthread_mutex_t lock;
  pthread_cond_t work, notfull;
  frontier_config_t cfg;
  struct host **host;     /* host[id] */
  size_t nhosts, cap_hosts;
  struct hmap_slot *map;  /* fingerprint -> id; fp {0,0} = empty */
  size_t map_cap;
  heap_t ready, waiting, delayed;
  size_t count;           /* ordinary items queued or delayed */
  size_t nspec;           /* speculative items queued or delayed */
  size_t spec_out;        /* speculative items handed out, not returned */
  int push_waiters;       /* frontier_push calls waiting for capacity */
  uint64_t horizon;       /* only seqs below it are handed out */
  bool closed;
};

double frontier_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- items ---- */

fitem_t *fitem_new(const char *url, int depth)
{
  size_t len = strlen(url);
  fitem_t *it = calloc(1, sizeof(*it) + len + 1);
  if (it == NULL)
    return NULL;
  memcpy(it->url, url, len + 1);
  it->depth = depth;
  return it;
}

fitem_t *fitem_set_url(fitem_t *it, const char *url)
{
  size_t len = strlen(url);
  fitem_t *n = malloc(sizeof(*n) + len + 1);
  if (n == NULL)
    return NULL;
  *n = *it;
  memcpy(n->url, url, len + 1);
  free(it);
  return n;
}

void fitem_delete(fitem_t *it)
{
  free(it);
}

/* ---- heaps ---- */

static fitem_t *first_item(const struct host *h)
{
  return h->head ? h->head : h->shead;
}

static bool less(const heap_t *h, const void *a, const void *b)
{
  if (h->kind == READY) {
    const struct host *x = a, *y = b;
    return first_item(x)->seq < first_item(y)->seq;
  }
  if (h->kind == WAITING) {
    const struct host *x = a, *y = b;
    return x->due < y->due;
  }
  const fitem_t *x = a, *y = b;
  return x->not_before < y->not_before ||
         (x->not_before == y->not_before && x->seq < y->seq);
}

static void place(heap_t *h, size_t i, void *e)
{
  h->v[i] = e;
  if (h->kind != 0)
    ((struct host *)e)->hpos = i;
}

static void sift_up(heap_t *h, size_t i)
{
  void *e = h->v[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!less(h, e, h->v[p]))
      break;
    place(h, i, h->v[p]);
    i = p;
  }
  place(h, i, e);
}

static void sift_down(heap_t *h, size_t i)
{
  void *e = h->v[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && less(h, h->v[c + 1], h->v[c]))
      c++;
    if (!less(h, h->v[c], e))
      break;
    place(h, i, h->v[c]);
    i = c;
  }
  place(h, i, e);
}

static bool heap_reserve(heap_t *h, size_t n)
{
  if (n <= h->cap)
    return true;
  size_t cap = h->cap ? h->cap * 2 : 64;
  while (cap < n)
    cap *= 2;
  void **v = realloc(h->v, cap * sizeof(*v));
  if (v == NULL)
    return false;
  h->v = v;
  h->cap = cap;
  return true;
}

/* heap_push: false if out of memory. The host heaps never fail: host_get
 * reserves room for every host in both. */
static bool heap_push(heap_t *h, void *e)
{
  if (!heap_reserve(h, h->n + 1))
    return false;
  place(h, h->n++, e);
  sift_up(h, h->n - 1);
  return true;
}

static void heap_remove(heap_t *h, size_t i)
{
  h->n--;
  if (i == h->n)
    return;
  place(h, i, h->v[h->n]);
  sift_down(h, i);
  sift_up(h, i);
}

static void *heap_top(const heap_t *h)
{
  return h->n ? h->v[0] : NULL;
}

/* ---- hosts ---- */

static double host_rate(const frontier_t *f, const struct host *h)
{
  double r = f->cfg.rate;
  if (h->interval > 0 && (r <= 0 || 1.0 / h->interval < r))
    r = 1.0 / h->interval;
  return r;
}

static double host_burst(const frontier_t *f, const struct host *h)
{
  return h->interval > 0 ? 1.0 : f->cfg.burst;
}

/* refill: bring H's bucket up to time NOW. */
static void refill(const frontier_t *f, struct host *h, double now)
{
  double r = host_rate(f, h);
  if (r <= 0)
    return;
  if (now > h->last) {
    h->tokens += (now - h->last) * r;
    double b = host_burst(f, h);
    if (h->tokens > b)
      h->tokens = b;
    h->last = now;
  }
}

/* host_schedule: put H in the heap its state calls for. Caller holds lock. */
static void host_schedule(frontier_t *f, struct host *h, double now)
{
  if (h->where == READY)
    heap_remove(&f->ready, h->hpos);
  else if (h->where == WAITING)
    heap_remove(&f->waiting, h->hpos);
  h->where = NOWHERE;
  if (first_item(h) == NULL || h->gate == GATE_INFLIGHT)
    return;
  double due = h->pause_until;
  double r = host_rate(f, h);
  if (r > 0) {
    refill(f, h, now);
    if (h->tokens < 1.0 - 1e-9) {
      double t = now + (1.0 - h->tokens) / r;
      if (t > due)
        due = t;
    }
  }
  h->due = due;
  h->where = due <= now ? READY : WAITING;
  heap_push(h->where == READY ? &f->ready : &f->waiting, h);
}

static void map_put(struct hmap_slot *map, size_t cap, const uint64_t fp[2],
                    uint32_t id)
{
  size_t i = (size_t)fp[0] & (cap - 1);
  while (map[i].fp[0] != 0 || map[i].fp[1] != 0)
    i = (i + 1) & (cap - 1);
  map[i].fp[0] = fp[0];
  map[i].fp[1] = fp[1];
  map[i].id = id;
}

/* host_get: the host for KEY, created if new. Caller holds lock.
 * Returns NULL if out of memory. */
static struct host *host_get(frontier_t *f, const char *key, double now)
{
  uint64_t fp[2];
  fpset_hash128(key, strlen(key), fp);
  size_t i = (size_t)fp[0] & (f->map_cap - 1);
  while (f->map[i].fp[0] != 0 || f->map[i].fp[1] != 0) {
    if (f->map[i].fp[0] == fp[0] && f->map[i].fp[1] == fp[1])
      return f->host[f->map[i].id];
    i = (i + 1) & (f->map_cap - 1);
  }
  if (f->nhosts == f->cap_hosts) {
    size_t cap = f->cap_hosts * 2;
    struct host **v = realloc(f->host, cap * sizeof(*v));
    if (v == NULL)
      return NULL;
    f->host = v;
    f->cap_hosts = cap;
  }
  if (!heap_reserve(&f->ready, f->nhosts + 1) ||
      !heap_reserve(&f->waiting, f->nhosts + 1))
    return NULL;
  if ((f->nhosts + 1) * 2 > f->map_cap) {
    size_t cap = f->map_cap * 2;
    struct hmap_slot *m = calloc(cap, sizeof(*m));
    if (m == NULL)
      return NULL;
    for (size_t j = 0; j < f->map_cap; j++)
      if (f->map[j].fp[0] != 0 || f->map[j].fp[1] != 0)
        map_put(m, cap, f->map[j].fp, f->map[j].id);
    free(f->map);
    f->map = m;
    f->map_cap = cap;
  }
  struct host *h = calloc(1, sizeof(*h));
  if (h == NULL || (h->key = strdup(key)) == NULL) {
    free(h);
    return NULL;
  }
  h->tokens = f->cfg.burst;
  h->last = now;
  h->last_take = -1;
  h->gate = f->cfg.gate ? GATE_NEEDED : GATE_OPEN;
  h->id = (uint32_t)f->nhosts++;
  f->host[h->id] = h;
  map_put(f->map, f->map_cap, fp, h->id);
  return h;
}

/* spec_enqueue: insert speculative IT into H's speculative queue in seq
 * order (normally at the tail). */
static void spec_enqueue(struct host *h, fitem_t *it)
{
  fitem_t *after = h->stail;
  while (after != NULL && after->seq > it->seq)
    after = after->prev;
  it->prev = after;
  it->next = after ? after->next : h->shead;
  if (it->next)
    it->next->prev = it;
  else
    h->stail = it;
  if (after)
    after->next = it;
  else
    h->shead = it;
}

/* spec_unlink: take speculative IT out of H's speculative queue. */
static void spec_unlink(struct host *h, fitem_t *it)
{
  if (it->prev)
    it->prev->next = it->next;
  else
    h->shead = it->next;
  if (it->next)
    it->next->prev = it->prev;
  else
    h->stail = it->prev;
  it->next = it->prev = NULL;
}

/* enqueue: insert IT into H's queue in seq order (normally at the tail). */
static void enqueue(struct host *h, fitem_t *it)
{
  if (it->flags & FITEM_SPEC) {
    spec_enqueue(h, it);
    return;
  }
  if (h->tail == NULL || h->tail->seq <= it->seq) {
    it->next = NULL;
    if (h->tail)
      h->tail->next = it;
    else
      h->head = it;
    h->tail = it;
    return;
  }
  fitem_t **pp = &h->head;
  while ((*pp)->seq <= it->seq)
    pp = &(*pp)->next;
  it->next = *pp;
  *pp = it;
}

/* ---- public ---- */

frontier_t *frontier_new(const frontier_config_t *cfg)
{
  frontier_t *f = calloc(1, sizeof(*f));
  if (f == NULL)
    return NULL;
  f->cfg = *cfg;
  f->horizon = UINT64_MAX;
  if (f->cfg.burst < 1)
    f->cfg.burst = 1;
  f->ready.kind = READY;
  f->waiting.kind = WAITING;
  f->cap_hosts = 16;
  f->map_cap = 64;
  f->host = malloc(f->cap_hosts * sizeof(*f->host));
  f->map = calloc(f->map_cap, sizeof(*f->map));
  pthread_condattr_t ca;
  bool ok = f->host && f->map && pthread_condattr_init(&ca) == 0;
  if (ok) {
    ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
         pthread_cond_init(&f->work, &ca) == 0;
    if (ok && pthread_cond_init(&f->notfull, &ca) != 0) {
      pthread_cond_destroy(&f->work);
      ok = false;
    }
    pthread_condattr_destroy(&ca);
  }
  if (!ok || pthread_mutex_init(&f->lock, NULL) != 0) {
    if (ok) {
      pthread_cond_destroy(&f->work);
      pthread_cond_destroy(&f->notfull);
    }
    free(f->host);
    free(f->map);
    free(f);
    return NULL;
  }
  return f;
}

/* add: the common part of push and requeue. Caller holds lock. */
static int add(frontier_t *f, fitem_t *it, const char *hostkey,
               double not_before)
{
  double now = frontier_now();
  struct host *h = host_get(f, hostkey, now);
  if (h == NULL)
    return -2;
  it->host = h->id;
  it->not_before = not_before;
  if (not_before > now) {
    if (!heap_push(&f->delayed, it))
      return -2;
    it->flags |= FITEM_DELAYED;
  } else {
    enqueue(h, it);
    host_schedule(f, h, now);
  }
  it->flags |= FITEM_QUEUED;
  if (it->flags & FITEM_SPEC)
    f->nspec++;
  else
    f->count++;
  pthread_cond_signal(&f->work);
  return 0;
}

int frontier_push(frontier_t *f, fitem_t *it, const char *hostkey)
{
  pthread_mutex_lock(&f->lock);
  while (!f->closed && f->cfg.capacity && f->count >= f->cfg.capacity) {
    f->push_waiters++;
    pthread_cond_signal(&f->work);  /* a pop may now pass the horizon */
    pthread_cond_wait(&f->notfull, &f->lock);
    f->push_waiters--;
  }
  int rc = f->closed ? -1 : add(f, it, hostkey, 0);
  pthread_mutex_unlock(&f->lock);
  return rc;
}

int frontier_requeue(frontier_t *f, fitem_t *it, const char *hostkey,
                     double not_before)
{
  pthread_mutex_lock(&f->lock);
  int rc = f->closed ? -1 : add(f, it, hostkey, not_before);
  pthread_mutex_unlock(&f->lock);
  return rc;
}

/* release_delayed: move delayed items that are due into their hosts. */
static void release_delayed(frontier_t *f, double now)
{
  fitem_t *it;
  while ((it = heap_top(&f->delayed)) != NULL && it->not_before <= now) {
    heap_remove(&f->delayed, 0);
    it->flags &= ~FITEM_DELAYED;
    struct host *h = f->host[it->host];
    enqueue(h, it);
    host_schedule(f, h, now);
  }
}

/* take: hand out the next item of ready host H. Caller holds lock. */
static fitem_t *take(frontier_t *f, struct host *h, double now)
{
  fitem_t *it;
  if (h->gate == GATE_NEEDED) {
    it = fitem_new(h->key, 0);
    if (it == NULL)
      return NULL;
    it->flags = FITEM_GATE;
    h->gate = GATE_INFLIGHT;
  } else if (h->head != NULL) {
    it = h->head;
    h->head = it->next;
    if (h->head == NULL)
      h->tail = NULL;
    it->next = NULL;
    it->flags &= ~FITEM_QUEUED;
    f->count--;
    pthread_cond_signal(&f->notfull);
  } else {
    it = h->shead;
    spec_unlink(h, it);
    it->flags &= ~FITEM_QUEUED;
    f->nspec--;
    f->spec_out++;
  }
  it->host = h->id;
  if (host_rate(f, h) > 0) {
    refill(f, h, now);
    h->tokens -= 1.0;
  }
  h->last_take = now;
  host_schedule(f, h, now);
  return it;
}

/* may_take: whether ready host H may hand out its next item now. */
static bool may_take(const frontier_t *f, const struct host *h)
{
  const fitem_t *first = first_item(h);
  if (first->flags & FITEM_SPEC)
    return f->cfg.spec_out == 0 || f->spec_out < f->cfg.spec_out;
  return first->seq < f->horizon || f->push_waiters > 0;
}

fitem_t *frontier_pop(frontier_t *f)
{
  fitem_t *it = NULL;
  pthread_mutex_lock(&f->lock);
  while (!f->closed) {
    double now = frontier_now();
    release_delayed(f, now);
    struct host *h;
    while ((h = heap_top(&f->waiting)) != NULL && h->due <= now)
      host_schedule(f, h, now);
    if ((h = heap_top(&f->ready)) != NULL && may_take(f, h)) {
      it = take(f, h, now);
      if (it != NULL)
        break;
    }
    double deadline = INFINITY;
    if ((h = heap_top(&f->waiting)) != NULL)
      deadline = h->due;
    fitem_t *d = heap_top(&f->delayed);
    if (d != NULL && d->not_before < deadline)
      deadline = d->not_before;
    if (isinf(deadline)) {
      pthread_cond_wait(&f->work, &f->lock);
    } else {
      struct timespec ts;
      ts.tv_sec = (time_t)deadline;
      ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
      if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&f->work, &f->lock, &ts);
    }
  }
  /* Pass the baton: if work is left, a sleeping worker must see it.
   * (Work beyond the horizon is left for frontier_set_horizon to wake.) */
  if (it != NULL && (f->ready.n || f->waiting.n || f->delayed.n))
    pthread_cond_signal(&f->work);
  pthread_mutex_unlock(&f->lock);
  return it;
}

void frontier_set_horizon(frontier_t *f, uint64_t horizon)
{
  pthread_mutex_lock(&f->lock);
  if (horizon > f->horizon || f->horizon == UINT64_MAX) {
    uint64_t old = f->horizon == UINT64_MAX ? 0 : f->horizon;
    f->horizon = horizon;
    struct host *h = heap_top(&f->ready);
    if (h != NULL && first_item(h)->seq >= old &&
        first_item(h)->seq < horizon)
      pthread_cond_signal(&f->work);
  }
  pthread_mutex_unlock(&f->lock);
}

/* unqueue: take queued speculative IT out of the frontier. Caller holds
 * lock and checked FITEM_QUEUED. */
static void unqueue(frontier_t *f, fitem_t *it)
{
  struct host *h = f->host[it->host];
  if (it->flags & FITEM_DELAYED) {
    for (size_t i = 0; i < f->delayed.n; i++)
      if (f->delayed.v[i] == it) {
        heap_remove(&f->delayed, i);
        break;
      }
  } else {
    spec_unlink(h, it);
    host_schedule(f, h, frontier_now());
  }
  it->flags &= ~(FITEM_QUEUED | FITEM_DELAYED);
  f->nspec--;
}

static bool queued_spec(const fitem_t *it)
{
  return (it->flags & (FITEM_QUEUED | FITEM_SPEC)) ==
         (FITEM_QUEUED | FITEM_SPEC);
}

bool frontier_withdraw(frontier_t *f, fitem_t *it)
{
  pthread_mutex_lock(&f->lock);
  bool queued = queued_spec(it);
  if (queued)
    unqueue(f, it);
  pthread_mutex_unlock(&f->lock);
  return queued;
}

bool frontier_promote(frontier_t *f, fitem_t *it, uint64_t seq, int depth)
{
  pthread_mutex_lock(&f->lock);
  bool queued = queued_spec(it);
  if (queued) {
    unqueue(f, it);
    it->seq = seq;
    it->depth = depth;
    it->spec = NULL;
    it->flags &= ~FITEM_SPEC;
    /* Back in as an ordinary item. Cannot fail: its host exists and the
     * delayed heap has the slot it just left. */
    add(f, it, f->host[it->host]->key, it->not_before);
  }
  pthread_mutex_unlock(&f->lock);
  return queued;
}

void frontier_spec_return(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  if (f->spec_out > 0)
    f->spec_out--;
  pthread_cond_signal(&f->work);
  pthread_mutex_unlock(&f->lock);
}

void frontier_gate_done(frontier_t *f, uint32_t host)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  h->gate = GATE_OPEN;
  host_schedule(f, h, frontier_now());
  pthread_cond_signal(&f->work);
  pthread_mutex_unlock(&f->lock);
}

void frontier_gate_retry(frontier_t *f, uint32_t host, double not_before)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  h->gate = GATE_NEEDED;
  if (not_before > h->pause_until)
    h->pause_until = not_before;
  host_schedule(f, h, frontier_now());
  pthread_cond_signal(&f->work);
  pthread_mutex_unlock(&f->lock);
}

void frontier_host_pause(frontier_t *f, uint32_t host, double until)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (until > h->pause_until) {
    h->pause_until = until;
    host_schedule(f, h, frontier_now());
  }
  pthread_mutex_unlock(&f->lock);
}

void frontier_host_interval(frontier_t *f, uint32_t host, double seconds)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  double now = frontier_now();
  refill(f, h, now);
  h->interval = seconds > 0 ? seconds : 0;
  /* The new pace counts from the host's last request (its robots.txt),
   * not from a bucket filled under the old one. */
  double r = host_rate(f, h);
  if (r > 0 && h->last_take >= 0 && h->tokens > (now - h->last_take) * r)
    h->tokens = (now - h->last_take) * r;
  if (h->tokens > host_burst(f, h))
    h->tokens = host_burst(f, h);
  host_schedule(f, h, now);
  pthread_mutex_unlock(&f->lock);
}

void frontier_refund(frontier_t *f, uint32_t host)
{
  pthread_mutex_lock(&f->lock);
  struct host *h = f->host[host];
  if (host_rate(f, h) > 0) {
    double now = frontier_now();
    refill(f, h, now);
    h->tokens += 1.0;
    if (h->tokens > host_burst(f, h))
      h->tokens = host_burst(f, h);
    host_schedule(f, h, now);
    pthread_cond_signal(&f->work);
  }
  pthread_mutex_unlock(&f->lock);
}

bool frontier_host_take(frontier_t *f, const char *hostkey, double *when)
{
  pthread_mutex_lock(&f->lock);
  double now = frontier_now();
  struct host *h = host_get(f, hostkey, now);
  double due = now + 1;  /* out of memory: ask again later */
  if (h != NULL) {
    /* As host_schedule computes it, without a queue to schedule. */
    due = h->pause_until;
    double r = host_rate(f, h);
    if (r > 0) {
      refill(f, h, now);
      if (h->tokens < 1.0 - 1e-9 && now + (1.0 - h->tokens) / r > due)
        due = now + (1.0 - h->tokens) / r;
    }
    if (due <= now) {
      if (r > 0)
        h->tokens -= 1.0;
      h->last_take = now;
      host_schedule(f, h, now);  /* its queue, if any, is due later now */
    }
  }
  pthread_mutex_unlock(&f->lock);
  *when = due;
  return h != NULL && due <= now;
}

size_t frontier_count(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  size_t n = f->count;
  pthread_mutex_unlock(&f->lock);
  return n;
}

size_t frontier_hosts(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  size_t n = f->nhosts;
  pthread_mutex_unlock(&f->lock);
  return n;
}

void frontier_close(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  f->closed = true;
  pthread_cond_broadcast(&f->work);
  pthread_cond_broadcast(&f->notfull);
  pthread_mutex_unlock(&f->lock);
}

static int by_seq(const void *a, const void *b)
{
  const fitem_t *x = *(fitem_t *const *)a, *y = *(fitem_t *const *)b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

fitem_t *frontier_take_all(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  size_t n = f->count + f->nspec, k = 0;
  fitem_t **v = malloc((n ? n : 1) * sizeof(*v));
  fitem_t *list = NULL;
  if (v != NULL) {
    for (size_t i = 0; i < f->nhosts; i++) {
      struct host *h = f->host[i];
      for (fitem_t *it = h->head; it; it = it->next)
        v[k++] = it;
      for (fitem_t *it = h->shead; it; it = it->next)
        v[k++] = it;
      h->head = h->tail = h->shead = h->stail = NULL;
      if (h->where == READY)
        heap_remove(&f->ready, h->hpos);
      else if (h->where == WAITING)
        heap_remove(&f->waiting, h->hpos);
      h->where = NOWHERE;
    }
    for (size_t i = 0; i < f->delayed.n; i++)
      v[k++] = f->delayed.v[i];
    f->delayed.n = 0;
    qsort(v, k, sizeof(*v), by_seq);
    for (size_t i = k; i-- > 0;) {
      v[i]->flags &= ~(FITEM_QUEUED | FITEM_DELAYED);
      v[i]->prev = NULL;
      v[i]->next = list;
      list = v[i];
    }
    f->count = f->nspec = 0;
    free(v);
  }
  pthread_mutex_unlock(&f->lock);
  return list;
}

void frontier_delete(frontier_t *f)
{
  if (f == NULL)
    return;
  for (size_t i = 0; i < f->nhosts; i++) {
    struct host *h = f->host[i];
    while (h->head) {
      fitem_t *next = h->head->next;
      fitem_delete(h->head);
      h->head = next;
    }
    while (h->shead) {
      fitem_t *next = h->shead->next;
      fitem_delete(h->shead);
      h->shead = next;
    }
    free(h->key);
    free(h);
  }
  for (size_t i = 0; i < f->delayed.n; i++)
    fitem_delete(f->delayed.v[i]);
  free(f->delayed.v);
  free(f->ready.v);
  free(f->waiting.v);
  free(f->host);
  free(f->map);
  pthread_cond_destroy(&f->work);
  pthread_cond_destroy(&f->notfull);
  pthread_mutex_destroy(&f->lock);
  free(f);
}
