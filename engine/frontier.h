/* frontier.h: the queue of URLs waiting to be fetched (internal).
 *
 * One FIFO queue per host (a host being whatever key the caller names, for
 * the crawler "scheme://host:port"), a token bucket per host, and two heaps
 * of hosts: hosts that may be fetched now, ordered by the sequence number of
 * their first queued item (so downloads follow discovery order across
 * hosts), and hosts that must wait, ordered by the time they may be fetched
 * next. frontier_pop() hands out the oldest item of a host that has a token
 * now; when no host is due it sleeps on a condition variable until the
 * earliest due time, woken early by new work or frontier_close(). A URL
 * whose host has no token never holds a download worker.
 *
 * Politeness: each host has a bucket of capacity BURST refilled at RATE
 * tokens per second (RATE 0: no limit). Every pop takes a token, so in any
 * window of t seconds a host hands out at most BURST + RATE*t items. A host
 * may be paused until a time (Retry-After) or slowed to one item every N
 * seconds (Crawl-delay, which also sets its burst to 1).
 *
 * Gates: with GATE set, the first pop for a new host returns a gate item
 * (flag FITEM_GATE, url = the host key) and the host hands out nothing else
 * until frontier_gate_done() (the crawler fetches robots.txt there).
 *
 * Speculative items (flag FITEM_SPEC, seq >= FITEM_SPEC_SEQ) are URLs
 * fetched early because they will almost surely be needed (engine.h). A
 * host queues them after its ordinary items, and they are handed out only
 * when no ordinary item may be: when the first item of the host due
 * soonest in seq order is speculative, and fewer than SPEC_OUT of them are
 * out (handed out and not yet frontier_spec_return'ed). They take tokens
 * like any item, and frontier_promote turns a queued one into an ordinary
 * item in place.
 *
 * Capacity: every item but a gate holds a slot from the moment it enters
 * (push, or a speculative item's requeue) until frontier_done: queued,
 * delayed, kept on disk, or out with a download worker, so that a retry
 * or a redirect (a requeue of an item that still holds its slot) never
 * has to wait, and CAPACITY bounds every URL the frontier answers for.
 * A push waits for a free slot; a speculative item finds none, and is
 * refused. With QUEUE_ONLY, an item gives its slot back when it is handed
 * out, so that CAPACITY bounds only what waits in the frontier: the links
 * queue of crawl(), which downloaders pop off (crawl.h). A requeue then
 * takes a slot again, over CAPACITY if need be: a popped item must never
 * be lost for want of one (crawl() requeues nothing; speculation, which
 * relies on refusals, is the ordered mode's, and the engine refuses
 * QUEUE_ONLY there).
 *
 * Memory: with a BUDGET (budget.h), every item held in memory is charged
 * to it. A push that does not fit goes to SPILL_PATH instead, a file of
 * URLs in push order, and so does every push after it until the file is
 * drained: items come back from it, oldest first, while the budget is
 * below three quarters full, or when nothing else could be handed out.
 *
 * Thread-safety: every function may be called from any thread; the
 * frontier locks itself and calls no callbacks but frontier_empty_buckets's
 * PICK, the config's WAKE and, once no thread uses it, frontier_delete's
 * DROP. */
#ifndef CRAWLER_FRONTIER_H
#define CRAWLER_FRONTIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Item flags. GATE and SPEC are the owner's; QUEUED and DELAYED are the
 * frontier's own (set while it holds the item). */
enum {
  FITEM_GATE = 1u,    /* a gate item (see Gates above) */
  FITEM_SPEC = 2u,    /* speculative (see Speculative items below) */
  FITEM_QUEUED = 4u,  /* in the frontier now */
  FITEM_DELAYED = 8u, /* in the frontier, waiting for its not_before */
  FITEM_SLOT = 16u    /* holds a slot of the capacity (frontier_done) */
};

/* Speculative items have seqs from here up, so every one sorts after every
 * ordinary item. */
#define FITEM_SPEC_SEQ (UINT64_C(1) << 62)

/* fitem: one URL on its way through the crawl. Whoever holds the pointer
 * owns it: the frontier while queued, then the worker that popped it. */
typedef struct fitem {
  struct fitem *next; /* queue link; whoever owns the item may use it */
  struct fitem *prev; /* the frontier's, for speculative items */
  uint64_t seq;       /* discovery order, set by the engine */
  double not_before;  /* frontier_requeue: not fetched before this */
  void *data;         /* the owner's payload; the frontier never reads it */
  void *spec;         /* the engine's record of a speculative item */
  void *ticket;       /* the engine source's own record of the item
                         (engine_source_t), or NULL */
  uint32_t host;      /* host index, set by frontier_push/requeue */
  int depth;
  unsigned flags; /* FITEM_* */
  char url[];     /* NUL-terminated */
} fitem_t;

/* fitem_new: a new item for URL (copied) at DEPTH; other fields zero.
 * Returns: owned by caller (fitem_delete), NULL if out of memory. */
fitem_t *fitem_new(const char *url, int depth);

