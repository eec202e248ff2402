/* cstate.h: the shared state of a cluster crawl, kept in Redis (internal).
 *
 * The cluster's half of the frontier (DESIGN.md, "One crawl, many
 * processes"): what the single-process engine keeps in its own memory,
 * kept where every worker of crawl NAME reaches it. All keys of a crawl
 * start with "tse:{NAME}:", one hash tag, so that every script of the
 * crawl runs on one server (or one slot of a Redis Cluster).
 *
 *   meta          hash: the crawl's id (random, made by the worker that
 *                 created it), its options as recorded, nparts, buckets,
 *                 state (running, complete), notes (note:FIELD: why the
 *                 seed was not saved; pagedir, the page directory's
 *                 marker stamp, claimed once)
 *   commit        hash: next_seq (seqs handed out), next_commit (the
 *                 first seq not committed), pages (IDs handed out),
 *                 journal (bytes of .journal), depth (of the last
 *                 item committed), seen_chunk (the last seen:K)
 *   seen:K        string: the seen set, a log of URL fingerprints
 *                 (cstate_fp: 10 bytes each, 80 bits) that each batch of
 *                 commits appends to; K moves on every 40 MB
 *   part:P        stream: the items of partition P (hosts hash to
 *                 partitions) waiting to be fetched or being fetched (an
 *                 item leaves with its result); its holder reads it from
 *                 where it read up to (cstate_take). An entry an item,
 *                 field i: "SEQ DEPTH HOSTKEY URL" (one field, not four:
 *                 Redis's scripts pay by the string), and field c, the
 *                 chain of a redirect handed over
 *   ready         set: the partitions where items were added and not
 *                 read since (a take looks only there, cstate_take)
 *   results       stream: items fetched and parsed, waiting for commit;
 *                 an entry a batch published, a field a result (seq ->
 *                 data)
 *   done          stream: one entry once the crawl is complete (wakes
 *                 workers waiting for items)
 *   lease:WHAT    hash owner, token: the commit lease ("commit") or a
 *                 partition's ("part:P"), with a time to live
 *   fence         counter: every lease granted gets the next value, its
 *                 fencing token
 *   workers       hash: worker id -> "host pid started"; alive:ID keys
 *                 (the items in flight there) with a time to live say
 *                 which are alive (for --status),
 *                 and so does `alive`, a sorted set of worker ids scored
 *                 by when their heartbeat lapses (ms, Redis's clock)
 *   plan          hash: partition -> the worker that should hold it;
 *   planned       hash: at (ms: last weighed), alive (the workers then)
 *   pause:P       hash: host key of partition P -> ms (Redis's clock)
 *                 before which it is not asked (Retry-After); pauses:
 *                 a counter of the pauses recorded
 *   stats         hash: counts for --status (pages per depth, failures)
 *
 * Fencing: every script that changes the crawl on a lease's behalf
 * checks that the lease still has the token its caller was given; one
 * that lapsed (the worker paused, or cut off past the time to live) gets
 * CRAWL_EFENCED and changes nothing. Every script also checks the
 * crawl's id, so a Redis that came back empty (or another data set) is
 * CRAWL_ELOST, never a fresh crawl.
 *
 * Sent again: a command whose connection broke is sent again on a new
 * one (rconn.h); every script knows when it ran already and answers as
 * it did, so that is harmless, and reading items (cstate_take) is never
 * sent again.
 *
 * Memory: a seen URL costs Redis about 10 bytes (its fingerprint in the
 * seen:K log), whatever the crawl's size.
 *
 * Thread-safety: a cstate_t wraps one connection (rconn.h): one thread
 * at a time. Open one per thread that talks to Redis. */
#ifndef CRAWLER_CLUSTER_CSTATE_H
#define CRAWLER_CLUSTER_CSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "crawl.h"
#include "rconn.h"

typedef struct cstate cstate_t;

/* The calls below return crawl.h's statuses: CRAWL_OK, CRAWL_ENOMEM,
 * CRAWL_EREDIS (cstate_error says why), CRAWL_EMISMATCH, CRAWL_EDONE,
 * CRAWL_ELOST (the crawl vanished from Redis, restarted empty, or is
 * another crawl's), CRAWL_EFENCED, CRAWL_ENOENT (cstate_open) and
 * CRAWL_EORDER (cstate_commit). */

/* Seconds a command may take before the connection counts as broken;
 * blocking reads block for less (CSTATE_BLOCK_MS at most). */
