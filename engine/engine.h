/* engine.h: the one crawl loop of the project (internal; not installed).
 *
 * The engine owns the thread pools, the frontier, the seen set, the queue of
 * fetched pages and termination detection. Front ends plug in hooks:
 * crawl() (crawl.c) plugs in the caller's fetch_fn/edge_fn and the link
 * format; the crawler program plugs in libcurl, HTML parsing, politeness,
 * robots.txt, the depth limit and the page saver. Why it is built this way
 * (exact breadth-first order, speculation, termination) is in DESIGN.md;
 * this header says what each call promises.
 *
 * Flow of one item (a URL):
 *   engine_add (dedup, seq) -> frontier -> download thread: hooks.fetch
 *   -> queue of fetched pages -> parse thread: hooks.parse
 *   -> [ordered mode: reorder buffer -> hooks.commit, in seq order]
 *   -> hooks.release, item freed.
 *
 * Ordered mode: items are committed one at a time in the order they were
 * added (seq), and only commit adds items, so every seq, depth and ID a
 * commit hands out is the one a single-threaded FIFO crawl gives.
 *
 * Speculation (ordered mode): hooks.parse may name the links its commit
 * will add, early, with engine_speculate. Each becomes a speculative item
 * (FITEM_SPEC), fetched only with a worker and a host token that would
 * otherwise go unused (frontier.h), and given a speculative parse (see
 * hooks.parse). When a commit adds the URL, the item is adopted: it takes
 * that add's seq and depth, and its fetch result is used instead of a new
 * request. A URL the commit never adds (the crawl stopped, or
 * engine_mark_seen claimed it) is dropped, unfetched if still queued; so
 * is every one whose depth the commit has gone past: once it commits the
 * first item of depth d, no add at depth d or less is left to come, and
 * speculations at those depths are dropped (a page refused by a limit
 * never adds its links: their speculations go no later than that).
 *
 * Memory: with a budget (budget.h), the frontier charges the URLs it
 * holds and spills pushes beyond it to cfg.spill_path; a speculation is
 * charged its record and refused when the budget is three quarters full.
 *
 * Termination: engine_run returns once every item added was finished
 * (committed, or parsed in unordered mode), or after engine_stop. */
#ifndef CRAWLER_ENGINE_H
#define CRAWLER_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontier.h"

typedef struct engine engine_t;

/* The most threads of each pool (engine_config_t). */
enum { ENGINE_MAX_WORKERS = 4096 };

/* What hooks.fetch did with its item. */
typedef enum {
  ENGINE_PARSE,    /* pass the item (with its data) to a parse thread */
  ENGINE_REQUEUED, /* the hook gave the item to engine_requeue */
  ENGINE_CONSUMED, /* a gate item was handled: the engine frees it */
  ENGINE_GONE      /* the item left this process (a shared crawl:
                      another fetches it): the engine finishes it, no
                      commit */
} engine_fetched_t;

typedef struct engine_hooks {
  /* worker_init/worker_fini: per-download-thread state (e.g. a curl
   * handle), in that thread. May be NULL. worker_init returning NULL is
   * fine when the state is not needed. */
  void *(*worker_init)(void *ctx);
  void (*worker_fini)(void *ctx, void *wstate);
  /* fetch: download thread, no engine lock held. Sets it->data. */
  engine_fetched_t (*fetch)(void *ctx, void *wstate, engine_t *e, fitem_t *it);
  /* parse: parse thread, no lock held. In unordered mode it adds links
   * with engine_add (which may block while the frontier is full). In
   * ordered mode it is called once for every item, and, for an item that
   * was fetched speculatively, once before that (it->flags has FITEM_SPEC,
   * it->depth is an upper bound of the final depth, it->seq means
   * nothing): that call may only look (say, engine_speculate the links)
   * and must leave it->data ready for the ordinary call. */
  void (*parse)(void *ctx, engine_t *e, fitem_t *it);
  /* commit: ordered mode only; one thread at a time, in seq order, no lock
   * held; adds links with engine_add. May be NULL in unordered mode. */
  void (*commit)(void *ctx, engine_t *e, fitem_t *it);
  /* release: free it->data (the item itself is the engine's). Any thread;
   * may be NULL. Also called for items left over after engine_stop. */
  void (*release)(void *ctx, fitem_t *it);
} engine_hooks_t;

