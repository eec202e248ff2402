/* xfer.c: see xfer.h.
 *
 * One thread owns everything here but `asleep`, which xfer_wake reads
 * from any thread (an atomic). A slot is one transfer: a fetcher (its
 * easy handle), the engine's job and the request hooks.begin left; slots
 * are kept on a free list once made, so a crawl makes as many as
 * transfers were ever in flight at once.
 *
 * libcurl is driven by its sockets (curl_multi_socket_action): it says
 * which sockets to watch (on_socket) and when its timer falls due
 * (on_timer); the loop waits in epoll_wait for those, its own deadlines
 * and due items, and wakes, so that each wake costs the sockets ready,
 * not every transfer in flight (curl_multi_perform and curl_multi_poll
 * walk them all: at 10,000 hosts answering in 1 s, 413 us of CPU a
 * request against 318 over epoll; bench/RESULTS.md).
 *
 * No lost wake-up: the loop sets `asleep` before it asks the engine for
 * due items; a wake that comes after the engine looked (the frontier's
 * lock orders the two) finds it set and writes to the eventfd, which
 * ends the next epoll_wait at once. A wake while the loop is busy finds
 * it clear and costs nothing. */
#include "xfer.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "budget.h"
#include "clock.h"
#include "crawl.h"
#include "frontier.h"

/* The most idle connections kept (see xfer_new); the most ready sockets
 * taken from one epoll_wait. */
enum { IDLE_MAX = 256, EVENTS_MAX = 256 };

struct slot {
  fetcher_t *f;
  engine_job_t job;
  struct slot *next;          /* the free list */
  struct slot *older, *newer; /* in flight, by start */
  bool paused;                /* waits for room */
  double deadline;  /* monotonic: cfg.timeout after the start, plus ... */
  double paused_at; /* ... the time paused (since this, when paused) */
  alignas(max_align_t) unsigned char req[]; /* cfg.req_size bytes */
};

struct xfer {
  xfer_config_t cfg;
  fetch_config_t fcfg; /* cfg.fcfg, with our on_pause */
  CURLM *multi;
  struct slot *free;            /* slots not in flight */
  struct slot *oldest, *newest; /* in flight */
  int active;                   /* transfers in flight */
  int paused;                   /* of them paused for room */
  struct slot *forced;          /* the one over the budget (resume) */
  size_t least;                 /* no paused one wants fewer bytes */
  double next_expiry;           /* monotonic: look for timeouts then */
  double timer;                 /* monotonic: libcurl's (on_timer) */
  int ep;                       /* epoll: libcurl's sockets, wake_fd */
  int wake_fd;                  /* eventfd: xfer_wake */
  atomic_bool asleep;
};

/* on_socket: libcurl's CURLMOPT_SOCKETFUNCTION: watch FD for WHAT, or no
 * more (CURL_POLL_REMOVE). SOCKP is non-NULL once FD is watched
 * (curl_multi_assign). */
static int on_socket(CURL *c, curl_socket_t fd, int what, void *arg,
                     void *sockp)
{
  xfer_t *x = arg;
  (void)c;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(x->ep, EPOLL_CTL_DEL, fd, NULL); /* gone if closed */
    curl_multi_assign(x->multi, fd, NULL);
    return 0;
  }
  struct epoll_event ev = { .events = 0, .data.fd = fd };
  if (what & CURL_POLL_IN)
    ev.events |= EPOLLIN;
  if (what & CURL_POLL_OUT)
    ev.events |= EPOLLOUT;
  int op = sockp != NULL ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(x->ep, op, fd, &ev) != 0) {
    /* A descriptor closed and made again, unknown to one of us. */
    op = errno == EEXIST ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(x->ep, op, fd, &ev) != 0)
      return -1;
  }
  curl_multi_assign(x->multi, fd, x);
  return 0;
}

/* on_timer: libcurl's CURLMOPT_TIMERFUNCTION: act on its timer in MS
 * milliseconds (-1: no timer). */
static int on_timer(CURLM *m, long ms, void *arg)
{
  xfer_t *x = arg;
  (void)m;
  x->timer = ms < 0 ? INFINITY : clock_now() + (double)ms / 1000.0;
  return 0;
}

