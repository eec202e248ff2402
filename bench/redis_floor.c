/* redis_floor.c: the Redis work of a shared crawl's data flow in plain
 * pipelined commands, without Lua scripts, leases or heartbeats.
 *
 *   redis_floor REDIS_URL RESULTS BYTES PER_BATCH PARTS xdel|trim|watch
 *
 * RESULTS items, one a result, go round as the cluster's do, a batch of
 * PER_BATCH at a time, in four round trips a batch:
 *   1. publish: the batch's results as one entry of the results stream
 *      (a field a result of BYTES bytes), and each item's entry deleted
 *      from its partition (XDEL by ID; "trim": XTRIM MINID past it);
 *   2. read: the committer reads that entry (XREAD);
 *   3. commit: the next batch's items, an entry each in their partitions
 *      (PARTS of them), their 10-byte fingerprints APPENDed to the seen
 *      log, the results read trimmed (XTRIM MINID);
 *   4. take: the feeder reads those items (XRANGE a partition from its
 *      last ID).
 * "watch" is "xdel" with the fencing the cluster's scripts do, done
 * without Lua: before each of the three fenced steps (publish, commit,
 * take), a round trip that WATCHes the leases the step needs and reads
 * their tokens (HMGET), then the step in MULTI ... EXEC; seven round
 * trips a batch.
 * Prints the round trips made. Exits 1 if a step reads other than the
 * entries written, or leaves any undeleted. Run it against a
 * redis-server of its own (bench/redis-floor.sh): it leaves its keys. */
#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rconn.h"

enum { MAXP = 64, MAXB = 256 };

static long round_trips;

static void die(const char *what, const char *why)
{
  fprintf(stderr, "redis_floor: %s: %s\n", what, why);
  exit(1);
}

/* entries: the stream entries ([ID, [field, value, ...]]) in REP, at
 * any depth (XRANGE's array of them, XREAD's per stream, EXEC's per
 * command). */
static long entries(const redisReply *rep)
{
  if (rep->type != REDIS_REPLY_ARRAY)
    return 0;
  if (rep->elements == 2 && rep->element[0]->type == REDIS_REPLY_STRING &&
      strchr(rep->element[0]->str, '-') != NULL &&
      rep->element[1]->type == REDIS_REPLY_ARRAY)
    return 1;
  long n = 0;
  for (size_t i = 0; i < rep->elements; i++)
    n += entries(rep->element[i]);
  return n;
}

/* flush: the replies of the N commands appended, one round trip; the
 * stream entries they carry. Exits on an error reply (a wrong ID, a
 * wrong type), or on an EXEC aborted (a lease WATCHed changed). */
static long flush(redisContext *c, int n, const char *what)
{
  long got = 0;
  for (int i = 0; i < n; i++) {
    redisReply *rep;
    if (redisGetReply(c, (void **)&rep) != REDIS_OK)
      die(what, c->errstr);
    if (rep->type == REDIS_REPLY_ERROR)
      die(what, rep->str);
    if (rep->type == REDIS_REPLY_NIL)
      die(what, "a transaction aborted");
    got += entries(rep);
    freeReplyObject(rep);
  }
  round_trips++;
  return got;
}

/* integer: the integer reply of a command, or exit. */
static long long integer(redisContext *c, const char *cmd, const char *key)
{
  redisReply *rep = redisCommand(c, "%s %s", cmd, key);
  if (rep == NULL)
    die(cmd, c->errstr);
  if (rep->type != REDIS_REPLY_INTEGER)
    die(cmd, "not an integer");
  long long v = rep->integer;
  freeReplyObject(rep);
  return v;
}

static int part_of(long item, int parts)
{
  return (int)(item % parts);
}

/* stream IDs are given: item I is 0-(I+1) in its partition, batch B is
 * 0-(B+1) in the results stream, so that deletes name them unread. */
static void id_of(char *buf, size_t n, long v)
{
  snprintf(buf, n, "0-%ld", v + 1);
}

/* fence: the round trip before a fenced step (WATCH the N leases, read
 * their tokens), and the step's MULTI; returns the commands appended
 * after it (1: MULTI). The step ends with end_fence. */
