/* engine.c: see engine.h. The engine's data, its locks and condition
 * variables are described in engine_int.h; speculation is in
 * engine_spec.c.
 *
 * Elastic download pool (cfg.download_max > cfg.download_workers): the
 * pool starts with download_workers threads. A thread that takes an item
 * while no other download thread waits in frontier_pop (`idle` is 0), no
 * downloader waits for a parser (`space_wait` is 0: more downloads would
 * only wait too), the budget is less than three quarters full (a thread,
 * its transfer and its share of the allocator are outside the budget, so
 * a crawl short of memory does not add them; speculation stops there
 * too) and the pool is below download_max starts GROW_STEP more
 * threads, which go straight to frontier_pop: the pool grows as fast as
 * items fall due with nobody free to take them (doubling while a burst
 * of due items lasts: a thousand new hosts' robots.txt at once), and
 * stops with a thread or two idle. Since the frontier hands out only
 * what politeness allows (token buckets, robots.txt gates, Crawl-delay,
 * Retry-After), what the pool follows is the work that is due, never
 * more: at --rate 1, as many threads as requests in flight need. A
 * thread that finishes an item while more than 2 + threads/4 others stand
 * idle and the pool has not grown for GROW_QUIET ms leaves, down to
 * download_workers: idle threads cost no CPU (they sleep on the
 * frontier's condition variable), only memory, so the pool shrinks
 * slowly and never oscillates at the pace of single requests. Grown
 * threads are detached, with a DL_STACK stack; every download thread is
 * counted in `downloaders` from before it starts until its last unlock,
 * and engine_run returns only once that count is 0, so no thread touches
 * the engine after engine_run. The counts `idle`, `threads` and
 * `space_wait` are atomics: the grow and leave decisions read them
 * without a lock, and a decision made on a stale count costs one thread
 * too many or too few for a moment, never a lost item (a leaving thread
 * holds none) nor a wait without a waker (every other thread still
 * serves the frontier).
 *
 * The reorder buffer (ordered mode) is a min-heap (heap.h) of parsed
 * items by seq.
 * The thread that finds the next seq at the top and nobody committing
 * becomes the committer: it commits items one by one, without the lock,
 * until the next seq is missing. Others just leave their item there. */
#include "engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "clock.h"
#include "crawl.h"
#include "engine_int.h"
#include "fptable.h"
#include "heap.h"

/* The elastic pool (above): a grown thread's stack (the hooks' deepest
 * path, libcurl with TLS, uses a small part of it; only the pages touched
 * count in memory), and how long the pool must not have grown before a
 * thread may leave. */
enum { DL_STACK = 1024 * 1024, GROW_QUIET = 1000, GROW_STEP = 2 };

/* seq_less: the reorder heap's order. */
static bool seq_less(const void *a, const void *b)
{
  const fitem_t *x = a, *y = b;
  return x->seq < y->seq;
}

/* horizon_at: the seq downloads may not reach while the item with seq
 * FROM is the first one not committed (or being committed): cfg.window
 * and engine_want's bound, whichever is nearer; UINT64_MAX = none.
 * Caller holds e->lock (or no other thread has E yet). */
static uint64_t horizon_at(engine_t *e, uint64_t from)
{
  uint64_t h = UINT64_MAX;
  if (e->cfg.window)
    h = from + 1 + e->cfg.window;
  if (e->wanted != UINT64_MAX && from + e->wanted < h)
    h = from + e->wanted;
  return h;
}

/* drop_queued: the frontier's drop (frontier_config_t): an item still
 * queued when the engine is deleted. */
static void drop_queued(void *arg, fitem_t *it)
{
  engine_drop(arg, it);
}

/* source_whole: every call of SRC is there (the engine calls each
 * without asking). */
static bool source_whole(const engine_source_t *src)
{
  return src->add != NULL && src->seen != NULL && src->admit != NULL &&
         src->gate_done != NULL && src->publish != NULL &&
         src->commit_begin != NULL && src->committed != NULL &&
         src->release != NULL;
}

