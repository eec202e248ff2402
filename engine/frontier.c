/* frontier.c: see frontier.h.
 *
 * Data: hosts live in a growable array (index = host id) and are found by
 * key through a map of 128-bit key fingerprints to ids (fptable.h).
 * A host has two queues: ordinary items (singly linked, in seq order) and
 * after them speculative ones (doubly linked, so one can be taken out of
 * the middle when the engine promotes or withdraws it). Its first item is
 * the head of the first non-empty one.
 * A host with queued items and no gate in flight is in exactly one heap:
 * READY (may be fetched now; key = seq of its first item) or WAITING (key =
 * the time it may be fetched). Items retried later sit in the DELAYED heap
 * (key = not_before, then seq) until due, then join their host's queue.
 * The heaps are heap.h's; a host's position in its heap is kept in hpos,
 * so host_schedule takes it out in O(log n). Delayed items keep no
 * position: one is taken out of the middle only when speculation
 * withdraws or promotes it, by a scan.
 * Slots: `slots` counts the items holding FITEM_SLOT (frontier.h,
 * Capacity); `count` (ordinary, in memory or spilled) and `nspec` say
 * how many are queued. Budget: each item in memory here is charged item_cost()
 * while it has FITEM_QUEUED (add charges, take, unqueue and take_all give
 * back). The spill (diskq.h) holds pushed items, oldest first. Only pushes
 * write it, so a full disk is reported to the pusher (-3); pops read it
 * (spill_load), and a read error closes the frontier (frontier_error).
 *
 * Lock: f->lock guards everything in struct frontier and struct host.
 * Condition variables (both on f->lock, monotonic clock):
 *   work     waited on by frontier_pop while nothing is due; signalled when
 *            an item or host may have become due earlier (push, requeue,
 *            promote, gate done or retried, refund, a raised horizon, a
 *            speculative item returned, a push starting to wait for
 *            capacity, which lifts the horizon), when a push goes to the
 *            spill, and when the horizon rises while items are on disk;
 *            passed on by a pop that leaves work behind (spilled items
 *            count), so a sleeping worker always holds the next deadline;
 *            broadcast by frontier_close. Waiters re-check: closed, the
 *            spill (loaded below 3/4 of the budget; forced, once per wait,
 *            when no host is ready, waiting or delayed and no gate is
 *            out, or when the horizon lets through what is on disk), a
 *            ready host, or the earliest deadline. Only one waiter
 *            sleeps until a given deadline (`timer`: the earliest one a
 *            waiter has set); the others wait for a signal, and the baton
 *            a pop passes on makes one of them the next timekeeper.
 *   notfull  waited on by frontier_push while every slot is taken;
 *            signalled by frontier_done, by a withdrawal and, with
 *            queue_only, by a pop (a slot freed), broadcast by close. Waiters
 * re-check: closed or a free slot. */
#include "frontier.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "clock.h"
#include "diskq.h"
#include "fptable.h"
#include "frontier_int.h"
#include "heap.h"

/* struct host, struct frontier: frontier_int.h. */

/* ---- items ---- */

/* item_cost: what IT costs the budget while held here. */
static size_t item_cost(const fitem_t *it)
{
  return sizeof(*it) + strlen(it->url) + 1 + BUDGET_OVERHEAD;
}

/* ---- heaps ---- */

static bool ready_less(const void *a, const void *b)
{
  const struct host *x = a, *y = b;
  return frontier_first(x)->seq < frontier_first(y)->seq;
}

static bool waiting_less(const void *a, const void *b)
{
  const struct host *x = a, *y = b;
  return x->due < y->due;
}

static bool delayed_less(const void *a, const void *b)
{
  const fitem_t *x = a, *y = b;
  return x->not_before < y->not_before ||
         (x->not_before == y->not_before && x->seq < y->seq);
}