/* fitem_set_url: give IT a new URL (copied; the item is reallocated).
 * Returns: the item, now at a new address (the old pointer is invalid), or
 * NULL if out of memory (the old item is unchanged and still owned). */
fitem_t *fitem_set_url(fitem_t *it, const char *url);

/* fitem_delete: free IT (not it->data); NULL is fine. */
void fitem_delete(fitem_t *it);

typedef struct frontier frontier_t;

typedef struct budget budget_t;

typedef struct frontier_config {
  size_t capacity;        /* slots (see Capacity above); 0 = unbounded */
  bool queue_only;        /* a slot is given back at the pop, not at
                             frontier_done (see Capacity above) */
  double rate;            /* tokens per second per host; 0 = no limit */
  double burst;           /* bucket capacity (>= 1) */
  bool gate;              /* hand out a gate item first for every host */
  size_t spec_out;        /* speculative items out at once, at most; 0 = no
                             limit */
  uint64_t horizon;       /* frontier_set_horizon's from the start; 0 =
                             none */
  bool start_empty;       /* a new host's bucket starts empty, not full
                             (a host whose requests another process may
                             have made just before) */
  budget_t *budget;       /* charge queued items here; NULL = none */
  const char *spill_path; /* where pushes over the budget wait (copied;
                             created when needed, removed by
                             frontier_delete); NULL = never spill */
  void (*drop)(void *arg, fitem_t *it); /* frontier_delete hands each
                             item still held in memory here (adopted;
                             it must not call the frontier); NULL =
                             fitem_delete */
  void *drop_arg;
  void (*wake)(void *arg); /* called whenever an item may fall due
                             earlier than a waiter was told (a push, a
                             requeue, a gate done, a refund, a raised
                             horizon...) and when the frontier closes:
                             for a caller of frontier_try_pop that sleeps
                             elsewhere. Called with the frontier's lock
                             held, from any thread: it must only signal
                             (never call the frontier, never block).
                             NULL = none */
  void *wake_arg;
} frontier_config_t;

/* frontier_new: an empty, open frontier. CFG is copied.
 * Returns: owned by caller (frontier_delete), NULL if out of memory or if
 * the monotonic clock cannot be used for condition variables. */
frontier_t *frontier_new(const frontier_config_t *cfg);

/* frontier_push: queue IT (adopted on success; it may be freed and come
 * back from disk as a new item with the same url, seq and depth, so its
 * data must be NULL) at the tail of HOSTKEY's queue (HOSTKEY borrowed).
 * Blocks while every slot is taken.
 * Returns: 0 on success; -1 if the frontier is closed, -2 if out of
 * memory, -3 if the spill file could not be written (errno), and then IT
 * stays the caller's. */
int frontier_push(frontier_t *f, fitem_t *it, const char *hostkey);

/* frontier_push_waiting: whether a frontier_push waits for capacity
 * (items popped and not done hold it). */
bool frontier_push_waiting(frontier_t *f);

/* frontier_requeue: put IT back (adopted on success), into HOSTKEY's queue
 * in sequence order, not to be handed out before monotonic time NOT_BEFORE
 * (0: at once). Never blocks: an item popped before still holds its slot
 * (with queue_only it takes one, over capacity if need be); a new
 * (speculative) item takes a free one. Never spills.
 * Returns: 0 on success; -1 if the frontier is closed, -2 if out of
 * memory, -4 if IT holds no slot and none is free (or a push waits for
 * the next one); then IT stays the caller's. */
int frontier_requeue(frontier_t *f, fitem_t *it, const char *hostkey,
                     double not_before);

/* frontier_withdraw: take speculative item IT back out of the frontier if
 * it is still queued there. Returns: true if so (IT is the caller's now);
 * false if it was handed out already (or is not speculative). The caller
 * must know IT is alive: queued, or owned by some worker. */
bool frontier_withdraw(frontier_t *f, fitem_t *it);

/* frontier_promote: if speculative item IT is still queued, make it an
 * ordinary item in place: seq SEQ, depth DEPTH, FITEM_SPEC and it->spec
 * cleared, queued among its host's ordinary items by SEQ. Returns: true if
 * so; false if IT was handed out already (nothing changed). As
 * frontier_withdraw, the caller must know IT is alive. */
bool frontier_promote(frontier_t *f, fitem_t *it, uint64_t seq, int depth);

/* frontier_done: IT, popped before, is no longer the frontier's to count
 * (it goes on to be parsed, or is dropped): its slot is free. Items
 * requeued keep theirs. Any item is fine (a gate holds none). */
void frontier_done(frontier_t *f, fitem_t *it);

/* frontier_error: the errno of a spill that could not be read back, or
 * ENOMEM if an item read could not be made (the frontier closed itself:
 * its queue is lost), or 0. */
int frontier_error(frontier_t *f);

/* frontier_spec_return: one speculative item handed out is back with its
 * owner for good (kept, dropped, or promoted by the owner), so another may
 * be handed out. */
void frontier_spec_return(frontier_t *f);

