/* webcrawl.c: see webcrawl.h.
 *
 * Per item (fitem_t) the crawl keeps a struct page in it->data:
 *   download thread  fetch, follow redirects and retries by requeueing (so
 *                    every hop and retry takes its host's token again);
 *   parse thread     extract, resolve, normalise and classify the links,
 *                    write the page to a temporary file;
 *   commit (ordered) log the page's events, give it its ID by renaming the
 *                    temporary file, add its new links at depth + 1.
 * Everything a user can see (IDs, log lines, counters) happens in commit,
 * one page at a time in discovery order, which is what makes the output
 * deterministic. Counters are written only by commit, except `retries`,
 * `redirects`, `requests` and the robots.txt counts, which download threads
 * bump atomically. Replay and resume answer fetches from a store of saved
 * pages and outcomes (store_answer, store.h), and commit journals the
 * outcome of each URL it does not save; the WARC file gets each exchange
 * from the download thread that made it (archive). */
#include "webcrawl.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "clock.h"
#include "coord.h"
#include "crawl.h"
#include "engine.h"
#include "fetch.h"
#include "hosts.h"
#include "links.h"
#include "page.h"
#include "pagecheck.h"
#include "pagedir.h"
#include "robots.h"
#include "store.h"
#include "tally.h"
#include "url.h"
#include "webcrawl_int.h"
#include "wsitemap.h"
#include "xfer.h"

/* running: the engine of the crawl in progress, or NULL. Process-wide
 * because webcrawl_interrupt takes no handle: crawler.c's signal thread
 * has none to give. Hence one webcrawl_run at a time per process
 * (webcrawl.h). Guarded by running_lock, which webcrawl_interrupt holds
 * from reading it through engine_stop, and webcrawl_run takes to set it
 * before engine_run and to clear it before engine_delete: an interrupt
 * finds no engine, or one that stays alive until it is stopped. (An
 * atomic pointer cannot do that: between its load and engine_stop, the
 * crawl could end and free the engine.) A mutex is fine: the caller is
 * a thread, never a signal handler. Lock order: running_lock, then the
 * engine's and frontier's locks engine_stop takes; never the reverse. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static engine_t *running;

void webcrawl_interrupt(void)
{
  pthread_mutex_lock(&running_lock);
  if (running != NULL)
    engine_stop(running);
  pthread_mutex_unlock(&running_lock);
}

/* ---- download threads ---- */

/* The connections the fetchers keep open in all, at most: enough for a
 * fixed pool of 8 to keep 64 each, as before pools grew. A pool of
 * hundreds keeps 2 each (the one in use and one more): at --rate 1 a
 * thread rarely gets the same host again, so more would hold thousands
 * of idle connections (memory, and descriptors on both ends) for little
 * reuse (DESIGN.md, "Concurrency without tuning"). */
enum { CONNS_TOTAL = 1024, FDS_RESERVE = 256 };

/* connection_share: how many connections each fetcher keeps (its libcurl
 * cache), for a pool of NFIXED threads or, *DMAX above 0, up to *DMAX:
 * CONNS_TOTAL, or the open-file limit less FDS_RESERVE if lower, shared
 * out, 2 to 64 each; an elastic pool too large for the open-file limit
 * at 2 each (a connection in use and one kept) is lowered to fit, not
 * below NFIXED + 1. Main thread, before the pools start. */
static long connection_share(int nfixed, int *dmax)
{
  long fds = LONG_MAX;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    fds = (long)rl.rlim_cur - FDS_RESERVE;
  if (*dmax > nfixed && fds / 3 < *dmax)
    *dmax = fds / 3 > nfixed ? (int)(fds / 3) : nfixed + 1;
  long threads = *dmax > nfixed ? *dmax : nfixed;
  long each = (fds < CONNS_TOTAL ? fds : CONNS_TOTAL) / (threads + 1);
  return each < 2 ? 2 : each > 64 ? 64 : each;
}

