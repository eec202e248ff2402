/* engine.c: see engine.h.
 *
 * Locks (never nested; no lock is held while a hook runs):
 *   seen_lock  guards seen, next_seq. Taken by engine_add/mark_seen.
 *   lock       guards the fetched-page queue (phead/ptail, nfetched),
 *              downloaders, pushing, the reorder heap, committing,
 *              next_commit, leftovers.
 * Atomics: pending (items added and not finished), stopped.
 * The frontier has its own lock (frontier.h).
 *
 * Condition variable `fetched` (on lock): parse threads wait on it while
 * the page queue is empty and downloaders are still running; signalled by
 * each push of a fetched page, broadcast when the last downloader exits.
 * Condition variable `space` (on lock): with a fetched_limit, downloaders
 * wait on it while the page queue is full, nobody is pushing into the
 * frontier and the engine is not stopping; signalled by each pop of a
 * fetched page, broadcast when an add starts pushing and on stop.
 *
 * The reorder buffer (ordered mode) is a min-heap of parsed items by seq.
 * The thread that finds the next seq at the top and nobody committing
 * becomes the committer: it commits items one by one, without the lock,
 * until the next seq is missing. Others just leave their item there. */
#include "engine.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "fpset.h"

enum { MAX_WORKERS = 4096 };

struct engine {
  engine_config_t cfg;
  engine_hooks_t hooks;
  frontier_t *frontier;

  pthread_mutex_t seen_lock;
  fpset_t *seen;
  uint64_t next_seq;

  pthread_mutex_t lock;
  pthread_cond_t fetched, space;
  fitem_t *phead, *ptail;  /* fetched pages waiting for a parse thread */
  size_t nfetched;         /* pages in that queue */
  int pushing;             /* engine_add calls inside frontier_push */
  int downloaders;         /* download threads still running */
  fitem_t **order;         /* reorder heap, by seq */
  size_t norder, cap_order;
  bool committing;
  uint64_t next_commit;
  fitem_t *leftovers;

  atomic_size_t pending;
  atomic_bool stopped;
  bool ran;
};

engine_t *engine_new(const engine_config_t *cfg)
{
  const engine_hooks_t *h = cfg->hooks;
  if (h == NULL || h->fetch == NULL || h->parse == NULL ||
      (cfg->ordered && h->commit == NULL) || cfg->download_workers < 1 ||
      cfg->parse_workers < 1 || cfg->download_workers > MAX_WORKERS ||
      cfg->parse_workers > MAX_WORKERS)
    return NULL;
  engine_t *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  e->cfg = *cfg;
  e->hooks = *h;
  frontier_config_t fc = { cfg->queue_size, cfg->rate, cfg->burst,
                           cfg->gate };
  e->frontier = frontier_new(&fc);
  e->seen = fpset_new(1024);
  if (e->frontier == NULL || e->seen == NULL) {
    frontier_delete(e->frontier);
    fpset_delete(e->seen);
    free(e);
    return NULL;
  }
  pthread_mutex_init(&e->seen_lock, NULL);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->fetched, NULL);
  pthread_cond_init(&e->space, NULL);
  atomic_init(&e->pending, 0);
  atomic_init(&e->stopped, false);
  return e;
}

frontier_t *engine_frontier(engine_t *e)
{
  return e->frontier;
}

bool engine_stopped(engine_t *e)
{
  return atomic_load(&e->stopped);
}

size_t engine_seen_count(engine_t *e)
{
  pthread_mutex_lock(&e->seen_lock);
  size_t n = fpset_count(e->seen);
  pthread_mutex_unlock(&e->seen_lock);
  return n;
}

int engine_mark_seen(engine_t *e, const char *url)
{
  pthread_mutex_lock(&e->seen_lock);
  int rc = fpset_insert(e->seen, url, strlen(url));
  pthread_mutex_unlock(&e->seen_lock);
  return rc < 0 ? -2 : rc;
}

/* finish: the item is done; the last one ends the crawl. */
static void finish(engine_t *e, fitem_t *it)
{
  if (e->hooks.release)
    e->hooks.release(e->cfg.ctx, it);
  fitem_delete(it);
  if (atomic_fetch_sub(&e->pending, 1) == 1)
    frontier_close(e->frontier);
}

