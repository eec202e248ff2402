/* cluster.c: see cluster.h.
 *
 * Locks: `lock` guards the lease table (parts, commit_*), inflight,
 * stopping, complete, failure and err, the taken set and the request
 * counts, and the pool of connections. No Redis call is made with it
 * held, and no engine call but engine_unhold's frontier close (which
 * takes only the frontier's lock). Condition variable `cond` (on lock):
 * the feeder waits on it for room (inflight below the bound) and for a
 * partition to hold; the committer for a turn at the commit; the keeper
 * for its next tick. Signalled by release (room), the keeper (leases
 * changed), and cluster_finish and fail (stopping).
 *
 * Connections: the keeper, the feeder and the committer each have their
 * own (hiredis contexts are one thread's); parse and download threads
 * borrow one from the pool for a call.
 *
 * Items: an item taken from a partition carries a ticket (it->remote)
 * with its entry id, partition and seq. Its local seq is the worker's
 * number in the top bits and the shared seq below, so the frontier
 * orders a worker's items by the shared seq and the front end's
 * temporary files (named by seq) are the worker's own in a shared page
 * directory. An item delivered to the commit carries the id of its
 * result entry instead. */
#include "cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fptable.h"
#include "frontier.h"
#include "hashtable.h"

/* Local seqs: the worker's number above this many bits. */
enum { SEQ_BITS = 40 };

/* How often the feeder takes back what is pending under this worker's
 * name (feeder_main). */
enum { RECOVER_SECONDS = 5 };

/* The keeper's tick at most (keeper_main). */
#define TICK_SECONDS 0.25

/* Results sent in one round trip, at most, and how long one alone
 * waits for others (publisher_main). */
enum { RESULT_BATCH = 64, LINGER_MS = 3 };

/* Commits sent in one round trip, at most (commit_flush). */
enum { COMMIT_BATCH = 64 };

/* A commit queued and not answered yet: the position after it. */
struct done {
  uint64_t next_seq, next_commit;
  long pages;
};

struct ticket {
  bool delivered; /* a result for the commit, not an item to fetch */
  char id[CSTATE_ID_SIZE];
  int part;
  uint64_t seq; /* the shared seq */
};

struct part {
  bool held;
  bool fresh; /* just taken: the feeder's first take recovers */
  uint64_t token;
  double until; /* monotonic: act for it only before this */
};

struct cluster {
  char url[256], name[80], worker[32];
  uint64_t worker_no;
  double lease;
  size_t inflight_max;
  cluster_front_t front;
  engine_remote_t remote;
  engine_t *e;
  cstate_t *kconn; /* keeper (the join's connection) */

  pthread_mutex_t lock;
  pthread_cond_t cond;
  struct part parts[CSTATE_PARTS];
  bool commit_held;
  uint64_t commit_token;
  double commit_until;
  unsigned commit_turn; /* bumped at each new hold of the commit */
  size_t inflight;
  bool stopping, complete, unheld;
  int failure;
  char err[400];
  fptable_t *taken;    /* entry ids of items in flight here */
  fptable_t *acked;    /* entry ids whose results Redis took, -> the
                          take generation then (inject) */
  uint64_t take_gen;   /* bumped as the feeder sends each take */
  hashtable_t *counts; /* host key -> long *: requests since the
                          last flush */
  bool counted;
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