/* on_pause: F's transfer paused for room in the budget (fetch.h). */
static void on_pause(void *arg, fetcher_t *f)
{
  xfer_t *x = arg;
  struct slot *s = NULL;
  curl_easy_getinfo(fetcher_handle(f), CURLINFO_PRIVATE, (char **)&s);
  s->paused = true;
  s->paused_at = clock_now();
  x->paused++;
  if (fetcher_wants(f) < x->least)
    x->least = fetcher_wants(f);
}

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
  x->timer = INFINITY;
  x->ep = epoll_create1(EPOLL_CLOEXEC);
  x->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = x->wake_fd };
  if (x->ep < 0 || x->wake_fd < 0 ||
      epoll_ctl(x->ep, EPOLL_CTL_ADD, x->wake_fd, &ev) != 0) {
    xfer_delete(x);
    return NULL;
  }
  curl_multi_setopt(x->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
  curl_multi_setopt(x->multi, CURLMOPT_SOCKETDATA, x);
  curl_multi_setopt(x->multi, CURLMOPT_TIMERFUNCTION, on_timer);
  curl_multi_setopt(x->multi, CURLMOPT_TIMERDATA, x);
  x->fcfg = *cfg->fcfg;
  x->fcfg.on_pause = on_pause;
  x->fcfg.pause_arg = x;
  x->least = SIZE_MAX;
  x->next_expiry = INFINITY;
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
  uint64_t one = 1;
  if (atomic_exchange(&x->asleep, false) &&
      write(x->wake_fd, &one, sizeof(one)) < 0) {
    /* The counter is full (EAGAIN): a wake is pending anyway. */
  }
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
  if (s != NULL && (s->f = fetcher_new(&x->fcfg)) == NULL) {
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
  s->deadline = clock_now() + (double)x->fcfg.timeout;
  if (s->deadline < x->next_expiry)
    x->next_expiry = s->deadline;
  s->older = x->newest;
  s->newer = NULL;
  *(x->newest != NULL ? &x->newest->newer : &x->oldest) = s;
  x->newest = s;
  fetcher_may_pause(s->f, true);
}

/* unpause: S, paused, goes on (it may pause again at once). Returns
 * fetcher_resume's code: not 0, S is to be finished with it (libcurl
 * returned before it watched S's socket or timer again). */
static int unpause(xfer_t *x, struct slot *s)
{
  s->paused = false;
  x->paused--;
  s->deadline += clock_now() - s->paused_at;
  if (s->deadline < x->next_expiry)
    x->next_expiry = s->deadline;
  return fetcher_resume(s->f);
}

/* unlink: S out of the transfers in flight. */
static void unlink_slot(xfer_t *x, struct slot *s)
{
  if (s->paused) {
    s->paused = false;
    x->paused--;
  }
  if (s == x->forced)
    x->forced = NULL;
  *(s->older != NULL ? &s->older->newer : &x->oldest) = s->newer;
  *(s->newer != NULL ? &s->newer->older : &x->newest) = s->older;
}

/* resume: resume the paused transfers whose bytes fit in the budget now,
 * oldest first; a give after this calls xfer_wake (budget_want). When
 * none fits and no fetched body waits for a parser to give room back
 * (the budget held by what waits for the commit, say), or a push of E's
 * waits for a slot that transfers in flight hold (the parsers may all
 * wait there), the oldest paused goes on over the limit, one such at a
 * time: so a crawl always moves. Returns how many. */
static void finish(xfer_t *x, engine_t *e, struct slot *s, int rc, long ms);

static int resume(xfer_t *x, engine_t *e)
{
  size_t room = budget_want(x->fcfg.budget);
  int n = 0;
  bool fit = room >= x->least; /* else none fits */
  if (fit)
    x->least = SIZE_MAX; /* lowered again by the ones left, and on_pause */
  for (struct slot *s = fit ? x->oldest : NULL, *next; s != NULL; s = next) {
    next = s->newer;
    size_t want = s->paused ? fetcher_wants(s->f) : 0;
    if (want > room && want < x->least)
      x->least = want;
    if (!s->paused || want > room)
      continue;
    room -= want;
    int rc = unpause(x, s);
    if (rc != 0)
      finish(x, e, s, rc, 0);
    n++;
  }
  if (n == 0 && x->forced == NULL &&
      (budget_landed(x->fcfg.budget) == 0 ||
       frontier_push_waiting(engine_frontier(e)))) {
    struct slot *s = x->oldest;
    while (!s->paused)
      s = s->newer;
    x->forced = s;
    fetcher_may_pause(s->f, false);
    int rc = unpause(x, s);
    if (rc != 0)
      finish(x, e, s, rc, 0);
    n++;
  }
  return n;
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

/* finish: S's transfer, ended with libcurl's RC, or by its deadline
 * after MS milliseconds not paused (RC -1), out of the multi handle,
 * read, ended and handed to E. */
static void finish(xfer_t *x, engine_t *e, struct slot *s, int rc, long ms)
{
  curl_multi_remove_handle(x->multi, fetcher_handle(s->f));
  unlink_slot(x, s);
  x->active--;
  if (rc < 0)
    fetcher_finish_timeout(s->f, ms);
  else
    fetcher_finish(s->f, rc);
  engine_job_t job = s->job;
  engine_fetched_t what = x->cfg.hooks->end(x->cfg.ctx, e, job.it, s->req);
  slot_put(x, s);
  engine_sink(e, &job, what);
}

/* reap: end every transfer done. Returns how many. */
static int reap(xfer_t *x, engine_t *e)
{
  int n = 0, left;
  CURLMsg *m;
  while ((m = curl_multi_info_read(x->multi, &left)) != NULL) {
    if (m->msg != CURLMSG_DONE)
      continue;
    CURLcode rc = m->data.result; /* before the removal frees M */
    struct slot *s = NULL;
    curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
    finish(x, e, s, (int)rc, 0);
    n++;
  }
  return n;
}

/* expire: end every transfer past its deadline. Returns how many. */
static int expire(xfer_t *x, engine_t *e)
{
  int n = 0;
  double now = clock_now();
  if (now < x->next_expiry)
    return n;
  x->next_expiry = INFINITY; /* the earliest deadline left */
  for (struct slot *s = x->oldest, *next; s != NULL; s = next) {
    next = s->newer;
    if (s->paused)
      continue;
    if (now >= s->deadline) {
      finish(x, e, s, -1,
             (long)((now - s->deadline) * 1000.0) + x->fcfg.timeout * 1000);
      n++;
    } else if (s->deadline < x->next_expiry) {
      x->next_expiry = s->deadline;
    }
  }
  return n;
}

/* wait_ms: how long the loop may sleep: until libcurl's next timer, the
 * first transfer's deadline (expire) or, with room for another transfer,
 * the next item's DUE time; INT_MAX if none (only a socket or a wake ends
 * the sleep). */
static int wait_ms(xfer_t *x, bool room, double due)
{
  double now = clock_now(), ms = INFINITY;
  if (!isinf(x->timer)) /* libcurl's; 0 if due now */
    ms = x->timer <= now ? 0 : (x->timer - now) * 1000.0 + 1.0;
  if (!isinf(x->next_expiry)) { /* expire's */
    double d = (x->next_expiry - now) * 1000.0 + 1.0;
    if (d < ms)
      ms = d < 1 ? 1 : d;
  }
  if (room && !isinf(due)) {
    /* At least 1 ms: an item due now but not handed out (a clock
     * rounding) must not turn the loop into a spin. */
    double d = (due - clock_now()) * 1000.0 + 1.0; /* rounded up */
    if (d < ms)
      ms = d < 1 ? 1 : d;
  }
  return isinf(ms) || ms > INT_MAX ? INT_MAX : (int)ms;
}

/* run_timer: let libcurl act on its timer, if due. */
static void run_timer(xfer_t *x)
{
  int running;
  if (clock_now() >= x->timer) {
    x->timer = INFINITY; /* on_timer sets the next */
    curl_multi_socket_action(x->multi, CURL_SOCKET_TIMEOUT, 0, &running);
  }
}

/* wait_events: sleep in epoll_wait for at most MS milliseconds, then let
 * libcurl act on each socket ready. */
static void wait_events(xfer_t *x, int ms)
{
  struct epoll_event ev[EVENTS_MAX];
  int n = epoll_wait(x->ep, ev, EVENTS_MAX, ms), running;
  for (int i = 0; i < n; i++) {
    int fd = ev[i].data.fd;
    if (fd == x->wake_fd) {
      uint64_t v;
      if (read(fd, &v, sizeof(v)) < 0) {
        /* EAGAIN: read already */
      }
      continue;
    }
    int mask = 0;
    if (ev[i].events & (EPOLLIN | EPOLLHUP))
      mask |= CURL_CSELECT_IN;
    if (ev[i].events & EPOLLOUT)
      mask |= CURL_CSELECT_OUT;
    if (ev[i].events & EPOLLERR)
      mask |= CURL_CSELECT_ERR;
    curl_multi_socket_action(x->multi, fd, mask, &running);
  }
}

void xfer_run(void *arg, engine_t *e)
{
  xfer_t *x = arg;
  bool closed = false;
  for (;;) {
    double due = INFINITY;
    atomic_store(&x->asleep, true);
    /* None starts while one waits for room in the budget: it would
     * only wait too. */
    if (!closed && x->paused == 0 && start_due(x, e, &due) == ENGINE_CLOSED)
      closed = true;
    if (closed && x->active == 0)
      break;
    /* Deadlines first: libcurl's low-speed limit, at the same time,
     * would end the transfer in other words than its own timeout. */
    int ended = expire(x, e);
    run_timer(x);
    if (reap(x, e) + ended > 0)
      continue; /* room again: look for due items first */
    if (x->paused > 0 && resume(x, e) > 0)
      continue;
    bool room = !closed && x->active < x->cfg.max_transfers && x->paused == 0;
    wait_events(x, wait_ms(x, room, due));
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
  if (x->ep >= 0)
    close(x->ep);
  if (x->wake_fd >= 0)
    close(x->wake_fd);
  free(x);
}
