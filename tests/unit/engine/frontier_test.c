/* frontier_test.c: the frontier's ordering, token buckets, gates and
 * horizon, without HTTP. Timing checks use generous bounds. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "clock.h"
#include "frontier.h"
#include "testhelp.h"

static frontier_t *make(double rate, double burst, bool gate)
{
  frontier_config_t cfg = { .rate = rate, .burst = burst, .gate = gate };
  return frontier_new(&cfg);
}

/* queued: frontier_stats's count of ordinary items. */
static size_t queued(frontier_t *f)
{
  frontier_stats_t st;
  frontier_stats(f, 0, &st);
  return st.queued;
}

/* count_drop: frontier_delete's drop, counting into *ARG. */
static void count_drop(void *arg, fitem_t *it)
{
  ++*(int *)arg;
  fitem_delete(it);
}

static void push(frontier_t *f, const char *url, uint64_t seq, const char *host)
{
  fitem_t *it = fitem_new(url, 0);
  it->seq = seq;
  CHECK_INT(frontier_push(f, it, host), 0);
}

static void test_discovery_order_across_hosts(void)
{
  frontier_t *f = make(0, 1, false);
  push(f, "a0", 0, "A");
  push(f, "b1", 1, "B");
  push(f, "a2", 2, "A");
  push(f, "c3", 3, "C");
  push(f, "b4", 4, "B");
  for (uint64_t want = 0; want < 5; want++) {
    fitem_t *it = frontier_pop(f);
    CHECK(it != NULL && it->seq == want);
    fitem_delete(it);
  }
  CHECK_INT(queued(f), 0);
  frontier_delete(f);
}

static double now(void)
{
  return clock_now();
}

static void test_token_bucket_paces_a_host(void)
{
  /* 10/s, burst 2: 5 pops from one host need at least 0.3 s (2 at once,
   * then one every 0.1 s); a second host is not slowed by the first. */
  frontier_t *f = make(10, 2, false);
  for (int i = 0; i < 5; i++)
    push(f, "a", (uint64_t)i, "A");
  double t0 = now();
  for (int i = 0; i < 5; i++)
    fitem_delete(frontier_pop(f));
  double took = now() - t0;
  CHECK(took >= 0.29);
  CHECK(took < 2.0);
  push(f, "b", 5, "B");
  t0 = now();
  fitem_delete(frontier_pop(f));
  CHECK(now() - t0 < 0.05);
  frontier_delete(f);
}

/* count_wake: the config's wake, counting into *ARG. */
static void count_wake(void *arg)
{
  atomic_fetch_add((atomic_int *)arg, 1);
}

static void test_wake_only_when_earlier(void)
{
  /* The config's wake ends an event loop's sleep (engine.h, cfg.wake):
   * each costs the loop a round (curl_multi_perform over every transfer
   * in flight), so it comes when an item may be due earlier, not for
   * every push. A's first item is taken and its next token is 10 s off:
   * 100 more of A's URLs queued behind the one waiting change nothing a
   * sleeper was told; B's first URL (a host with nothing queued) and an
   * earlier seq at A's head do. */
  atomic_int wakes;
  atomic_init(&wakes, 0);
  frontier_config_t cfg = {
    .rate = 0.1, .burst = 1, .wake = count_wake, .wake_arg = &wakes
  };
  frontier_t *f = frontier_new(&cfg);
  push(f, "a0", 0, "A");
  fitem_t *it;
  double due;
  CHECK_INT(frontier_try_pop(f, &it, &due), 1);
  fitem_delete(it);
  push(f, "a1", 2, "A");
  CHECK_INT(frontier_try_pop(f, &it, &due), 0);
  CHECK(due > now() + 5);
  int before = atomic_load(&wakes);
  for (int i = 0; i < 100; i++)
    push(f, "a", (uint64_t)(10 + i), "A");
  CHECK_INT(atomic_load(&wakes), before);
  push(f, "a", 1, "A"); /* A's first item now: its horizon may differ */
  CHECK(atomic_load(&wakes) > before);
  before = atomic_load(&wakes);
  push(f, "b0", 200, "B");
  CHECK(atomic_load(&wakes) > before);
  CHECK_INT(frontier_try_pop(f, &it, &due), 1);
  CHECK_STR(it->url, "b0");
  fitem_delete(it);
  frontier_close(f);
  frontier_delete(f);
}