static int fence(redisContext *c, char (*leases)[32], int n)
{
  const char *av[MAXP + 1];
  av[0] = "WATCH";
  for (int i = 0; i < n; i++)
    av[i + 1] = leases[i];
  redisAppendCommandArgv(c, n + 1, av, NULL);
  for (int i = 0; i < n; i++)
    redisAppendCommand(c, "HMGET %s token owner", leases[i]);
  flush(c, n + 1, "fence");
  redisAppendCommand(c, "MULTI");
  return 1;
}

static void add_items(redisContext *c, long from, long to, int parts, int *cmds)
{
  static char seen[MAXB * 10];
  for (long i = from; i < to; i++) {
    char key[32], id[32], item[128];
    snprintf(key, sizeof(key), "part:%d", part_of(i, parts));
    id_of(id, sizeof(id), i);
    snprintf(item, sizeof(item),
             "%ld 3 127.0.0.%d:38617 http://127.0.0.%d:38617/d3/p%ld.html", i,
             2 + part_of(i, 8), 2 + part_of(i, 8), i);
    const char *argv[] = { "XADD", key, id, "i", item };
    redisAppendCommandArgv(c, 5, argv, NULL);
    memset(seen + (i - from) * 10, 'f', 10);
    (*cmds)++;
  }
  if (to > from) {
    redisAppendCommand(c, "APPEND seen %b", seen, (size_t)(to - from) * 10);
    (*cmds)++;
  }
}

