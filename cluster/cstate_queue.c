/* cstate_queue.c: the items of the partitions and the results stream
 * (cstate.h).
 *
 * Taking items is one script, so that it is fenced like every change:
 * it checks each partition's lease (token and owner) before it reads,
 * so a worker whose lease lapsed reads nothing more (what it read and
 * did not finish stays in the partition, and the next holder reads it
 * from the first entry). A script cannot block, so waiting for new
 * items is a plain XREAD BLOCK from each partition's last entry id. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cstate.h"
#include "cstate_int.h"

/* ---- an item as its partition keeps it (field i, cstate.h) ---- */

void cs_add_item(struct args *a, uint64_t seq, int depth, const char *hostkey,
                 const char *url)
{
  size_t nh = strlen(hostkey), nu = strlen(url);
  char *c = malloc(48 + nh + nu), *e = c;
  if (c == NULL) {
    a->nomem = true;
    return;
  }
  char num[48], *s = num + sizeof(num); /* 20 digits, a space, 10 */
  s = cs_digits(s, depth < 0 ? 0 : (uint64_t)depth);
  *--s = ' ';
  s = cs_digits(s, seq);
  size_t n = (size_t)(num + sizeof(num) - s);
  memcpy(e, s, n);
  e += n;
  *e++ = ' ';
  memcpy(e, hostkey, nh);
  e += nh;
  *e++ = ' ';
  memcpy(e, url, nu);
  e += nu;
  *e = '\0';
  args_add_raw(a, c, (size_t)(e - c), c);
}

/* digits: the decimal number at *S (before END), *S moved past it. */
static bool digits(const char **s, const char *end, uint64_t *v)
{
  const char *p = *s;
  uint64_t x = 0;
  for (; p < end && *p >= '0' && *p <= '9'; p++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (x > (UINT64_MAX - d) / 10)
      return false; /* overflows */
    x = x * 10 + d;
  }
  if (p == *s)
    return false;
  *s = p;
  *v = x;
  return true;
}

int cs_item_parse(const char *v, size_t n, uint64_t *seq, int *depth,
                  const char **hostkey, size_t *nhost, const char **url)
{
  const char *s = v, *end = v + n;
  uint64_t d;
  if (!digits(&s, end, seq) || s == end || *s++ != ' ' ||
      !digits(&s, end, &d) || d > INT_MAX || s == end || *s++ != ' ')
    return -1;
  const char *h = s; /* maybe empty: an add without a host key */
  while (s < end && *s != ' ')
    s++;
  if (s == end || s + 1 == end)
    return -1;
  *depth = (int)d;
  *hostkey = h;
  *nhost = (size_t)(s - h);
  *url = s + 1;
  return 0;
}

/* ARGV: id, worker, max, recover (1/0), then partition, token and
 * position triples (the last entry the worker read there; '' for none:
 * a partition newly held). A partition is a plain stream: an item stays
 * in it until its result or hand-over deletes it, so what a worker has
 * not finished is what it read there and is still in the stream, and a
 * new holder reads it from the first entry: no consumer group, no
 * pending list, no claims (XREADGROUP's pending list cost Redis an XCLAIM
 * an item in its AOF, and a result an XACK). Without recover, only the
 * partitions in `ready` (items added and not read since: the scripts
 * that add an item add its partition) are read, from their position, at
 * most MAX items in all; a partition read to its end leaves `ready`.
 * With recover, every partition given is read, and first again up to
 * its position (what this worker read and did not finish: a take whose
 * reply was lost, an item dropped while its lease had lapsed; not
 * counted in MAX, the caller has most of them in flight). Returns
 * {items, fenced, last, pos}: items as (part, entries) pairs, the
 * entries as XRANGE gives them (field i, the item, and maybe c, its
 * chain: cstate.h), not rebuilt here (Lua's work an item was most of a take's
 * cost); the partitions fenced; when there are
 * no items (the caller then waits for some) (part, last entry id)
 * pairs; and (part, position) pairs for the partitions read. */
