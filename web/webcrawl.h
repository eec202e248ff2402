/* webcrawl.h: the crawler program's crawl of the web (internal).
 *
 * Plugs libcurl fetching, HTML and link-format parsing, URL normalisation
 * and scope, the depth limit and the page saver into the engine, in
 * ordered mode: the page directory (IDs, depths, bytes) and the log are
 * those of a plain breadth-first crawl whatever the worker counts and the
 * server's timing. */
#ifndef CRAWLER_WEBCRAWL_H
#define CRAWLER_WEBCRAWL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pagecheck.h" /* FORMAT_* */
#include "pstore.h"
#include "scope.h"
#include "store.h"
#include "tally.h"
#include "urlfilter.h"
#include "warc.h"

struct coord;

/* --transfers events without --download-workers: at most
 * WEBCRAWL_EVENTS_MAX transfers at once, and one per
 * WEBCRAWL_TRANSFER_MEMORY bytes of max_memory (for what a transfer holds
 * outside the budget: an easy handle and its buffers, and a body in
 * flight, uncharged: DESIGN.md, "The memory budget"). A transfer costs
 * sockets and memory, not a thread, so more run at once than the
 * threads' pool: 1,000 hosts found together at --rate 1 have 1,000
 * requests due at once. */
enum {
  WEBCRAWL_EVENTS_MAX = 4096,
  WEBCRAWL_TRANSFER_MEMORY = 256 * 1024,
};

typedef struct webcrawl_opts {
  const char *seed;         /* normalised, in scope */
  const char *const *seeds; /* every seed, SEED first (--seed, --seeds),
                               NSEEDS, each normalised and in scope, at
                               depth 0 in this order; NULL: SEED alone */
  size_t nseeds;
  pstore_t *pstore; /* the page directory's one writer (pstore.h),
                       opened: the marker written or checked, locked */
  int max_depth;
  int download_workers, parse_workers;
  int download_max;          /* above download_workers: the download pool is
                                elastic, from download_workers up to this many
                                threads (engine.h); else fixed */
  bool events;               /* transfers run by one event loop (xfer.h)
                                instead of download threads; its bound
                                on transfers in flight is what the
                                pool's would be */
  size_t queue_size;         /* 0 = unbounded */
  double rate, burst;        /* per host; rate 0 = no limit */
  const scope_t *scope;      /* links and redirects followed */
  const urlfilter_t *filter; /* --accept-regex, --reject-regex: which
                                links in scope are followed; NULL = all */
  const char *const *widen;  /* with the default scope: its prefixes
                                (NWIDEN), which the seed's own redirects
                                widen to the sites they go to (DESIGN.md,
                                "Scope"); NULL: the scope is fixed */
  size_t nwiden;
  const char *user_agent;
  const struct curl_slist *headers; /* --header (fetch.h); NULL: none */
  long max_pages;                   /* 0 = no limit */
  long max_pages_per_host;          /* 0 = no limit */
  long timeout;                     /* seconds per request */
  int retries;
  size_t max_page_size;
  size_t max_memory; /* what waits for the commit beyond this many bytes
                        waits on disk, in the page directory (DESIGN.md);
                        0 = no limit */
  int format;        /* FORMAT_* (pagecheck.h) */
  const char *ca_file, *ca_dir; /* CAs trusted instead of the system's */
  bool insecure;                /* no TLS certificate check (fetch.h) */
  bool ignore_robots;           /* no robots.txt, meta robots, X-Robots-Tag */
  bool respect_rel_nofollow;    /* skip links with rel="nofollow" */
  bool sitemaps;                /* a seed's sitemap URLs are its links too
                                   (wsitemap.h) */
  bool compress;                /* gzip page files (PSTORE too) */
  bool fsync;                   /* fsync each page and journal line (PSTORE
                                   too) */
  const store_t *replay;        /* fetch everything from this saved crawl */
  const store_t *resume;        /* pages saved before, in PSTORE's
                                   directory itself */
  const store_t *since;         /* --since: an older crawl whose pages are
                                   asked for conditionally, and reused on
                                   a 304 (DESIGN.md, "Refresh"); or NULL */
  warc_t *warc;                 /* record every exchange here, or NULL */
  const struct coord *coord;    /* what the crawl shares with other
                                   processes (coord.h); NULL: nothing */
  const char *pagedir_stamp;    /* in a shared crawl: the marker's stamp as
                                   bound (wcluster_pagedir) */
  bool log;                     /* CS50 event lines on LOGFP */
  FILE *logfile;                /* --log-file: every event, robots.txt's
                                   included, time first; or NULL */
  bool progress;                /* a live status line on stderr */
  FILE *logfp;
} webcrawl_opts_t;

