/* cluster.c: see cluster.h. The worker's threads are in
 * cluster_keeper.c, cluster_feeder.c, cluster_committer.c and
 * cluster_publisher.c; what they share, and its locks, in cluster_int.h.
 * Here: joining, starting and stopping the worker, the connections'
 * pool, and failing.
 * */
#include "cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cluster_int.h"
#include "fptable.h"
#include "hashtable.h"

struct timespec cl_deadline(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  return ts;
}

/* cl_unblock: wake the feeder (and the COMMITTER) from a blocking read, as
 * the worker stops or holds other partitions now (CLIENT UNBLOCK, from a
 * connection of its own). No lock held. */

void cl_unblock(cluster_t *c, bool committer)
{
  pthread_mutex_lock(&c->lock);
  long long ids[2] = { c->fconn ? cstate_client_id(c->fconn) : 0,
                       c->cconn && committer ? cstate_client_id(c->cconn) : 0 };
  pthread_mutex_unlock(&c->lock);
  cstate_t *cs = NULL;
  for (int i = 0; i < 2; i++) {
    if (ids[i] == 0)
      continue;
    if (cs == NULL) {
      char err[320];
      if (cstate_open(c->url, c->name, &cs, err, sizeof(err)) != CRAWL_OK)
        return;
    }
    (void)cstate_unblock(cs, ids[i]); /* a reader not woken times out */
  }
  cstate_close(cs);
}

void cl_stop_locked(cluster_t *c)
{
  c->stopping = true;
  pthread_cond_broadcast(&c->cond);
  pthread_cond_broadcast(&c->kcond);
  pthread_cond_broadcast(&c->ccond);
}

/* cl_fail: the crawl cannot go on in this worker: say why (first failure
 * wins) and stop the engine. No lock held. */
void cl_fail(cluster_t *c, int status, const char *fmt, ...)
{
  pthread_mutex_lock(&c->lock);
  bool first = c->failure == 0;
  if (first) {
    c->failure = status < 0 ? status : CRAWL_EREDIS;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof(c->err), fmt, ap);
    va_end(ap);
  }
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  if (first && c->e != NULL)
    engine_fail(c->e, CRAWL_ECLUSTER);
  if (first && status != CRAWL_EREDIS)
    cl_unblock(c, true);
}

/* ---- the pool of connections ---- */

/* cl_open_conn: a new connection to the crawl, acting for this worker;
 * while Redis cannot be reached (it restarts), tried again as rconn
 * does a command, for RCONN_RETRY_SECONDS. NULL (failed) after that,
 * or if the crawl is gone. */
cstate_t *cl_open_conn(cluster_t *c)
{
  double wait = 0.1, start = clock_now();
  char err[320];
  for (;;) {
    cstate_t *cs = NULL;
    int rc = cstate_open(c->url, c->name, &cs, err, sizeof(err));
    if (rc == CRAWL_OK &&
        strcmp(cstate_crawl_id(cs), cstate_crawl_id(c->kconn)) != 0) {
      /* A crawl of the name made since: this worker's pauses, counts
       * and robots.txt answers must not go into it. */
      cstate_close(cs);
      cl_fail(c, CRAWL_ELOST,
              "crawl %s is no longer in Redis: another crawl of that name "
              "was made (did Redis come back empty?)",
              c->name);
      return NULL;
    }
    if (rc == CRAWL_OK) {
      cstate_set_worker(cs, c->worker);
      return cs;
    }
    if (rc != CRAWL_EREDIS || clock_now() - start >= RCONN_RETRY_SECONDS) {
      cl_fail(c, rc == CRAWL_ENOENT ? CRAWL_ELOST : rc, "%s", err);
      return NULL;
    }
    struct timespec ts = { (time_t)wait,
                           (long)((wait - (double)(time_t)wait) * 1e9) };
    nanosleep(&ts, NULL);
    wait = wait * 2 > 5 ? 5 : wait * 2;
  }
}

cstate_t *cl_pool_get(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  cstate_t *cs = c->npool > 0 ? c->pool[--c->npool] : NULL;
  pthread_mutex_unlock(&c->lock);
  return cs != NULL ? cs : cl_open_conn(c);
}

void cl_pool_put(cluster_t *c, cstate_t *cs)
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

/* ---- the engine's source (cluster_source) ---- */

