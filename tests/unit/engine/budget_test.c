/* budget_test.c: unit tests for engine/budget: what a taker that waits
 * for room (an event loop's paused transfer) relies on. */
#include "budget.h"

#include "../../testhelp.h"

#include <stdint.h>

static int rooms;
static void on_room(void *arg)
{
  (void)arg;
  rooms++;
}

/* A give after a want calls on_room once; a give with no want, never. */
static void test_want_then_give(void)
{
  budget_t b;
  budget_init(&b, 100);
  budget_on_room(&b, on_room, NULL);
  rooms = 0;
  CHECK(budget_take(&b, 80));
  CHECK(!budget_take(&b, 30));
  budget_give(&b, 10); /* no want yet */
  CHECK_INT(rooms, 0);
  CHECK_INT((long)budget_want(&b), 30); /* the room, read after the want */
  budget_give(&b, 10);
  CHECK_INT(rooms, 1);
  budget_give(&b, 10); /* the want is spent */
  CHECK_INT(rooms, 1);
  CHECK_INT((long)budget_room(&b), 50);
}

/* Forced over the limit: no room, not a wrapped-around one. */
static void test_room_over_limit(void)
{
  budget_t b;
  budget_init(&b, 100);
  budget_force(&b, 150);
  CHECK_INT((long)budget_room(&b), 0);
  CHECK_INT((long)budget_want(&b), 0);
  budget_t none;
  budget_init(&none, 0);
  CHECK(budget_room(&none) == SIZE_MAX);
  CHECK(budget_room(NULL) == SIZE_MAX);
}

/* Landed bytes are counted until given back. */
static void test_landed(void)
{
  budget_t b;
  budget_init(&b, 100);
  budget_force(&b, 40);
  budget_land(&b, 40);
  CHECK_INT((long)budget_landed(&b), 40);
  budget_land(&b, -30);
  budget_give(&b, 30);
  CHECK_INT((long)budget_landed(&b), 10);
  CHECK_INT((long)budget_room(&b), 90);
  CHECK_INT((long)budget_landed(NULL), 0);
}

/* The last landed bytes gone answer a want, as a give does. */
static void test_landed_wakes(void)
{
  budget_t b;
  budget_init(&b, 100);
  budget_on_room(&b, on_room, NULL);
  rooms = 0;
  budget_force(&b, 100);
  budget_land(&b, 60);
  budget_land(&b, 40);
  (void)budget_want(&b);
  budget_land(&b, -60);
  CHECK_INT(rooms, 0); /* 40 still landed */
  budget_land(&b, -40);
  CHECK_INT(rooms, 1);
}

int main(void)
{
  RUN(test_want_then_give);
  RUN(test_room_over_limit);
  RUN(test_landed);
  RUN(test_landed_wakes);
  return TEST_EXIT();
}