static void test_gate_comes_first_and_blocks_the_host(void)
{
  frontier_t *f = make(0, 1, true);
  push(f, "http://a/1", 0, "http://a:80");
  fitem_t *g = frontier_pop(f);
  CHECK(g != NULL && (g->flags & FITEM_GATE));
  CHECK_STR(g->url, "http://a:80");
  push(f, "http://b/1", 1, "http://b:80");
  fitem_t *g2 = frontier_pop(f); /* b's gate, not a's page */
  CHECK(g2 != NULL && (g2->flags & FITEM_GATE));
  CHECK_STR(g2->url, "http://b:80");
  frontier_gate_done(f, g->host);
  fitem_t *it = frontier_pop(f);
  CHECK(it != NULL && it->seq == 0);
  fitem_delete(it);
  fitem_delete(g);
  fitem_delete(g2);
  frontier_delete(f);
}

static void *pop_one(void *arg)
{
  return frontier_pop(arg);
}

static void test_horizon_holds_back_and_wakes(void)
{
  frontier_t *f = make(0, 1, false);
  for (int i = 0; i < 6; i++)
    push(f, "x", (uint64_t)i, "A");
  frontier_set_horizon(f, 2);
  for (int i = 0; i < 2; i++)
    fitem_delete(frontier_pop(f));
  pthread_t t;
  pthread_create(&t, NULL, pop_one, f);
  struct timespec ts = { 0, 200 * 1000 * 1000 };
  nanosleep(&ts, NULL);
  CHECK_INT(queued(f), 4);    /* nothing beyond the horizon went */
  frontier_set_horizon(f, 1); /* lower: ignored */
  CHECK_INT(queued(f), 4);
  frontier_set_horizon(f, 3); /* wakes the waiting pop */
  void *got;
  pthread_join(t, &got);
  CHECK(got != NULL && ((fitem_t *)got)->seq == 2);
  fitem_delete(got);
  frontier_close(f);
  CHECK(frontier_pop(f) == NULL);
  frontier_delete(f); /* frees the 3 items left */
}

static void test_requeue_not_before(void)
{
  frontier_t *f = make(0, 1, false);
  push(f, "x", 0, "A");
  fitem_t *it = frontier_pop(f);
  double t0 = now();
  CHECK_INT(frontier_requeue(f, it, "A", t0 + 0.2), 0);
  it = frontier_pop(f);
  CHECK(now() - t0 >= 0.19);
  fitem_delete(it);
  frontier_delete(f);
}

static fitem_t *spec_item(frontier_t *f, const char *url, uint64_t n,
                          const char *host)
{
  fitem_t *it = fitem_new(url, 1);
  it->seq = FITEM_SPEC_SEQ + n;
  it->flags = FITEM_SPEC;
  CHECK_INT(frontier_requeue(f, it, host, 0), 0);
  return it;
}

static void test_speculative_items_come_last(void)
{
  /* Per host and across hosts, every ordinary item goes before any
   * speculative one; speculative ones do not count as queued. */
  frontier_t *f = make(0, 1, false);
  spec_item(f, "s0", 0, "A");
  spec_item(f, "s1", 1, "B");
  push(f, "a5", 5, "A");
  push(f, "b7", 7, "B");
  CHECK_INT(queued(f), 2);
  const char *want[] = { "a5", "b7", "s0", "s1" };
  for (int i = 0; i < 4; i++) {
    fitem_t *it = frontier_pop(f);
    CHECK_STR(it->url, want[i]);
    CHECK(!(it->flags & FITEM_QUEUED));
    fitem_delete(it);
  }
  frontier_delete(f);
}

static atomic_bool popped;

static void *pop_and_flag(void *arg)
{
  fitem_t *it = frontier_pop(arg);
  atomic_store(&popped, true);
  return it;
}