/* What a download thread may hold besides the budget (its page in
 * flight, its stack, its libcurl handle), for the elastic pool's cap. */
#define THREAD_MEMORY ((size_t)1024 * 1024)

/* The elastic pool's cap at --rate 0, where every queued page is due at
 * once, so "due and no thread free" holds on a fast server too, and the
 * pool would grow for nothing but context switches (DESIGN.md,
 * "Concurrency without tuning"). */
enum { RATE0_MAX = 64 };

static void *wc_worker_init(void *ctx)
{
  struct webcrawl *w = ctx;
  return fetcher_new(&w->fcfg);
}

static void wc_worker_fini(void *ctx, void *ws)
{
  (void)ctx;
  fetcher_delete(ws);
}

/* wc_widen: with the default scope, the seed's own redirect to TO (outside
 * the scope) takes TO's site into it, over http and https, as the seed's
 * is: a new scope, published for every thread (wc_scope). Only the seed
 * (depth 0) gets here, before any other URL is known, so no link was
 * judged by the narrower scope. Returns false if out of memory. */
bool wc_widen(struct webcrawl *w, const char *to)
{
  char *p[2] = { url_scope_default(to), NULL };
  p[1] = p[0] ? url_scope_other(p[0]) : NULL;
  bool ok = p[1] != NULL;
  pthread_mutex_lock(&w->widen_lock);
  size_t n = w->o->nwiden + w->nadded + 2;
  const char **all = ok ? malloc(n * sizeof(char *)) : NULL;
  char **added = all ? realloc(w->added, (w->nadded + 2) * sizeof(char *))
                     : NULL;
  if (added != NULL)
    w->added = added;
  scope_t **scopes = added
                     ? realloc(w->scopes, (w->nscopes + 1) * sizeof(scope_t *))
                     : NULL;
  if (scopes != NULL)
    w->scopes = scopes;
  scope_t *s = NULL;
  if (scopes != NULL) {
    size_t k = 0;
    for (size_t i = 0; i < w->o->nwiden; i++)
      all[k++] = w->o->widen[i];
    for (size_t i = 0; i < w->nadded; i++)
      all[k++] = w->added[i];
    all[k++] = p[0];
    all[k++] = p[1];
    s = scope_new(all, k, NULL, 0);
  }
  if (s != NULL) {
    w->scopes[w->nscopes++] = s;
    w->added[w->nadded++] = p[0];
    w->added[w->nadded++] = p[1];
    p[0] = p[1] = NULL;
    atomic_store(&w->scope, s);
  }
  pthread_mutex_unlock(&w->widen_lock);
  if (s != NULL) {
    wc_log_event(w, 0, "Scope", w->added[w->nadded - 2]);
    wc_log_event(w, 0, "Scope", w->added[w->nadded - 1]);
  }
  free(all);
  free(p[0]);
  free(p[1]);
  return s != NULL;
}

/* widened: the end of a crawl whose seed's redirects widened its scope:
 * the marker records the prefixes added (pstore_derive), the
 * summary names them, and the scopes made are freed. No thread of the
 * crawl runs any more. Returns false if the marker could not be
 * written. */
static bool widened(struct webcrawl *w, webcrawl_stats_t *st)
{
  bool ok = true;
  if (w->nadded > 0) {
    ok = pstore_derive(w->o->pstore, (const char *const *)w->added,
                       w->nadded) == 0;
    if (!ok)
      fprintf(stderr, "crawler: cannot record the scope in '%s/%s': %s\n",
              pstore_dir(w->o->pstore), PAGEDIR_MARKER, strerror(errno));
  }
  size_t len = 0;
  for (size_t i = 0; i < w->nadded; i++) {
    int n = snprintf(st->scope_added + len, sizeof(st->scope_added) - len,
                     "%s%s", i ? ", " : "", w->added[i]);
    if (n > 0 && (size_t)n < sizeof(st->scope_added) - len)
      len += (size_t)n;
    free(w->added[i]);
  }
  free(w->added);
  for (size_t i = 0; i < w->nscopes; i++)
    scope_delete(w->scopes[i]);
  free(w->scopes);
  pthread_mutex_destroy(&w->widen_lock);
  return ok;
}

