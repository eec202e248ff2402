/* cluster_keeper.c: the keeper thread (cluster.h): the worker's
 * heartbeat and its leases (the partitions the plan gives it, and the
 * commit when free) in one round trip a tick, the request counts for --status,
 * and noticing that the crawl is complete. */
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

/* ---- the keeper ---- */

/* in_part: whether host KEY is in partition *ARG (frontier_empty_buckets). */
static bool in_part(void *arg, const char *key)
{
  return cstate_part(key) == *(const int *)arg;
}

/* apply_pause: host HOSTKEY of a partition held asked (some worker) for
 * no request for SECONDS more: pause it here (a later pause stands). */
static void apply_pause(void *arg, const char *hostkey, double seconds)
{
  cluster_t *c = arg;
  frontier_t *f = engine_frontier(c->e);
  uint32_t host;
  if (seconds > 0 && frontier_host_id(f, hostkey, &host) == 0)
    frontier_host_pause(f, host, clock_now() + seconds);
}

bool cl_give_waits(const struct part *p, double now)
{
  double since = now - p->giving_since;
  return p->busy > 0 &&
         (since < GIVE_SECONDS || (p->gates > 0 && since < GATE_GIVE_SECONDS));
}

bool cl_part_kept(cluster_t *c, int part, double until)
{
  struct part *p = &c->parts[part];
  bool back = !cl_takes_from(p, clock_now());
  p->until = until;
  p->giving = false; /* the plan gave it back here */
  return back;
}

bool cl_parts_refresh(cluster_t *c)
{
  bool any = false;
  double now = clock_now();
  for (int i = 0; i < CSTATE_PARTS; i++) {
    struct part *p = &c->parts[i];
    if (p->held && p->refused) {
      p->refused = false;
      p->fresh = true;
      p->kept++;
      /* One being given away, or out of time here, is read again when
       * it is back (cl_part_kept): no wake-up for it now. */
      any = any || cl_takes_from(p, now);
    }
  }
  return any;
}

void cl_feeder_wake(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  c->wakes++;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
  cl_unblock(c, false);
}

double cluster_lease_margin(double lease)
{
  /* A margin for clocks that run at slightly different rates (5%), and
   * for a Redis that loses its last second (AOF everysec: up to 2 s when
   * its disk is slow) with renewals it answered, so that the lease ends
   * there at the renewal before; at most half the lease, so that a slow
   * renewal (a Redis waiting on its disk) does not end a turn. Below a
   * lease of 4 s the margin is under 2 s. */
  double margin = lease * 0.05 > 2.0 ? lease * 0.05 : 2.0;
  return margin > lease / 2 ? lease / 2 : margin;
}

double cl_lease_end(double t0, double lease)
{
  return t0 + lease - cluster_lease_margin(lease);
}

/* give_part: partition I, held here with token TOK (HAD: the token
 * held before this tick), is one the plan gives another worker. Fetch
 * nothing more of it; once what is being fetched is done (or after
 * GIVE_SECONDS), stop acting for it and give it back: its next holder
 * would fetch those items again. A robots.txt on its way is waited for
 * longer, GATE_GIVE_SECONDS (the default --timeout): the next holder
 * would ask it again, and a host's robots.txt is asked once a crawl,
 * even one slower than GIVE_SECONDS. Bounded: one that drips within a
 * long --timeout would hold every host of the partition that long.
 * While it waits, it is held until UNTIL. Returns 0, or cstate_release's
 * error. Takes c->lock. */
static int give_part(cluster_t *c, int i, uint64_t tok, uint64_t had,
                     double until)
{
  double now = clock_now();
  pthread_mutex_lock(&c->lock);
  struct part *p = &c->parts[i];
  if (!p->giving || !p->held) {
    p->giving = true;
    p->giving_since = now;
  }
  bool wait = p->held && tok == had && cl_give_waits(p, now);
  if (wait)
    p->until = until;
  else
    p->held = false;
  pthread_mutex_unlock(&c->lock);
  if (wait)
    return 0;
  char what[sizeof("part:-2147483648")]; /* any I: GCC cannot see its range */
  snprintf(what, sizeof(what), "part:%d", i);
  int rc = cstate_release(c->kconn, what, c->worker, tok);
  return rc < 0 ? rc : 0;
}

/* read_pauses: the pauses its hosts asked of another worker
 * (Retry-After) hold here too, from before the first item, for each
 * partition taken this tick (TOK[i] is not HAD[i]); and when pauses were
 * recorded since the last tick (PAUSES is not c->pauses: one of ours, or
 * one another worker got from a request made before the partition
 * moved), those of every partition held and not given (GIVE). Returns
 * 0, or cstate_pauses's error. Keeper thread. */