  cstate_t *fconn; /* the feeder's, for unblock() */
  /* The publisher's queue (guarded by lock; pcond on lock). */
  struct pub *phead, *ptail;
  pthread_cond_t pcond;
  bool pstop; /* drain the queue, then end */
  pthread_t keeper, feeder, committer, publisher;
  bool started;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec deadline(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  return ts;
}

/* unblock: wake the feeder (and the COMMITTER) from a blocking read, as
 * the worker stops or holds other partitions now (CLIENT UNBLOCK, from a
 * connection of its own). No lock held. */
static cstate_t *pool_get(cluster_t *c);
static void pool_put(cluster_t *c, cstate_t *cs);

static void unblock(cluster_t *c, bool committer)
{
  pthread_mutex_lock(&c->lock);
  long long ids[2] = { c->fconn ? rconn_client_id(cstate_rconn(c->fconn)) : 0,
                       c->cconn && committer
                         ? rconn_client_id(cstate_rconn(c->cconn))
                         : 0 };
  pthread_mutex_unlock(&c->lock);
  cstate_t *cs = NULL;
  for (int i = 0; i < 2; i++) {
    if (ids[i] == 0)
      continue;
    if (cs == NULL) {
      char err[320];
      if (cstate_open(c->url, c->name, &cs, err, sizeof(err)) != CSTATE_OK)
        return;
      rconn_set_retry(cstate_rconn(cs), 0);
    }
    char id[32];
    snprintf(id, sizeof(id), "%lld", ids[i]);
    redisReply *rep = rconn_cmdf(cstate_rconn(cs), "CLIENT", "UNBLOCK", id,
                                 NULL);
    if (rep)
      freeReplyObject(rep);
  }
  cstate_close(cs);
}

/* fail: the crawl cannot go on in this worker: say why (first failure
 * wins) and stop the engine. No lock held. */
static void fail(cluster_t *c, int status, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

static void fail(cluster_t *c, int status, const char *fmt, ...)
{
  pthread_mutex_lock(&c->lock);
  bool first = c->failure == 0;
  if (first) {
    c->failure = status < 0 ? status : CSTATE_EREDIS;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof(c->err), fmt, ap);
    va_end(ap);
  }
  c->stopping = true;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  if (first && c->e != NULL)
    engine_fail(c->e, CLUSTER_EFAILED);
  if (first && status != CSTATE_EREDIS)
    unblock(c, true);
}

/* ---- the pool of connections ---- */

/* open_conn: a new connection to the crawl, acting for this worker;
 * while Redis cannot be reached (it restarts), tried again as rconn
 * does a command, for RCONN_RETRY_SECONDS. NULL (failed) after that,
 * or if the crawl is gone. */
static cstate_t *open_conn(cluster_t *c)
{
  double wait = 0.1, start = now();
  char err[320];
  for (;;) {
    cstate_t *cs = NULL;
    int rc = cstate_open(c->url, c->name, &cs, err, sizeof(err));
    if (rc == CSTATE_OK) {
      cstate_set_worker(cs, c->worker);
      return cs;
    }
    if (rc != CSTATE_EREDIS || now() - start >= RCONN_RETRY_SECONDS) {
      fail(c, rc == CSTATE_ENOENT ? CSTATE_LOST : rc, "%s", err);
      return NULL;
    }
    struct timespec ts = { (time_t)wait,
                           (long)((wait - (double)(time_t)wait) * 1e9) };
    nanosleep(&ts, NULL);
    wait = wait * 2 > 5 ? 5 : wait * 2;
  }
}

static cstate_t *pool_get(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  cstate_t *cs = c->npool > 0 ? c->pool[--c->npool] : NULL;
  pthread_mutex_unlock(&c->lock);
  return cs != NULL ? cs : open_conn(c);
}

static void pool_put(cluster_t *c, cstate_t *cs)
{
  pthread_mutex_lock(&c->lock);
  if (c->npool == c->cappool) {
    size_t cap = c->cappool ? 2 * c->cappool : 8;
    cstate_t **p = realloc(c->pool, cap * sizeof(*p));
    if (p == NULL) {
      pthread_mutex_unlock(&c->lock);
      cstate_close(cs);
      return;
    }
    c->pool = p;
    c->cappool = cap;
  }
  c->pool[c->npool++] = cs;
  pthread_mutex_unlock(&c->lock);
}

/* ---- the engine's shared frontier (engine_remote_t) ---- */

static void id_fp(const char *id, int part, uint64_t fp[2])
{
  char key[CSTATE_ID_SIZE + 16];
  int n = snprintf(key, sizeof(key), "%d/%s", part, id);
  fptable_hash128(key, (size_t)n, fp);
}

/* A result waiting for the publisher (publisher_main): the item's
 * ticket (now the publisher's) and the packed result. */
struct pub {
  struct pub *next;
  struct ticket *t;
  char *data;
  size_t len;
};

static int r_publish(void *rctx, engine_t *e, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->remote;
  (void)e;
  if (t == NULL || t->delivered)
    return 0;
  pthread_mutex_lock(&c->lock);
  bool held = c->parts[t->part].held;
  pthread_mutex_unlock(&c->lock);
  if (!held)
    return 0; /* not ours now: whoever holds it takes the item over */
  struct pub *p = calloc(1, sizeof(*p));
  if (p == NULL || c->front.pack(c->front.ctx, it, &p->data, &p->len) != 0) {
    free(p);
    fail(c, CSTATE_ENOMEM, "out of memory packing the result of '%s'", it->url);
    return CLUSTER_EFAILED;
  }
  /* The publisher sends it, with the others waiting, in one round trip;
   * the ticket (and so the item's place in flight) is its own now. Its
   * temporary files are the commit's from here (if it turns out fenced,
   * they wait for the crawl's end to be removed). */
  p->t = t;
  it->remote = NULL;
  if (c->front.handed != NULL)
    c->front.handed(c->front.ctx, it);
  pthread_mutex_lock(&c->lock);
  if (c->ptail)
    c->ptail->next = p;
  else
    c->phead = p;
  c->ptail = p;
  pthread_cond_broadcast(&c->pcond);
  pthread_mutex_unlock(&c->lock);
  return 0;
}

/* ticket_done: the item of ticket T is no longer in flight here;
 * ACKED: its result is in Redis (the item left its partition). */
static void ticket_done(cluster_t *c, struct ticket *t, bool acked)
{
  uint64_t fp[2];
  id_fp(t->id, t->part, fp);
  pthread_mutex_lock(&c->lock);
  fptable_remove(c->taken, fp, NULL);
  if (acked) {
    /* A take sent before this answer came may still have read the item
     * as pending (RECOVER): its reply must not bring it back (inject). */
    uint64_t gen = c->take_gen;
    fptable_remove(c->acked, fp, NULL);
    fptable_insert(c->acked, fp, &gen); /* out of memory: a take twice */
  }
  c->inflight--;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  free(t);
}

/* publish_batch: send the results of LIST (as many as RESULT_BATCH) in
 * one round trip, each under its partition's token now; a result fenced
 * while this worker holds the partition again, under a newer token (the
 * lease lapsed meanwhile, say while Redis restarted: the item is still
 * its own, pending under its name), goes back on *RETRY. Returns 0, or
 * -1 (failed). */
static int publish_batch(cluster_t *c, cstate_t *cs, struct pub *list,
                         struct pub **retry)
{
  struct pub *sent[RESULT_BATCH];
  uint64_t token[RESULT_BATCH];
  int n = 0, rc = 0;
  for (struct pub *p = list, *next; p != NULL; p = next) {
    next = p->next;
    pthread_mutex_lock(&c->lock);
    const struct part *pt = &c->parts[p->t->part];
    uint64_t tok = pt->held ? pt->token : 0;
    pthread_mutex_unlock(&c->lock);
    cstate_item_t item = { .part = p->t->part, .seq = p->t->seq };
    memcpy(item.id, p->t->id, sizeof(item.id));
    if (tok != 0 && rc == 0 &&
        cstate_result_queue(cs, &item, tok, p->data, p->len) == CSTATE_OK) {
      sent[n] = p;
      token[n++] = tok;
      continue;
    }
    if (tok != 0 && rc == 0) {
      fail(c, CSTATE_ENOMEM, "%s", cstate_error(cs));
      rc = -1;
    }
    ticket_done(c, p->t, false); /* not ours: whoever holds it does it */
    free(p->data);
    free(p);
  }
  int status[RESULT_BATCH];
  int got = n > 0 ? cstate_flush(cs, status) : 0;
  if (got < 0 || got != n) {
    fail(c, got < 0 ? got : CSTATE_EREDIS, "publishing results: %s",
         cstate_error(cs));
    rc = -1;
  }
  for (int i = 0; i < n; i++) {
    struct pub *p = sent[i];
    int st = got == n ? status[i] : CSTATE_EREDIS;
    if (st == CSTATE_FENCED && rc == 0) {
      pthread_mutex_lock(&c->lock);
      const struct part *pt = &c->parts[p->t->part];
      bool again = pt->held && pt->token != token[i];
      pthread_mutex_unlock(&c->lock);
      if (again) {
        p->next = *retry;
        *retry = p;
        continue;
      }
    } else if (st != CSTATE_OK && st != CSTATE_FENCED && rc == 0) {
      fail(c, st, "publishing results: %s", cstate_error(cs));
      rc = -1;
    }
    ticket_done(c, p->t, st == CSTATE_OK);
    free(p->data);
    free(p);
  }
  return rc;
}

/* The publisher: sends the results the parse threads packed, whatever
 * waits at once in one round trip; when the worker stops, what is left
 * first (unless it failed). */
static void *publisher_main(void *arg)
{
  cluster_t *c = arg;
  cstate_t *cs = open_conn(c);
  for (;;) {
    pthread_mutex_lock(&c->lock);
    while (c->phead == NULL && !c->pstop)
      pthread_cond_wait(&c->pcond, &c->lock);
    /* A result alone waits a little (LINGER_MS) for others to go with
     * it: on a crawl whose pages come one at a time, a round trip a page
     * otherwise. */
    if (c->phead != NULL && c->phead->next == NULL && !c->pstop) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += LINGER_MS * 1000000L;
      if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&c->pcond, &c->lock, &ts);
    }
    /* Up to a batch, in the order they came. */
    struct pub *list = c->phead, *last = list;
    for (int n = 1; last != NULL && last->next != NULL && n < RESULT_BATCH; n++)
      last = last->next;
    if (last != NULL) {
      c->phead = last->next;
      if (c->phead == NULL)
        c->ptail = NULL;
      last->next = NULL;
    }
    bool stop = c->pstop && list == NULL;
    bool failed = c->failure != 0;
    pthread_mutex_unlock(&c->lock);
    if (stop)
      break;
    struct pub *retry = NULL;
    if (cs == NULL || failed || publish_batch(c, cs, list, &retry) != 0) {
      for (struct pub *p = cs == NULL || failed ? list : retry, *next; p;
           p = next) {
        next = p->next;
        ticket_done(c, p->t, false);
        free(p->data);
        free(p);
      }
      retry = NULL;
    }
    if (retry != NULL) {
      pthread_mutex_lock(&c->lock);
      struct pub *r = retry;
      while (r->next != NULL)
        r = r->next;
      r->next = c->phead;
      c->phead = retry;
      if (c->ptail == NULL)
        c->ptail = r;
      pthread_mutex_unlock(&c->lock);
    }
  }
  cstate_close(cs);
  return NULL;
}