/* wc_fetch: the fetch hook of the download threads: wc_begin, the
 * transfer, wc_end. Without a fetcher (libcurl could not make one for
 * this thread) a gate is asked for again in a second, a page fails. */
static engine_fetched_t wc_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  struct webcrawl *w = ctx;
  fetcher_t *f = ws;
  if (f == NULL)
    return wc_no_client(w, e, it);
  wc_req_t req;
  engine_fetched_t done;
  if (!wc_begin(w, e, it, f, &req, &done))
    return done;
  fetcher_perform(f);
  return wc_end(w, e, it, &req);
}

/* ---- parse threads ---- */

struct speculating {
  engine_t *e;
  int depth;
};

/* speculate_link: page_links_each_held's callback for speculate. */
static void speculate_link(void *arg, const struct link *l)
{
  const struct speculating *s = arg;
  if (l->cls == L_CANDIDATE)
    engine_speculate(s->e, l->url, s->depth, l->key);
}

/* speculate: have the links the commit of IT will add fetched early
 * (engine.h, Speculation), unless the commit may well not add them: a
 * redirected page may turn out a duplicate, a full crawl adds nothing. */
static void speculate(struct webcrawl *w, engine_t *e, fitem_t *it,
                      const struct page *p)
{
  if (p->nomem || p->nofollow || p->hops > 0 || atomic_load(&w->limit_reached))
    return;
  struct speculating s = { e, it->depth + 1 };
  page_links_each_held(p, speculate_link, &s);
}

/* wc_parse: runs twice for a page fetched speculatively (engine.h): first
 * at its provisional depth, sniffing, scanning links and writing the body
 * to its temporary file, so that a page waiting for its adoption holds
 * little memory; then, once adopted, at its final depth, which may be
 * lower: the body comes back from the file if the links must be scanned
 * or the file written at that depth. */
static void wc_parse(void *ctx, engine_t *e, fitem_t *it)
{
  struct webcrawl *w = ctx;
  struct page *p = it->data;
  if (p != NULL) /* its body, if any, is this parser's now (xfer.c) */
    fetch_result_unland(&p->res);
  if (p == NULL || p->skipped || p->robots || p->res.outcome != FETCH_OK)
    return;
  fetch_result_t *r = &p->res;
  bool spec = it->flags & FITEM_SPEC;
  if (!p->charged) {
    /* What the page holds while it waits for its commit, besides its
     * links: counted, so that speculation and the frontier make room. */
    page_charge(p, &w->budget, sizeof(*it) + strlen(it->url) + 1);
  }
  if (!spec && p->sniffed && r->body == NULL && !p->binary &&
      ((p->tmp != NULL && p->tmp_depth != it->depth) ||
       (!p->scanned && it->depth < w->o->max_depth)) &&
      page_reload(p, pstore_dir(w->o->pstore)) != 0)
    return;
  if (!p->sniffed)
    page_sniff(p, w->o->format, w->o->ignore_robots ? NULL : w->agent);
  if (p->binary)
    return;
  if (!p->scanned && it->depth < w->o->max_depth) {
    page_scan_t scan = w->scan;
    scan.scope = wc_scope(w);
    page_scan(p, it, &scan);
    /* A seed's sitemaps: links of the seed after its own (wsitemap.h);
     * none if its links are not followed, or cannot all be kept. */
    if (w->o->sitemaps && it->depth == 0 && !spec && !p->nofollow &&
        !p->nomem && p->spill_errno == 0) {
      /* The seed as given: where it was first asked, before redirects. */
      const char *given = p->hops > 0 ? p->chain[0] : it->url;
      wsitemap_links(w, e, it, p, &scan, wsitemap_first(w->firsts, given));
      if (page_links_park(p) != 0 && p->spill_errno == 0)
        p->spill_errno = errno ? errno : EIO;
    }
    speculate(w, e, it, p);
  }
  if (!p->scanned && !p->text && !w->o->ignore_robots && !p->meta_checked) {
    page_robots(p, pagecheck_meta_robots(r, w->agent));
    p->meta_checked = true;
  }
  if (spec) {
    /* The body waits for the page's adoption on disk (a resumed page's
     * is in its saved file), or is not needed again (noindex, scanned). */
    if (p->stored_id == 0 && !(p->noindex && p->scanned))
      page_write_tmp(p, it, w->co->ops->tmp_key(w, it), w->o->pstore);
    if (r->body != NULL && p->tmp == NULL && p->write_errno == 0) {
      fetch_result_drop_body(r);
    }
    return;
  }
  if (p->noindex && p->tmp != NULL) {
    pstore_tmp_drop(&p->tmp); /* written by the speculative parse; not saved */
  }
  if (!p->noindex && p->stored_id == 0 && p->tmp == NULL)
    page_write_tmp(p, it, w->co->ops->tmp_key(w, it), w->o->pstore);
  /* The body is on disk now (or not saved); free it before the page waits
   * for commit. */
  fetch_result_drop_body(r);
}