void cl_id_fp(const char *id, int part, uint64_t fp[2])
{
  char key[CSTATE_ID_SIZE + 16];
  int n = snprintf(key, sizeof(key), "%d/%s", part, id);
  fptable_hash128(key, (size_t)n, fp);
}

/* cl_mark_complete: the crawl is complete: let the engine end once nothing
 * is left here. */
void cl_mark_complete(cluster_t *c)
{
  pthread_mutex_lock(&c->lock);
  bool unhold = !c->unheld;
  c->complete = true;
  c->unheld = true;
  cl_stop_locked(c);
  pthread_mutex_unlock(&c->lock);
  if (unhold) {
    engine_unhold(c->e);
    cl_unblock(c, true);
  }
}

/* ---- the worker ---- */

int cluster_join(const cluster_config_t *cfg, cluster_t **out, bool *created,
                 char *err, size_t n)
{
  *out = NULL;
  cluster_t *c = calloc(1, sizeof(*c));
  if (c == NULL) {
    snprintf(err, n, "out of memory");
    return CRAWL_ENOMEM;
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
  pthread_cond_init(&c->kcond, &ca);
  pthread_cond_init(&c->ccond, &ca);
  pthread_cond_init(&c->pcond, &ca);
  pthread_condattr_destroy(&ca);
  c->taken = fptable_new(0, 256);
  c->acked = fptable_new(sizeof(uint64_t), 256);
  c->counts = hashtable_new(64);
  if (c->taken == NULL || c->acked == NULL || c->counts == NULL) {
    snprintf(err, n, "out of memory");
    cluster_delete(c);
    return CRAWL_ENOMEM;
  }
  cstate_fp(cfg->seed, &c->seed_b, &c->seed_m);
  int rc = cstate_join(cfg->url, cfg->name, cfg->params, cfg->nparams,
                       cfg->seed, cfg->seed_hostkey, &c->kconn, created, err,
                       n);
  if (rc != CRAWL_OK) {
    cluster_delete(c);
    return rc;
  }
  char host[128] = "?", info[192];
  gethostname(host, sizeof(host));
  host[sizeof(host) - 1] = '\0';
  snprintf(info, sizeof(info), "%s pid %ld", host, (long)getpid());
  rc = cstate_register(c->kconn, info, c->worker, sizeof(c->worker));
  if (rc == CRAWL_OK &&
      cstate_open(cfg->url, cfg->name, &c->cconn, err, n) != CRAWL_OK)
    rc = CRAWL_EREDIS;
  else if (rc == CRAWL_OK &&
           strcmp(cstate_crawl_id(c->cconn), cstate_crawl_id(c->kconn)) != 0) {
    snprintf(err, n,
             "crawl %s was made again as this worker joined (did "
             "Redis come back empty?)",
             cfg->name);
    rc = CRAWL_ELOST;
  } else if (rc != CRAWL_OK)
    snprintf(err, n, "%s", cstate_error(c->kconn));
  if (rc == CRAWL_OK) {
    cstate_set_worker(c->kconn, c->worker);
    cstate_set_worker(c->cconn, c->worker);
  }
  c->worker_no = strtoull(c->worker + 1, NULL, 10);
  /* The unpack keys from a random start: two workers can share a
   * number after a Redis lost its last second (cstate_register). */
  if (getrandom(&c->unpacks, sizeof(c->unpacks), 0) !=
      (ssize_t)sizeof(c->unpacks))
    c->unpacks = 0;
  uint64_t r;
  if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
    r = c->unpacks ^ UINT64_C(0x9e3779b97f4a7c15);
  atomic_init(&c->tmp_keys, r);
  if (rc == CRAWL_OK && c->worker_no >= (UINT64_C(1) << 21)) {
    snprintf(err, n, "too many workers have joined crawl '%s'", cfg->name);
    rc = CRAWL_EREDIS;
  }
  if (rc != CRAWL_OK) {
    cluster_delete(c);
    return rc;
  }
  *out = c;
  return CRAWL_OK;
}

void cluster_set_front(cluster_t *c, const cluster_front_t *front)
{
  c->front = *front;
}

long cluster_pages(cluster_t *c)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  cstate_commit_t st;
  int rc = cstate_commit_state(cs, &st);
  cl_pool_put(c, cs);
  return rc == CRAWL_OK ? st.pages : rc;
}

/* A worker's engine: its items come from the partitions it holds
 * (engine_inject), its adds go to Redis, and its results are committed
 * by whichever worker holds the commit: no speculation, window or spill
 * (their items and seqs are the shared crawl's), 80-bit fingerprints
 * (the shared seen set's), and buckets that start empty (a host's last
 * requests may have been another worker's). */
