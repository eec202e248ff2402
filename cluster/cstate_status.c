/* cstate_status.c: the crawl's counts and --status (cstate.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cstate.h"
#include "cstate_int.h"

/* ARGV: id, then host and count pairs. */
static const rscript_t count_lua = {
  "count", "local meta = KEYS[1]\n"
           "local p = string.sub(meta, 1, -5)\n"
           "if redis.call('HGET', meta, 'id') ~= ARGV[1] then\n"
           "  return redis.error_reply('LOST crawl not found')\n"
           "end\n"
           "for i = 2, #ARGV, 2 do\n"
           "  redis.call('HINCRBY', p..'requests', ARGV[i], ARGV[i + 1])\n"
           "  redis.call('HINCRBY', p..'stats', 'requests', ARGV[i + 1])\n"
           "end\n"
           "return 'OK'\n"
};

int cstate_count(cstate_t *cs, const char *const *hosts, const long *n,
                 size_t k)
{
  if (k == 0)
    return CRAWL_OK;
  struct args a = { 0 };
  args_add(&a, cs->id);
  for (size_t i = 0; i < k; i++) {
    args_add(&a, hosts[i]);
    args_addf(&a, "%ld", n[i]);
  }
  /* Not sent again: a count sent twice would count twice. */
  return cs_run(cs, &count_lua, &a, true, NULL);
}

/* hash_ll: field NAME of HGETALL reply REP as a number, or -1. */
static long long hash_ll(const redisReply *rep, const char *name)
{
  for (size_t i = 0; rep_is(rep, REDIS_REPLY_ARRAY) && i + 1 < rep->elements;
       i += 2)
    if (rep_str(rep->element[i]) && strcmp(rep->element[i]->str, name) == 0 &&
        rep_str(rep->element[i + 1]))
      return strtoll(rep->element[i + 1]->str, NULL, 10);
  return -1;
}

/* get: run a read command, its reply or NULL (the error in CS). */
static redisReply *get(cstate_t *cs, int *rc, const char *what, const char *a0,
                       const char *a1, const char *a2)
{
  const char *argv[3] = { a0, a1, a2 };
  redisReply *rep = rconn_cmd(cstate_rconn(cs), a2 ? 3 : 2, argv, NULL);
  *rc = cs_status(cs, rep, what);
  if (*rc != CRAWL_OK && rep != NULL) {
    freeReplyObject(rep);
    rep = NULL;
  }
  return rep;
}

/* print_workers: the workers of W (HGETALL of `workers`) alive; adds
 * the items they have in flight to *INFLIGHT. */
static void print_workers(cstate_t *cs, FILE *fp, const redisReply *w,
                          long long *inflight)
{
  long alive = 0;
  size_t all = 0;
  char key[160];
  for (size_t i = 0; i + 1 < w->elements; i += 2) {
    const char *id = rep_str(w->element[i]), *info = rep_str(w->element[i + 1]);
    if (id == NULL || info == NULL)
      continue;
    all++;
    int rc;
    snprintf(key, sizeof(key), "%salive:%s", cs->prefix, id);
    redisReply *a = get(cs, &rc, "reading workers", "GET", key, NULL);
    bool up = rep_str(a) != NULL;
    if (up)
      *inflight += strtoll(a->str, NULL, 10);
    if (a)
      freeReplyObject(a);
    if (!up)
      continue;
    alive++;
    /* "host pid started" */
    const char *sp = strrchr(info, ' ');
    time_t since = sp ? (time_t)strtoll(sp + 1, NULL, 10) : 0;
    char when[32] = "?";
    struct tm tm;
    if (since && gmtime_r(&since, &tm))
      strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(fp, "worker %s: %.*s, alive since %s\n", id,
            sp ? (int)(sp - info) : (int)strlen(info), info, when);
  }
  fprintf(fp, "workers alive: %ld of %zu registered\n", alive, all);
}

/* print_busiest: the 5 hosts with the most requests of REP (HGETALL of
 * the counts), per second over ELAPSED. */