static bool r_admit(void *rctx, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->remote;
  if (t == NULL || t->delivered)
    return true;
  double t0 = now();
  pthread_mutex_lock(&c->lock);
  const struct part *p = &c->parts[t->part];
  bool ok = p->held && t0 < p->until && !c->stopping;
  pthread_mutex_unlock(&c->lock);
  return ok;
}

/* add_add: keep an add of the commit under way, for r_committed. */
static int add_add(cluster_t *c, const char *url, const uint64_t fp[2],
                   int depth, uint64_t seq, const char *hostkey, bool seen)
{
  if (c->nadds == c->capadds) {
    size_t cap = c->capadds ? 2 * c->capadds : 64;
    cstate_add_t *v = realloc(c->adds, cap * sizeof(*v));
    if (v == NULL)
      return -1;
    c->adds = v;
    c->capadds = cap;
  }
  uint64_t *f = malloc(2 * sizeof(*f));
  char *u = strdup(url), *h = hostkey ? strdup(hostkey) : NULL;
  if (f == NULL || u == NULL || (hostkey && h == NULL)) {
    free(f);
    free(u);
    free(h);
    return -1;
  }
  f[0] = fp[0];
  f[1] = fp[1];
  c->adds[c->nadds++] = (cstate_add_t){ u, h, depth, seq, f, seen };
  return 0;
}

static void adds_clear(cluster_t *c)
{
  for (size_t i = 0; i < c->nadds; i++) {
    free((char *)c->adds[i].url);
    free((char *)c->adds[i].hostkey);
    free((uint64_t *)c->adds[i].fp);
  }
  c->nadds = 0;
}

static int r_add(void *rctx, const char *url, const uint64_t fp[2], int depth,
                 uint64_t seq, const char *hostkey)
{
  cluster_t *c = rctx;
  if (add_add(c, url, fp, depth, seq, hostkey, false) != 0) {
    fail(c, CSTATE_ENOMEM, "out of memory adding '%s'", url);
    return CLUSTER_EFAILED;
  }
  if (seq + 1 > c->next_seq)
    c->next_seq = seq + 1;
  return 0;
}

static int r_seen(void *rctx, const char *url, const uint64_t fp[2])
{
  cluster_t *c = rctx;
  if (add_add(c, url, fp, 0, 0, NULL, true) != 0) {
    fail(c, CSTATE_ENOMEM, "out of memory adding '%s'", url);
    return CLUSTER_EFAILED;
  }
  return 0;
}

/* end_turn: this worker's turn at the commit is over (its lease lapsed
 * or was lost, or Redis's position is not the one it committed from):
 * the keeper takes the commit again if it is free, and a new turn
 * starts from Redis's position (begin_turn), the items waiting in the
 * engine delivered again. */
static void end_turn(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  if (c->commit_turn == c->turn)
    c->commit_held = false;
  pthread_mutex_unlock(&c->lock);
  adds_clear(c);
}

static int r_commit_begin(void *rctx, fitem_t *it)
{
  cluster_t *c = rctx;
  (void)it;
  double t0 = now();
  pthread_mutex_lock(&c->lock);
  bool ok = c->commit_held && c->commit_turn == c->turn &&
            t0 < c->commit_until && !c->stopping;
  bool stopping = c->stopping;
  pthread_mutex_unlock(&c->lock);
  if (!ok && !stopping)
    end_turn(c);
  return ok ? 0 : 1;
}

/* mark_complete: the crawl is complete: let the engine end once nothing
 * is left here. */
static void mark_complete(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  bool unhold = !c->unheld;
  c->complete = true;
  c->unheld = true;
  c->stopping = true;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  if (unhold) {
    engine_unhold(c->e);
    unblock(c, true);
  }
}

/* commit_flush: send the commits queued (r_committed) in one round trip
 * and act on their answers, in order: the position moves on, the crawl
 * may be complete; a commit fenced or out of order ends the turn (the
 * ones after it fail alike). Committer thread. Returns 0, or
 * CLUSTER_EFAILED (failed). */
