/* cluster.h: this process as one worker of a crawl shared through Redis
 * (internal; the crawler's --cluster).
 *
 * The engine's source of a shared crawl (engine_source_t, engine.h) over the
 * crawl's state in Redis (cstate.h); why it is built so is in DESIGN.md,
 * "One crawl, many processes". A worker runs the usual engine, with
 * three threads of its own beside the pools:
 *   keeper     says the worker is alive, keeps its leases (a share of
 *              the partitions: hosts hash to them; and the commit, when
 *              no one else has it), counts requests for --status, and
 *              notices when the crawl is complete;
 *   feeder     takes the items of the partitions held, as many as the
 *              worker may have in flight, into the engine's frontier;
 *   committer  while this worker holds the commit, reads the results
 *              every worker publishes and hands them to the engine's
 *              commit, in seq order; each commit is made durable in
 *              Redis before the next.
 * The front end (the crawler's wcluster.c) packs a parsed item's
 * result for the others, unpacks one for its commit, and keeps the page
 * directory in step with the commit's recorded position
 * (cluster_front_t).
 *
 * Leases end LEASE seconds after their last renewal; the keeper renews
 * them a few times a lease, and the worker acts for a lease only until
 * its end counted from before the renewal was sent (cstate_lease): so a
 * worker cut off or paused stops fetching a partition's hosts, and
 * committing, before another may start.
 *
 * Thread-safety: cluster_join, cluster_start, cluster_finish and
 * cluster_delete from one thread; the rest from any thread. */
#ifndef CRAWLER_CLUSTER_CLUSTER_H
#define CRAWLER_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cstate.h"
#include "engine.h"

typedef struct cluster cluster_t;

/* What the front end does for the cluster. Every call from the thread
 * named; no cluster lock held. */
typedef struct cluster_front {
  /* pack: parse thread: the result of IT (its data as the parse hook
   * left it) as bytes, *DATA owned by caller (free). Returns 0, or -2
   * if out of memory. */
  int (*pack)(void *ctx, const fitem_t *it, char **data, size_t *len);
  /* unpack: committer: an item for the commit from DATA (LEN bytes),
   * url, depth and data set (the caller sets it->seq); KEY names the
   * files it may spill to, one key an unpack, no worker's item's (two
   * results of one seq can wait in the commit at once). Returns: owned
   * by caller (it goes to engine_deliver), or NULL if out of memory or
   * not a result (errno EINVAL). */
  fitem_t *(*unpack)(void *ctx, const char *data, size_t len, uint64_t key);
  /* take_commit: committer: this worker commits from position ST on:
   * bring the page directory and the front end's counts to it (undo
   * what a committer before did after its last recorded commit).
   * Returns 0, or a negative status that fails the crawl. */
  int (*take_commit)(void *ctx, const cstate_commit_t *st);
  /* position: committer, after each commit: the pages, noindex pages
   * and journal bytes now, into ST. Returns 0, or -1 (errno) if they
   * cannot be read: nothing is recorded, and the worker fails. */
  int (*position)(void *ctx, cstate_commit_t *st);
  /* handed: parse thread: IT's result is published: its temporary
   * files are the commit's now, not to be removed with IT. May be
   * NULL. */
  void (*handed)(void *ctx, fitem_t *it);
  void *ctx;
} cluster_front_t;

typedef struct cluster_config {
  const char *url;              /* redis://HOST[:PORT][/DB] */
  const char *name;             /* the crawl's name */
  const cstate_param_t *params; /* the options that must agree */
  size_t nparams;
  const char *seed, *seed_hostkey; /* the first item, if it creates it */
  double lease;                    /* seconds (>= 1) */
  size_t inflight;                 /* items taken and not finished, at
                                      most (the feeder's bound) */
} cluster_config_t;

/* cluster_lease_margin: how long before a lease of LEASE seconds ends in
 * Redis a worker stops acting for it, counted from the renewal sent: 5%
 * for clocks, and 2 s for a Redis that loses its last seconds with
 * renewals it answered; at most half the lease. Under 2 s (a lease under
 * 4 s), such a Redis could let two workers commit at once. */
double cluster_lease_margin(double lease);

/* cluster_join: join crawl CFG->name (creating it if new; *CREATED
 * says), copying CFG. Returns a status (crawl.h): CRAWL_OK with *OUT
 * (owned: cluster_delete); else ERR (size N) says why. */
int cluster_join(const cluster_config_t *cfg, cluster_t **out, bool *created,
                 char *err, size_t n);

/* cluster_set_front: the front end's calls (FRONT copied; its ctx
 * borrowed), before cluster_start. */
void cluster_set_front(cluster_t *c, const cluster_front_t *front);

