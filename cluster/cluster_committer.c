/* cluster_committer.c: the committer thread (cluster.h) and the
 * engine's commit callbacks: a turn at the commit begins at Redis's
 * recorded position, the commits are queued and sent in batches, and a
 * refused one ends the turn. The committer thread's own fields of
 * struct cluster (cluster_int.h) are used by no other thread. */
#include "clock.h"
#include "cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster_int.h"
#include "fptable.h"
#include "frontier.h"
#include "hashtable.h"

/* add_add: keep an add of the commit under way, for cl_committed. */
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

void cl_adds_clear(cluster_t *c)
{
  for (size_t i = 0; i < c->nadds; i++) {
    free((char *)c->adds[i].url);
    free((char *)c->adds[i].hostkey);
    free((uint64_t *)c->adds[i].fp);
  }
  c->nadds = 0;
}

int cl_add(void *rctx, engine_t *e, fitem_t *it, const uint64_t fp[2],
           const char *hostkey)
{
  /* Queued in the shared frontier; it comes back by engine_inject to
   * whichever worker fetches its host. */
  cluster_t *c = rctx;
  bool ok = add_add(c, it->url, fp, it->depth, it->seq, hostkey, false) == 0;
  if (!ok)
    cl_fail(c, CRAWL_ENOMEM, "out of memory adding '%s'", it->url);
  else if (it->seq + 1 > c->next_seq)
    c->next_seq = it->seq + 1;
  fitem_delete(it);
  if (!ok) {
    engine_fail(e, CRAWL_ECLUSTER);
    return -1;
  }
  return 1;
}

int cl_seen(void *rctx, const char *url, const uint64_t fp[2])
{
  cluster_t *c = rctx;
  if (add_add(c, url, fp, 0, 0, NULL, true) != 0) {
    cl_fail(c, CRAWL_ENOMEM, "out of memory adding '%s'", url);
    return CRAWL_ECLUSTER;
  }
  return 0;
}

/* cl_end_turn: this worker's turn at the commit is over (its lease lapsed
 * or was lost, or Redis's position is not the one it committed from):
 * the keeper takes the commit again if it is free, and a new turn
 * starts from Redis's position (begin_turn), the items waiting in the
 * engine delivered again. */
void cl_end_turn(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  if (c->commit_turn == c->turn)
    c->commit_held = false;
  pthread_mutex_unlock(&c->lock);
  cl_adds_clear(c);
}

/* lease_holds: this turn may act for the commit now (its lease, held
 * in this turn, not past its local end, the worker not stopping); if
 * not, the turn ends, unless the worker stops. */
static bool lease_holds(cluster_t *c)
{
  double t0 = clock_now();
  pthread_mutex_lock(&c->lock);
  bool ok = c->commit_held && c->commit_turn == c->turn &&
            t0 < c->commit_until && !c->stopping;
  bool stopping = c->stopping;
  pthread_mutex_unlock(&c->lock);
  if (!ok && !stopping)
    cl_end_turn(c);
  return ok;
}

int cl_commit_begin(void *rctx, fitem_t *it)
{
  (void)it;
  return lease_holds(rctx) ? 0 : 1;
}

/* rents_add: result entry ID, whose highest seq is LAST, was read.
 * Returns 0, or -1 (out of memory). */
static int rents_add(cluster_t *c, const char *id, uint64_t last)
{
  if (c->nrents > 0 && strcmp(c->rents[c->nrents - 1].id, id) == 0) {
    if (last > c->rents[c->nrents - 1].last)
      c->rents[c->nrents - 1].last = last;
    return 0;
  }
  if (c->nrents == c->caprents) {
    size_t cap = c->caprents ? 2 * c->caprents : 64;
    struct rentry *v = realloc(c->rents, cap * sizeof(*v));
    if (v == NULL)
      return -1;
    c->rents = v;
    c->caprents = cap;
  }
  struct rentry *r = &c->rents[c->nrents++];
  snprintf(r->id, sizeof(r->id), "%s", id);
  r->last = last;
  r->queued = false;
  return 0;
}

/* rents_gone: the ids (space-separated, malloc'd) of the result entries
 * whose seqs are all below NEXT_COMMIT and whose deletion is not queued
 * yet, now marked queued; "" if none; NULL (out of memory). */
