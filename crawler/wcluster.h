/* wcluster.h: the crawler's side of a crawl shared by many processes
 * through Redis (--cluster; internal).
 *
 * crawler/cluster/ knows the shared crawl and the engine; this module
 * knows the crawler: which options must agree across workers, how a
 * page's record travels to the commit (page_pack, page_unpack), how the
 * page directory follows the commit from one committer to the next, and
 * robots.txt fetched once per host for every worker. */
#ifndef CRAWLER_WCLUSTER_H
#define CRAWLER_WCLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cluster.h"
#include "fetch.h"
#include "pagedir.h"
#include "webcrawl.h"

struct webcrawl;
struct page;

/* wcluster_join: join crawl NAME at Redis URL as one worker, with leases
 * of LEASE seconds, creating it if new (*CREATED): the options that must
 * agree are PARAMS (what the marker records) and O's rate, burst,
 * retries and timeout; the seed is O->seed.
 * Returns a CSTATE_* status: CRAWL_OK with *OUT (cluster_delete), else
 * ERR (size N) says why. Main thread. */
int wcluster_join(const char *url, const char *name, double lease,
                  const pagedir_params_t *params, const webcrawl_opts_t *o,
                  cluster_t **out, bool *created, char *err, size_t n);

/* wcluster_pagedir: bind DIR (borrowed) to crawl NAME of cluster CL,
 * the crawl that PARAMS (the marker's) describe: make it a page
 * directory if it holds nothing yet, or check that its marker records
 * PARAMS; then check that it is the directory the crawl started in. The
 * crawl records the marker's stamp (its time and size) once, as the
 * first worker binds a directory holding no page; a directory whose
 * marker is another, or that holds pages the crawl has no record of (a
 * finished crawl, a Redis that came back empty), is refused: every
 * later commit would cut it back to the crawl's recorded position.
 * The stamp bound into STAMP (size SN): each commit turn compares the
 * directory's with it before cutting the directory back.
 * Returns CRAWL_OK, CRAWL_EMISMATCH (refused: ERR, size N, says why),
 * or another CSTATE_* status (Redis: ERR says why). Main thread, before
 * wcluster_start. */
int wcluster_pagedir(cluster_t *cl, const char *name, const char *dir,
                     const pagedir_params_t *params, char *stamp, size_t sn,
                     char *err, size_t n);

/* wcluster_status: print crawl NAME's state at Redis URL to FP.
 * Returns 1 complete, 0 running, or a negative CSTATE_* status (ERR,
 * size N, says why). */
int wcluster_status(const char *url, const char *name, FILE *fp, char *err,
                    size_t n);

/* wcluster_start: W's front end for W->cluster, its threads started on
 * W's engine. Returns 0 or -1. webcrawl_run, before engine_run. */
int wcluster_start(struct webcrawl *w);

/* wcluster_finish: after engine_run returned STATUS: stop W's cluster
 * threads; fill W->st with what the crawl as a whole did (pages saved,
 * why the seed was not saved); on completion, clear the temporary files
 * left. Returns the status for webcrawl_run: STATUS, CRAWL_OK once the
 * crawl is complete, or CRAWL_ECLUSTER (said on stderr). */
int wcluster_finish(struct webcrawl *w, int status);

/* wcluster_hand: IT redirects to TO (host KEY), P's chain has the hop:
 * hand it to the worker whose partition has that host (cluster_hand).
 * True if it left this worker (ENGINE_GONE). Download thread. */
bool wcluster_hand(struct webcrawl *w, fitem_t *it, const struct page *p,
                   const char *to, const char *key);

/* wcluster_chain: IT came handed over (wcluster_hand): the redirects
 * before it into P's chain, once. Returns 0, or -1 (out of memory).
 * Download thread. */
int wcluster_chain(struct webcrawl *w, fitem_t *it, struct page *p);

/* wcluster_pause: the host of URL asked for no request for SECONDS
 * (Retry-After): tell every worker that may take it over. Download
 * thread. */
void wcluster_pause(struct webcrawl *w, const char *url, double seconds);

/* wcluster_pause_host: wcluster_pause, for the host of key HOSTKEY. */
void wcluster_pause_host(struct webcrawl *w, const char *hostkey,
                         double seconds);

/* wcluster_robots: the answer to robots.txt URL that a worker got
 * before, for the gate of host HOSTKEY (wcluster_robots_for), into *R
 * (zeroed first): true if there was one (then no request is made).
 * Download thread. */
bool wcluster_robots(struct webcrawl *w, const char *url, const char *hostkey,
                     fetch_result_t *r);

/* wcluster_robots_decode: the answer wcluster_robots_keep stored, from
 * its bytes D (LEN), into *R (zeroed first): true if it is one (its
 * body, if any, as long as recorded; a page's body there). */
bool wcluster_robots_decode(const char *d, size_t len, fetch_result_t *r);

/* wcluster_robots_keep: store R, the answer to robots.txt URL, for every
 * worker, unless it is worth asking again (retryable) and LAST is false
 * (a try is left: hosts_gate_last); then, the last try of host HOSTKEY
 * failing, for that host's gate only (wcluster_robots_for). Download
 * thread. */
void wcluster_robots_keep(struct webcrawl *w, const char *url,
                          const fetch_result_t *r, bool last,
                          const char *hostkey);

/* wcluster_robots_for: whether the stored answer D (LEN bytes) is one
 * for the gate of host HOSTKEY: any but a last failure kept for another
 * host's gate (a robots.txt both reach, one by a redirect). */
bool wcluster_robots_for(const char *d, size_t len, const char *hostkey);

/* wcluster_seed: the seed was not saved, for WHY: say so to every
 * worker. Commit. */
void wcluster_seed(struct webcrawl *w, const char *why);

#endif /* CRAWLER_WCLUSTER_H */