const engine_source_t cluster_source = {
  .fp80 = true,
  .start_empty = true,
  .add = cl_add,
  .seen = cl_seen,
  .admit = cl_admit,
  .gate_done = cl_gate_done,
  .publish = cl_publish,
  .commit_begin = cl_commit_begin,
  .committed = cl_committed,
  .release = cl_release,
};

int cluster_start(cluster_t *c, engine_t *e)
{
  c->e = e;
  engine_hold(e);
  if (pthread_create(&c->keeper, NULL, cl_keeper_main, c) != 0)
    return -1;
  if (pthread_create(&c->feeder, NULL, cl_feeder_main, c) != 0) {
    cl_fail(c, CRAWL_ENOMEM, "cannot start a thread");
    pthread_join(c->keeper, NULL);
    return -1;
  }
  if (pthread_create(&c->committer, NULL, cl_committer_main, c) != 0) {
    cl_fail(c, CRAWL_ENOMEM, "cannot start a thread");
    pthread_join(c->keeper, NULL);
    pthread_join(c->feeder, NULL);
    return -1;
  }
  if (pthread_create(&c->publisher, NULL, cl_publisher_main, c) != 0) {
    cl_fail(c, CRAWL_ENOMEM, "cannot start a thread");
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
  cl_stop_locked(c);
  bool unhold = !c->unheld;
  c->unheld = true;
  pthread_mutex_unlock(&c->lock);
  if (unhold && c->e != NULL)
    engine_unhold(c->e);
  if (c->started) {
    cl_unblock(c, true);
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
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_robots_get(cs, url, data, len);
  cl_pool_put(c, cs);
  return rc;
}

int cluster_robots_put(cluster_t *c, const char *url, const char *data,
                       size_t len)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_robots_put(cs, url, data, len);
  cl_pool_put(c, cs);
  return rc;
}

int cluster_pause(cluster_t *c, const char *hostkey, double seconds)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_pause(cs, hostkey, seconds);
  cl_pool_put(c, cs);
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
  if (n != NULL)
    (*n)++;
  pthread_mutex_unlock(&c->lock);
}

uint64_t cluster_tmp_key(cluster_t *c)
{
  uint64_t n = atomic_fetch_add(&c->tmp_keys, 1);
  return c->worker_no << SEQ_BITS | (n & ((UINT64_C(1) << SEQ_BITS) - 1));
}

int cluster_note_claim(cluster_t *c, const char *field, const char *value,
                       char *out, size_t n)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_note_claim(cs, field, value, out, n);
  cl_pool_put(c, cs);
  return rc;
}

int cluster_note_set(cluster_t *c, const char *field, const char *value)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_note_set(cs, field, value);
  cl_pool_put(c, cs);
  return rc;
}

int cluster_note_get(cluster_t *c, const char *field, char *out, size_t n)
{
  cstate_t *cs = cl_pool_get(c);
  if (cs == NULL)
    return CRAWL_EREDIS;
  int rc = cstate_note_get(cs, field, out, n);
  cl_pool_put(c, cs);
  return rc;
}

void cluster_delete(cluster_t *c)
{
  if (c == NULL)
    return;
  cl_adds_clear(c);
  free(c->adds);
  free(c->done);
  free(c->rents);
  for (struct pub *p = c->phead, *next; p != NULL; p = next) {
    next = p->next;
    free(p->t->chain);
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
  pthread_cond_destroy(&c->kcond);
  pthread_cond_destroy(&c->ccond);
  pthread_cond_destroy(&c->pcond);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

bool cluster_name_ok(const char *name)
{
  return cstate_name_ok(name);
}

bool cluster_url_ok(const char *url, char *err, size_t n)
{
  char host[256];
  int port, db;
  return rconn_parse_url(url, host, sizeof(host), &port, &db, err, n) == 0;
}

int cluster_status(const char *url, const char *name, FILE *fp, char *err,
                   size_t n)
{
  cstate_t *cs = NULL;
  int rc = cstate_open(url, name, &cs, err, n);
  if (rc != CRAWL_OK)
    return rc;
  rc = cstate_status(cs, fp);
  if (rc < 0)
    snprintf(err, n, "%s", cstate_error(cs));
  cstate_close(cs);
  return rc;
}

long cluster_round_trips(void)
{
  return rconn_round_trips();
}
