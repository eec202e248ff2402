/* wsitemap.c: --sitemaps (wsitemap.h): finding a seed's sitemaps,
 * fetching them politely from the seed's parse thread, and reading them
 * with common/sitemap.c into the seed's links. */
#include "wsitemap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "frontier.h"
#include "robots.h"
#include "sitemap.h"
#include "store.h"
#include "strbuf.h"
#include "url.h"

enum { MAX_HOPS = 5 };

/* One seed's sitemaps being read. */
struct smctx {
  struct webcrawl *w;
  engine_t *e;
  const fitem_t *it;
  struct page *p;
  const page_scan_t *scan;
  fetcher_t *f;
  char *hostkey; /* the seed's host key: the only host asked */
  char **seen;   /* sitemap URLs asked for already, NSEEN */
  size_t nseen;
  char **children; /* the sitemaps the index being read lists */
  size_t nchildren;
  bool stop;       /* the page is full, memory or the spill failed, or
                      the crawl is stopping */
  bool told_files; /* WSITEMAP_MAX_FILES reached, and said */
};

/* take_token: wait for the seed's host's politeness token. False if the
 * crawl stopped meanwhile. */
static bool take_token(struct smctx *c)
{
  frontier_t *fr = engine_frontier(c->e);
  for (;;) {
    if (engine_stopped(c->e))
      return false;
    double when;
    if (frontier_host_take(fr, c->hostkey, &when))
      return true;
    /* At most a second at a time, so that a stop is seen. */
    double d = when - clock_now();
    d = d > 1 ? 1 : d < 0.001 ? 0.001 : d;
    struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
    nanosleep(&ts, NULL);
  }
}

/* seen_before: whether URL was asked for already; if not, remember it. */
static bool seen_before(struct smctx *c, const char *url)
{
  for (size_t i = 0; i < c->nseen; i++)
    if (strcmp(c->seen[i], url) == 0)
      return true;
  char **v = realloc(c->seen, (c->nseen + 1) * sizeof(char *));
  if (v == NULL || (v[c->nseen] = strdup(url)) == NULL) {
    if (v != NULL)
      c->seen = v;
    c->stop = c->p->nomem = true;
    return true;
  }
  c->seen = v;
  c->nseen++;
  return false;
}

/* on_loc: sitemap_read's callback: a page URL joins the seed's links, a
 * sitemap URL of an index is kept for after it (LEVEL 0 only). */
struct reading {
  struct smctx *c;
  int level;
};

static int on_loc(void *arg, sitemap_kind_t kind, const char *loc)
{
  struct reading *rd = arg;
  struct smctx *c = rd->c;
  if (kind == SITEMAP_INDEX) {
    if (rd->level > 0)
      return 1; /* an index in an index: not followed */
    char **v = realloc(c->children, (c->nchildren + 1) * sizeof(char *));
    if (v == NULL || (v[c->nchildren] = strdup(loc)) == NULL) {
      if (v != NULL)
        c->children = v;
      c->stop = c->p->nomem = true;
      return 1;
    }
    c->children = v;
    c->nchildren++;
    return 0;
  }
  if (page_add_url(c->p, c->it, c->scan, loc) < 0 ||
      page_links(c->p) >= PAGE_MAX_LINKS) {
    c->stop = true;
    return 1;
  }
  return 0;
}

/* read_one: fetch and read the sitemap at URL (LEVEL 0: listed by
 * robots.txt or /sitemap.xml; 1: listed by an index). */
static void read_one(struct smctx *c, const char *url, int level)
{
  struct webcrawl *w = c->w;
  char *cur = url_normalize(url);
  if (cur == NULL || !url_is_http(cur)) {
    /* Not its text: a line break in it would forge log lines. */
    wc_log_file(w, -1, "Sitemap", "(a location)", "not an http(s) URL");
    free(cur);
    return;
  }
  for (int hop = 0;; hop++) {
    char *key = url_host_key(cur);
    bool here = key != NULL && strcmp(key, c->hostkey) == 0;
    free(key);
    const char *why = !here ? "on another host: not asked"
                    : !scope_contains(wc_scope(w), cur)
                      ? "out of scope"
                      : hosts_forbids(w->hosts, c->it->host,
                                      url_path_query(cur));
    if (why != NULL) {
      wc_log_file(w, -1, "Sitemap", cur, why);
      break;
    }
    if (seen_before(c, cur)) {
      if (hop > 0) { /* a redirect back to a sitemap asked already */
        atomic_fetch_add(&w->sitemaps_failed, 1);
        wc_log_file(w, -1, "Sitemap", cur, "a redirect loop");
      }
      break;
    }
    if (c->nseen > WSITEMAP_MAX_FILES) {
      c->stop = true; /* and no more children copied and compared */
      if (!c->told_files)
        wc_log_file(w, -1, "Sitemap", cur,
                    "too many sitemaps: the rest not asked");
      c->told_files = true;
      break;
    }
    if (!take_token(c)) {
      c->stop = true;
      break;
    }
    fetch_result_t r;
    fetcher_get_robots(c->f, cur, SITEMAP_MAX_BYTES, &r);
    wc_archive(w, c->e, cur, &r);
    atomic_fetch_add(&w->requests, 1);
    if (r.outcome == FETCH_REDIRECT && hop < MAX_HOPS) {
      char *to = url_resolve_normalized(cur, r.location);
      wc_log_file(w, -1, "Sitemap", cur, "a redirect");
      fetch_result_free(&r);
      free(cur);
      if ((cur = to) == NULL)
        return;
      continue;
    }
    if (r.outcome != FETCH_OK) {
      atomic_fetch_add(&w->sitemaps_failed, 1);
      wc_log_file(w, -1, "Sitemap", cur,
                  r.outcome == FETCH_REDIRECT ? "too many redirects"
                  : r.error[0]                ? r.error
                                              : "failed");
      fetch_result_free(&r);
      break;
    }
    struct reading rd = { c, level };
    char err[256];
    size_t before = c->nchildren;
    int rc = sitemap_read(r.body, r.len, on_loc, &rd, err, sizeof(err));
    fetch_result_free(&r);
    atomic_fetch_add(rc == 0 ? &w->sitemaps_fetched : &w->sitemaps_failed, 1);
    wc_log_file(w, -1, "Sitemap", cur, rc == 0 ? "read" : err);
    /* An index's sitemaps, in its order, before the next one. */
    for (size_t i = before; i < c->nchildren && !c->stop; i++)
      read_one(c, c->children[i], 1);
    break;
  }
  free(cur);
}