/* What a crawl did. Pages whose request was made are either fetched (a
 * page to save) or failed (any other answer, or none: the counts in
 * parentheses say which). robots.txt requests are fetched (an answer
 * that settles the host's rules: 2xx, 3xx, 4xx) or failed (no answer,
 * 5xx, 429). URLs not fetched for robots.txt are ign_robots (its rules,
 * or a Crawl-delay over the bound, say no) or ign_unreachable (it could
 * not be fetched: hosts.h, HOSTS_UNREACHABLE). failures counts the
 * failed pages by cause (fetch_cause), unreachable the URLs of an
 * unreachable robots.txt by its host's reason. */
typedef struct webcrawl_stats {
  long saved, fetched, failed, http_errors, net_errors, wrong_type, too_large,
    redirects, retries, dup_redirects, ign_extern, ign_dupl, ign_nonpage,
    ign_invalid, write_errors, ign_robots, ign_unreachable, noindex, nofollow,
    ign_rel_nofollow, robots_fetched, robots_failed, requests, hosts, ign_trap,
    ign_host_limit, ign_filtered, binary, warc_records, sitemaps_fetched,
    sitemaps_failed;
  long long bytes;
  long long received; /* bytes every request received (head and body) */
  /* --since: pages saved as the older crawl had them (a 304), fetched
   * whole though the older crawl had them, new to it, saved by the
   * interrupted run this one resumes (and in the older crawl: KEPT of
   * all), and the older crawl's pages not saved now */
  long reused, refetched, fresh, earlier, kept, gone;
  double elapsed;
  double bound;                  /* requests the politeness bound allowed
                                    (frontier_stats_t.bound); 0 without a rate */
  size_t mem_peak;               /* the budget's peak (budget.h) */
  long long spilled, spill_peak; /* bytes to disk in all, and at most on
                                    disk at once */
  tally_t failures, unreachable;
  long round_trips;       /* --cluster: Redis round trips of this worker */
  char worker[32];        /* --cluster: this worker's id, "" otherwise */
  bool seed_saved;        /* a seed (or where it redirects) saved */
  long seeds_failed;      /* seeds not saved */
  char seed_failed[256];  /* the first of them */
  char scope_added[2048]; /* the prefixes the seed's redirects added to
                             the scope, ", "-separated; "" if none */
  char seed_why[320];     /* if not, why: "HTTP 404 Not Found",
                             "robots.txt unreachable: ...", "noindex",
                             ...; "" if the crawl stopped before */
} webcrawl_stats_t;

/* webcrawl_run: crawl per O (borrowed) and fill *ST.
 * Returns: CRAWL_OK; CRAWL_ESTOPPED if webcrawl_interrupt was called;
 * CRAWL_EIO if a page, the journal or the WARC file could not be
 * written, or a resumed crawl found a page under another ID (the crawl
 * stops; every page saved before is complete and the IDs have no gap);
 * CRAWL_ENOMEM (a link or page lost to out of memory) or CRAWL_ETHREAD. Needs
 * curl_global_init and xmlInitParser done. Thread-safety: one call at a time
 * per process. Everything a crawl uses is its own, except one process-wide
 * global: the running crawl's engine, published for webcrawl_interrupt, which
 * takes no handle so that a signal thread can call it; a second crawl at once
 * would take that over. */
int webcrawl_run(const webcrawl_opts_t *o, webcrawl_stats_t *st);

/* webcrawl_interrupt: ask the running crawl, if any, to stop: in-flight
 * requests finish, nothing new starts. Safe at any moment of a crawl,
 * its very end included (the engine is not freed while it is stopped).
 * Any thread; not a signal handler (it takes a mutex, and engine_stop is
 * not async-signal-safe). */
void webcrawl_interrupt(void);

#endif /* CRAWLER_WEBCRAWL_H */
