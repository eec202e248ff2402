/* cluster_bench.c: what the cluster's shared state costs in Redis.
 *
 *   cluster_bench REDIS_URL N...
 *
 * For each N, creates a crawl of its own and commits N URLs to it in
 * commits of 1,000 adds (as a committer does, one script each), then
 * prints Redis's dataset bytes per seen URL (MEMORY STATS, the items
 * themselves trimmed from their partition as fetching would) and the
 * commit's time per URL. Run it against a redis-server of its own: the
 * crawls it makes are left there. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cstate.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long dataset(rconn_t *r)
{
  long long v = -1;
  redisReply *rep = rconn_cmdf(r, "MEMORY", "STATS", NULL);
  for (size_t i = 0; rep && i + 1 < rep->elements; i += 2)
    if (strcmp(rep->element[i]->str, "dataset.bytes") == 0)
      v = rep->element[i + 1]->integer;
  if (rep)
    freeReplyObject(rep);
  return v;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: cluster_bench REDIS_URL N...\n");
    return 2;
  }
  enum { BATCH = 1000 };
  static char urls[BATCH][80];
  static cstate_add_t adds[BATCH];
  for (int a = 2; a < argc; a++) {
    long n = atol(argv[a]);
    char name[64], err[256];
    snprintf(name, sizeof(name), "bench-%d-%ld", (int)getpid(), n);
    cstate_param_t p = { "seedURL", "http://bench.test/" };
    cstate_t *cs = NULL;
    bool created;
    if (cstate_join(argv[1], name, &p, 1, "http://bench.test/", "h", &cs,
                    &created, err, sizeof(err)) != CRAWL_OK) {
      fprintf(stderr, "cluster_bench: %s\n", err);
      return 1;
    }
    uint64_t t = 0;
    if (cstate_lease(cs, "commit", "bench", 600000, &t) != 1) {
      fprintf(stderr, "cluster_bench: no commit lease\n");
      return 1;
    }
    rconn_t *r = cstate_rconn(cs);
    long long before = dataset(r);
    char part[128];
    snprintf(part, sizeof(part), "tse:{%s}:part:%d", name, cstate_part("h"));
    uint64_t seq = 1;
    double t0 = now();
    for (long c = 0; c * BATCH < n; c++) {
      int k = 0;
      for (; k < BATCH && c * BATCH + k < n; k++) {
        snprintf(urls[k], sizeof(urls[k]),
                 "http://bench.test/section-%ld/page-%d.html", c, k);
        adds[k] = (cstate_add_t){ urls[k], "h", 1, seq++, NULL, false };
      }
      cstate_commit_t after = { .next_seq = seq,
                                .next_commit = (uint64_t)c + 1 };
      if (cstate_commit(cs, t, (uint64_t)c, adds, (size_t)k, &after, NULL,
                        false) != CRAWL_OK) {
        fprintf(stderr, "cluster_bench: %s\n", cstate_error(cs));
        return 1;
      }
      redisReply *rep = rconn_cmdf(r, "XTRIM", part, "MAXLEN", "0", NULL);
      if (rep)
        freeReplyObject(rep);
    }
    double secs = now() - t0;
    long long after = dataset(r);
    printf("%ld URLs: Redis memory %.1f bytes per seen URL; commit %.2f us "
           "per URL\n",
           n, (double)(after - before) / (double)n, secs * 1e6 / (double)n);
    cstate_close(cs);
  }
  return 0;
}
