/* wcluster.h: the crawler's side of a crawl shared by many processes
 * through Redis (--cluster; internal).
 *
 * cluster/ knows the shared crawl and the engine; this module
 * knows the crawler: which options must agree across workers, how a
 * page's record travels to the commit (page_pack, page_unpack), how the
 * page directory follows the commit from one committer to the next, and
 * robots.txt fetched once per host for every worker. */
#ifndef CRAWLER_WCLUSTER_H
#define CRAWLER_WCLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"
#include "coord.h"
#include "fetch.h"
#include "pagedir.h"
#include "pstore.h"
#include "webcrawl.h"

/* wcluster_join: join crawl NAME at Redis URL as one worker, with leases
 * of LEASE seconds, creating it if new (*CREATED): the options that must
 * agree are PARAMS (what the marker records) and O's rate, burst,
 * retries and timeout; the seed is O->seed.
 * Returns a status (crawl.h): CRAWL_OK with *OUT (cluster_delete), else
 * ERR (size N) says why. Main thread. */
int wcluster_join(const char *url, const char *name, double lease,
                  const pagedir_params_t *params, const webcrawl_opts_t *o,
                  cluster_t **out, bool *created, char *err, size_t n);

/* wcluster_pagedir: bind the directory of PS (borrowed: a shared store,
 * not locked yet) to crawl NAME of cluster CL, the crawl that PARAMS
 * (the marker's) describe: make it a page
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
 * or another status (crawl.h) (Redis: ERR says why). Main thread, before
 * the crawl starts. */
int wcluster_pagedir(cluster_t *cl, const char *name, pstore_t *ps,
                     const pagedir_params_t *params, char *stamp, size_t sn,
                     char *err, size_t n);

/* wcluster_coord: the coordinator (coord.h) of worker CL's crawl: the
 * crawl shared through Redis. Its context is CL (borrowed). */
coord_t wcluster_coord(cluster_t *cl);

/* wcluster_robots_decode: the answer the cluster coordinator kept, from
 * its bytes D (LEN), into *R (zeroed first): true if it is one (its
 * body, if any, as long as recorded; a page's body there). */
bool wcluster_robots_decode(const char *d, size_t len, fetch_result_t *r);

/* wcluster_robots_for: whether the stored answer D (LEN bytes) is one
 * for the gate of host HOSTKEY: any but a last failure kept for another
 * host's gate (a robots.txt both reach, one by a redirect). */
bool wcluster_robots_for(const char *d, size_t len, const char *hostkey);

#endif /* CRAWLER_WCLUSTER_H */