engine_t *engine_new(const engine_config_t *cfg)
{
  const engine_hooks_t *h = cfg->hooks;
  const engine_source_t *src = cfg->source ? cfg->source : &engine_local_source;
  if (!source_whole(src) || h == NULL || h->fetch == NULL || h->parse == NULL ||
      (cfg->ordered && h->commit == NULL) || cfg->download_workers < 1 ||
      cfg->parse_workers < 1 || cfg->download_workers > ENGINE_MAX_WORKERS ||
      cfg->parse_workers > ENGINE_MAX_WORKERS ||
      cfg->download_max > ENGINE_MAX_WORKERS ||
      (!src->unordered && !cfg->ordered) || (cfg->queue_only && cfg->ordered))
    return NULL;
  engine_t *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  e->cfg = *cfg;
  e->hooks = *h;
  /* What the source does not allow (engine.h, engine_source_t). */
  e->cfg.source = src;
  if (!src->speculate)
    e->cfg.speculate = 0;
  if (!src->horizon)
    e->cfg.window = e->cfg.want = 0;
  if (!src->spill)
    e->cfg.spill_path = NULL;
  e->wanted = cfg->ordered && e->cfg.want ? e->cfg.want : UINT64_MAX;
  frontier_config_t fc = { .wake = cfg->wake,
                           .wake_arg = cfg->wake_arg,
                           .capacity = cfg->queue_size,
                           .queue_only = cfg->queue_only,
                           .rate = cfg->rate,
                           .burst = cfg->burst,
                           .gate = cfg->gate,
                           .spec_out = cfg->speculate_out,
                           /* Nothing is committed yet. */
                           .horizon = cfg->ordered ? horizon_at(e, 0) : 0,
                           .start_empty = src->start_empty,
                           .budget = cfg->budget,
                           .spill_path = e->cfg.spill_path,
                           .drop = drop_queued,
                           .drop_arg = e };
  e->frontier = frontier_new(&fc);
  e->seen = fptable_new(0, 1024);
  e->order = heap_new(seq_less, HEAP_NO_POS);
  bool speculate = cfg->ordered && e->cfg.speculate > 0;
  if (speculate)
    e->smap = fptable_new(sizeof(struct spec *),
                          cfg->speculate < 1024 ? cfg->speculate : 1024);
  if (e->frontier == NULL || e->seen == NULL || e->order == NULL ||
      (speculate && e->smap == NULL)) {
    frontier_delete(e->frontier);
    fptable_delete(e->seen);
    heap_delete(e->order);
    fptable_delete(e->smap);
    free(e);
    return NULL;
  }
  pthread_mutex_init(&e->seen_lock, NULL);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->fetched, NULL);
  pthread_cond_init(&e->space, NULL);
  atomic_init(&e->pending, 0);
  atomic_init(&e->stopped, false);
  atomic_init(&e->failure, 0);
  return e;
}

frontier_t *engine_frontier(engine_t *e)
{
  return e->frontier;
}

void engine_stats(engine_t *e, engine_stats_t *st)
{
  frontier_stats(e->frontier, clock_now(), st);
}

bool engine_stopped(engine_t *e)
{
  return atomic_load(&e->stopped);
}

void engine_drop(engine_t *e, fitem_t *it)
{
  if (e->hooks.release)
    e->hooks.release(e->cfg.ctx, it);
  if (it->ticket != NULL)
    e->cfg.source->release(e->cfg.source_ctx, it);
  fitem_delete(it);
}

/* An 80-bit fingerprint (engine.h, engine_source_t.fp80). */
#define FP80_MASK UINT64_C(0xffff000000000000)

void engine_fingerprint(const engine_t *e, const char *url, uint64_t fp[2])
{
  fptable_hash128(url, strlen(url), fp);
  if (e->cfg.source->fp80)
    fp[0] &= FP80_MASK;
}