static int read_pauses(cluster_t *c, const uint64_t *tok, const uint64_t *had,
                       const bool *give, long pauses)
{
  int readp[CSTATE_PARTS];
  size_t nread = 0;
  for (int i = 0; i < CSTATE_PARTS; i++)
    if (tok[i] != 0 && !give[i] && (pauses != c->pauses || tok[i] != had[i]))
      readp[nread++] = i;
  int rc = cstate_pauses(c->kconn, readp, nread, apply_pause, c);
  if (rc < 0)
    return rc;
  c->pauses = pauses;
  return 0;
}

/* hold_taken: hold the NTAKEN partitions TAKEN, which this tick gave this
 * worker, with their tokens (TOK) until UNTIL; read again the items
 * dropped unfinished since the last tick; wake the feeder if it has
 * more now, or one BACK (given back, or renewed after its time was up),
 * or items to read again. Takes c->lock. */
static void hold_taken(cluster_t *c, const int *taken, size_t ntaken,
                       const uint64_t *tok, double until, bool back)
{
  pthread_mutex_lock(&c->lock);
  for (size_t j = 0; j < ntaken; j++) {
    struct part *p = &c->parts[taken[j]];
    /* Its busy counts stay: items of an earlier hold may still end. */
    *p = (struct part){ .held = true,
                        .fresh = true,
                        .token = tok[taken[j]],
                        .until = until,
                        .busy = p->busy,
                        .gates = p->gates };
  }
  /* Items dropped unfinished since the last tick (keeper_test.c). */
  bool again = cl_parts_refresh(c);
  pthread_mutex_unlock(&c->lock);
  /* The feeder may wait on the partitions it had: it has more now, one
   * back (given back, or renewed after its time was up), or items to
   * read again (feeder_test.c). */
  if (ntaken > 0 || again || back)
    cl_feeder_wake(c);
}

/* keep_commit: the commit's lease as this tick left it: held with token
 * CTOK until UNTIL, a new turn if the token is new; or, CTOK 0, not
 * held. Takes c->lock. */
static void keep_commit(cluster_t *c, uint64_t ctok, double until)
{
  pthread_mutex_lock(&c->lock);
  if (ctok != 0) {
    /* Decided on the state now: the committer may have ended its turn
     * while the leases were on their way. */
    if (!c->commit_held || ctok != c->commit_token) {
      c->commit_turn++;
      c->commit_token = ctok;
    }
    c->commit_held = true;
    c->commit_until = until;
    pthread_cond_broadcast(&c->ccond);
  } else {
    c->commit_held = false;
  }
  pthread_mutex_unlock(&c->lock);
}

/* keep_leases: say this worker is alive, renew what is held, give back
 * the partitions the plan gives others, take those it gives this worker
 * (cstate_keep), and the commit if free: one round trip, and one more
 * for each partition given back. *MOVING: partitions are on their way
 * to or from this worker, or the plan changed in the last second
 * (cstate_keep), so the next tick comes sooner. */
static int keep_leases(cluster_t *c, double t0, bool *moving)
{
  long ms = (long)(c->lease * 1000);
  /* Counted from before the call: the lease may start later in Redis,
   * never earlier. */
  double until = cl_lease_end(t0, c->lease);
  uint64_t had[CSTATE_PARTS], tok[CSTATE_PARTS], ctok;
  bool give[CSTATE_PARTS];
  pthread_mutex_lock(&c->lock);
  for (int i = 0; i < CSTATE_PARTS; i++)
    tok[i] = had[i] = c->parts[i].held ? c->parts[i].token : 0;
  ctok = c->commit_held ? c->commit_token : 0;
  /* The items in flight here: for --status, and with none (partitions
   * whose hosts have nothing queued yet) the plan is weighed sooner. */
  long inflight = (long)c->inflight;
  pthread_mutex_unlock(&c->lock);
  int alive, nmoving;
  long pauses;
  int rc = cstate_keep(c->kconn, c->worker, ms, inflight, tok, give, &ctok,
                       &alive, &nmoving, &pauses);
  if (rc < 0)
    return rc;
  *moving = nmoving > 0;
  int taken[CSTATE_PARTS];
  size_t ntaken = 0;
  bool back = false;
  for (int i = 0; i < CSTATE_PARTS; i++) {
    if (tok[i] != 0 && give[i]) {
      rc = give_part(c, i, tok[i], had[i], until);
      if (rc < 0)
        return rc;
    } else if (tok[i] != 0 && tok[i] == had[i]) {
      pthread_mutex_lock(&c->lock);
      back = cl_part_kept(c, i, until) || back;
      pthread_mutex_unlock(&c->lock);
    } else if (tok[i] != 0) {
      /* Another worker may have fetched its hosts since this one did:
       * their buckets start again from empty, as a new host's. */
      frontier_empty_buckets(engine_frontier(c->e), in_part, &i);
      taken[ntaken++] = i;
    } else if (had[i] != 0) {
      pthread_mutex_lock(&c->lock);
      c->parts[i].held = false;
      c->parts[i].giving = false;
      pthread_mutex_unlock(&c->lock);
    }
  }
  rc = read_pauses(c, tok, had, give, pauses);
  if (rc < 0)
    return rc;
  hold_taken(c, taken, ntaken, tok, until, back);
  keep_commit(c, ctok, until);
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
  if (f->k == f->cap)
    return;
  f->hosts[f->k] = key;
  f->n[f->k++] = *(long *)item;
}

