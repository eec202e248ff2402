/* xfer.c: see xfer.h.
 *
 * One thread owns everything here but `asleep`, which xfer_wake reads
 * from any thread (an atomic). A slot is one transfer: a fetcher (its
 * easy handle), the engine's job and the request hooks.begin left; slots
 * are kept on a free list once made, so a crawl makes as many as
 * transfers were ever in flight at once.
 *
 * No lost wake-up: the loop sets `asleep` before it asks the engine for
 * due items; a wake that comes after the engine looked (the frontier's
 * lock orders the two) finds it set and writes to libcurl's wake-up
 * socket, which ends the next curl_multi_poll at once. A wake while the
 * loop is busy finds it clear and costs nothing. */
#include "xfer.h"

#include <curl/curl.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "clock.h"
#include "crawl.h"

/* The most idle connections kept (see xfer_new). */
enum { IDLE_MAX = 256 };

struct slot {
  fetcher_t *f;
  engine_job_t job;
  struct slot *next;                        /* the free list */
  alignas(max_align_t) unsigned char req[]; /* cfg.req_size bytes */
};

struct xfer {
  xfer_config_t cfg;
  CURLM *multi;
  struct slot *free; /* slots not in flight */
  int active;        /* transfers in flight */
  atomic_bool asleep;
};

xfer_t *xfer_new(const xfer_config_t *cfg)
{
  xfer_t *x = calloc(1, sizeof(*x));
  if (x == NULL)
    return NULL;
  x->cfg = *cfg;
  x->multi = curl_multi_init();
  if (x->multi == NULL) {
    free(x);
    return NULL;
  }
  atomic_init(&x->asleep, false);
  /* Connections: every transfer one at most, and max_connects (at least
   * max_transfers) open in all, of them at most IDLE_MAX idle, kept for
   * reuse. Capped at the transfers, libcurl closed an idle connection to
   * one host each time a transfer went to another (8 hosts at --rate 0:
   * 762 connects for 8,356 requests, 304 uncapped). Many idle ones hold
   * a server's connection slots: 1,200 host names on one server that
   * takes 1,020 (events_vhosts.sh) lost 180 hosts with 1,200 kept. No
   * per-host cap: politeness is the frontier's (a host gets only what
   * its bucket allows), and a transfer libcurl held back for a
   * connection would run its timeout meanwhile. */
  long idle = cfg->max_connects < IDLE_MAX ? cfg->max_connects : IDLE_MAX;
  curl_multi_setopt(x->multi, CURLMOPT_MAXCONNECTS, idle);
  curl_multi_setopt(x->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                    cfg->max_connects);
  return x;
}

void xfer_wake(void *arg)
{
  xfer_t *x = arg;
  if (atomic_exchange(&x->asleep, false))
    curl_multi_wakeup(x->multi);
}

/* slot_get: a free slot, or a new one; NULL if out of memory. */
static struct slot *slot_get(xfer_t *x)
{
  struct slot *s = x->free;
  if (s != NULL) {
    x->free = s->next;
    return s;
  }
  s = calloc(1, sizeof(*s) + x->cfg.req_size);
  if (s != NULL && (s->f = fetcher_new(x->cfg.fcfg)) == NULL) {
    free(s);
    s = NULL;
  }
  return s;
}

static void slot_put(xfer_t *x, struct slot *s)
{
  s->next = x->free;
  x->free = s;
}

/* start_transfer: JOB, taken from E: begun, and its transfer added to the multi
 * handle; or handled at once (hooks.begin found no request to make, or no
 * fetcher could be made). */
