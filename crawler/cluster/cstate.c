/* cstate.c: see cstate.h.
 *
 * Every change goes through one Lua script, so that it is atomic and
 * checks, before it changes anything, that the crawl is still the one
 * joined (meta id) and that the caller's lease still has its fencing
 * token. Scripts build their key names from the crawl's prefix, one hash
 * tag, so they stay within one slot. Reads are plain commands. */
#include "cstate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"

struct cstate {
  rconn_t *r;
  char prefix[96]; /* "tse:{NAME}:" */
  char id[40];     /* the crawl's id, from meta */
  char err[320];
};

/* ---- argument vectors for scripts ---- */

struct args {
  const char **v;
  size_t *l;
  char **own; /* formatted numbers, freed with the vector */
  int n, cap;
  bool nomem;
};

static void arg_raw(struct args *a, const char *s, size_t len, char *owned)
{
  if (a->n == a->cap) {
    int cap = a->cap ? a->cap * 2 : 32;
    const char **v = realloc(a->v, (size_t)cap * sizeof(*v));
    if (v)
      a->v = v;
    size_t *l = realloc(a->l, (size_t)cap * sizeof(*l));
    if (l)
      a->l = l;
    char **o = realloc(a->own, (size_t)cap * sizeof(*o));
    if (o)
      a->own = o;
    if (!v || !l || !o) {
      a->nomem = true;
      free(owned);
      return;
    }
    a->cap = cap;
  }
  a->v[a->n] = s;
  a->l[a->n] = len;
  a->own[a->n] = owned;
  a->n++;
}

static void arg(struct args *a, const char *s)
{
  arg_raw(a, s, strlen(s), NULL);
}

static void argf(struct args *a, const char *fmt, ...)
{
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  char *s = strdup(buf);
  if (s == NULL) {
    a->nomem = true;
    return;
  }
  arg_raw(a, s, strlen(s), s);
}

static void args_free(struct args *a)
{
  for (int i = 0; i < a->n; i++)
    free(a->own[i]);
  free(a->v);
  free(a->l);
  free(a->own);
}

/* ---- scripts ---- */

/* Every script but join starts with this check: ARGV[1] the prefix,
 * ARGV[2] the crawl's id. */
#define CHECK_ID                                                               \
  "local p = ARGV[1]\n"                                                        \
  "if redis.call('HGET', p..'meta', 'id') ~= ARGV[2] then\n"                   \
  "  return redis.error_reply('LOST crawl not found')\n"                       \
  "end\n"

/* ARGV: prefix, new id, nparts, buckets, seed, hostkey, part, bucket,
 * member, then option name and value pairs. */
static const rscript_t join_lua = {
  "join",
  "local p = ARGV[1]\n"
  "local meta = p..'meta'\n"
  "if redis.call('EXISTS', meta) == 0 then\n"
  "  redis.call('HSET', meta, 'id', ARGV[2], 'nparts', ARGV[3],\n"
  "             'buckets', ARGV[4], 'state', 'running',\n"
  "             'created', redis.call('TIME')[1])\n"
  "  for i = 10, #ARGV, 2 do\n"
  "    redis.call('HSET', meta, 'opt:'..ARGV[i], ARGV[i + 1])\n"
  "  end\n"
  "  redis.call('HSET', p..'commit', 'next_seq', 1, 'next_commit', 0,\n"
  "             'pages', 0, 'journal', 0, 'depth', 0)\n"
  "  redis.call('SADD', p..'seen:'..ARGV[8], ARGV[9])\n"
  "  for i = 0, tonumber(ARGV[3]) - 1 do\n"
  "    redis.call('XGROUP', 'CREATE', p..'part:'..i, 'g', '0', 'MKSTREAM')\n"
  "  end\n"
  "  redis.call('XADD', p..'part:'..ARGV[7], '*', 'seq', 0, 'depth', 0,\n"
  "             'url', ARGV[5], 'host', ARGV[6])\n"
  "  return {'created', ARGV[2]}\n"
  "end\n"
  "for i = 10, #ARGV, 2 do\n"
  "  local v = redis.call('HGET', meta, 'opt:'..ARGV[i])\n"
  "  if v == false then v = '' end\n"
  "  if v ~= ARGV[i + 1] then return {'mismatch', ARGV[i], v} end\n"
  "end\n"
  "local id = redis.call('HGET', meta, 'id')\n"
  "if redis.call('HGET', meta, 'state') == 'complete' then\n"
  "  return {'complete', id}\n"
  "end\n"
  "return {'joined', id}\n"
};