/* flush_counts: send the requests counted since the last flush. The
 * table is swapped for an empty one under the lock and walked outside
 * it: it holds only the hosts asked since the last tick, not every host
 * this worker ever asked, walked under the lock the download threads
 * take for every item. */
static void flush_counts(cluster_t *c)
{
  hashtable_t *fresh = hashtable_new(64);
  pthread_mutex_lock(&c->lock);
  hashtable_t *old = NULL;
  if (hashtable_count(c->counts) > 0 && fresh != NULL) {
    old = c->counts;
    c->counts = fresh;
    fresh = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  hashtable_delete(fresh, free);
  if (old == NULL)
    return;
  size_t cap = hashtable_count(old);
  struct flush f = { malloc(cap * sizeof(char *)), malloc(cap * sizeof(long)),
                     0, cap };
  if (f.hosts != NULL && f.n != NULL)
    hashtable_iterate(old, &f, flush_one);
  if (f.hosts == NULL || f.n == NULL)
    fprintf(stderr, "crawler: %s: request counts not sent: out of memory\n",
            c->worker);
  else if (f.k > 0 && cstate_count(c->kconn, f.hosts, f.n, f.k) != CRAWL_OK)
    fprintf(stderr, "crawler: %s: request counts not sent: %s\n", c->worker,
            cstate_error(c->kconn));
  free(f.hosts);
  free(f.n);
  hashtable_delete(old, free);
}

void *cl_keeper_main(void *arg)
{
  cluster_t *c = arg;
  /* A few round trips a tick (leases, counts, state): often
   * enough that workers joining share the partitions, and a complete
   * crawl ends everywhere, within a fraction of a second. */
  double tick = c->lease / 4 < TICK_SECONDS ? c->lease / 4 : TICK_SECONDS;
  for (;;) {
    double t0 = clock_now();
    bool moving = false;
    int rc = keep_leases(c, t0, &moving);
    if (rc == CRAWL_OK)
      flush_counts(c);
    if (rc == CRAWL_OK) {
      rc = cstate_complete(c->kconn);
      if (rc == 1) {
        cl_mark_complete(c);
        rc = CRAWL_OK;
      }
    }
    if (rc < 0) {
      cl_fail(c, rc, "%s", cstate_error(c->kconn));
      break;
    }
    pthread_mutex_lock(&c->lock);
    /* While partitions move, their old holders give them back and their
     * new ones take them sooner than a tick. */
    double next = moving ? MOVING_TICK_SECONDS : tick;
    struct timespec ts = cl_deadline(next - (clock_now() - t0));
    while (!c->stopping &&
           pthread_cond_timedwait(&c->kcond, &c->lock, &ts) != ETIMEDOUT)
      ;
    bool stop = c->stopping;
    pthread_mutex_unlock(&c->lock);
    if (stop)
      break;
  }
  /* Leave nothing held for others to wait out. */
  flush_counts(c);
  pthread_mutex_lock(&c->lock);
  bool lost = c->failure == CRAWL_ELOST;
  pthread_mutex_unlock(&c->lock);
  for (int i = 0; i < CSTATE_PARTS; i++) {
    pthread_mutex_lock(&c->lock);
    struct part p = c->parts[i];
    c->parts[i].held = false;
    pthread_mutex_unlock(&c->lock);
    char what[32];
    snprintf(what, sizeof(what), "part:%d", i);
    if (p.held && !lost)
      cstate_release(c->kconn, what, c->worker, p.token);
  }
  pthread_mutex_lock(&c->lock);
  bool had = c->commit_held;
  c->commit_held = false;
  uint64_t tok = c->commit_token;
  pthread_mutex_unlock(&c->lock);
  if (had && !lost)
    cstate_release(c->kconn, "commit", c->worker, tok);
  if (!lost)
    cstate_leave(c->kconn, c->worker); /* its partitions go at once */
  return NULL;
}