static void start_transfer(xfer_t *x, engine_t *e, const engine_job_t *job)
{
  const xfer_hooks_t *h = x->cfg.hooks;
  struct slot *s = slot_get(x);
  if (s == NULL) {
    engine_sink(e, job, h->no_client(x->cfg.ctx, e, job->it));
    return;
  }
  s->job = *job;
  engine_fetched_t done;
  if (!h->begin(x->cfg.ctx, e, job->it, s->f, s->req, &done)) {
    slot_put(x, s);
    engine_sink(e, job, done);
    return;
  }
  CURL *c = fetcher_handle(s->f);
  curl_easy_setopt(c, CURLOPT_PRIVATE, (void *)s);
  if (curl_multi_add_handle(x->multi, c) != CURLM_OK) {
    fetcher_finish(s->f, CURLE_OUT_OF_MEMORY);
    engine_fetched_t what = h->end(x->cfg.ctx, e, job->it, s->req);
    slot_put(x, s);
    engine_sink(e, job, what);
    return;
  }
  x->active++;
}

/* start_due: start due items while there is room. Returns ENGINE_ITEM
 * (no room left), ENGINE_WAIT (*DUE: when the next may be due) or
 * ENGINE_CLOSED. */
static int start_due(xfer_t *x, engine_t *e, double *due)
{
  *due = INFINITY;
  while (x->active < x->cfg.max_transfers) {
    engine_job_t job;
    int rc = engine_next(e, &job, due);
    if (rc != ENGINE_ITEM)
      return rc;
    start_transfer(x, e, &job);
  }
  return ENGINE_ITEM;
}

/* reap: end every transfer done. Returns how many. */
static int reap(xfer_t *x, engine_t *e)
{
  int n = 0, left;
  CURLMsg *m;
  while ((m = curl_multi_info_read(x->multi, &left)) != NULL) {
    if (m->msg != CURLMSG_DONE)
      continue;
    CURL *c = m->easy_handle;
    CURLcode rc = m->data.result; /* before the removal frees M */
    struct slot *s = NULL;
    curl_easy_getinfo(c, CURLINFO_PRIVATE, (char **)&s);
    curl_multi_remove_handle(x->multi, c);
    x->active--;
    n++;
    fetcher_finish(s->f, (int)rc);
    engine_job_t job = s->job;
    engine_fetched_t what = x->cfg.hooks->end(x->cfg.ctx, e, job.it, s->req);
    slot_put(x, s);
    engine_sink(e, &job, what);
  }
  return n;
}

/* wait_ms: how long the loop may sleep: until libcurl's next timer, or,
 * with room for another transfer, the next item's DUE time; INT_MAX if
 * neither (only a socket or a wake ends the sleep). */
static int wait_ms(xfer_t *x, bool room, double due)
{
  long t = -1;
  curl_multi_timeout(x->multi, &t);
  double ms = t >= 0 ? (double)t : INFINITY;
  if (room && !isinf(due)) {
    /* At least 1 ms: an item due now but not handed out (a clock
     * rounding) must not turn the loop into a spin. */
    double d = (due - clock_now()) * 1000.0 + 1.0; /* rounded up */
    if (d < ms)
      ms = d < 1 ? 1 : d;
  }
  return isinf(ms) || ms > INT_MAX ? INT_MAX : (int)ms;
}

void xfer_run(void *arg, engine_t *e)
{
  xfer_t *x = arg;
  bool closed = false;
  for (;;) {
    double due = INFINITY;
    atomic_store(&x->asleep, true);
    if (!closed && start_due(x, e, &due) == ENGINE_CLOSED)
      closed = true;
    if (closed && x->active == 0)
      break;
    int running;
    curl_multi_perform(x->multi, &running);
    if (reap(x, e) > 0)
      continue; /* room again: look for due items first */
    bool room = !closed && x->active < x->cfg.max_transfers;
    curl_multi_poll(x->multi, NULL, 0, wait_ms(x, room, due), NULL);
  }
  atomic_store(&x->asleep, false);
}

void xfer_delete(xfer_t *x)
{
  if (x == NULL)
    return;
  struct slot *s = x->free;
  while (s != NULL) {
    struct slot *next = s->next;
    fetcher_delete(s->f);
    free(s);
    s = next;
  }
  curl_multi_cleanup(x->multi);
  free(x);
}