/* from_store: the URLs the journal kept for seed IT, if P was saved
 * before (resume) or comes from a saved crawl (replay). Returns true if
 * the store answered (the network is not asked then). */
static bool from_store(struct webcrawl *w, const fitem_t *it, struct page *p,
                       const page_scan_t *scan)
{
  const store_t *s = w->o->replay ? w->o->replay : w->o->resume;
  if (s == NULL || (w->o->replay == NULL && p->stored_id == 0))
    return false; /* not saved before: asked now */
  const char *list = store_sitemap(s, it->url);
  if (list == NULL)
    return w->o->replay != NULL; /* a replay asks no server */
  char *copy = strdup(list);
  if (copy == NULL) {
    p->nomem = true;
    return true;
  }
  char *save = NULL;
  for (char *u = strtok_r(copy, " ", &save); u != NULL;
       u = strtok_r(NULL, " ", &save))
    if (page_add_url(p, it, scan, u) < 0)
      break;
  free(copy);
  return true;
}

fptable_t *wsitemap_firsts(const char *const *seeds, size_t nseeds)
{
  fptable_t *hosts = fptable_new(0, 64), *firsts = fptable_new(0, 64);
  bool ok = hosts != NULL && firsts != NULL;
  for (size_t i = 0; ok && i < nseeds; i++) {
    char *key = url_host_key(seeds[i]);
    uint64_t fp[2];
    if (key == NULL) {
      ok = false;
      break;
    }
    fptable_hash128(key, strlen(key), fp);
    free(key);
    int rc = fptable_insert(hosts, fp, NULL);
    if (rc == 1) {
      fptable_hash128(seeds[i], strlen(seeds[i]), fp);
      rc = fptable_insert(firsts, fp, NULL);
    }
    ok = rc >= 0;
  }
  fptable_delete(hosts);
  if (!ok) {
    fptable_delete(firsts);
    return NULL;
  }
  return firsts;
}

bool wsitemap_first(const fptable_t *firsts, const char *seed)
{
  uint64_t fp[2];
  fptable_hash128(seed, strlen(seed), fp);
  return fptable_find(firsts, fp, NULL);
}

void wsitemap_links(struct webcrawl *w, engine_t *e, const fitem_t *it,
                    struct page *p, const page_scan_t *scan, bool first)
{
  p->nown = page_links(p);
  p->sitemapped = true;
  if (from_store(w, it, p, scan) || !first)
    return;
  struct smctx c = { .w = w, .e = e, .it = it, .p = p, .scan = scan };
  c.hostkey = url_host_key(it->url);
  char *origin = url_scope_default(it->url);
  char *guess = NULL;
  if (origin != NULL && (guess = malloc(strlen(origin) + 12)) != NULL)
    strcat(strcpy(guess, origin), "sitemap.xml");
  c.f = fetcher_new(&w->fcfg);
  if (c.hostkey == NULL || guess == NULL || c.f == NULL) {
    p->nomem = true;
  } else {
    const robots_t *rules = hosts_robots(w->hosts, it->host);
    for (size_t i = 0; i < robots_sitemaps(rules) && !c.stop; i++)
      read_one(&c, robots_sitemap(rules, i), 0);
    if (!c.stop)
      read_one(&c, guess, 0);
  }
  fetcher_delete(c.f);
  for (size_t i = 0; i < c.nseen; i++)
    free(c.seen[i]);
  free(c.seen);
  for (size_t i = 0; i < c.nchildren; i++)
    free(c.children[i]);
  free(c.children);
  free(c.hostkey);
  free(origin);
  free(guess);
}

/* The journal's list: the links from NOWN on. */
struct listing {
  strbuf_t b;
  size_t i, from;
};

static void list_one(void *arg, const struct link *l)
{
  struct listing *x = arg;
  if (x->i++ < x->from || l->cls == L_INVALID)
    return;
  if (x->b.len > 0)
    strbuf_addc(&x->b, ' ');
  strbuf_adds(&x->b, l->url);
}

char *wsitemap_journal(struct page *p)
{
  struct listing x = { STRBUF_INIT, 0, p->nown };
  if (page_links_each(p, list_one, &x) != 0) {
    strbuf_release(&x.b);
    return NULL;
  }
  char *s = strbuf_detach(&x.b);
  if (s == NULL)
    errno = ENOMEM;
  return s;
}