/* ---- hosts ---- */

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
  f->horizon = cfg->horizon ? cfg->horizon : UINT64_MAX;
  f->timer = INFINITY;
  if (cfg->spill_path != NULL &&
      (f->spill = diskq_new(cfg->spill_path, SPILL_BUF, cfg->budget)) == NULL) {
    free(f);
    return NULL;
  }
  f->cfg.spill_path = NULL; /* not kept: the spill has its copy */
  if (f->cfg.burst < 1)
    f->cfg.burst = 1;
  f->cap_hosts = 16;
  f->host = malloc(f->cap_hosts * sizeof(*f->host));
  f->map = fptable_new(sizeof(uint32_t), 0);
  f->ready = heap_new(ready_less, offsetof(struct host, hpos));
  f->waiting = heap_new(waiting_less, offsetof(struct host, hpos));
  f->delayed = heap_new(delayed_less, HEAP_NO_POS);
  pthread_condattr_t ca;
  bool ok = f->host && f->map && f->ready && f->waiting && f->delayed &&
            pthread_condattr_init(&ca) == 0;
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
    fptable_delete(f->map);
    heap_delete(f->ready);
    heap_delete(f->waiting);
    heap_delete(f->delayed);
    diskq_delete(f->spill);
    free(f);
    return NULL;
  }
  return f;
}

/* add: put IT into H's queue (or the delayed heap), charged to the
 * budget unless CHARGED says the caller did. Caller holds lock.
 * Returns 0, or -2 if out of memory (nothing changed). */
static int add(frontier_t *f, fitem_t *it, struct host *h, double not_before,
               bool charged)
{
  double now = clock_now();
  it->host = h->id;
  it->not_before = not_before;
  /* Earlier: the item may be due before what a sleeper was told (it
   * delays least, or it is its host's first now); else it waits behind
   * an item that sets its host's time, and only the threads' condition
   * is signalled: the config's wake would cost an event loop a round for
   * every URL a parser adds. */
  bool earlier;
  if (not_before > now) {
    if (!heap_push(f->delayed, it))
      return -2;
    it->flags |= FITEM_DELAYED;
    earlier = heap_top(f->delayed) == it;
  } else {
    const fitem_t *first = frontier_first(h);
    int where = h->where;
    double due = h->due;
    enqueue(h, it);
    frontier_schedule(f, h, now);
    earlier = frontier_first(h) != first || h->where != where ||
              (h->where == WAITING && h->due < due - 1e-6);
  }
  if (!charged)
    budget_force(f->cfg.budget, item_cost(it));
  it->flags |= FITEM_QUEUED;
  if (it->flags & FITEM_SPEC)
    f->nspec++;
  else
    f->count++;
  if (earlier)
    frontier_work(f);
  else
    pthread_cond_signal(&f->work);
  return 0;
}

/* ---- the spill ---- */

/* A record: this header, then the URL's bytes. */
struct spill_rec {
  uint64_t seq;
  int32_t depth;
  uint32_t host;
};

/* spill_write: append IT (queued for host H) to the spill and free it.
 * Returns 0, or -2 (out of memory) or -3 (a write failed, errno); then IT
 * stays the caller's. */
static int spill_write(frontier_t *f, fitem_t *it, const struct host *h)
{
  struct spill_rec r = { it->seq, it->depth, h->id };
  size_t len = strlen(it->url);
  char *rec = malloc(sizeof(r) + len);
  if (rec == NULL)
    return -2;
  memcpy(rec, &r, sizeof(r));
  memcpy(rec + sizeof(r), it->url, len);
  int rc = diskq_push(f->spill, rec, sizeof(r) + len);
  free(rec);
  if (rc != 0)
    return rc == -1 ? -3 : -2;
  f->count++;
  fitem_delete(it);
  frontier_work(f); /* a pop takes it back if it can */
  return 0;
}

/* spill_next: the oldest spilled item, as a new item holding its slot, or
 * NULL (out of memory, or a read error: then f->error is set). */
static fitem_t *spill_next(frontier_t *f)
{
  size_t len;
  char *rec = diskq_pop(f->spill, &len);
  if (rec == NULL) {
    if (errno != ENOMEM)
      f->error = errno ? errno : EIO;
    return NULL;
  }
  struct spill_rec r;
  memcpy(&r, rec, sizeof(r));
  fitem_t *it = fitem_new(rec + sizeof(r), r.depth); /* NUL-terminated */
  free(rec);
  if (it == NULL) {
    f->error = ENOMEM; /* the record is gone: the crawl cannot be exact */
    return NULL;
  }
  it->seq = r.seq;
  it->host = r.host;
  it->flags = FITEM_SLOT;
  return it;
}

