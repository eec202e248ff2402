/* rconn.c: see rconn.h.
 *
 * A command is sent with redisCommandArgv; when hiredis reports a broken
 * connection (REDIS_ERR_IO, REDIS_ERR_EOF), the context is dropped and
 * a new one made, with a doubling back-off, and the command sent again,
 * until the retry time is spent. The first break of a run of them is
 * said on stderr, and so is the reconnection. */
#include "rconn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SCRIPTS = 16, MAX_ARGS = 64 };

/* Commands sent and answered, by every connection of the process. */
static _Atomic long round_trips;

struct rconn {
  redisContext *c;
  char host[200];
  int port, db;
  double timeout, retry;
  bool loading; /* the last dial was answered "LOADING" */
  long reconnects;
  _Atomic long long client_id; /* CLIENT ID of the connection now */
  struct {
    const rscript_t *s;
    char sha[41];
  } scripts[MAX_SCRIPTS];
  int nscripts;
  char err[640];
  /* The pipeline (rconn_queue_eval): formatted commands, kept until
   * their replies are read, to send again on a new connection. */
  struct queued {
    char *cmd;
    size_t len;
    const rscript_t *s;
  } * q;
  int nq, capq;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double s)
{
  struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

int rconn_parse_url(const char *url, char *host, size_t hn, int *port, int *db,
                    char *err, size_t n)
{
  static const char scheme[] = "redis://";
  *port = 6379;
  *db = 0;
  if (strncmp(url, scheme, sizeof(scheme) - 1) != 0) {
    snprintf(err, n, "'%s' is not a Redis URL (redis://HOST[:PORT][/DB])", url);
    return -1;
  }
  const char *p = url + sizeof(scheme) - 1, *end;
  if (strchr(p, '@') != NULL) {
    snprintf(err, n, "'%s': a password in the URL is not supported", url);
    return -1;
  }
  if (*p == '[') {
    end = strchr(p, ']');
    if (end == NULL) {
      snprintf(err, n, "'%s': no ']' after the IPv6 address", url);
      return -1;
    }
    p++;
  } else {
    end = p + strcspn(p, ":/");
  }
  size_t len = (size_t)(end - p);
  if (len == 0 || len >= hn) {
    snprintf(err, n, "'%s': %s host", url, len == 0 ? "no" : "too long a");
    return -1;
  }
  memcpy(host, p, len);
  host[len] = '\0';
  p = end + (*end == ']');
  if (*p == ':') {
    char *e;
    errno = 0;
    long v = strtol(p + 1, &e, 10);
    if (e == p + 1 || errno != 0 || v < 1 || v > 65535 ||
        (*e != '\0' && *e != '/')) {
      snprintf(err, n, "'%s': the port must be 1 to 65535", url);
      return -1;
    }
    *port = (int)v;
    p = e;
  }
  if (*p == '/' && p[1] != '\0') {
    char *e;
    errno = 0;
    long v = strtol(p + 1, &e, 10);
    if (e == p + 1 || *e != '\0' || errno != 0 || v < 0 || v > 65535) {
      snprintf(err, n, "'%s': the database must be a number", url);
      return -1;
    }
    *db = (int)v;
  } else if (*p != '\0' && strcmp(p, "/") != 0) {
    snprintf(err, n, "'%s': unexpected '%s' after the host", url, p);
    return -1;
  }
  return 0;
}

/* dial: a new context for R, DB selected and the server answering; false
 * with R->err set if not. */
static bool dial(rconn_t *r)
{
  struct timeval tv = {
    (time_t)r->timeout, (long)((r->timeout - (double)(time_t)r->timeout) * 1e6)
  };
  r->loading = false; /* until a server says so, this time */
  redisContext *c = redisConnectWithTimeout(r->host, r->port, tv);
  if (c == NULL) {
    snprintf(r->err, sizeof(r->err), "redis://%s:%d: out of memory", r->host,
             r->port);
    return false;
  }
  if (c->err) {
    snprintf(r->err, sizeof(r->err), "cannot connect to redis://%s:%d: %s",
             r->host, r->port, c->errstr);
    redisFree(c);
    return false;
  }
  redisSetTimeout(c, tv);
  redisEnableKeepAlive(c);
  char db[16];
  snprintf(db, sizeof(db), "%d", r->db);
  const char *argv[2] = { "SELECT", db };
  redisReply *rep = r->db ? redisCommandArgv(c, 2, argv, NULL) : NULL;
  /* PING too: a Redis loading its data set answers it (and every script)
   * "-LOADING" but SELECT "+OK", so a connection is made only once it
   * can serve; else on a /DB URL the script after SELECT fails and every
   * worker stops. */
  if (r->db == 0 || (rep != NULL && rep->type != REDIS_REPLY_ERROR)) {
    if (rep != NULL) {
      freeReplyObject(rep);
      round_trips++;
    }
    rep = redisCommand(c, "PING");
  }
  r->loading = rep != NULL && rep->type == REDIS_REPLY_ERROR &&
               strncmp(rep->str, "LOADING", 7) == 0;
  if (rep == NULL || rep->type == REDIS_REPLY_ERROR) {
    snprintf(r->err, sizeof(r->err), "redis://%s:%d/%d: %s", r->host, r->port,
             r->db,
             rep ? rep->str
                 : (c->err ? c->errstr : "no answer to the first command"));
    if (rep)
      freeReplyObject(rep);
    redisFree(c);
    return false;
  }
  freeReplyObject(rep);
  round_trips++;
  rep = redisCommand(c, "CLIENT ID");
  round_trips++;
  r->client_id = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : 0;
  if (rep)
    freeReplyObject(rep);
  r->c = c;
  r->nscripts = 0; /* a new server may not have them */
  return true;
}

rconn_t *rconn_open(const char *url, double timeout, char *err, size_t n)
{
  return rconn_open_loaded(url, timeout, 0, err, n);
}

rconn_t *rconn_open_loaded(const char *url, double timeout, double wait,
                           char *err, size_t n)
{
  rconn_t *r = calloc(1, sizeof(*r));
  if (r == NULL) {
    snprintf(err, n, "out of memory");
    return NULL;
  }
  if (rconn_parse_url(url, r->host, sizeof(r->host), &r->port, &r->db, err,
                      n) != 0) {
    free(r);
    return NULL;
  }
  r->timeout = timeout > 0 ? timeout : 5;
  r->retry = RCONN_RETRY_SECONDS;
  double start = now(), pause = 0.1;
  bool said = false;
  while (!dial(r)) {
    if (!r->loading || now() - start + pause > wait) {
      if (r->loading)
        snprintf(err, n, "%.560s (still loading after %.0f s)", r->err,
                 now() - start);
      else
        snprintf(err, n, "%s", r->err);
      free(r);
      return NULL;
    }
    if (!said)
      fprintf(stderr,
              "crawler: Redis at %s:%d is loading its data; waiting for it "
              "(up to %g s)\n",
              r->host, r->port, wait);
    said = true;
    nap(pause);
    pause = pause * 2 > 1 ? 1 : pause * 2;
  }
  if (said)
    fprintf(stderr, "crawler: Redis at %s:%d has loaded its data\n", r->host,
            r->port);
  return r;
}

static void queue_clear(rconn_t *r)
{
  for (int i = 0; i < r->nq; i++)
    free(r->q[i].cmd);
  r->nq = 0;
}

void rconn_close(rconn_t *r)
{
  if (r == NULL)
    return;
  queue_clear(r);
  free(r->q);
  if (r->c)
    redisFree(r->c);
  free(r);
}

void rconn_set_retry(rconn_t *r, double seconds)
{
  r->retry = seconds;
}

/* broken: whether the context failed so that a new one may succeed. */
static bool broken(const redisContext *c)
{
  return c->err == REDIS_ERR_IO || c->err == REDIS_ERR_EOF;
}

/* back_off: the connection broke: say so once (*SAID), wait *WAIT
 * (doubled up to 5 s) and return true to try again; false once the
 * retry time, counted from *START (0: now), is spent (R->err says so). */
static bool back_off(rconn_t *r, double *start, double *wait, bool *said)
{
  double t = now();
  if (*start == 0)
    *start = t;
  if (t - *start >= r->retry) {
    char why[sizeof(r->err)];
    snprintf(why, sizeof(why), "%s", r->err);
    snprintf(r->err, sizeof(r->err), "%.560s (gave up after %.0f s)", why,
             t - *start);
    return false;
  }
  if (!*said) {
    fprintf(stderr, "crawler: lost Redis at %s:%d (%s); retrying for %g s\n",
            r->host, r->port, r->err, r->retry);
    *said = true;
  }
  nap(*wait);
  *wait = *wait * 2 > 5 ? 5 : *wait * 2;
  return true;
}

/* redial: if R has no connection, make one (saying it is back after
 * *SAID said it was lost). Returns true if it made one. */
static bool redial(rconn_t *r, bool *said)
{
  if (r->c != NULL || !dial(r))
    return false;
  r->reconnects++;
  if (*said)
    fprintf(stderr, "crawler: Redis at %s:%d is back\n", r->host, r->port);
  *said = false;
  return true;
}

/* send: rconn_cmd's body; ONCE: do not send the command again on a new
 * connection once it may have reached the server. */
static redisReply *send(rconn_t *r, int argc, const char **argv,
                        const size_t *len, bool once)
{
  double start = 0, wait = 0.1;
  bool said = false;
  for (;;) {
    redial(r, &said);
    if (r->c != NULL) {
      redisReply *rep = redisCommandArgv(r->c, argc, argv, len);
      if (rep != NULL) {
        round_trips++;
        return rep;
      }
      snprintf(r->err, sizeof(r->err), "redis://%s:%d: %s", r->host, r->port,
               r->c->errstr);
      bool io = broken(r->c);
      /* A context that failed keeps its error: make a new one. */
      redisFree(r->c);
      r->c = NULL;
      if (!io || once)
        return NULL;
    }
    if (!back_off(r, &start, &wait, &said))
      return NULL;
  }
}

redisReply *rconn_cmd(rconn_t *r, int argc, const char **argv,
                      const size_t *len)
{
  return send(r, argc, argv, len, false);
}

redisReply *rconn_cmdf(rconn_t *r, const char *arg, ...)
{
  const char *argv[MAX_ARGS];
  int argc = 0;
  va_list ap;
  va_start(ap, arg);
  for (const char *a = arg; a != NULL && argc < MAX_ARGS;
       a = va_arg(ap, const char *))
    argv[argc++] = a;
  va_end(ap);
  return rconn_cmd(r, argc, argv, NULL);
}

/* sha_of: the SHA-1 this connection's server gave S, loading it if
 * needed (FORCE: again); NULL with R->err set on failure. */
static const char *sha_of(rconn_t *r, const rscript_t *s, bool force)
{
  int i;
  for (i = 0; i < r->nscripts; i++)
    if (r->scripts[i].s == s)
      break;
  if (i < r->nscripts && !force)
    return r->scripts[i].sha;
  redisReply *rep = rconn_cmdf(r, "SCRIPT", "LOAD", s->lua, NULL);
  if (rep == NULL || rep->type != REDIS_REPLY_STRING || rep->len != 40) {
    char why[sizeof(r->err)];
    snprintf(why, sizeof(why), "%s",
             rep ? (rep->str ? rep->str : "unexpected reply") : r->err);
    snprintf(r->err, sizeof(r->err), "loading script %s: %.300s", s->name, why);
    if (rep)
      freeReplyObject(rep);
    return NULL;
  }
  if (i == r->nscripts) {
    if (i == MAX_SCRIPTS)
      i = 0; /* forget the oldest; it is loaded again when used */
    else
      r->nscripts++;
  }
  r->scripts[i].s = s;
  memcpy(r->scripts[i].sha, rep->str, 41);
  freeReplyObject(rep);
  return r->scripts[i].sha;
}

/* evalsha_argv: "EVALSHA SHA NK ARGV..." into AV and LV (ARGC + 3
 * entries each; the strings borrowed). */
static void evalsha_argv(const char *sha, const char *nk, int argc,
                         const char **argv, const size_t *len, const char **av,
                         size_t *lv)
{
  av[0] = "EVALSHA";
  lv[0] = 7;
  av[1] = sha;
  lv[1] = 40;
  av[2] = nk;
  lv[2] = strlen(nk);
  for (int i = 0; i < argc; i++) {
    av[i + 3] = argv[i];
    lv[i + 3] = len ? len[i] : strlen(argv[i]);
  }
}

/* eval: rconn_eval's body; ONCE as for send. */
static redisReply *eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                        const char **argv, const size_t *len, bool once)
{
  const char **av = malloc(((size_t)argc + 3) * sizeof(*av));
  size_t *lv = malloc(((size_t)argc + 3) * sizeof(*lv));
  char nk[16];
  redisReply *rep = NULL;
  if (av == NULL || lv == NULL) {
    snprintf(r->err, sizeof(r->err), "script %s: out of memory", s->name);
    goto out;
  }
  snprintf(nk, sizeof(nk), "%d", nkeys);
  for (int attempt = 0; attempt < 2; attempt++) {
    const char *sha = sha_of(r, s, attempt > 0);
    if (sha == NULL)
      break;
    evalsha_argv(sha, nk, argc, argv, len, av, lv);
    rep = send(r, argc + 3, av, lv, once);
    if (rep != NULL && rep->type == REDIS_REPLY_ERROR &&
        strncmp(rep->str, "NOSCRIPT", 8) == 0 && attempt == 0) {
      freeReplyObject(rep);
      rep = NULL;
      continue; /* the server restarted: load it again */
    }
    break;
  }
out:
  free(av);
  free(lv);
  return rep;
}