/* drop_list: drop every item of a list linked by ->next. No lock held. */
static void drop_list(engine_t *e, fitem_t *it)
{
  while (it) {
    fitem_t *next = it->next;
    engine_drop(e, it);
    it = next;
  }
}

/* finish_item: the item is done; the last one ends the crawl. */
static void finish_item(engine_t *e, fitem_t *it)
{
  engine_drop(e, it);
  if (atomic_fetch_sub(&e->pending, 1) == 1)
    frontier_close(e->frontier);
}

/* queue_fetched: put IT on the queue for the parse threads, waking none
 * (the caller signals `fetched`). Caller holds e->lock. */
static void queue_fetched(engine_t *e, fitem_t *it)
{
  it->next = NULL;
  e->nfetched++;
  if (e->ptail)
    e->ptail->next = it;
  else
    e->phead = it;
  e->ptail = it;
}

void engine_append_fetched(engine_t *e, fitem_t *it)
{
  queue_fetched(e, it);
  pthread_cond_signal(&e->fetched);
}

int engine_mark_seen(engine_t *e, const char *url)
{
  uint64_t fp[2];
  engine_fingerprint(e, url, fp);
  pthread_mutex_lock(&e->seen_lock);
  int rc = fptable_insert(e->seen, fp, NULL);
  pthread_mutex_unlock(&e->seen_lock);
  if (rc == 1) {
    engine_spec_claim(e, fp, false, 0, 0);
    int err = e->cfg.source->seen(e->cfg.source_ctx, url, fp);
    if (err != 0) {
      engine_fail(e, err);
      return -1;
    }
  }
  return rc < 0 ? -2 : rc;
}

int engine_add(engine_t *e, const char *url, int depth, const char *hostkey)
{
  if (atomic_load(&e->stopped))
    return -1;
  fitem_t *it = fitem_new(url, depth);
  if (it == NULL)
    return -2;
  uint64_t fp[2];
  engine_fingerprint(e, url, fp);
  pthread_mutex_lock(&e->seen_lock);
  int rc = fptable_insert(e->seen, fp, NULL);
  if (rc == 1)
    it->seq = e->next_seq++;
  pthread_mutex_unlock(&e->seen_lock);
  if (rc != 1) {
    fitem_delete(it);
    return rc < 0 ? -2 : 0;
  }
  /* Queued where the source keeps the crawl's items (engine.h). */
  return e->cfg.source->add(e->cfg.source_ctx, e, it, fp, hostkey);
}

/* Whether this thread is a driver's (driver_main). */
static _Thread_local bool in_driver;

/* fetched_full: whether a push into the page queue waits for a parser
 * (`space`, engine_int.h). Caller holds lock. */
static bool fetched_full(const engine_t *e)
{
  return e->cfg.fetched_limit && e->nfetched >= e->cfg.fetched_limit &&
         e->pushing == 0 && !atomic_load(&e->stopped);
}

void engine_push_fetched(engine_t *e, fitem_t *it)
{
  frontier_done(e->frontier, it);
  /* The driver's thread runs every transfer: it never waits here (what it
   * pushes over the limit is bounded by what it had in flight, as
   * engine_next starts nothing while the queue is full). */
  pthread_mutex_lock(&e->lock);
  while (!in_driver && fetched_full(e)) {
    atomic_fetch_add(&e->space_wait, 1);
    pthread_cond_wait(&e->space, &e->lock);
    atomic_fetch_sub(&e->space_wait, 1);
  }
  queue_fetched(e, it);
  pthread_mutex_unlock(&e->lock);
  /* Signalled once unlocked, so that the parse thread it wakes does not
   * wake only to wait for the lock this thread still holds. */
  pthread_cond_signal(&e->fetched);
}