/* spill_load: bring up to a batch of spilled items back into their hosts'
 * queues, while the budget has room (or, if FORCE, a whole batch: nothing
 * else can be handed out). A failure closes the frontier (frontier_error).
 * Caller holds lock. */
static void spill_load(frontier_t *f, bool force)
{
  for (int i = 0; i < SPILL_BATCH && diskq_count(f->spill) > 0; i++) {
    if (!force && budget_full(f->cfg.budget, 0.75))
      break;
    fitem_t *it = spill_next(f);
    if (it == NULL && force && !f->error)
      f->error = ENOMEM; /* forced: nothing else can go on; fail */
    if (it == NULL) {
      if (f->error) {
        f->closed = true;
        frontier_work_all(f);
        pthread_cond_broadcast(&f->notfull);
      }
      return;
    }
    f->count--;                                    /* add() counts it again */
    (void)add(f, it, f->host[it->host], 0, false); /* cannot fail */
  }
}

/* spilled: whether items wait on disk. */
static bool spilled(const frontier_t *f)
{
  return f->spill != NULL && diskq_count(f->spill) > 0;
}

/* spill_below_horizon: whether the oldest spilled item is below the
 * horizon (a read error counts as yes: spill_load then reports it). */
static bool spill_below_horizon(frontier_t *f)
{
  struct spill_rec r;
  if (!spilled(f))
    return false;
  return diskq_peek(f->spill, &r, sizeof(r)) != 0 || r.seq < f->horizon;
}

/* slot_take: give IT a slot if it has none. Caller holds lock. */
static void slot_take(frontier_t *f, fitem_t *it)
{
  if (!(it->flags & FITEM_SLOT)) {
    it->flags |= FITEM_SLOT;
    f->slots++;
  }
}

static bool full(const frontier_t *f)
{
  return f->cfg.capacity && f->slots >= f->cfg.capacity;
}

bool frontier_push_waiting(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  bool w = f->push_waiters > 0;
  pthread_mutex_unlock(&f->lock);
  return w;
}

int frontier_push(frontier_t *f, fitem_t *it, const char *hostkey)
{
  pthread_mutex_lock(&f->lock);
  while (!f->closed && full(f)) {
    f->push_waiters++;
    frontier_work(f); /* a pop may now pass the horizon */
    pthread_cond_wait(&f->notfull, &f->lock);
    f->push_waiters--;
  }
  int rc = -1;
  struct host *h = NULL;
  if (!f->closed && (h = frontier_host_get(f, hostkey, clock_now())) == NULL)
    rc = -2;
  if (h != NULL) {
    /* In memory if it fits and nothing older waits on disk; else on disk.
     * Without a spill file, in memory (charged) whatever the budget. */
    bool spill = f->spill != NULL && diskq_count(f->spill) > 0;
    bool charged = false;
    if (f->spill != NULL && !spill) {
      charged = budget_take(f->cfg.budget, item_cost(it));
      spill = !charged;
    }
    if (spill) {
      rc = spill_write(f, it, h); /* frees IT on success */
    } else {
      rc = add(f, it, h, 0, charged);
      if (rc == 0)
        it->flags |= FITEM_SLOT;
      else if (charged)
        budget_give(f->cfg.budget, item_cost(it));
    }
    if (rc == 0)
      f->slots++;
  }
  pthread_mutex_unlock(&f->lock);
  return rc;
}

int frontier_requeue(frontier_t *f, fitem_t *it, const char *hostkey,
                     double not_before)
{
  pthread_mutex_lock(&f->lock);
  int rc = -1;
  if (!f->closed) {
    struct host *h = frontier_host_get(f, hostkey, clock_now());
    if (h == NULL)
      rc = -2;
    else if (!(it->flags & FITEM_SLOT) && !f->cfg.queue_only &&
             (full(f) || f->push_waiters > 0))
      rc = -4; /* a free slot goes to the push waiting for it */
    else if ((rc = add(f, it, h, not_before, false)) == 0)
      slot_take(f, it);
  }
  pthread_mutex_unlock(&f->lock);
  return rc;
}

