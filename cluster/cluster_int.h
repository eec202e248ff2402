/* cluster_int.h: what the worker's files share (private to
 * cluster/): its constants, its state, and the calls between
 * its threads.
 *
 * Locks: `lock` guards the lease table (parts, commit_*), inflight,
 * stopping, complete, unheld, failure and err, the taken and acked sets,
 * take_gen and wakes, the request counts, the pool of connections, and the
 * publisher's queue (phead, ptail, npub, pstop). No Redis call is made with it
 * held, and no engine call but engine_unhold's frontier close (which
 * takes only the frontier's lock). Nothing takes it while holding an
 * engine or frontier lock (the engine calls back with none held).
 *
 * Condition variables, all on `lock` and CLOCK_MONOTONIC; `stopping`
 * wakes every one of them (cl_stop_locked: cl_fail, cl_mark_complete,
 * cluster_finish):
 *   cond   the feeder waits for room (a quarter of its bound free) and
 *          for a partition to take from. Signalled by cl_ticket_done
 *          (room) and cl_feeder_wake (the keeper: a partition taken,
 *          back, or with items to read again).
 *   kcond  the keeper sleeps until its next tick; nothing else wakes
 *          it (every item done woke it when it shared `cond`).
 *   ccond  the committer without a turn waits for one (commit_held and
 *          commit_turn). Signalled by the keeper as it takes the commit.
 *   pcond  the publisher waits for a result queued, a batch full, or
 *          pstop. Signalled by cl_publish and cluster_finish.
 *
 * Threads: the keeper, the feeder, the committer and the publisher
 * (cluster_start); each blocking Redis read of the feeder and the
 * committer is woken by cl_unblock (CLIENT UNBLOCK) when the worker
 * stops, and the feeder's by cl_feeder_wake too.
 *
 * Connections: the keeper, the feeder, the committer and the publisher
 * each have their own (hiredis contexts are one thread's); download
 * threads borrow one from the pool for a call (robots.txt).
 *
 * Items: an item taken from a partition carries a ticket (it->ticket)
 * with its entry id, partition and seq. Its local seq is the worker's
 * number in the top bits and the shared seq below, so the frontier
 * orders a worker's items by the shared seq, and the files named by it
 * (links spilled while parsing) are the worker's own in a shared page
 * directory; a temporary page file is named per write (cluster_tmp_key).
 * An item delivered to the commit carries a ticket marked
 * delivered, with its seq; its result entry is the committer's to
 * delete (rents). */
#ifndef CRAWLER_CLUSTER_CLUSTER_INT_H
#define CRAWLER_CLUSTER_CLUSTER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cluster.h"
#include "cstate.h"
#include "fptable.h"
#include "hashtable.h"

/* Local seqs: the worker's number above this many bits. */
enum { SEQ_BITS = 40 };

/* How often the feeder reads again what this worker read and did not
 * finish (cl_feeder_main). */
enum { RECOVER_SECONDS = 5 };

/* How long a partition given back waits for its items being fetched
 * before it is released all the same (struct part); for a robots.txt
 * request among them, longer: its next holder would ask it again. */
#define GIVE_SECONDS 2.0
#define GATE_GIVE_SECONDS 30.0

/* The keeper's tick at most (cl_keeper_main), and while the plan of
 * the partitions has just changed. */
#define TICK_SECONDS 0.25
#define MOVING_TICK_SECONDS 0.05

/* Results sent in one round trip (one entry of the results stream), at
 * most, and how long one alone waits for others (cl_publisher_main);
 * the committer reads RESULT_ENTRIES entries at a time. */
enum { RESULT_BATCH = 64, LINGER_MS = 3, RESULT_ENTRIES = 16 };

/* Commits sent in one round trip, at most (commit_flush). */
enum { COMMIT_BATCH = 64 };

/* A commit queued and not answered yet: the position after it. */
struct done {
  uint64_t next_seq, next_commit;
  long pages;
};

/* An item's ticket: the item's thread owns it; own_busy, busy and
 * busy_part change under `lock` (cl_admit, cl_ticket_done), with the
 * parts' busy counts they stand for. */
struct ticket {
  bool delivered; /* a result for the commit, not an item to fetch */
  bool own_busy;  /* admitted: counted in PART's busy until its result is
                     published (published under PART's token) */
  bool busy;      /* and fetched from a host of another partition (a
                     redirect's), counted in that one's busy too */
  int busy_part;  /* that partition */
  char id[CSTATE_ID_SIZE];
  int part;
  uint64_t seq; /* the shared seq */
  char *chain;  /* the redirects that led here (cstate_item_t), or NULL */
};