void engine_requeue(engine_t *e, fitem_t *it, const char *new_url,
                    const char *hostkey, double not_before)
{
  /* The download worker still owns IT here; a failure hands it to parse
   * so the item is finished (and counted) like any failed fetch. */
  if (it->flags & FITEM_SPEC) {
    engine_spec_requeue(e, it, new_url, hostkey, not_before);
    return;
  }
  fitem_t *n = it;
  if (new_url != NULL) {
    n = fitem_set_url(it, new_url);
    if (n == NULL) {
      engine_push_fetched(e, it);
      return;
    }
  }
  if (frontier_requeue(e->frontier, n, hostkey, not_before) != 0)
    engine_push_fetched(e, n);
}

static void *download_main(void *arg);

static bool elastic(const engine_t *e)
{
  return e->cfg.download_max > e->cfg.download_workers;
}

static long long now_ms(void)
{
  return (long long)(clock_now() * 1000.0);
}

/* grow_one: start one more download thread if the pool may grow. */
static void grow_one(engine_t *e)
{
  if (atomic_load(&e->space_wait) > 0 || atomic_load(&e->stopped) ||
      budget_full(e->cfg.budget, 0.75))
    return;
  int n = atomic_load(&e->threads);
  do {
    if (n >= e->cfg.download_max)
      return;
  } while (!atomic_compare_exchange_weak(&e->threads, &n, n + 1));
  atomic_store(&e->last_grow, now_ms());
  pthread_mutex_lock(&e->lock);
  e->downloaders++; /* not 0 meanwhile: the caller is one */
  pthread_mutex_unlock(&e->lock);
  pthread_attr_t at;
  pthread_t tid;
  int rc = pthread_attr_init(&at);
  if (rc == 0) {
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, DL_STACK);
    rc = pthread_create(&tid, &at, download_main, e);
    pthread_attr_destroy(&at);
  }
  if (rc != 0) {
    /* The pool stays as it is; the crawl goes on at its size. */
    atomic_fetch_sub(&e->threads, 1);
    pthread_mutex_lock(&e->lock);
    e->downloaders--;
    pthread_mutex_unlock(&e->lock);
  }
}

/* grow: the calling download thread took an item and found nobody idle:
 * start GROW_STEP more download threads if the pool may grow (see the
 * top). */
static void grow(engine_t *e)
{
  for (int i = 0; i < GROW_STEP; i++)
    grow_one(e);
}

/* leave: whether the calling download thread, holding no item, should
 * leave the pool now (see the top); if so it is no longer counted in
 * `threads`. */
static bool leave(engine_t *e)
{
  int n = atomic_load(&e->threads);
  if (n <= e->cfg.download_workers || atomic_load(&e->idle) <= 2 + n / 4 ||
      now_ms() - atomic_load(&e->last_grow) < GROW_QUIET)
    return false;
  return atomic_compare_exchange_strong(&e->threads, &n, n - 1);
}

/* refuse: popped IT is not to be fetched here (engine_source_t.admit):
 * no request, its token back. */
static void refuse(engine_t *e, fitem_t *it)
{
  frontier_refund(e->frontier, it->host);
  if (it->flags & FITEM_GATE) {
    /* Its robots.txt neither: the gate stays needed, for when the host
     * is admitted again, and the items waiting behind it go as refused
     * ones do (they would hold their places here). */
    fitem_t *gone = frontier_take_host(e->frontier, it->host);
    frontier_gate_retry(e->frontier, it->host, 0);
    frontier_done(e->frontier, it);
    fitem_delete(it);
    while (gone != NULL) {
      fitem_t *next = gone->next;
      frontier_done(e->frontier, gone);
      finish_item(e, gone);
      gone = next;
    }
    return;
  }
  frontier_done(e->frontier, it);
  finish_item(e, it);
}

/* admitted: popped IT into *JOB if the source admits it; else it is
 * refused (handled) and false returned. */
static bool admitted(engine_t *e, fitem_t *it, engine_job_t *job)
{
  if (!e->cfg.source->admit(e->cfg.source_ctx, it)) {
    refuse(e, it);
    return false;
  }
  /* A gate's fetch consumes it: its host kept for gate_done. */
  *job = (engine_job_t){ .it = it,
                         .host = it->host,
                         .gate = (it->flags & FITEM_GATE) != 0 };
  return true;
}