static const rscript_t take_lua = {
  "take", PRELUDE
  "local me, room, rec = ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1'\n"
  "local out, fenced, last, held, pos, n = {}, {}, {}, {}, {}, 0\n"
  "local function add(part, r)\n"
  "  if #r > 0 then\n"
  "    out[#out + 1] = part\n"
  "    out[#out + 1] = r\n"
  "    n = n + #r\n"
  "  end\n"
  "end\n"
  "local ready = {}\n"
  "if not rec then\n"
  "  for _, x in ipairs(redis.call('SMEMBERS', p..'ready')) do\n"
  "    ready[x] = true\n"
  "  end\n"
  "end\n"
  "for i = 5, #ARGV, 3 do\n"
  "  local part, at = ARGV[i], ARGV[i + 2]\n"
  "  local k = p..'part:'..part\n"
  "  local l = (rec or ready[part]) and\n"
  "            redis.call('HMGET', p..'lease:part:'..part, 'token', 'owner')\n"
  "  if l and (l[1] ~= ARGV[i + 1] or l[2] ~= me) then\n"
  "    fenced[#fenced + 1] = part\n"
  "  else\n"
  "    if l and rec and at ~= '' then\n"
  "      add(part, redis.call('XRANGE', k, '-', at))\n"
  "    end\n"
  "    if l and room > 0 then\n"
  "      local r = redis.call('XRANGE', k, at == '' and '-' or '('..at, '+',\n"
  "                           'COUNT', room)\n"
  "      add(part, r)\n"
  "      if #r > 0 then at = r[#r][1] end\n"
  "      if #r < room then\n"
  "        redis.call('SREM', p..'ready', part)\n"
  "      elseif rec then\n"
  "        redis.call('SADD', p..'ready', part)\n"
  "      end\n"
  "      room = room - #r\n"
  "      pos[#pos + 1] = part\n"
  "      pos[#pos + 1] = at\n"
  "    elseif l and rec then\n"
  "      redis.call('SADD', p..'ready', part) -- not read: no room\n"
  "    end\n"
  "    held[#held + 1] = part\n"
  "  end\n"
  "end\n"
  "if n == 0 then\n"
  "  for _, part in ipairs(held) do\n"
  "    local e = redis.call('XREVRANGE', p..'part:'..part, '+', '-', 'COUNT', 1)\n"
  "    last[#last + 1] = part\n"
  "    last[#last + 1] = e[1] and e[1][1] or '0-0'\n"
  "  end\n"
  "end\n"
  "return {out, fenced, last, pos}\n"
};

/* ARGV: id, part, token, entry id, the next hop's item (cs_add_item),
 * to part, chain, worker ('': any). The item leaves its partition
 * (checked, as a result's, under the partition's lease: token, and owner
 * if named; deleted, or 'DONE' if it was already: this script sent
 * again, or the item finished by another) and goes on to partition TO
 * PART (the host of its redirect's next hop), with its seq and the
 * chain. */
static const rscript_t hand_lua = {
  "hand", PRELUDE
  "local lk = p..'lease:part:'..ARGV[2]\n"
  "local l = redis.call('HMGET', lk, 'token', 'owner')\n"
  "if l[1] ~= ARGV[3] or (ARGV[8] ~= '' and l[2] ~= ARGV[8]) then\n"
  "  return redis.error_reply('FENCED the partition lease is not held')\n"
  "end\n"
  "if redis.call('XDEL', p..'part:'..ARGV[2], ARGV[4]) == 0 then\n"
  "  return 'DONE'\n"
  "end\n"
  "redis.call('XADD', p..'part:'..ARGV[6], '*', 'i', ARGV[5], 'c', ARGV[7])\n"
  "redis.call('SADD', p..'ready', ARGV[6])\n"
  "return 'OK'\n"
};

/* ARGV: id, worker ('': any), then for each result: part, token, entry
 * id, seq, data. The results of the items held (the partition's lease:
 * token, and owner if named; one check a partition and token) go to the
 * results stream as one entry, a field a result (its seq, its data), and
 * their items are deleted in their partitions: two commands a
 * partition, not two a result. A partition none of whose items was
 * still there adds nothing (this script sent again); one where only
 * some were (an item read again and published twice) adds all of them,
 * and the commit takes a seq once (engine.c, order_next). Returns
 * a number a result: 0 (done, or done already) or 1 (fenced: nothing
 * done). */
