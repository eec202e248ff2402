/* wcluster.c: see wcluster.h.
 *
 * The commit's side: a committer publishes a page (through the page
 * store, pstore.h) by a hard link to its temporary file (no more disk:
 * one file, two names), which stays until the crawl is complete, so that
 * a committer after it, which cuts the journal back to the recorded
 * length and removes the pages published after the recorded count
 * (take_commit, pstore_cut), can publish them again: also
 * when Redis comes back from a crash without its last second, which a
 * commit recorded (its reply received) may be part of. */
#include "wcluster.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crawl.h"
#include "page.h"
#include "strbuf.h"
#include "url.h"
#include "webcrawl_int.h"

/* cl_of: the cluster of W's crawl: W's coordinator is this file's. */
static cluster_t *cl_of(const struct webcrawl *w)
{
  return w->co->ctx;
}

/* ---- joining ---- */

/* in_dir: stat DIR/NAME into *SB; 0, or -1 (errno). */
static int in_dir(const char *dir, const char *name, struct stat *sb)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s/%s", dir, name);
  int rc = !b.oom && b.p != NULL ? stat(b.p, sb) : -1;
  if (b.oom || b.p == NULL)
    errno = ENOMEM;
  strbuf_release(&b);
  return rc;
}

int wcluster_pagedir(cluster_t *cl, const char *name, pstore_t *ps,
                     const pagedir_params_t *params, char *stamp, size_t sn,
                     char *err, size_t n)
{
  const char *dir = pstore_dir(ps);
  char rec[128], mine[128];
  struct stat sb;
  int rc = cluster_note_get(cl, "pagedir", rec, sizeof(rec));
  if (rc != CRAWL_OK) {
    snprintf(err, n, "%s", cluster_error(cl));
    return rc;
  }
  /* Before anything binds it: a directory refused for its file system
   * after the claim would leave the crawl bound to it. */
  if (pstore_link_probe(ps, err, n) != 0)
    return CRAWL_EMISMATCH;
  bool made = false;
  if (in_dir(dir, ".crawler", &sb) != 0) {
    if (rec[0] != '\0') {
      snprintf(err, n,
               "'%s' is not the page directory of crawl %s: it holds no "
               "crawl, and the crawl saves its pages in another (give every "
               "worker the same directory, a shared mount across machines)",
               dir, name);
      return CRAWL_EMISMATCH;
    }
    /* The first worker here makes it (another may win the race). */
    made = pstore_init(ps, params, err, n) == 0;
    if (!made && in_dir(dir, ".crawler", &sb) != 0)
      return CRAWL_EMISMATCH; /* ERR says why */
  }
  if (!made) {
    char *had = NULL, *want = NULL;
    int cmp = pagedir_marker_compare(dir, params, &had, &want);
    if (cmp != 0) {
      if (cmp > 0)
        snprintf(err, n,
                 "'%s' holds a crawl with '%s', this command asks "
                 "for '%s'",
                 dir, had, want);
      else
        snprintf(err, n, "cannot read the marker of '%s': %s", dir,
                 strerror(errno));
      free(had);
      free(want);
      return CRAWL_EMISMATCH;
    }
  }
  if (pstore_stamp(ps, mine, sizeof(mine)) != 0) {
    snprintf(err, n, "cannot read the marker of '%s': %s", dir,
             strerror(errno));
    return CRAWL_EMISMATCH;
  }
  if (rec[0] == '\0') {
    /* Not bound yet: only a directory that holds no page yet. Nothing
     * of the crawl is written before it is bound; but a worker started
     * with this one may have bound it since the note was read, and
     * that is no reason to refuse this one. */
    bool fresh = in_dir(dir, "1", &sb) != 0 &&
                 (in_dir(dir, ".journal", &sb) != 0 || sb.st_size == 0);
    rc = fresh ? cluster_note_claim(cl, "pagedir", mine, rec, sizeof(rec))
               : cluster_note_get(cl, "pagedir", rec, sizeof(rec));
    if (rc != CRAWL_OK) {
      snprintf(err, n, "%s", cluster_error(cl));
      return rc;
    }
    if (rec[0] == '\0') {
      snprintf(err, n,
               "'%s' holds pages that crawl %s has no record of (a finished "
               "crawl, or one whose Redis came back empty); use an empty "
               "directory",
               dir, name);
      return CRAWL_EMISMATCH;
    }
  }
  if (strcmp(rec, mine) != 0) {
    snprintf(err, n,
             "'%s' is not the page directory of crawl %s: its marker is "
             "another crawl's; give every worker the directory the crawl "
             "started in",
             dir, name);
    return CRAWL_EMISMATCH;
  }
  snprintf(stamp, sn, "%s", mine);
  return CRAWL_OK;
}