/* ARGV: prefix, id, what, worker, ttl ms, token held (0: none). */
static const rscript_t lease_lua = {
  "lease", CHECK_ID
  "local k = p..'lease:'..ARGV[3]\n"
  "local owner = redis.call('HGET', k, 'owner')\n"
  "if owner == false then\n"
  "  if ARGV[6] ~= '0' then return 0 end\n"
  "  local t = redis.call('INCR', p..'fence')\n"
  "  redis.call('HSET', k, 'owner', ARGV[4], 'token', t)\n"
  "  redis.call('PEXPIRE', k, ARGV[5])\n"
  "  return t\n"
  "end\n"
  "if owner == ARGV[4] and redis.call('HGET', k, 'token') == ARGV[6] then\n"
  "  redis.call('PEXPIRE', k, ARGV[5])\n"
  "  return tonumber(ARGV[6])\n"
  "end\n"
  "return 0\n"
};

/* ARGV: prefix, id, what, token. */
static const rscript_t release_lua = {
  "release", CHECK_ID "local k = p..'lease:'..ARGV[3]\n"
                      "if redis.call('HGET', k, 'token') == ARGV[4] then\n"
                      "  redis.call('DEL', k)\n"
                      "  return 1\n"
                      "end\n"
                      "return 0\n"
};

/* ARGV: prefix, id, token, seq, next_seq, next_commit, pages, journal,
 * depth, result id or '', saved (1/0), then for each add: seq, depth,
 * url, host, part, bucket, member. */
static const rscript_t commit_lua = {
  "commit", CHECK_ID
  "if redis.call('HGET', p..'lease:commit', 'token') ~= ARGV[3] then\n"
  "  return redis.error_reply('FENCED the commit lease is not held')\n"
  "end\n"
  "local c = p..'commit'\n"
  "local nc = redis.call('HGET', c, 'next_commit')\n"
  "if nc ~= ARGV[4] then\n"
  "  return redis.error_reply('ORDER committing '..ARGV[4]..', next is '..nc)\n"
  "end\n"
  "for i = 12, #ARGV, 7 do\n"
  "  redis.call('SADD', p..'seen:'..ARGV[i + 5], ARGV[i + 6])\n"
  "  redis.call('XADD', p..'part:'..ARGV[i + 4], '*', 'seq', ARGV[i],\n"
  "             'depth', ARGV[i + 1], 'url', ARGV[i + 2], 'host', ARGV[i + 3])\n"
  "end\n"
  "redis.call('HSET', c, 'next_seq', ARGV[5], 'next_commit', ARGV[6],\n"
  "           'pages', ARGV[7], 'journal', ARGV[8], 'depth', ARGV[9])\n"
  "if ARGV[10] ~= '' then redis.call('XDEL', p..'results', ARGV[10]) end\n"
  "if ARGV[11] == '1' then\n"
  "  redis.call('HINCRBY', p..'stats', 'depth:'..ARGV[9], 1)\n"
  "else\n"
  "  redis.call('HINCRBY', p..'stats', 'other', 1)\n"
  "end\n"
  "if ARGV[6] == ARGV[5] then redis.call('HSET', p..'meta', 'state',\n"
  "                                      'complete') end\n"
  "return 'OK'\n"
};

/* ARGV: prefix, id, part, token, entry id, seq, data. */
static const rscript_t result_lua = {
  "result", CHECK_ID
  "if redis.call('HGET', p..'lease:part:'..ARGV[3], 'token') ~= ARGV[4] then\n"
  "  return redis.error_reply('FENCED the partition lease is not held')\n"
  "end\n"
  "local k = p..'part:'..ARGV[3]\n"
  "if redis.call('XACK', k, 'g', ARGV[5]) == 0 then\n"
  "  return redis.error_reply('FENCED the item was finished already')\n"
  "end\n"
  "redis.call('XDEL', k, ARGV[5])\n"
  "redis.call('XADD', p..'results', '*', 'seq', ARGV[6], 'data', ARGV[7])\n"
  "return 'OK'\n"
};

/* ---- helpers ---- */