const rscript_t cs_results_lua = {
  "results", PRELUDE
  "local me, out, groups, order = ARGV[2], {}, {}, {}\n"
  "for i = 3, #ARGV, 5 do\n"
  "  local key = ARGV[i]..' '..ARGV[i + 1]\n"
  "  local g = groups[key]\n"
  "  if g == nil then\n"
  "    local l = redis.call('HMGET', p..'lease:part:'..ARGV[i], 'token',\n"
  "                         'owner')\n"
  "    g = {k = p..'part:'..ARGV[i], ids = {}, at = {},\n"
  "         held = l[1] == ARGV[i + 1] and (me == '' or l[2] == me)}\n"
  "    groups[key] = g\n"
  "    order[#order + 1] = g\n"
  "  end\n"
  "  out[#out + 1] = g.held and 0 or 1\n"
  "  if g.held then\n"
  "    g.ids[#g.ids + 1] = ARGV[i + 2]\n"
  "    g.at[#g.at + 1] = i\n"
  "  end\n"
  "end\n"
  "local fv = {}\n"
  "for _, g in ipairs(order) do\n"
  "  if #g.ids > 0 and redis.call('XDEL', g.k, unpack(g.ids)) > 0 then\n"
  "    for _, i in ipairs(g.at) do\n"
  "      fv[#fv + 1] = ARGV[i + 3]\n"
  "      fv[#fv + 1] = ARGV[i + 4]\n"
  "    end\n"
  "  end\n"
  "end\n"
  "if #fv > 0 then redis.call('XADD', p..'results', '*', unpack(fv)) end\n"
  "return out\n"
};

void cstate_items_free(cstate_item_t *items, size_t n)
{
  if (items == NULL)
    return;
  for (size_t i = 0; i < n; i++) {
    free(items[i].url);
    free(items[i].hostkey);
    free(items[i].chain);
  }
  free(items);
}

/* entry_field: the value of field NAME of stream entry E ([id, [k, v,
 * ...]]), or NULL. */
static const redisReply *entry_field(const redisReply *e, const char *name)
{
  if (!rep_array(e, 2) || !rep_str(e->element[0]) ||
      !rep_is(e->element[1], REDIS_REPLY_ARRAY))
    return NULL;
  const redisReply *kv = e->element[1];
  for (size_t i = 0; i + 1 < kv->elements; i += 2)
    if (rep_str(kv->element[i]) && strcmp(kv->element[i]->str, name) == 0 &&
        rep_is(kv->element[i + 1], REDIS_REPLY_STRING))
      return kv->element[i + 1];
  return NULL;
}

static cstate_hold_t *hold_of(cstate_hold_t *holds, size_t nh, int part)
{
  for (size_t i = 0; i < nh; i++)
    if (holds[i].part == part)
      return &holds[i];
  return NULL;
}

/* take_entry: stream entry E of partition PART (its number PN, one
 * asked for) of a take's reply into IT (zeroed). Returns CRAWL_OK;
 * CRAWL_ELOST if E is not what this crawler writes, or CRAWL_ENOMEM,
 * either with CS->err set and what IT holds for the caller to free
 * (cstate_items_free). */
static int take_entry(cstate_t *cs, const redisReply *e, const char *part,
                      long pn, cstate_item_t *it)
{
  const redisReply *item = entry_field(e, "i"), *chain = entry_field(e, "c");
  const char *host, *url;
  size_t nhost;
  if (item == NULL ||
      cs_item_parse(item->str, item->len, &it->seq, &it->depth, &host, &nhost,
                    &url) != 0 ||
      e->element[0]->len >= sizeof(it->id)) {
    /* Not what this crawler writes: skipped, the commit would wait
     * for its seq for ever; taken again, every take would stop here.
     * The data set is not this crawl's as it wrote it. */
    snprintf(cs->err, sizeof(cs->err),
             "taking items: a malformed item in partition %s (entry "
             "%s): not this crawler's",
             part, rep_str(e->element[0]) ? e->element[0]->str : "?");
    return CRAWL_ELOST;
  }
  it->part = (int)pn;
  memcpy(it->id, e->element[0]->str, e->element[0]->len + 1);
  it->url = strdup(url);
  it->hostkey = strndup(host, nhost);
  it->chain = chain && chain->str[0] ? strdup(chain->str) : NULL;
  if (it->url == NULL || it->hostkey == NULL ||
      (chain && chain->str[0] && !it->chain)) {
    snprintf(cs->err, sizeof(cs->err), "taking items: out of memory");
    return CRAWL_ENOMEM;
  }
  return CRAWL_OK;
}