/* frontier_pop: the next item of a host that may be fetched now, taking one
 * of its tokens. Blocks until there is one or the frontier is closed.
 * Returns: an item owned by the caller, or NULL once closed. */
fitem_t *frontier_pop(frontier_t *f);

/* frontier_try_pop: frontier_pop without the wait, for a caller that
 * sleeps elsewhere (an event loop, woken by the config's wake).
 * Returns: 1 with *OUT an item owned by the caller (its token taken);
 *   0 with *OUT NULL: nothing may be handed out now, *DUE the monotonic
 *   time the next item may fall due (INFINITY: not before a wake);
 *   -1 once closed. Never blocks but on the lock. */
int frontier_try_pop(frontier_t *f, fitem_t **out, double *due);

/* frontier_gate_done: open HOST after its gate item was handled. */
void frontier_gate_done(frontier_t *f, uint32_t host);

/* frontier_gate_retry: the gate item of HOST failed: hand out a new one, not
 * before monotonic time NOT_BEFORE. */
void frontier_gate_retry(frontier_t *f, uint32_t host, double not_before);

/* frontier_host_key: the key of HOST (NULL if no such host). Borrowed:
 * it lives as long as F (hosts are never removed). */
const char *frontier_host_key(frontier_t *f, uint32_t host);

/* frontier_host_id: the id of HOSTKEY's host (created if new, as a push
 * would) into *HOST, for the calls below. Returns 0, or -1 (out of
 * memory). */
int frontier_host_id(frontier_t *f, const char *hostkey, uint32_t *host);

/* frontier_host_pause: hand out nothing of HOST before monotonic time
 * UNTIL (later pauses extend, earlier ones are ignored). */
void frontier_host_pause(frontier_t *f, uint32_t host, double until);

/* frontier_host_interval: at most one item of HOST every SECONDS (if that is
 * slower than the rate; Crawl-delay). */
void frontier_host_interval(frontier_t *f, uint32_t host, double seconds);

/* frontier_refund: give back the token the last pop of HOST took (the item
 * was dropped without a request). */
void frontier_refund(frontier_t *f, uint32_t host);

/* frontier_empty_buckets: empty the bucket of every host PICK(ARG, key)
 * picks (its tokens start again from now, as a new host's do with
 * start_empty): hosts a shared crawl's other process may have fetched
 * meanwhile. PICK is called with the frontier's lock held, so it must be
 * pure (never call the frontier). */
void frontier_empty_buckets(frontier_t *f,
                            bool (*pick)(void *arg, const char *key),
                            void *arg);

/* frontier_host_take: take a token of HOSTKEY's host (borrowed; the host
 * is added if new) for a request to it that no pop of it hands out, as a
 * pop would: only if the host may be fetched now (a token, not paused);
 * its gate and queue are not looked at. For a robots.txt redirect to
 * another host, so that every request is charged to the host it goes to.
 * Returns: true if taken (make the request now); false if not, with
 *   *WHEN the monotonic time to ask again (a second from now if out of
 *   memory). */
bool frontier_host_take(frontier_t *f, const char *hostkey, double *when);

/* frontier_set_horizon: from now on hand out only items whose seq is
 * below HORIZON (initially the config's); a lower value than the current one
 * is ignored. Bounds how far downloads run ahead of an ordered commit.
 * Two exceptions: speculative items (bounded by spec_out instead), and
 * while a push waits for capacity, so that a full frontier of items beyond
 * the horizon cannot block the commit that would raise it. */
void frontier_set_horizon(frontier_t *f, uint64_t horizon);

/* What frontier_stats counts. */
typedef struct frontier_stats {
  size_t queued; /* ordinary items queued, delayed or on disk (gate and
                    speculative items not counted) */
  size_t hosts;  /* hosts known so far */
  double bound;  /* the most requests a polite crawl could have made by
                    NOW: BURST + RATE * (NOW - discovered) summed over
                    every host, each counted from when it was first
                    named (0 without a rate) */
  int error;     /* frontier_error */
} frontier_stats_t;

/* frontier_stats: F's counts at monotonic time NOW into *ST, under one
 * lock. */
void frontier_stats(frontier_t *f, double now, frontier_stats_t *st);

/* frontier_close: wake every waiter; from now on pops return NULL and
 * pushes fail. Items still queued stay there (frontier_delete). */
void frontier_close(frontier_t *f);

/* frontier_take_host: remove HOST's queued and delayed items held in
 * memory and return them as a list linked by ->next, owned by the caller,
 * each still holding its slot (frontier_done); its gate stays as it is.
 * For a host whose items are not to be fetched here now (the engine's
 * source refused its gate: engine_source_t.admit). Out of memory, its
 * delayed items stay (they come back when due). */
fitem_t *frontier_take_host(frontier_t *f, uint32_t host);

/* frontier_delete: free F and its hosts; each item still held in memory
 * goes to the config's drop (its budget charge given back), items on
 * disk are discarded (they carry no data). NULL is fine. Call only once
 * no thread uses F. */
void frontier_delete(frontier_t *f);

#endif /* CRAWLER_FRONTIER_H */
