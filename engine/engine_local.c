/* engine_local.c: the engine's own source (engine.h, engine_local_source):
 * a crawl of this engine alone. A commit's new URLs are pushed into this
 * engine's frontier, every popped item is fetched here, and every parsed
 * item is committed here, in seq order; so each seq is this engine's, and
 * speculation, the download window and the spill all apply. The data and
 * locks it touches are the engine's (engine_int.h). */
#include "engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "crawl.h"
#include "engine_int.h"

/* l_add: IT into this engine's frontier, unless a speculative item of
 * its URL is adopted instead. */
static int l_add(void *ctx, engine_t *e, fitem_t *it, const uint64_t fp[2],
                 const char *hostkey)
{
  (void)ctx;
  atomic_fetch_add(&e->pending, 1);
  if (engine_spec_claim(e, fp, true, it->seq, it->depth)) {
    fitem_delete(it);
    return 1;
  }
  /* Downloaders must not wait for parsers while this push may wait for
   * downloaders (a full frontier). An unbounded frontier never makes a
   * push wait, and lifting the limit for every add would lift it almost
   * always (the commit adds all the time): fetched pages piled up to the
   * download window (bench/RESULTS.md, "The fetched-page limit holds"). */
  bool may_block = e->cfg.fetched_limit && e->cfg.queue_size;
  if (may_block) {
    pthread_mutex_lock(&e->lock);
    e->pushing++;
    pthread_cond_broadcast(&e->space);
    pthread_mutex_unlock(&e->lock);
  }
  int rc = frontier_push(e->frontier, it, hostkey);
  if (may_block) {
    pthread_mutex_lock(&e->lock);
    e->pushing--;
    pthread_mutex_unlock(&e->lock);
  }
  if (rc != 0) {
    /* Closed (stopping), out of memory or a full disk: the URL stays
     * marked seen, which is harmless: the crawl is ending, or failing
     * just below. */
    int err = errno;
    fitem_delete(it);
    if (atomic_fetch_sub(&e->pending, 1) == 1)
      frontier_close(e->frontier);
    /* In ordered mode the lost seq would hold the commit point forever. */
    if (rc == -3)
      engine_fail(e, CRAWL_EIO);
    else if (rc == -2 && e->cfg.ordered)
      engine_fail(e, CRAWL_ENOMEM);
    errno = err;
    return rc;
  }
  return 1;
}

/* l_seen: nothing to tell: the seen set is this engine's own. */
static int l_seen(void *ctx, const char *url, const uint64_t fp[2])
{
  (void)ctx, (void)url, (void)fp;
  return 0;
}

/* l_admit: every host is this engine's. */
static bool l_admit(void *ctx, fitem_t *it)
{
  (void)ctx, (void)it;
  return true;
}

static void l_gate_done(void *ctx, const char *hostkey)
{
  (void)ctx, (void)hostkey;
}

/* l_publish: every item is committed here. */
static int l_publish(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx, (void)e, (void)it;
  return ENGINE_COMMIT_HERE;
}

/* l_commit_begin: this engine always holds its commit. */
static int l_commit_begin(void *ctx, fitem_t *it)
{
  (void)ctx, (void)it;
  return 0;
}

/* l_committed: the commit hook's own writes are the record. */
static int l_committed(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx, (void)e, (void)it;
  return 0;
}

/* l_release: never called: this source gives no item a ticket. */
static void l_release(void *ctx, fitem_t *it)
{
  (void)ctx, (void)it;
}

const engine_source_t engine_local_source = {
  .speculate = true,
  .horizon = true,
  .spill = true,
  .unordered = true,
  .fp80 = false,
  .start_empty = false,
  .add = l_add,
  .seen = l_seen,
  .admit = l_admit,
  .gate_done = l_gate_done,
  .publish = l_publish,
  .commit_begin = l_commit_begin,
  .committed = l_committed,
  .release = l_release,
};