/* take_items: the items of a take's reply ITEMS (partition, entries,
 * partition, entries, ...) into V, which has room for all; *K of them
 * filled. Returns CRAWL_OK; CRAWL_ELOST if ITEMS hold a partition not
 * among the NH HOLDS or a malformed item (not this crawler's), or
 * CRAWL_ENOMEM; either with CS->err set and V's first *K items for the
 * caller to free (cstate_items_free). */
static int take_items(cstate_t *cs, cstate_hold_t *holds, size_t nh,
                      const redisReply *items, cstate_item_t *v, size_t *k)
{
  for (size_t i = 0; i + 1 < items->elements; i += 2) {
    const char *part = rep_str(items->element[i]);
    const redisReply *es = items->element[i + 1];
    if (part == NULL || !rep_is(es, REDIS_REPLY_ARRAY))
      continue;
    /* Only a partition asked for: the worker indexes its table of
     * partitions with it, and a reply may name "100000000". */
    char *end;
    long pn = strtol(part, &end, 10);
    if (end == part || *end != '\0' || pn < 0 || pn >= CSTATE_PARTS ||
        hold_of(holds, nh, (int)pn) == NULL) {
      snprintf(cs->err, sizeof(cs->err),
               "taking items: items of partition '%.20s', not asked for: "
               "not this crawler's",
               part);
      return CRAWL_ELOST;
    }
    for (size_t j = 0; j < es->elements; j++) {
      int rc = take_entry(cs, es->element[j], part, pn, &v[*k]);
      (*k)++;
      if (rc != CRAWL_OK)
        return rc;
    }
  }
  return CRAWL_OK;
}

/* take_holds: what a take's reply REP says of the NH HOLDS: the
 * partitions fenced (element 1), the position each stream was read to
 * (3), and the last entry of each (2). */
static void take_holds(cstate_hold_t *holds, size_t nh, const redisReply *rep)
{
  const redisReply *fenced = rep->element[1], *last = rep->element[2],
                   *pos = rep->element[3];
  for (size_t i = 0; i < fenced->elements; i++) {
    const char *s = rep_str(fenced->element[i]);
    cstate_hold_t *h = s ? hold_of(holds, nh, atoi(s)) : NULL;
    if (h != NULL)
      h->fenced = true;
  }
  for (size_t i = 0; i + 1 < pos->elements; i += 2) {
    const char *s = rep_str(pos->element[i]),
               *at = rep_str(pos->element[i + 1]);
    cstate_hold_t *h = s && at ? hold_of(holds, nh, atoi(s)) : NULL;
    if (h != NULL && strlen(at) < sizeof(h->pos))
      snprintf(h->pos, sizeof(h->pos), "%s", at);
  }
  for (size_t i = 0; i + 1 < last->elements; i += 2) {
    const char *s = rep_str(last->element[i]),
               *l = rep_str(last->element[i + 1]);
    cstate_hold_t *h = s && l ? hold_of(holds, nh, atoi(s)) : NULL;
    if (h != NULL)
      snprintf(h->last, sizeof(h->last), "%s", l);
  }
}

