/* cstate.c: see cstate.h. The items of the partitions and the results
 * are in cstate_queue.c, --status in cstate_status.c, workers, leases,
 * the plan and pauses in cstate_lease.c.
 *
 * Every change goes through one Lua script, so that it is atomic and
 * checks, before it changes anything, that the crawl is still the one
 * joined (meta id) and that the caller's lease still has its fencing
 * token. Each script gets the crawl's meta key as KEYS[1] and builds
 * the others from it: one hash tag, one slot.
 *
 * Sent again: rconn sends a command again on a new connection when the
 * old one broke, and the first may have run. So each script here knows
 * when it ran already and answers as it did: join by the id it would
 * create, commit by the seq and token it recorded last (and
 * cstate_lease.c's, cstate_queue.c's theirs). */
#include "cstate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cstate_int.h"
#include "fptable.h"
#include "hash.h"

/* ---- argument vectors ---- */

void args_add_raw(struct args *a, const char *s, size_t len, char *owned)
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

void args_add(struct args *a, const char *s)
{
  args_add_raw(a, s, strlen(s), NULL);
}

void args_addf(struct args *a, const char *fmt, ...)
{
  char buf[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  char *s = strdup(buf);
  if (s == NULL) {
    a->nomem = true;
    return;
  }
  args_add_raw(a, s, strlen(s), s);
}

void args_add_copy(struct args *a, const char *s, size_t len)
{
  char *c = malloc(len + 1);
  if (c == NULL) {
    a->nomem = true;
    return;
  }
  memcpy(c, s, len);
  c[len] = '\0';
  args_add_raw(a, c, len, c);
}

char *cs_digits(char *end, uint64_t v)
{
  do
    *--end = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  return end;
}

void args_addu(struct args *a, uint64_t v)
{
  char buf[24], *e = buf + sizeof(buf), *s = cs_digits(e, v);
  args_add_copy(a, s, (size_t)(e - s));
}

void args_addi(struct args *a, int64_t v)
{
  if (v >= 0) {
    args_addu(a, (uint64_t)v);
    return;
  }
  char buf[24], *e = buf + sizeof(buf), *s = cs_digits(e, -(uint64_t)v);
  *--s = '-';
  args_add_copy(a, s, (size_t)(e - s));
}

void args_truncate(struct args *a, int n)
{
  for (int i = n; i < a->n; i++)
    free(a->own[i]);
  a->n = n;
  a->nomem = false;
}

void args_free(struct args *a)
{
  for (int i = 0; i < a->n; i++)
    free(a->own[i]);
  free(a->v);
  free(a->l);
  free(a->own);
  memset(a, 0, sizeof(*a));
}

/* ---- replies ---- */

bool rep_is(const redisReply *r, int type)
{
  return r != NULL && r->type == type;
}

bool rep_array(const redisReply *r, size_t min)
{
  return rep_is(r, REDIS_REPLY_ARRAY) && r->elements >= min;
}

const char *rep_str(const redisReply *r)
{
  return r != NULL &&
             (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
         ? r->str
         : NULL;
}

const char *cs_key(const cstate_t *cs, char *buf, size_t n, const char *what)
{
  snprintf(buf, n, "%s%s", cs->prefix, what);
  return buf;
}

int cs_unexpected(cstate_t *cs, const char *what)
{
  snprintf(cs->err, sizeof(cs->err), "%s: an unexpected reply from Redis",
           what);
  return CRAWL_EREDIS;
}

int cs_status(cstate_t *cs, const redisReply *rep, const char *what)
{
  if (rep == NULL) {
    snprintf(cs->err, sizeof(cs->err), "%s: %s", what, rconn_error(cs->r));
    return CRAWL_EREDIS;
  }
  if (rep->type != REDIS_REPLY_ERROR)
    return CRAWL_OK;
  snprintf(cs->err, sizeof(cs->err), "%s: %s", what, rep->str);
  if (strncmp(rep->str, "LOST", 4) == 0) {
    snprintf(cs->err, sizeof(cs->err),
             "crawl %.*s is no longer in Redis (did Redis come back empty?)",
             (int)strlen(cs->prefix) - 1, cs->prefix);
    return CRAWL_ELOST;
  }
  if (strncmp(rep->str, "FENCED", 6) == 0)
    return CRAWL_EFENCED;
  if (strncmp(rep->str, "ORDER", 5) == 0)
    return CRAWL_EORDER;
  if (strncmp(rep->str, "OOM", 3) == 0)
    return CRAWL_ENOMEM;
  return CRAWL_EREDIS;
}

int cs_run(cstate_t *cs, const rscript_t *s, struct args *a, bool once,
           redisReply **rep)
{
  if (a->nomem) {
    snprintf(cs->err, sizeof(cs->err), "%s: out of memory", s->name);
    args_free(a);
    return CRAWL_ENOMEM;
  }
  /* KEYS[1], then the arguments. */
  struct args k = { 0 };
  args_add(&k, cs->meta);
  for (int i = 0; i < a->n; i++)
    args_add_raw(&k, a->v[i], a->l[i], NULL);
  redisReply *r = NULL;
  if (!k.nomem)
    r = once ? rconn_eval_once(cs->r, s, 1, k.n, k.v, k.l)
             : rconn_eval(cs->r, s, 1, k.n, k.v, k.l);
  bool nomem = k.nomem;
  args_free(&k);
  args_free(a);
  if (nomem) {
    snprintf(cs->err, sizeof(cs->err), "%s: out of memory", s->name);
    return CRAWL_ENOMEM;
  }
  int rc = cs_status(cs, r, s->name);
  if (rep != NULL && rc == CRAWL_OK)
    *rep = r;
  else if (r != NULL)
    freeReplyObject(r);
  return rc;
}

int cs_queue(cstate_t *cs, const rscript_t *s, struct args *a)
{
  struct args k = { 0 };
  args_add(&k, cs->meta);
  for (int i = 0; i < a->n; i++)
    args_add_raw(&k, a->v[i], a->l[i], NULL);
  int rc = CRAWL_ENOMEM;
  if (!a->nomem && !k.nomem)
    rc = rconn_queue_eval(cs->r, s, 1, k.n, k.v, k.l) == 0 ? CRAWL_OK
                                                           : CRAWL_EREDIS;
  if (rc != CRAWL_OK)
    snprintf(cs->err, sizeof(cs->err), "%s: %s", s->name,
             rc == CRAWL_ENOMEM ? "out of memory" : rconn_error(cs->r));
  args_free(&k);
  args_free(a);
  return rc;
}

/* ---- the seen set ---- */

/* The seen set in Redis is a log: `seen:K` strings, each a run of
 * fingerprints of SEEN_FP bytes (the bucket's 2, then the member's 8,
 * big-endian) that a commit appends to, one APPEND a batch, K moving on
 * once one holds SEEN_CHUNK bytes (a string holds 512 MB at most). Only
 * a committer taking over reads it (cstate_seen_load): the commit's own
 * dedup is its copy in memory. */
enum { SEEN_FP = 10 };
#define SEEN_CHUNK 41943040 /* 4 Mi fingerprints */
#define SEEN_CHUNK_S "41943040"
_Static_assert(SEEN_CHUNK % SEEN_FP == 0, "a chunk holds whole fingerprints");

static void seen_fp(char out[SEEN_FP], uint32_t b, int64_t m)
{
  uint64_t u = (uint64_t)m;
  out[0] = (char)(b >> 8);
  out[1] = (char)b;
  for (int i = 0; i < 8; i++)
    out[2 + i] = (char)(u >> (56 - 8 * i));
}

static void seen_unfp(const unsigned char *in, uint32_t *b, int64_t *m)
{
  uint64_t u = 0;
  for (int i = 0; i < 8; i++)
    u = (u << 8) | in[2 + i];
  *b = (uint32_t)in[0] << 8 | in[1];
  *m = (int64_t)u;
}

/* ---- scripts ---- */

/* ARGV: new id, nparts, buckets, the seed's item (cs_add_item), its
 * part, its fingerprint (SEEN_FP bytes), then option name and value
 * pairs. Sent again after it created the crawl, it finds its own id:
 * created. */
static const rscript_t join_lua = {
  "join", "local meta = KEYS[1]\n"
          "local p = string.sub(meta, 1, -5)\n"
          "if redis.call('EXISTS', meta) == 0 then\n"
          "  redis.call('HSET', meta, 'id', ARGV[1], 'nparts', ARGV[2],\n"
          "             'buckets', ARGV[3], 'state', 'running',\n"
          "             'created', redis.call('TIME')[1])\n"
          "  for i = 7, #ARGV, 2 do\n"
          "    redis.call('HSET', meta, 'opt:'..ARGV[i], ARGV[i + 1])\n"
          "  end\n"
          "  redis.call('HSET', p..'commit', 'next_seq', 1, 'next_commit', 0,\n"
          "             'pages', 0, 'journal', 0, 'depth', 0, 'noindex', 0)\n"
          "  redis.call('DEL', p..'done')\n"
          "  redis.call('APPEND', p..'seen:0', ARGV[6])\n"
          "  redis.call('XADD', p..'part:'..ARGV[5], '*', 'i', ARGV[4])\n"
          "  redis.call('SADD', p..'ready', ARGV[5])\n"
          "  return {'created', ARGV[1]}\n"
          "end\n"
          "local id = redis.call('HGET', meta, 'id')\n"
          "if id == false then\n"
          "  return redis.error_reply('LOST the crawl has no id')\n"
          "end\n"
          "if id == ARGV[1] then return {'created', id} end\n"
          "for i = 7, #ARGV, 2 do\n"
          "  local v = redis.call('HGET', meta, 'opt:'..ARGV[i])\n"
          "  if v == false then v = '' end\n"
          "  if v ~= ARGV[i + 1] then return {'mismatch', ARGV[i], v} end\n"
          "end\n"
          "for _, k in ipairs(redis.call('HKEYS', meta)) do\n"
          "  if string.sub(k, 1, 4) == 'opt:' then\n"
          "    local name, given = string.sub(k, 5), false\n"
          "    for i = 7, #ARGV, 2 do\n"
          "      if ARGV[i] == name then given = true end\n"
          "    end\n"
          "    if not given then\n"
          "      return {'mismatch', name, redis.call('HGET', meta, k)}\n"
          "    end\n"
          "  end\n"
          "end\n"
          "if redis.call('HGET', meta, 'state') == 'complete' then\n"
          "  return {'complete', id}\n"
          "end\n"
          "return {'joined', id}\n"
};

/* ARGV: id, worker ('': any), then the commits, in seq order, each
 * COMMIT_FIELDS and its adds. All of them, or none: every check is made
 * before anything changes. Sent again after it ran: last_seq and
 * last_token are the last commit's. */
static const rscript_t commit_lua = {
  "commit", PRELUDE
  "local lk = p..'lease:commit'\n"
  "local tok = redis.call('HGET', lk, 'token')\n"
  "if ARGV[2] ~= '' and redis.call('HGET', lk, 'owner') ~= ARGV[2] then\n"
  "  return redis.error_reply('FENCED the commit lease is not held')\n"
  "end\n"
  "local at, na, i = {}, {}, 3\n"
  "while i <= #ARGV do\n"
  "  if ARGV[i] ~= tok then\n"
  "    return redis.error_reply('FENCED the commit lease is not held')\n"
  "  end\n"
  "  local n = tonumber(ARGV[i + 10])\n"
  "  if not n or n < 0 or n % 1 ~= 0 then break end\n"
  "  at[#at + 1] = i\n"
  "  na[i] = n\n"
  "  i = i + 11 + 3 * n\n"
  "end\n"
  "if i ~= #ARGV + 1 then\n"
  "  return redis.error_reply('ERR a malformed batch of commits')\n"
  "end\n"
  "if #at == 0 then return 'OK' end\n"
  "local first, last = at[1], at[#at]\n"
  "local c = p..'commit'\n"
  "local nc = redis.call('HGET', c, 'next_commit')\n"
  "if nc ~= ARGV[first + 1] then\n"
  "  if redis.call('HGET', c, 'last_seq') == ARGV[last + 1] and\n"
  "     redis.call('HGET', c, 'last_token') == ARGV[last] then\n"
  "    return 'OK'\n"
  "  end\n"
  "  return redis.error_reply('ORDER committing '..ARGV[first + 1]..\n"
  "                           ', next is '..tostring(nc))\n"
  "end\n"
  "if tonumber(ARGV[first + 2]) < tonumber(redis.call('HGET', c, 'next_seq'))\n"
  "then\n"
  "  return redis.error_reply('ORDER next_seq would go back')\n"
  "end\n"
  "for j = 2, #at do\n"
  "  if ARGV[at[j] + 1] ~= ARGV[at[j - 1] + 3] or\n"
  "     tonumber(ARGV[at[j] + 2]) < tonumber(ARGV[at[j - 1] + 2]) then\n"
  "    return redis.error_reply('ORDER a batch of commits out of order')\n"
  "  end\n"
  "end\n"
  "local stats, gone, ready, rd, fps = {}, {}, {}, {}, {}\n"
  "for _, b in ipairs(at) do\n"
  "  for i = b + 11, b + 10 + 3 * na[b], 3 do fps[#fps + 1] = ARGV[i + 2] end\n"
  "end\n"
  "if #fps > 0 then\n"
  "  -- First: the one write that could fail (a key of another type).\n"
  "  local k = tonumber(redis.call('HGET', c, 'seen_chunk') or '0')\n"
  "  if redis.call('STRLEN', p..'seen:'..k) >= " SEEN_CHUNK_S " then\n"
  "    k = k + 1\n"
  "  end\n"
  "  redis.call('APPEND', p..'seen:'..k, table.concat(fps))\n"
  "  redis.call('HSET', c, 'seen_chunk', k)\n"
  "end\n"
  "for _, b in ipairs(at) do\n"
  "  for i = b + 11, b + 10 + 3 * na[b], 3 do\n"
  "    if ARGV[i] ~= '' then\n"
  "      redis.call('XADD', p..'part:'..ARGV[i + 1], '*', 'i', ARGV[i])\n"
  "      if not rd[ARGV[i + 1]] then\n"
  "        rd[ARGV[i + 1]] = true\n"
  "        ready[#ready + 1] = ARGV[i + 1]\n"
  "      end\n"
  "    end\n"
  "  end\n"
  "  for id in string.gmatch(ARGV[b + 7], '%S+') do gone[#gone + 1] = id end\n"
  "  local s = ARGV[b + 8] == '1' and 'depth:'..ARGV[b + 6] or 'other'\n"
  "  stats[s] = (stats[s] or 0) + 1\n"
  "end\n"
  "redis.call('HSET', c, 'next_seq', ARGV[last + 2],\n"
  "           'next_commit', ARGV[last + 3], 'pages', ARGV[last + 4],\n"
  "           'journal', ARGV[last + 5], 'depth', ARGV[last + 6],\n"
  "           'noindex', ARGV[last + 9], 'last_seq', ARGV[last + 1],\n"
  "           'last_token', ARGV[last])\n"
  "if #gone > 0 then redis.call('XDEL', p..'results', unpack(gone)) end\n"
  "if #ready > 0 then redis.call('SADD', p..'ready', unpack(ready)) end\n"
  "for k, v in pairs(stats) do redis.call('HINCRBY', p..'stats', k, v) end\n"
  "if ARGV[last + 3] == ARGV[last + 2] then\n"
  "  redis.call('HSET', meta, 'state', 'complete')\n"
  "  redis.call('XADD', p..'done', '*', 'complete', '1')\n"
  "  -- Results published twice and read after their seq's commit.\n"
  "  redis.call('DEL', p..'results')\n"
  "end\n"
  "return 'OK'\n"
};

/* ---- helpers ---- */

bool cstate_name_ok(const char *name)
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

_Static_assert(CSTATE_BUCKETS == 1 << 16, "a bucket is fp[0]'s top 16 bits");

/* fp_split: bucket and member of FP, cstate_fp_join's inverse. */
static void fp_split(const uint64_t fp[2], uint32_t *b, int64_t *m)
{
  *b = (uint32_t)(fp[0] >> 48);
  *m = (int64_t)fp[1];
}

void cstate_fp_join(uint32_t b, int64_t m, uint64_t fp[2])
{
  fp[0] = (uint64_t)b << 48;
  fp[1] = (uint64_t)m;
}

void cstate_fp(const char *url, uint32_t *b, int64_t *m)
{
  uint64_t fp[2];
  fptable_hash128(url, strlen(url), fp);
  fp_split(fp, b, m);
}

int cstate_part(const char *hostkey)
{
  return (int)(hash_mix64(hash_str(hostkey)) % CSTATE_PARTS);
}

/* cs_new: a handle on crawl NAME at URL, connected; a Redis loading its
 * data set waited for up to WAIT seconds. */
static cstate_t *cs_new(const char *url, const char *name, double wait,
                        char *err, size_t n)
{
  if (!cstate_name_ok(name)) {
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
  cs_key(cs, cs->meta, sizeof(cs->meta), "meta");
  cs->r = rconn_open_loaded(url, CSTATE_TIMEOUT, wait, err, n);
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
  /* A worker started with a Redis that restarts (one supervisor for
   * both, say) waits for it, as one running does, rather than fail at
   * once with "LOADING". */
  cstate_t *cs = cs_new(url, name, RCONN_RETRY_SECONDS, err, n);
  if (cs == NULL)
    return CRAWL_EREDIS;
  char id[40];
  make_id(id, sizeof(id));
  uint32_t b;
  int64_t m;
  cstate_fp(seed, &b, &m);
  struct args a = { 0 };
  args_add(&a, id);
  args_addf(&a, "%d", CSTATE_PARTS);
  args_addf(&a, "%d", CSTATE_BUCKETS);
  cs_add_item(&a, 0, 0, hostkey, seed);
  args_addf(&a, "%d", cstate_part(hostkey));
  char fp[SEEN_FP];
  seen_fp(fp, b, m);
  args_add_raw(&a, fp, sizeof(fp), NULL);
  for (size_t i = 0; i < np; i++) {
    args_add(&a, params[i].name);
    args_add(&a, params[i].value);
  }
  /* Recorded as an option is: a crawl laid out otherwise in Redis (by
   * another version of the crawler) is refused, not misread. */
  args_add(&a, "redis-layout");
  args_add(&a, CSTATE_LAYOUT);
  redisReply *rep = NULL;
  int rc = cs_run(cs, &join_lua, &a, false, &rep);
  if (rc == CRAWL_OK && (!rep_array(rep, 2) || !rep_str(rep->element[0]) ||
                         !rep_str(rep->element[1])))
    rc = cs_unexpected(cs, "joining the crawl");
  if (rc != CRAWL_OK) {
    snprintf(err, n, "%s", cs->err);
    goto out;
  }
  const char *what = rep->element[0]->str;
  if (strcmp(what, "mismatch") == 0) {
    const char *opt = rep->element[1]->str;
    const char *was = rep->elements > 2 && rep_str(rep->element[2])
                      ? rep->element[2]->str
                      : "";
    const char *now = "";
    for (size_t i = 0; i < np; i++)
      if (strcmp(params[i].name, opt) == 0)
        now = params[i].value;
    if (strcmp(opt, "redis-layout") == 0)
      snprintf(err, n,
               "crawl '%s' was recorded in Redis by another version of the "
               "crawler (layout %s, this one's %s): give it a new "
               "--crawl-name",
               name, *was ? was : "1", CSTATE_LAYOUT);
    else
      snprintf(err, n, "crawl '%s' was started with %s %s, not %s", name, opt,
               *was ? was : "unset", *now ? now : "unset");
    rc = CRAWL_EMISMATCH;
    goto out;
  }
  snprintf(cs->id, sizeof(cs->id), "%s", rep->element[1]->str);
  if (strcmp(what, "complete") == 0) {
    snprintf(err, n, "crawl '%s' is complete", name);
    rc = CRAWL_EDONE;
    goto out;
  }
  *created = strcmp(what, "created") == 0;
  *out = cs;
  cs = NULL;
out:
  if (rep)
    freeReplyObject(rep);
  cstate_close(cs);
  return rc;
}

int cstate_open(const char *url, const char *name, cstate_t **out, char *err,
                size_t n)
{
  *out = NULL;
  cstate_t *cs = cs_new(url, name, 0, err, n);
  if (cs == NULL)
    return CRAWL_EREDIS;
  redisReply *rep = rconn_cmdf(cs->r, "HGET", cs->meta, "id", NULL);
  int rc = cs_status(cs, rep, "reading the crawl");
  if (rc == CRAWL_OK && rep_str(rep) == NULL) {
    snprintf(cs->err, sizeof(cs->err), "no crawl named '%s' in Redis", name);
    rc = CRAWL_ENOENT;
  }
  if (rc == CRAWL_OK) {
    snprintf(cs->id, sizeof(cs->id), "%s", rep->str);
    *out = cs;
  } else {
    snprintf(err, n, "%s", cs->err);
  }
  if (rep)
    freeReplyObject(rep);
  if (rc != CRAWL_OK)
    cstate_close(cs);
  return rc;
}

void cstate_close(cstate_t *cs)
{
  if (cs == NULL)
    return;
  rconn_close(cs->r);
  args_free(&cs->rq);
  args_free(&cs->cq);
  free(cs);
}

void cstate_set_worker(cstate_t *cs, const char *id)
{
  snprintf(cs->worker, sizeof(cs->worker), "%s", id);
}

const char *cstate_error(const cstate_t *cs)
{
  return cs->err;
}

const char *cstate_crawl_id(const cstate_t *cs)
{
  return cs->id;
}

rconn_t *cstate_rconn(cstate_t *cs)
{
  return cs->r;
}

long long cstate_client_id(const cstate_t *cs)
{
  return rconn_client_id(cs->r);
}

int cstate_unblock(cstate_t *cs, long long id)
{
  char ids[32];
  snprintf(ids, sizeof(ids), "%lld", id);
  rconn_set_retry(cs->r, 0);
  redisReply *rep = rconn_cmdf(cs->r, "CLIENT", "UNBLOCK", ids, NULL);
  int rc = cs_status(cs, rep, "CLIENT UNBLOCK");
  if (rep != NULL)
    freeReplyObject(rep);
  return rc;
}

/* ---- the commit ---- */

/* field_ll: the integer value of field NAME of HGETALL reply REP, or -1. */
static long long field_ll(const redisReply *rep, const char *name)
{
  for (size_t i = 0; i + 1 < rep->elements; i += 2)
    if (rep_str(rep->element[i]) && strcmp(rep->element[i]->str, name) == 0 &&
        rep_str(rep->element[i + 1]))
      return strtoll(rep->element[i + 1]->str, NULL, 10);
  return -1;
}

int cstate_commit_state(cstate_t *cs, cstate_commit_t *c)
{
  int complete = cstate_complete(cs); /* the crawl's id checked */
  if (complete < 0)
    return complete;
  char key[128];
  redisReply *rep = rconn_cmdf(cs->r, "HGETALL",
                               cs_key(cs, key, sizeof(key), "commit"), NULL);
  int rc = cs_status(cs, rep, "reading the commit");
  if (rc == CRAWL_OK && !rep_array(rep, 2)) {
    snprintf(cs->err, sizeof(cs->err),
             "the crawl's commit state is gone (did Redis come back empty?)");
    rc = CRAWL_ELOST;
  }
  if (rc == CRAWL_OK) {
    long long v[6] = { field_ll(rep, "next_seq"), field_ll(rep, "next_commit"),
                       field_ll(rep, "pages"),    field_ll(rep, "journal"),
                       field_ll(rep, "depth"),    field_ll(rep, "noindex") };
    for (int i = 0; i < 6; i++)
      if (v[i] < 0)
        rc = cs_unexpected(cs, "reading the commit");
    c->next_seq = (uint64_t)v[0];
    c->next_commit = (uint64_t)v[1];
    c->pages = (long)v[2];
    c->journal = v[3];
    c->depth = (int)v[4];
    c->noindex = (long)v[5];
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_seen_load(cstate_t *cs, void (*fn)(void *arg, uint32_t b, int64_t m),
                     void *arg)
{
  if (rconn_queued(cs->r) != 0 || cs->nr + cs->nc != 0) {
    snprintf(cs->err, sizeof(cs->err),
             "reading the seen set: commands left queued");
    return CRAWL_EREDIS;
  }
  int complete = cstate_complete(cs); /* the crawl's id checked */
  if (complete < 0)
    return complete;
  char key[160];
  redisReply *rep = rconn_cmdf(cs->r, "HGET",
                               cs_key(cs, key, sizeof(key), "commit"),
                               "seen_chunk", NULL);
  int rc = cs_status(cs, rep, "reading the seen set");
  long long last = rc == CRAWL_OK && rep_str(rep) ? atoll(rep->str) : 0;
  if (rep)
    freeReplyObject(rep);
  /* A few MB a round trip: the reply is held whole. */
  const long long step = 4 * 1024 * 1024 / SEEN_FP * SEEN_FP;
  for (long long k = 0; rc == CRAWL_OK && k <= last; k++) {
    snprintf(key, sizeof(key), "%sseen:%lld", cs->prefix, k);
    for (long long off = 0; rc == CRAWL_OK; off += step) {
      char from[24], to[24];
      snprintf(from, sizeof(from), "%lld", off);
      snprintf(to, sizeof(to), "%lld", off + step - 1);
      rep = rconn_cmdf(cs->r, "GETRANGE", key, from, to, NULL);
      rc = cs_status(cs, rep, "reading the seen set");
      if (rc == CRAWL_OK && !rep_is(rep, REDIS_REPLY_STRING))
        rc = cs_unexpected(cs, "reading the seen set");
      bool more = false;
      if (rc == CRAWL_OK) {
        const unsigned char *v = (const unsigned char *)rep->str;
        for (size_t i = 0; i + SEEN_FP <= rep->len; i += SEEN_FP) {
          uint32_t b;
          int64_t m;
          seen_unfp(v + i, &b, &m);
          fn(arg, b, m);
        }
        more = (long long)rep->len == step;
      }
      if (rep)
        freeReplyObject(rep);
      if (!more)
        break;
    }
  }
  return rc;
}

int cstate_commit(cstate_t *cs, uint64_t token, uint64_t seq,
                  const cstate_add_t *adds, size_t na,
                  const cstate_commit_t *after, const char *result_id,
                  bool saved)
{
  if (cs->nr + cs->nc != 0) {
    snprintf(cs->err, sizeof(cs->err), "commit: others queued");
    return CRAWL_EREDIS;
  }
  int rc = cstate_commit_queue(cs, token, seq, adds, na, after, result_id,
                               saved);
  int st;
  if (rc == CRAWL_OK)
    rc = cstate_flush(cs, &st);
  return rc < 0 ? rc : st;
}

int cstate_commit_queue(cstate_t *cs, uint64_t token, uint64_t seq,
                        const cstate_add_t *adds, size_t na,
                        const cstate_commit_t *after, const char *result_id,
                        bool saved)
{
  struct args *a = &cs->cq;
  int n0 = a->n;
  args_addu(a, token);
  args_addu(a, seq);
  args_addu(a, after->next_seq);
  args_addu(a, after->next_commit);
  args_addi(a, after->pages);
  args_addi(a, after->journal);
  args_addi(a, after->depth);
  args_add_copy(a, result_id ? result_id : "",
                result_id ? strlen(result_id) : 0);
  args_add_copy(a, saved ? "1" : "0", 1);
  args_addi(a, after->noindex);
  args_addu(a, na);
  for (size_t i = 0; i < na; i++) {
    uint32_t b;
    int64_t m;
    if (adds[i].fp != NULL)
      fp_split(adds[i].fp, &b, &m);
    else
      cstate_fp(adds[i].url, &b, &m);
    const char *h = adds[i].hostkey ? adds[i].hostkey : "";
    if (adds[i].seen_only)
      args_add_copy(a, "", 0);
    else
      cs_add_item(a, adds[i].seq, adds[i].depth, h, adds[i].url);
    args_addi(a, adds[i].hostkey ? cstate_part(adds[i].hostkey) : 0);
    char fp[SEEN_FP];
    seen_fp(fp, b, m);
    args_add_copy(a, fp, sizeof(fp));
  }
  return cs_queued(cs, a, n0, &cs->nc, "commit");
}

int cs_queued(cstate_t *cs, struct args *q, int n0, int *count,
              const char *what)
{
  if (q->nomem) {
    args_truncate(q, n0);
    snprintf(cs->err, sizeof(cs->err), "%s: out of memory", what);
    return CRAWL_ENOMEM;
  }
  (*count)++;
  return CRAWL_OK;
}

/* queue_batch: queue script S on CS's connection with the crawl's id,
 * this worker's name and the arguments in Q (then emptied). */
static int queue_batch(cstate_t *cs, const rscript_t *s, struct args *q)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, cs->worker);
  for (int i = 0; i < q->n; i++)
    args_add_raw(&a, q->v[i], q->l[i], NULL);
  int rc = cs_queue(cs, s, &a);
  args_free(q);
  return rc;
}

int cstate_flush(cstate_t *cs, int *status)
{
  int nr = cs->nr, nc = cs->nc;
  cs->nr = cs->nc = 0;
  int rc = CRAWL_OK;
  if (nr > 0)
    rc = queue_batch(cs, &cs_results_lua, &cs->rq);
  args_free(&cs->rq);
  if (nc > 0 && rc == CRAWL_OK)
    rc = queue_batch(cs, &commit_lua, &cs->cq);
  args_free(&cs->cq);
  if (rc != CRAWL_OK) {
    rconn_drop(cs->r); /* nothing of it sent */
    return rc;
  }
  int n = rconn_queued(cs->r);
  if (n == 0)
    return 0;
  redisReply **v = calloc((size_t)n, sizeof(*v));
  if (v == NULL) {
    rconn_drop(cs->r); /* nothing of it sent */
    snprintf(cs->err, sizeof(cs->err), "flush: out of memory");
    return CRAWL_ENOMEM;
  }
  int got = rconn_flush(cs->r, v);
  if (got < 0) {
    free(v);
    return cs_status(cs, NULL, "flush");
  }
  if (got != (nr > 0) + (nc > 0)) {
    for (int i = 0; i < got; i++)
      freeReplyObject(v[i]);
    free(v);
    return cs_unexpected(cs, "flush");
  }
  /* The first failure's reason is kept in CS->err. */
  char first[sizeof(cs->err)] = "";
  if (nr > 0) {
    const redisReply *r = v[0];
    int st = cs_status(cs, r, "publishing results");
    if (st == CRAWL_OK && (!rep_array(r, 0) || r->elements != (size_t)nr))
      st = cs_unexpected(cs, "publishing results");
    bool fenced = false;
    for (int i = 0; i < nr; i++) {
      status[i] = st;
      if (st == CRAWL_OK && !rep_is(r->element[i], REDIS_REPLY_INTEGER))
        status[i] = cs_unexpected(cs, "publishing results");
      else if (st == CRAWL_OK && r->element[i]->integer != 0) {
        status[i] = CRAWL_EFENCED;
        fenced = true;
      }
    }
    if (fenced)
      snprintf(cs->err, sizeof(cs->err),
               "publishing results: the partition lease is not held");
    if (st != CRAWL_OK || fenced)
      snprintf(first, sizeof(first), "%s", cs->err);
  }
  if (nc > 0) {
    int st = cs_status(cs, v[nr > 0], "committing");
    for (int i = 0; i < nc; i++)
      status[nr + i] = st;
    if (st != CRAWL_OK && first[0] == '\0')
      snprintf(first, sizeof(first), "%s", cs->err);
  }
  for (int i = 0; i < got; i++)
    freeReplyObject(v[i]);
  free(v);
  if (first[0] != '\0')
    snprintf(cs->err, sizeof(cs->err), "%s", first);
  return nr + nc;
}
