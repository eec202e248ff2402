/* webcrawl_fetch.c: the fetch hook's two halves (webcrawl_int.h):
 * wc_begin, everything before the request (a gate's robots.txt URL or
 * cached answer, --max-pages, the saved crawl, robots.txt rules, the
 * host's page limit, --since's validators), and wc_end, everything after
 * it (counted and archived, a gate's answer to hosts.c, a 304's older
 * copy, a redirect followed or a failure retried by requeueing). The
 * download threads (webcrawl.c, wc_fetch) and the event loop (xfer.h)
 * make the transfer between them. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "coord.h"
#include "crawl.h"
#include "engine.h"
#include "fetch.h"
#include "hosts.h"
#include "page.h"
#include "pstore.h"
#include "scope.h"
#include "store.h"
#include "url.h"
#include "webcrawl_int.h"

/* Redirect hops followed for one URL, at most. */
enum { MAX_REDIRECTS = 10 };

/* requested: the request for URL that IT made, answered R: archived
 * and counted, for this process and the crawl (coord.h). Download
 * thread, for a page (wc_fetch) or a robots.txt (wc_gate). */
static void requested(struct webcrawl *w, engine_t *e, const fitem_t *it,
                      const char *url, fetch_result_t *r)
{
  atomic_fetch_add(&w->received, r->received);
  wc_archive(w, e, url, r);
  atomic_fetch_add(&w->requests, 1);
  w->co->ops->requested(w, it);
}

/* ---- robots.txt ---- */

/* gate_begin: the first half of gate item IT of a host: its robots.txt
 * to be asked for into *REQ (true), unless hosts.c has the answer or
 * needs none (false: the gate is handled). */
static bool gate_begin(struct webcrawl *w, engine_t *e, fitem_t *it,
                       wc_req_t *req)
{
  /* Past --max-pages nothing of the host will be fetched: rather than
   * every remaining host's robots.txt, one a commit, none is asked. */
  bool ask = !atomic_load(&w->limit_reached);
  char *url;
  if (!hosts_gate_begin(w->hosts, engine_frontier(e), it, ask, &url))
    return false;
  *req = (wc_req_t){
    .url = url, .gate_url = url, .robots = true, .max = ROBOTS_MAX_BYTES
  };
  req->res = &req->gate_res;
  return true;
}

/* gate_end: the second half: hosts.c decides what the answer means for
 * the host and opens it, or asks for the gate again. */
static void gate_end(struct webcrawl *w, engine_t *e, fitem_t *it,
                     wc_req_t *req)
{
  fetch_result_t *r = req->res;
  char *url = req->gate_url;
  requested(w, e, it, url, r);
  if (r->outcome == FETCH_OK || r->outcome == FETCH_REDIRECT)
    wc_log_file(w, -1, "Robots", url,
                r->outcome == FETCH_OK ? "fetched" : "a redirect");
  else
    wc_log_file(w, -1, "Robots", url, r->error[0] ? r->error : "failed");
  /* A failure (webcrawl.h) before hosts_gate_end frees R. */
  atomic_fetch_add(hosts_robots_unreachable(r) ? &w->robots_failed
                                               : &w->robots_fetched,
                   1);
  hosts_gate_end(w->hosts, engine_frontier(e), it, url, r);
  req->gate_url = NULL;
}

/* follow: requeue IT to where its response redirects, taking the hop
 * into P's chain; or, if the target may not be followed, make the
 * response a failure that says why. */