void frontier_done(frontier_t *f, fitem_t *it)
{
  if (!(it->flags & FITEM_SLOT))
    return;
  pthread_mutex_lock(&f->lock);
  it->flags &= ~FITEM_SLOT;
  f->slots--;
  pthread_cond_signal(&f->notfull);
  pthread_mutex_unlock(&f->lock);
}

int frontier_error(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  int e = f->error;
  pthread_mutex_unlock(&f->lock);
  return e;
}

/* release_delayed: move delayed items that are due into their hosts. */
static void release_delayed(frontier_t *f, double now)
{
  fitem_t *it;
  while ((it = heap_top(f->delayed)) != NULL && it->not_before <= now) {
    heap_pop(f->delayed);
    it->flags &= ~FITEM_DELAYED;
    struct host *h = f->host[it->host];
    enqueue(h, it);
    frontier_schedule(f, h, now);
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
    f->gates_out++;
  } else if (h->head != NULL) {
    it = h->head;
    h->head = it->next;
    if (h->head == NULL)
      h->tail = NULL;
    it->next = NULL;
    it->flags &= ~FITEM_QUEUED;
    f->count--;
    budget_give(f->cfg.budget, item_cost(it));
  } else {
    it = h->shead;
    spec_unlink(h, it);
    it->flags &= ~FITEM_QUEUED;
    f->nspec--;
    f->spec_out++;
    budget_give(f->cfg.budget, item_cost(it));
  }
  it->host = h->id;
  if (f->cfg.queue_only && (it->flags & FITEM_SLOT)) {
    it->flags &= ~FITEM_SLOT; /* it has left the queue */
    f->slots--;
    pthread_cond_signal(&f->notfull);
  }
  if (frontier_host_rate(f, h) > 0) {
    frontier_refill(f, h, now);
    h->tokens -= 1.0;
  }
  h->last_take = now;
  frontier_schedule(f, h, now);
  return it;
}

/* may_take: whether ready host H may hand out its next item now. */
static bool may_take(const frontier_t *f, const struct host *h)
{
  const fitem_t *first = frontier_first(h);
  if (first->flags & FITEM_SPEC)
    /* Past the bound too when a push waits for a slot: fetching it is
     * what frees one, if speculative items hold them all. */
    return f->cfg.spec_out == 0 || f->spec_out < f->cfg.spec_out ||
           f->push_waiters > 0;
  return first->seq < f->horizon || f->push_waiters > 0;
}

/* pop_once: the next item of a host that may be fetched now, taking one
 * of its tokens; or NULL, with *DEADLINE the earliest time one may fall
 * due (INFINITY: none before a signal of `work`). *FORCED: a forced load
 * of the spill was made since the caller last waited (one a wait, not
 * one a look). Caller holds lock; F is open. */
static fitem_t *pop_once(frontier_t *f, bool *forced, double *deadline)
{
  for (;;) {
    double now = clock_now();
    if (f->spill != NULL && diskq_count(f->spill) > 0)
      spill_load(f, false);
    release_delayed(f, now);
    struct host *h;
    while ((h = heap_top(f->waiting)) != NULL && h->due <= now)
      frontier_schedule(f, h, now);
    h = heap_top(f->ready);
    if (!*forced && h == NULL && heap_count(f->waiting) == 0 &&
        heap_count(f->delayed) == 0 && f->gates_out == 0 && spilled(f)) {
      /* All that is left waits on disk (no host waits for a token or
       * its robots.txt): take a batch back whatever the budget says, or
       * nothing would ever be handed out again. */
      spill_load(f, true);
      *forced = true;
      continue;
    }
    if (!*forced && h != NULL && !may_take(f, h) && spill_below_horizon(f)) {
      /* The horizon holds back what is in memory (items promoted after
       * the spill began), and items it lets through wait on disk. */
      spill_load(f, true);
      *forced = true;
      continue;
    }
    if (h != NULL && may_take(f, h)) {
      fitem_t *it = take(f, h, now);
      if (it != NULL)
        return it;
    }
    *deadline = INFINITY;
    if ((h = heap_top(f->waiting)) != NULL)
      *deadline = h->due;
    fitem_t *d = heap_top(f->delayed);
    if (d != NULL && d->not_before < *deadline)
      *deadline = d->not_before;
    return NULL;
  }
}

