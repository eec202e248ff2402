/* engine_spec.c: see engine.h (engine_speculate, engine_speculating):
 * the engine's speculation; what it shares with engine.c, the engine's
 * data among it, is in engine_int.h.
 *
 * Speculation: each speculative item has a struct spec (it->spec), found
 * by URL fingerprint in smap (an fptable) until it is adopted or dropped.
 * The bound of cfg.speculate records, and the budget, are
 * engine_speculate's to keep; each record is charged SPEC_COST while it
 * lives. Its item is queued in the frontier, or in a download thread, or
 * parked (fetched, waiting for adoption; the record owns it).
 * engine_spec_sweep() drops the records the commit went past (engine.h).
 * Adoption of a parked or queued item completes at once (a queued one is
 * promoted in the frontier); an item being fetched or given its
 * speculative parse is only marked (adopted, seq, depth), and
 * engine_spec_settle() completes it after that parse.
 * engine_add looks the URL up in smap after inserting it into seen, and
 * engine_speculate checks seen inside lock, so no URL is both queued for
 * real and speculated. */
#include "engine.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "engine_int.h"
#include "fptable.h"

/* A speculative item's record (guarded by engine.lock). */
struct spec {
  uint64_t fp[2]; /* fingerprint of the URL it was speculated as */
  fitem_t *it;    /* its item, wherever it is */
  bool parked;    /* fetched; the record owns the item */
  bool adopted;   /* adopted while being fetched: seq, depth are set */
  bool dead;      /* dropped while being fetched */
  uint64_t seq;
  int depth;
  int pdepth; /* the depth it was speculated at */
};

/* What a record costs the budget: itself and its table slot (the item is
 * the frontier's to charge while queued; parked, the page's owner). */
enum { SPEC_COST = sizeof(struct spec) + BUDGET_OVERHEAD + 64 };

size_t engine_speculating(engine_t *e)
{
  if (e->smap == NULL)
    return 0;
  pthread_mutex_lock(&e->lock);
  size_t n = fptable_count(e->smap);
  pthread_mutex_unlock(&e->lock);
  return n;
}

/* ---- speculation records (caller holds e->lock) ---- */

/* spec_free: free record S (out of smap already). */
static void spec_free(engine_t *e, struct spec *s)
{
  budget_give(e->cfg.budget, SPEC_COST);
  free(s);
}

static void make_ordinary(fitem_t *it, uint64_t seq, int depth)
{
  it->seq = seq;
  it->depth = depth;
  it->flags &= ~FITEM_SPEC;
  it->spec = NULL;
}

/* adopt: a commit added the URL of record S, just taken out of smap, as
 * SEQ at DEPTH. */
static void adopt(engine_t *e, struct spec *s, uint64_t seq, int depth)
{
  fitem_t *it = s->it;
  if (s->parked) {
    spec_free(e, s);
    make_ordinary(it, seq, depth);
    frontier_spec_return(e->frontier);
    engine_append_fetched(e, it);
  } else if (frontier_promote(e->frontier, it, seq, depth)) {
    spec_free(e, s);
  } else {
    /* Being fetched or parsed: engine_spec_settle() finishes the adoption. */
    s->adopted = true;
    s->seq = seq;
    s->depth = depth;
  }
}

/* unspeculate: the URL of record S, just taken out of smap, is claimed
 * otherwise; drop its item. Returns an item for the caller to
 * engine_drop() once unlocked. */
static fitem_t *unspeculate(engine_t *e, struct spec *s)
{
  fitem_t *it = s->it;
  if (s->parked) {
    frontier_spec_return(e->frontier);
  } else if (!frontier_withdraw(e->frontier, it)) {
    /* Being fetched or parsed: engine_spec_settle() drops it. */
    s->dead = true;
    return NULL;
  }
  spec_free(e, s);
  return it;
}

fitem_t *engine_spec_settle(engine_t *e, fitem_t *it)
{
  pthread_mutex_lock(&e->lock);
  struct spec *s = it->spec;
  bool dead = s->dead, adopted = s->adopted;
  if (adopted) {
    make_ordinary(it, s->seq, s->depth);
  } else if (!dead) {
    s->parked = true;
    s->it = it;
  }
  if (adopted || dead)
    spec_free(e, s);
  pthread_mutex_unlock(&e->lock);
  if (adopted || dead)
    frontier_spec_return(e->frontier);
  if (dead) {
    engine_drop(e, it);
    return NULL;
  }
  return adopted ? it : NULL;
}