static void test_speculative_items_bounded_out(void)
{
  /* spec_out 1: a second speculative item waits until the first is
   * returned, while ordinary items still flow. */
  frontier_config_t cfg = { .burst = 1, .spec_out = 1 };
  frontier_t *f = frontier_new(&cfg);
  spec_item(f, "s0", 0, "A");
  spec_item(f, "s1", 1, "A");
  fitem_t *s0 = frontier_pop(f);
  CHECK_STR(s0->url, "s0");
  push(f, "a3", 3, "A");
  fitem_t *a3 = frontier_pop(f);
  CHECK_STR(a3->url, "a3");
  pthread_t t;
  atomic_store(&popped, false);
  pthread_create(&t, NULL, pop_and_flag, f);
  struct timespec ts = { 0, 150 * 1000 * 1000 };
  nanosleep(&ts, NULL);
  CHECK(!atomic_load(&popped)); /* s1 waits: one is out already */
  frontier_spec_return(f);      /* wakes the waiting pop */
  void *got;
  pthread_join(t, &got);
  CHECK(got != NULL && strcmp(((fitem_t *)got)->url, "s1") == 0);
  fitem_delete(got);
  fitem_delete(s0);
  fitem_delete(a3);
  frontier_delete(f);
}

static void test_promote_and_withdraw(void)
{
  /* A queued speculative item promoted in place takes its seq among the
   * ordinary items; one withdrawn is gone; one handed out is neither. */
  frontier_t *f = make(0, 1, false);
  push(f, "a2", 2, "A");
  push(f, "a9", 9, "A");
  fitem_t *s0 = spec_item(f, "s0", 0, "A");
  fitem_t *s1 = spec_item(f, "s1", 1, "A");
  fitem_t *s2 = spec_item(f, "s2", 2, "B");
  CHECK(frontier_promote(f, s1, 4, 3));
  CHECK(!(s1->flags & FITEM_SPEC) && s1->seq == 4 && s1->depth == 3);
  CHECK_INT(queued(f), 3);
  CHECK(frontier_withdraw(f, s0));
  fitem_delete(s0);
  const char *want[] = { "a2", "s1", "a9", "s2" };
  for (int i = 0; i < 4; i++) {
    fitem_t *it = frontier_pop(f);
    CHECK_STR(it->url, want[i]);
    if (it == s2) {
      CHECK(!frontier_promote(f, s2, 10, 1));
      CHECK(!frontier_withdraw(f, s2));
      CHECK(s2->seq == FITEM_SPEC_SEQ + 2);
    }
    fitem_delete(it);
  }
  frontier_delete(f);
}

static void *push_seq9(void *arg)
{
  push(arg, "x9", 9, "A");
  return NULL;
}

static void test_full_frontier_passes_the_horizon(void)
{
  /* Capacity 2, both items beyond the horizon: a push waiting for room
   * must not wait forever for a commit that waits for it. */
  frontier_config_t cfg = { .capacity = 2, .burst = 1 };
  frontier_t *f = frontier_new(&cfg);
  push(f, "x5", 5, "A");
  push(f, "x6", 6, "A");
  frontier_set_horizon(f, 1);
  pthread_t t;
  pthread_create(&t, NULL, push_seq9, f);
  fitem_t *it = frontier_pop(f); /* woken by the waiting push */
  CHECK(it != NULL && it->seq == 5);
  frontier_done(f, it); /* its slot is free now: the push goes in */
  fitem_delete(it);
  pthread_join(t, NULL);
  CHECK_INT(queued(f), 2);
  frontier_delete(f);
}

