/* xfer.h: transfers without threads: the crawl's fetches driven by one
 * event loop over libcurl's multi interface (internal; --transfers
 * events).
 *
 * The loop is the engine's driver (engine_config_t.driver): one thread
 * takes due items (engine_next) while fewer than max_transfers are in
 * flight, has the front end begin it (xfer_hooks_t.begin: the first half
 * of its fetch hook, which prepares a fetcher, fetcher_prepare), adds that
 * fetcher's easy handle to one CURLM, and
 * sleeps in curl_multi_poll until a socket is ready, libcurl's timer or
 * the next item's due time, or a wake (xfer_wake: the engine's
 * engine_config_t.wake, curl_multi_wakeup). A transfer done
 * (curl_multi_info_read) is read (fetcher_finish), ended (hooks.end) and
 * handed to the engine (engine_sink). The loop knows nothing of what a
 * fetch means: the front end's hooks do (webcrawl.c). A transfer costs a
 * fetcher (an easy handle and its state, reused) and a socket, not a thread.
 *
 * Politeness is the frontier's, as for the threads: only due items are
 * handed out. Connections are libcurl's pool, shared by every transfer
 * (CURLMOPT_MAXCONNECTS, CURLMOPT_MAX_TOTAL_CONNECTIONS). */
#ifndef CRAWLER_XFER_H
#define CRAWLER_XFER_H

#include <stddef.h>

#include "engine.h"
#include "fetch.h"

typedef struct xfer xfer_t;

/* The front end's halves of a fetch, around the transfer. Each is called
 * from the loop's thread with CTX (xfer_config_t.ctx); REQ is the slot's
 * req_size bytes, what begin leaves for end (aligned as malloc's). */
typedef struct xfer_hooks {
  /* begin: the first half of popped IT's fetch: true with F prepared for
   * the transfer to make (fetcher_prepare or fetcher_prepare_cond);
   * false if IT is handled without one, *DONE what the engine is told
   * (engine_sink). */
  bool (*begin)(void *ctx, engine_t *e, fitem_t *it, fetcher_t *f, void *req,
                engine_fetched_t *done);
  /* end: the second half, once F's transfer is read (fetcher_finish):
   * returns what the engine is told. */
  engine_fetched_t (*end)(void *ctx, engine_t *e, fitem_t *it, void *req);
  /* no_client: IT without a fetcher (none could be made): returns what
   * the engine is told. */
  engine_fetched_t (*no_client)(void *ctx, engine_t *e, fitem_t *it);
} xfer_hooks_t;

typedef struct xfer_config {
  int max_transfers;          /* in flight at once, at most (>= 1) */
  long max_connects;          /* connections kept open in all */
  const fetch_config_t *fcfg; /* for each fetcher; borrowed, must
                                 outlive the loop */
  const xfer_hooks_t *hooks;  /* borrowed, must outlive the loop */
  void *ctx;                  /* passed to every hook */
  size_t req_size;            /* bytes a transfer's REQ needs */
} xfer_config_t;

/* xfer_new: a loop for CFG (copied), its CURLM made now, so that
 * xfer_wake works before xfer_run starts. curl_global_init must have
 * been called. Returns: owned by caller (xfer_delete), NULL if out of
 * memory. Thread-safety: any thread. */
xfer_t *xfer_new(const xfer_config_t *cfg);

/* xfer_run: the engine's driver (engine_config_t.driver, ARG the
 * xfer_t): fetch every item of E until engine_next says closed and no
 * transfer is left. Returns then. One thread: the engine's driver
 * thread; calls the engine (engine_next, engine_sink) and the hooks: an
 * item for which no fetcher can be made goes to hooks.no_client, as a
 * download thread's does (NEEDSWORK: a gate is then asked again every
 * second for as long as libcurl cannot make a handle). */
void xfer_run(void *arg, engine_t *e);

/* xfer_wake: the engine's wake (engine_config_t.wake, ARG the xfer_t):
 * end the loop's sleep, if it sleeps. Any thread, any lock held (it
 * writes one byte to libcurl's wake-up socket, never blocks). */
void xfer_wake(void *arg);

/* xfer_delete: free X, its fetchers and its CURLM. Only once the engine
 * that calls xfer_wake is deleted or stopped and no longer reachable.
 * NULL is fine. */
void xfer_delete(xfer_t *x);

#endif /* CRAWLER_XFER_H */
