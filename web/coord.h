/* coord.h: the one door between this process's crawl (webcrawl.c) and
 * whatever the crawl shares with other processes (internal).
 *
 * A crawl has one coordinator. The local one (coord_local) shares
 * nothing: it adds the seeds to this process's frontier, and every other
 * call leaves the crawl as it is. The cluster's (wcluster.c,
 * wcluster_coord) shares the crawl through Redis: the seed is the shared
 * frontier's, robots.txt answers are kept for every worker (a cache the
 * host gates consult, hosts.h), a host's pauses and requests are the
 * crawl's, a redirect to a host of another worker is handed to it.
 * webcrawl.c calls only these, never asking which coordinator it has.
 * (How pages are published, by rename or by a link the next committer
 * can publish again, is the page store's: pstore.h.)
 *
 * Each call takes the crawl (webcrawl_int.h) and an item IT: a gate
 * item's url is its host key (frontier.h), a page item's a page's URL. */
#ifndef CRAWLER_COORD_H
#define CRAWLER_COORD_H

#include <stdbool.h>

#include "engine.h"
#include "fetch.h"
#include "hosts.h"

struct webcrawl;
struct page;

typedef struct coord_ops {
  /* source: the engine's source for this coordinator (engine.h,
   * engine_source_t), its context the coordinator's CTX. */
  const engine_source_t *(*source)(void *ctx);
  /* start: the crawl's first items into W->e (the seeds, or the shared
   * frontier's threads). Returns 0, or -1 (out of memory). Before
   * engine_run. */
  int (*start)(struct webcrawl *w);
  /* stop: after start, whether or not it succeeded, when the crawl will
   * not run: what start began, undone. */
  void (*stop)(struct webcrawl *w);
  /* finish: after engine_run returned STATUS; fills W->st with what the
   * crawl as a whole did. Returns the crawl's status. */
  int (*finish)(struct webcrawl *w, int status);
  /* robots: the cache of robots.txt answers the crawl's host gates
   * consult (hosts.h), its context CTX's or none (ops NULL). Before the
   * crawl starts; it serves until close. */
  hosts_cache_t (*robots)(void *ctx);
  /* requested: a request was made for IT. Download thread. */
  void (*requested)(struct webcrawl *w, const fitem_t *it);
  /* pause: IT's host takes no request for SECONDS (Retry-After, a
   * back-off). Download thread. */
  void (*pause)(struct webcrawl *w, const fitem_t *it, double seconds);
  /* hand: IT redirects to TO, of host KEY, P's chain holding the hop:
   * true if it goes on elsewhere (ENGINE_GONE). Download thread. */
  bool (*hand)(struct webcrawl *w, fitem_t *it, const struct page *p,
               const char *to, const char *key);
  /* arrived: IT is about to be fetched with page P: the redirects it
   * came through elsewhere into P's chain. Returns 0, or -1 (out of
   * memory). Download thread. */
  int (*arrived)(struct webcrawl *w, fitem_t *it, struct page *p);
  /* tmp_key: the key naming a temporary page file of IT. Parse thread. */
  unsigned long long (*tmp_key)(struct webcrawl *w, const fitem_t *it);
  /* seed_failed: a seed was not saved, for WHY. Commit. */
  void (*seed_failed)(struct webcrawl *w, const char *why);
  /* close: free the coordinator's context CTX (the crawl has ended, or
   * never ran). */
  void (*close)(void *ctx);
} coord_ops_t;

/* A coordinator: its calls and their context (the cluster's cluster_t;
 * NULL for the local one). */
typedef struct coord {
  const coord_ops_t *ops;
  void *ctx;
} coord_t;

/* coord_local: one process's crawl, shared with no other. */
extern const coord_t coord_local;

#endif /* CRAWLER_COORD_H */
