/* cluster_feeder.c: the feeder thread (cluster.h), which takes the
 * items of the partitions held into the engine's frontier, and the
 * tickets those items carry (admitted, released, done). */
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

/* cl_ticket_done: the item of ticket T is no longer in flight here;
 * ACKED: its result is in Redis (the item left its partition). */
void cl_ticket_done(cluster_t *c, struct ticket *t, bool acked)
{
  uint64_t fp[2];
  cl_id_fp(t->id, t->part, fp);
  pthread_mutex_lock(&c->lock);
  fptable_remove(c->taken, fp, NULL);
  if (!acked && c->parts[t->part].held)
    c->parts[t->part].refused = true; /* its item is still there */
  if (t->own_busy)
    c->parts[t->part].busy--;
  if (t->busy)
    c->parts[t->busy_part].busy--;
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
  free(t->chain);
  free(t);
}

bool cl_admit(void *rctx, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->ticket;
  if (it->flags & FITEM_GATE) {
    /* Its host's robots.txt: only from a partition held here, so that
     * a host given away gets no request from here, and its robots.txt
     * is not asked twice, once by each worker.
     * Refused, the engine drops the items behind it too. Admitted, it
     * counts in the partition's busy until cl_gate_done: given away
     * meanwhile, the partition is released only once the answer is
     * kept in Redis for the next holder, who would ask too. */
    const char *key = frontier_host_key(engine_frontier(c->e), it->host);
    double now = clock_now();
    pthread_mutex_lock(&c->lock);
    bool ok = !c->stopping && key != NULL &&
              cl_takes_from(&c->parts[cstate_part(key)], now);
    if (ok) {
      c->parts[cstate_part(key)].busy++;
      c->parts[cstate_part(key)].gates++;
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
  }
  if (t == NULL || t->delivered)
    return true;
  double t0 = clock_now();
  /* The host it is fetched from now: after a redirect kept here, one of
   * another partition than the item's, which must be this worker's too
   * (it may have moved since). */
  const char *key = frontier_host_key(engine_frontier(c->e), it->host);
  int part = key != NULL ? cstate_part(key) : t->part;
  pthread_mutex_lock(&c->lock);
  struct part *own = &c->parts[t->part];
  struct part *p = &c->parts[part];
  bool ok = own->held && !own->giving && t0 < own->until && p->held &&
            !p->giving && t0 < p->until && !c->stopping;
  /* Both stay held while it is fetched: the host's partition (its
   * bucket) and the item's own (its result goes under that token; given
   * away meanwhile, the next holder would fetch it again). */
  if (ok && !t->own_busy) {
    t->own_busy = true;
    own->busy++;
  }
  if (ok && t->busy && t->busy_part != part) {
    c->parts[t->busy_part].busy--;
    t->busy = false;
  }
  if (ok && !t->busy && part != t->part) {
    t->busy = true;
    t->busy_part = part;
    p->busy++;
  }
  pthread_mutex_unlock(&c->lock);
  return ok;
}

void cl_gate_done(void *rctx, const char *hostkey)
{
  cluster_t *c = rctx;
  if (hostkey == NULL)
    return; /* no such host: not admitted (cl_admit) */
  pthread_mutex_lock(&c->lock);
  c->parts[cstate_part(hostkey)].busy--;
  c->parts[cstate_part(hostkey)].gates--;
  pthread_mutex_unlock(&c->lock);
}

void cl_release(void *rctx, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->ticket;
  it->ticket = NULL;
  if (t == NULL)
    return;
  if (t->delivered)
    free(t);
  else
    cl_ticket_done(c, t, false);
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
    cl_id_fp(v[i].id, v[i].part, fp);
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
      cl_fail(c, CRAWL_ENOMEM, "out of memory taking items");
      return false;
    }
    *t = (struct ticket){ .part = v[i].part,
                          .seq = v[i].seq,
                          .chain = v[i].chain };
    v[i].chain = NULL; /* the ticket's now */
    memcpy(t->id, v[i].id, sizeof(t->id));
    uint64_t lseq = (c->worker_no << SEQ_BITS) | v[i].seq;
    int rc = engine_inject(c->e, v[i].url, v[i].depth, lseq, v[i].hostkey, t);
    if (rc != 0) {
      pthread_mutex_lock(&c->lock);
      fptable_remove(c->taken, fp, NULL);
      c->inflight--;
      pthread_mutex_unlock(&c->lock);
      free(t->chain);
      free(t);
      if (rc == -1)
        return false;
      cl_fail(c, CRAWL_ENOMEM, "out of memory queueing '%s'", v[i].url);
      return false;
    }
  }
  return true;
}

/* fresh_to_take: whether a partition the feeder takes from now is
 * marked fresh (to read with RECOVER). Caller holds c->lock. */
static bool fresh_to_take(const cluster_t *c, double now)
{
  for (int i = 0; i < CSTATE_PARTS; i++)
    if (cl_takes_from(&c->parts[i], now) && c->parts[i].fresh)
      return true;
  return false;
}