/* full_for_driver: whether the page queue is full for the driver, noted in
 * driver_full so that the pop making room wakes it. */
static bool full_for_driver(engine_t *e)
{
  pthread_mutex_lock(&e->lock);
  bool full = e->driver_full = fetched_full(e);
  pthread_mutex_unlock(&e->lock);
  return full;
}

int engine_next(engine_t *e, engine_job_t *job, double *due)
{
  if (full_for_driver(e)) {
    *due = INFINITY; /* until the pop that makes room wakes the driver */
    return ENGINE_WAIT;
  }
  for (;;) {
    fitem_t *it;
    int rc = frontier_try_pop(e->frontier, &it, due);
    if (rc <= 0)
      return rc == 0 ? ENGINE_WAIT : ENGINE_CLOSED;
    if (admitted(e, it, job))
      return ENGINE_ITEM;
  }
}

void engine_sink(engine_t *e, const engine_job_t *job, engine_fetched_t what)
{
  fitem_t *it = job->it;
  switch (what) {
  case ENGINE_PARSE:
    engine_push_fetched(e, it);
    break;
  case ENGINE_REQUEUED:
    break; /* IT is the frontier's (or a parser's) now */
  case ENGINE_CONSUMED:
    frontier_done(e->frontier, it);
    fitem_delete(it);
    break;
  case ENGINE_GONE:
    frontier_done(e->frontier, it);
    finish_item(e, it);
    break;
  }
  if (job->gate)
    e->cfg.source->gate_done(e->cfg.source_ctx,
                             frontier_host_key(e->frontier, job->host));
}

/* downloader_exit: a download thread (or the driver's) is done with E. */
static void downloader_exit(engine_t *e)
{
  pthread_mutex_lock(&e->lock);
  if (--e->downloaders == 0)
    pthread_cond_broadcast(&e->fetched);
  pthread_mutex_unlock(&e->lock);
  /* Nothing of E is touched from here on: engine_run may return. */
}

static void *download_main(void *arg)
{
  engine_t *e = arg;
  void *ws = e->hooks.worker_init ? e->hooks.worker_init(e->cfg.ctx) : NULL;
  fitem_t *it;
  bool el = elastic(e);
  for (;;) {
    if (el)
      atomic_fetch_add(&e->idle, 1);
    it = frontier_pop(e->frontier);
    if (el && atomic_fetch_sub(&e->idle, 1) == 1 && it != NULL)
      grow(e);
    if (it == NULL)
      break;
    engine_job_t job;
    if (!admitted(e, it, &job))
      continue;
    engine_sink(e, &job, e->hooks.fetch(e->cfg.ctx, ws, e, it));
    if (el && leave(e))
      break;
  }
  if (e->hooks.worker_fini)
    e->hooks.worker_fini(e->cfg.ctx, ws);
  downloader_exit(e);
  return NULL;
}

/* driver_main: the thread of cfg.driver, counted as one downloader. */
static void *driver_main(void *arg)
{
  engine_t *e = arg;
  in_driver = true;
  e->cfg.driver(e->cfg.driver_arg, e);
  downloader_exit(e);
  return NULL;
}

/* ---- reorder heap (caller holds e->lock) ---- */

/* order_next: the item with seq next_commit, taken out of the heap, or
 * NULL if it has not been parsed yet; items of seqs committed already
 * go on *TWICE (the caller finishes them, unlocked). */
static fitem_t *order_next(engine_t *e, fitem_t **twice)
{
  fitem_t *top;
  /* A seq committed already: delivered twice (a shared crawl's result
   * published twice, cstate_queue.c), committed once. The engine's own
   * source never gives a seq twice. */
  while ((top = heap_top(e->order)) != NULL && top->seq < e->next_commit) {
    heap_pop(e->order);
    top->next = *twice;
    *twice = top;
  }
  top = heap_top(e->order);
  if (top == NULL || top->seq != e->next_commit)
    return NULL;
  return heap_pop(e->order);
}

