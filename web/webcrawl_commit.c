/* webcrawl_commit.c: the crawl's commit hook (webcrawl.c's top comment):
 * one page at a time, in discovery order, its events logged, its ID given
 * by publishing its temporary file, its outcome journaled if it is not
 * saved, and its new links added at depth + 1. One thread at a time: the
 * commit's; what it writes of struct webcrawl is commit only. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "crawl.h"
#include "engine.h"
#include "hosts.h"
#include "links.h"
#include "page.h"
#include "pstore.h"
#include "store.h"
#include "tally.h"
#include "webcrawl_int.h"
#include "wsitemap.h"

void wc_progress(struct webcrawl *w, bool final)
{
  if (!w->o->progress)
    return;
  double now = clock_now();
  if (!final && now - w->last_progress < 0.25)
    return;
  w->last_progress = now;
  double el = now - w->start;
  /* The rate of requests made, not of pages saved: a resumed crawl
   * saves its earlier pages again in a moment, read back, not asked. */
  long requests = atomic_load(&w->requests);
  engine_stats_t es;
  engine_stats(w->e, &es);
  fprintf(stderr,
          "\r\033[K%ld saved, %zu queued, %ld failed, %.1f requests/s, "
          "%d:%02d elapsed",
          w->st->saved, es.queued, w->st->failed, el > 0 ? requests / el : 0.0,
          (int)(el / 60), (int)el % 60);
  if (final)
    fputs("\r\033[K", stderr);
  fflush(stderr);
}

/* io_fail: a page could not be saved: report once, stop the crawl. */
static bool io_fail(struct webcrawl *w, engine_t *e, const char *what, int id,
                    int err)
{
  w->st->write_errors++;
  w->io_failed = true;
  fprintf(stderr, "crawler: cannot %s page %d in '%s': %s\n", what, id,
          pstore_dir(w->o->pstore), strerror(err));
  engine_stop(e);
  return false;
}

/* count_refresh: which of --since's kinds saved page IT (record P) is
 * (webcrawl_stats_t). */
static void count_refresh(struct webcrawl *w, const fitem_t *it,
                          const struct page *p)
{
  webcrawl_stats_t *st = w->st;
  bool had = store_id(w->o->since, it->url) > 0;
  st->kept += had;
  if (p->stored_id != 0)
    st->earlier++;
  else if (p->reused)
    st->reused++;
  else if (had)
    st->refetched++;
  else
    st->fresh++;
}

/* save: give page IT its ID: journal what its file does not say, then
 * publish it (or, on resume, check that it was saved under this ID).
 * Returns false if the crawl must stop. */
static bool save(struct webcrawl *w, engine_t *e, fitem_t *it, struct page *p)
{
  webcrawl_stats_t *st = w->st;
  int id = (int)st->saved + 1;
  if (p->stored_id != 0) {
    if (p->stored_id != id) {
      fprintf(stderr,
              "crawler: cannot resume: '%s' was saved as page %d "
              "but comes out as page %d now; the site changed since the "
              "interrupted crawl\n",
              it->url, p->stored_id, id);
      w->io_failed = true;
      engine_stop(e);
      return false;
    }
  } else {
    if (w->o->resume != NULL && id <= store_count(w->o->resume))
      return io_fail(w, e, "resume: the site changed; not overwriting", id,
                     EEXIST);
    /* What its sitemaps gave, for a resume or a replay (wsitemap.h). */
    char *list = p->sitemapped ? wsitemap_journal(p) : NULL;
    if (p->sitemapped && list == NULL)
      return io_fail(w, e, "journal", id, ENOMEM);
    const pstore_facts_t facts = { .url = it->url,
                                   .chain = p->chain,
                                   .hops = p->hops,
                                   .ctype = p->res.content_type,
                                   .xrobots = p->res.x_robots_tag,
                                   .etag = p->res.etag,
                                   .lastmod = p->res.last_modified,
                                   .sitemap = list };
    int rc = pstore_journal_page(w->o->pstore, id, &facts);
    int err = errno;
    free(list);
    if (rc != 0)
      return io_fail(w, e, "journal", id, err);
    if (pstore_publish(w->o->pstore, &p->tmp, id, it->url, it->depth) != 0)
      return io_fail(w, e, "save", id, errno);
  }
  st->saved++;
  st->bytes += (long long)p->res.len;
  if (w->o->since != NULL)
    count_refresh(w, it, p);
  if (it->depth == 0)
    st->seed_saved = true;
  wc_log_event(w, it->depth, "Saved", it->url);
  hosts_count_saved(w->hosts, it->host);
  return true;
}