fitem_t *frontier_pop(frontier_t *f)
{
  fitem_t *it = NULL;
  bool forced = false; /* one forced load per wait */
  pthread_mutex_lock(&f->lock);
  while (!f->closed) {
    double deadline;
    if ((it = pop_once(f, &forced, &deadline)) != NULL)
      break;
    if (isinf(deadline) || deadline >= f->timer) {
      /* Nothing will be due, or another waiter wakes by then and passes
       * the baton: one timed waiter per deadline, or every idle worker
       * of a large pool would wake at each due time, and all but one
       * sleep again (a storm of wake-ups at hundreds of threads). */
      pthread_cond_wait(&f->work, &f->lock);
    } else {
      f->timer = deadline;
      struct timespec ts;
      ts.tv_sec = (time_t)deadline;
      ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
      if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&f->work, &f->lock, &ts);
      if (f->timer == deadline)
        f->timer = INFINITY; /* the next waiter keeps the time */
    }
    forced = false; /* a wait between forced loads, not one per call */
  }
  /* Pass the baton: if work is left, a sleeping worker must see it.
   * (Work beyond the horizon is left for frontier_set_horizon to wake.) */
  if (it != NULL && (heap_count(f->ready) || heap_count(f->waiting) ||
                     heap_count(f->delayed) || spilled(f)))
    pthread_cond_signal(&f->work);
  pthread_mutex_unlock(&f->lock);
  return it;
}

int frontier_try_pop(frontier_t *f, fitem_t **out, double *due)
{
  bool forced = false; /* the caller waits between calls */
  int rc = -1;
  *out = NULL;
  *due = INFINITY;
  pthread_mutex_lock(&f->lock);
  if (!f->closed) {
    *out = pop_once(f, &forced, due);
    rc = *out != NULL;
  }
  pthread_mutex_unlock(&f->lock);
  return rc;
}

void frontier_set_horizon(frontier_t *f, uint64_t horizon)
{
  pthread_mutex_lock(&f->lock);
  if (horizon > f->horizon || f->horizon == UINT64_MAX) {
    uint64_t old = f->horizon == UINT64_MAX ? 0 : f->horizon;
    f->horizon = horizon;
    struct host *h = heap_top(f->ready);
    if ((h != NULL && frontier_first(h)->seq >= old &&
         frontier_first(h)->seq < horizon) ||
        spilled(f)) /* what the horizon now lets through may be on disk */
      frontier_work(f);
  }
  pthread_mutex_unlock(&f->lock);
}

/* unqueue: take queued speculative IT out of the frontier. Caller holds
 * lock and checked FITEM_QUEUED. */
static void unqueue(frontier_t *f, fitem_t *it)
{
  struct host *h = f->host[it->host];
  if (it->flags & FITEM_DELAYED) {
    for (size_t i = 0; i < heap_count(f->delayed); i++)
      if (heap_get(f->delayed, i) == it) {
        heap_remove(f->delayed, i);
        break;
      }
  } else {
    spec_unlink(h, it);
    frontier_schedule(f, h, clock_now());
  }
  it->flags &= ~(FITEM_QUEUED | FITEM_DELAYED);
  f->nspec--;
  budget_give(f->cfg.budget, item_cost(it));
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
  if (queued) {
    unqueue(f, it);
    if (it->flags & FITEM_SLOT) { /* the caller drops it */
      it->flags &= ~FITEM_SLOT;
      f->slots--;
      pthread_cond_signal(&f->notfull);
    }
  }
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
    /* Back in as an ordinary item, in the slot it holds. Cannot fail:
     * the delayed heap has the place it just left. */
    add(f, it, f->host[it->host], it->not_before, false);
  }
  pthread_mutex_unlock(&f->lock);
  return queued;
}

void frontier_spec_return(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  if (f->spec_out > 0)
    f->spec_out--;
  frontier_work(f);
  pthread_mutex_unlock(&f->lock);
}