/* engine_source: the seam between the crawl loop and the crawl it runs
 * for: where a commit's new URLs go, which popped items this engine may
 * fetch, and where a parsed item is committed. The engine always calls
 * it and never asks which one it has. Two implementations:
 * - the engine's own, engine_local_source (engine_local.c): a new URL is
 *   pushed into this engine's frontier, every item is fetched, and every
 *   parsed item is committed here (the reorder buffer);
 * - a crawl shared with other processes (the crawler's --cluster,
 *   cluster_source in cluster.h): a new URL goes to the shared frontier,
 *   items enter this engine through engine_inject (added elsewhere, with
 *   their seq and a ticket), a popped item is fetched only while its
 *   host is this process's, and a parsed item is published to wherever
 *   the shared crawl commits; there, engine_deliver hands it to this
 *   engine's commit (engine_commit_at, engine_seen_load and
 *   engine_commit_reset keep that commit in step with the shared one).
 *
 * What the source allows (the flags below) the engine applies once, in
 * engine_new; a source whose items come back to this engine's commit
 * allows them all.
 *
 * Calls: from any engine thread, no engine lock held; each says what it
 * may return. CTX is engine_config_t's source_ctx. */
typedef struct engine_source {
  /* speculate: parse threads may fetch a commit's adds early
   * (engine_speculate): each add comes back to this engine's frontier,
   * where its speculative item can be adopted. Off: cfg.speculate 0. */
  bool speculate;
  /* horizon: an item's seq counts from this engine's commit point, so
   * downloads may be held near it (cfg.window, engine_want). Off: no
   * window, engine_want does nothing. */
  bool horizon;
  /* spill: queued items may wait on disk (cfg.spill_path): they carry
   * nothing the file cannot hold (no ticket). Off: never spill. */
  bool spill;
  /* unordered: the source works in unordered mode too (crawl()). Off:
   * engine_new refuses a config that is not ordered. */
  bool unordered;
  /* fp80: the seen set keeps 80 bits of each fingerprint (fp[0]'s top
   * 16 bits and fp[1], the rest zero), what a shared seen set keeps
   * (engine_seen_load). */
  bool fp80;
  /* start_empty: a new host's bucket starts empty, not full (frontier.h):
   * another process may have made its host's requests just before. */
  bool start_empty;
  /* add: IT (adopted: url, depth and seq set; data NULL), new to the
   * seen set (fingerprint FP), under HOSTKEY (borrowed): queue it where
   * the crawl's items wait. Called by engine_add, whose return it gives:
   * 1 queued, or -1, -2, -3 (engine_add); it fails the crawl
   * (engine_fail) where engine_add says so. */
  int (*add)(void *ctx, engine_t *e, fitem_t *it, const uint64_t fp[2],
             const char *hostkey);
  /* seen: URL (fingerprint FP) was claimed by engine_mark_seen without
   * being queued. Returns 0, or a negative status that fails the
   * crawl. */
  int (*seen)(void *ctx, const char *url, const uint64_t fp[2]);
  /* admit: whether popped IT may be fetched here. false: no request,
   * its token is given back; a gate item (its host's robots.txt) then
   * stays needed (for when the host is admitted again) and the host's
   * items waiting behind it are dropped as refused ones are. */
  bool (*admit)(void *ctx, fitem_t *it);
  /* gate_done: the gate of host HOSTKEY (borrowed; NULL if no such
   * host), admitted, went through hooks.fetch. */
  void (*gate_done)(void *ctx, const char *hostkey);
  /* publish: IT was parsed (ordered mode): hand it to its commit.
   * Returns ENGINE_COMMIT_HERE: to this engine's commit, in seq order;
   * 0: taken elsewhere, the engine finishes it; a negative status: the
   * crawl fails (the engine finishes it). */
  int (*publish)(void *ctx, engine_t *e, fitem_t *it);
  /* commit_begin: asked before hooks.commit of IT. Returns 0, or
   * non-zero: not now (this process no longer commits; IT waits in the
   * reorder buffer). */
  int (*commit_begin)(void *ctx, fitem_t *it);
  /* committed: after hooks.commit of IT, unless stopped: make the
   * commit durable. Returns 0, or a negative status that fails the
   * crawl. */
  int (*committed)(void *ctx, engine_t *e, fitem_t *it);
  /* release: free it->ticket (never NULL here). */
  void (*release)(void *ctx, fitem_t *it);
} engine_source_t;