static char *rents_gone(cluster_t *c, uint64_t next_commit)
{
  size_t len = 0;
  for (size_t i = 0; i < c->nrents; i++)
    if (!c->rents[i].queued && c->rents[i].last < next_commit)
      len += strlen(c->rents[i].id) + 1;
  char *s = malloc(len + 1), *e = s;
  if (s == NULL)
    return NULL;
  for (size_t i = 0; i < c->nrents; i++)
    if (!c->rents[i].queued && c->rents[i].last < next_commit) {
      size_t n = strlen(c->rents[i].id);
      if (e != s)
        *e++ = ' ';
      memcpy(e, c->rents[i].id, n);
      e += n;
      c->rents[i].queued = true;
    }
  *e = '\0';
  return s;
}

/* rents_done: the deletions queued have landed: forget those entries. */
static void rents_done(cluster_t *c)
{
  size_t k = 0;
  for (size_t i = 0; i < c->nrents; i++)
    if (!c->rents[i].queued)
      c->rents[k++] = c->rents[i];
  c->nrents = k;
}

/* commit_flush: send the commits queued (cl_committed) in one round trip
 * and act on their answers, in order: the position moves on, the crawl
 * may be complete; a commit fenced or out of order ends the turn (the
 * ones after it cl_fail alike). Committer thread. Returns 0, or
 * CRAWL_ECLUSTER (failed). */
static int commit_flush(cluster_t *c)
{
  size_t n = c->ndone;
  if (n == 0)
    return 0;
  c->ndone = 0;
  int *status = malloc(n * sizeof(*status));
  int got = status ? cstate_flush(c->cconn, status) : CRAWL_ENOMEM;
  if (got < 0 || (size_t)got != n) {
    free(status);
    cl_fail(c, got < 0 ? got : CRAWL_EREDIS, "committing: %s",
            cstate_error(c->cconn));
    return CRAWL_ECLUSTER;
  }
  bool complete = false;
  int rc = 0;
  /* A batch sent again (its connection broke after it ran) finds its
   * commits done: out of order, yet Redis's position is past them. */
  cstate_commit_t now_at = { 0 };
  bool known = false;
  for (size_t i = 0; i < n; i++) {
    if (status[i] == CRAWL_EORDER && !known) {
      known = true;
      if (cstate_commit_state(c->cconn, &now_at) != CRAWL_OK)
        now_at.next_commit = 0;
    }
    if (status[i] == CRAWL_EORDER &&
        now_at.next_commit >= c->done[i].next_commit)
      status[i] = CRAWL_OK;
    if (status[i] == CRAWL_OK) {
      c->pages = c->done[i].pages;
      c->next_commit = c->done[i].next_commit;
      complete = c->done[i].next_commit == c->done[i].next_seq;
      continue;
    }
    if (status[i] == CRAWL_EFENCED || status[i] == CRAWL_EORDER) {
      /* The lease lapsed (and maybe went to another), or Redis lost its
       * last commits (a restart that kept a prefix of its history): the
       * commit goes on from the position Redis has. */
      cl_end_turn(c);
      fprintf(stderr,
              "crawler: %s: %s; the commit goes on from Redis's "
              "position\n",
              c->worker,
              status[i] == CRAWL_EFENCED ? "the commit lease lapsed"
                                         : "Redis's commit is behind this "
                                           "one");
    } else {
      cl_fail(c, status[i], "committing: %s", cstate_error(c->cconn));
      rc = CRAWL_ECLUSTER;
    }
    break;
  }
  c->pages_queued = c->pages;
  pthread_mutex_lock(&c->lock);
  bool same_turn = c->commit_held && c->commit_turn == c->turn;
  pthread_mutex_unlock(&c->lock);
  if (rc == 0 && same_turn)
    rents_done(c); /* else begin_turn reads them all again */
  free(status);
  if (complete)
    cl_mark_complete(c);
  return rc;
}