/* lost_to_oom: URL could not be kept for lack of memory: the crawl can no
 * longer be the complete one, so it stops and webcrawl_run says so. */
static void lost_to_oom(struct webcrawl *w, engine_t *e, const char *url)
{
  if (!w->oom)
    fprintf(stderr, "crawler: out of memory at '%s'\n", url);
  w->oom = true;
  engine_stop(e);
}

/* commit_link: log link L of a page at depth D and, if it is a
 * candidate, add it at D + 1; count what is ignored, and why. */
static void commit_link(struct webcrawl *w, engine_t *e, int d,
                        const struct link *l)
{
  webcrawl_stats_t *st = w->st;
  if (l->cls == L_INVALID) {
    st->ign_invalid++;
    wc_log_event(w, d, "IgnBad", l->url);
    return;
  }
  wc_log_event(w, d, "Found", l->url);
  long *n = NULL;
  const char *label = NULL;
  switch (l->cls) {
  case L_EXTERN:
    n = &st->ign_extern;
    label = "IgnExtrn";
    break;
  case L_NOFOLLOW:
    n = &st->ign_rel_nofollow;
    label = "IgnFollow";
    break;
  case L_TRAP:
    n = &st->ign_trap;
    label = "IgnTrap";
    break;
  case L_FILTERED:
    n = &st->ign_filtered;
    label = "IgnFilter";
    break;
  case L_NONPAGE:
    n = &st->ign_nonpage;
    label = "IgnType";
    break;
  default:
    break;
  }
  if (n != NULL) {
    (*n)++;
    wc_log_event(w, d, label, l->url);
    return;
  }
  int rc = engine_add(e, l->url, d + 1, l->key);
  if (rc == 1) {
    wc_log_event(w, d, "Added", l->url);
  } else if (rc == 0) {
    st->ign_dupl++;
    wc_log_event(w, d, "IgnDupl", l->url);
  } else if (rc == -2) {
    lost_to_oom(w, e, l->url);
  } else if (rc == -3 && !w->io_failed) {
    /* The frontier's spill: the crawl stops as on a full disk. */
    w->st->write_errors++;
    w->io_failed = true;
    fprintf(stderr,
            "crawler: cannot queue '%s' on disk in '%s' (--max-memory): "
            "%s\n",
            l->url, pstore_dir(w->o->pstore), strerror(errno));
  }
}

struct commit_links {
  struct webcrawl *w;
  engine_t *e;
  int depth;
};

static void commit_each(void *arg, const struct link *l)
{
  struct commit_links *c = arg;
  commit_link(c->w, c->e, c->depth, l);
}

/* links_of: page_links_each for pstore_record_noindex. */
static int links_of(void *page, void (*fn)(void *arg, const struct link *l),
                    void *arg)
{
  return page_links_each(page, fn, arg);
}

/* The outcomes commit journals for an item it does not save. */
enum outcome { O_FAILED, O_ROBOTS, O_BINARY, O_DUPLICATE, O_NOINDEX };

/* record_outcome: journal outcome O of IT (P its record) with the pages
 * saved so far (pstore.h), unless this crawl replays it from the
 * journal, which holds it already. Returns false if the crawl must
 * stop. */