static int commit_flush(cluster_t *c)
{
  size_t n = c->ndone;
  if (n == 0)
    return 0;
  c->ndone = 0;
  int *status = malloc(n * sizeof(*status));
  int got = status ? cstate_flush(c->cconn, status) : CSTATE_ENOMEM;
  if (got < 0 || (size_t)got != n) {
    free(status);
    fail(c, got < 0 ? got : CSTATE_EREDIS, "committing: %s",
         cstate_error(c->cconn));
    return CLUSTER_EFAILED;
  }
  bool complete = false;
  int rc = 0;
  /* A batch sent again (its connection broke after it ran) finds its
   * commits done: out of order, yet Redis's position is past them. */
  cstate_commit_t now_at = { 0 };
  bool known = false;
  for (size_t i = 0; i < n; i++) {
    if (status[i] == CSTATE_EORDER && !known) {
      known = true;
      if (cstate_commit_state(c->cconn, &now_at) != CSTATE_OK)
        now_at.next_commit = 0;
    }
    if (status[i] == CSTATE_EORDER &&
        now_at.next_commit >= c->done[i].next_commit)
      status[i] = CSTATE_OK;
    if (status[i] == CSTATE_OK) {
      c->pages = c->done[i].pages;
      c->next_commit = c->done[i].next_commit;
      complete = c->done[i].next_commit == c->done[i].next_seq;
      continue;
    }
    if (status[i] == CSTATE_FENCED || status[i] == CSTATE_EORDER) {
      /* The lease lapsed (and maybe went to another), or Redis lost its
       * last commits (a restart that kept a prefix of its history): the
       * commit goes on from the position Redis has. */
      end_turn(c);
      fprintf(stderr,
              "crawler: %s: %s; the commit goes on from Redis's "
              "position\n",
              c->worker,
              status[i] == CSTATE_FENCED ? "the commit lease lapsed"
                                         : "Redis's commit is behind this "
                                           "one");
    } else {
      fail(c, status[i], "committing: %s", cstate_error(c->cconn));
      rc = CLUSTER_EFAILED;
    }
    break;
  }
  c->pages_queued = c->pages;
  free(status);
  if (complete)
    mark_complete(c);
  return rc;
}

static int r_committed(void *rctx, engine_t *e, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->remote;
  (void)e;
  cstate_commit_t st = { .next_seq = c->next_seq,
                         .next_commit = it->seq + 1,
                         .depth = it->depth };
  c->front.position(c->front.ctx, &st);
  bool saved = st.pages > c->pages_queued;
  if (c->ndone == c->capdone) {
    size_t cap = c->capdone ? 2 * c->capdone : COMMIT_BATCH;
    struct done *v = realloc(c->done, cap * sizeof(*v));
    if (v == NULL) {
      adds_clear(c);
      fail(c, CSTATE_ENOMEM, "out of memory committing '%s'", it->url);
      return CLUSTER_EFAILED;
    }
    c->done = v;
    c->capdone = cap;
  }
  int rc = cstate_commit_queue(c->cconn, c->token, it->seq, c->adds, c->nadds,
                               &st, t != NULL && t->delivered ? t->id : NULL,
                               saved);
  adds_clear(c);
  if (rc != CSTATE_OK) {
    fail(c, rc, "committing '%s': %s", it->url, cstate_error(c->cconn));
    return CLUSTER_EFAILED;
  }
  c->done[c->ndone++] = (struct done){ st.next_seq, st.next_commit, st.pages };
  c->pages_queued = st.pages;
  c->queued_next = st.next_commit;
  /* Sent in batches; at once when it may be the last one. */
  if (c->ndone >= COMMIT_BATCH || st.next_commit == st.next_seq)
    return commit_flush(c);
  return 0;
}

static void r_release(void *rctx, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->remote;
  it->remote = NULL;
  if (t == NULL)
    return;
  if (t->delivered)
    free(t);
  else
    ticket_done(c, t, false);
}

/* ---- the keeper ---- */

/* in_part: whether host KEY is in partition *ARG (frontier_drain). */
static bool in_part(void *arg, const char *key)
{
  return cstate_part(key) == *(const int *)arg;
}

/* keep_leases: renew what is held, give back partitions beyond this
 * worker's share, take free ones up to it, and the commit if free. */
