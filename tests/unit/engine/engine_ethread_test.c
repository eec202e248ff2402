/* engine_ethread_test.c: engine_run that cannot start all its threads
 * (CRAWL_ETHREAD) loses nothing: an item a downloader already fetched,
 * with no parse thread to take it, is still released by engine_delete.
 *
 * Linked with -Wl,--wrap=pthread_create (tests/Makefile): the call that
 * would start the parse thread waits until the downloader's fetch has
 * begun, then fails. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "crawl.h"
#include "engine.h"
#include "testhelp.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg);

static atomic_int calls, fail_call;
static atomic_bool fetching, released;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg)
{
  if (atomic_fetch_add(&calls, 1) + 1 == atomic_load(&fail_call)) {
    while (!atomic_load(&fetching))
      sched_yield();
    return EAGAIN;
  }
  return __real_pthread_create(t, a, fn, arg);
}

static engine_fetched_t t_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)ws;
  (void)e;
  it->data = malloc(16);
  atomic_store(&fetching, true);
  return ENGINE_PARSE;
}

static void t_parse(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

static void t_commit(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

static void t_release(void *ctx, fitem_t *it)
{
  (void)ctx;
  if (it->data != NULL)
    atomic_store(&released, true);
  free(it->data);
  it->data = NULL;
}

static const engine_hooks_t hooks = {
  .fetch = t_fetch,
  .parse = t_parse,
  .commit = t_commit,
  .release = t_release,
};

static void test_fetched_item_released_after_ethread(void)
{
  engine_config_t cfg = {
    .download_workers = 1,
    .parse_workers = 1,
    .ordered = true,
    .hooks = &hooks,
  };
  atomic_store(&calls, 0);
  atomic_store(&fail_call, 2); /* the parse thread */
  engine_t *e = engine_new(&cfg);
  CHECK(e != NULL);
  CHECK_INT(engine_add(e, "a", 0, ""), 1);
  CHECK_INT(engine_run(e), CRAWL_ETHREAD);
  engine_delete(e);
  CHECK(atomic_load(&released));
}

int main(void)
{
  RUN(test_fetched_item_released_after_ethread);
  return TEST_EXIT();
}