void cl_feeder_took(cluster_t *c, const cstate_hold_t *holds,
                    const unsigned *kept, size_t nh, bool recovered)
{
  pthread_mutex_lock(&c->lock);
  for (size_t i = 0; i < nh; i++) {
    struct part *p = &c->parts[holds[i].part];
    if (p->token == holds[i].token) {
      /* Not if it was marked fresh again while the take was on its way
       * (keeper_test.c): what was dropped since is not read yet. */
      if (recovered && p->kept == kept[i])
        p->fresh = false;
      memcpy(p->pos, holds[i].pos, sizeof(p->pos));
      if (holds[i].fenced)
        p->held = false;
    }
  }
  pthread_mutex_unlock(&c->lock);
}

void *cl_feeder_main(void *arg)
{
  cluster_t *c = arg;
  cstate_t *cs = cl_open_conn(c);
  if (cs == NULL)
    return NULL;
  pthread_mutex_lock(&c->lock);
  c->fconn = cs;
  pthread_mutex_unlock(&c->lock);
  cstate_hold_t holds[CSTATE_PARTS];
  unsigned kept[CSTATE_PARTS];
  bool recover = false;
  double recovered = clock_now();
  for (;;) {
    /* Now and then, read again what this worker read and did not
     * finish, and is not in flight here: an item dropped while its lease
     * had run out here (and was renewed after all). */
    if (clock_now() - recovered > RECOVER_SECONDS) {
      recover = true;
      recovered = clock_now();
    }
    size_t nh = 0, room;
    bool fresh = false;
    double now;
    pthread_mutex_lock(&c->lock);
    for (;;) {
      /* Partitions to take from: not given away, and not one whose time
       * here is up (what it read would be refused by cl_admit until the
       * keeper renews it). */
      now = clock_now();
      nh = 0;
      for (int i = 0; i < CSTATE_PARTS; i++)
        if (cl_takes_from(&c->parts[i], now))
          nh++;
      /* Room for a quarter of the bound at least: taking as each item
       * finishes would cost a round trip an item. */
      if (c->stopping ||
          (nh > 0 && c->inflight + c->inflight_max / 4 <= c->inflight_max))
        break;
      struct timespec ts = cl_deadline(1);
      pthread_cond_timedwait(&c->cond, &c->lock, &ts);
    }
    if (c->stopping) {
      pthread_mutex_unlock(&c->lock);
      break;
    }
    room = c->inflight_max - c->inflight;
    unsigned wakes = c->wakes;
    /* Partitions just taken first, alone: their first take reads them
     * from the first entry, what their last holder (this worker too,
     * maybe) did not finish. */
    fresh = fresh_to_take(c, now);
    nh = 0;
    for (int i = 0; i < CSTATE_PARTS; i++) {
      struct part *p = &c->parts[i];
      if (cl_takes_from(p, now) && (!fresh || p->fresh)) {
        holds[nh] = (cstate_hold_t){ .part = i, .token = p->token };
        memcpy(holds[nh].pos, p->pos, sizeof(holds[nh].pos));
        kept[nh] = p->kept;
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
      if (n == CRAWL_ELOST || n == CRAWL_ENOMEM) {
        cl_fail(c, n, "%s", cstate_error(cs));
        break;
      }
      /* Its reply may be lost: the next take recovers. */
      fprintf(stderr, "crawler: %s: taking items: %s; trying again\n",
              c->worker, cstate_error(cs));
      recover = true;
      sleep(1);
      continue;
    }
    cl_feeder_took(c, holds, kept, nh, recover || fresh);
    /* A take of the fresh partitions alone recovered only those. */
    if (!fresh)
      recover = false;
    bool go = inject(c, v, n, gen);
    cstate_items_free(v, n > 0 ? (size_t)n : 0);
    forget_acked(c, gen);
    if (!go)
      break;
    /* Marked fresh, or woken (a partition taken or given back), while
     * the take was on its way: its wake-up may have come before this
     * worker blocked (CLIENT UNBLOCK unblocks only a read under way). */
    pthread_mutex_lock(&c->lock);
    bool marked = fresh_to_take(c, clock_now()) || c->wakes != wakes;
    pthread_mutex_unlock(&c->lock);
    if (n == 0 && !fresh && !marked) {
      int w = cstate_wait(cs, holds, nh, 1000);
      if (w == CRAWL_ELOST) {
        cl_fail(c, w, "%s", cstate_error(cs));
        break;
      }
      /* Complete: end now, not at the keeper's next tick. (Not, with a
       * `done` stream left by hand: then a pause, not a busy loop.) */
      if (w == 2 && cstate_complete(cs) == 1) {
        cl_mark_complete(c);
      } else if (w == 2) {
        struct timespec ts = { 0, 100000000L };
        nanosleep(&ts, NULL);
      }
    }
  }
  pthread_mutex_lock(&c->lock);
  c->fconn = NULL;
  pthread_mutex_unlock(&c->lock);
  cstate_close(cs);
  return NULL;
}