enum { CSTATE_TIMEOUT = 10, CSTATE_BLOCK_MS = 2000 };

/* The size of a stream entry id as kept here, NUL included. */
enum { CSTATE_ID_SIZE = 32 };

/* Partitions of a crawl: hosts hash to one of these, and each is leased
 * to one worker at a time. Fixed when the crawl is created. */
enum { CSTATE_PARTS = 64, CSTATE_BUCKETS = 65536 };

/* An option as the crawl records it: NAME as on the command line,
 * VALUE its canonical text ("" when not given). */
typedef struct cstate_param {
  const char *name, *value;
} cstate_param_t;

/* How a crawl's keys are laid out in Redis (this header's list): bumped
 * when that changes, recorded by the crawl as an option is
 * ("redis-layout"), so that a crawl another version of the crawler
 * recorded is refused (CRAWL_EMISMATCH), not misread. 2: partitions
 * read from a position, results a batch an entry, the seen set a log;
 * 3: an item one field; 4: the page directory bound (note:pagedir),
 * without which a crawl's directory is refused. */
#define CSTATE_LAYOUT "4"

/* cstate_join: connect to URL and join crawl NAME, creating it if it does
 * not exist: then PARAMS (NP of them) and the layout are recorded and
 * SEED (borrowed) is its first item, seq 0 at depth 0 under HOSTKEY. If
 * it exists, PARAMS and the layout must equal what it recorded.
 * Returns: CRAWL_OK with *OUT (owned by caller, cstate_close) and
 *   *CREATED; CRAWL_EMISMATCH with ERR naming the option and both
 *   values; CRAWL_EDONE; CRAWL_EREDIS with the reason in ERR (size
 *   N). Thread-safety: any thread. */
int cstate_join(const char *url, const char *name, const cstate_param_t *params,
                size_t np, const char *seed, const char *hostkey,
                cstate_t **out, bool *created, char *err, size_t n);

/* cstate_open: connect to URL and open crawl NAME, which must exist (for
 * --status and for a thread of a worker that joined). Returns:
 * CRAWL_OK with *OUT; CRAWL_ENOENT; CRAWL_EREDIS. */
int cstate_open(const char *url, const char *name, cstate_t **out, char *err,
                size_t n);

/* cstate_close: disconnect; NULL is fine. */
void cstate_close(cstate_t *cs);

/* cstate_name_ok: whether NAME may name a crawl: 1 to 64 letters,
 * digits, '-', '_', '.' (it goes into every key, in a hash tag). */
bool cstate_name_ok(const char *name);

/* cstate_error: the last failure as one line (borrowed). */
const char *cstate_error(const cstate_t *cs);

/* cstate_crawl_id: the id of the crawl CS acts for (borrowed): the one
 * it joined or opened; a crawl of the same name made since has another. */
const char *cstate_crawl_id(const cstate_t *cs);

/* cstate_rconn: the connection (borrowed), e.g. to set its retry time. */
rconn_t *cstate_rconn(cstate_t *cs);

/* cstate_client_id: the server's id of CS's connection now, for another
 * connection to unblock it (cstate_unblock); 0 if unknown. Any thread. */
long long cstate_client_id(const cstate_t *cs);

/* cstate_unblock: wake the connection the server knows as ID from a
 * blocking read (CLIENT UNBLOCK), one try, no retry. Returns CRAWL_OK, or
 * CRAWL_EREDIS (cstate_error says why). */
int cstate_unblock(cstate_t *cs, long long id);

/* cstate_fp: the fingerprint of URL: bucket *B in [0, CSTATE_BUCKETS)
 * and member *M (80 bits in all): fptable_hash128's, FP[0]'s top 16 bits
 * and FP[1], as a shared engine keeps it (engine.h, engine_source_t.fp80). */
void cstate_fp(const char *url, uint32_t *b, int64_t *m);

/* cstate_fp_join: the 128-bit fingerprint (80 bits count, the rest zero)
 * of bucket B and member M. */
void cstate_fp_join(uint32_t b, int64_t m, uint64_t fp[2]);

/* cstate_part: the partition of HOSTKEY. */
int cstate_part(const char *hostkey);

/* ---- workers and leases ---- */

/* cstate_register: give this worker an id ("w1-9f3a1c0e", "w2-...": the
 * count of workers that joined, then a random part, since a Redis that
 * lost its last second counts again from before it; copied into ID,
 * size N) and record it with INFO (borrowed: "host pid"). */
int cstate_register(cstate_t *cs, const char *info, char *id, size_t n);