int cl_committed(void *rctx, engine_t *e, fitem_t *it)
{
  cluster_t *c = rctx;
  (void)e;
  cstate_commit_t st = { .next_seq = c->next_seq,
                         .next_commit = it->seq + 1,
                         .depth = it->depth };
  if (c->front.position(c->front.ctx, &st) != 0) {
    /* Recorded as 0 bytes, the next committer would cut the journal
     * off; unrecorded, it cuts back to the last commit recorded. */
    int err = errno;
    cl_adds_clear(c);
    cl_fail(c, CRAWL_EREDIS,
            "cannot read the length of the page directory's .journal after "
            "committing '%s': %s",
            it->url, strerror(err));
    return CRAWL_ECLUSTER;
  }
  bool saved = st.pages > c->pages_queued;
  if (c->ndone == c->capdone) {
    size_t cap = c->capdone ? 2 * c->capdone : COMMIT_BATCH;
    struct done *v = realloc(c->done, cap * sizeof(*v));
    if (v == NULL) {
      cl_adds_clear(c);
      cl_fail(c, CRAWL_ENOMEM, "out of memory committing '%s'", it->url);
      return CRAWL_ECLUSTER;
    }
    c->done = v;
    c->capdone = cap;
  }
  char *gone = rents_gone(c, st.next_commit);
  int rc = gone == NULL
           ? CRAWL_ENOMEM
           : cstate_commit_queue(c->cconn, c->token, it->seq, c->adds, c->nadds,
                                 &st, gone, saved);
  free(gone);
  cl_adds_clear(c);
  if (rc != CRAWL_OK) {
    cl_fail(c, rc, "committing '%s': %s", it->url, cstate_error(c->cconn));
    return CRAWL_ECLUSTER;
  }
  c->done[c->ndone++] = (struct done){ st.next_seq, st.next_commit, st.pages };
  c->pages_queued = st.pages;
  c->queued_next = st.next_commit;
  /* Sent in batches; at once when it may be the last one. */
  if (c->ndone >= COMMIT_BATCH || st.next_commit == st.next_seq)
    return commit_flush(c);
  return 0;
}

/* ---- the committer ---- */

/* unpack_key: the key of the files an unpacked result may spill to:
 * the top bit (no worker's item has it: its local seq is the worker's
 * number, below 2^21, above SEQ_BITS), this worker's number, and a
 * count of its unpacks from a random start (cluster_join). Not the
 * shared seq: two results of one seq (an item fetched twice) can wait
 * in the reorder heap at once, and the second's links file would
 * truncate the first's. */
static uint64_t unpack_key(cluster_t *c)
{
  uint64_t n = c->unpacks++ & ((UINT64_C(1) << SEQ_BITS) - 1);
  return UINT64_C(1) << 63 | c->worker_no << SEQ_BITS | n;
}

static void load_one(void *arg, uint32_t b, int64_t m)
{
  cluster_t *c = arg;
  uint64_t fp[2];
  cstate_fp_join(b, m, fp);
  if (engine_seen_load(c->e, fp) != 0)
    cl_fail(c, CRAWL_ENOMEM, "out of memory loading the seen set");
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
  if (rc != CRAWL_OK) {
    cl_fail(c, rc, "%s", cstate_error(c->cconn));
    return -1;
  }
  cl_adds_clear(c);
  c->nrents = 0; /* read again from the first */
  if (engine_commit_reset(c->e) != 0) {
    cl_fail(c, CRAWL_ENOMEM, "out of memory taking the commit over");
    return -1;
  }
  /* The directory is cut back to Redis's position only while the lease
   * holds here: a committer paused past it since the read above would
   * undo the next committer's recorded pages and journal. */
  if (!lease_holds(c))
    return 0;
  rc = c->front.take_commit(c->front.ctx, &st);
  if (rc != 0) {
    cl_fail(c, rc, "cannot take the commit over in the page directory");
    return -1;
  }
  engine_commit_at(c->e, st.next_seq, st.next_commit, st.depth);
  c->next_seq = st.next_seq;
  c->next_commit = st.next_commit;
  c->pages = c->pages_queued = st.pages;
  c->queued_next = st.next_commit;
  if (st.next_commit == st.next_seq) {
    /* Complete: nothing more to commit, no seen set to load. */
    cl_mark_complete(c);
    return 0;
  }
  /* Before the first commit the seen set is the seed alone: no need to
   * look for it (SCAN walks every key of the database). */
  if (st.next_commit == 0) {
    load_one(c, c->seed_b, c->seed_m);
    return 0;
  }
  rc = cstate_seen_load(c->cconn, load_one, c);
  if (rc != CRAWL_OK) {
    cl_fail(c, rc, "%s", cstate_error(c->cconn));
    return -1;
  }
  return 0;
}

/* behind_checked: the turn ends if Redis's position is not the one this
 * turn recorded (a new turn starts from Redis's). Returns false once the
 * worker failed. */