int wcluster_join(const char *url, const char *name, double lease,
                  const pagedir_params_t *params, const webcrawl_opts_t *o,
                  cluster_t **out, bool *created, char *err, size_t n)
{
  *out = NULL;
  double margin = cluster_lease_margin(lease);
  if (margin < 2)
    fprintf(stderr,
            "crawler: warning: --lease-timeout %g: a worker acts until %g s "
            "after each renewal; a Redis that loses more than its last "
            "%g s (appendfsync everysec loses up to 2) could let two "
            "workers commit at once; 4 or more is safe\n",
            lease, lease - margin, margin);
  /* The marker's lines, a key repeated (scope, domain) joined by
   * spaces; then what a marker does not record but every worker must
   * share: politeness and what decides a failure. */
  char *text = pagedir_params_text(params);
  char *key = url_host_key(o->seed);
  strbuf_t vals[16];
  const char *names[16];
  size_t np = 0;
  int rc = CRAWL_ENOMEM;
  if (text == NULL || key == NULL) {
    snprintf(err, n, "out of memory");
    goto out;
  }
  for (char *line = text, *next; *line != '\0'; line = next) {
    next = line + strcspn(line, "\n");
    if (*next == '\n')
      *next++ = '\0';
    char *colon = strstr(line, ": ");
    if (colon == NULL)
      continue;
    *colon = '\0';
    size_t i = 0;
    while (i < np && strcmp(names[i], line) != 0)
      i++;
    if (i == np) {
      if (np == 12)
        continue; /* the marker has fewer kinds of lines */
      names[np] = line;
      vals[np] = (strbuf_t)STRBUF_INIT;
      np++;
    } else {
      strbuf_adds(&vals[i], " ");
    }
    strbuf_adds(&vals[i], colon + 2);
  }
  strbuf_t more[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
  strbuf_addf(&more[0], "%g", o->rate);
  strbuf_addf(&more[1], "%g", o->burst);
  strbuf_addf(&more[2], "%d", o->retries);
  strbuf_addf(&more[3], "%ld", o->timeout);
  const char *more_names[4] = { "rate", "burst", "retries", "timeout" };
  for (int i = 0; i < 4; i++) {
    names[np] = more_names[i];
    vals[np++] = more[i];
  }
  cstate_param_t p[16];
  bool oom = false;
  for (size_t i = 0; i < np; i++) {
    oom = oom || vals[i].oom;
    p[i] = (cstate_param_t){ names[i], vals[i].p ? vals[i].p : "" };
  }
  if (oom) {
    snprintf(err, n, "out of memory");
  } else {
    /* Items in flight here: enough for every download thread the pool
     * may grow to (webcrawl.h, download_max). */
    int dw = o->download_max > o->download_workers ? o->download_max
                                                   : o->download_workers;
    cluster_config_t cfg = { .url = url,
                             .name = name,
                             .params = p,
                             .nparams = np,
                             .seed = o->seed,
                             .seed_hostkey = key,
                             .lease = lease,
                             .inflight = (size_t)(4 * dw +
                                                  4 * o->parse_workers + 16) };
    rc = cluster_join(&cfg, out, created, err, n);
  }
  for (size_t i = 0; i < np; i++)
    strbuf_release(&vals[i]);
out:
  free(text);
  free(key);
  return rc;
}

/* ---- the front end (cluster_front_t) ---- */

static int f_pack(void *ctx, const fitem_t *it, char **data, size_t *len)
{
  (void)ctx;
  const struct page *p = it->data;
  struct page none = { 0 };
  *data = page_pack(it, p ? p : &none, len);
  return *data != NULL ? 0 : -2;
}

static void f_handed(void *ctx, fitem_t *it)
{
  (void)ctx;
  struct page *p = it->data;
  if (p != NULL)
    p->keep_tmp = true;
}

static fitem_t *f_unpack(void *ctx, const char *data, size_t len, uint64_t key)
{
  struct webcrawl *w = ctx;
  return page_unpack(data, len, &w->budget, w->o->pstore,
                     (unsigned long long)key);
}

static int f_take_commit(void *ctx, const cstate_commit_t *st)
{
  struct webcrawl *w = ctx;
  pstore_t *ps = w->o->pstore;
  const char *dir = pstore_dir(ps);
  /* Still the directory bound, checked before anything is cut: a
   * directory replaced under a paused worker (another crawl's) must not
   * be cut back. Local: the cut follows the lease's check at once. */
  char mine[128], rec[128];
  if (pstore_stamp(ps, mine, sizeof(mine)) != 0 ||
      (w->o->pagedir_stamp != NULL && strcmp(mine, w->o->pagedir_stamp) != 0)) {
    fprintf(stderr,
            "crawler: '%s' is not the page directory this worker bound "
            "any more (its marker changed or is gone)\n",
            dir);
    return CRAWL_ELOST;
  }
  if (pstore_cut(ps, st->pages, st->journal) != 0) {
    fprintf(stderr,
            "crawler: cannot bring '%s' to the commit's recorded position "
            "(%ld pages, %lld journal bytes): %s\n",
            dir, st->pages, st->journal, strerror(errno));
    return CRAWL_EREDIS;
  }
  w->st->saved = st->pages;
  w->st->noindex = st->noindex;
  atomic_store(&w->limit_reached,
               w->o->max_pages > 0 && st->pages >= w->o->max_pages);
  /* The binding claimed again: a Redis that lost its last second may
   * have lost the claim, and the crawl would refuse every worker that
   * joins after. After the cut, which follows the lease's check at
   * once. */
  int rc = cluster_note_claim(cl_of(w), "pagedir", mine, rec, sizeof(rec));
  if (rc != CRAWL_OK)
    return rc;
  if (strcmp(rec, mine) != 0) {
    fprintf(stderr,
            "crawler: '%s' is not the page directory of the crawl any "
            "more (its marker changed)\n",
            dir);
    return CRAWL_ELOST;
  }
  return 0;
}

static int f_position(void *ctx, cstate_commit_t *st)
{
  struct webcrawl *w = ctx;
  st->pages = w->st->saved;
  st->noindex = w->st->noindex;
  long long j = pstore_position(w->o->pstore);
  if (j < 0)
    return -1; /* not 0: the next committer would cut it all off */
  st->journal = j;
  return 0;
}

/* ---- the coordinator (coord.h) ---- */

static const engine_source_t *c_source(void *ctx)
{
  (void)ctx;
  return &cluster_source;
}

/* c_start: the seed is the first item of the shared frontier
 * (cluster.h): the feeder brings it to whichever worker fetches its
 * host. */
static int c_start(struct webcrawl *w)
{
  cluster_front_t front = { .pack = f_pack,
                            .unpack = f_unpack,
                            .take_commit = f_take_commit,
                            .position = f_position,
                            .handed = f_handed,
                            .ctx = w };
  cluster_set_front(cl_of(w), &front);
  return cluster_start(cl_of(w), w->e) == 0 ? 0 : -1;
}

static void c_stop(struct webcrawl *w)
{
  cluster_finish(cl_of(w));
}

/* c_finish: stop the cluster's threads; fill W->st with what the crawl
 * as a whole did (pages saved, why the seed was not saved); on
 * completion, clear the temporary files left. The status: STATUS,
 * CRAWL_OK once the crawl is complete, or CRAWL_ECLUSTER (said on
 * stderr). */
static int c_finish(struct webcrawl *w, int status)
{
  int rc = cluster_finish(cl_of(w));
  w->st->round_trips = cluster_round_trips();
  snprintf(w->st->worker, sizeof(w->st->worker), "%s",
           cluster_worker(cl_of(w)));
  if (rc < 0 || status == CRAWL_ECLUSTER) {
    fprintf(stderr, "crawler: %s: %s\n", cluster_worker(cl_of(w)),
            cluster_error(cl_of(w))[0] ? cluster_error(cl_of(w))
                                       : "the shared crawl failed");
    return CRAWL_ECLUSTER;
  }
  if (rc != 0)
    return status; /* stopped before the end (an interrupt) */
  /* Complete: what the crawl as a whole did. */
  long pages = cluster_pages(cl_of(w));
  if (pages >= 0)
    w->st->saved = pages;
  char why[sizeof(w->st->seed_why)];
  if (cluster_note_get(cl_of(w), "seed", why, sizeof(why)) == CRAWL_OK) {
    w->st->seed_saved = why[0] == '\0';
    snprintf(w->st->seed_why, sizeof(w->st->seed_why), "%s", why);
  }
  /* Every item is committed: no temporary file is anyone's now. Every
   * worker removes them (another may have failed, or written one late:
   * an item fetched twice), each name once, the others not found. */
  if (pstore_clear_tmp(w->o->pstore) != 0)
    fprintf(stderr, "crawler: cannot remove every temporary file of '%s': %s\n",
            pstore_dir(w->o->pstore), strerror(errno));
  return status == CRAWL_ESTOPPED ? CRAWL_OK : status;
}

/* c_hand: to the worker whose partition has KEY (cluster_hand), with
 * P's chain. */
static bool c_hand(struct webcrawl *w, fitem_t *it, const struct page *p,
                   const char *to, const char *key)
{
  strbuf_t b = STRBUF_INIT;
  for (int i = 0; i < p->hops; i++) {
    strbuf_adds(&b, p->chain[i]);
    strbuf_addc(&b, '\n');
  }
  if (b.oom) {
    strbuf_release(&b);
    return false; /* fetched here, from this worker's bucket (NEEDSWORK) */
  }
  int gone = cluster_hand(cl_of(w), it, to, key, b.p ? b.p : "");
  strbuf_release(&b);
  return gone != 0;
}

/* c_arrived: IT came handed over (c_hand): the redirects before it
 * into P's chain, once. */
static int c_arrived(struct webcrawl *w, fitem_t *it, struct page *p)
{
  (void)w;
  const char *chain = cluster_chain(it);
  if (chain == NULL || p->hops > 0)
    return 0;
  size_t n = 0;
  for (const char *s = chain; *s; s++)
    n += *s == '\n';
  char **v = calloc(n ? n : 1, sizeof(*v));
  if (v == NULL)
    return -1;
  size_t k = 0;
  for (const char *s = chain, *nl; k < n && (nl = strchr(s, '\n')); s = nl + 1)
    if ((v[k++] = strndup(s, (size_t)(nl - s))) == NULL) {
      while (k > 0)
        free(v[--k]);
      free(v);
      return -1;
    }
  p->chain = v;
  p->hops = (int)k;
  return 0;
}

/* c_pause: the wait is the host's in Redis too, before its partition
 * can move: a next holder must not ask a quarter of a second after a 503
 * with Retry-After 20. */
static void c_pause(struct webcrawl *w, const fitem_t *it, double seconds)
{
  bool gate = it->flags & FITEM_GATE; /* its url is its host key */
  char *key = gate ? NULL : url_host_key_normal(it->url);
  const char *hostkey = gate ? it->url : key;
  if (hostkey == NULL || cluster_pause(cl_of(w), hostkey, seconds) != CRAWL_OK)
    fprintf(stderr, "crawler: the pause of '%s' not shared\n", it->url);
  free(key);
}

/* c_requested: counted for --status (cluster_count). */
static void c_requested(struct webcrawl *w, const fitem_t *it)
{
  if (it->flags & FITEM_GATE) {
    cluster_count(cl_of(w), it->url);
    return;
  }
  char *key = url_host_key(it->url);
  if (key != NULL)
    cluster_count(cl_of(w), key);
  free(key);
}

/* c_tmp_key: one of this worker's own for each write (cluster_tmp_key):
 * an item fetched again is not written over the file the commit may be
 * linking. */
static unsigned long long c_tmp_key(struct webcrawl *w, const fitem_t *it)
{
  (void)it;
  return cluster_tmp_key(cl_of(w));
}

/* ---- robots.txt, once per host for every worker ---- */

/* The answer as bytes: a tag byte, 4 bytes of length, the bytes. */
static void put(strbuf_t *b, char tag, const void *v, size_t n)
{
  unsigned char h[5] = { (unsigned char)tag, (unsigned char)n,
                         (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                         (unsigned char)(n >> 24) };
  strbuf_add(b, h, sizeof(h));
  strbuf_add(b, v, n);
}

/* robots_put: R, the answer to URL for HOSTKEY's gate, into Redis as
 * put writes it. */
static void robots_put(cluster_t *cl, const char *hostkey, const char *url,
                       const fetch_result_t *r)
{
  strbuf_t b = STRBUF_INIT;
  char num[64];
  snprintf(num, sizeof(num), "%d %ld %d %zu", (int)r->outcome, r->status,
           r->curl_code, r->len);
  put(&b, 'N', num, strlen(num));
  put(&b, 'E', r->error, strlen(r->error));
  if (r->location)
    put(&b, 'L', r->location, strlen(r->location));
  if (r->body)
    put(&b, 'B', r->body, r->len);
  if (r->retryable)
    put(&b, 'H', hostkey, strlen(hostkey)); /* wcluster_robots_for */
  if (!b.oom && cluster_robots_put(cl, url, b.p, b.len) != CRAWL_OK)
    fprintf(stderr, "crawler: robots.txt of '%s' not shared\n", url);
  strbuf_release(&b);
}

/* field: the field of the stored answer D (LEN bytes, as put wrote it)
 * at *I: its TAG and its value V, N bytes; *I moves past it. False at
 * the end, or at a field cut short. */
static bool field(const char *d, size_t len, size_t *i, char *tag,
                  const char **v, size_t *n)
{
  if (len < 5 || *i > len - 5)
    return false;
  const unsigned char *h = (const unsigned char *)d + *i;
  size_t m = (size_t)h[1] | (size_t)h[2] << 8 | (size_t)h[3] << 16 |
             (size_t)h[4] << 24;
  if (m > len - *i - 5)
    return false;
  *tag = (char)h[0];
  *v = d + *i + 5;
  *n = m;
  *i += 5 + m;
  return true;
}

bool wcluster_robots_decode(const char *d, size_t len, fetch_result_t *r)
{
  memset(r, 0, sizeof(*r));
  r->retry_after = -1;
  bool ok = false;
  size_t blen = 0, i = 0, n;
  char tag;
  const char *v;
  while (field(d, len, &i, &tag, &v, &n)) {
    char **s = NULL;
    if (tag == 'N') {
      char num[64];
      int outcome = 0, code = 0;
      snprintf(num, sizeof(num), "%.*s", (int)n, v);
      ok = sscanf(num, "%d %ld %d %zu", &outcome, &r->status, &code, &r->len) ==
           4;
      r->outcome = (fetch_outcome_t)outcome;
      r->curl_code = code;
    } else if (tag == 'E') {
      snprintf(r->error, sizeof(r->error), "%.*s", (int)n, v);
    } else if (tag == 'L') {
      s = &r->location;
    } else if (tag == 'B') {
      s = &r->body;
      blen = n;
    }
    if (s != NULL) {
      free(*s); /* a field twice: the last one */
      if ((*s = malloc(n + 1)) != NULL) {
        memcpy(*s, v, n);
        (*s)[n] = '\0';
      }
    }
  }
  /* The length is the body's, read as bytes (robots_parse reads that
   * many): a record that says otherwise is not one this crawler wrote,
   * and would be read past its body. */
  if (!ok || (r->body != NULL && r->len != blen) ||
      (r->outcome == FETCH_OK && r->body == NULL && r->len > 0)) {
    fetch_result_free(r);
    return false;
  }
  return true;
}

bool wcluster_robots_for(const char *d, size_t len, const char *hostkey)
{
  size_t i = 0, n;
  char tag;
  const char *v;
  while (field(d, len, &i, &tag, &v, &n))
    if (tag == 'H')
      return n == strlen(hostkey) && memcmp(v, hostkey, n) == 0;
  return true;
}

/* robots_find: the cache's find (hosts.h): the answer a worker kept
 * (robots_keep) for HOSTKEY's gate. */
static bool robots_find(void *ctx, const char *hostkey, const char *url,
                        fetch_result_t *r)
{
  char *d = NULL;
  size_t len = 0;
  if (cluster_robots_get(ctx, url, &d, &len) != CRAWL_OK ||
      !wcluster_robots_for(d, len, hostkey)) {
    free(d);
    d = NULL;
    len = 0; /* none: decoded as none (R zeroed, false) */
  }
  bool ok = wcluster_robots_decode(d, len, r);
  free(d);
  return ok;
}

/* robots_keep: the cache's keep (hosts.h): R kept for every worker,
 * unless it is worth asking again (retryable) and a try is left (LAST
 * false); then, the last try of the host failing, for that host's gate
 * only (wcluster_robots_for). The last failure is kept rather than made
 * a pause: a pause would hold the skipped host's items, and the commit
 * behind them, for its Retry-After. The wait before the gate asks again
 * (AGAIN) is the host's in Redis too, as c_pause's. */
static void robots_keep(void *ctx, const char *hostkey, const char *url,
                        const fetch_result_t *r, bool last, double again)
{
  cluster_t *cl = ctx;
  /* If worth asking again, the next owner asks, as this one would. */
  if (!r->retryable || last)
    robots_put(cl, hostkey, url, r);
  if (again > 0 && cluster_pause(cl, hostkey, again) != CRAWL_OK)
    fprintf(stderr, "crawler: the pause of '%s' not shared\n", hostkey);
}

static const hosts_cache_ops_t robots_cache_ops = {
  .find = robots_find,
  .keep = robots_keep,
};

/* c_robots: robots.txt once per host for every worker: Redis. */
static hosts_cache_t c_robots(void *ctx)
{
  return (hosts_cache_t){ &robots_cache_ops, ctx };
}

/* c_seed_failed: said to every worker. */
static void c_seed_failed(struct webcrawl *w, const char *why)
{
  if (cluster_note_set(cl_of(w), "seed", why[0] ? why : "not saved") !=
      CRAWL_OK)
    fprintf(stderr, "crawler: why the seed was not saved is not shared\n");
}

static void c_close(void *ctx)
{
  cluster_delete(ctx);
}

static const coord_ops_t cluster_ops = {
  .source = c_source,
  .start = c_start,
  .stop = c_stop,
  .finish = c_finish,
  .robots = c_robots,
  .requested = c_requested,
  .pause = c_pause,
  .hand = c_hand,
  .arrived = c_arrived,
  .tmp_key = c_tmp_key,
  .seed_failed = c_seed_failed,
  .close = c_close,
};

coord_t wcluster_coord(cluster_t *cl)
{
  return (coord_t){ &cluster_ops, cl };
}