static bool valid_name(const char *name)
{
  size_t n = strlen(name);
  if (n == 0 || n > 64)
    return false;
  for (const char *s = name; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
      return false;
  return true;
}

/* status_of: the status a script's error reply stands for, its text in
 * CS->err; CSTATE_OK if REP is a good reply. */
static int status_of(cstate_t *cs, redisReply *rep, const char *what)
{
  if (rep == NULL) {
    snprintf(cs->err, sizeof(cs->err), "%s: %s", what, rconn_error(cs->r));
    return CSTATE_EREDIS;
  }
  if (rep->type != REDIS_REPLY_ERROR)
    return CSTATE_OK;
  snprintf(cs->err, sizeof(cs->err), "%s: %s", what, rep->str);
  if (strncmp(rep->str, "LOST", 4) == 0) {
    snprintf(cs->err, sizeof(cs->err),
             "crawl %s is no longer in Redis (did Redis come back empty?)",
             cs->prefix);
    return CSTATE_LOST;
  }
  if (strncmp(rep->str, "FENCED", 6) == 0)
    return CSTATE_FENCED;
  if (strstr(rep->str, "OOM") != NULL)
    return CSTATE_ENOMEM;
  return CSTATE_EREDIS;
}

static void make_id(char *id, size_t n)
{
  unsigned char b[16];
  FILE *f = fopen("/dev/urandom", "rb");
  size_t got = f ? fread(b, 1, sizeof(b), f) : 0;
  if (f)
    fclose(f);
  if (got != sizeof(b)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = hash_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32));
    uint64_t y = hash_mix64(x ^ (uint64_t)ts.tv_sec);
    memcpy(b, &x, 8);
    memcpy(b + 8, &y, 8);
  }
  for (size_t i = 0; i < sizeof(b) && 2 * i + 2 < n; i++)
    snprintf(id + 2 * i, 3, "%02x", b[i]);
}

void cstate_fp(const char *url, uint32_t *b, int64_t *m)
{
  size_t len = strlen(url);
  uint64_t h1 = hash_mix64(hash_bytes(url, len, 0));
  uint64_t h2 = hash_mix64(hash_bytes(url, len, UINT64_C(0x9e3779b97f4a7c15)));
  *b = (uint32_t)(h1 >> 48) % CSTATE_BUCKETS;
  *m = (int64_t)h2;
}

int cstate_part(const char *hostkey)
{
  return (int)(hash_mix64(hash_str(hostkey)) % CSTATE_PARTS);
}

static cstate_t *cs_new(const char *url, const char *name, char *err, size_t n)
{
  if (!valid_name(name)) {
    snprintf(err, n,
             "crawl name '%s': use 1 to 64 letters, digits, '-', '_', '.'",
             name);
    return NULL;
  }
  cstate_t *cs = calloc(1, sizeof(*cs));
  if (cs == NULL) {
    snprintf(err, n, "out of memory");
    return NULL;
  }
  snprintf(cs->prefix, sizeof(cs->prefix), "tse:{%s}:", name);
  cs->r = rconn_open(url, 10, err, n);
  if (cs->r == NULL) {
    free(cs);
    return NULL;
  }
  return cs;
}

int cstate_join(const char *url, const char *name, const cstate_param_t *params,
                size_t np, const char *seed, const char *hostkey,
                cstate_t **out, bool *created, char *err, size_t n)
{
  *out = NULL;
  *created = false;
  cstate_t *cs = cs_new(url, name, err, n);
  if (cs == NULL)
    return CSTATE_EREDIS;
  char id[40];
  make_id(id, sizeof(id));
  uint32_t b;
  int64_t m;
  cstate_fp(seed, &b, &m);
  struct args a = { 0 };
  arg(&a, cs->prefix);
  arg(&a, id);
  argf(&a, "%d", CSTATE_PARTS);
  argf(&a, "%d", CSTATE_BUCKETS);
  arg(&a, seed);
  arg(&a, hostkey);
  argf(&a, "%d", cstate_part(hostkey));
  argf(&a, "%" PRIu32, b);
  argf(&a, "%" PRId64, m);
  for (size_t i = 0; i < np; i++) {
    arg(&a, params[i].name);
    arg(&a, params[i].value);
  }
  int rc = CSTATE_ENOMEM;
  redisReply *rep = NULL;
  if (a.nomem) {
    snprintf(err, n, "out of memory");
    goto out;
  }
  rep = rconn_eval(cs->r, &join_lua, 0, a.n, a.v, a.l);
  rc = status_of(cs, rep, "joining the crawl");
  if (rc != CSTATE_OK) {
    snprintf(err, n, "%s", cs->err);
    goto out;
  }
  if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 2) {
    snprintf(err, n, "joining the crawl: unexpected reply");
    rc = CSTATE_EREDIS;
    goto out;
  }
  const char *what = rep->element[0]->str;
  if (strcmp(what, "mismatch") == 0) {
    const char *was = rep->elements > 2 ? rep->element[2]->str : "";
    const char *opt = rep->element[1]->str;
    const char *now = "";
    for (size_t i = 0; i < np; i++)
      if (strcmp(params[i].name, opt) == 0)
        now = params[i].value;
    snprintf(err, n, "crawl '%s' was started with %s %s, not %s", name, opt,
             *was ? was : "unset", *now ? now : "unset");
    rc = CSTATE_EMISMATCH;
    goto out;
  }
  snprintf(cs->id, sizeof(cs->id), "%s", rep->element[1]->str);
  if (strcmp(what, "complete") == 0) {
    snprintf(err, n, "crawl '%s' is complete", name);
    rc = CSTATE_COMPLETE;
    goto out;
  }
  *created = strcmp(what, "created") == 0;
  *out = cs;
  cs = NULL;
  rc = CSTATE_OK;