static bool behind_checked(cluster_t *c)
{
  cstate_commit_t st;
  int rc = cstate_commit_state(c->cconn, &st);
  if (rc == CRAWL_ELOST || rc == CRAWL_ENOMEM) {
    cl_fail(c, rc, "%s", cstate_error(c->cconn));
    return false;
  }
  if (rc == CRAWL_OK && st.next_commit != c->next_commit) {
    cl_end_turn(c);
    fprintf(stderr,
            "crawler: %s: Redis's commit is at %" PRIu64 ", not %" PRIu64
            "; the commit goes on from Redis's position\n",
            c->worker, st.next_commit, c->next_commit);
  }
  return true;
}

void *cl_committer_main(void *arg)
{
  cluster_t *c = arg;
  char after[CSTATE_ID_SIZE] = "0-0";
  for (;;) {
    pthread_mutex_lock(&c->lock);
    while (!c->stopping && !(c->commit_held && c->commit_turn != c->turn) &&
           !(c->commit_held && c->commit_turn == c->turn && c->turn != 0)) {
      struct timespec ts = cl_deadline(1);
      pthread_cond_timedwait(&c->ccond, &c->lock, &ts);
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
    int n = cstate_results(c->cconn, after, RESULT_ENTRIES, 1000, &res, after);
    if (n < 0) {
      cl_fail(c, n, "%s", cstate_error(c->cconn));
      break;
    }
    /* Each entry is known before any of its results is committed (the
     * commit that commits its last seq deletes it). */
    bool nomem = false;
    for (int i = 0; i < n && !nomem; i++)
      nomem = rents_add(c, res[i].id, res[i].seq) != 0;
    if (nomem) {
      cstate_results_free(res, (size_t)n);
      cl_fail(c, CRAWL_ENOMEM, "out of memory reading results");
      break;
    }
    for (int i = 0; i < n; i++) {
      if (res[i].seq < c->queued_next)
        continue; /* committed already: a result published twice (a
                     worker's Redis lost it and it was published again) */
      /* The ticket first: an item unpacked has data (its page, maybe
       * a links file) that only the engine's release frees. */
      struct ticket *t = calloc(1, sizeof(*t));
      fitem_t *it = t == NULL ? NULL
                              : c->front.unpack(c->front.ctx, res[i].data,
                                                res[i].len, unpack_key(c));
      if (it == NULL) {
        if (t == NULL)
          errno = ENOMEM;
        free(t);
        cl_fail(c, errno == EINVAL ? CRAWL_EREDIS : CRAWL_ENOMEM,
                "cannot read the result of seq %" PRIu64 " (%s)", res[i].seq,
                errno == EINVAL ? "malformed" : "out of memory");
        break;
      }
      t->delivered = true;
      t->seq = res[i].seq;
      it->seq = res[i].seq;
      it->ticket = t;
      it->host = UINT32_MAX; /* no host of this process's frontier */
      engine_deliver(c->e, it);
    }
    cstate_results_free(res, n > 0 ? (size_t)n : 0);
    /* Before waiting for more: what the batch committed. */
    if (commit_flush(c) != 0)
      break;
    /* A second without a result: is Redis where this turn left it? One
     * that came back without its last commits (and with the lease) is
     * found otherwise by the next commit, refused as out of order; when
     * the result awaited was dropped (its item gone with those commits),
     * there is none (cluster_outage.sh). */
    if (n == 0 && !behind_checked(c))
      break;
    /* Results coming one by one: let a few gather (as the publisher
     * does), or each costs two round trips, a read and a commit. */
    if (n > 0 && n < RESULT_BATCH / 8) {
      struct timespec ts = { 0, LINGER_MS * 1000000L };
      nanosleep(&ts, NULL);
    }
  }
  /* A worker stopping sends what it committed (unless it failed). */
  pthread_mutex_lock(&c->lock);
  bool failed = c->failure != 0;
  pthread_mutex_unlock(&c->lock);
  if (!failed)
    commit_flush(c);
  /* The results waiting in the engine for an earlier seq are not this
   * worker's to commit any more: they go (their data too), and stay in
   * Redis for whoever commits. Kept, they would hold the engine's end: a
   * worker whose turn has ended (paused past its lease) would wait for
   * them forever once another completed the crawl. The seen set emptied
   * with them is not read from here on. */
  (void)engine_commit_reset(c->e);
  return NULL;
}
