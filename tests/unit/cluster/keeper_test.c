/* keeper_test.c: how an item dropped unfinished is read again, without
 * Redis: the drop (cl_ticket_done), the keeper's tick (cl_parts_refresh,
 * cl_part_kept) and the feeder's answer to a take (cl_feeder_took).
 *
 * A partition is read from the feeder's position on; an item of it
 * dropped here unfinished (refused by cl_admit while the plan gave the
 * partition away and then back, or while its time here was up) is still
 * in the partition, behind that position: only a take with RECOVER
 * reads it again. Without one soon the commit waited for the feeder's
 * periodic RECOVER, 5 s: a 2-worker crawl of the generated site took 6 s
 * instead of 0.9 in about one run of 25 (bench/RESULTS.md). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cluster.h"
#include "cluster_int.h"
#include "fptable.h"
#include "testhelp.h"

static cluster_t *new_cluster(void)
{
  cluster_t *c = calloc(1, sizeof(*c));
  CHECK(c != NULL);
  if (c == NULL)
    return NULL;
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  pthread_cond_init(&c->kcond, NULL);
  pthread_cond_init(&c->ccond, NULL);
  c->taken = fptable_new(0, 16);
  c->acked = fptable_new(sizeof(uint64_t), 16);
  return c;
}

static void free_cluster(cluster_t *c)
{
  fptable_delete(c->taken);
  fptable_delete(c->acked);
  pthread_cond_destroy(&c->cond);
  pthread_cond_destroy(&c->kcond);
  pthread_cond_destroy(&c->ccond);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

/* drop: an item of PART in flight here is dropped unfinished. */
static void drop(cluster_t *c, int part)
{
  struct ticket *t = calloc(1, sizeof(*t));
  CHECK(t != NULL);
  if (t == NULL)
    return;
  t->part = part;
  snprintf(t->id, sizeof(t->id), "1-%d", part);
  c->inflight++;
  cl_ticket_done(c, t, false);
}

/* Given away, an item refused, given back: the partition is read again
 * from its first entry up to the feeder's position (fresh), at the
 * keeper's tick. */
static void test_given_back_reads_again(void)
{
  cluster_t *c = new_cluster();
  if (c == NULL)
    return;
  double now = clock_now();
  c->parts[3] = (struct part){ .held = true,
                               .token = 7,
                               .until = now + 10,
                               .giving = true,
                               .giving_since = now };
  drop(c, 3);
  /* Marked at the tick; no wake-up while it is given away (the feeder
   * cannot take from it), one when it is back (feeder_test.c). */
  CHECK(!cl_parts_refresh(c));
  CHECK(c->parts[3].fresh);
  CHECK(cl_part_kept(c, 3, now + 20));
  CHECK(!c->parts[3].giving);
  CHECK(c->parts[3].fresh);
  /* Dropped again, held and taken from: marked, and a wake-up. */
  c->parts[3].fresh = false;
  drop(c, 3);
  CHECK(cl_parts_refresh(c));
  CHECK(c->parts[3].fresh);
  /* Nothing dropped since: nothing more to read again. */
  c->parts[3].fresh = false;
  CHECK(!cl_parts_refresh(c));
  CHECK(!c->parts[3].fresh);
  /* Renewed in time, held all along: not back. */
  c->parts[5] = (struct part){ .held = true, .token = 9, .until = now + 10 };
  CHECK(!cl_part_kept(c, 5, now + 20));
  /* A partition not held: its next holder reads it from the first entry
   * anyway. */
  drop(c, 6);
  CHECK(!cl_parts_refresh(c));
  CHECK(!c->parts[6].fresh);
  free_cluster(c);
}

/* A partition given away waits for its items being fetched 2 s at most
 * (its next holder fetches them again), for a robots.txt request among
 * them longer (its next holder would ask it again, and a host's
 * robots.txt is asked once), but not for ever: a robots.txt that drips
 * within --timeout (up to a day) held the partition, and every other
 * host of it, that long (review). */
static void test_give_waits(void)
{
  double t0 = 1000;
  struct part p = { .held = true, .giving = true, .giving_since = t0 };
  CHECK(!cl_give_waits(&p, t0)); /* nothing in flight: at once */
  p.busy = 2;
  CHECK(cl_give_waits(&p, t0 + GIVE_SECONDS - 0.1));
  CHECK(!cl_give_waits(&p, t0 + GIVE_SECONDS));
  p.gates = 1;
  CHECK(cl_give_waits(&p, t0 + GIVE_SECONDS + 1));
  CHECK(cl_give_waits(&p, t0 + GATE_GIVE_SECONDS - 0.1));
  CHECK(!cl_give_waits(&p, t0 + GATE_GIVE_SECONDS));
  CHECK(!cl_give_waits(&p, t0 + 86400));
}

/* Review: a take sent before a drop, answered after the keeper marked
 * the partition fresh again, must not clear the mark: what was dropped
 * is behind the position the take moved on. Only a take with RECOVER,
 * sent after the mark, clears it. */
static void test_took_keeps_a_later_mark(void)
{
  cluster_t *c = new_cluster();
  if (c == NULL)
    return;
  double now = clock_now();
  c->parts[3] = (struct part){
    .held = true, .fresh = true, .token = 7, .until = now + 10
  };
  cstate_hold_t h = { .part = 3, .token = 7 };
  snprintf(h.pos, sizeof(h.pos), "5-0");
  unsigned kept = c->parts[3].kept;
  drop(c, 3);
  CHECK(cl_parts_refresh(c));
  cl_feeder_took(c, &h, &kept, 1, true);
  CHECK(c->parts[3].fresh);
  CHECK(strcmp(c->parts[3].pos, "5-0") == 0);
  /* Without RECOVER: the mark stays. */
  kept = c->parts[3].kept;
  cl_feeder_took(c, &h, &kept, 1, false);
  CHECK(c->parts[3].fresh);
  /* With RECOVER, sent after the mark: cleared. */
  cl_feeder_took(c, &h, &kept, 1, true);
  CHECK(!c->parts[3].fresh);
  free_cluster(c);
}

int main(void)
{
  RUN(test_given_back_reads_again);
  RUN(test_took_keeps_a_later_mark);
  RUN(test_give_waits);
  return TEST_EXIT();
}