struct part {
  bool held;
  bool fresh;    /* just taken: the feeder's first take recovers */
  unsigned kept; /* bumped each time it is marked fresh again */
  bool refused;  /* an item of it was dropped here unfinished (refused by
                    cl_admit, say, while given away): it is behind the
                    feeder's position, and the keeper marks the
                    partition fresh (cl_parts_refresh) */
  char pos[CSTATE_ID_SIZE]; /* the last entry the feeder read there (set
                               by cl_feeder_took; "" when newly held) */
  uint64_t token;
  double until; /* monotonic: act for it only before this */
  /* The plan gives it to another worker: nothing more is taken or
   * fetched, and it is released once its BUSY items are done (their
   * results published), or GIVE_SECONDS after GIVING_SINCE if none of
   * them is a robots.txt (GATES): the next holder would ask it again. */
  bool giving;
  double giving_since;
  int busy;  /* items admitted (being fetched) and not done */
  int gates; /* of them, robots.txt requests (cl_admit, cl_gate_done) */
};

struct cluster {
  char url[256], name[80], worker[32];
  uint64_t worker_no;
  double lease;
  size_t inflight_max;
  cluster_front_t front;
  engine_t *e;
  uint32_t seed_b; /* the seed's fingerprint in the seen set (cstate_fp) */
  int64_t seed_m;
  cstate_t *kconn; /* keeper (the join's connection) */

  pthread_mutex_t lock;
  pthread_cond_t cond;  /* the feeder: room, a partition to take from */
  pthread_cond_t kcond; /* the keeper's sleep: woken to stop only */
  pthread_cond_t ccond; /* the committer's wait for a turn: the commit
                           lease taken, or stop */
  struct part parts[CSTATE_PARTS];
  long pauses; /* the keeper's: cstate_keep's count of pauses when last
                  read */
  bool commit_held;
  uint64_t commit_token;
  double commit_until;
  unsigned commit_turn; /* bumped at each new hold of the commit */
  size_t inflight;
  bool stopping, complete, unheld;
  int failure;
  char err[400];
  unsigned wakes;      /* bumped by cl_feeder_wake: the feeder does not
                          block in a read when one came since its take's
                          snapshot (CLIENT UNBLOCK misses a read not yet
                          under way) */
  fptable_t *taken;    /* entry ids of items in flight here */
  fptable_t *acked;    /* entry ids whose results Redis took, -> the
                          take generation then (inject) */
  uint64_t take_gen;   /* bumped as the feeder sends each take */
  hashtable_t *counts; /* host key -> long *: requests since the
                          last flush */
  cstate_t **pool;
  size_t npool, cappool;

  /* The committer thread's own. */
  cstate_t *cconn;
  unsigned turn;  /* the turn being served; 0: none */
  uint64_t token; /* the commit lease's token in this turn */
  uint64_t next_seq;
  uint64_t next_commit; /* the first seq not committed (recorded) */
  long pages;           /* pages saved, as recorded */
  long pages_queued;    /* as of the last commit queued */
  uint64_t queued_next; /* next_commit as of the last commit queued */
  struct done *done;    /* commits queued (commit_flush) */
  size_t ndone, capdone;
  cstate_add_t *adds;
  size_t nadds, capadds;
  struct rentry *rents; /* result entries read this turn, not deleted */
  size_t nrents, caprents;
  uint64_t unpacks; /* results unpacked: their spill files' keys */

  _Atomic uint64_t tmp_keys; /* temporary page files written
                                (cluster_tmp_key), from a random start */

  cstate_t *fconn; /* the feeder's, for cl_unblock() */
  /* The publisher's queue (guarded by lock; pcond on lock). */
  struct pub *phead, *ptail;
  int npub; /* how many */
  pthread_cond_t pcond;
  bool pstop; /* drain the queue, then end */
  pthread_t keeper, feeder, committer, publisher;
  bool started;
};

/* A result entry (a batch of results) the committer read: deleted by
 * the commit that commits the last of its seqs (QUEUED: that commit is
 * queued). */
struct rentry {
  char id[CSTATE_ID_SIZE];
  uint64_t last; /* its highest seq */
  bool queued;
};

/* A result waiting for the publisher (cl_publisher_main): the item's
 * ticket (now the publisher's) and the packed result. */
struct pub {
  struct pub *next;
  struct ticket *t;
  char *data;
  size_t len;
};

/* cl_takes_from: whether the feeder takes items of P now (NOW:
 * clock_now): held, not being given away, its time here not up.
 * Caller holds c->lock. */
static inline bool cl_takes_from(const struct part *p, double now)
{
  return p->held && !p->giving && now < p->until;
}

/* ---- cluster_feeder.c ---- */

/* cl_feeder_took: a take of HOLDS (NH of them; KEPT[i]: their `kept`
 * when the take was sent; RECOVERED: with RECOVER) is answered: the
 * positions move on, fenced ones are no longer held. */