static int keep_leases(cluster_t *c, double t0)
{
  long ms = (long)(c->lease * 1000);
  /* Counted from before the call: the lease may start later in Redis,
   * never earlier. A margin for clocks that run at slightly different
   * rates. */
  double until = t0 + c->lease * 0.95;
  int alive = cstate_alive(c->kconn);
  if (alive < 0)
    return alive;
  size_t share = (CSTATE_PARTS + (size_t)(alive > 0 ? alive : 1) - 1) /
                 (size_t)(alive > 0 ? alive : 1);
  /* One round trip: every partition held renewed, free ones taken up to
   * the share (from a place of this worker's own, so that workers
   * joining at once spread out), and the commit. Partitions beyond the
   * share are given back first: stop acting for them, then release. */
  cstate_lease_t v[CSTATE_PARTS + 1];
  char what[CSTATE_PARTS + 1][16];
  int part[CSTATE_PARTS + 1];
  uint64_t had[CSTATE_PARTS];
  size_t n = 0, held = 0;
  for (int i = 0; i < CSTATE_PARTS; i++) {
    pthread_mutex_lock(&c->lock);
    struct part p = c->parts[i];
    if (p.held && held >= share)
      c->parts[i].held = false;
    pthread_mutex_unlock(&c->lock);
    had[i] = p.held ? p.token : 0;
    if (!p.held)
      continue;
    snprintf(what[n], sizeof(what[n]), "part:%d", i);
    if (held >= share) {
      int rc = cstate_release(c->kconn, what[n], p.token);
      if (rc < 0)
        return rc;
      had[i] = 0;
      continue;
    }
    v[n] = (cstate_lease_t){ what[n], 'r', p.token };
    part[n++] = i;
    held++;
  }
  for (int k = 0; k < CSTATE_PARTS && held < share; k++) {
    int i = (int)((c->worker_no * 17 + (uint64_t)k) % CSTATE_PARTS);
    if (had[i] != 0)
      continue;
    snprintf(what[n], sizeof(what[n]), "part:%d", i);
    v[n] = (cstate_lease_t){ what[n], 't', 0 };
    part[n++] = i;
  }
  pthread_mutex_lock(&c->lock);
  bool had_commit = c->commit_held;
  uint64_t commit_token = c->commit_token;
  pthread_mutex_unlock(&c->lock);
  v[n] = (cstate_lease_t){ "commit", had_commit ? 'r' : 'c',
                           had_commit ? commit_token : 0 };
  part[n++] = -1;
  int rc = cstate_leases(c->kconn, c->worker, ms,
                         (int)(share > held ? share - held : 0), v, n);
  if (rc < 0)
    return rc;
  bool taken = false;
  for (size_t j = 0; j < n; j++) {
    int i = part[j];
    if (i < 0)
      continue;
    if (v[j].mode == 'r') {
      pthread_mutex_lock(&c->lock);
      if (v[j].token != 0 && v[j].token == had[i])
        c->parts[i].until = until;
      else
        c->parts[i].held = false;
      pthread_mutex_unlock(&c->lock);
    } else if (v[j].token != 0) {
      /* Another worker may have fetched its hosts since this one did:
       * their buckets start again from empty, as a new host's. */
      frontier_drain(engine_frontier(c->e), in_part, &i);
      pthread_mutex_lock(&c->lock);
      c->parts[i] = (struct part){ true, true, v[j].token, until };
      pthread_cond_broadcast(&c->cond);
      pthread_mutex_unlock(&c->lock);
      taken = true;
    }
  }
  /* The feeder may wait on the partitions it had: it has more now. */
  if (taken)
    unblock(c, false);
  /* The commit. */
  uint64_t tok = v[n - 1].token;
  pthread_mutex_lock(&c->lock);
  if (tok != 0) {
    /* Decided on the state now: the committer may have ended its turn
     * while the leases were on their way. */
    if (!c->commit_held || tok != c->commit_token) {
      c->commit_turn++;
      c->commit_token = tok;
    }
    c->commit_held = true;
    c->commit_until = until;
    pthread_cond_broadcast(&c->cond);
  } else {
    c->commit_held = false;
  }
  pthread_mutex_unlock(&c->lock);
  return 0;
}

struct flush {
  const char **hosts;
  long *n;
  size_t k, cap;
};

static void flush_one(void *arg, const char *key, void *item)
{
  struct flush *f = arg;
  long *n = item;
  if (*n == 0 || f->k == f->cap)
    return;
  f->hosts[f->k] = key;
  f->n[f->k++] = *n;
  *n = 0;
}

/* flush_counts: send the requests counted since the last flush. */
static void flush_counts(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  if (!c->counted) {
    pthread_mutex_unlock(&c->lock);
    return;
  }
  size_t cap = hashtable_count(c->counts);
  struct flush f = { malloc(cap * sizeof(char *)), malloc(cap * sizeof(long)),
                     0, cap };
  if (f.hosts != NULL && f.n != NULL) {
    hashtable_iterate(c->counts, &f, flush_one);
    c->counted = false;
  }
  pthread_mutex_unlock(&c->lock);
  /* The keys stay in the table (never removed), so they outlive this. */
  if (f.k > 0 && cstate_count(c->kconn, f.hosts, f.n, f.k) != CSTATE_OK)
    fprintf(stderr, "crawler: %s: request counts not sent: %s\n", c->worker,
            cstate_error(c->kconn));
  free(f.hosts);
  free(f.n);
}

static void *keeper_main(void *arg)
{
  cluster_t *c = arg;
  /* A few round trips a tick (heartbeat, leases, counts, state): often
   * enough that workers joining share the partitions, and a complete
   * crawl ends everywhere, within a fraction of a second. */
  double tick = c->lease / 4 < TICK_SECONDS ? c->lease / 4 : TICK_SECONDS;
  for (;;) {
    double t0 = now();
    int rc = cstate_heartbeat(c->kconn, c->worker, (long)(c->lease * 1000));
    if (rc == CSTATE_OK)
      rc = keep_leases(c, t0);
    if (rc == CSTATE_OK)
      flush_counts(c);
    if (rc == CSTATE_OK) {
      rc = cstate_complete(c->kconn);
      if (rc == 1) {
        mark_complete(c);
        rc = CSTATE_OK;
      }
    }
    if (rc < 0) {
      fail(c, rc, "%s", cstate_error(c->kconn));
      break;
    }
    pthread_mutex_lock(&c->lock);
    struct timespec ts = deadline(tick - (now() - t0));
    while (!c->stopping &&
           pthread_cond_timedwait(&c->cond, &c->lock, &ts) != ETIMEDOUT)
      ;
    bool stop = c->stopping;
    pthread_mutex_unlock(&c->lock);
    if (stop)
      break;
  }
  /* Leave nothing held for others to wait out. */
  flush_counts(c);
  pthread_mutex_lock(&c->lock);
  bool lost = c->failure == CSTATE_LOST;
  pthread_mutex_unlock(&c->lock);
  for (int i = 0; i < CSTATE_PARTS; i++) {
    pthread_mutex_lock(&c->lock);
    struct part p = c->parts[i];
    c->parts[i].held = false;
    pthread_mutex_unlock(&c->lock);
    char what[32];
    snprintf(what, sizeof(what), "part:%d", i);
    if (p.held && !lost)
      cstate_release(c->kconn, what, p.token);
  }
  pthread_mutex_lock(&c->lock);
  bool had = c->commit_held;
  c->commit_held = false;
  uint64_t tok = c->commit_token;
  pthread_mutex_unlock(&c->lock);
  if (had && !lost)
    cstate_release(c->kconn, "commit", tok);
  return NULL;
}

/* ---- the feeder ---- */

struct forget {
  uint64_t gen;
  uint64_t (*fp)[2];
  size_t n, cap;
};

static void forget_one(void *arg, const uint64_t fp[2], const void *value)
{
  struct forget *f = arg;
  uint64_t gen;
  memcpy(&gen, value, sizeof(gen));
  if (gen >= f->gen || f->n == f->cap)
    return;
  f->fp[f->n][0] = fp[0];
  f->fp[f->n][1] = fp[1];
  f->n++;
}

/* forget_acked: drop the marks of results acknowledged before the take
 * of generation GEN was sent: no later take can read them pending. */