static void wc_release(void *ctx, fitem_t *it)
{
  (void)ctx;
  page_free(it->data);
  it->data = NULL;
}

static const engine_hooks_t wc_hooks = {
  .worker_init = wc_worker_init,
  .worker_fini = wc_worker_fini,
  .fetch = wc_fetch,
  .parse = wc_parse,
  .commit = wc_commit,
  .release = wc_release,
};

/* replay_host: hosts_replay_unreachable for store_unreachable_hosts. */
static void replay_host(void *arg, const char *key, const char *why)
{
  struct webcrawl *w = arg;
  if (hosts_replay_unreachable(w->hosts, key, why) != 0)
    w->oom = true;
}

/* pool_max: the elastic pool's bound for O (0: a fixed pool), before the
 * open-file limit. A download in flight holds its page, outside the
 * budget: an elastic pool grows to at most a thread per THREAD_MEMORY
 * of it. */
static int pool_max(const webcrawl_opts_t *o)
{
  int dmax = o->download_max > o->download_workers ? o->download_max : 0;
  if (dmax > RATE0_MAX && o->rate <= 0)
    dmax = RATE0_MAX;
  if (dmax > 0 && o->max_memory > 0 &&
      o->max_memory / THREAD_MEMORY < (size_t)dmax)
    dmax = o->max_memory / THREAD_MEMORY > (size_t)o->download_workers
           ? (int)(o->max_memory / THREAD_MEMORY)
           : 0;
  return dmax;
}

/* fetch_setup: W's download pool bound (its return: engine_config_t's
 * download_max) and the fetchers' configuration. */
static int fetch_setup(struct webcrawl *w)
{
  const webcrawl_opts_t *o = w->o;
  int dmax = pool_max(o);
  long conns = connection_share(o->download_workers, &dmax);
  w->fcfg = (fetch_config_t){
    .max_connects = conns,
    .user_agent = o->user_agent,
    .headers = o->headers,
    .header_seeds = o->seeds ? o->seeds : &o->seed,
    .nheader_seeds = o->seeds ? o->nseeds : 1,
    .connect_timeout = o->timeout < 10 ? o->timeout : 10,
    .timeout = o->timeout,
    .low_speed_limit = 100,
    .low_speed_time = o->timeout < 10 ? o->timeout : 10,
    .max_size = o->max_page_size,
    .capture = o->warc != NULL,
    .ca_file = o->ca_file,
    .ca_dir = o->ca_dir,
    .insecure = o->insecure,
    .budget = &w->budget, /* bodies too are what the crawl holds */
  };
  return dmax;
}

/* state_init: W's counters, budget, scope and scanning, before any
 * thread. */