/* cstate_heartbeat: say worker ID is alive for the next TTL_MS. */
int cstate_heartbeat(cstate_t *cs, const char *id, long ttl_ms);

/* cstate_set_worker: the worker CS acts for (ID copied): the commit and
 * result scripts then check that the lease is this worker's as well as
 * its token (a token is a counter in Redis: one that lost its last
 * second may give a number again). */
void cstate_set_worker(cstate_t *cs, const char *id);

/* cstate_lease: take or renew lease WHAT ("commit", "part:7") for worker
 * ID for TTL_MS. *TOKEN: 0 to take it (set to the new fencing token on
 * success; ID taking a lease it holds gets its token), or the token
 * held, to renew it.
 * Returns: 1 held (taken or renewed), 0 someone else holds it (or it
 * lapsed and was taken), or a negative status. The lease runs TTL_MS
 * from some moment during the call: a holder counts its end from
 * before it sent the call, and acts for it only until then (a renewal
 * that fails, or is late, means stop). */
int cstate_lease(cstate_t *cs, const char *what, const char *id, long ttl_ms,
                 uint64_t *token);

/* cstate_keep: the keeper's tick in one round trip. Worker ID is said
 * alive for TTL_MS, with INFLIGHT items in flight (for --status). The
 * plan of which worker fetches which partition is brought up to date: a
 * partition whose worker is not alive goes to the lightest worker, and
 * every half second (a tenth if ID is idle, nothing in flight there; at
 * once when the workers alive change) partitions
 * move to the lightest worker from the heaviest that can give one, while
 * that evens out their backlogs (the items queued or in flight in each).
 * Then the leases, as cstate_lease: each partition
 * the plan gives ID is taken if free, each held is renewed, and so is
 * the commit. PARTS[i]: in, the token held for partition i (0: none);
 * out, the token held after (0: none), with GIVE[i] true if the plan
 * gives it to another worker (renewed meanwhile: stop acting for it,
 * then cstate_release it). *COMMIT: in, the commit's token held (0: take
 * it if free); out, the token held after, or 0. *ALIVE: the workers
 * alive; *MOVING: partitions on their way to or from ID (planned to it
 * and held by another, or to give back; at least one for a second after
 * the plan changed); *PAUSES: the count of pauses
 * ever recorded (cstate_pause), to read them again when it changes.
 * Returns CRAWL_OK or a negative status. */
int cstate_keep(cstate_t *cs, const char *id, long ttl_ms, long inflight,
                uint64_t parts[CSTATE_PARTS], bool give[CSTATE_PARTS],
                uint64_t *commit, int *alive, int *moving, long *pauses);

/* cstate_leave: worker ID stops: not alive from now (its partitions go
 * to the others at their next tick). */
int cstate_leave(cstate_t *cs, const char *id);

/* cstate_release: give lease WHAT back if OWNER still holds it with
 * TOKEN (a token alone may be given again after a Redis rollback). */
int cstate_release(cstate_t *cs, const char *what, const char *owner,
                   uint64_t token);

/* ---- the commit ---- */

typedef struct cstate_commit {
  uint64_t next_seq, next_commit;
  long pages;
  long noindex;      /* noindex pages so far (their links files' names) */
  long long journal; /* bytes of .journal after the last commit */
  int depth;
} cstate_commit_t;

/* cstate_commit_state: read the commit's position into *C. */
int cstate_commit_state(cstate_t *cs, cstate_commit_t *c);

/* cstate_seen_load: call FN(ARG, B, M) for every fingerprint of the seen
 * set (a new committer builds its own from it). */
int cstate_seen_load(cstate_t *cs, void (*fn)(void *arg, uint32_t b, int64_t m),
                     void *arg);

/* One URL added by a commit: it is new (the committer checked its own
 * copy of the seen set) and gets seq SEQ; with SEEN_ONLY it only joins
 * the seen set (a redirect's target). FP: its fingerprint
 * (cstate_fp's), or NULL to compute it from URL. */
typedef struct cstate_add {
  const char *url, *hostkey;
  int depth;
  uint64_t seq;
  const uint64_t *fp;
  bool seen_only;
} cstate_add_t;