static void forget_acked(cluster_t *c, uint64_t gen)
{
  pthread_mutex_lock(&c->lock);
  size_t n = fptable_count(c->acked);
  struct forget f = { gen, n ? malloc(n * sizeof(*f.fp)) : NULL, 0, n };
  if (f.fp != NULL) {
    fptable_iterate(c->acked, &f, forget_one);
    for (size_t i = 0; i < f.n; i++)
      fptable_remove(c->acked, f.fp[i], NULL);
  }
  pthread_mutex_unlock(&c->lock);
  free(f.fp);
}

/* inject: hand the items taken to the engine, skipping those in flight
 * here already (a take that recovered), and those whose result went to
 * Redis while the take of generation GEN was under way. Returns false
 * once the engine stops. */
static bool inject(cluster_t *c, cstate_item_t *v, int n, uint64_t gen)
{
  for (int i = 0; i < n; i++) {
    uint64_t fp[2];
    id_fp(v[i].id, v[i].part, fp);
    struct ticket *t = malloc(sizeof(*t));
    pthread_mutex_lock(&c->lock);
    uint64_t acked;
    bool dup = fptable_find(c->taken, fp, NULL) ||
               (fptable_find(c->acked, fp, &acked) && acked >= gen);
    bool ok = !dup && t != NULL && fptable_insert(c->taken, fp, NULL) == 1;
    if (ok)
      c->inflight++;
    pthread_mutex_unlock(&c->lock);
    if (!ok) {
      free(t);
      if (dup)
        continue;
      fail(c, CSTATE_ENOMEM, "out of memory taking items");
      return false;
    }
    *t = (struct ticket){ .part = v[i].part, .seq = v[i].seq };
    memcpy(t->id, v[i].id, sizeof(t->id));
    uint64_t lseq = (c->worker_no << SEQ_BITS) | v[i].seq;
    int rc = engine_inject(c->e, v[i].url, v[i].depth, lseq, v[i].hostkey, t);
    if (rc != 0) {
      pthread_mutex_lock(&c->lock);
      fptable_remove(c->taken, fp, NULL);
      c->inflight--;
      pthread_mutex_unlock(&c->lock);
      free(t);
      if (rc == -1)
        return false;
      fail(c, CSTATE_ENOMEM, "out of memory queueing '%s'", v[i].url);
      return false;
    }
  }
  return true;
}

static void *feeder_main(void *arg)
{
  cluster_t *c = arg;
  cstate_t *cs = open_conn(c);
  if (cs == NULL)
    return NULL;
  pthread_mutex_lock(&c->lock);
  c->fconn = cs;
  pthread_mutex_unlock(&c->lock);
  cstate_hold_t holds[CSTATE_PARTS];
  bool recover = false;
  double recovered = now();
  for (;;) {
    /* Now and then, take back whatever is pending under this worker's
     * name and not in flight here: an item dropped while its lease had
     * lapsed, whose partition came back to this worker since. */
    if (now() - recovered > RECOVER_SECONDS) {
      recover = true;
      recovered = now();
    }
    size_t nh = 0, room;
    bool fresh = false;
    pthread_mutex_lock(&c->lock);
    for (;;) {
      nh = 0;
      for (int i = 0; i < CSTATE_PARTS; i++)
        if (c->parts[i].held)
          nh++;
      /* Room for a quarter of the bound at least: taking as each item
       * finishes would cost a round trip an item. */
      if (c->stopping ||
          (nh > 0 && c->inflight + c->inflight_max / 4 <= c->inflight_max))
        break;
      struct timespec ts = deadline(1);
      pthread_cond_timedwait(&c->cond, &c->lock, &ts);
    }
    if (c->stopping) {
      pthread_mutex_unlock(&c->lock);
      break;
    }
    room = c->inflight_max - c->inflight;
    /* Partitions just taken first, alone: their first take recovers
     * what this worker read there before and dropped (engine.h, ADMIT:
     * it stays pending under this worker's name). */
    for (int i = 0; i < CSTATE_PARTS; i++)
      fresh = fresh || (c->parts[i].held && c->parts[i].fresh);
    nh = 0;
    for (int i = 0; i < CSTATE_PARTS; i++) {
      struct part *p = &c->parts[i];
      if (p->held && (!fresh || p->fresh)) {
        holds[nh] = (cstate_hold_t){ .part = i, .token = p->token };
        nh++;
      }
    }
    pthread_mutex_unlock(&c->lock);
    cstate_item_t *v = NULL;
    pthread_mutex_lock(&c->lock);
    uint64_t gen = ++c->take_gen;
    pthread_mutex_unlock(&c->lock);
    int n = cstate_take(cs, holds, nh, c->worker, recover || fresh, room, &v);
    if (n < 0) {
      if (n == CSTATE_LOST || n == CSTATE_ENOMEM) {
        fail(c, n, "%s", cstate_error(cs));
        break;
      }
      /* Its reply may be lost: the next take recovers. */
      fprintf(stderr, "crawler: %s: taking items: %s; trying again\n",
              c->worker, cstate_error(cs));
      recover = true;
      sleep(1);
      continue;
    }
    recover = false;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < nh; i++) {
      struct part *p = &c->parts[holds[i].part];
      if (p->token == holds[i].token) {
        p->fresh = false;
        if (holds[i].fenced)
          p->held = false;
      }
    }
    pthread_mutex_unlock(&c->lock);
    bool go = inject(c, v, n, gen);
    cstate_items_free(v, n > 0 ? (size_t)n : 0);
    forget_acked(c, gen);
    if (!go)
      break;
    if (n == 0 && !fresh) {
      int w = cstate_wait(cs, holds, nh, 1000);
      if (w == CSTATE_LOST) {
        fail(c, w, "%s", cstate_error(cs));
        break;
      }
    }
  }
  pthread_mutex_lock(&c->lock);
  c->fconn = NULL;
  pthread_mutex_unlock(&c->lock);
  cstate_close(cs);
  return NULL;
}

/* ---- the committer ---- */

static void load_one(void *arg, uint32_t b, int64_t m)
{
  cluster_t *c = arg;
  uint64_t fp[2];
  cstate_fp_join(b, m, fp);
  if (engine_seen_load(c->e, fp) != 0)
    fail(c, CSTATE_ENOMEM, "out of memory loading the seen set");
}

