/* webcrawl_int.h: the crawl's state, shared by webcrawl.c and
 * wcluster.c (private to web/). */
#ifndef CRAWLER_WEBCRAWL_INT_H
#define CRAWLER_WEBCRAWL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "budget.h"
#include "coord.h"
#include "engine.h"
#include "fetch.h"
#include "fptable.h"
#include "hosts.h"
#include "page.h"
#include "webcrawl.h"

/* One crawl (webcrawl_run's). Fields: see webcrawl.c, which writes them;
 * the coordinators (coord.h) read them, and the cluster's writes the
 * commit's counts from the committer thread, which is the commit's
 * (webcrawl.c's top comment). */
struct webcrawl {
  const webcrawl_opts_t *o;
  char agent[64]; /* our product token: what a robots meta names */
  hosts_t *hosts; /* robots.txt and page counts per host; locks
                     itself (hosts.h) */
  atomic_long robots_fetched, robots_failed;
  atomic_long requests;  /* every HTTP request made */
  atomic_llong received; /* bytes those requests received (fetch.h) */
  atomic_long sitemaps_fetched, sitemaps_failed; /* --sitemaps */
  fptable_t *firsts; /* --sitemaps: the seeds first on their host
                        (wsitemap_firsts); built before the crawl, then
                        only read */
  atomic_bool warc_failed;
  fetch_config_t fcfg;
  engine_t *e;
  struct xfer *xfer;    /* --transfers events: the event loop (xfer.h);
                           NULL: download threads */
  webcrawl_stats_t *st; /* commit only, but see atomics below */
  atomic_long redirects, retries;
  atomic_bool limit_reached;
  bool io_failed; /* commit only */
  bool oom;       /* commit only: a page lost links to OOM */
  double start, last_progress;
  budget_t budget;   /* --max-memory (budget.h) */
  page_scan_t scan;  /* how pages are scanned (page_scan) */
  const coord_t *co; /* o->coord, or coord_local (coord.h) */
  /* The scope: o->scope, or one the seed's redirects widened (widen).
   * Written only while the seed's redirect chain is followed, when no
   * other URL is known, and read by any thread through wc_scope. */
  _Atomic(const scope_t *) scope;
  pthread_mutex_t widen_lock; /* guards the fields below */
  scope_t **scopes;           /* the widened ones, freed at the end */
  char **added;               /* the prefixes added, in order */
  size_t nscopes, nadded;
};

/* wc_log_file: an event in the --log-file only (webcrawl_log.c):
 * "TIME DEPTH LABEL URL (WHY)", WHY NULL for none, DEPTH -1 for what is
 * no page. Any thread. */
void wc_log_file(struct webcrawl *w, int depth, const char *label,
                 const char *url, const char *why);

/* wc_log_event: an event, "DEPTH LABEL: URL" on the --log stream and in
 * the --log-file. wc_log_reason: the same with the reason for it, "LABEL:
 * URL (WHY)". Any thread. */
void wc_log_event(struct webcrawl *w, int depth, const char *label,
                  const char *url);
void wc_log_reason(struct webcrawl *w, int depth, const char *label,
                   const char *url, const char *why);

/* wc_commit: the engine's commit hook (webcrawl_commit.c). Commit. */
void wc_commit(void *ctx, engine_t *e, fitem_t *it);

/* wc_progress: a progress line on stderr now and then (FINAL: the last,
 * at once), unless quiet. Commit, or the main thread after the crawl. */
void wc_progress(struct webcrawl *w, bool final);

/* wc_archive: R's exchange with URL into the WARC file, if any, and its
 * raw copies dropped (webcrawl_log.c). Any thread. */
void wc_archive(struct webcrawl *w, engine_t *e, const char *url,
                fetch_result_t *r);

/* ---- the fetch hook in two halves (webcrawl.c), shared by the
 * download threads (wc_fetch: begin, a blocking transfer, end) and the
 * event loop (xfer.h) ---- */

/* wc_req: the transfer wc_begin asks for. Lives (at one address: RES may
 * point into it) from wc_begin to wc_end. */
typedef struct wc_req {
  const char *url;         /* GET this: the item's URL, or GATE_URL */
  char *gate_url;          /* a gate's robots.txt URL; owned, wc_end
                              frees it */
  bool robots;             /* a robots.txt: fetcher_get_robots's rules */
  size_t max;              /* the body cap (fetcher_prepare) */
  fetch_result_t *res;     /* the response goes here: the page's
                              (it->data), or GATE_RES */
  fetch_result_t gate_res; /* a gate's response */
  int since_id;            /* --since: the older crawl's ID of the page
                              whose validators make the request
                              conditional (fetcher_prepare_cond); 0 for
                              an unconditional one */
  const char *etag, *last_modified; /* those validators; borrowed from
                              the older crawl's store_t, either NULL */
} wc_req_t;

/* wc_begin: everything before the request for popped IT: a gate's
 * robots.txt URL (or its answer without a request: cache, resume); a
 * page skipped past --max-pages, answered from the saved crawl
 * (replay, resume), refused by robots.txt or the host's page limit (its
 * token given back).
 * Returns: true: F is prepared for the transfer *REQ says
 *   (fetcher_prepare, or fetcher_prepare_cond with its validators when
 *   since_id is set): run it (fetcher_perform, or a multi handle and
 *   fetcher_finish), then call wc_end; false: IT is handled, *DONE is
 *   what the fetch hook returns for it (engine_sink).
 * Thread-safety: any thread; the one that holds IT (and F). */
bool wc_begin(struct webcrawl *w, engine_t *e, fitem_t *it, fetcher_t *f,
              wc_req_t *req, engine_fetched_t *done);

/* wc_end: everything after the transfer of REQ (fetcher_finish called):
 * the request counted and archived; a gate's answer handed to hosts.c;
 * a page's redirect followed or its failure retried (requeued), a host
 * paused on 429/503. Frees what REQ owns. Returns what the fetch hook
 * returns for IT. Thread-safety: as wc_begin. */
engine_fetched_t wc_end(struct webcrawl *w, engine_t *e, fitem_t *it,
                        wc_req_t *req);

/* wc_widen: with the default scope, the seed's own redirect to TO takes
 * TO's site into the scope (webcrawl.c). Returns false if out of memory.
 * The thread following the seed's chain. */
bool wc_widen(struct webcrawl *w, const char *to);

/* wc_no_client: the fetch hook's result for IT when no fetcher could be
 * made (libcurl out of memory): a gate is asked for again in a second,
 * a page fails. Thread-safety: as wc_begin. */
engine_fetched_t wc_no_client(struct webcrawl *w, engine_t *e, fitem_t *it);

/* wc_scope: the crawl's scope now. Any thread. */
static inline const scope_t *wc_scope(struct webcrawl *w)
{
  return atomic_load(&w->scope);
}

#endif /* CRAWLER_WEBCRAWL_INT_H */
