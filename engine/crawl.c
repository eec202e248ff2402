/* crawl.c: crawl(), the library front end of the engine (see crawl.h).
 *
 * It plugs the caller's fetch_fn and edge_fn and the link format into the
 * engine in unordered mode, with one host and no politeness: the caller
 * owns fetching, so pacing is the caller's business. */
#include "crawl.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "links.h"

struct lib {
  char *(*fetch_fn)(char *link);
  void (*edge_fn)(char *from, char *to);
};

/* The state of one page's scan. */
struct scan {
  struct lib *lib;
  engine_t *e;
  fitem_t *page;
  char *buf; /* a private copy of each link for edge_fn */
  size_t cap;
};

static engine_fetched_t lib_fetch(void *ctx, void *ws, engine_t *e, fitem_t *it)
{
  struct lib *lib = ctx;
  (void)ws;
  (void)e;
  it->data = lib->fetch_fn(it->url);
  return ENGINE_PARSE;
}

/* lib_link: one link of the page. Out of memory ends the crawl with
 * CRAWL_ENOMEM: a link that cannot be queued would make the result
 * silently incomplete. */
static int lib_link(void *arg, const char *href, int flags)
{
  struct scan *s = arg;
  size_t len = strlen(href);
  (void)flags;
  /* edge_fn gets char *, so it gets its own copy: a callee that writes to
   * it despite the contract cannot corrupt the link we queue. */
  if (len + 1 > s->cap) {
    char *b = realloc(s->buf, len + 1);
    if (b == NULL) {
      engine_fail(s->e, CRAWL_ENOMEM);
      return 1;
    }
    s->buf = b;
    s->cap = len + 1;
  }
  memcpy(s->buf, href, len + 1);
  s->lib->edge_fn(s->page->url, s->buf);
  if (engine_add(s->e, href, s->page->depth + 1, "") == -2) {
    engine_fail(s->e, CRAWL_ENOMEM);
    return 1;
  }
  return 0;
}

static void lib_parse(void *ctx, engine_t *e, fitem_t *it)
{
  if (it->data == NULL)
    return;
  struct scan s = { ctx, e, it, NULL, 0 };
  links_sink_t sink = { .link = lib_link, .arg = &s };
  if (links_scan_text(it->data, strlen(it->data), &sink) == LINKS_ENOMEM)
    engine_fail(e, CRAWL_ENOMEM); /* the rest of the page's links */
  free(s.buf);
}

static void lib_release(void *ctx, fitem_t *it)
{
  (void)ctx;
  free(it->data);
  it->data = NULL;
}

static const engine_hooks_t lib_hooks = {
  .fetch = lib_fetch,
  .parse = lib_parse,
  .release = lib_release,
};

int crawl(char *start_url, int download_workers, int parse_workers,
          int queue_size, char *(*fetch_fn)(char *link),
          void (*edge_fn)(char *from, char *to))
{
  if (start_url == NULL || fetch_fn == NULL || edge_fn == NULL ||
      download_workers < 1 || parse_workers < 1 || queue_size < 1 ||
      download_workers > ENGINE_MAX_WORKERS ||
      parse_workers > ENGINE_MAX_WORKERS)
    return CRAWL_EINVAL;
  struct lib lib = { fetch_fn, edge_fn };
  engine_config_t cfg = {
    .download_workers = download_workers,
    .parse_workers = parse_workers,
    .queue_size = (size_t)queue_size,
    .queue_only = true, /* crawl.h: a popped link has left the queue */
    .hooks = &lib_hooks,
    .ctx = &lib,
  };
  engine_t *e = engine_new(&cfg);
  if (e == NULL)
    return CRAWL_ENOMEM; /* the arguments engine_new checks are valid */
  int rc = engine_add(e, start_url, 0, "") == 1 ? engine_run(e) : CRAWL_ENOMEM;
  engine_delete(e);
  return rc;
}

const char *crawl_strerror(int status)
{
  switch (status) {
  case CRAWL_OK:
    return "success";
  case CRAWL_EINVAL:
    return "invalid argument";
  case CRAWL_ENOMEM:
    return "out of memory";
  case CRAWL_ETHREAD:
    return "cannot start a thread";
  case CRAWL_ESTOPPED:
    return "stopped";
  case CRAWL_EIO:
    return "input/output error";
  case CRAWL_EREDIS:
    return "Redis unreachable or refused";
  case CRAWL_EMISMATCH:
    return "an option differs from the shared crawl's";
  case CRAWL_ELOST:
    return "the shared crawl is no longer in Redis";
  case CRAWL_EFENCED:
    return "the lease lapsed";
  case CRAWL_ENOENT:
    return "no such shared crawl";
  case CRAWL_EORDER:
    return "a commit out of order";
  case CRAWL_ECLUSTER:
    return "the shared crawl failed";
  case CRAWL_EDONE:
    return "the shared crawl is complete";
  }
  return "unknown error";
}
