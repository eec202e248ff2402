/* cstate_lease.c: workers, leases and the plan (cstate.h, "workers and
 * leases"), and the pauses hosts asked for: which worker is alive,
 * which partitions it should hold and holds, with their fencing tokens.
 * Each script checks the crawl's id first (PRELUDE) and knows when it
 * ran already (a lease by its owner and token; a pause is a maximum). */
#include "cstate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cstate_int.h"

/* ---- scripts ---- */

/* ARGV: id, what, worker, ttl ms, token held ('0': none). Its owner
 * taking it again (a take sent again) gets the token it has. */
static const rscript_t lease_lua = {
  "lease",
  PRELUDE "local k = p..'lease:'..ARGV[2]\n"
          "local owner = redis.call('HGET', k, 'owner')\n"
          "if owner == false then\n"
          "  if ARGV[5] ~= '0' then return 0 end\n"
          "  local t = string.format('%d', redis.call('INCR', p..'fence'))\n"
          "  redis.call('HSET', k, 'owner', ARGV[3], 'token', t)\n"
          "  redis.call('PEXPIRE', k, ARGV[4])\n"
          "  return t\n"
          "end\n"
          "local t = redis.call('HGET', k, 'token')\n"
          "if owner == ARGV[3] and (ARGV[5] == '0' or ARGV[5] == t) then\n"
          "  redis.call('PEXPIRE', k, ARGV[4])\n"
          "  return t\n"
          "end\n"
          "return 0\n"
};

/* ARGV: id, worker, ttl ms, nparts, commit token ('0': none held), the
 * items in flight at the worker (0: idle), then the partitions held as
 * part, token pairs. Liveness: `alive`, a sorted
 * set of workers scored by when their heartbeat lapses (Redis's clock),
 * pruned here; `alive:ID` keys as well, holding the items in flight, for
 * --status. The plan (hash
 * `plan`: part -> worker) is where the partitions should be, weighed by
 * their backlog (the items queued or in flight: the stream's length, as
 * a result deletes its item), each one more when the workers alive
 * changed, so that empty ones spread by count then. A partition whose worker is
 * not alive goes to the lightest worker; every half second (a tenth when the
 * caller is idle), or at once when the workers alive change, partitions move to
 * the lightest worker from the heaviest that has one to give (one lighter than
 * the spread between them): begun when the spread is over a tenth of the
 * average (at once when the workers changed), until it is a twentieth, so that
 * a little drift moves nothing (each move lessens the sum of squares, so it
 * ends). Between changes of the workers alive, backlog alone: only partitions
 * with one move (an empty one moved changes nothing but costs a release, a take
 * and its hosts' buckets: two workers of the generated site moved thirty
 * back and forth every half second), and the empty ones a worker
 * gathered weigh nothing against work (counted one each, they once
 * outweighed two partitions of 30 items while their worker idled).
 * Returns,
 * for each partition, the token held after ('-' before it: the plan
 * gives it elsewhere; renewed meanwhile), then the commit's token, the
 * workers alive, how many partitions are on their way to or from this
 * worker (planned here and held by another, or given back; at least one
 * for a second after the plan changed, so that every worker hears of a
 * change soon), and the count of pauses recorded (pause_lua). */