int engine_add(engine_t *e, const char *url, int depth, const char *hostkey)
{
  if (atomic_load(&e->stopped))
    return -1;
  fitem_t *it = fitem_new(url, depth);
  if (it == NULL)
    return -2;
  pthread_mutex_lock(&e->seen_lock);
  int rc = fpset_insert(e->seen, url, strlen(url));
  if (rc == 1)
    it->seq = e->next_seq++;
  pthread_mutex_unlock(&e->seen_lock);
  if (rc != 1) {
    fitem_delete(it);
    return rc < 0 ? -2 : 0;
  }
  atomic_fetch_add(&e->pending, 1);
  if (e->cfg.fetched_limit) {
    /* Downloaders must not wait for parsers while this push may wait for
     * downloaders (a full frontier). */
    pthread_mutex_lock(&e->lock);
    e->pushing++;
    pthread_cond_broadcast(&e->space);
    pthread_mutex_unlock(&e->lock);
  }
  rc = frontier_push(e->frontier, it, hostkey);
  if (e->cfg.fetched_limit) {
    pthread_mutex_lock(&e->lock);
    e->pushing--;
    pthread_mutex_unlock(&e->lock);
  }
  if (rc != 0) {
    /* Closed (stopping) or out of memory: the URL stays marked seen, so
     * a resumed crawl must rebuild the seen set from its journal. */
    fitem_delete(it);
    if (atomic_fetch_sub(&e->pending, 1) == 1)
      frontier_close(e->frontier);
    /* In ordered mode the lost seq would hold the commit point forever. */
    if (rc == -2 && e->cfg.ordered)
      engine_stop(e);
    return rc;
  }
  return 1;
}

static void push_fetched(engine_t *e, fitem_t *it)
{
  it->next = NULL;
  pthread_mutex_lock(&e->lock);
  while (e->cfg.fetched_limit && e->nfetched >= e->cfg.fetched_limit &&
         e->pushing == 0 && !atomic_load(&e->stopped))
    pthread_cond_wait(&e->space, &e->lock);
  e->nfetched++;
  if (e->ptail)
    e->ptail->next = it;
  else
    e->phead = it;
  e->ptail = it;
  pthread_cond_signal(&e->fetched);
  pthread_mutex_unlock(&e->lock);
}

void engine_requeue(engine_t *e, fitem_t *it, const char *new_url,
                    const char *hostkey, double not_before)
{
  /* The download worker still owns IT here; a failure hands it to parse
   * so the item is finished (and counted) like any failed fetch. */
  fitem_t *n = it;
  if (new_url != NULL) {
    n = fitem_set_url(it, new_url);
    if (n == NULL) {
      push_fetched(e, it);
      return;
    }
  }
  if (frontier_requeue(e->frontier, n, hostkey, not_before) != 0)
    push_fetched(e, n);
}