/* cstate_commit: commit item SEQ under commit lease TOKEN: add ADDS (NA
 * of them, seqs SEQ's commit handed out, in order) to the seen set and
 * to their partitions, record AFTER (the position after this item:
 * next_commit SEQ + 1), delete the result entries RESULT_ID names
 * (ids, space-separated; NULL or "": none),
 * count one page at DEPTH if SAVED. Atomic: all of it or none. When
 * after->next_commit reaches after->next_seq, the crawl is complete.
 * Nothing else may wait on CS (cstate_flush).
 * Returns: CRAWL_OK; CRAWL_EFENCED; CRAWL_ELOST; CRAWL_EREDIS (then
 * nothing or all of it happened: read cstate_commit_state to know). */
int cstate_commit(cstate_t *cs, uint64_t token, uint64_t seq,
                  const cstate_add_t *adds, size_t na,
                  const cstate_commit_t *after, const char *result_id,
                  bool saved);

/* cstate_commit_queue: as cstate_commit, but only queued on CS (its
 * arguments copied), to be sent with the others, in seq order and under
 * one token, as one script by cstate_flush (the directory is written
 * before: DESIGN.md). Returns CRAWL_OK, or CRAWL_ENOMEM (not
 * queued). */
int cstate_commit_queue(cstate_t *cs, uint64_t token, uint64_t seq,
                        const cstate_add_t *adds, size_t na,
                        const cstate_commit_t *after, const char *result_id,
                        bool saved);

/* cstate_flush: send what is queued on CS in one round trip, the
 * results (cstate_result_queue) as one script and the commits
 * (cstate_commit_queue) as another (the commits all or none; each
 * result fenced or not on its own), and read the answers: STATUS[i] (room for
 * every one queued) is the status cstate_result or cstate_commit would have
 * returned for the i-th, the results first, then the commits, each in the order
 * queued. Returns how many, or a negative status (none of them known to have
 * run: not sent, or Redis could not be reached). */
int cstate_flush(cstate_t *cs, int *status);

/* ---- partitions: items to fetch ---- */

/* An item read from a partition: entry ID (the stream's), seq, depth,
 * URL and host key, and the redirect chain that led there (NULL: none;
 * else the URLs before, a line each, the first the one added). Strings
 * owned by the array (cstate_items_free). */
typedef struct cstate_item {
  char id[32];
  int part;
  uint64_t seq;
  int depth;
  char *url, *hostkey;
  char *chain;
} cstate_item_t;

/* A partition held: its number and lease token (in), where this worker
 * read up to (in and out), and what cstate_take found (out). */
typedef struct cstate_hold {
  int part;
  uint64_t token;
  char pos[32];  /* the last entry read there ("": none; a partition
                    newly held starts so) */
  bool fenced;   /* out: the lease is someone else's now */
  char last[32]; /* out, when no item was taken: the partition's last entry id,
                    for cstate_wait */
} cstate_hold_t;

/* cstate_take: items of the partitions held, HOLDS (NH of them, leased
 * by worker ID), at most MAX, read after each hold's POS (moved on past
 * what was read), in the partitions where items were added since
 * (`ready`); with RECOVER, in every partition of HOLDS, and first again
 * each item up to POS not finished (a take whose reply was lost, an item
 * dropped: the caller skips those it has). A partition newly held (POS
 * "") gives what its last holder did not finish, then what is new:
 * take it with RECOVER first. Never waits, and is never sent again: a
 * failure may lose the reply, so take again with RECOVER (POS unchanged).
 * A partition whose lease is another's is marked fenced and gives
 * nothing.
 * Returns: the number of items in *OUT (owned by caller:
 * cstate_items_free), or a negative status. */
int cstate_take(cstate_t *cs, cstate_hold_t *holds, size_t nh, const char *id,
                bool recover, size_t max, cstate_item_t **out);

/* cstate_wait: wait up to BLOCK_MS (at most CSTATE_BLOCK_MS) for an item
 * added to a partition of HOLDS after its LAST, or for the crawl to be
 * complete (the commit's last script adds to the `done` stream). Returns
 * 1 if an item was added, 2 if the crawl is complete, 0 if neither, or
 * a negative status. */
int cstate_wait(cstate_t *cs, const cstate_hold_t *holds, size_t nh,
                long block_ms);

void cstate_items_free(cstate_item_t *items, size_t n);

/* cstate_result: item IT (taken by this worker under partition lease
 * TOKEN) is fetched and parsed: its result DATA (LEN bytes, the front
 * end's) goes to the results stream and the item leaves its partition,
 * atomically. An item finished already (this call sent again, or the
 * item finished by another) is left as it is: CRAWL_OK too. Nothing
 * else may wait on CS (cstate_flush).
 * Returns: CRAWL_OK, CRAWL_EFENCED (the partition is someone else's
 * now: drop the result), CRAWL_ELOST, CRAWL_EREDIS. */
