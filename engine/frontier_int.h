/* frontier_int.h: what frontier.c and frontier_host.c share (internal to
 * the frontier; frontier.h is its contract). The layout of the data and
 * its lock are described atop frontier.c. Every function here: caller
 * holds f->lock. */
#ifndef CRAWLER_ENGINE_FRONTIER_INT_H
#define CRAWLER_ENGINE_FRONTIER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diskq.h"
#include "fptable.h"
#include "frontier.h"
#include "heap.h"

enum { NOWHERE, READY, WAITING };
/* The spill's write buffer, and the most items a pop brings back at once. */
enum { SPILL_BUF = 64 * 1024, SPILL_BATCH = 1024 };
enum { GATE_OPEN, GATE_NEEDED, GATE_INFLIGHT };

struct host {
  char *key;
  uint32_t id;            /* index in f->host */
  fitem_t *head, *tail;   /* ordinary items, in seq order */
  fitem_t *shead, *stail; /* speculative items, in seq order */
  double tokens;          /* bucket level at time `last` */
  double last;
  double last_take;   /* when the last token was taken; < 0: never */
  double pause_until; /* Retry-After and gate retries */
  double interval;    /* Crawl-delay; 0 if none */
  double due;         /* when the host may be fetched next */
  double born;        /* when it was first named */
  int gate;
  int where;   /* NOWHERE, READY or WAITING */
  size_t hpos; /* index in the heap named by `where`; the heap
                  writes it */
};

struct frontier {
  pthread_mutex_t lock;
  pthread_cond_t work, notfull;
  frontier_config_t cfg;
  struct host **host; /* host[id] */
  size_t nhosts, cap_hosts;
  fptable_t *map;          /* host key fingerprint -> id (uint32_t) */
  heap_t *ready, *waiting; /* hosts, positions in hpos */
  heap_t *delayed;         /* items */
  size_t count;            /* ordinary items queued or delayed */
  size_t nspec;            /* speculative items queued or delayed */
  size_t spec_out;         /* speculative items handed out, not returned */
  size_t slots;            /* items holding FITEM_SLOT */
  size_t gates_out;        /* gate items handed out, not done */
  diskq_t *spill;          /* pushes over the budget; NULL = no spill */
  int error;               /* errno of a spill that failed; 0 = none */
  int push_waiters;        /* frontier_push calls waiting for capacity */
  uint64_t horizon;        /* only seqs below it are handed out */
  double timer;            /* the earliest deadline a waiter in
                              frontier_pop sleeps until; INFINITY if none */
  bool closed;
};

/* frontier_first: H's first item: its ordinary queue's head, else its
 * speculative queue's; NULL if both are empty. */
static inline fitem_t *frontier_first(const struct host *h)
{
  return h->head ? h->head : h->shead;
}

/* frontier_work, frontier_work_all: signal (broadcast) `work`: an item
 * may be due earlier, or the frontier closed; and tell the config's wake
 * (frontier.h), for a caller that does not wait on `work`. */
static inline void frontier_work(frontier_t *f)
{
  pthread_cond_signal(&f->work);
  if (f->cfg.wake != NULL)
    f->cfg.wake(f->cfg.wake_arg);
}

static inline void frontier_work_all(frontier_t *f)
{
  pthread_cond_broadcast(&f->work);
  if (f->cfg.wake != NULL)
    f->cfg.wake(f->cfg.wake_arg);
}

/* frontier_host_rate, frontier_host_burst: H's pace (--rate, or its
 * Crawl-delay's if slower) and bucket size. */
double frontier_host_rate(const frontier_t *f, const struct host *h);
double frontier_host_burst(const frontier_t *f, const struct host *h);

/* frontier_refill: bring H's bucket up to time NOW. */
void frontier_refill(const frontier_t *f, struct host *h, double now);

/* frontier_schedule: put H in the heap its state calls for. */
void frontier_schedule(frontier_t *f, struct host *h, double now);

/* frontier_host_get: the host for KEY (borrowed), created if new.
 * Returns NULL if out of memory. */
struct host *frontier_host_get(frontier_t *f, const char *key, double now);

#endif