static void state_init(struct webcrawl *w)
{
  const webcrawl_opts_t *o = w->o;
  atomic_init(&w->redirects, 0);
  atomic_init(&w->retries, 0);
  atomic_init(&w->limit_reached, false);
  atomic_init(&w->robots_fetched, 0);
  atomic_init(&w->robots_failed, 0);
  atomic_init(&w->requests, 0);
  atomic_init(&w->received, 0);
  atomic_init(&w->warc_failed, false);
  atomic_init(&w->sitemaps_fetched, 0);
  atomic_init(&w->sitemaps_failed, 0);
  budget_init(&w->budget, o->max_memory);
  atomic_init(&w->scope, o->scope);
  pthread_mutex_init(&w->widen_lock, NULL);
  w->scan = (page_scan_t){ .scope = o->scope,
                           .filter = o->filter,
                           .respect_rel_nofollow = o->respect_rel_nofollow,
                           .agent = o->ignore_robots ? NULL : w->agent,
                           .budget = &w->budget,
                           .store = o->pstore };
}

/* engine_setup: the engine's configuration for W: DMAX download threads
 * at most, ROBOTS gates, SPILL (borrowed; NULL for none). */
static engine_config_t engine_setup(struct webcrawl *w, int dmax, bool robots,
                                    const char *spill)
{
  const webcrawl_opts_t *o = w->o;
  return (engine_config_t){
    .download_workers = o->download_workers,
    .download_max = dmax,
    .parse_workers = o->parse_workers,
    .queue_size = o->queue_size,
    /* Enough fetched pages to keep every parser busy, few enough that
     * fast downloads cannot pile up pages in memory. */
    .fetched_limit = (size_t)(4 * o->parse_workers + o->download_workers),
    .ordered = true,
    /* Without politeness, downloads could run thousands of pages ahead
     * of the commit point, each holding its link list: keep them within
     * a window that still keeps every worker busy. Polite crawls go at
     * the hosts' pace and need the whole frontier to find a due host. */
    .window = o->rate > 0 ? 0 : (size_t)(1024 + 64 * o->download_workers),
    /* --max-pages: only the next max_pages items can be saved, so no
     * download goes beyond them (engine_want; speculation is off below):
     * the limit costs at most the failures among them in extra requests. */
    .want = o->max_pages > 0 ? (uint64_t)o->max_pages : 0,
    /* Speculative fetches keep hosts busy while the commit waits (see
     * engine.h), as many as the budget allows: a fetched one waits for
     * its adoption with its body on disk and its links within the
     * budget. A fixed count left hosts idle behind a big first host
     * (DESIGN.md, "No head-of-line blocking"); it stays only without a
     * budget (--max-memory 0), where nothing else would bound it.
     * None under --max-pages: a speculation may be a page never saved. */
    .speculate = o->max_pages  ? 0
               : o->max_memory ? SIZE_MAX
                               : 4096,
    .speculate_out = o->max_memory ? 0 : 256,
    .rate = o->rate,
    .burst = o->burst,
    .budget = &w->budget,
    .spill_path = spill,
    .gate = robots,
    .source = w->co->ops->source(w->co->ctx),
    .source_ctx = w->co->ctx,
    .hooks = &wc_hooks,
    .ctx = w,
    .driver = w->xfer ? xfer_run : NULL,
    .driver_arg = w->xfer,
    .wake = w->xfer ? xfer_wake : NULL,
    .wake_arg = w->xfer,
  };
}

/* The event loop's hooks (xfer.h): the fetch hook's two halves, F
 * prepared between them for the transfer wc_begin asks for. */
static bool ev_begin(void *ctx, engine_t *e, fitem_t *it, fetcher_t *f,
                     void *req, engine_fetched_t *done)
{
  return wc_begin(ctx, e, it, f, req, done);
}

static engine_fetched_t ev_end(void *ctx, engine_t *e, fitem_t *it, void *req)
{
  return wc_end(ctx, e, it, req);
}