/* What engine_source_t.publish returns for an item committed here. */
enum { ENGINE_COMMIT_HERE = 1 };

/* engine_local_source: the engine's own frontier and commit (above);
 * what engine_config_t's source NULL means. */
extern const engine_source_t engine_local_source;

typedef struct engine_config {
  int download_workers;          /* 1 to ENGINE_MAX_WORKERS: the download
                                    threads started, and with no
                                    download_max, the fixed count */
  int download_max;              /* above download_workers: an elastic pool
                                    (engine.c, "Elastic download pool") that
                                    grows up to this many download threads
                                    while items are due and none is free, and
                                    shrinks back to download_workers when
                                    threads stand idle; 0 or at most
                                    download_workers = a fixed pool; at most
                                    ENGINE_MAX_WORKERS */
  int parse_workers;             /* 1 to ENGINE_MAX_WORKERS */
  size_t queue_size;             /* frontier capacity; 0 = unbounded */
  bool queue_only;               /* queue_size bounds the URLs waiting
                                    only, not those out with a download
                                    worker (crawl()'s links queue;
                                    frontier.h, Capacity); unordered
                                    mode only */
  size_t fetched_limit;          /* downloaders wait while this many fetched
                                    pages wait for a parser; 0 = unbounded. Never
                                    a deadlock: they do not wait while an
                                    engine_add is pushing into a bounded frontier
                                    (it may need them to drain it). */
  bool ordered;                  /* commit in seq order (see above) */
  size_t window;                 /* ordered: download at most this many seqs
                                    beyond the commit point (bounds the pages
                                    parsed and waiting); 0 = unbounded */
  uint64_t want;                 /* ordered: engine_want(WANT) from the
                                    start; 0 = no bound */
  size_t speculate;              /* ordered: speculative items at once, at most
                                    (engine_speculate); 0 = no speculation;
                                    SIZE_MAX: as many as the budget allows */
  size_t speculate_out;          /* of those, handed out for fetching and not
                                    adopted yet, at most (their results wait in
                                    memory); 0 = no limit */
  double rate, burst;            /* per-host politeness (frontier.h) */
  budget_t *budget;              /* see Memory above; NULL = none */
  const char *spill_path;        /* the frontier's spill file (frontier.h);
                                    NULL = never spill */
  bool gate;                     /* a gate item first for every host */
  const engine_source_t *source; /* where items come from and go
                                    (above); borrowed, must outlive the
                                    engine; NULL = engine_local_source */
  void *source_ctx;              /* passed to every source call */
  const engine_hooks_t *hooks;   /* borrowed; must outlive the engine */
  void *ctx;                     /* passed to every hook */
  /* driver: run by engine_run in one thread of its own in place of the
   * download pool (download_workers, download_max and the hooks'
   * worker_init/worker_fini are then unused): it fetches every item,
   * taking them with engine_next and handing each back with
   * engine_sink, until engine_next says ENGINE_CLOSED and nothing it
   * took is left out; then it returns. NULL = download threads. */
  void (*driver)(void *arg, engine_t *e);
  void *driver_arg;
  /* wake: called whenever an item may fall due earlier than engine_next
   * last said, when a parser takes a page from a queue engine_next found
   * full, and when the crawl closes or stops, so that a driver may sleep
   * until then (frontier.h, frontier_config_t.wake): from any thread,
   * perhaps with the frontier's lock held; it must only signal (never
   * call the engine, never block). Must stay callable until
   * engine_delete. NULL = none. */
  void (*wake)(void *arg);
  void *wake_arg;
} engine_config_t;

/* engine_new: an engine ready for engine_add and engine_run. CFG copied.
 * Returns: owned by caller (engine_delete); NULL if CFG is invalid (counts
 * below 1, download_max above ENGINE_MAX_WORKERS, no fetch or parse hook,
 * commit missing in ordered mode, queue_only in ordered mode, a source
 * with a call missing, unordered mode with a source that does not allow
 * it) or out of memory. Thread-safety: any thread. */
engine_t *engine_new(const engine_config_t *cfg);

/* engine_add: add URL (borrowed) at DEPTH under HOSTKEY (borrowed; "" for
 * one host) unless it was added before. Blocks while the frontier is full.
 * Returns: 1 added, 0 seen before, -1 the engine is stopping (not added),
 * -2 out of memory, -3 the spill could not be written (errno; the engine
 * then fails with CRAWL_EIO). Thread-safety: any thread; from hooks: parse
 * (unordered) or commit (ordered) only, so that termination is exact. */