static bool record_outcome(struct webcrawl *w, engine_t *e, const fitem_t *it,
                           const struct page *p, enum outcome o)
{
  const char *first = p->hops > 0 ? p->chain[0] : it->url;
  if (w->o->resume != NULL && store_replayed(w->o->resume, first))
    return true;
  const pstore_item_t item = { .url = it->url,
                               .chain = p->chain,
                               .hops = p->hops,
                               .depth = it->depth,
                               .seq = (unsigned long long)it->seq };
  pstore_t *ps = w->o->pstore;
  int tag = (int)w->st->saved;
  /* A noindex page's links, if the commit follows them. */
  size_t nlinks = p->nofollow || it->depth >= w->o->max_depth ? 0
                                                              : page_links(p);
  int rc;
  switch (o) {
  case O_FAILED:
    rc = pstore_record_failed(ps, tag, &item, &p->res);
    break;
  case O_ROBOTS:
    rc = pstore_record_robots(ps, tag, &item, p->robots);
    break;
  case O_BINARY:
    rc = pstore_record_binary(ps, tag, &item);
    break;
  case O_DUPLICATE:
    rc = pstore_record_duplicate(ps, tag, &item);
    break;
  default:
    rc = pstore_record_noindex(ps, tag, &item, p->nofollow, (int)w->st->noindex,
                               links_of, (void *)p, nlinks);
    break;
  }
  if (rc == 0)
    return true;
  w->st->write_errors++;
  w->io_failed = true;
  fprintf(stderr, "crawler: cannot journal the outcome of '%s' in '%s': %s\n",
          it->url, pstore_dir(ps), strerror(errno));
  engine_stop(e);
  return false;
}

/* seed_not_saved: if IT is a seed (an item at depth 0), count it, and
 * for the first keep WHY (borrowed; copied) for the statistics: the
 * crawl then failed at its first step, which the program reports
 * (webcrawl_stats_t). */
static void seed_not_saved(struct webcrawl *w, const fitem_t *it,
                           const char *why)
{
  if (it->depth != 0)
    return;
  /* One thread at a time: the commit's. */
  if (w->st->seeds_failed++ == 0) {
    snprintf(w->st->seed_why, sizeof(w->st->seed_why), "%s", why);
    snprintf(w->st->seed_failed, sizeof(w->st->seed_failed), "%s", it->url);
  }
  w->co->ops->seed_failed(w, why);
}

/* commit_failed: IT (record P) not saved, for robots.txt, as no page,
 * or as a failed fetch: counted, logged, its outcome journaled. Returns
 * whether it was (its commit is done). */
static bool commit_failed(struct webcrawl *w, engine_t *e, fitem_t *it,
                          struct page *p)
{
  webcrawl_stats_t *st = w->st;
  int d = it->depth;
  if (p->robots != NULL) {
    if (hosts_is_unreachable(p->robots)) {
      st->ign_unreachable++;
      /* Each host's reason: few, and they say what the URLs met. */
      tally_add(&st->unreachable, p->robots);
    } else {
      st->ign_robots++;
    }
    seed_not_saved(w, it, p->robots);
    wc_log_reason(w, d, "IgnRobots", it->url, p->robots);
    record_outcome(w, e, it, p, O_ROBOTS);
    return true;
  }
  if (p->res.outcome == FETCH_OK && p->binary) {
    st->failed++;
    st->binary++;
    tally_add(&st->failures, "not a page");
    seed_not_saved(w, it, "not a page: binary content");
    wc_log_reason(w, d, "Failed", it->url, "not a page: binary content");
    record_outcome(w, e, it, p, O_BINARY);
    return true;
  }
  if (p->res.outcome != FETCH_OK) {
    st->failed++;
    switch (p->res.outcome) {
    case FETCH_HTTP_ERROR:
      st->http_errors++;
      break;
    case FETCH_WRONG_TYPE:
      st->wrong_type++;
      break;
    case FETCH_TOO_LARGE:
      st->too_large++;
      break;
    default:
      st->net_errors++;
      break;
    }
    char cause[TALLY_WHAT];
    tally_add(&st->failures, fetch_cause(&p->res, cause, sizeof(cause)));
    seed_not_saved(w, it, p->res.error);
    wc_log_reason(w, d, "Failed", it->url, p->res.error);
    record_outcome(w, e, it, p, O_FAILED);
    return true;
  }
  return false;
}

/* commit_fetched: IT (record P) fetched: logged, the redirects it went
 * through marked seen. Returns false if its commit ends here (out of
 * memory, or a page an earlier one claimed). */