int main(int argc, char **argv)
{
  if (argc != 7) {
    fprintf(stderr, "usage: redis_floor REDIS_URL RESULTS BYTES PER_BATCH "
                    "PARTS xdel|trim|watch\n");
    return 2;
  }
  char host[256], err[256];
  int port, db;
  if (rconn_parse_url(argv[1], host, sizeof(host), &port, &db, err,
                      sizeof(err)) != 0) {
    fprintf(stderr, "redis_floor: %s\n", err);
    return 2;
  }
  long results = atol(argv[2]), bytes = atol(argv[3]);
  int per = atoi(argv[4]), parts = atoi(argv[5]);
  bool trim = strcmp(argv[6], "trim") == 0;
  bool watch = strcmp(argv[6], "watch") == 0;
  if (results < 1 || bytes < 1 || per < 1 || per > MAXB || parts < 1 ||
      parts > MAXP || (!trim && !watch && strcmp(argv[6], "xdel") != 0)) {
    fprintf(stderr,
            "redis_floor: RESULTS, BYTES >= 1, PER_BATCH 1..%d, "
            "PARTS 1..%d, xdel, trim or watch\n",
            MAXB, MAXP);
    return 2;
  }
  redisContext *c = redisConnect(host, port);
  if (c == NULL || c->err) {
    fprintf(stderr, "redis_floor: %s\n", c ? c->errstr : "out of memory");
    return 1;
  }
  redisReply *sel = redisCommand(c, "SELECT %d", db);
  if (sel == NULL || sel->type == REDIS_REPLY_ERROR)
    die("SELECT", sel ? sel->str : c->errstr);
  freeReplyObject(sel);
  char *data = malloc((size_t)bytes);
  const char **av = malloc(sizeof(*av) * (3 + 2 * (size_t)per));
  size_t *al = malloc(sizeof(*al) * (3 + 2 * (size_t)per));
  char(*seqs)[24] = malloc(sizeof(*seqs) * (size_t)per);
  if (data == NULL || av == NULL || al == NULL || seqs == NULL) {
    fprintf(stderr, "redis_floor: out of memory\n");
    return 1;
  }
  memset(data, 'x', (size_t)bytes);
  char last[MAXP][32]; /* the feeder's position in each partition */
  char leases[MAXP][32], commit[1][32] = { "lease:commit" };
  for (int p = 0; p < parts; p++) {
    strcpy(last[p], "0-0");
    snprintf(leases[p], sizeof(leases[p]), "lease:part:%d", p);
    if (watch)
      freeReplyObject(redisCommand(c, "HSET %s token 1 owner w1", leases[p]));
  }
  if (watch)
    freeReplyObject(redisCommand(c, "HSET lease:commit token 1 owner w1"));

  /* The seed's batch, committed before anything is fetched. */
  int cmds = 0;
  add_items(c, 0, per < results ? per : results, parts, &cmds);
  flush(c, cmds, "the seed's batch");
  for (long b = 0; b * per < results; b++) {
    long from = b * per, to = from + per < results ? from + per : results;
    char rid[32], key[32], id[32];
    id_of(rid, sizeof(rid), b);
    /* 4. take: the items committed last. */
    cmds = watch ? fence(c, leases, parts) : 0;
    for (int p = 0; p < parts; p++) {
      snprintf(key, sizeof(key), "part:%d", p);
      char after[40];
      snprintf(after, sizeof(after), "(%.30s", last[p]);
      redisAppendCommand(c, "XRANGE %s %s + COUNT %d", key, after, per);
      cmds++;
    }
    for (long i = from; i < to; i++)
      id_of(last[part_of(i, parts)], sizeof(last[0]), i);
    if (watch) {
      redisAppendCommand(c, "EXEC");
      cmds++;
    }
    /* (Inside MULTI the entries come once, in EXEC's reply.) */
    if (flush(c, cmds, "take") != to - from)
      die("take", "other than the items committed last");
    /* 1. publish. */
    cmds = watch ? fence(c, leases, parts) : 0;
    int n = 0;
    av[n] = "XADD", al[n++] = 4;
    av[n] = "results", al[n++] = 7;
    av[n] = rid, al[n++] = strlen(rid);
    for (long i = from; i < to; i++) {
      snprintf(seqs[i - from], sizeof(seqs[0]), "%ld", i);
      av[n] = seqs[i - from], al[n++] = strlen(seqs[i - from]);
      av[n] = data, al[n++] = (size_t)bytes;
    }
    redisAppendCommandArgv(c, n, av, al);
    cmds++;
    for (int p = 0; p < parts; p++) {
      snprintf(key, sizeof(key), "part:%d", p);
      if (trim) {
        /* Past the last of this batch's items in P. */
        long top = -1;
        for (long i = from; i < to; i++)
          if (part_of(i, parts) == p)
            top = i;
        if (top < 0)
          continue;
        id_of(id, sizeof(id), top + 1);
        redisAppendCommand(c, "XTRIM %s MINID %s", key, id);
        cmds++;
        continue;
      }
      int k = 0;
      av[k] = "XDEL", al[k++] = 4;
      av[k] = key, al[k++] = strlen(key);
      for (long i = from; i < to; i++)
        if (part_of(i, parts) == p) {
          id_of(seqs[i - from], sizeof(seqs[0]), i);
          av[k] = seqs[i - from], al[k++] = strlen(seqs[i - from]);
        }
      if (k > 2) {
        redisAppendCommandArgv(c, k, av, al);
        cmds++;
      }
    }
    if (watch) {
      redisAppendCommand(c, "EXEC");
      cmds++;
    }
    flush(c, cmds, "publish");
    /* 2. read. */
    char prev[32];
    snprintf(prev, sizeof(prev), "0-%ld", b);
    redisAppendCommand(c, "XREAD COUNT 1 STREAMS results %s", prev);
    if (flush(c, 1, "read") != 1)
      die("read", "not the batch's results");
    /* 3. commit: the next batch's items; the results read trimmed. */
    cmds = watch ? fence(c, commit, 1) : 0;
    long nfrom = to, nto = to + per < results ? to + per : results;
    add_items(c, nfrom, nto, parts, &cmds);
    id_of(id, sizeof(id), b + 1);
    redisAppendCommand(c, "XTRIM results MINID %s", id);
    cmds++;
    if (watch) {
      redisAppendCommand(c, "EXEC");
      cmds++;
    }
    flush(c, cmds, "commit");
  }
  long long left = integer(c, "XLEN", "results");
  for (int p = 0; p < parts; p++) {
    char key[32];
    snprintf(key, sizeof(key), "part:%d", p);
    left += integer(c, "XLEN", key);
  }
  if (left != 0) {
    fprintf(stderr, "redis_floor: %lld entries left undeleted\n", left);
    return 1;
  }
  if (integer(c, "STRLEN", "seen") != 10 * results)
    die("seen", "not a fingerprint an item");
  printf("%ld\n", round_trips);
  redisFree(c);
  free(data);
  free(av);
  free(al);
  free(seqs);
  return 0;
}
