/* cluster_keeper.c: the keeper thread (cluster.h): the worker's
 * heartbeat, its leases (a share of the partitions, and the commit when
 * free) in one round trip a tick, the request counts for --status, and
 * noticing that the crawl is complete. */
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
  /* The feeder may wait on the partitions it had: it has more cl_now. */
  if (taken)
    cl_unblock(c, false);
  /* The commit. */
  uint64_t tok = v[n - 1].token;
  pthread_mutex_lock(&c->lock);
  if (tok != 0) {
    /* Decided on the state cl_now: the committer may have ended its turn
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

void *cl_keeper_main(void *arg)
{
  cluster_t *c = arg;
  /* A few round trips a tick (heartbeat, leases, counts, state): often
   * enough that workers joining share the partitions, and a complete
   * crawl ends everywhere, within a fraction of a second. */
  double tick = c->lease / 4 < TICK_SECONDS ? c->lease / 4 : TICK_SECONDS;
  for (;;) {
    double t0 = cl_now();
    int rc = cstate_heartbeat(c->kconn, c->worker, (long)(c->lease * 1000));
    if (rc == CSTATE_OK)
      rc = keep_leases(c, t0);
    if (rc == CSTATE_OK)
      flush_counts(c);
    if (rc == CSTATE_OK) {
      rc = cstate_complete(c->kconn);
      if (rc == 1) {
        cl_mark_complete(c);
        rc = CSTATE_OK;
      }
    }
    if (rc < 0) {
      cl_fail(c, rc, "%s", cstate_error(c->kconn));
      break;
    }
    pthread_mutex_lock(&c->lock);
    struct timespec ts = cl_deadline(tick - (cl_now() - t0));
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
