/* coord.c: the local coordinator, one process's crawl (coord.h). */
#include "coord.h"

#include <stdlib.h>

#include "page.h"
#include "url.h"
#include "webcrawl_int.h"

static const engine_source_t *l_source(void *ctx)
{
  (void)ctx;
  return &engine_local_source; /* the engine's own frontier and commit */
}

/* l_start: every seed at depth 0, in the order given (their IDs follow
 * it). */
static int l_start(struct webcrawl *w)
{
  const char *const *v = w->o->seeds ? w->o->seeds : &w->o->seed;
  size_t n = w->o->seeds ? w->o->nseeds : 1;
  for (size_t i = 0; i < n; i++) {
    char *key = url_host_key(v[i]);
    int rc = key != NULL ? engine_add(w->e, v[i], 0, key) : -2;
    free(key);
    if (rc < 0)
      return -1;
  }
  return 0;
}

static void l_stop(struct webcrawl *w)
{
  (void)w;
}

static int l_finish(struct webcrawl *w, int status)
{
  (void)w;
  return status;
}

static hosts_cache_t l_robots(void *ctx)
{
  (void)ctx;
  return (hosts_cache_t){ NULL, NULL }; /* each host asked once, here */
}

static void l_requested(struct webcrawl *w, const fitem_t *it)
{
  (void)w, (void)it;
}

static void l_pause(struct webcrawl *w, const fitem_t *it, double seconds)
{
  (void)w, (void)it, (void)seconds; /* the frontier's pause is the host's */
}

static bool l_hand(struct webcrawl *w, fitem_t *it, const struct page *p,
                   const char *to, const char *key)
{
  (void)w, (void)it, (void)p, (void)to, (void)key;
  return false; /* every host is this process's */
}

static int l_arrived(struct webcrawl *w, fitem_t *it, struct page *p)
{
  (void)w, (void)it, (void)p;
  return 0;
}

/* l_tmp_key: IT's seq: an item is written once. */
static unsigned long long l_tmp_key(struct webcrawl *w, const fitem_t *it)
{
  (void)w;
  return (unsigned long long)it->seq;
}

static void l_seed_failed(struct webcrawl *w, const char *why)
{
  (void)w, (void)why; /* the statistics have it (webcrawl.c) */
}

static void l_close(void *ctx)
{
  (void)ctx;
}

static const coord_ops_t local_ops = {
  .source = l_source,
  .start = l_start,
  .stop = l_stop,
  .finish = l_finish,
  .robots = l_robots,
  .requested = l_requested,
  .pause = l_pause,
  .hand = l_hand,
  .arrived = l_arrived,
  .tmp_key = l_tmp_key,
  .seed_failed = l_seed_failed,
  .close = l_close,
};

const coord_t coord_local = { &local_ops, NULL };