static engine_fetched_t ev_no_client(void *ctx, engine_t *e, fitem_t *it)
{
  return wc_no_client(ctx, e, it);
}

static const xfer_hooks_t ev_hooks = { .begin = ev_begin,
                                       .end = ev_end,
                                       .no_client = ev_no_client };

/* events_max: the transfers O's event loop runs at once: the count
 * --download-workers gave, else WEBCRAWL_EVENTS_MAX (RATE0_MAX at --rate
 * 0), at most one per WEBCRAWL_TRANSFER_MEMORY of the budget (but not
 * fewer than download_workers). */
static long events_max(const webcrawl_opts_t *o)
{
  if (o->download_max <= o->download_workers)
    return o->download_workers;
  size_t n = o->rate <= 0 ? RATE0_MAX : WEBCRAWL_EVENTS_MAX;
  if (o->max_memory > 0 && o->max_memory / WEBCRAWL_TRANSFER_MEMORY < n)
    n = o->max_memory / WEBCRAWL_TRANSFER_MEMORY;
  return n > (size_t)o->download_workers ? (long)n : o->download_workers;
}

/* What one transfer of the event loop may hold open: its socket, the
 * socket pair of libcurl's threaded resolver while it resolves (a
 * dual-stack connect's second socket fits in the same), and an idle
 * connection kept. */
enum { FDS_TRANSFER = 4 };

/* events_setup: with --transfers events, W's event loop (xfer.h): as
 * many transfers at once as events_max, FDS_TRANSFER descriptors each,
 * as far as the open-file limit less FDS_RESERVE allows (else fewer, and stderr
 * says the limit that would do); CONNS_TOTAL connections kept, or as many as
 * transfers. Returns false if out of memory. */
static bool events_setup(struct webcrawl *w)
{
  long n = events_max(w->o), fds = LONG_MAX;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    fds = (long)rl.rlim_cur - FDS_RESERVE;
  if (n > fds / FDS_TRANSFER) {
    long fit = fds / FDS_TRANSFER < 1 ? 1 : fds / FDS_TRANSFER;
    fprintf(stderr,
            "crawler: the open-file limit (%ld) allows %ld transfers at once "
            "of the %ld wanted; ulimit -n %ld allows them all\n",
            (long)rl.rlim_cur, fit, n, n * FDS_TRANSFER + FDS_RESERVE);
    n = fit;
  }
  long conns = fds < CONNS_TOTAL ? fds : CONNS_TOTAL;
  w->fcfg.nonblocking = true; /* no resolver call in the loop's thread */
  xfer_config_t xc = { .max_transfers = (int)n,
                       .max_connects = conns > n ? conns : n,
                       .fcfg = &w->fcfg,
                       .hooks = &ev_hooks,
                       .ctx = w,
                       .req_size = sizeof(wc_req_t) };
  if ((w->xfer = xfer_new(&xc)) == NULL)
    return false;
  budget_on_room(&w->budget, xfer_wake, w->xfer); /* resumes paused ones */
  return true;
}

/* stats_collect: what the crawl did into W->st, once the engine has
 * stopped, ES what its frontier counted. */
static void stats_collect(struct webcrawl *w, const engine_stats_t *es)
{
  const webcrawl_opts_t *o = w->o;
  webcrawl_stats_t *st = w->st;
  st->hosts = (long)es->hosts;
  st->bound = es->bound;
  tally_sort(&st->failures);
  tally_sort(&st->unreachable);
  st->redirects = atomic_load(&w->redirects);
  st->retries = atomic_load(&w->retries);
  st->robots_fetched = atomic_load(&w->robots_fetched);
  st->robots_failed = atomic_load(&w->robots_failed);
  st->sitemaps_fetched = atomic_load(&w->sitemaps_fetched);
  st->sitemaps_failed = atomic_load(&w->sitemaps_failed);
  st->requests = atomic_load(&w->requests);
  st->received = atomic_load(&w->received);
  if (o->since != NULL)
    st->gone = store_count(o->since) - st->kept;
  if (!widened(w, st))
    w->io_failed = true;
  st->elapsed = clock_now() - w->start;
  st->mem_peak = atomic_load(&w->budget.peak);
  st->spilled = atomic_load(&w->budget.spilled);
  st->spill_peak = atomic_load(&w->budget.peak_disk);
  if (o->warc != NULL)
    st->warc_records = warc_records(o->warc);
}

