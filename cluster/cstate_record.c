/* cstate_record.c: the crawl's record besides its frontier and leases
 * (cstate.h): robots.txt answers every worker shares, notes, and whether
 * the crawl is complete. */
#include <stdlib.h>
#include <string.h>

#include "cstate.h"
#include "cstate_int.h"

/* ---- what workers share besides the frontier ---- */

int cstate_robots_get(cstate_t *cs, const char *url, char **data, size_t *len)
{
  char key[128];
  *data = NULL;
  *len = 0;
  redisReply *rep = rconn_cmdf(cs->r, "HGET",
                               cs_key(cs, key, sizeof(key), "robots"), url,
                               NULL);
  int rc = cs_status(cs, rep, "reading robots.txt");
  if (rc == CRAWL_OK && rep_is(rep, REDIS_REPLY_STRING)) {
    *data = malloc(rep->len + 1);
    if (*data == NULL) {
      rc = CRAWL_ENOMEM;
    } else {
      memcpy(*data, rep->str, rep->len);
      (*data)[rep->len] = '\0';
      *len = rep->len;
    }
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}

/* ARGV: id, url, answer: the first answer stored stands. Checks the
 * crawl's id: a plain HSETNX would put an old worker's answer into a
 * crawl of the same name made after a Redis came back empty. */
static const rscript_t robots_lua = {
  "robots", PRELUDE "redis.call('HSETNX', p..'robots', ARGV[2], ARGV[3])\n"
                    "return 'OK'\n"
};

int cstate_robots_put(cstate_t *cs, const char *url, const void *data,
                      size_t len)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, url);
  args_add_raw(&a, data, len, NULL);
  return cs_run(cs, &robots_lua, &a, false, NULL);
}

/* ARGV: id, field, value, "1" to write it only where it has none. The
 * value the field holds after. Checks the crawl's id: on a Redis that
 * came back empty, a plain HSET would make a record without one, which
 * every later join would take for a broken crawl. */
static const rscript_t note_lua = {
  "note", PRELUDE "local f = 'note:'..ARGV[2]\n"
                  "if ARGV[4] ~= '1' or redis.call('HEXISTS', meta, f) == 0 "
                  "then\n"
                  "  redis.call('HSET', meta, f, ARGV[3])\n"
                  "end\n"
                  "return redis.call('HGET', meta, f)\n"
};

/* note_put: FIELD set to VALUE (ONLY_NEW: unless it has one), what it
 * holds after into OUT (size N; NULL: not wanted). */
static int note_put(cstate_t *cs, const char *field, const char *value,
                    bool only_new, char *out, size_t n)
{
  struct args a = { 0 };
  args_add(&a, cs->id);
  args_add(&a, field);
  args_add(&a, value);
  args_add(&a, only_new ? "1" : "0");
  redisReply *rep = NULL;
  int rc = cs_run(cs, &note_lua, &a, false, &rep);
  if (rc == CRAWL_OK && rep_str(rep) == NULL)
    rc = cs_unexpected(cs, "writing the crawl's record");
  if (rc == CRAWL_OK && out != NULL)
    snprintf(out, n, "%s", rep->str);
  if (rep)
    freeReplyObject(rep);
  return rc;
}

int cstate_note_set(cstate_t *cs, const char *field, const char *value)
{
  return note_put(cs, field, value, false, NULL, 0);
}

int cstate_note_claim(cstate_t *cs, const char *field, const char *value,
                      char *out, size_t n)
{
  return note_put(cs, field, value, true, out, n);
}

int cstate_note_get(cstate_t *cs, const char *field, char *out, size_t n)
{
  char f[96];
  snprintf(f, sizeof(f), "note:%s", field);
  redisReply *rep = rconn_cmdf(cs->r, "HGET", cs->meta, f, NULL);
  int rc = cs_status(cs, rep, "reading the crawl's record");
  snprintf(out, n, "%s",
           rc == CRAWL_OK && rep_str(rep) != NULL ? rep->str : "");
  if (rep)
    freeReplyObject(rep);
  return rc;
}

/* ---- the crawl as a whole ---- */

int cstate_complete(cstate_t *cs)
{
  redisReply *rep = rconn_cmdf(cs->r, "HMGET", cs->meta, "id", "state", NULL);
  int rc = cs_status(cs, rep, "reading the crawl");
  if (rc == CRAWL_OK && !rep_array(rep, 2))
    rc = cs_unexpected(cs, "reading the crawl");
  if (rc == CRAWL_OK) {
    const char *id = rep_str(rep->element[0]), *st = rep_str(rep->element[1]);
    if (id == NULL || strcmp(id, cs->id) != 0) {
      snprintf(cs->err, sizeof(cs->err),
               "crawl %.*s is no longer in Redis (did Redis come back "
               "empty?)",
               (int)strlen(cs->prefix) - 1, cs->prefix);
      rc = CRAWL_ELOST;
    } else {
      rc = st != NULL && strcmp(st, "complete") == 0;
    }
  }
  if (rep)
    freeReplyObject(rep);
  return rc;
}