/* cluster_pages: the pages the crawl has saved, all workers together
 * (a negative status if Redis cannot say). */
long cluster_pages(cluster_t *c);

/* cluster_source: the engine's source (engine.h) of a worker: put it in
 * its engine's config, the worker's cluster_t as source_ctx. */
extern const engine_source_t cluster_source;

/* cluster_start: start the worker's threads for engine E (made with
 * cluster_source), holding E open (engine_hold) until the crawl is
 * complete or fails. Returns 0, or -1 if a thread could not start. */
int cluster_start(cluster_t *c, engine_t *e);

/* cluster_finish: after engine_run returned: stop and join the threads.
 * Returns 0 if the crawl is complete, or a negative status: the first
 * failure (CRAWL_ELOST, CRAWL_EREDIS, ...), with cluster_error saying
 * why; or 1 if the engine stopped before completion (an interrupt). */
int cluster_finish(cluster_t *c);

/* cluster_error: why the worker failed (borrowed). */
const char *cluster_error(const cluster_t *c);

/* cluster_worker: this worker's id ("w3-9f3a1c0e"). Borrowed. */
const char *cluster_worker(const cluster_t *c);

/* cluster_robots_get/put: the answer to a robots.txt URL another worker
 * stored, or store one (cstate_robots_get/put). Any thread. */
int cluster_robots_get(cluster_t *c, const char *url, char **data, size_t *len);
int cluster_robots_put(cluster_t *c, const char *url, const char *data,
                       size_t len);

/* cluster_pause: HOSTKEY asked for no request for SECONDS (Retry-After,
 * or a back-off after 503s): recorded in Redis at once, so that a worker
 * holding its partition, now or next, keeps the pause too (its keeper
 * reads pauses again when their count changes). Any thread. Returns
 * CRAWL_OK or a negative status. */
int cluster_pause(cluster_t *c, const char *hostkey, double seconds);

/* cluster_hand: IT, taken from the shared crawl, redirects to URL on
 * host HOSTKEY, after the URLs of CHAIN (one a line, the first the one
 * added): if another worker's partition has that host, the item goes
 * there to be fetched (cstate_hand; its ticket done here). Returns 0 if
 * the hop is this worker's to fetch (or IT is not from the shared
 * crawl), 1 if IT left this worker (handed over, or its partition is no
 * longer this worker's): the engine finishes it (ENGINE_GONE). Download
 * thread. */
int cluster_hand(cluster_t *c, fitem_t *it, const char *url,
                 const char *hostkey, const char *chain);

/* cluster_chain: the redirect chain IT came with (cluster_hand), or
 * NULL. Borrowed: lives as long as IT's ticket. */
const char *cluster_chain(const fitem_t *it);

/* cluster_count: one request to HOSTKEY, for --status (sent with the
 * next heartbeat). Any thread. */
void cluster_count(cluster_t *c, const char *hostkey);

/* cluster_tmp_key: a key for a temporary page file of this worker's, a
 * new one at each call: the worker's number above a count from a random
 * start (pagedir_write_tmp's KEY). Not the item's seq: an item fetched
 * again here is written under another name while the commit may link
 * the first. Any thread. */
uint64_t cluster_tmp_key(cluster_t *c);

/* cluster_name_ok: whether NAME may name a shared crawl (cstate_name_ok). */
bool cluster_name_ok(const char *name);

/* cluster_url_ok: whether URL is a Redis URL, "redis://HOST[:PORT][/DB]"
 * (rconn_parse_url); if not, ERR (size N) says why. */
bool cluster_url_ok(const char *url, char *err, size_t n);

/* cluster_status: print crawl NAME's state at Redis URL to FP
 * (cstate_status). Returns 1 complete, 0 running, or a negative status
 * (crawl.h; ERR, size N, says why). */
int cluster_status(const char *url, const char *name, FILE *fp, char *err,
                   size_t n);

/* cluster_round_trips: the Redis round trips of this process's
 * connections so far (rconn_round_trips). Any thread. */
long cluster_round_trips(void);

/* cluster_note_set, cluster_note_get: cstate_note_set/get. */
int cluster_note_set(cluster_t *c, const char *field, const char *value);
int cluster_note_get(cluster_t *c, const char *field, char *out, size_t n);
/* cluster_note_claim: cstate_note_claim. */
int cluster_note_claim(cluster_t *c, const char *field, const char *value,
                       char *out, size_t n);

/* cluster_delete: free C (after cluster_finish, or when never started).
 * NULL is fine. */
void cluster_delete(cluster_t *c);

#endif /* CRAWLER_CLUSTER_CLUSTER_H */
