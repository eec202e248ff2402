/* clusterhelp.h: what the tests of the cluster's threads share: a worker
 * joined to a crawl of the test's own Redis (cluster_join), with an
 * engine of stub hooks (c->e) that fetch, parse and commit nothing; the
 * test runs the thread it looks at itself. Include after redishelp.h,
 * within the same "-Wunused-function" pragma. */
#ifndef TESTS_CLUSTERHELP_H
#define TESTS_CLUSTERHELP_H

#include "cluster.h"
#include "cluster_int.h"
#include "cstate.h"
#include "engine.h"
#include "testhelp.h"

static const cstate_param_t test_params[] = { { "seedURL", "http://a.test/" },
                                              { "maxDepth", "2" } };

static engine_fetched_t stub_fetch(void *ctx, void *ws, engine_t *e,
                                   fitem_t *it)
{
  (void)ctx;
  (void)ws;
  (void)e;
  (void)it;
  return ENGINE_CONSUMED;
}

static void stub_parse(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

static void stub_commit(void *ctx, engine_t *e, fitem_t *it)
{
  (void)ctx;
  (void)e;
  (void)it;
}

/* test_worker: a worker of crawl NAME (seed http://a.test/, depth 2) of
 * the Redis at URL, its engine's hooks stubs; NULL if it did not join. */
static cluster_t *test_worker(const char *url, const char *name)
{
  static const engine_hooks_t hooks = { .fetch = stub_fetch,
                                        .parse = stub_parse,
                                        .commit = stub_commit };
  char err[256];
  bool created;
  cluster_config_t cfg = { .url = url,
                           .name = name,
                           .params = test_params,
                           .nparams = 2,
                           .seed = "http://a.test/",
                           .seed_hostkey = "http://a.test:80",
                           .lease = 60,
                           .inflight = 64 };
  cluster_t *c = NULL;
  CHECK_INT(cluster_join(&cfg, &c, &created, err, sizeof(err)), CRAWL_OK);
  if (c == NULL)
    return NULL;
  engine_config_t ec = { .download_workers = 1,
                         .parse_workers = 1,
                         .ordered = true,
                         .source = &cluster_source,
                         .source_ctx = c,
                         .hooks = &hooks };
  c->e = engine_new(&ec);
  CHECK(c->e != NULL);
  return c;
}

/* test_worker_delete: its engine (its items release their tickets into
 * C), then C. */
static void test_worker_delete(cluster_t *c)
{
  engine_delete(c->e);
  cluster_delete(c);
}

#endif