int engine_speculate(engine_t *e, const char *url, int depth,
                     const char *hostkey)
{
  if (e->smap == NULL || atomic_load(&e->stopped))
    return 0;
  uint64_t fp[2];
  engine_fingerprint(e, url, fp);
  fitem_t *it = NULL;
  struct spec *s = NULL;
  int rc = 0;
  pthread_mutex_lock(&e->lock);
  if (fptable_count(e->smap) >= e->cfg.speculate ||
      budget_full(e->cfg.budget, 0.75) || fptable_find(e->smap, fp, NULL))
    goto out;
  pthread_mutex_lock(&e->seen_lock);
  bool seen = fptable_find(e->seen, fp, NULL);
  pthread_mutex_unlock(&e->seen_lock);
  if (seen || (it = fitem_new(url, depth)) == NULL ||
      (s = calloc(1, sizeof(*s))) == NULL)
    goto out;
  it->seq = FITEM_SPEC_SEQ + e->next_spec++;
  it->flags = FITEM_SPEC;
  it->spec = s;
  s->it = it;
  s->fp[0] = fp[0];
  s->fp[1] = fp[1];
  s->pdepth = depth;
  /* If the table cannot grow, the URL only goes unspeculated; so if the
   * frontier is full (-4). */
  if (fptable_insert(e->smap, fp, &s) != 1)
    goto out;
  if (frontier_requeue(e->frontier, it, hostkey, 0) != 0) {
    fptable_remove(e->smap, fp, NULL);
    goto out;
  }
  budget_force(e->cfg.budget, SPEC_COST);
  it = NULL;
  s = NULL;
  rc = 1;
out:
  pthread_mutex_unlock(&e->lock);
  free(s);
  fitem_delete(it);
  return rc;
}

bool engine_spec_claim(engine_t *e, const uint64_t fp[2], bool adopt_it,
                       uint64_t seq, int depth)
{
  if (e->smap == NULL)
    return false;
  fitem_t *gone = NULL;
  struct spec *s;
  pthread_mutex_lock(&e->lock);
  bool found = fptable_remove(e->smap, fp, &s);
  if (found) {
    if (adopt_it)
      adopt(e, s, seq, depth);
    else
      gone = unspeculate(e, s);
  }
  pthread_mutex_unlock(&e->lock);
  if (gone)
    engine_drop(e, gone);
  return found;
}

void engine_spec_requeue(engine_t *e, fitem_t *it, const char *new_url,
                         const char *hostkey, double not_before)
{
  pthread_mutex_lock(&e->lock);
  struct spec *s = it->spec;
  if (s->dead) {
    spec_free(e, s);
    pthread_mutex_unlock(&e->lock);
    frontier_spec_return(e->frontier);
    frontier_done(e->frontier, it);
    engine_drop(e, it);
    return;
  }
  if (new_url != NULL) {
    fitem_t *n = fitem_set_url(it, new_url);
    if (n == NULL) {
      pthread_mutex_unlock(&e->lock);
      engine_push_fetched(e, it); /* goes on as a failed fetch */
      return;
    }
    it = n;
  }
  frontier_spec_return(e->frontier); /* back in the frontier, not out */
  if (s->adopted) {
    make_ordinary(it, s->seq, s->depth);
    spec_free(e, s);
    if (frontier_requeue(e->frontier, it, hostkey, not_before) != 0) {
      frontier_done(e->frontier, it);
      engine_append_fetched(e, it); /* stopping: on to parse as it is */
    }
    pthread_mutex_unlock(&e->lock);
    return;
  }
  s->it = it;
  bool queued = frontier_requeue(e->frontier, it, hostkey, not_before) == 0;
  if (!queued) {
    fptable_remove(e->smap, s->fp, NULL);
    spec_free(e, s);
  }
  pthread_mutex_unlock(&e->lock);
  if (!queued) {
    frontier_done(e->frontier, it);
    engine_drop(e, it);
  }
}

/* struct sweep: the records engine_spec_sweep() drops. */
struct sweep {
  int depth;
  struct spec **v;
  size_t n, cap;
  bool nomem;
};

static void sweep_one(void *arg, const uint64_t fp[2], const void *value)
{
  struct sweep *w = arg;
  struct spec *s;
  (void)fp;
  memcpy(&s, value, sizeof(s));
  if (s->pdepth > w->depth)
    return;
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    struct spec **v = realloc(w->v, cap * sizeof(*v));
    if (v == NULL) {
      w->nomem = true; /* they stay, and go at the end of the crawl */
      return;
    }
    w->v = v;
    w->cap = cap;
  }
  w->v[w->n++] = s;
}

fitem_t *engine_spec_sweep(engine_t *e, int depth)
{
  struct sweep w = { .depth = depth };
  fptable_iterate(e->smap, &w, sweep_one);
  fitem_t *gone = NULL;
  for (size_t i = 0; i < w.n; i++) {
    struct spec *s = w.v[i];
    fptable_remove(e->smap, s->fp, NULL);
    fitem_t *it = unspeculate(e, s);
    if (it != NULL) {
      it->next = gone;
      gone = it;
    }
  }
  free(w.v);
  return gone;
}

/* free_spec: engine_delete's end of record VALUE (a struct spec *). */
static void free_spec(void *arg, const uint64_t fp[2], const void *value)
{
  engine_t *e = arg;
  struct spec *s;
  (void)fp;
  memcpy(&s, value, sizeof(s));
  if (s->parked)
    engine_drop(e, s->it);
  spec_free(e, s);
}

void engine_spec_drop_all(engine_t *e)
{
  if (e->smap != NULL)
    fptable_iterate(e->smap, e, free_spec);
}