/* begin_turn: this worker commits from now on: bring the engine and the
 * front end to the recorded position. Returns 0, or -1 (failed). */
static int begin_turn(cluster_t *c)
{
  /* What the last turn queued goes first (each commit knows whether it
   * may still land). */
  if (commit_flush(c) != 0)
    return -1;
  cstate_commit_t st;
  int rc = cstate_commit_state(c->cconn, &st);
  if (rc != CSTATE_OK) {
    fail(c, rc, "%s", cstate_error(c->cconn));
    return -1;
  }
  adds_clear(c);
  if (engine_commit_reset(c->e) != 0) {
    fail(c, CSTATE_ENOMEM, "out of memory taking the commit over");
    return -1;
  }
  rc = c->front.take_commit(c->front.ctx, &st);
  if (rc != 0) {
    fail(c, rc, "cannot take the commit over in the page directory");
    return -1;
  }
  engine_commit_at(c->e, st.next_seq, st.next_commit, st.depth);
  c->next_seq = st.next_seq;
  c->next_commit = st.next_commit;
  c->pages = c->pages_queued = st.pages;
  c->queued_next = st.next_commit;
  rc = cstate_seen_load(c->cconn, load_one, c);
  if (rc != CSTATE_OK) {
    fail(c, rc, "%s", cstate_error(c->cconn));
    return -1;
  }
  if (st.next_commit == st.next_seq)
    mark_complete(c);
  return 0;
}

static void *committer_main(void *arg)
{
  cluster_t *c = arg;
  char after[CSTATE_ID_SIZE] = "0-0";
  for (;;) {
    pthread_mutex_lock(&c->lock);
    while (!c->stopping && !(c->commit_held && c->commit_turn != c->turn) &&
           !(c->commit_held && c->commit_turn == c->turn && c->turn != 0)) {
      struct timespec ts = deadline(1);
      pthread_cond_timedwait(&c->cond, &c->lock, &ts);
    }
    if (c->stopping) {
      pthread_mutex_unlock(&c->lock);
      break;
    }
    bool new_turn = c->commit_turn != c->turn;
    if (new_turn) {
      c->turn = c->commit_turn;
      c->token = c->commit_token;
    }
    pthread_mutex_unlock(&c->lock);
    if (new_turn) {
      snprintf(after, sizeof(after), "0-0");
      if (begin_turn(c) != 0)
        break;
      continue;
    }
    cstate_result_t *res = NULL;
    int n = cstate_results(c->cconn, after, 256, 1000, &res, after);
    if (n < 0) {
      fail(c, n, "%s", cstate_error(c->cconn));
      break;
    }
    for (int i = 0; i < n; i++) {
      if (res[i].seq < c->queued_next) {
        /* Committed already: a result published twice (a worker's
         * Redis lost it and it was published again). */
        char key[160];
        snprintf(key, sizeof(key), "tse:{%s}:results", c->name);
        redisReply *rep = rconn_cmdf(cstate_rconn(c->cconn), "XDEL", key,
                                     res[i].id, NULL);
        if (rep)
          freeReplyObject(rep);
        continue;
      }
      fitem_t *it = c->front.unpack(c->front.ctx, res[i].data, res[i].len,
                                    res[i].seq);
      struct ticket *t = calloc(1, sizeof(*t));
      if (it == NULL || t == NULL) {
        free(t);
        if (it != NULL)
          fitem_delete(it); /* no data made: nothing else to free */
        fail(c, errno == EINVAL ? CSTATE_EREDIS : CSTATE_ENOMEM,
             "cannot read the result of seq %" PRIu64 " (%s)", res[i].seq,
             errno == EINVAL ? "malformed" : "out of memory");
        break;
      }
      t->delivered = true;
      t->seq = res[i].seq;
      memcpy(t->id, res[i].id, sizeof(t->id));
      it->seq = res[i].seq;
      it->remote = t;
      it->host = UINT32_MAX; /* no host of this process's frontier */
      engine_deliver(c->e, it);
    }
    cstate_results_free(res, n > 0 ? (size_t)n : 0);
    /* Before waiting for more: what the batch committed. */
    if (commit_flush(c) != 0)
      break;
  }
  /* A worker stopping sends what it committed (unless it failed). */
  pthread_mutex_lock(&c->lock);
  bool failed = c->failure != 0;
  pthread_mutex_unlock(&c->lock);
  if (!failed)
    commit_flush(c);
  return NULL;
}

/* ---- the worker ---- */

int cluster_join(const cluster_config_t *cfg, cluster_t **out, bool *created,
                 char *err, size_t n)
{
  *out = NULL;
  cluster_t *c = calloc(1, sizeof(*c));
  if (c == NULL) {
    snprintf(err, n, "out of memory");
    return CSTATE_ENOMEM;
  }
  snprintf(c->url, sizeof(c->url), "%s", cfg->url);
  snprintf(c->name, sizeof(c->name), "%s", cfg->name);
  c->lease = cfg->lease >= 1 ? cfg->lease : 1;
  c->inflight_max = cfg->inflight ? cfg->inflight : 64;
  pthread_mutex_init(&c->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&c->cond, &ca);
  pthread_condattr_destroy(&ca);
  pthread_cond_init(&c->pcond, NULL);
  c->taken = fptable_new(0, 256);
  c->acked = fptable_new(sizeof(uint64_t), 256);
  c->counts = hashtable_new(64);
  if (c->taken == NULL || c->acked == NULL || c->counts == NULL) {
    snprintf(err, n, "out of memory");
    cluster_delete(c);
    return CSTATE_ENOMEM;
  }
  int rc = cstate_join(cfg->url, cfg->name, cfg->params, cfg->nparams,
                       cfg->seed, cfg->seed_hostkey, &c->kconn, created, err,
                       n);
  if (rc != CSTATE_OK) {
    cluster_delete(c);
    return rc;
  }
  char host[128] = "?", info[192];
  gethostname(host, sizeof(host));
  host[sizeof(host) - 1] = '\0';
  snprintf(info, sizeof(info), "%s pid %ld", host, (long)getpid());
  rc = cstate_register(c->kconn, info, c->worker, sizeof(c->worker));
  if (rc == CSTATE_OK &&
      cstate_open(cfg->url, cfg->name, &c->cconn, err, n) != CSTATE_OK)
    rc = CSTATE_EREDIS;
  else if (rc != CSTATE_OK)
    snprintf(err, n, "%s", cstate_error(c->kconn));
  if (rc == CSTATE_OK) {
    cstate_set_worker(c->kconn, c->worker);
    cstate_set_worker(c->cconn, c->worker);
  }
  c->worker_no = strtoull(c->worker + 1, NULL, 10);
  if (rc == CSTATE_OK && c->worker_no >= (UINT64_C(1) << 21)) {
    snprintf(err, n, "too many workers have joined crawl '%s'", cfg->name);
    rc = CSTATE_EREDIS;
  }
  if (rc != CSTATE_OK) {
    cluster_delete(c);
    return rc;
  }
  c->remote = (engine_remote_t){ .publish = r_publish,
                                 .add = r_add,
                                 .seen = r_seen,
                                 .commit_begin = r_commit_begin,
                                 .committed = r_committed,
                                 .admit = r_admit,
                                 .release = r_release,
                                 .ctx = c };
  *out = c;
  return CSTATE_OK;
}