/* want_next: the commit is past an item: under engine_want, the next
 * one that may be wanted is now in reach, whether or not the commit hook
 * called engine_want (it does only when the bound shrinks). */
static void want_next(engine_t *e)
{
  pthread_mutex_lock(&e->lock);
  uint64_t h = e->wanted != UINT64_MAX ? horizon_at(e, e->next_commit)
                                       : UINT64_MAX;
  pthread_mutex_unlock(&e->lock);
  if (h != UINT64_MAX)
    frontier_set_horizon(e->frontier, h);
}

void engine_want(engine_t *e, uint64_t n)
{
  if (!e->cfg.ordered || !e->cfg.source->horizon)
    return;
  pthread_mutex_lock(&e->lock);
  e->wanted = n;
  uint64_t h = horizon_at(e, e->next_commit);
  pthread_mutex_unlock(&e->lock);
  frontier_set_horizon(e->frontier, h); /* UINT64_MAX: lifted */
}

/* commit_in_order: add IT to the reorder buffer and commit whatever is
 * next in seq order, unless another thread is already doing so. */
static void commit_in_order(engine_t *e, fitem_t *it)
{
  pthread_mutex_lock(&e->lock);
  if (!heap_push(e->order, it)) {
    /* Out of memory: nothing can be committed after IT, so stop. */
    pthread_mutex_unlock(&e->lock);
    engine_fail(e, CRAWL_ENOMEM);
    engine_drop(e, it);
    return;
  }
  if (e->committing) {
    pthread_mutex_unlock(&e->lock);
    return;
  }
  e->committing = true;
  fitem_t *next, *twice = NULL;
  while (!atomic_load(&e->stopped) && (next = order_next(e, &twice)) != NULL) {
    e->next_commit++;
    uint64_t horizon = horizon_at(e, e->next_commit - 1);
    fitem_t *gone = NULL;
    if (next->depth > e->commit_depth) {
      e->commit_depth = next->depth;
      if (e->smap != NULL)
        gone = engine_spec_sweep(e, next->depth);
    }
    pthread_mutex_unlock(&e->lock);
    drop_list(e, gone);
    const engine_source_t *src = e->cfg.source;
    if (src->commit_begin(e->cfg.source_ctx, next) != 0) {
      /* Not this process's to commit now: it waits (engine.h). */
      pthread_mutex_lock(&e->lock);
      e->next_commit--;
      if (!heap_push(e->order, next)) {
        pthread_mutex_unlock(&e->lock);
        engine_fail(e, CRAWL_ENOMEM);
        engine_drop(e, next);
        pthread_mutex_lock(&e->lock);
      }
      break;
    }
    if (horizon != UINT64_MAX)
      frontier_set_horizon(e->frontier, horizon);
    e->hooks.commit(e->cfg.ctx, e, next);
    want_next(e);
    if (!atomic_load(&e->stopped)) {
      int err = src->committed(e->cfg.source_ctx, e, next);
      if (err != 0)
        engine_fail(e, err);
    }
    finish_item(e, next);
    pthread_mutex_lock(&e->lock);
  }
  e->committing = false;
  pthread_mutex_unlock(&e->lock);
  while (twice != NULL) {
    fitem_t *t = twice->next;
    finish_item(e, twice);
    twice = t;
  }
}