/* C99 promises string literals of 4,095 bytes, and gcc and clang take
 * any length: the plan is one script, not two halves. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
static const rscript_t keep_lua = {
  "keep", PRELUDE
  "local me, ttl, np = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])\n"
  "local t = redis.call('TIME')\n"
  "local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"
  "redis.call('SET', p..'alive:'..me, ARGV[6], 'PX', ttl)\n"
  "redis.call('ZADD', p..'alive', now + ttl, me)\n"
  "redis.call('ZREMRANGEBYSCORE', p..'alive', '-inf', '('..now)\n"
  "local alive = redis.call('ZRANGE', p..'alive', 0, -1)\n"
  "table.sort(alive)\n"
  "local live = {}\n"
  "for _, w in ipairs(alive) do live[w] = true end\n"
  "local plan = {}\n"
  "local raw = redis.call('HGETALL', p..'plan')\n"
  "for i = 1, #raw, 2 do plan[tonumber(raw[i])] = raw[i + 1] end\n"
  "local orphans, changed = {}, false\n"
  "for i = 0, np - 1 do\n"
  "  if not live[plan[i]] then orphans[#orphans + 1] = i end\n"
  "end\n"
  "local sig = table.concat(alive, ',')\n"
  "local pl = redis.call('HMGET', p..'planned', 'at', 'alive', 'changed')\n"
  "local at, ch = tonumber(pl[1] or '0'), tonumber(pl[3] or '0')\n"
  "if at > now then at = 0 end\n"
  "local joined = sig ~= pl[2]\n"
  "local due = joined or now - at >= (ARGV[6] == '0' and 100 or 500)\n"
  "if #alive > 0 and (#orphans > 0 or due) then\n"
  "  local wt, W, total, plus = {}, {}, 0, joined and 1 or 0\n"
  "  for _, w in ipairs(alive) do W[w] = 0 end\n"
  "  for i = 0, np - 1 do\n"
  "    wt[i] = plus + redis.call('XLEN', p..'part:'..i)\n"
  "    total = total + wt[i]\n"
  "    if live[plan[i]] then W[plan[i]] = W[plan[i]] + wt[i] end\n"
  "  end\n"
  "  local function lightest()\n"
  "    local lo = alive[1]\n"
  "    for _, w in ipairs(alive) do if W[w] < W[lo] then lo = w end end\n"
  "    return lo\n"
  "  end\n"
  "  table.sort(orphans, function(a, b)\n"
  "    return wt[a] > wt[b] or (wt[a] == wt[b] and a < b)\n"
  "  end)\n"
  "  for _, i in ipairs(orphans) do\n"
  "    local lo = lightest()\n"
  "    plan[i] = lo\n"
  "    W[lo] = W[lo] + wt[i]\n"
  "    changed = true\n"
  "  end\n"
  "  if due then\n"
  "    redis.call('HSET', p..'planned', 'at', now, 'alive', sig)\n"
  "    -- The thresholds as when each partition weighed one more: a few\n"
  "    -- items do not move between weighings.\n"
  "    local base = total + (plus == 0 and np or 0)\n"
  "    local limit = base / #alive / 10\n"
  "    if joined then limit = 0 end\n"
  "    for _ = 1, np do\n"
  "      local lo = lightest()\n"
  "      local donors = {}\n"
  "      for _, w in ipairs(alive) do\n"
  "        if W[w] - W[lo] > limit then donors[#donors + 1] = w end\n"
  "      end\n"
  "      table.sort(donors, function(a, b)\n"
  "        return W[a] > W[b] or (W[a] == W[b] and a < b)\n"
  "      end)\n"
  "      local best, bd\n"
  "      for _, hi in ipairs(donors) do\n"
  "        local spread = W[hi] - W[lo]\n"
  "        for i = 0, np - 1 do\n"
  "          if plan[i] == hi and wt[i] > 0 and wt[i] < spread then\n"
  "            local d = math.abs(spread - 2 * wt[i])\n"
  "            if best == nil or d < bd then best, bd = i, d end\n"
  "          end\n"
  "        end\n"
  "        if best ~= nil then break end\n"
  "      end\n"
  "      if best == nil then break end\n"
  "      local hi = plan[best]\n"
  "      plan[best] = lo\n"
  "      W[hi] = W[hi] - wt[best]\n"
  "      W[lo] = W[lo] + wt[best]\n"
  "      changed = true\n"
  "      limit = base / #alive / 20\n"
  "    end\n"
  "  end\n"
  "  if changed then\n"
  "    local v = {}\n"
  "    for i = 0, np - 1 do\n"
  "      v[2 * i + 1], v[2 * i + 2] = i, plan[i]\n"
  "    end\n"
  "    redis.call('HSET', p..'plan', unpack(v))\n"
  "    redis.call('HSET', p..'planned', 'changed', now)\n"
  "    ch = now\n"
  "  end\n"
  "end\n"
  "local held, out, moving = {}, {}, 0\n"
  "if ch <= now and now - ch < 1000 then moving = 1 end\n"
  "for i = 7, #ARGV, 2 do held[tonumber(ARGV[i])] = ARGV[i + 1] end\n"
  "local function keep(k, mine, had)\n"
  "  local l = redis.call('HMGET', k, 'owner', 'token')\n"
  "  local owner, cur = l[1], l[2]\n"
  "  if owner == false then\n"
  "    if not mine or had ~= nil then return '0' end\n"
  "    local t = string.format('%d', redis.call('INCR', p..'fence'))\n"
  "    redis.call('HSET', k, 'owner', me, 'token', t)\n"
  "    redis.call('PEXPIRE', k, ttl)\n"
  "    return t\n"
  "  end\n"
  "  if owner ~= me then\n"
  "    if mine then moving = moving + 1 end\n"
  "    return '0'\n"
  "  end\n"
  "  if had ~= nil and had ~= cur then return '0' end\n"
  "  redis.call('PEXPIRE', k, ttl)\n"
  "  if mine then return cur end\n"
  "  moving = moving + 1\n"
  "  return '-'..cur\n"
  "end\n"
  "for i = 0, np - 1 do\n"
  "  out[#out + 1] = keep(p..'lease:part:'..i, plan[i] == me, held[i])\n"
  "end\n"
  "local ct = ARGV[5] ~= '0' and ARGV[5] or nil\n"
  "out[#out + 1] = keep(p..'lease:commit', true, ct)\n"
  "out[#out + 1] = #alive\n"
  "out[#out + 1] = moving\n"
  "out[#out + 1] = tonumber(redis.call('GET', p..'pauses') or '0')\n"
  "return out\n"
};
#pragma GCC diagnostic pop

/* ARGV: id, worker. A worker that stops: no longer alive, at once, so
 * that the plan gives its partitions to the others. */
