/* cstate_int.h: what cstate.c, cstate_queue.c and cstate_status.c share
 * (private to cluster/). */
#ifndef CRAWLER_CLUSTER_CSTATE_INT_H
#define CRAWLER_CLUSTER_CSTATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cstate.h"

/* An argument vector for a command or a script: strings borrowed, or
 * formatted and owned (freed by args_free). */
struct args {
  const char **v;
  size_t *l;
  char **own;
  int n, cap;
  bool nomem;
};

struct cstate {
  rconn_t *r;
  char prefix[96]; /* "tse:{NAME}:" */
  char meta[112];  /* prefix "meta": every script's KEYS[1] */
  char id[40];     /* the crawl's id, from meta */
  char worker[32]; /* cstate_set_worker's, or "" */
  char err[320];
  /* Results and commits queued (cstate_result_queue,
   * cstate_commit_queue): each kind goes to Redis as one script call
   * (cstate_flush); their arguments after the fixed ones, owned. */
  struct args rq, cq;
  int nr, nc;
};

void args_add_raw(struct args *a, const char *s, size_t len, char *owned);
void args_add(struct args *a, const char *s);
void args_addf(struct args *a, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* args_addu, args_addi: a number in decimal, without printf's cost (a
 * commit sends thousands). args_add_copy: S's
 * LEN bytes copied (queued arguments outlive the caller's). */
void args_addu(struct args *a, uint64_t v);
void args_addi(struct args *a, int64_t v);
void args_add_copy(struct args *a, const char *s, size_t len);
/* cs_digits: V in decimal, written back from END (room for 20 digits
 * before it). Returns where it begins. */
char *cs_digits(char *end, uint64_t v);

/* COMMIT_FIELDS: the arguments of one commit (commit_lua) before its
 * adds: token, seq, next_seq, next_commit, pages, journal, depth, the
 * result entries to delete (ids, space-separated; maybe none), saved
 * (1/0), noindex, how many adds. Then ADD_FIELDS an add: the item as its
 * partition keeps it (cs_add_item; '' for a URL that only joins the seen
 * set), its partition, its fingerprint (SEEN_FP bytes). */
enum { COMMIT_FIELDS = 11, ADD_FIELDS = 3 };

/* cs_add_item: item SEQ at DEPTH, of host HOSTKEY (no space in it; maybe
 * empty), URL, as a partition keeps it (field i: "SEQ DEPTH HOSTKEY
 * URL"), added to A (cstate_queue.c). cs_item_parse reads it back: 0, or
 * -1 if V (N bytes) is not one. */
void cs_add_item(struct args *a, uint64_t seq, int depth, const char *hostkey,
                 const char *url);
int cs_item_parse(const char *v, size_t n, uint64_t *seq, int *depth,
                  const char **hostkey, size_t *nhost, const char **url);
/* args_truncate: back to its first N arguments, and not out of memory. */
void args_truncate(struct args *a, int n);
void args_free(struct args *a);

/* cs_key: the key "PREFIX WHAT" of CS in BUF (size N). */
const char *cs_key(const cstate_t *cs, char *buf, size_t n, const char *what);

/* cs_status: the status REP stands for (NULL: no answer; an error reply:
 * LOST, FENCED, ORDER, OOM or other), its reason in CS->err, naming
 * WHAT; CRAWL_OK for any other reply. */
int cs_status(cstate_t *cs, const redisReply *rep, const char *what);

/* cs_unexpected: CS->err says WHAT got a reply of an unexpected shape;
 * returns CRAWL_EREDIS. */
int cs_unexpected(cstate_t *cs, const char *what);

/* cs_run: run script S with KEYS[1] = CS's meta key and arguments A
 * (freed); ONCE: rconn_eval_once. The reply in *REP (caller frees) on
 * CRAWL_OK when REP is not NULL. */
int cs_run(cstate_t *cs, const rscript_t *s, struct args *a, bool once,
           redisReply **rep);

/* cs_queue: as cs_run, but only queued on CS's connection (a pipeline
 * that cstate_flush sends); A freed. Returns CRAWL_OK, or
 * CRAWL_ENOMEM/CRAWL_EREDIS (not queued). */
int cs_queue(cstate_t *cs, const rscript_t *s, struct args *a);

/* Every script but join starts so: P the prefix, ARGV[1] the crawl's
 * id. */
#define PRELUDE                                                                \
  "local meta = KEYS[1]\n"                                                     \
  "local p = string.sub(meta, 1, -5)\n"                                        \
  "if redis.call('HGET', meta, 'id') ~= ARGV[1] then\n"                        \
  "  return redis.error_reply('LOST crawl not found')\n"                       \
  "end\n"

/* cs_queued: what was added to Q (rq or cq) after its first N0
 * arguments is one more queued (*COUNT), or, out of memory, taken back:
 * CRAWL_ENOMEM, naming WHAT. */
int cs_queued(cstate_t *cs, struct args *q, int n0, int *count,
              const char *what);

/* The results' script (cstate_queue.c), sent by cstate_flush. */
extern const rscript_t cs_results_lua;

/* Reply shapes. */
bool rep_is(const redisReply *r, int type);
bool rep_array(const redisReply *r, size_t min);
const char *rep_str(const redisReply *r); /* its string, or NULL */

#endif /* CRAWLER_CLUSTER_CSTATE_INT_H */