void cl_feeder_took(cluster_t *c, const cstate_hold_t *holds,
                    const unsigned *kept, size_t nh, bool recovered);

/* ---- cluster_keeper.c ---- */

/* cl_give_waits: whether P, given away since P->giving_since, is still
 * kept at NOW for what is being fetched: its busy items for at most
 * GIVE_SECONDS, a robots.txt request among them (gates) for at most
 * GATE_GIVE_SECONDS. Caller holds c->lock. */
bool cl_give_waits(const struct part *p, double now);

/* cl_part_kept: PART's lease was renewed under the token held, to
 * UNTIL: act for it again. Returns whether it is back (given back here
 * by the plan, or its time here was up): the feeder takes from it again.
 * Caller holds c->lock. */
bool cl_part_kept(cluster_t *c, int part, double until);

/* cl_parts_refresh: the partitions held where an item was dropped
 * unfinished are marked fresh, for the feeder's next take to read them
 * again (with RECOVER: up to its position). Once a tick, not at each
 * drop: an item refused again at once (its partition being given away)
 * would make the feeder take in a loop. Returns whether the feeder can
 * take from one of them now (not being given away, its time here not
 * up). Caller holds c->lock. */
bool cl_parts_refresh(cluster_t *c);

/* cl_feeder_wake: the feeder has partitions to take from again: wake it
 * from its condition variable and from a blocking read (cl_unblock). No
 * lock held. */
void cl_feeder_wake(cluster_t *c);

/* ---- cluster.c ---- */

/* cl_lease_end: the monotonic time until which a lease of LEASE
 * seconds, taken or renewed by a call sent at T0, is acted for here. */
double cl_lease_end(double t0, double lease);

/* cl_deadline: a CLOCK_MONOTONIC time SECONDS from now (clock_now's
 * clock), for pthread_cond_timedwait on `cond`, `kcond` or `ccond`. */
struct timespec cl_deadline(double seconds);

/* cl_stop_locked: set `stopping` and wake every thread that waits for
 * it. Caller holds c->lock. */
void cl_stop_locked(cluster_t *c);

/* cl_fail: the crawl cannot go on in this worker: say why (the first
 * failure wins) and stop the engine. Any thread, no lock held. */
void cl_fail(cluster_t *c, int status, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* cl_unblock: wake the feeder (and the COMMITTER) from a blocking read.
 * Any thread, no lock held. */
void cl_unblock(cluster_t *c, bool committer);

/* cl_open_conn: a new connection acting for this worker, tried again
 * while Redis restarts; NULL (failed) after RCONN_RETRY_SECONDS.
 * cl_pool_get/cl_pool_put: one borrowed from the pool, and back. */
cstate_t *cl_open_conn(cluster_t *c);
cstate_t *cl_pool_get(cluster_t *c);
void cl_pool_put(cluster_t *c, cstate_t *cs);

/* cl_id_fp: the fingerprint of entry ID of partition PART. */
void cl_id_fp(const char *id, int part, uint64_t fp[2]);

/* cl_mark_complete: the crawl is complete: stop, and let the engine end
 * once nothing is left here. Any thread, no lock held. */
void cl_mark_complete(cluster_t *c);

/* ---- the threads and the engine's source (cluster_source) ---- */

void *cl_keeper_main(void *arg);    /* cluster_keeper.c */
void *cl_feeder_main(void *arg);    /* cluster_feeder.c */
void *cl_committer_main(void *arg); /* cluster_committer.c */
void *cl_publisher_main(void *arg); /* cluster_publisher.c */

/* cluster_feeder.c */
bool cl_admit(void *rctx, fitem_t *it);
void cl_gate_done(void *rctx, const char *hostkey);
void cl_release(void *rctx, fitem_t *it);
/* cl_ticket_done: the item of ticket T is no longer in flight here;
 * ACKED: its result is in Redis. */
void cl_ticket_done(cluster_t *c, struct ticket *t, bool acked);

/* cluster_publisher.c */
int cl_publish(void *rctx, engine_t *e, fitem_t *it);

/* cluster_committer.c */
int cl_add(void *rctx, engine_t *e, fitem_t *it, const uint64_t fp[2],
           const char *hostkey);
int cl_seen(void *rctx, const char *url, const uint64_t fp[2]);
int cl_commit_begin(void *rctx, fitem_t *it);
int cl_committed(void *rctx, engine_t *e, fitem_t *it);
/* cl_adds_clear: forget the adds kept for the commit under way.
 * Committer thread. */
void cl_adds_clear(cluster_t *c);

#endif /* CRAWLER_CLUSTER_CLUSTER_INT_H */