static void *download_main(void *arg)
{
  engine_t *e = arg;
  void *ws = e->hooks.worker_init ? e->hooks.worker_init(e->cfg.ctx) : NULL;
  fitem_t *it;
  while ((it = frontier_pop(e->frontier)) != NULL) {
    switch (e->hooks.fetch(e->cfg.ctx, ws, e, it)) {
    case ENGINE_PARSE:
      push_fetched(e, it);
      break;
    case ENGINE_REQUEUED:
      break;
    case ENGINE_CONSUMED:
      fitem_delete(it);
      break;
    }
  }
  if (e->hooks.worker_fini)
    e->hooks.worker_fini(e->cfg.ctx, ws);
  pthread_mutex_lock(&e->lock);
  if (--e->downloaders == 0)
    pthread_cond_broadcast(&e->fetched);
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* ---- reorder heap (caller holds e->lock) ---- */

static bool order_push(engine_t *e, fitem_t *it)
{
  if (e->norder == e->cap_order) {
    size_t cap = e->cap_order ? e->cap_order * 2 : 256;
    fitem_t **v = realloc(e->order, cap * sizeof(*v));
    if (v == NULL)
      return false;
    e->order = v;
    e->cap_order = cap;
  }
  size_t i = e->norder++;
  while (i > 0 && e->order[(i - 1) / 2]->seq > it->seq) {
    e->order[i] = e->order[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  e->order[i] = it;
  return true;
}

static fitem_t *order_pop(engine_t *e)
{
  fitem_t *top = e->order[0], *last = e->order[--e->norder];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= e->norder)
      break;
    if (c + 1 < e->norder && e->order[c + 1]->seq < e->order[c]->seq)
      c++;
    if (e->order[c]->seq >= last->seq)
      break;
    e->order[i] = e->order[c];
    i = c;
  }
  if (e->norder > 0)
    e->order[i] = last;
  return top;
}

/* commit_in_order: add IT to the reorder buffer and commit whatever is
 * next in seq order, unless another thread is already doing so. */
static void commit_in_order(engine_t *e, fitem_t *it)
{
  pthread_mutex_lock(&e->lock);
  if (!order_push(e, it)) {
    /* Out of memory: nothing can be committed after IT, so stop. */
    pthread_mutex_unlock(&e->lock);
    engine_stop(e);
    if (e->hooks.release)
      e->hooks.release(e->cfg.ctx, it);
    fitem_delete(it);
    return;
  }
  if (e->committing) {
    pthread_mutex_unlock(&e->lock);
    return;
  }
  e->committing = true;
  while (e->norder > 0 && e->order[0]->seq == e->next_commit &&
         !atomic_load(&e->stopped)) {
    fitem_t *next = order_pop(e);
    e->next_commit++;
    uint64_t horizon = e->next_commit + e->cfg.window;
    pthread_mutex_unlock(&e->lock);
    if (e->cfg.window)
      frontier_set_horizon(e->frontier, horizon);
    e->hooks.commit(e->cfg.ctx, e, next);
    finish(e, next);
    pthread_mutex_lock(&e->lock);
  }
  e->committing = false;
  pthread_mutex_unlock(&e->lock);
}

static void *parse_main(void *arg)
{
  engine_t *e = arg;
  for (;;) {
    pthread_mutex_lock(&e->lock);
    while (e->phead == NULL && e->downloaders > 0)
      pthread_cond_wait(&e->fetched, &e->lock);
    fitem_t *it = e->phead;
    if (it != NULL) {
      e->phead = it->next;
      if (e->phead == NULL)
        e->ptail = NULL;
      e->nfetched--;
      pthread_cond_signal(&e->space);
    }
    pthread_mutex_unlock(&e->lock);
    if (it == NULL)
      break;
    if (!e->cfg.ordered) {
      e->hooks.parse(e->cfg.ctx, e, it);
      finish(e, it);
    } else if (atomic_load(&e->stopped)) {
      /* Keep it, unparsed, for the resume path. */
      pthread_mutex_lock(&e->lock);
      it->next = e->leftovers;
      e->leftovers = it;
      pthread_mutex_unlock(&e->lock);
    } else {
      e->hooks.parse(e->cfg.ctx, e, it);
      commit_in_order(e, it);
    }
  }
  return NULL;
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
  int nd = e->cfg.download_workers, np = e->cfg.parse_workers;
  pthread_t *tid = malloc((size_t)(nd + np) * sizeof(*tid));
  if (tid == NULL)
    return CRAWL_ENOMEM;
  if (atomic_load(&e->pending) == 0)
    frontier_close(e->frontier);  /* nothing to do */
  if (e->cfg.ordered && e->cfg.window)
    frontier_set_horizon(e->frontier, e->cfg.window);
  int status = CRAWL_OK, started = 0;
  e->downloaders = nd;
  for (; started < nd + np; started++) {
    bool dl = started < nd;
    if (pthread_create(&tid[started], NULL, dl ? download_main : parse_main,
                       e) != 0) {
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
  if (status == CRAWL_OK && atomic_load(&e->stopped))
    status = CRAWL_ESTOPPED;
  return status;
}

static fitem_t *merge_sorted(fitem_t *a, fitem_t *b)
{
  fitem_t head = { 0 }, *t = &head;
  while (a && b) {
    fitem_t **m = a->seq <= b->seq ? &a : &b;
    t->next = *m;
    t = *m;
    *m = (*m)->next;
  }
  t->next = a ? a : b;
  return head.next;
}

fitem_t *engine_leftovers(engine_t *e)
{
  /* Three sources, each made sorted, then merged: the frontier (sorted),
   * the reorder heap, and items a parser set aside after the stop. */
  fitem_t *list = frontier_take_all(e->frontier);
  pthread_mutex_lock(&e->lock);
  fitem_t *heap = NULL, *tail = NULL;
  while (e->norder > 0) {
    fitem_t *it = order_pop(e);
    it->next = NULL;
    if (tail)
      tail->next = it;
    else
      heap = it;
    tail = it;
  }
  list = merge_sorted(list, heap);
  fitem_t *aside = e->leftovers;
  e->leftovers = NULL;
  pthread_mutex_unlock(&e->lock);
  while (aside) {
    fitem_t *next = aside->next;
    aside->next = NULL;
    list = merge_sorted(list, aside);
    aside = next;
  }
  return list;
}

void engine_delete(engine_t *e)
{
  if (e == NULL)
    return;
  fitem_t *it = engine_leftovers(e);
  while (it) {
    fitem_t *next = it->next;
    if (e->hooks.release)
      e->hooks.release(e->cfg.ctx, it);
    fitem_delete(it);
    it = next;
  }
  frontier_delete(e->frontier);
  fpset_delete(e->seen);
  free(e->order);
  pthread_cond_destroy(&e->fetched);
  pthread_cond_destroy(&e->space);
  pthread_mutex_destroy(&e->lock);
  pthread_mutex_destroy(&e->seen_lock);
  free(e);
}
