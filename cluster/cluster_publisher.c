/* cluster_publisher.c: the publisher thread (cluster.h): the results
 * the parse threads packed (cl_publish) go to Redis in batches, one
 * round trip each. */
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

int cl_publish(void *rctx, engine_t *e, fitem_t *it)
{
  cluster_t *c = rctx;
  struct ticket *t = it->ticket;
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
    cl_fail(c, CRAWL_ENOMEM, "out of memory packing the result of '%s'",
            it->url);
    return CRAWL_ECLUSTER;
  }
  /* The publisher sends it, with the others waiting, in one round trip;
   * the ticket (and so the item's place in flight) is its own now. Its
   * temporary files are the commit's from here (if it turns out fenced,
   * they wait for the crawl's end to be removed). */
  p->t = t;
  it->ticket = NULL;
  if (c->front.handed != NULL)
    c->front.handed(c->front.ctx, it);
  pthread_mutex_lock(&c->lock);
  /* The publisher wakes for the first and for a full batch; between
   * them it lets results gather (cl_publisher_main). */
  bool wake = c->phead == NULL || ++c->npub == RESULT_BATCH;
  if (c->phead == NULL)
    c->npub = 1;
  if (c->ptail)
    c->ptail->next = p;
  else
    c->phead = p;
  c->ptail = p;
  pthread_mutex_unlock(&c->lock);
  if (wake)
    pthread_cond_signal(&c->pcond);
  return 0;
}

const char *cluster_chain(const fitem_t *it)
{
  const struct ticket *t = it->ticket;
  return t != NULL && !t->delivered ? t->chain : NULL;
}

int cluster_hand(cluster_t *c, fitem_t *it, const char *url,
                 const char *hostkey, const char *chain)
{
  struct ticket *t = it->ticket;
  if (t == NULL || t->delivered)
    return 0;
  int to = cstate_part(hostkey);
  pthread_mutex_lock(&c->lock);
  bool mine = c->parts[to].held && !c->parts[to].giving;
  uint64_t tok = c->parts[t->part].held ? c->parts[t->part].token : 0;
  pthread_mutex_unlock(&c->lock);
  if (mine)
    return 0;
  it->ticket = NULL;
  int rc = CRAWL_EFENCED; /* not ours: whoever holds it fetches it */
  if (tok != 0) {
    cstate_item_t from = { .part = t->part, .seq = t->seq };
    memcpy(from.id, t->id, sizeof(from.id));
    cstate_item_t next = { .part = to,
                           .seq = t->seq,
                           .depth = it->depth,
                           .url = (char *)url,
                           .hostkey = (char *)hostkey,
                           .chain = (char *)chain };
    cstate_t *cs = cl_pool_get(c);
    rc = cs != NULL ? cstate_hand(cs, &from, tok, &next) : CRAWL_EREDIS;
    if (rc != CRAWL_OK && rc != CRAWL_EFENCED)
      cl_fail(c, rc, "handing '%s' over: %s", url,
              cs != NULL ? cstate_error(cs) : "no connection to Redis");
    if (cs != NULL)
      cl_pool_put(c, cs);
  }
  cl_ticket_done(c, t, rc == CRAWL_OK);
  return 1;
}

/* publish_batch: send the results of LIST (as many as RESULT_BATCH) in
 * one round trip, each under its partition's token now; a result fenced
 * while this worker holds the partition again, under a newer token (the
 * lease lapsed meanwhile, say while Redis restarted: the item is still
 * in its partition, and no other worker held it), goes back on *RETRY.
 * Returns 0, or -1 (failed). */
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
        cstate_result_queue(cs, &item, tok, p->data, p->len) == CRAWL_OK) {
      sent[n] = p;
      token[n++] = tok;
      continue;
    }
    if (tok != 0 && rc == 0) {
      cl_fail(c, CRAWL_ENOMEM, "%s", cstate_error(cs));
      rc = -1;
    }
    cl_ticket_done(c, p->t, false); /* not ours: whoever holds it does it */
    free(p->data);
    free(p);
  }
  int status[RESULT_BATCH];
  int got = n > 0 ? cstate_flush(cs, status) : 0;
  if (got < 0 || got != n) {
    cl_fail(c, got < 0 ? got : CRAWL_EREDIS, "publishing results: %s",
            cstate_error(cs));
    rc = -1;
  }
  for (int i = 0; i < n; i++) {
    struct pub *p = sent[i];
    int st = got == n ? status[i] : CRAWL_EREDIS;
    if (st == CRAWL_EFENCED && rc == 0) {
      pthread_mutex_lock(&c->lock);
      const struct part *pt = &c->parts[p->t->part];
      bool again = pt->held && pt->token != token[i];
      pthread_mutex_unlock(&c->lock);
      if (again) {
        p->next = *retry;
        *retry = p;
        continue;
      }
    } else if (st != CRAWL_OK && st != CRAWL_EFENCED && rc == 0) {
      cl_fail(c, st, "publishing results: %s", cstate_error(cs));
      rc = -1;
    }
    cl_ticket_done(c, p->t, st == CRAWL_OK);
    free(p->data);
    free(p);
  }
  return rc;
}

/* The publisher: sends the results the parse threads packed, those that
 * gathered in LINGER_MS after the first (up to a batch), in one round
 * trip and one script; when the worker stops, what is left first
 * (unless it failed). */
void *cl_publisher_main(void *arg)
{
  cluster_t *c = arg;
  cstate_t *cs = cl_open_conn(c);
  for (;;) {
    pthread_mutex_lock(&c->lock);
    while (c->phead == NULL && !c->pstop)
      pthread_cond_wait(&c->pcond, &c->lock);
    /* The first result waits a little (LINGER_MS) for others to go
     * with it, unless a batch fills: a round trip, a script call and a
     * wake-up a page otherwise. */
    if (c->phead != NULL && c->npub < RESULT_BATCH && !c->pstop) {
      struct timespec ts = cl_deadline(LINGER_MS / 1000.0);
      while (c->npub < RESULT_BATCH && !c->pstop &&
             pthread_cond_timedwait(&c->pcond, &c->lock, &ts) == 0)
        ;
    }
    /* Up to a batch, in the order they came. */
    struct pub *list = c->phead, *last = list;
    int taken = last != NULL;
    for (; last != NULL && last->next != NULL && taken < RESULT_BATCH; taken++)
      last = last->next;
    if (last != NULL) {
      c->phead = last->next;
      if (c->phead == NULL)
        c->ptail = NULL;
      last->next = NULL;
    }
    c->npub = c->phead == NULL ? 0 : c->npub - taken;
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
        cl_ticket_done(c, p->t, false);
        free(p->data);
        free(p);
      }
      retry = NULL;
    }
    if (retry != NULL) {
      pthread_mutex_lock(&c->lock);
      struct pub *r = retry;
      c->npub++;
      for (; r->next != NULL; r = r->next)
        c->npub++;
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