static engine_fetched_t follow(struct webcrawl *w, engine_t *e, fitem_t *it,
                               struct page *p)
{
  fetch_result_t *r = &p->res;
  char *to = url_resolve_normalized(it->url, r->location);
  const char *why = NULL;
  if (to == NULL)
    why = "redirect to an invalid or non-http URL";
  else if (p->hops >= MAX_REDIRECTS)
    why = "too many redirects";
  else if (!scope_contains(wc_scope(w), to) &&
           !(it->depth == 0 && w->o->widen != NULL && wc_widen(w, to)))
    why = "redirect out of scope";
  else if (url_is_nonpage(to))
    why = "redirect to a non-page URL";
  char *key = why ? NULL : url_host_key_normal(to);
  char **chain = why || key == NULL
                 ? NULL
                 : realloc(p->chain, (p->hops + 1) * sizeof(char *));
  char *from = chain ? strdup(it->url) : NULL;
  if (why == NULL && from == NULL) {
    if (chain)
      p->chain = chain;
    why = "out of memory";
  }
  if (why != NULL) {
    r->outcome = FETCH_HTTP_ERROR;
    snprintf(r->error, sizeof(r->error), "%s: %s", why, to ? to : r->location);
    free(to);
    free(key);
    return ENGINE_PARSE;
  }
  p->chain = chain;
  p->chain[p->hops++] = from;
  p->attempts = 0;
  atomic_fetch_add(&w->redirects, 1);
  if (w->co->ops->hand(w, it, p, to, key)) {
    /* Its host is another worker's: it goes on there. */
    free(to);
    free(key);
    return ENGINE_GONE;
  }
  engine_requeue(e, it, to, key, 0);
  free(to);
  free(key);
  return ENGINE_REQUEUED;
}

/* retry: requeue IT, whose response failed for a while, not before
 * monotonic time AT. ENGINE_PARSE (the failure stands) only if out of
 * memory. */
static engine_fetched_t retry(struct webcrawl *w, engine_t *e, fitem_t *it,
                              double at)
{
  atomic_fetch_add(&w->retries, 1);
  char *key = url_host_key_normal(it->url);
  if (key == NULL)
    return ENGINE_PARSE;
  engine_requeue(e, it, NULL, key, at);
  free(key);
  return ENGINE_REQUEUED;
}

/* from_store: answer IT from the saved crawl SRC if it can (replay: every
 * URL; resume: what the interrupted crawl saved or decided, store.h), the
 * token given back as no request is made, and set *DONE; a redirect is
 * followed, nothing is retried. A replayed outcome that is no response
 * sets in P what the first crawl found there, so that wc_parse has
 * nothing left to do (sniffed, scanned) and the commit decides as it
 * did. Returns false if SRC has no answer. */
static bool from_store(struct webcrawl *w, engine_t *e, fitem_t *it,
                       struct page *p, const store_t *src,
                       engine_fetched_t *done)
{
  store_answer_t a;
  int id = store_answer(src, p->hops > 0 ? p->chain[0] : it->url, p->hops,
                        it->url, w->o->resume == NULL, &p->res, &a);
  if (id < 0)
    return false;
  frontier_refund(engine_frontier(e), it->host);
  if (w->o->resume != NULL && p->res.outcome == FETCH_NET_ERROR &&
      !store_replayed(src, p->hops > 0 ? p->chain[0] : it->url)) {
    /* Not an outcome the interrupted crawl saw: its saved page could not
     * be read now. A failure here would be journaled as the page's. */
    p->read_errno = EIO;
    *done = ENGINE_PARSE;
    return true;
  }
  if (id > 0 && w->o->resume != NULL)
    p->stored_id = id;
  switch (a.verdict) {
  case STORE_ROBOTS:
    p->robots = a.robots;
    break;
  case STORE_BINARY:
    p->sniffed = p->binary = true;
    break;
  case STORE_NOINDEX:
    p->sniffed = p->scanned = p->noindex = true;
    p->nofollow = a.nofollow;
    /* Through the budget, as the links of a parsed page go (NEEDSWORK:
     * the record is read whole first, store.c's links_load). */
    for (size_t i = 0; i < a.nlinks; i++)
      if (page_add_link(p, &a.links[i], &w->budget, w->o->pstore,
                        (unsigned long long)it->seq) != 0 &&
          !p->nomem && !p->spill_errno) {
        if (errno == ENOMEM)
          p->nomem = true;
        else
          p->spill_errno = errno ? errno : EIO;
      }
    free(a.links);
    if (page_links_park(p) != 0 && !p->spill_errno)
      p->spill_errno = errno ? errno : EIO;
    break;
  case STORE_DUPLICATE:
    /* The commit finds it a duplicate before it would save it: noindex
     * only keeps wc_parse from writing its empty body. */
    p->sniffed = p->scanned = p->noindex = true;
    break;
  default:
    break;
  }
  *done = p->res.outcome == FETCH_REDIRECT ? follow(w, e, it, p) : ENGINE_PARSE;
  return true;
}

/* keep_validator: *MINE, the validator a 304 carried, or if it carried
 * none OLD (borrowed; copied), the one the older crawl recorded: what
 * the page is journaled with. Returns false if out of memory. */