void cluster_set_front(cluster_t *c, const cluster_front_t *front)
{
  c->front = *front;
}

long cluster_pages(cluster_t *c)
{
  cstate_t *cs = pool_get(c);
  if (cs == NULL)
    return CSTATE_EREDIS;
  cstate_commit_t st;
  int rc = cstate_commit_state(cs, &st);
  pool_put(c, cs);
  return rc == CSTATE_OK ? st.pages : rc;
}

const engine_remote_t *cluster_remote(cluster_t *c)
{
  return &c->remote;
}

int cluster_start(cluster_t *c, engine_t *e)
{
  c->e = e;
  engine_hold(e);
  if (pthread_create(&c->keeper, NULL, keeper_main, c) != 0)
    return -1;
  if (pthread_create(&c->feeder, NULL, feeder_main, c) != 0) {
    fail(c, CSTATE_ENOMEM, "cannot start a thread");
    pthread_join(c->keeper, NULL);
    return -1;
  }
  if (pthread_create(&c->committer, NULL, committer_main, c) != 0) {
    fail(c, CSTATE_ENOMEM, "cannot start a thread");
    pthread_join(c->keeper, NULL);
    pthread_join(c->feeder, NULL);
    return -1;
  }
  if (pthread_create(&c->publisher, NULL, publisher_main, c) != 0) {
    fail(c, CSTATE_ENOMEM, "cannot start a thread");
    pthread_join(c->keeper, NULL);
    pthread_join(c->feeder, NULL);
    pthread_join(c->committer, NULL);
    return -1;
  }
  c->started = true;
  return 0;
}

int cluster_finish(cluster_t *c)
{
  /* The results the parse threads left go out first, while the keeper
   * still holds their partitions. */
  if (c->started) {
    pthread_mutex_lock(&c->lock);
    c->pstop = true;
    pthread_cond_broadcast(&c->pcond);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->publisher, NULL);
  }
  pthread_mutex_lock(&c->lock);
  c->stopping = true;
  pthread_cond_broadcast(&c->cond);
  bool unhold = !c->unheld;
  c->unheld = true;
  pthread_mutex_unlock(&c->lock);
  if (unhold && c->e != NULL)
    engine_unhold(c->e);
  if (c->started) {
    unblock(c, true);
    pthread_join(c->keeper, NULL);
    pthread_join(c->feeder, NULL);
    pthread_join(c->committer, NULL);
    c->started = false;
  }
  if (c->failure != 0)
    return c->failure;
  return c->complete ? 0 : 1;
}

const char *cluster_error(const cluster_t *c)
{
  return c->err;
}

const char *cluster_worker(const cluster_t *c)
{
  return c->worker;
}

int cluster_robots_get(cluster_t *c, const char *url, char **data, size_t *len)
{
  cstate_t *cs = pool_get(c);
  if (cs == NULL)
    return CSTATE_EREDIS;
  int rc = cstate_robots_get(cs, url, data, len);
  pool_put(c, cs);
  return rc;
}

int cluster_robots_put(cluster_t *c, const char *url, const char *data,
                       size_t len)
{
  cstate_t *cs = pool_get(c);
  if (cs == NULL)
    return CSTATE_EREDIS;
  int rc = cstate_robots_put(cs, url, data, len);
  pool_put(c, cs);
  return rc;
}

void cluster_count(cluster_t *c, const char *hostkey)
{
  pthread_mutex_lock(&c->lock);
  long *n = hashtable_find(c->counts, hostkey);
  if (n == NULL && (n = calloc(1, sizeof(*n))) != NULL &&
      !hashtable_insert(c->counts, hostkey, n)) {
    free(n);
    n = NULL;
  }
  if (n != NULL) {
    (*n)++;
    c->counted = true;
  }
  pthread_mutex_unlock(&c->lock);
}

int cluster_note_set(cluster_t *c, const char *field, const char *value)
{
  cstate_t *cs = pool_get(c);
  if (cs == NULL)
    return CSTATE_EREDIS;
  int rc = cstate_note_set(cs, field, value);
  pool_put(c, cs);
  return rc;
}

int cluster_note_get(cluster_t *c, const char *field, char *out, size_t n)
{
  cstate_t *cs = pool_get(c);
  if (cs == NULL)
    return CSTATE_EREDIS;
  int rc = cstate_note_get(cs, field, out, n);
  pool_put(c, cs);
  return rc;
}

void cluster_delete(cluster_t *c)
{
  if (c == NULL)
    return;
  adds_clear(c);
  free(c->adds);
  free(c->done);
  for (struct pub *p = c->phead, *next; p != NULL; p = next) {
    next = p->next;
    free(p->t);
    free(p->data);
    free(p);
  }
  for (size_t i = 0; i < c->npool; i++)
    cstate_close(c->pool[i]);
  free(c->pool);
  cstate_close(c->kconn);
  cstate_close(c->cconn);
  fptable_delete(c->taken);
  fptable_delete(c->acked);
  if (c->counts != NULL)
    hashtable_delete(c->counts, free);
  pthread_cond_destroy(&c->cond);
  pthread_cond_destroy(&c->pcond);
  pthread_mutex_destroy(&c->lock);
  free(c);
}
