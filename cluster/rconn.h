/* rconn.h: one connection to the Redis server that holds a cluster crawl
 * (internal).
 *
 * A thin layer over hiredis that gives the cluster code three things it
 * would otherwise repeat at every call: the crawl's address as a URL
 * (redis://HOST[:PORT][/DB]), errors as one readable line, and riding
 * out a Redis restart: a command whose connection broke is sent again
 * on a new connection, after a back-off that doubles from 0.1 s up to
 * 5 s, until RCONN_RETRY_SECONDS have gone by, saying so once on stderr.
 * Commands are sent again only when hiredis reports an I/O or EOF error
 * (a timeout is one), never after an error reply; the server may have
 * run the first one, its reply lost, so rconn_cmd and rconn_eval are
 * for commands whose repetition is harmless (reads, and scripts that
 * know when they ran already: cstate.c); the _once calls never send
 * again, for the rest (a take, which moves the reader's position on:
 * cstate_take).
 *
 * Scripts (rconn_eval) go by their SHA-1 (EVALSHA) and are loaded again
 * when the server answers NOSCRIPT, as after a restart.
 *
 * Thread-safety: a connection belongs to one thread at a time (hiredis
 * contexts are not shared); open one per thread that talks to Redis. */
#ifndef CRAWLER_CLUSTER_RCONN_H
#define CRAWLER_CLUSTER_RCONN_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis/hiredis.h>

typedef struct rconn rconn_t;

/* How long a broken connection is retried before a command fails. */
enum { RCONN_RETRY_SECONDS = 120 };

/* rconn_parse_url: split URL (borrowed) "redis://HOST[:PORT][/DB]" into
 * HOST (size HN; an IPv6 address in brackets loses them), *PORT (6379 if
 * absent) and *DB (0 if absent). Returns 0, or -1 with a one-line reason
 * in ERR (size N). */
int rconn_parse_url(const char *url, char *host, size_t hn, int *port, int *db,
                    char *err, size_t n);

/* rconn_open: connect to URL within TIMEOUT seconds (connect and each
 * command), select its DB and check the server answers (PING).
 * Returns: owned by caller (rconn_close); NULL with a one-line reason in
 * ERR (size N): a bad URL, or the server unreachable (no retry here: a
 * crawl that cannot reach Redis at start should say so at once). */
rconn_t *rconn_open(const char *url, double timeout, char *err, size_t n);

/* rconn_open_loaded: rconn_open, but a server that answers "LOADING"
 * (restarted, reading its data set) is waited for, up to WAIT seconds,
 * saying so once on stderr: it can be reached, it cannot serve yet. */
rconn_t *rconn_open_loaded(const char *url, double timeout, double wait,
                           char *err, size_t n);

/* rconn_close: close R; NULL is fine. */
void rconn_close(rconn_t *r);

/* rconn_set_retry: retry a broken connection for SECONDS (0: fail at
 * once) instead of RCONN_RETRY_SECONDS. */
void rconn_set_retry(rconn_t *r, double seconds);

/* rconn_cmd: send the command ARGV[0..ARGC) (binary-safe: LEN[i] bytes
 * each, or strlen when LEN is NULL) and read its reply, reconnecting as
 * above. Returns: the reply, owned by caller (freeReplyObject), which may
 * be an error reply; NULL if the server could not be reached in time,
 * with the reason in rconn_error. */
redisReply *rconn_cmd(rconn_t *r, int argc, const char **argv,
                      const size_t *len);

/* rconn_round_trips: commands sent and answered by every connection of
 * the process so far (each one round trip). Any thread. */
long rconn_round_trips(void);

/* rconn_client_id: the server's id of R's connection now (CLIENT ID),
 * for another connection to CLIENT UNBLOCK it; 0 if unknown. Any
 * thread. */
long long rconn_client_id(const rconn_t *r);

/* rconn_cmdf: as rconn_cmd, the arguments given as strings, NULL
 * ended. */
redisReply *rconn_cmdf(rconn_t *r, const char *arg, ...);

/* A Lua script run by EVALSHA. Constant: each connection remembers the
 * SHA-1 the server gave it (SCRIPT LOAD) for each script it ran. */
typedef struct rscript {
  const char *name; /* for messages */
  const char *lua;
} rscript_t;

/* rconn_eval: run S with NKEYS keys then the other arguments, as
 * rconn_cmd (ARGV and LEN hold keys and arguments, ARGC of them).
 * Returns: as rconn_cmd. */
redisReply *rconn_eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                       const char **argv, const size_t *len);

/* rconn_queue_eval: queue script S (as rconn_eval) without waiting for
 * its reply: a pipeline, sent and answered by rconn_flush. Returns 0, or
 * -1 (out of memory, or the script could not be loaded: rconn_error). */
int rconn_queue_eval(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                     const char **argv, const size_t *len);

/* rconn_queue_cmd: queue the command ARGV[0..ARGC) (as rconn_cmd) for
 * rconn_flush. Returns 0, or -1 (out of memory: rconn_error). */
int rconn_queue_cmd(rconn_t *r, int argc, const char **argv, const size_t *len);

/* rconn_queued: how many commands wait for rconn_flush. */
int rconn_queued(const rconn_t *r);

/* rconn_drop: forget what is queued, unsent. */
void rconn_drop(rconn_t *r);

/* rconn_flush: send what is queued, in one round trip, and read the
 * replies into REPLIES (room for rconn_queued of them; each owned by
 * caller). A connection that breaks is made again and everything sent
 * again (so queue only commands that may run twice: rconn.h), as is
 * everything after a NOSCRIPT reply (a restarted server: the scripts are
 * loaded again). Returns the number of replies, or -1 if the server
 * could not be reached in time (rconn_error; the queue is dropped). */
int rconn_flush(rconn_t *r, redisReply **replies);

/* rconn_eval_once: as rconn_eval, but a script that may have reached the
 * server is never sent again: NULL then (the next call reconnects). */
redisReply *rconn_eval_once(rconn_t *r, const rscript_t *s, int nkeys, int argc,
                            const char **argv, const size_t *len);

/* rconn_error: the last failure, as one line. Borrowed, valid until the
 * next call on R. */
const char *rconn_error(const rconn_t *r);

/* rconn_reconnects: how many times R reconnected after a break. */
long rconn_reconnects(const rconn_t *r);

#endif /* CRAWLER_CLUSTER_RCONN_H */