static bool keep_validator(char **mine, const char *old)
{
  return *mine != NULL || old == NULL || (*mine = strdup(old)) != NULL;
}

/* strong: ETag V without its weak prefix. */
static const char *strong(const char *v)
{
  return strncmp(v, "W/", 2) == 0 ? v + 2 : v;
}

/* keep_etag: keep_validator for the ETag, but a 304's that is OLD but
 * for the weak prefix gives way to OLD, which came with a 200: nginx
 * weakens the ETag of what it gzips, not of its 304s, and a fresh
 * crawl records the 200's. */
static bool keep_etag(char **mine, const char *old)
{
  if (*mine != NULL && old != NULL && strcmp(*mine, old) != 0 &&
      strcmp(strong(*mine), strong(old)) == 0) {
    free(*mine);
    *mine = NULL;
  }
  return keep_validator(mine, old);
}

/* same_text: A and B are both NULL or equal strings. */
static bool same_text(const char *a, const char *b)
{
  return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* stands: the older copy OLD may be saved for a 304 (NM) as a fresh
 * fetch today would save the page: it is within today's --max-page-size
 * (a fresh fetch abandons a larger body: FETCH_TOO_LARGE), the 304's
 * X-Robots-Tag is the older one (a 304 carries the headers that changed,
 * RFC 9111 4.3.4, and a header added, changed or dropped since changes
 * what is indexed and journaled; one that is absent from a 304 cannot be
 * told from one dropped, so the page is fetched whole), and a
 * Content-Type the 304 sends is the older one. */
static bool stands(const struct webcrawl *w, const fetch_result_t *nm,
                   const fetch_result_t *old)
{
  return old->len <= w->o->max_page_size &&
         same_text(nm->x_robots_tag, old->x_robots_tag) &&
         (nm->content_type == NULL ||
          same_text(nm->content_type, old->content_type));
}

/* refresh_begin: the validators of IT's URL that the older crawl
 * recorded (--since; store_validators) into REQ, for a conditional
 * request, unless IT is asked again without them (P->uncond, this
 * request only, not a redirect's next) or there are none. */
static void refresh_begin(struct webcrawl *w, fitem_t *it, struct page *p,
                          wc_req_t *req)
{
  bool uncond = p->uncond;
  p->uncond = false;
  const char *etag = NULL, *lm = NULL;
  int id = uncond ? 0 : store_validators(w->o->since, it->url, &etag, &lm);
  if (id == 0 || (etag == NULL && lm == NULL))
    return;
  req->since_id = id;
  req->etag = etag;
  req->last_modified = lm;
}

/* refresh_end: after a conditional request of IT (refresh_begin): on a
 * 304 P's response becomes the older crawl's copy (store_fetch: its
 * body, Content-Type and X-Robots-Tag, as served then and so now), with
 * the 304's validators, else the older ones (keep_etag), and P is
 * marked reused. If that copy cannot be read, or is not what a fresh
 * fetch would save today (stands), IT is asked again without
 * validators, with a token of its own (returns ENGINE_REQUEUED; else
 * ENGINE_PARSE, P's response then to be handled as a fetch's). */
static engine_fetched_t refresh_end(struct webcrawl *w, engine_t *e,
                                    fitem_t *it, struct page *p,
                                    const wc_req_t *req)
{
  if (p->res.outcome != FETCH_NOT_MODIFIED)
    return ENGINE_PARSE;
  fetch_result_t old;
  if (store_fetch(w->o->since, it->url, false, &old) == req->since_id &&
      stands(w, &p->res, &old) && keep_etag(&p->res.etag, req->etag) &&
      keep_validator(&p->res.last_modified, req->last_modified)) {
    old.etag = p->res.etag;
    old.last_modified = p->res.last_modified;
    old.received = p->res.received;
    p->res.etag = p->res.last_modified = NULL;
    fetch_result_free(&p->res);
    p->res = old;
    p->reused = true;
    return ENGINE_PARSE;
  }
  fetch_result_free(&old);
  fetch_result_free(&p->res);
  p->uncond = true;
  char *key = url_host_key_normal(it->url);
  if (key == NULL) {
    p->res.outcome = FETCH_NET_ERROR;
    snprintf(p->res.error, sizeof(p->res.error), "out of memory");
    return ENGINE_PARSE;
  }
  engine_requeue(e, it, NULL, key, 0);
  free(key);
  return ENGINE_REQUEUED;
}

/* begin: wc_begin but for F's preparation. */
static bool begin(struct webcrawl *w, engine_t *e, fitem_t *it, wc_req_t *req,
                  engine_fetched_t *done)
{
  if (it->flags & FITEM_GATE) {
    *done = ENGINE_CONSUMED;
    return gate_begin(w, e, it, req);
  }
  *done = ENGINE_PARSE;
  struct page *p = page_of(it);
  if (p == NULL)
    return false; /* out of memory: commit reports a failure */
  if (w->co->ops->arrived(w, it, p) != 0) {
    p->res.outcome = FETCH_NET_ERROR;
    snprintf(p->res.error, sizeof(p->res.error), "out of memory");
    return false;
  }
  if (atomic_load(&w->limit_reached)) {
    p->skipped = true;
    frontier_refund(engine_frontier(e), it->host);
    return false;
  }
  fetch_result_free(&p->res);
  const store_t *src = w->o->replay ? w->o->replay : w->o->resume;
  if (src != NULL && from_store(w, e, it, p, src, done))
    return false;
  p->robots = hosts_forbids(w->hosts, it->host, url_path_query(it->url));
  if (p->robots != NULL || hosts_full(w->hosts, it->host)) {
    p->skipped = p->robots == NULL;
    frontier_refund(engine_frontier(e), it->host);
    return false;
  }
  *req = (wc_req_t){ .url = it->url, .max = w->fcfg.max_size, .res = &p->res };
  if (w->o->since != NULL)
    refresh_begin(w, it, p, req);
  return true;
}

bool wc_begin(struct webcrawl *w, engine_t *e, fitem_t *it, fetcher_t *f,
              wc_req_t *req, engine_fetched_t *done)
{
  if (!begin(w, e, it, req, done))
    return false;
  if (req->since_id != 0)
    fetcher_prepare_cond(f, req->url, req->etag, req->last_modified, req->res);
  else
    fetcher_prepare(f, req->url, req->robots, req->max, req->res);
  return true;
}

engine_fetched_t wc_end(struct webcrawl *w, engine_t *e, fitem_t *it,
                        wc_req_t *req)
{
  if (it->flags & FITEM_GATE) {
    gate_end(w, e, it, req);
    return ENGINE_CONSUMED;
  }
  struct page *p = it->data;
  requested(w, e, it, it->url, &p->res);
  if (req->since_id != 0 && refresh_end(w, e, it, p, req) == ENGINE_REQUEUED)
    return ENGINE_REQUEUED;
  p->attempts++;
  if (p->res.outcome == FETCH_REDIRECT)
    return follow(w, e, it, p);
  bool overloaded = hosts_overloaded(&p->res);
  bool again = p->res.retryable && p->attempts <= w->o->retries &&
               !engine_stopped(e);
  if (!overloaded && !again)
    return ENGINE_PARSE;
  double at = clock_now() + hosts_retry_delay(&p->res, p->attempts);
  if (overloaded) {
    /* The server is overloaded or asks the whole host to wait (until
     * Retry-After, else for the back-off): the host's other URLs wait,
     * whether or not this one is tried again. */
    frontier_host_pause(engine_frontier(e), it->host, at);
    w->co->ops->pause(w, it, at - clock_now());
  }
  return again ? retry(w, e, it, at) : ENGINE_PARSE;
}

engine_fetched_t wc_no_client(struct webcrawl *w, engine_t *e, fitem_t *it)
{
  if (it->flags & FITEM_GATE) {
    frontier_gate_retry(engine_frontier(e), it->host, clock_now() + 1);
    return ENGINE_CONSUMED;
  }
  struct page *p = page_of(it);
  if (p == NULL)
    return ENGINE_PARSE;
  if (w->co->ops->arrived(w, it, p) != 0) {
    p->res.outcome = FETCH_NET_ERROR;
    snprintf(p->res.error, sizeof(p->res.error), "out of memory");
    return ENGINE_PARSE;
  }
  p->res.outcome = FETCH_NET_ERROR;
  snprintf(p->res.error, sizeof(p->res.error),
           "no HTTP client: libcurl "
           "could not start one for this worker");
  return ENGINE_PARSE;
}