static bool commit_fetched(struct webcrawl *w, engine_t *e, fitem_t *it,
                           struct page *p)
{
  webcrawl_stats_t *st = w->st;
  int d = it->depth;
  st->fetched++;
  /* A 304 of --since: the older crawl's copy stands for the page. */
  wc_log_event(w, d, p->reused ? "Reused" : "Fetched", it->url);
  for (int i = 0; i < p->hops; i++) {
    if (engine_mark_seen(e, p->chain[i]) == -2)
      lost_to_oom(w, e, p->chain[i]);
    wc_log_event(w, d, "Redirect", p->chain[i]);
  }
  int seen = p->hops > 0 ? engine_mark_seen(e, it->url) : 1;
  if (seen == -2) {
    lost_to_oom(w, e, it->url);
    return false;
  }
  if (seen == 0) {
    /* Redirected to a page an earlier page already claimed. */
    st->dup_redirects++;
    wc_log_event(w, d, "IgnDupl", it->url);
    record_outcome(w, e, it, p, O_DUPLICATE);
    return false;
  }
  return true;
}

/* commit_keep: IT (record P) kept: saved under the next ID, or, noindex,
 * journaled; --max-pages counted. Returns false if its commit ends here
 * (its links not followed). */
static bool commit_keep(struct webcrawl *w, engine_t *e, fitem_t *it,
                        struct page *p)
{
  webcrawl_stats_t *st = w->st;
  if (p->noindex) {
    st->noindex++;
    seed_not_saved(w, it, "noindex");
    wc_log_event(w, it->depth, "IgnIndex", it->url);
    if (!record_outcome(w, e, it, p, O_NOINDEX))
      return false;
  } else if (p->stored_id != 0 || p->tmp != NULL) {
    if (!save(w, e, it, p))
      return false;
    if (w->o->max_pages > 0 && st->saved >= w->o->max_pages) {
      /* What is left drains unfetched: at once, not a page a commit. */
      atomic_store(&w->limit_reached, true);
      engine_want(e, UINT64_MAX);
      return false;
    }
    if (w->o->max_pages > 0)
      engine_want(e, (uint64_t)(w->o->max_pages - st->saved));
  } else {
    st->write_errors++;
    w->io_failed = true;
    fprintf(stderr, "crawler: cannot write a page to '%s': %s\n",
            pstore_dir(w->o->pstore), strerror(p->write_errno));
    engine_stop(e);
    return false;
  }
  return true;
}

/* wc_commit: the page's events in the log and its counters, its ID,
 * and its links added at depth + 1 (see the top of this file). */
void wc_commit(void *ctx, engine_t *e, fitem_t *it)
{
  struct webcrawl *w = ctx;
  webcrawl_stats_t *st = w->st;
  struct page *p = it->data;
  int d = it->depth;

  if (p == NULL) {
    st->failed++;
    tally_add(&st->failures, "out of memory");
    seed_not_saved(w, it, "out of memory");
    wc_log_reason(w, d, "Failed", it->url, "out of memory");
    return;
  }
  /* Limits are decided here, in commit order, whatever the download
   * threads skipped early: the log is the same for any timing. */
  if (atomic_load(&w->limit_reached))
    return;
  if (hosts_full(w->hosts, it->host)) {
    st->ign_host_limit++;
    wc_log_event(w, d, "IgnLimit", it->url);
    return;
  }
  if (p->skipped)
    return;
  if (p->read_errno) {
    /* Its body could not be read back (its temporary or saved file):
     * stop as on an I/O error; --resume goes on from here. */
    io_fail(w, e, "read back", (int)st->saved + 1, p->read_errno);
    return;
  }
  if (p->nomem) {
    w->oom = true;
    fprintf(stderr, "crawler: out of memory while parsing '%s'\n", it->url);
    engine_stop(e);
    return;
  }
  if (commit_failed(w, e, it, p))
    return;
  if (!commit_fetched(w, e, it, p))
    return;
  if (w->io_failed)
    return;
  if (p->spill_errno) {
    /* Its links did not all reach the disk: stop as on a full disk. */
    io_fail(w, e, "spill the links of", (int)st->saved + 1, p->spill_errno);
    return;
  }
  if (!commit_keep(w, e, it, p))
    return;
  if (p->nofollow && d < w->o->max_depth) {
    st->nofollow++;
    wc_log_event(w, d, "IgnFollow", it->url);
  } else if (d < w->o->max_depth) {
    wc_log_event(w, d, "Scanning", it->url);
    struct commit_links c = { w, e, d };
    if (page_links_each(p, commit_each, &c) != 0) {
      io_fail(w, e, "read back the links of", (int)st->saved, errno);
      return;
    }
  }
  wc_progress(w, false);
}