static const rscript_t leave_lua = { "leave", PRELUDE
                                     "redis.call('ZREM', p..'alive', ARGV[2])\n"
                                     "redis.call('DEL', p..'alive:'..ARGV[2])\n"
                                     "return 'OK'\n" };

/* ARGV: id, what, token, owner. */
static const rscript_t release_lua = {
  "release", PRELUDE "local k = p..'lease:'..ARGV[2]\n"
                     "if redis.call('HGET', k, 'token') == ARGV[3] and\n"
                     "   redis.call('HGET', k, 'owner') == ARGV[4] then\n"
                     "  redis.call('DEL', k)\n"
                     "  return 1\n"
                     "end\n"
                     "return 0\n"
};

/* ARGV: id, info, nonce. The number counts the workers that joined;
 * the nonce (random, the worker's) makes the name unique when the
 * number is not: a Redis that lost its last second (AOF everysec)
 * counts from before it, and gives the number of a worker that
 * registered in that second, and still runs, to the next one. Two
 * workers of one name would both pass the owner checks. A
 * number held by a worker heard alive since (its heartbeat) is skipped:
 * the number names the temporary files of a worker's items. */
static const rscript_t register_lua = {
  "register",
  PRELUDE "local alive = redis.call('ZRANGE', p..'alive', 0, -1)\n"
          "local n, pre, used\n"
          "repeat\n"
          "  n = redis.call('INCR', p..'worker_seq')\n"
          "  pre = 'w'..string.format('%d', n)..'-'\n"
          "  used = false\n"
          "  for _, w in ipairs(alive) do\n"
          "    if string.sub(w, 1, #pre) == pre then used = true end\n"
          "  end\n"
          "until not used\n"
          "local id = pre..ARGV[3]\n"
          "redis.call('HSET', p..'workers', id, ARGV[2])\n"
          "return id\n"
};