static void test_capacity_counts_everything(void)
{
  /* Capacity 3: a speculative item takes a slot; an item popped keeps
   * its slot until frontier_done, so its retry needs no room; a new
   * speculative item finds none (-4) and a push would wait. */
  int n = 0;
  frontier_config_t cfg = {
    .capacity = 3, .burst = 1, .drop = count_drop, .drop_arg = &n
  };
  frontier_t *f = frontier_new(&cfg);
  push(f, "a1", 1, "A");
  push(f, "a2", 2, "A");
  spec_item(f, "s0", 0, "B");
  fitem_t *extra = fitem_new("s1", 1);
  extra->seq = FITEM_SPEC_SEQ + 1;
  extra->flags = FITEM_SPEC;
  CHECK_INT(frontier_requeue(f, extra, "B", 0), -4); /* no slot */
  fitem_t *it = frontier_pop(f);
  CHECK_STR(it->url, "a1");
  CHECK_INT(frontier_requeue(f, extra, "B", 0), -4); /* a1 holds its slot */
  CHECK_INT(frontier_requeue(f, it, "A", 0), 0);     /* a retry: no wait */
  it = frontier_pop(f);
  CHECK_STR(it->url, "a1");
  frontier_done(f, it); /* parsed: its slot is free */
  fitem_delete(it);
  CHECK_INT(frontier_requeue(f, extra, "B", 0), 0);
  frontier_delete(f); /* hands each item left to count_drop */
  CHECK_INT(n, 3);    /* a2, s0, s1 */
}

static void test_queue_only_counts_what_waits(void)
{
  /* Capacity 2, queue_only (crawl()): a pop frees its item's slot, so
   * two more pushes fit without a wait (a wait would hang the test), a
   * third finds the queue full; a popped item requeued takes a slot over
   * the capacity rather than be refused, and frontier_done of a popped
   * item frees nothing twice. */
  int n = 0;
  frontier_config_t cfg = { .capacity = 2,
                            .burst = 1,
                            .queue_only = true,
                            .drop = count_drop,
                            .drop_arg = &n };
  frontier_t *f = frontier_new(&cfg);
  push(f, "a1", 1, "A");
  push(f, "a2", 2, "A");
  fitem_t *a1 = frontier_pop(f);
  CHECK_STR(a1->url, "a1");
  push(f, "a3", 3, "A"); /* a1 has left the queue */
  fitem_t *a2 = frontier_pop(f);
  frontier_done(f, a2); /* holds no slot: nothing to free */
  fitem_delete(a2);
  push(f, "a4", 4, "A");
  CHECK_INT(frontier_requeue(f, a1, "A", 0), 0); /* full, yet taken */
  frontier_delete(f); /* hands each item left to count_drop */
  CHECK_INT(n, 3);    /* a1, a3, a4 */
}

static void *push_a9(void *arg)
{
  push(arg, "a9", 9, "A");
  return NULL;
}

static void test_waiting_push_gets_a_speculative_slot(void)
{
  /* Capacity 2, both slots held by queued speculative items, one more
   * speculative item out (spec_out 1 reached): a push waits for a slot,
   * and only fetching a queued speculative item frees one, so a pop must
   * hand it out past the spec_out bound, or nothing moves again. */
  frontier_config_t cfg = { .capacity = 3, .burst = 1, .spec_out = 1 };
  frontier_t *f = frontier_new(&cfg);
  spec_item(f, "s0", 0, "B");
  spec_item(f, "s1", 1, "B");
  spec_item(f, "s2", 2, "B");
  fitem_t *s0 = frontier_pop(f); /* out: spec_out is at its bound */
  CHECK_STR(s0->url, "s0");
  pthread_t t;
  pthread_create(&t, NULL, push_a9, f); /* waits: every slot is held */
  struct timespec ts = { 0, 100 * 1000 * 1000 };
  nanosleep(&ts, NULL);
  atomic_store(&popped, false);
  pthread_t p;
  pthread_create(&p, NULL, pop_and_flag, f);
  for (int i = 0; i < 30 && !atomic_load(&popped); i++)
    nanosleep(&ts, NULL); /* up to 3 s: far more than a pop takes */
  CHECK(atomic_load(&popped));
  if (!atomic_load(&popped)) {
    frontier_close(f); /* let the threads go, to report the failure */
  }
  void *got;
  pthread_join(p, &got);
  if (got != NULL) {
    CHECK_STR(((fitem_t *)got)->url, "s1");
    frontier_done(f, got); /* fetched: its slot goes to the push */
    fitem_delete(got);
  }
  pthread_join(t, NULL);
  frontier_done(f, s0);
  fitem_delete(s0);
  frontier_delete(f);
}