int cstate_result(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                  const void *data, size_t len);

/* cstate_hand: item IT (as cstate_result) is a redirect to a host of
 * partition TO->part: it leaves its partition and TO (its seq and depth,
 * the next hop's URL and host key, and the chain so far) joins that one,
 * atomically, for the worker holding it to fetch. Returns as
 * cstate_result. */
int cstate_hand(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                const cstate_item_t *to);

/* cstate_result_queue: as cstate_result, but only queued on CS (its
 * arguments copied), sent with the others as one script by
 * cstate_flush. Queue a few hundred at most (so cstate_commit_queue):
 * a script's unpack() takes some 8,000 values. Returns CRAWL_OK, or
 * CRAWL_ENOMEM (not queued). */
int cstate_result_queue(cstate_t *cs, const cstate_item_t *it, uint64_t token,
                        const void *data, size_t len);

/* A result read back: the entry ID of its batch (results published
 * together are one entry), SEQ, data (owned). */
typedef struct cstate_result {
  char id[32];
  uint64_t seq;
  char *data;
  size_t len;
} cstate_result_t;

/* cstate_results: results after entry AFTER ("0-0": from the first), of
 * at most MAX entries (a batch of results each), waiting up to BLOCK_MS (at
 * most CSTATE_BLOCK_MS) for one; LAST (CSTATE_ID_SIZE bytes) is set to the last
 * entry id read (left as it is when none was), which the next call passes as
 * AFTER. Returns: how many are in *OUT (cstate_results_free), or a negative
 * status. */
int cstate_results(cstate_t *cs, const char *after, size_t max, long block_ms,
                   cstate_result_t **out, char *last);

void cstate_results_free(cstate_result_t *r, size_t n);

/* ---- what workers share besides the frontier ---- */

/* cstate_robots_get: the answer to robots.txt URL (borrowed) that some
 * worker stored (cstate_robots_put), into *DATA (owned by caller; NULL
 * if none) and *LEN. Returns CRAWL_OK or a negative status. */
int cstate_robots_get(cstate_t *cs, const char *url, char **data, size_t *len);

/* cstate_robots_put: store DATA (LEN bytes) as the answer to robots.txt
 * URL, unless one is stored already (the first answer stands). */
int cstate_robots_put(cstate_t *cs, const char *url, const void *data,
                      size_t len);

/* cstate_pause: HOSTKEY asked for no request for SECONDS from now
 * (Retry-After), recorded in its partition, by Redis's clock, for
 * whoever holds it (the later of two pauses stands; cstate_keep's
 * *PAUSES counts them). */
int cstate_pause(cstate_t *cs, const char *hostkey, double seconds);

/* cstate_pauses: FN(ARG, hostkey, seconds left) for each pause not over
 * yet in the N partitions PARTS, in one round trip. */
int cstate_pauses(cstate_t *cs, const int *parts, size_t n,
                  void (*fn)(void *arg, const char *hostkey, double seconds),
                  void *arg);

/* cstate_note_set, cstate_note_get: a short text FIELD of the crawl's
 * record (e.g. why the seed was not saved); get copies it into OUT (size
 * N; "" if none). */
int cstate_note_set(cstate_t *cs, const char *field, const char *value);
int cstate_note_get(cstate_t *cs, const char *field, char *out, size_t n);

/* cstate_note_claim: FIELD set to VALUE unless it has a value already;
 * the value it holds after (VALUE, or the one another worker set first)
 * into OUT (size N). */
int cstate_note_claim(cstate_t *cs, const char *field, const char *value,
                      char *out, size_t n);

/* ---- the crawl as a whole ---- */

/* cstate_complete: whether the crawl is complete (1), running (0), or a
 * negative status (CRAWL_ELOST). */
int cstate_complete(cstate_t *cs);

/* cstate_count: add N[i] requests to host HOSTS[i] (K of them) to the
 * crawl's counts (for --status). */
int cstate_count(cstate_t *cs, const char *const *hosts, const long *n,
                 size_t k);

/* cstate_status: print the crawl's state to FP for a person: workers
 * alive and since when, pages per depth, items queued and in flight,
 * failures, requests per second overall and for the busiest hosts.
 * Returns 1 complete, 0 running, or a negative status. */
int cstate_status(cstate_t *cs, FILE *fp);

#endif /* CRAWLER_CLUSTER_CSTATE_H */