out:
  if (rep)
    freeReplyObject(rep);
  args_free(&a);
  cstate_close(cs);
  return rc;
}

int cstate_open(const char *url, const char *name, cstate_t **out, char *err,
                size_t n)
{
  *out = NULL;
  cstate_t *cs = cs_new(url, name, err, n);
  if (cs == NULL)
    return CSTATE_EREDIS;
  char key[128];
  snprintf(key, sizeof(key), "%smeta", cs->prefix);
  redisReply *rep = rconn_cmdf(cs->r, "HGET", key, "id", NULL);
  int rc = status_of(cs, rep, "reading the crawl");
  if (rc == CSTATE_OK && rep->type != REDIS_REPLY_STRING) {
    snprintf(cs->err, sizeof(cs->err), "no crawl named '%s' in Redis", name);
    rc = CSTATE_ENOENT;
  }
  if (rc == CSTATE_OK) {
    snprintf(cs->id, sizeof(cs->id), "%s", rep->str);
    *out = cs;
  } else {
    snprintf(err, n, "%s", cs->err);
  }
  if (rep)
    freeReplyObject(rep);
  if (rc != CSTATE_OK)
    cstate_close(cs);
  return rc;
}

void cstate_close(cstate_t *cs)
{
  if (cs == NULL)
    return;
  rconn_close(cs->r);
  free(cs);
}

const char *cstate_error(const cstate_t *cs)
{
  return cs->err;
}

rconn_t *cstate_rconn(cstate_t *cs)
{
  return cs->r;
}

/* run: run script S with A, returning the status; *REP keeps the reply
 * when REP is not NULL. */
static int run(cstate_t *cs, const rscript_t *s, struct args *a,
               redisReply **rep)
{
  if (a->nomem) {
    snprintf(cs->err, sizeof(cs->err), "%s: out of memory", s->name);
    args_free(a);
    return CSTATE_ENOMEM;
  }
  redisReply *r = rconn_eval(cs->r, s, 0, a->n, a->v, a->l);
  args_free(a);
  int rc = status_of(cs, r, s->name);
  if (rep != NULL && rc == CSTATE_OK)
    *rep = r;
  else if (r != NULL)
    freeReplyObject(r);
  return rc;
}

/* ---- workers and leases ---- */