redisReply *rconn_eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                       const char **argv, const size_t *len)
{
  return eval(r, s, nkeys, argc, argv, len, false);
}

redisReply *rconn_eval_once(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                            const char **argv, const size_t *len)
{
  return eval(r, s, nkeys, argc, argv, len, true);
}

long rconn_round_trips(void)
{
  return round_trips;
}

long long rconn_client_id(const rconn_t *r)
{
  return r->client_id;
}

/* format_eval: EVALSHA of S's SHA-1 on R with the arguments, formatted
 * into *CMD (owned, *LEN bytes). Returns 0 or -1. */
static int format_eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                       const char **argv, const size_t *len, char **cmd,
                       size_t *clen, bool reload)
{
  const char *sha = sha_of(r, s, reload);
  if (sha == NULL)
    return -1;
  const char **av = malloc(((size_t)argc + 3) * sizeof(*av));
  size_t *lv = malloc(((size_t)argc + 3) * sizeof(*lv));
  char nk[16];
  int rc = -1;
  if (av != NULL && lv != NULL) {
    snprintf(nk, sizeof(nk), "%d", nkeys);
    evalsha_argv(sha, nk, argc, argv, len, av, lv);
    int n = redisFormatCommandArgv(cmd, argc + 3, av, lv);
    if (n > 0) {
      *clen = (size_t)n;
      rc = 0;
    }
  }
  if (rc != 0)
    snprintf(r->err, sizeof(r->err), "script %s: out of memory", s->name);
  free(av);
  free(lv);
  return rc;
}