static void *parse_main(void *arg)
{
  engine_t *e = arg;
  for (;;) {
    pthread_mutex_lock(&e->lock);
    while (e->phead == NULL && e->downloaders > 0)
      pthread_cond_wait(&e->fetched, &e->lock);
    fitem_t *it = e->phead;
    bool wake = false;
    if (it != NULL) {
      e->phead = it->next;
      if (e->phead == NULL)
        e->ptail = NULL;
      e->nfetched--;
      wake = e->driver_full;
      e->driver_full = false;
    }
    pthread_mutex_unlock(&e->lock);
    if (it == NULL)
      break;
    /* Once unlocked (see engine_push_fetched). */
    pthread_cond_signal(&e->space);
    if (wake && e->cfg.wake != NULL)
      e->cfg.wake(e->cfg.wake_arg); /* room for the driver's next */
    if (!e->cfg.ordered) {
      e->hooks.parse(e->cfg.ctx, e, it);
      finish_item(e, it);
      continue;
    }
    if (it->flags & FITEM_SPEC) {
      if (!atomic_load(&e->stopped))
        e->hooks.parse(e->cfg.ctx, e, it);
      if ((it = engine_spec_settle(e, it)) == NULL)
        continue;
    }
    if (atomic_load(&e->stopped)) {
      /* Nothing is committed after a stop: a resumed crawl derives it
       * all again from the saved pages. */
      engine_drop(e, it);
    } else {
      /* Committed here, or wherever the source commits (engine.h). */
      e->hooks.parse(e->cfg.ctx, e, it);
      int rc = e->cfg.source->publish(e->cfg.source_ctx, e, it);
      if (rc == ENGINE_COMMIT_HERE) {
        commit_in_order(e, it);
        continue;
      }
      if (rc != 0)
        engine_fail(e, rc);
      finish_item(e, it);
    }
  }
  return NULL;
}

void engine_fail(engine_t *e, int status)
{
  int none = 0;
  atomic_compare_exchange_strong(&e->failure, &none, status);
  engine_stop(e);
}

void engine_stop(engine_t *e)
{
  atomic_store(&e->stopped, true);
  frontier_close(e->frontier);
  pthread_mutex_lock(&e->lock);
  pthread_cond_broadcast(&e->space);
  pthread_mutex_unlock(&e->lock);
}

int engine_run(engine_t *e)
{
  if (e->ran)
    return CRAWL_EINVAL;
  e->ran = true;
  /* A driver takes the download pool's place, as one thread. */
  int nd = e->cfg.driver ? 1 : e->cfg.download_workers;
  int np = e->cfg.parse_workers;
  pthread_t *tid = malloc((size_t)(nd + np) * sizeof(*tid));
  if (tid == NULL)
    return CRAWL_ENOMEM;
  if (atomic_load(&e->pending) == 0)
    frontier_close(e->frontier); /* nothing to do */
  int status = CRAWL_OK, started = 0;
  e->downloaders = nd;
  atomic_store(&e->threads, nd);
  atomic_store(&e->last_grow, now_ms());
  for (; started < nd + np; started++) {
    bool dl = started < nd;
    void *(*main)(void *) = !dl           ? parse_main
                          : e->cfg.driver ? driver_main
                                          : download_main;
    if (pthread_create(&tid[started], NULL, main, e) != 0) {
      status = CRAWL_ETHREAD;
      break;
    }
  }
  if (status != CRAWL_OK) {
    engine_stop(e);
    /* Downloaders never started must not be waited for by parsers. */
    pthread_mutex_lock(&e->lock);
    if (started < nd) {
      e->downloaders -= nd - started;
      if (e->downloaders == 0)
        pthread_cond_broadcast(&e->fetched);
    }
    pthread_mutex_unlock(&e->lock);
  }
  for (int i = 0; i < started; i++)
    pthread_join(tid[i], NULL);
  free(tid);
  /* Grown download threads are detached: wait for the last to leave
   * (the parsers did already, unless none started). */
  pthread_mutex_lock(&e->lock);
  while (e->downloaders > 0)
    pthread_cond_wait(&e->fetched, &e->lock);
  pthread_mutex_unlock(&e->lock);
  int lost = frontier_error(e->frontier);
  if (status == CRAWL_OK && lost)
    /* It closed itself: queued URLs are lost. */
    status = lost == ENOMEM ? CRAWL_ENOMEM : CRAWL_EIO;
  else if (status == CRAWL_OK && atomic_load(&e->stopped))
    status = atomic_load(&e->failure) ? atomic_load(&e->failure)
                                      : CRAWL_ESTOPPED;
  return status;
}