int cstate_take(cstate_t *cs, cstate_hold_t *holds, size_t nh, const char *id,
                bool recover, size_t max, cstate_item_t **out)
{
  *out = NULL;
  if (nh == 0 || max == 0)
    return 0;
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, id);
  args_addf(&a, "%zu", max);
  args_add(&a, recover ? "1" : "0");
  for (size_t i = 0; i < nh; i++) {
    holds[i].fenced = false;
    holds[i].last[0] = '\0';
    args_addi(&a, holds[i].part);
    args_addu(&a, holds[i].token);
    args_add(&a, holds[i].pos);
  }
  redisReply *rep = NULL;
  int rc = cs_run(cs, &take_lua, &a, true, &rep);
  if (rc != CRAWL_OK)
    return rc;
  if (!rep_array(rep, 4) || !rep_is(rep->element[0], REDIS_REPLY_ARRAY) ||
      !rep_is(rep->element[1], REDIS_REPLY_ARRAY) ||
      !rep_is(rep->element[2], REDIS_REPLY_ARRAY) ||
      !rep_is(rep->element[3], REDIS_REPLY_ARRAY) ||
      rep->element[0]->elements % 2 != 0) {
    freeReplyObject(rep);
    return cs_unexpected(cs, "taking items");
  }
  const redisReply *items = rep->element[0];
  size_t n = 0;
  for (size_t i = 0; i + 1 < items->elements; i += 2)
    if (rep_is(items->element[i + 1], REDIS_REPLY_ARRAY))
      n += items->element[i + 1]->elements;
  cstate_item_t *v = calloc(n ? n : 1, sizeof(*v));
  if (v == NULL) {
    freeReplyObject(rep);
    snprintf(cs->err, sizeof(cs->err), "taking items: out of memory");
    return CRAWL_ENOMEM;
  }
  size_t k = 0;
  rc = take_items(cs, holds, nh, items, v, &k);
  if (rc != CRAWL_OK) {
    cstate_items_free(v, k);
    freeReplyObject(rep);
    return rc;
  }
  take_holds(holds, nh, rep);
  freeReplyObject(rep);
  *out = v;
  return (int)k;
}