int webcrawl_run(const webcrawl_opts_t *o, webcrawl_stats_t *st)
{
  struct webcrawl w = { .o = o,
                        .st = st,
                        .co = o->coord ? o->coord : &coord_local };
  memset(st, 0, sizeof(*st));
  /* "tse-crawler/0.1 (+...)" is named "tse-crawler" in a robots meta, as
   * in robots.txt (robots.h). */
  snprintf(w.agent, sizeof(w.agent), "%.*s",
           (int)strcspn(o->user_agent, "/ \t"), o->user_agent);
  int dmax = fetch_setup(&w);
  state_init(&w);
  /* robots.txt applies, and hosts are gated for it, unless ignored or
   * nothing is fetched from the hosts (replay). */
  bool robots = !o->ignore_robots && o->replay == NULL;
  /* The frontier's URLs beyond the budget wait here. */
  char *spill = o->max_memory ? pstore_tmp_path(o->pstore, "queue", 0) : NULL;
  hosts_cache_t cache = w.co->ops->robots(w.co->ctx);
  w.hosts = hosts_new(o->user_agent, o->retries, o->max_pages_per_host, robots,
                      &cache);
  int status = CRAWL_ENOMEM;
  if (w.hosts == NULL || (o->max_memory && spill == NULL))
    goto out;
  if (robots && o->resume != NULL) {
    /* Hosts whose robots.txt the interrupted crawl could not fetch stay
     * so: their URLs come out as they would have then. */
    store_unreachable_hosts(o->resume, replay_host, &w);
    if (w.oom)
      goto out;
  }
  if (o->events && !events_setup(&w))
    goto out;
  engine_config_t cfg = engine_setup(&w, dmax, robots, spill);
  if ((w.e = engine_new(&cfg)) == NULL)
    goto out;
  int rc = w.co->ops->start(&w);
  if (rc == 0 && o->sitemaps &&
      (w.firsts = wsitemap_firsts(o->seeds ? o->seeds : &o->seed,
                                  o->seeds ? o->nseeds : 1)) == NULL)
    rc = -1;
  if (rc != 0) {
    w.co->ops->stop(&w);
    goto out;
  }
  w.start = w.last_progress = clock_now();
  pthread_mutex_lock(&running_lock);
  running = w.e;
  pthread_mutex_unlock(&running_lock);
  status = w.co->ops->finish(&w, engine_run(w.e));
  engine_stats_t es;
  engine_stats(w.e, &es);
  /* A lost spill; out of memory, the exit status says so. */
  if (es.error && es.error != ENOMEM)
    fprintf(stderr,
            "crawler: cannot read back the URLs queued on disk in '%s' "
            "(--max-memory): %s\n",
            pstore_dir(o->pstore), strerror(es.error));
  pthread_mutex_lock(&running_lock);
  running = NULL; /* no interrupt reaches the engine from here on */
  pthread_mutex_unlock(&running_lock);
  /* Nothing calls xfer_wake any more: the engine has stopped, and the
   * pages it still holds give their bodies back to no loop. */
  budget_on_room(&w.budget, NULL, NULL);
  xfer_delete(w.xfer);
  w.xfer = NULL;
  wc_progress(&w, true);
  stats_collect(&w, &es);
  if (w.oom)
    status = CRAWL_ENOMEM;
  else if (w.io_failed || atomic_load(&w.warc_failed))
    status = CRAWL_EIO;
out:
  engine_delete(w.e);
  xfer_delete(w.xfer);
  fptable_delete(w.firsts);
  hosts_delete(w.hosts);
  free(spill);
  return status;
}
