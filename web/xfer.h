/* xfer.h: transfers without threads: the crawl's fetches driven by one
 * event loop over libcurl's multi interface (internal; --transfers
 * events).
 *
 * The loop is the engine's driver (engine_config_t.driver): one thread
 * takes due items (engine_next) while fewer than max_transfers are in
 * flight, does the first half of the fetch hook (wc_begin), adds the easy
 * handle of a fetcher prepared for it (fetcher_prepare) to one CURLM, and
 * sleeps in curl_multi_poll until a socket is ready, libcurl's timer or
 * the next item's due time, or a wake (xfer_wake: the engine's
 * engine_config_t.wake, curl_multi_wakeup). A transfer done
 * (curl_multi_info_read) is read (fetcher_finish), ended (wc_end) and
 * handed to the engine (engine_sink). A transfer costs a fetcher (an easy
 * handle and its state, reused) and a socket, not a thread.
 *
 * Politeness is the frontier's, as for the threads: only due items are
 * handed out. Connections are libcurl's pool, shared by every transfer
 * (CURLMOPT_MAXCONNECTS, CURLMOPT_MAX_TOTAL_CONNECTIONS). */
#ifndef CRAWLER_XFER_H
#define CRAWLER_XFER_H

#include <stddef.h>

#include "engine.h"
#include "fetch.h"

struct webcrawl;

typedef struct xfer xfer_t;

typedef struct xfer_config {
  int max_transfers;          /* in flight at once, at most (>= 1) */
  long max_connects;          /* connections kept open in all */
  const fetch_config_t *fcfg; /* for each fetcher; borrowed, must
                                 outlive the loop */
  struct webcrawl *w;         /* the crawl (wc_begin, wc_end); borrowed */
} xfer_config_t;

/* xfer_new: a loop for CFG (copied), its CURLM made now, so that
 * xfer_wake works before xfer_run starts. curl_global_init must have
 * been called. Returns: owned by caller (xfer_delete), NULL if out of
 * memory. Thread-safety: any thread. */
xfer_t *xfer_new(const xfer_config_t *cfg);

/* xfer_run: the engine's driver (engine_config_t.driver, ARG the
 * xfer_t): fetch every item of E until engine_next says closed and no
 * transfer is left. Returns then. One thread: the engine's driver
 * thread; calls the engine (engine_next, engine_sink, engine_fail when
 * no fetcher can be made and none is in flight) and wc_begin/wc_end. */
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