int engine_add(engine_t *e, const char *url, int depth, const char *hostkey);

/* engine_speculate: fetch URL (borrowed) early, under HOSTKEY (borrowed),
 * because a commit is about to add it at DEPTH (see Speculation). Does
 * nothing if URL was added or speculated before, in unordered mode, when
 * stopping or at the speculate limit. Never blocks on the frontier.
 * Returns: 1 queued, 0 not. Thread-safety: any thread; meant for
 * hooks.parse, for the links its commit will add. */
int engine_speculate(engine_t *e, const char *url, int depth,
                     const char *hostkey);

/* engine_mark_seen: add URL to the seen set without queueing it (e.g. the
 * target of a redirect); a speculative item for it is dropped. Returns 1
 * if it was new, 0 if seen, -2 out of memory, -1 if the shared frontier
 * (source->seen) failed, which fails the crawl. Thread-safety: as
 * engine_add. */
int engine_mark_seen(engine_t *e, const char *url);

/* engine_requeue: put a popped item back into the frontier, optionally
 * under a new URL (NEW_URL borrowed, may be NULL) and host, not before
 * monotonic time NOT_BEFORE. On failure (stopping, out of memory) an
 * ordinary item goes on to parse with it->data as it is, so nothing is
 * lost or leaked; a speculative item that was not adopted is dropped (a
 * guess costs nothing to lose).
 * Thread-safety: from hooks.fetch only; the hook then returns
 * ENGINE_REQUEUED. */
void engine_requeue(engine_t *e, fitem_t *it, const char *new_url,
                    const char *hostkey, double not_before);

/* ---- for a driver (engine_config_t.driver) ---- */

/* engine_job: an item taken by engine_next, with what engine_sink needs
 * once the fetch hook may have handed the item on (ENGINE_REQUEUED). */
typedef struct engine_job {
  fitem_t *it;   /* owned by the driver until engine_sink */
  uint32_t host; /* its host (frontier.h) */
  bool gate;     /* a gate item */
} engine_job_t;

/* What engine_next found. */
enum { ENGINE_ITEM = 1, ENGINE_WAIT = 0, ENGINE_CLOSED = -1 };

/* engine_next: take an item that may be fetched now, as a download thread
 * does: its host's token taken, the source's admit asked (an item it
 * refuses is handled here, and the next looked at). Never waits.
 * Returns: ENGINE_ITEM, *JOB filled in: fetch it (the fetch hook, or
 *   the same work split in two) and give it to engine_sink;
 *   ENGINE_WAIT: nothing now; *DUE is the monotonic time the next item
 *   may fall due (INFINITY: not before cfg.wake is called); also while
 *   cfg.fetched_limit pages wait for a parser (cfg.wake is called when
 *   one is taken), so that a driver holds no more pages than it has in
 *   flight;
 *   ENGINE_CLOSED: the crawl is over or stopping: finish what was taken,
 *   then return from the driver.
 * Thread-safety: any thread; meant for the driver's. */
int engine_next(engine_t *e, engine_job_t *job, double *due);

/* engine_sink: JOB's item went through the fetch (the fetch hook's work)
 * with the result WHAT (engine_hooks_t.fetch): it goes on to parse,
 * stays requeued, is freed (a gate) or finished (gone), and a gate's
 * source->gate_done is called. Never waits in the driver's thread (a
 * download thread's waits while cfg.fetched_limit pages wait for a
 * parser). Thread-safety: any thread, no engine lock held; the one that
 * took JOB. */
void engine_sink(engine_t *e, const engine_job_t *job, engine_fetched_t what);

/* engine_speculating: speculation records alive now (queued, being
 * fetched or parked). Any thread. */
size_t engine_speculating(engine_t *e);

/* engine_frontier: the frontier, for politeness calls (gate done, pauses,
 * refunds). Borrowed; lives as long as E. */
frontier_t *engine_frontier(engine_t *e);

/* engine_stats: what E's frontier counts now (frontier.h,
 * frontier_stats_t: URLs queued, hosts, the polite bound, a lost spill)
 * into *ST. Any thread; also after engine_run. */
