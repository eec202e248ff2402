/* webcrawl_test.c: unit tests for web/webcrawl: webcrawl_interrupt
 * from another thread while crawls start and end, as crawler.c's signal
 * thread calls it (a SIGINT at the very end of a crawl).
 *
 * The crawls replay a one-page saved directory built here (no network).
 * To widen the window an unsafe webcrawl_interrupt leaves, between
 * finding the running crawl's engine and stopping it, engine_stop is
 * wrapped (-Wl,--wrap=engine_stop, tests/Makefile): called from the
 * interrupting thread, it waits 20 ms, longer than a whole crawl, before
 * it runs. Where the interrupt does not keep the engine alive meanwhile,
 * it runs on a freed engine: AddressSanitizer (make asan) reports it. */
#include "webcrawl.h"

#include "../../testdir.h"
#include "../../testhelp.h"

#include <curl/curl.h>
#include <libxml/parser.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crawl.h"
#include "engine.h"
#include "pagedir.h"
#include "scope.h"
#include "store.h"

void __real_engine_stop(engine_t *e);
void __wrap_engine_stop(engine_t *e);
int __real_engine_add(engine_t *e, const char *url, int depth,
                      const char *hostkey);
int __wrap_engine_add(engine_t *e, const char *url, int depth,
                      const char *hostkey);

/* engine_add of this URL fails as out of memory does. */
static const char *_Atomic add_fails;

int __wrap_engine_add(engine_t *e, const char *url, int depth,
                      const char *hostkey)
{
  const char *f = atomic_load(&add_fails);
  if (f != NULL && strcmp(url, f) == 0)
    return -2;
  return __real_engine_add(e, url, depth, hostkey);
}

static _Thread_local bool interrupter; /* this thread interrupts */
static atomic_int stops_delayed;       /* engines it found running */