/* ---- a shared crawl's source (engine.h) ---- */

int engine_inject(engine_t *e, const char *url, int depth, uint64_t seq,
                  const char *hostkey, void *ticket)
{
  if (atomic_load(&e->stopped))
    return -1;
  fitem_t *it = fitem_new(url, depth);
  if (it == NULL)
    return -2;
  it->seq = seq;
  it->ticket = ticket; /* before the push: a pop may follow at once */
  atomic_fetch_add(&e->pending, 1);
  int rc = frontier_push(e->frontier, it, hostkey);
  if (rc != 0) {
    fitem_delete(it); /* not engine_drop(): TICKET stays the caller's */
    if (atomic_fetch_sub(&e->pending, 1) == 1)
      frontier_close(e->frontier);
    return rc == -1 ? -1 : -2;
  }
  return 0;
}

void engine_deliver(engine_t *e, fitem_t *it)
{
  atomic_fetch_add(&e->pending, 1);
  commit_in_order(e, it);
}

void engine_commit_at(engine_t *e, uint64_t next_seq, uint64_t next_commit,
                      int depth)
{
  pthread_mutex_lock(&e->lock);
  e->next_commit = next_commit;
  e->commit_depth = depth;
  pthread_mutex_unlock(&e->lock);
  pthread_mutex_lock(&e->seen_lock);
  e->next_seq = next_seq;
  pthread_mutex_unlock(&e->seen_lock);
}

int engine_seen_load(engine_t *e, const uint64_t fp[2])
{
  pthread_mutex_lock(&e->seen_lock);
  int rc = fptable_insert(e->seen, fp, NULL);
  pthread_mutex_unlock(&e->seen_lock);
  return rc < 0 ? -2 : 0;
}

int engine_commit_reset(engine_t *e)
{
  pthread_mutex_lock(&e->lock);
  fitem_t *list = NULL;
  while (heap_count(e->order) > 0) {
    fitem_t *it = heap_pop(e->order);
    it->next = list;
    list = it;
  }
  pthread_mutex_unlock(&e->lock);
  while (list != NULL) {
    fitem_t *next = list->next;
    finish_item(e, list);
    list = next;
  }
  fptable_t *empty = fptable_new(0, 1024);
  if (empty == NULL)
    return -2;
  pthread_mutex_lock(&e->seen_lock);
  fptable_t *old = e->seen;
  e->seen = empty;
  pthread_mutex_unlock(&e->seen_lock);
  fptable_delete(old);
  return 0;
}

void engine_hold(engine_t *e)
{
  atomic_fetch_add(&e->pending, 1);
}

void engine_unhold(engine_t *e)
{
  if (atomic_fetch_sub(&e->pending, 1) == 1)
    frontier_close(e->frontier);
}

void engine_delete(engine_t *e)
{
  if (e == NULL)
    return;
  /* No thread runs now. Whatever was not committed goes: what the frontier
   * still queues (its drop, drop_queued; a speculative item among it
   * keeps its record in smap, freed below), the fetched-page queue (left
   * full when engine_run could not start a parse thread) and the reorder
   * heap. */
  frontier_delete(e->frontier);
  fitem_t *left = e->phead, *it;
  while ((it = heap_pop(e->order)) != NULL) {
    it->next = left;
    left = it;
  }
  drop_list(e, left);
  /* What speculation still holds: parked items (no thread runs now). */
  engine_spec_drop_all(e);
  fptable_delete(e->smap);
  fptable_delete(e->seen);
  heap_delete(e->order);
  pthread_cond_destroy(&e->fetched);
  pthread_cond_destroy(&e->space);
  pthread_mutex_destroy(&e->lock);
  pthread_mutex_destroy(&e->seen_lock);
  free(e);
}