typedef frontier_stats_t engine_stats_t;
void engine_stats(engine_t *e, engine_stats_t *st);

/* engine_run: start the pools (or the driver and the parse pool), wait until
 * the crawl is complete or stopped, join every thread. Call once, from one
 * thread. Returns: CRAWL_OK; the status of the first engine_fail;
 * CRAWL_ESTOPPED after engine_stop; CRAWL_EIO if the frontier lost its spill;
 * CRAWL_ETHREAD or CRAWL_ENOMEM if the pools could not start (threads already
 * started are stopped and joined); CRAWL_EINVAL if called twice. The engine
 * itself fails with CRAWL_ENOMEM when, in ordered mode, an item it holds could
 * not be kept (the commit could not go past it). */
int engine_run(engine_t *e);

/* engine_stop: stop handing out work: downloads in flight finish, nothing
 * new starts, engine_run returns CRAWL_ESTOPPED. Any thread; async-signal
 * safety is NOT given (call it from a thread, not a signal handler). */
void engine_stop(engine_t *e);

/* engine_fail: stop as engine_stop, and make engine_run return STATUS
 * (negative) instead; the first failure wins. For a front end whose crawl
 * cannot be completed (a link lost to out of memory). Any thread. */
void engine_fail(engine_t *e, int status);

/* engine_stopped: true once engine_stop or engine_fail was called. Any
 * thread. */
bool engine_stopped(engine_t *e);

/* engine_want: ordered mode, a source with horizon: only the next N items
 * in seq order can still matter (the caller stops the crawl after them, as
 * --max-pages does), so downloads hand out nothing beyond them, within
 * cfg.window as before. N counts from the first item not committed yet;
 * from the commit hook, from the item after the one being committed.
 * Call it before engine_run (or set cfg.want) or from the commit hook; N may
 * only shrink by the items committed since the last call (the horizon never
 * moves back); UINT64_MAX lifts the bound (the crawl has what it wanted, and
 * the rest drains). Speculative items are not bounded by it: turn
 * speculation off; nor, while an add waits for room in a full frontier
 * (--queue-size), what the frontier hands out then (frontier.h).
 * Thread-safety: any thread. */
void engine_want(engine_t *e, uint64_t n);

/* ---- for a shared crawl's source (engine_source_t) ---- */

/* engine_inject: queue URL (borrowed) at DEPTH with sequence number SEQ
 * under HOSTKEY (borrowed), its TICKET adopted (it->ticket; freed by
 * source->release): an item added by the shared crawl. No seen check.
 * May block while the frontier is full. Returns 0, -1 stopping, -2 out
 * of memory (TICKET stays the caller's then). Any thread. */
int engine_inject(engine_t *e, const char *url, int depth, uint64_t seq,
                  const char *hostkey, void *ticket);

/* engine_deliver: IT (adopted; seq, depth and data set, as the parse hook
 * left it), parsed by some process, goes to this process's commit, which
 * runs in the calling thread if IT is next. One thread only: the one
 * that holds the shared commit. */
void engine_deliver(engine_t *e, fitem_t *it);

/* engine_commit_at: the commit goes on from NEXT_COMMIT, with NEXT_SEQ
 * the next seq to hand out and DEPTH that of the last item committed
 * (the shared crawl's position, when this process takes the commit
 * over). Before any engine_deliver of this turn. */
void engine_commit_at(engine_t *e, uint64_t next_seq, uint64_t next_commit,
                      int depth);

/* engine_seen_load: add fingerprint FP (80 bits, see engine_source_t.fp80) to
 * the seen set. Returns 0, or -2 if out of memory. */
int engine_seen_load(engine_t *e, const uint64_t fp[2]);

/* engine_commit_reset: this process's turn at the commit is over (or a
 * new one begins): drop every item delivered and not committed, and
 * empty the seen set (a new turn loads the shared one). The thread that
 * delivers, between deliveries. Returns 0, or -2 if out of memory. */
int engine_commit_reset(engine_t *e);

/* engine_hold/engine_unhold: keep the crawl from ending (as an item not
 * finished would) while the shared crawl is not complete; unhold lets
 * it end once nothing is left here. Any thread. */
void engine_hold(engine_t *e);
void engine_unhold(engine_t *e);

/* engine_delete: free E and anything left in it. NULL is fine. */
void engine_delete(engine_t *e);

#endif /* CRAWLER_ENGINE_H */