/* ARGV: id, worker, ttl ms. */
static const rscript_t alive_lua = {
  "alive",
  PRELUDE "redis.call('SET', p..'alive:'..ARGV[2], '0', 'PX', ARGV[3])\n"
          "local t = redis.call('TIME')\n"
          "redis.call('ZADD', p..'alive', tonumber(t[1]) * 1000 +\n"
          "           math.floor(tonumber(t[2]) / 1000) + ARGV[3], ARGV[2])\n"
          "return 'OK'\n"
};

/* ---- workers and leases ---- */

int cstate_register(cstate_t *cs, const char *info, char *id, size_t n)
{
  char val[320], nonce[9];
  snprintf(val, sizeof(val), "%s %lld", info, (long long)time(NULL));
  uint32_t r;
  if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
    /* No entropy source: the clocks and the pid, still unlike any
     * other worker's. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
        (uint32_t)getpid() << 16;
  }
  snprintf(nonce, sizeof(nonce), "%08" PRIx32, r);
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, val);
  args_add(&a, nonce);
  redisReply *rep = NULL;
  int rc = cs_run(cs, &register_lua, &a, false, &rep);
  if (rc == CRAWL_OK && rep_str(rep) == NULL)
    rc = cs_unexpected(cs, "registering the worker");
  if (rc == CRAWL_OK)
    snprintf(id, n, "%s", rep->str);
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_heartbeat(cstate_t *cs, const char *id, long ttl_ms)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, id);
  args_addf(&a, "%ld", ttl_ms);
  return cs_run(cs, &alive_lua, &a, false, NULL);
}

int cstate_lease(cstate_t *cs, const char *what, const char *id, long ttl_ms,
                 uint64_t *token)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, what);
  args_add(&a, id);
  args_addf(&a, "%ld", ttl_ms);
  args_addf(&a, "%" PRIu64, *token);
  redisReply *rep = NULL;
  int rc = cs_run(cs, &lease_lua, &a, false, &rep);
  if (rc != CRAWL_OK)
    return rc;
  uint64_t t = 0;
  if (rep_str(rep) != NULL)
    t = strtoull(rep->str, NULL, 10);
  else if (!rep_is(rep, REDIS_REPLY_INTEGER) || rep->integer != 0)
    rc = cs_unexpected(cs, "taking a lease");
  freeReplyObject(rep);
  if (rc != CRAWL_OK)
    return rc;
  if (t == 0)
    return 0;
  *token = t;
  return 1;
}

int cstate_keep(cstate_t *cs, const char *id, long ttl_ms, long inflight,
                uint64_t parts[CSTATE_PARTS], bool give[CSTATE_PARTS],
                uint64_t *commit, int *alive, int *moving, long *pauses)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, id);
  args_addf(&a, "%ld", ttl_ms);
  args_addf(&a, "%d", CSTATE_PARTS);
  args_addf(&a, "%" PRIu64, *commit);
  args_addi(&a, inflight);
  for (int i = 0; i < CSTATE_PARTS; i++)
    if (parts[i] != 0) {
      args_addf(&a, "%d", i);
      args_addf(&a, "%" PRIu64, parts[i]);
    }
  redisReply *rep = NULL;
  int rc = cs_run(cs, &keep_lua, &a, false, &rep);
  if (rc == CRAWL_OK &&
      (!rep_is(rep, REDIS_REPLY_ARRAY) || rep->elements != CSTATE_PARTS + 4 ||
       !rep_is(rep->element[CSTATE_PARTS + 1], REDIS_REPLY_INTEGER) ||
       !rep_is(rep->element[CSTATE_PARTS + 2], REDIS_REPLY_INTEGER) ||
       !rep_is(rep->element[CSTATE_PARTS + 3], REDIS_REPLY_INTEGER)))
    rc = cs_unexpected(cs, "keeping leases");
  for (size_t i = 0; rc == CRAWL_OK && i <= CSTATE_PARTS; i++) {
    const char *s = rep_str(rep->element[i]);
    if (s == NULL) {
      rc = cs_unexpected(cs, "keeping leases");
      break;
    }
    uint64_t t = strtoull(s + (*s == '-'), NULL, 10);
    if (i == CSTATE_PARTS) {
      *commit = *s == '-' ? 0 : t;
    } else {
      parts[i] = t;
      give[i] = *s == '-';
    }
  }
  if (rc == CRAWL_OK) {
    *alive = (int)rep->element[CSTATE_PARTS + 1]->integer;
    *moving = (int)rep->element[CSTATE_PARTS + 2]->integer;
    *pauses = (long)rep->element[CSTATE_PARTS + 3]->integer;
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_leave(cstate_t *cs, const char *id)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, id);
  return cs_run(cs, &leave_lua, &a, false, NULL);
}

int cstate_release(cstate_t *cs, const char *what, const char *owner,
                   uint64_t token)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, what);
  args_addf(&a, "%" PRIu64, token);
  args_add(&a, owner);
  return cs_run(cs, &release_lua, &a, false, NULL);
}

/* ---- pauses ---- */

/* ARGV: id, hostkey, part, ms: no request to the host for MS from now
 * (Redis's clock, so that workers' clocks need not agree); the later of
 * two pauses stands. `pauses` counts them, for keepers to notice. */
static const rscript_t pause_lua = {
  "pause", PRELUDE
  "local t = redis.call('TIME')\n"
  "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
  "local till = now + tonumber(ARGV[4])\n"
  "local k = p..'pause:'..ARGV[3]\n"
  "local cur = tonumber(redis.call('HGET', k, ARGV[2]) or '0')\n"
  "if till > cur then redis.call('HSET', k, ARGV[2], till) end\n"
  "redis.call('INCR', p..'pauses')\n"
  "return 'OK'\n"
};

/* ARGV: id, then partitions. Returns host, ms left pairs, for the pauses
 * of those partitions not over yet (those over are deleted). */
static const rscript_t pauses_lua = {
  "pauses", PRELUDE
  "local t = redis.call('TIME')\n"
  "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
  "local out = {}\n"
  "for i = 2, #ARGV do\n"
  "  local k = p..'pause:'..ARGV[i]\n"
  "  local raw = redis.call('HGETALL', k)\n"
  "  for j = 1, #raw, 2 do\n"
  "    local left = tonumber(raw[j + 1]) - now\n"
  "    if left > 0 then\n"
  "      out[#out + 1] = raw[j]\n"
  "      out[#out + 1] = left\n"
  "    else\n"
  "      redis.call('HDEL', k, raw[j])\n"
  "    end\n"
  "  end\n"
  "end\n"
  "return out\n"
};

int cstate_pause(cstate_t *cs, const char *hostkey, double seconds)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, hostkey);
  args_addf(&a, "%d", cstate_part(hostkey));
  args_addf(&a, "%lld", (long long)(seconds * 1000));
  return cs_run(cs, &pause_lua, &a, false, NULL);
}

int cstate_pauses(cstate_t *cs, const int *parts, size_t n,
                  void (*fn)(void *arg, const char *hostkey, double seconds),
                  void *arg)
{
  if (n == 0)
    return CRAWL_OK;
  struct args a = { 0 };
  args_add(&a, cs->id);
  for (size_t i = 0; i < n; i++)
    args_addf(&a, "%d", parts[i]);
  redisReply *rep = NULL;
  int rc = cs_run(cs, &pauses_lua, &a, false, &rep);
  if (rc == CRAWL_OK && !rep_is(rep, REDIS_REPLY_ARRAY))
    rc = cs_unexpected(cs, "reading pauses");
  for (size_t j = 0; rc == CRAWL_OK && j + 1 < rep->elements; j += 2)
    if (rep_str(rep->element[j]) &&
        rep_is(rep->element[j + 1], REDIS_REPLY_INTEGER))
      fn(arg, rep->element[j]->str,
         (double)rep->element[j + 1]->integer / 1000);
  if (rep)
    freeReplyObject(rep);
  return rc;
}