/* queue_slot: room for one more queued command. Returns it, or NULL
 * (out of memory: r->err says so, naming WHAT). */
static struct queued *queue_slot(rconn_t *r, const char *what)
{
  if (r->nq == r->capq) {
    int cap = r->capq ? 2 * r->capq : 16;
    struct queued *q = realloc(r->q, (size_t)cap * sizeof(*q));
    if (q == NULL) {
      snprintf(r->err, sizeof(r->err), "%s: out of memory", what);
      return NULL;
    }
    r->q = q;
    r->capq = cap;
  }
  return &r->q[r->nq];
}

int rconn_queue_eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                     const char **argv, const size_t *len)
{
  struct queued *e = queue_slot(r, s->name);
  if (e == NULL)
    return -1;
  if (format_eval(r, s, nkeys, argc, argv, len, &e->cmd, &e->len, false) != 0)
    return -1;
  e->s = s;
  r->nq++;
  return 0;
}

int rconn_queue_cmd(rconn_t *r, int argc, const char **argv, const size_t *len)
{
  struct queued *e = queue_slot(r, argv[0]);
  if (e == NULL)
    return -1;
  long long n = redisFormatCommandArgv(&e->cmd, argc, argv, len);
  if (n < 0) {
    snprintf(r->err, sizeof(r->err), "%s: out of memory", argv[0]);
    return -1;
  }
  e->len = (size_t)n;
  e->s = NULL;
  r->nq++;
  return 0;
}