void frontier_stats(frontier_t *f, double now, frontier_stats_t *st)
{
  pthread_mutex_lock(&f->lock);
  st->queued = f->count;
  st->hosts = f->nhosts;
  st->bound = 0;
  if (f->cfg.rate > 0)
    for (size_t i = 0; i < f->nhosts; i++)
      st->bound += f->cfg.burst + f->cfg.rate * (now - f->host[i]->born);
  st->error = f->error;
  pthread_mutex_unlock(&f->lock);
}

void frontier_close(frontier_t *f)
{
  pthread_mutex_lock(&f->lock);
  f->closed = true;
  frontier_work_all(f);
  pthread_cond_broadcast(&f->notfull);
  pthread_mutex_unlock(&f->lock);
}

/* take_one: IT leaves the frontier's counts and budget (its slot stays,
 * for frontier_done); appended to the list ending at **TAIL. */
static void take_one(frontier_t *f, fitem_t *it, fitem_t ***tail)
{
  budget_give(f->cfg.budget, item_cost(it));
  it->flags &= ~(FITEM_QUEUED | FITEM_DELAYED);
  it->prev = it->next = NULL;
  **tail = it;
  *tail = &it->next;
}

fitem_t *frontier_take_host(frontier_t *f, uint32_t host)
{
  fitem_t *list = NULL, **tail = &list;
  pthread_mutex_lock(&f->lock);
  if (host >= f->nhosts) {
    pthread_mutex_unlock(&f->lock);
    return NULL;
  }
  struct host *h = f->host[host];
  for (fitem_t *it = h->head, *next; it != NULL; it = next) {
    next = it->next;
    f->count--;
    take_one(f, it, &tail);
  }
  for (fitem_t *it = h->shead, *next; it != NULL; it = next) {
    next = it->next;
    f->nspec--;
    take_one(f, it, &tail);
  }
  h->head = h->tail = h->shead = h->stail = NULL;
  /* Its delayed items too: the heap rebuilt without them (no room is
   * needed, it only shrinks). */
  size_t n = heap_count(f->delayed);
  fitem_t **v = n ? malloc(n * sizeof(*v)) : NULL;
  if (v != NULL) {
    for (size_t i = 0; i < n; i++)
      v[i] = heap_get(f->delayed, i);
    heap_clear(f->delayed);
    for (size_t i = 0; i < n; i++) {
      if (v[i]->host != host) {
        (void)heap_push(f->delayed, v[i]);
        continue;
      }
      if (v[i]->flags & FITEM_SPEC)
        f->nspec--;
      else
        f->count--;
      take_one(f, v[i], &tail);
    }
    free(v);
  }
  frontier_schedule(f, h, clock_now());
  pthread_mutex_unlock(&f->lock);
  return list;
}

/* drop_one: IT, still held, goes to the config's drop (frontier_delete),
 * its charge given back. */
static void drop_one(frontier_t *f, fitem_t *it)
{
  size_t cost = item_cost(it);
  budget_give(f->cfg.budget, cost);
  it->flags &= ~(FITEM_QUEUED | FITEM_DELAYED | FITEM_SLOT);
  it->prev = it->next = NULL;
  if (f->cfg.drop != NULL)
    f->cfg.drop(f->cfg.drop_arg, it);
  else
    fitem_delete(it);
}

static void drop_list(frontier_t *f, fitem_t *it)
{
  while (it != NULL) {
    fitem_t *next = it->next;
    drop_one(f, it);
    it = next;
  }
}

void frontier_delete(frontier_t *f)
{
  if (f == NULL)
    return;
  for (size_t i = 0; i < f->nhosts; i++) {
    struct host *h = f->host[i];
    drop_list(f, h->head);
    drop_list(f, h->shead);
    free(h->key);
    free(h);
  }
  for (size_t i = 0; i < heap_count(f->delayed); i++)
    drop_one(f, heap_get(f->delayed, i));
  heap_delete(f->delayed);
  heap_delete(f->ready);
  heap_delete(f->waiting);
  free(f->host);
  fptable_delete(f->map);
  diskq_delete(f->spill);
  pthread_cond_destroy(&f->work);
  pthread_cond_destroy(&f->notfull);
  pthread_mutex_destroy(&f->lock);
  free(f);
}