static void test_spill_keeps_order_within_budget(void)
{
  /* A budget with room for a few items: the rest of 20,000 pushes (more
   * than the write buffer holds) wait in the spill file and come back in push
   * order; memory held stays within the budget (plus the batch a pop brings
   * back); the file goes at the end. */
  char dir[] = "/tmp/frontier_test_XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof(path), "%s/spill", dir);
  budget_t b;
  budget_init(&b, 4096);
  frontier_config_t cfg = { .burst = 1, .budget = &b, .spill_path = path };
  frontier_t *f = frontier_new(&cfg);
  char url[32];
  for (int i = 0; i < 20000; i++) {
    snprintf(url, sizeof(url), "u%d", i);
    push(f, url, (uint64_t)i, i % 2 ? "A" : "B");
  }
  CHECK(atomic_load(&b.held) <= 4096);
  CHECK(atomic_load(&b.spilled) > 0);
  CHECK_INT((int)queued(f), 20000);
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    fitem_t *it = frontier_pop(f);
    snprintf(url, sizeof(url), "u%d", i);
    bad += it == NULL || strcmp(it->url, url) != 0 || it->seq != (uint64_t)i;
    if (it != NULL) {
      frontier_done(f, it);
      fitem_delete(it);
    }
  }
  CHECK_INT(bad, 0);
  CHECK_INT((int)atomic_load(&b.held), 0);
  CHECK_INT((int)atomic_load(&b.on_disk), 0);
  frontier_delete(f);
  CHECK(access(path, F_OK) != 0);
  rmdir(dir);
}

/* frontier_take_host: a host's items, queued and delayed, leave (the
 * engine drops them when the host is another process's now); the other
 * hosts' stay; the gate is left as it was. */
static void test_take_host(void)
{
  frontier_t *f = make(0, 1, true);
  push(f, "a0", 0, "A");
  push(f, "b1", 1, "B");
  push(f, "a2", 2, "A");
  /* A's gate, then its first item, handed out; the item requeued for
   * later (delayed). */
  fitem_t *gate = frontier_pop(f);
  CHECK(gate != NULL && (gate->flags & FITEM_GATE));
  uint32_t a = gate->host;
  frontier_gate_done(f, a);
  fitem_delete(gate);
  fitem_t *it = frontier_pop(f);
  CHECK(it != NULL && it->seq == 0);
  CHECK_INT(frontier_requeue(f, it, "A", now() + 60), 0);
  CHECK_INT(queued(f), 3);
  fitem_t *gone = frontier_take_host(f, a);
  int n = 0;
  uint64_t seqs = 0;
  while (gone != NULL) {
    fitem_t *next = gone->next;
    seqs |= UINT64_C(1) << gone->seq;
    frontier_done(f, gone); /* its slot */
    fitem_delete(gone);
    gone = next;
    n++;
  }
  CHECK_INT(n, 2);
  CHECK_INT(seqs, 5); /* seqs 0 (delayed) and 2 (queued) */
  CHECK_INT(queued(f), 1);
  /* B's gate, then b1: nothing of A comes out. */
  gate = frontier_pop(f);
  CHECK(gate != NULL && (gate->flags & FITEM_GATE) && gate->host != a);
  frontier_gate_done(f, gate->host);
  fitem_delete(gate);
  it = frontier_pop(f);
  CHECK(it != NULL && it->seq == 1);
  fitem_delete(it);
  CHECK_INT(queued(f), 0);
  frontier_delete(f);
}

int main(void)
{
  RUN(test_take_host);
  RUN(test_discovery_order_across_hosts);
  RUN(test_token_bucket_paces_a_host);
  RUN(test_wake_only_when_earlier);
  RUN(test_gate_comes_first_and_blocks_the_host);
  RUN(test_horizon_holds_back_and_wakes);
  RUN(test_requeue_not_before);
  RUN(test_speculative_items_come_last);
  RUN(test_speculative_items_bounded_out);
  RUN(test_promote_and_withdraw);
  RUN(test_full_frontier_passes_the_horizon);
  RUN(test_capacity_counts_everything);
  RUN(test_queue_only_counts_what_waits);
  RUN(test_waiting_push_gets_a_speculative_slot);
  RUN(test_spill_keeps_order_within_budget);
  return TEST_EXIT();
}