int cstate_wait(cstate_t *cs, const cstate_hold_t *holds, size_t nh,
                long block_ms)
{
  if (block_ms > CSTATE_BLOCK_MS)
    block_ms = CSTATE_BLOCK_MS;
  struct args a = { 0 };
  args_add(&a, "XREAD");
  args_add(&a, "COUNT");
  args_add(&a, "1");
  args_add(&a, "BLOCK");
  args_addf(&a, "%ld", block_ms > 0 ? block_ms : 1);
  args_add(&a, "STREAMS");
  size_t n = 0;
  for (size_t i = 0; i < nh; i++)
    if (!holds[i].fenced && holds[i].last[0]) {
      args_addf(&a, "%spart:%d", cs->prefix, holds[i].part);
      n++;
    }
  char done[160];
  args_add(&a, cs_key(cs, done, sizeof(done), "done"));
  for (size_t i = 0; i < nh; i++)
    if (!holds[i].fenced && holds[i].last[0])
      args_add(&a, holds[i].last);
  args_add(&a, "0"); /* any entry: the crawl is complete */
  if (a.nomem) {
    args_free(&a);
    return CRAWL_ENOMEM;
  }
  if (n == 0) {
    args_free(&a);
    return 0;
  }
  redisReply *rep = rconn_cmd(cs->r, a.n, a.v, a.l);
  args_free(&a);
  int rc = cs_status(cs, rep, "waiting for items");
  if (rc == CRAWL_OK && rep_is(rep, REDIS_REPLY_ARRAY)) {
    rc = rep->elements > 0 ? 1 : 0;
    for (size_t i = 0; i < rep->elements; i++)
      if (rep_array(rep->element[i], 1) &&
          rep_str(rep->element[i]->element[0]) &&
          strcmp(rep->element[i]->element[0]->str, done) == 0)
        rc = 2;
  } else if (rc == CRAWL_OK) {
    rc = 0;
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_result(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                  const void *data, size_t len)
{
  if (cs->nr + cs->nc != 0) {
    snprintf(cs->err, sizeof(cs->err), "result: others queued");
    return CRAWL_EREDIS;
  }
  int rc = cstate_result_queue(cs, it, token, data, len);
  int st;
  if (rc == CRAWL_OK)
    rc = cstate_flush(cs, &st);
  return rc < 0 ? rc : st;
}

int cstate_hand(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                const cstate_item_t *to)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_addf(&a, "%d", it->part);
  args_addf(&a, "%" PRIu64, token);
  args_add(&a, it->id);
  cs_add_item(&a, to->seq, to->depth, to->hostkey, to->url);
  args_addf(&a, "%d", to->part);
  args_add(&a, to->chain);
  args_add(&a, cs->worker);
  return cs_run(cs, &hand_lua, &a, false, NULL);
}

int cstate_result_queue(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                        const void *data, size_t len)
{
  struct args *a = &cs->rq;
  int n0 = a->n;
  args_addi(a, it->part);
  args_addu(a, token);
  args_add_copy(a, it->id, strlen(it->id));
  args_addu(a, it->seq);
  args_add_copy(a, data, len);
  return cs_queued(cs, a, n0, &cs->nr, "result");
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
                   cstate_result_t **out, char *last)
{
  char key[128], count[32], blk[32];
  *out = NULL;
  if (block_ms > CSTATE_BLOCK_MS)
    block_ms = CSTATE_BLOCK_MS;
  cs_key(cs, key, sizeof(key), "results");
  snprintf(count, sizeof(count), "%zu", max ? max : 1);
  snprintf(blk, sizeof(blk), "%ld", block_ms);
  redisReply *rep = block_ms > 0
                    ? rconn_cmdf(cs->r, "XREAD", "COUNT", count, "BLOCK", blk,
                                 "STREAMS", key, after, NULL)
                    : rconn_cmdf(cs->r, "XREAD", "COUNT", count, "STREAMS", key,
                                 after, NULL);
  int rc = cs_status(cs, rep, "reading results");
  if (rc != CRAWL_OK || rep_is(rep, REDIS_REPLY_NIL)) {
    if (rep)
      freeReplyObject(rep);
    return rc;
  }
  if (!rep_array(rep, 1) || !rep_array(rep->element[0], 2) ||
      !rep_is(rep->element[0]->element[1], REDIS_REPLY_ARRAY)) {
    freeReplyObject(rep);
    return cs_unexpected(cs, "reading results");
  }
  const redisReply *es = rep->element[0]->element[1];
  size_t total = 0;
  for (size_t j = 0; j < es->elements; j++)
    if (rep_array(es->element[j], 2) &&
        rep_is(es->element[j]->element[1], REDIS_REPLY_ARRAY))
      total += es->element[j]->element[1]->elements / 2;
  cstate_result_t *v = calloc(total ? total : 1, sizeof(*v));
  size_t n = 0;
  if (v == NULL) {
    freeReplyObject(rep);
    snprintf(cs->err, sizeof(cs->err), "reading results: out of memory");
    return CRAWL_ENOMEM;
  }
  /* An entry is a batch of results, a field each: seq, then data. */
  for (size_t j = 0; j < es->elements; j++) {
    const redisReply *e = es->element[j];
    if (!rep_array(e, 2) || !rep_str(e->element[0]) ||
        !rep_is(e->element[1], REDIS_REPLY_ARRAY) ||
        strlen(e->element[0]->str) >= sizeof(v[n].id))
      continue;
    const redisReply *kv = e->element[1];
    for (size_t i = 0; i + 1 < kv->elements; i += 2) {
      const redisReply *s = kv->element[i], *d = kv->element[i + 1];
      if (!rep_str(s) || !rep_is(d, REDIS_REPLY_STRING))
        continue;
      snprintf(v[n].id, sizeof(v[n].id), "%s", e->element[0]->str);
      v[n].seq = strtoull(s->str, NULL, 10);
      v[n].data = malloc(d->len + 1);
      if (v[n].data == NULL) {
        cstate_results_free(v, n);
        freeReplyObject(rep);
        snprintf(cs->err, sizeof(cs->err), "reading results: out of memory");
        return CRAWL_ENOMEM;
      }
      memcpy(v[n].data, d->str, d->len);
      v[n].data[d->len] = '\0';
      v[n].len = d->len;
      n++;
    }
  }
  /* Past every entry read, a malformed one too (skipped above). */
  if (es->elements > 0) {
    const redisReply *e = es->element[es->elements - 1];
    if (rep_array(e, 1) && rep_str(e->element[0]) &&
        strlen(e->element[0]->str) < CSTATE_ID_SIZE)
      snprintf(last, CSTATE_ID_SIZE, "%s", e->element[0]->str);
  }
  freeReplyObject(rep);
  *out = v;
  return (int)n;
}