static void sleep_ms(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

void __wrap_engine_stop(engine_t *e)
{
  if (interrupter) {
    atomic_fetch_add(&stops_delayed, 1);
    sleep_ms(20);
  }
  __real_engine_stop(e);
}

static const char SEED[] = "http://example.invalid/";

/* saved_site: a page directory holding SEED alone, to replay; its body
 * links LINKED (not saved). */
static const char LINKED[] = "http://example.invalid/next.html";

static char *saved_site(void)
{
  char *dir = testdir_new("webcrawl_test.saved");
  char err[256];
  const char body[] = "<p>the only page <a href=\"next.html\">n</a></p>\n";
  char *tmp = NULL;
  if (pagedir_init(dir, NULL, err, sizeof(err)) != 0 ||
      (tmp = pagedir_write_tmp(dir, 1, SEED, 0, body, sizeof(body) - 1, 0)) ==
        NULL ||
      pagedir_publish(dir, tmp, 1) != 0) {
    fprintf(stderr, "cannot make the saved site in '%s'\n", dir);
    exit(1);
  }
  free(tmp);
  return dir;
}

/* replay_opts: a one-worker crawl of SEED into OUT to MAX_DEPTH, answered
 * from STORE (all borrowed); its page store the caller's (pstore_close). */
static webcrawl_opts_t replay_opts(const char *out, int max_depth,
                                   const scope_t *scope, const store_t *store)
{
  webcrawl_opts_t o = {
    .seed = SEED,
    .pstore = pstore_new(out, false, false, false),
    .max_depth = max_depth,
    .download_workers = 1,
    .parse_workers = 1,
    .rate = 0,
    .burst = 1,
    .scope = scope,
    .user_agent = "webcrawl_test/1",
    .timeout = 5,
    .retries = 0,
    .max_page_size = 1 << 20,
    .format = FORMAT_AUTO,
    .replay = store,
    .logfp = stdout,
  };
  return o;
}

static atomic_bool done;

static void *interrupt_main(void *arg)
{
  (void)arg;
  interrupter = true;
  while (!atomic_load(&done)) {
    webcrawl_interrupt();
    sleep_ms(1);
  }
  return NULL;
}

/* Crawls start and end while another thread interrupts them all along:
 * each crawl ends (stopped or done), and no interrupt touches an engine
 * its crawl has freed. */
static void test_interrupt_while_crawls_end(void)
{
  char *saved = saved_site();
  char err[256];
  store_t *store = store_open(saved, true, err, sizeof(err));
  CHECK(store != NULL);
  if (store == NULL) {
    fprintf(stderr, "store_open: %s\n", err);
    testdir_remove(saved);
    return;
  }
  const char *prefix[] = { SEED };
  scope_t *scope = scope_new(prefix, 1, NULL, 0);
  CHECK(scope != NULL);
  pthread_t th;
  atomic_store(&done, false);
  CHECK(pthread_create(&th, NULL, interrupt_main, NULL) == 0);
  int crawls = 0, bad = 0;
  double t0 = (double)time(NULL);
  /* Enough crawls that the interrupter finds several running; bounded
   * in time for slow sanitizer builds. */
  while (crawls < 200 && (atomic_load(&stops_delayed) < 10 || crawls < 20) &&
         (double)time(NULL) - t0 < 60) {
    char *out = testdir_new("webcrawl_test.out");
    if (pagedir_init(out, NULL, err, sizeof(err)) != 0) {
      fprintf(stderr, "pagedir_init: %s\n", err);
      bad++;
      testdir_remove(out);
      break;
    }
    webcrawl_opts_t o = replay_opts(out, 0, scope, store);
    webcrawl_stats_t st;
    int rc = webcrawl_run(&o, &st);
    if (rc != CRAWL_OK && rc != CRAWL_ESTOPPED) {
      fprintf(stderr, "crawl %d: status %d\n", crawls, rc);
      bad++;
    }
    pstore_close(o.pstore, false);
    testdir_remove(out);
    crawls++;
  }
  atomic_store(&done, true);
  pthread_join(th, NULL);
  scope_delete(scope);
  CHECK_INT(bad, 0);
  /* The test means something only if the interrupter caught crawls. */
  fprintf(stderr, "webcrawl_test: %d crawls, %d found running\n", crawls,
          atomic_load(&stops_delayed));
  CHECK(atomic_load(&stops_delayed) > 0);
  store_close(store);
  testdir_remove(saved);
}

/* A link that cannot be queued for lack of memory fails the crawl: it
 * must not end as if complete with the link silently gone. */
static void test_link_lost_to_oom_fails(void)
{
  char *saved = saved_site();
  char err[256];
  store_t *store = store_open(saved, true, err, sizeof(err));
  CHECK(store != NULL);
  char *out = testdir_new("webcrawl_test.out");
  CHECK(pagedir_init(out, NULL, err, sizeof(err)) == 0);
  const char *prefix[] = { SEED };
  scope_t *scope = scope_new(prefix, 1, NULL, 0);
  webcrawl_opts_t o = replay_opts(out, 1, scope, store);
  webcrawl_stats_t st;
  CHECK_INT(webcrawl_run(&o, &st), CRAWL_OK); /* the link is a 404 */
  pstore_close(o.pstore, false);
  testdir_remove(out);
  out = testdir_new("webcrawl_test.out");
  CHECK(pagedir_init(out, NULL, err, sizeof(err)) == 0);
  o.pstore = pstore_new(out, false, false, false);
  atomic_store(&add_fails, LINKED);
  CHECK_INT(webcrawl_run(&o, &st), CRAWL_ENOMEM);
  atomic_store(&add_fails, NULL);
  scope_delete(scope);
  store_close(store);
  pstore_close(o.pstore, false);
  testdir_remove(out);
  testdir_remove(saved);
}

int main(void)
{
  if (curl_global_init(CURL_GLOBAL_ALL) != 0) {
    fprintf(stderr, "curl_global_init failed\n");
    return 1;
  }
  xmlInitParser();
  RUN(test_interrupt_while_crawls_end);
  RUN(test_link_lost_to_oom_fails);
  xmlCleanupParser();
  curl_global_cleanup();
  return TEST_EXIT();
}