int cstate_register(cstate_t *cs, const char *info, char *id, size_t n)
{
  char key[128], val[320];
  snprintf(key, sizeof(key), "%sworker_seq", cs->prefix);
  redisReply *rep = rconn_cmdf(cs->r, "INCR", key, NULL);
  int rc = status_of(cs, rep, "registering the worker");
  if (rc != CSTATE_OK) {
    if (rep)
      freeReplyObject(rep);
    return rc;
  }
  snprintf(id, n, "w%lld", rep->integer);
  freeReplyObject(rep);
  snprintf(key, sizeof(key), "%sworkers", cs->prefix);
  snprintf(val, sizeof(val), "%s %lld", info, (long long)time(NULL));
  rep = rconn_cmdf(cs->r, "HSET", key, id, val, NULL);
  rc = status_of(cs, rep, "registering the worker");
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_heartbeat(cstate_t *cs, const char *id, long ttl_ms)
{
  char key[160], ttl[32];
  snprintf(key, sizeof(key), "%salive:%s", cs->prefix, id);
  snprintf(ttl, sizeof(ttl), "%ld", ttl_ms);
  redisReply *rep = rconn_cmdf(cs->r, "SET", key, "1", "PX", ttl, NULL);
  int rc = status_of(cs, rep, "heartbeat");
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_lease(cstate_t *cs, const char *what, const char *id, long ttl_ms,
                 uint64_t *token)
{
  struct args a = { 0 };
  arg(&a, cs->prefix);
  arg(&a, cs->id);
  arg(&a, what);
  arg(&a, id);
  argf(&a, "%ld", ttl_ms);
  argf(&a, "%" PRIu64, *token);
  redisReply *rep = NULL;
  int rc = run(cs, &lease_lua, &a, &rep);
  if (rc != CSTATE_OK)
    return rc;
  long long t = rep->type == REDIS_REPLY_INTEGER ? rep->integer : 0;
  freeReplyObject(rep);
  if (t <= 0)
    return 0;
  *token = (uint64_t)t;
  return 1;
}

int cstate_release(cstate_t *cs, const char *what, uint64_t token)
{
  struct args a = { 0 };
  arg(&a, cs->prefix);
  arg(&a, cs->id);
  arg(&a, what);
  argf(&a, "%" PRIu64, token);
  return run(cs, &release_lua, &a, NULL);
}

/* ---- the commit ---- */

static long long field_ll(const redisReply *rep, const char *name)
{
  for (size_t i = 0; i + 1 < rep->elements; i += 2)
    if (rep->element[i]->type == REDIS_REPLY_STRING &&
        strcmp(rep->element[i]->str, name) == 0 &&
        rep->element[i + 1]->type == REDIS_REPLY_STRING)
      return strtoll(rep->element[i + 1]->str, NULL, 10);
  return -1;
}

int cstate_commit_state(cstate_t *cs, cstate_commit_t *c)
{
  char key[128];
  snprintf(key, sizeof(key), "%scommit", cs->prefix);
  redisReply *rep = rconn_cmdf(cs->r, "HGETALL", key, NULL);
  int rc = status_of(cs, rep, "reading the commit");
  if (rc == CSTATE_OK &&
      (rep->type != REDIS_REPLY_ARRAY || rep->elements == 0)) {
    snprintf(cs->err, sizeof(cs->err),
             "the crawl's commit state is gone (did Redis come back empty?)");
    rc = CSTATE_LOST;
  }
  if (rc == CSTATE_OK) {
    c->next_seq = (uint64_t)field_ll(rep, "next_seq");
    c->next_commit = (uint64_t)field_ll(rep, "next_commit");
    c->pages = (long)field_ll(rep, "pages");
    c->journal = field_ll(rep, "journal");
    c->depth = (int)field_ll(rep, "depth");
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_seen_load(cstate_t *cs, void (*fn)(void *arg, uint32_t b, int64_t m),
                     void *arg)
{
  char match[128], cursor[32] = "0";
  size_t plen = strlen(cs->prefix) + strlen("seen:");
  snprintf(match, sizeof(match), "%sseen:*", cs->prefix);
  do {
    redisReply *rep = rconn_cmdf(cs->r, "SCAN", cursor, "MATCH", match, "COUNT",
                                 "1000", NULL);
    int rc = status_of(cs, rep, "reading the seen set");
    if (rc != CSTATE_OK) {
      if (rep)
        freeReplyObject(rep);
      return rc;
    }
    snprintf(cursor, sizeof(cursor), "%s", rep->element[0]->str);
    redisReply *keys = rep->element[1];
    for (size_t i = 0; i < keys->elements; i++) {
      const char *k = keys->element[i]->str;
      uint32_t b = (uint32_t)strtoul(k + plen, NULL, 10);
      redisReply *m = rconn_cmdf(cs->r, "SMEMBERS", k, NULL);
      rc = status_of(cs, m, "reading the seen set");
      if (rc != CSTATE_OK) {
        if (m)
          freeReplyObject(m);
        freeReplyObject(rep);
        return rc;
      }
      for (size_t j = 0; j < m->elements; j++)
        fn(arg, b, strtoll(m->element[j]->str, NULL, 10));
      freeReplyObject(m);
    }
    freeReplyObject(rep);
  } while (strcmp(cursor, "0") != 0);
  return CSTATE_OK;
}

int cstate_commit(cstate_t *cs, uint64_t token, uint64_t seq,
                  const cstate_add_t *adds, size_t na,
                  const cstate_commit_t *after, const char *result_id,
                  bool saved)
{
  struct args a = { 0 };
  arg(&a, cs->prefix);
  arg(&a, cs->id);
  argf(&a, "%" PRIu64, token);
  argf(&a, "%" PRIu64, seq);
  argf(&a, "%" PRIu64, after->next_seq);
  argf(&a, "%" PRIu64, after->next_commit);
  argf(&a, "%ld", after->pages);
  argf(&a, "%lld", after->journal);
  argf(&a, "%d", after->depth);
  arg(&a, result_id ? result_id : "");
  arg(&a, saved ? "1" : "0");
  for (size_t i = 0; i < na; i++) {
    uint32_t b;
    int64_t m;
    cstate_fp(adds[i].url, &b, &m);
    argf(&a, "%" PRIu64, adds[i].seq);
    argf(&a, "%d", adds[i].depth);
    arg(&a, adds[i].url);
    arg(&a, adds[i].hostkey);
    argf(&a, "%d", cstate_part(adds[i].hostkey));
    argf(&a, "%" PRIu32, b);
    argf(&a, "%" PRId64, m);
  }
  return run(cs, &commit_lua, &a, NULL);
}

/* ---- partitions ---- */

void cstate_items_free(cstate_item_t *items, size_t n)
{
  if (items == NULL)
    return;
  for (size_t i = 0; i < n; i++) {
    free(items[i].url);
    free(items[i].hostkey);
  }
  free(items);
}

/* entry_field: the value of field NAME of stream entry E ([id, [k, v,
 * ...]]), or NULL. */
static const redisReply *entry_field(const redisReply *e, const char *name)
{
  if (e == NULL || e->type != REDIS_REPLY_ARRAY || e->elements < 2 ||
      e->element[1]->type != REDIS_REPLY_ARRAY)
    return NULL;
  const redisReply *kv = e->element[1];
  for (size_t i = 0; i + 1 < kv->elements; i += 2)
    if (strcmp(kv->element[i]->str, name) == 0)
      return kv->element[i + 1];
  return NULL;
}

/* add_item: append entry E of partition PART to *V (size *N, room *CAP).
 * Entries deleted meanwhile come as nil and are skipped. */
static int add_item(cstate_item_t **v, size_t *n, size_t *cap, int part,
                    const redisReply *e)
{
  const redisReply *seq = entry_field(e, "seq"), *d = entry_field(e, "depth"),
                   *u = entry_field(e, "url"), *h = entry_field(e, "host");
  if (seq == NULL || d == NULL || u == NULL || h == NULL)
    return 0;
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 16;
    cstate_item_t *nv = realloc(*v, c * sizeof(*nv));
    if (nv == NULL)
      return -1;
    *v = nv;
    *cap = c;
  }
  cstate_item_t *it = &(*v)[*n];
  memset(it, 0, sizeof(*it));
  snprintf(it->id, sizeof(it->id), "%s", e->element[0]->str);
  it->part = part;
  it->seq = strtoull(seq->str, NULL, 10);
  it->depth = atoi(d->str);
  it->url = strdup(u->str);
  it->hostkey = strdup(h->str);
  (*n)++;
  return it->url && it->hostkey ? 0 : -1;
}

int cstate_take(cstate_t *cs, const int *parts, size_t np, const char *id,
                bool reclaim, size_t max, long block_ms, cstate_item_t **out)
{
  cstate_item_t *v = NULL;
  size_t n = 0, cap = 0;
  char key[128], count[32];
  int rc = CSTATE_OK;
  *out = NULL;
  snprintf(count, sizeof(count), "%zu", max);
  for (size_t i = 0; reclaim && i < np && n < max; i++) {
    snprintf(key, sizeof(key), "%spart:%d", cs->prefix, parts[i]);
    char start[32] = "0-0";
    do {
      redisReply *rep = rconn_cmdf(cs->r, "XAUTOCLAIM", key, "g", id, "0",
                                   start, "COUNT", count, NULL);
      rc = status_of(cs, rep, "reclaiming items");
      if (rc != CSTATE_OK) {
        if (rep)
          freeReplyObject(rep);
        goto fail;
      }
      snprintf(start, sizeof(start), "%s", rep->element[0]->str);
      const redisReply *es = rep->element[1];
      for (size_t j = 0; j < es->elements; j++)
        if (add_item(&v, &n, &cap, parts[i], es->element[j]) != 0) {
          freeReplyObject(rep);
          rc = CSTATE_ENOMEM;
          goto fail;
        }
      freeReplyObject(rep);
    } while (strcmp(start, "0-0") != 0 && n < max);
  }
  if (n == 0 && np > 0) {
    /* XREADGROUP GROUP g ID COUNT max BLOCK ms STREAMS k... >... */
    struct args a = { 0 };
    char blk[32];
    snprintf(blk, sizeof(blk), "%ld", block_ms);
    arg(&a, "XREADGROUP");
    arg(&a, "GROUP");
    arg(&a, "g");
    arg(&a, id);
    arg(&a, "COUNT");
    arg(&a, count);
    if (block_ms > 0) {
      arg(&a, "BLOCK");
      arg(&a, blk);
    }
    arg(&a, "STREAMS");
    for (size_t i = 0; i < np; i++) {
      char k[128];
      snprintf(k, sizeof(k), "%spart:%d", cs->prefix, parts[i]);
      argf(&a, "%s", k);
    }
    for (size_t i = 0; i < np; i++)
      arg(&a, ">");
    if (a.nomem) {
      args_free(&a);
      rc = CSTATE_ENOMEM;
      goto fail;
    }
    redisReply *rep = rconn_cmd(cs->r, a.n, a.v, a.l);
    args_free(&a);
    rc = status_of(cs, rep, "reading items");
    if (rc != CSTATE_OK) {
      if (rep)
        freeReplyObject(rep);
      goto fail;
    }
    for (size_t s = 0; rep->type == REDIS_REPLY_ARRAY && s < rep->elements;
         s++) {
      const redisReply *st = rep->element[s];
      const char *k = st->element[0]->str;
      int part = atoi(strrchr(k, ':') + 1);
      const redisReply *es = st->element[1];
      for (size_t j = 0; j < es->elements; j++)
        if (add_item(&v, &n, &cap, part, es->element[j]) != 0) {
          freeReplyObject(rep);
          rc = CSTATE_ENOMEM;
          goto fail;
        }
    }
    freeReplyObject(rep);
  }
  *out = v;
  return (int)n;
fail:
  if (rc == CSTATE_ENOMEM)
    snprintf(cs->err, sizeof(cs->err), "reading items: out of memory");
  cstate_items_free(v, n);
  return rc;
}

int cstate_result(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                  const void *data, size_t len)
{
  struct args a = { 0 };
  arg(&a, cs->prefix);
  arg(&a, cs->id);
  argf(&a, "%d", it->part);
  argf(&a, "%" PRIu64, token);
  arg(&a, it->id);
  argf(&a, "%" PRIu64, it->seq);
  arg_raw(&a, data, len, NULL);
  return run(cs, &result_lua, &a, NULL);
}

void cstate_results_free(cstate_result_t *r, size_t n)
{
  if (r == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    free(r[i].data);
  free(r);
}

int cstate_results(cstate_t *cs, const char *after, size_t max, long block_ms,
                   cstate_result_t **out)
{
  char key[128], count[32], blk[32];
  *out = NULL;
  snprintf(key, sizeof(key), "%sresults", cs->prefix);
  snprintf(count, sizeof(count), "%zu", max);
  snprintf(blk, sizeof(blk), "%ld", block_ms);
  redisReply *rep = block_ms > 0
                    ? rconn_cmdf(cs->r, "XREAD", "COUNT", count, "BLOCK", blk,
                                 "STREAMS", key, after, NULL)
                    : rconn_cmdf(cs->r, "XREAD", "COUNT", count, "STREAMS", key,
                                 after, NULL);
  int rc = status_of(cs, rep, "reading results");
  if (rc != CSTATE_OK || rep->type != REDIS_REPLY_ARRAY || rep->elements == 0) {
    if (rep)
      freeReplyObject(rep);
    return rc;
  }
  const redisReply *es = rep->element[0]->element[1];
  cstate_result_t *v = calloc(es->elements ? es->elements : 1, sizeof(*v));
  size_t n = 0;
  if (v == NULL) {
    freeReplyObject(rep);
    snprintf(cs->err, sizeof(cs->err), "reading results: out of memory");
    return CSTATE_ENOMEM;
  }
  for (size_t j = 0; j < es->elements; j++) {
    const redisReply *e = es->element[j], *s = entry_field(e, "seq"),
                     *d = entry_field(e, "data");
    if (s == NULL || d == NULL)
      continue;
    snprintf(v[n].id, sizeof(v[n].id), "%s", e->element[0]->str);
    v[n].seq = strtoull(s->str, NULL, 10);
    v[n].data = malloc(d->len + 1);
    if (v[n].data == NULL) {
      cstate_results_free(v, n);
      freeReplyObject(rep);
      snprintf(cs->err, sizeof(cs->err), "reading results: out of memory");
      return CSTATE_ENOMEM;
    }
    memcpy(v[n].data, d->str, d->len);
    v[n].data[d->len] = '\0';
    v[n].len = d->len;
    n++;
  }
  freeReplyObject(rep);
  *out = v;
  return (int)n;
}

/* ---- the crawl as a whole ---- */

int cstate_complete(cstate_t *cs)
{
  char key[128];
  snprintf(key, sizeof(key), "%smeta", cs->prefix);
  redisReply *rep = rconn_cmdf(cs->r, "HMGET", key, "id", "state", NULL);
  int rc = status_of(cs, rep, "reading the crawl");
  if (rc == CSTATE_OK) {
    if (rep->elements < 2 || rep->element[0]->type != REDIS_REPLY_STRING ||
        strcmp(rep->element[0]->str, cs->id) != 0) {
      snprintf(cs->err, sizeof(cs->err),
               "crawl %s is no longer in Redis (did Redis come back empty?)",
               cs->prefix);
      rc = CSTATE_LOST;
    } else {
      rc = rep->element[1]->type == REDIS_REPLY_STRING &&
           strcmp(rep->element[1]->str, "complete") == 0;
    }
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_status(cstate_t *cs, FILE *fp)
{
  int complete = cstate_complete(cs);
  if (complete < 0)
    return complete;
  cstate_commit_t c;
  int rc = cstate_commit_state(cs, &c);
  if (rc != CSTATE_OK)
    return rc;
  fprintf(fp, "crawl %.*s: %s\n", (int)strlen(cs->prefix) - 1, cs->prefix,
          complete ? "complete" : "running");
  fprintf(fp,
          "items: %" PRIu64 " added, %" PRIu64 " committed; pages saved: %ld\n",
          c.next_seq, c.next_commit, c.pages);
  /* Workers: registered, and which are alive now. */
  char key[160];
  snprintf(key, sizeof(key), "%sworkers", cs->prefix);
  redisReply *w = rconn_cmdf(cs->r, "HGETALL", key, NULL);
  rc = status_of(cs, w, "reading workers");
  if (rc != CSTATE_OK) {
    if (w)
      freeReplyObject(w);
    return rc;
  }
  long alive = 0;
  for (size_t i = 0; i + 1 < w->elements; i += 2) {
    snprintf(key, sizeof(key), "%salive:%s", cs->prefix, w->element[i]->str);
    redisReply *a = rconn_cmdf(cs->r, "EXISTS", key, NULL);
    bool up = a && a->type == REDIS_REPLY_INTEGER && a->integer == 1;
    if (a)
      freeReplyObject(a);
    if (!up)
      continue;
    alive++;
    /* "host pid started" */
    const char *info = w->element[i + 1]->str;
    const char *sp = strrchr(info, ' ');
    time_t since = sp ? (time_t)strtoll(sp + 1, NULL, 10) : 0;
    char when[32] = "?";
    struct tm tm;
    if (since && gmtime_r(&since, &tm))
      strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(fp, "worker %s: %.*s, alive since %s\n", w->element[i]->str,
            sp ? (int)(sp - info) : (int)strlen(info), info, when);
  }
  fprintf(fp, "workers alive: %ld of %zu registered\n", alive, w->elements / 2);
  freeReplyObject(w);
  /* Queued and in flight, over every partition. */
  long long queued = 0, inflight = 0;
  for (int p = 0; p < CSTATE_PARTS; p++) {
    snprintf(key, sizeof(key), "%spart:%d", cs->prefix, p);
    redisReply *x = rconn_cmdf(cs->r, "XLEN", key, NULL);
    if (x && x->type == REDIS_REPLY_INTEGER)
      queued += x->integer;
    if (x)
      freeReplyObject(x);
    x = rconn_cmdf(cs->r, "XPENDING", key, "g", NULL);
    if (x && x->type == REDIS_REPLY_ARRAY && x->elements > 0 &&
        x->element[0]->type == REDIS_REPLY_INTEGER)
      inflight += x->element[0]->integer;
    if (x)
      freeReplyObject(x);
  }
  snprintf(key, sizeof(key), "%sresults", cs->prefix);
  redisReply *x = rconn_cmdf(cs->r, "XLEN", key, NULL);
  long long waiting = x && x->type == REDIS_REPLY_INTEGER ? x->integer : 0;
  if (x)
    freeReplyObject(x);
  fprintf(fp,
          "URLs queued: %lld (in flight: %lld); fetched, waiting for the "
          "commit: %lld\n",
          queued - inflight, inflight, waiting);
  /* Pages per depth and the rest. */
  snprintf(key, sizeof(key), "%sstats", cs->prefix);
  x = rconn_cmdf(cs->r, "HGETALL", key, NULL);
  for (int d = 0; x && x->type == REDIS_REPLY_ARRAY; d++) {
    char f[32];
    snprintf(f, sizeof(f), "depth:%d", d);
    long long v = field_ll(x, f);
    if (v < 0)
      break;
    fprintf(fp, "depth %d: %lld pages\n", d, v);
  }
  if (x && x->type == REDIS_REPLY_ARRAY) {
    long long other = field_ll(x, "other");
    fprintf(fp, "not saved (failed, skipped, duplicate): %lld\n",
            other < 0 ? 0 : other);
  }
  if (x)
    freeReplyObject(x);
  return complete;
}