static void print_busiest(FILE *fp, const redisReply *rep, double elapsed)
{
  enum { TOP = 5 };
  size_t top[TOP];
  long long cnt[TOP];
  int nt = 0;
  for (size_t i = 0; i + 1 < rep->elements; i += 2) {
    if (!rep_str(rep->element[i]) || !rep_str(rep->element[i + 1]))
      continue;
    long long c = strtoll(rep->element[i + 1]->str, NULL, 10);
    int j = nt < TOP ? nt++ : TOP;
    if (j == TOP && c <= cnt[TOP - 1])
      continue;
    if (j == TOP)
      j = TOP - 1;
    while (j > 0 && cnt[j - 1] < c) {
      top[j] = top[j - 1];
      cnt[j] = cnt[j - 1];
      j--;
    }
    top[j] = i;
    cnt[j] = c;
  }
  for (int j = 0; j < nt; j++)
    fprintf(fp, "  %s: %lld requests, %.2f/s\n", rep->element[top[j]]->str,
            cnt[j], elapsed > 0 ? (double)cnt[j] / elapsed : 0.0);
}

int cstate_status(cstate_t *cs, FILE *fp)
{
  int complete = cstate_complete(cs);
  if (complete < 0)
    return complete;
  cstate_commit_t c;
  int rc = cstate_commit_state(cs, &c);
  if (rc != CRAWL_OK)
    return rc;
  char key[160];
  redisReply *meta = get(cs, &rc, "reading the crawl", "HGETALL", cs->meta,
                         NULL);
  if (meta == NULL)
    return rc;
  long long created = hash_ll(meta, "created");
  freeReplyObject(meta);
  double elapsed = created > 0 ? (double)(time(NULL) - created) : 0;
  fprintf(fp, "crawl %.*s: %s, started %.0f s ago\n",
          (int)strlen(cs->prefix) - 1, cs->prefix,
          complete ? "complete" : "running", elapsed);
  fprintf(fp,
          "items: %" PRIu64 " added, %" PRIu64 " committed; pages saved: %ld\n",
          c.next_seq, c.next_commit, c.pages);
  redisReply *w = get(cs, &rc, "reading workers", "HGETALL",
                      cs_key(cs, key, sizeof(key), "workers"), NULL);
  if (w == NULL)
    return rc;
  long long queued = 0, inflight = 0;
  if (rep_is(w, REDIS_REPLY_ARRAY))
    print_workers(cs, fp, w, &inflight);
  freeReplyObject(w);
  for (int p = 0; p < CSTATE_PARTS; p++) {
    snprintf(key, sizeof(key), "%spart:%d", cs->prefix, p);
    redisReply *x = get(cs, &rc, "reading the queue", "XLEN", key, NULL);
    if (rep_is(x, REDIS_REPLY_INTEGER))
      queued += x->integer;
    if (x)
      freeReplyObject(x);
  }
  /* An item is in its partition (queued, or in flight at the worker
   * that read it, as its heartbeat says) until its result is published,
   * then a result until it is committed: the seqs handed out and not
   * committed are all of them. Each read at its own moment: clamped. */
  long long waiting = (long long)(c.next_seq - c.next_commit) - queued;
  if (inflight > queued)
    inflight = queued;
  fprintf(fp,
          "URLs queued: %lld (in flight: %lld); fetched, waiting for the "
          "commit: %lld\n",
          queued - inflight, inflight, waiting < 0 ? 0 : waiting);
  redisReply *x;
  x = get(cs, &rc, "reading counts", "HGETALL",
          cs_key(cs, key, sizeof(key), "stats"), NULL);
  if (rep_is(x, REDIS_REPLY_ARRAY)) {
    for (int d = 0; d <= c.depth; d++) {
      char f[32];
      snprintf(f, sizeof(f), "depth:%d", d);
      long long v = hash_ll(x, f);
      fprintf(fp, "depth %d: %lld pages\n", d, v < 0 ? 0 : v);
    }
    long long other = hash_ll(x, "other"), req = hash_ll(x, "requests");
    fprintf(fp, "not saved (failed, skipped, duplicate): %lld\n",
            other < 0 ? 0 : other);
    fprintf(fp, "requests: %lld, %.2f/s\n", req < 0 ? 0 : req,
            elapsed > 0 && req > 0 ? (double)req / elapsed : 0.0);
  }
  if (x)
    freeReplyObject(x);
  x = get(cs, &rc, "reading counts", "HGETALL",
          cs_key(cs, key, sizeof(key), "requests"), NULL);
  if (rep_array(x, 2)) {
    fprintf(fp, "busiest hosts:\n");
    print_busiest(fp, x, elapsed);
  }
  if (x)
    freeReplyObject(x);
  return complete;
}