int rconn_queued(const rconn_t *r)
{
  return r->nq;
}

void rconn_drop(rconn_t *r)
{
  queue_clear(r);
}

/* reformat: every queued command again with the scripts' SHA-1s as the
 * (new) server has them loaded. Returns 0 or -1. */
static int reformat(rconn_t *r)
{
  for (int i = 0; i < r->nq; i++) {
    struct queued *e = &r->q[i];
    if (e->s == NULL)
      continue;
    /* The EVALSHA's SHA-1 is at a fixed place: "*N\r\n$7\r\nEVALSHA\r\n
     * $40\r\n" then 40 hex digits. */
    const char *sha = sha_of(r, e->s, false);
    char *at = e->cmd ? strstr(e->cmd, "$40\r\n") : NULL;
    if (sha == NULL || at == NULL)
      return -1;
    memcpy(at + 5, sha, 40);
  }
  return 0;
}

int rconn_flush(rconn_t *r, redisReply **replies)
{
  double start = 0, wait = 0.1;
  bool said = false, loaded = false;
  int n = r->nq;
  for (;;) {
    if (redial(r, &said)) {
      if (reformat(r) != 0) {
        queue_clear(r);
        return -1;
      }
    }
    if (r->c != NULL) {
      int got = 0;
      bool ok = true;
      for (int i = 0; i < n && ok; i++)
        ok = redisAppendFormattedCommand(r->c, r->q[i].cmd, r->q[i].len) ==
             REDIS_OK;
      for (; ok && got < n; got++) {
        void *rep = NULL;
        ok = redisGetReply(r->c, &rep) == REDIS_OK && rep != NULL;
        replies[got] = rep;
      }
      if (ok) {
        round_trips++;
        /* A server that restarted has lost the scripts: load them and
         * send everything again, once. */
        bool noscript = false;
        for (int i = 0; i < n; i++)
          noscript = noscript || (replies[i]->type == REDIS_REPLY_ERROR &&
                                  strncmp(replies[i]->str, "NOSCRIPT", 8) == 0);
        if (!noscript || loaded) {
          queue_clear(r);
          return n;
        }
        for (int i = 0; i < n; i++)
          freeReplyObject(replies[i]);
        loaded = true;
        r->nscripts = 0;
        if (reformat(r) != 0) {
          queue_clear(r);
          return -1;
        }
        continue;
      }
      for (int i = 0; i < got; i++)
        if (replies[i] != NULL)
          freeReplyObject(replies[i]);
      snprintf(r->err, sizeof(r->err), "redis://%s:%d: %s", r->host, r->port,
               r->c->errstr[0] ? r->c->errstr : "no reply");
      bool io = broken(r->c);
      redisFree(r->c);
      r->c = NULL;
      if (!io) {
        queue_clear(r);
        return -1;
      }
    }
    if (!back_off(r, &start, &wait, &said)) {
      queue_clear(r);
      return -1;
    }
  }
}

const char *rconn_error(const rconn_t *r)
{
  return r->err;
}

long rconn_reconnects(const rconn_t *r)
{
  return r->reconnects;
}
