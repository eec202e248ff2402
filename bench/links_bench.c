/* links_bench.c: link extraction speed of links_scan_html(), and the cost
 * of resolving what it finds.
 *
 * usage: links_bench [-r ROOT=URL [-s | -c]] [MIN_SECONDS] < FILE_LIST
 * Reads the files named on stdin (one path a line) into memory, then scans
 * them all with links_scan_html() (one thread, no charset given, a sink
 * that counts links), pass after pass until MIN_SECONDS (default 2) have
 * gone by; MIN_SECONDS 0 makes one pass (for callgrind). Prints one line:
 * files, MB, links per pass, passes, MB/s and ms per page. Nothing is
 * written to disk; file reading is not timed.
 *
 * -r ROOT=URL also resolves every link the way web/webcrawl.c's
 * on_base() and on_link() do, with each file's URL being URL followed by
 * its path without the prefix ROOT (every file must be under ROOT): per
 * page, url_base_init() on the page URL (again on the first <base href>,
 * resolved with url_resolve(), from there on), url_base_resolve() per
 * link, scope_contains() (scope: URL) and url_is_nonpage() on each result,
 * and url_host_key_normal() for those the crawler would queue (in scope,
 * not a non-page; its trap check is left out). The hrefs are collected by
 * one scan first, so the timed passes (again until MIN_SECONDS) cost the
 * URL code alone. Prints a second line: links, links resolved, links
 * keyed, passes, ns per link (all links, failures included). E.g.
 *   find /usr/share/doc/python3.11/html -name '*.html' | links_bench \
 *     -r /usr/share/doc/python3.11/html/=http://127.0.0.10/python/ 5
 *   -s  the same with the slow path that on_link() used before the
 *       per-page fast path: url_resolve_normalized() and url_host_key().
 *   -c  no timing: resolve every link both ways and compare the normal
 *       forms and host keys (url_host_key() of the slow result against
 *       url_host_key_normal() of the fast one) byte for byte; prints each
 *       difference and a count, exits 1 if there is any. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "links.h"
#include "scope.h"
#include "url.h"

typedef struct {
  char *body;
  size_t len;
  char *url; /* with -r: the page URL */
} page_t;

/* One item of a page's link stream, in document order. */
typedef struct {
  bool base; /* a <base href>, else a link */
  char *href;
} item_t;

typedef struct {
  item_t *v;
  size_t n, cap;
  size_t page_start; /* first item of the page being scanned */
  size_t *starts;    /* per page: index of its first item; [npages] = n */
} stream_t;

static int count_link(void *arg, const char *href, int flags)
{
  (void)href;
  (void)flags;
  (*(long *)arg)++;
  return 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int push(stream_t *s, bool base, const char *href)
{
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4096;
    item_t *v = realloc(s->v, cap * sizeof(*v));
    if (v == NULL)
      return 1;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n].base = base;
  s->v[s->n].href = strdup(href);
  if (s->v[s->n].href == NULL)
    return 1;
  s->n++;
  return 0;
}

static int keep_link(void *arg, const char *href, int flags)
{
  (void)flags;
  return push(arg, false, href);
}

static int keep_base(void *arg, const char *href)
{
  return push(arg, true, href);
}

/* The counters of one resolution pass. */
typedef struct {
  long links, resolved, keyed, diffs;
} tally_t;

/* resolve_page: the links of page p, as on_base()/on_link() handle them;
 * slow selects the old path. */
static void resolve_page(const page_t *p, const item_t *it, size_t n,
                         const scope_t *scope, bool slow, tally_t *t)
{
  char *base = NULL; /* the first <base href>, resolved */
  url_base_t b;
  if (!slow)
    url_base_init(&b, p->url);
  for (size_t i = 0; i < n; i++) {
    if (it[i].base) {
      if (base == NULL && (base = url_resolve(p->url, it[i].href)) != NULL &&
          !slow)
        url_base_init(&b, base);
      continue;
    }
    t->links++;
    char *u = slow ? url_resolve_normalized(base ? base : p->url, it[i].href)
                   : url_base_resolve(&b, it[i].href);
    if (u == NULL)
      continue;
    t->resolved++;
    if (scope_contains(scope, u) && !url_is_nonpage(u)) {
      char *k = slow ? url_host_key(u) : url_host_key_normal(u);
      t->keyed += k != NULL;
      free(k);
    }
    free(u);
  }
  free(base);
}

static bool same(const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* check_page: resolve the links of p both ways and compare. */
static void check_page(const page_t *p, const item_t *it, size_t n, tally_t *t)
{
  char *base = NULL;
  url_base_t b;
  url_base_init(&b, p->url);
  for (size_t i = 0; i < n; i++) {
    if (it[i].base) {
      if (base == NULL && (base = url_resolve(p->url, it[i].href)) != NULL)
        url_base_init(&b, base);
      continue;
    }
    t->links++;
    const char *bs = base ? base : p->url;
    char *old = url_resolve_normalized(bs, it[i].href);
    char *new = url_base_resolve(&b, it[i].href);
    char *ok = old ? url_host_key(old) : NULL;
    char *nk = new ? url_host_key_normal(new) : NULL;
    t->resolved += old != NULL;
    t->keyed += ok != NULL;
    if (!same(old, new) || !same(ok, nk)) {
      t->diffs++;
      printf("DIFF base \"%s\" href \"%s\": slow \"%s\" key \"%s\", "
             "fast \"%s\" key \"%s\"\n",
             bs, it[i].href, old ? old : "(null)", ok ? ok : "(null)",
             new ? new : "(null)", nk ? nk : "(null)");
    }
    free(old);
    free(new);
    free(ok);
    free(nk);
  }
  free(base);
}

/* resolve_pass: one pass over every page's links (a function of its own,
 * never inlined, so that callgrind can count it alone:
 * --toggle-collect=resolve_pass). */
__attribute__((noinline)) static void resolve_pass(const page_t *pages,
                                                   size_t n, const stream_t *s,
                                                   const scope_t *scope,
                                                   int mode, tally_t *t)
{
  memset(t, 0, sizeof(*t));
  for (size_t i = 0; i < n; i++) {
    const item_t *it = s->v + s->starts[i];
    size_t k = s->starts[i + 1] - s->starts[i];
    if (mode == 'c')
      check_page(&pages[i], it, k, t);
    else
      resolve_page(&pages[i], it, k, scope, mode == 's', t);
  }
}

/* page_urls: give each page its URL under -r ROOT=URL. */
static int page_urls(page_t *pages, char **paths, size_t n, const char *rs)
{
  const char *eq = strchr(rs, '=');
  if (eq == NULL) {
    fprintf(stderr, "links_bench: -r wants ROOT=URL\n");
    return 1;
  }
  size_t rl = (size_t)(eq - rs);
  for (size_t i = 0; i < n; i++) {
    if (strncmp(paths[i], rs, rl) != 0) {
      fprintf(stderr, "links_bench: '%s' is not under '%.*s'\n", paths[i],
              (int)rl, rs);
      return 1;
    }
    size_t ul = strlen(eq + 1), pl = strlen(paths[i] + rl);
    if ((pages[i].url = malloc(ul + pl + 1)) == NULL)
      return 1;
    memcpy(pages[i].url, eq + 1, ul);
    memcpy(pages[i].url + ul, paths[i] + rl, pl + 1);
  }
  return 0;
}

/* run_resolve: the -r part: collect the hrefs, then time or check. */
static int run_resolve(page_t *pages, size_t n, const char *url, int mode,
                       double min_s)
{
  scope_t *scope = scope_new(&url, 1, NULL, 0);
  if (scope == NULL) {
    fprintf(stderr, "links_bench: -r: '%s' is not a URL in normal form\n", url);
    return 1;
  }
  stream_t s = { 0 };
  if ((s.starts = malloc((n + 1) * sizeof(size_t))) == NULL)
    return 1;
  links_sink_t sink = { keep_link, keep_base, NULL, NULL, &s };
  for (size_t i = 0; i < n; i++) {
    s.starts[i] = s.n;
    if (links_scan_html(pages[i].body, pages[i].len, NULL, &sink) != 0) {
      fprintf(stderr, "links_bench: out of memory\n");
      return 1;
    }
  }
  s.starts[n] = s.n;
  tally_t t;
  int passes = 0, rc = 0;
  double t0 = now(), el;
  do {
    resolve_pass(pages, n, &s, scope, mode, &t);
    passes++;
    el = now() - t0;
  } while (mode != 'c' && el < min_s);
  if (mode == 'c') {
    printf("compared %ld links (%ld resolved, %ld keyed): %ld differences\n",
           t.links, t.resolved, t.keyed, t.diffs);
    rc = t.diffs != 0;
  } else {
    printf("%s links %ld resolved %ld keyed %ld passes %d ns/link %.0f\n",
           mode == 's' ? "slow" : "fast", t.links, t.resolved, t.keyed, passes,
           el * 1e9 / ((double)t.links * passes));
  }
  for (size_t i = 0; i < s.n; i++)
    free(s.v[i].href);
  free(s.v);
  free(s.starts);
  scope_delete(scope);
  return rc;
}

/* read_pages: the files named on stdin; paths kept in *paths. */
static page_t *read_pages(size_t *np, size_t *total, char ***paths)
{
  size_t n = 0, cap = 1024;
  page_t *pages = malloc(cap * sizeof *pages);
  *paths = malloc(cap * sizeof(char *));
  char path[4096];
  while (pages != NULL && *paths != NULL &&
         fgets(path, sizeof path, stdin) != NULL) {
    path[strcspn(path, "\n")] = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
      perror(path);
      exit(1);
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(sz > 0 ? (size_t)sz : 1);
    if (b == NULL || fread(b, 1, (size_t)sz, f) != (size_t)sz) {
      fprintf(stderr, "links_bench: cannot read '%s'\n", path);
      exit(1);
    }
    fclose(f);
    if (n == cap) {
      cap *= 2;
      pages = realloc(pages, cap * sizeof *pages);
      *paths = realloc(*paths, cap * sizeof(char *));
    }
    if (pages == NULL || *paths == NULL)
      exit(1);
    pages[n] = (page_t){ b, (size_t)sz, NULL };
    (*paths)[n] = strdup(path);
    n++;
    *total += (size_t)sz;
  }
  *np = n;
  return pages;
}

int main(int argc, char **argv)
{
  const char *root = NULL;
  int mode = 'f', opt;
  while ((opt = getopt(argc, argv, "r:sc")) != -1) {
    if (opt == 'r')
      root = optarg;
    else if (opt == 's' || opt == 'c')
      mode = opt;
    else
      return 2;
  }
  double min_s = optind < argc ? atof(argv[optind]) : 2.0;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  size_t n = 0, total = 0;
  char **paths = NULL;
  page_t *pages = read_pages(&n, &total, &paths);
  if (pages == NULL || n == 0) {
    fprintf(stderr, "links_bench: no files\n");
    return 1;
  }
  long links = 0;
  links_sink_t sink = { count_link, NULL, NULL, NULL, &links };
  int passes = 0;
  double t0 = now(), t;
  do {
    links = 0;
    for (size_t i = 0; i < n; i++)
      if (links_scan_html(pages[i].body, pages[i].len, NULL, &sink) < 0) {
        fprintf(stderr, "links_bench: out of memory\n");
        return 1;
      }
    passes++;
    t = now() - t0;
  } while (t < min_s && mode != 'c');
  double mb = total / 1e6;
  printf("files %zu MB %.1f links %ld passes %d MB/s %.1f ms/page %.4f\n", n,
         mb, links, passes, mb * passes / t, t * 1000 / (n * passes));
  int rc = 0;
  if (root != NULL)
    rc = page_urls(pages, paths, n, root) ||
         run_resolve(pages, n, strchr(root, '=') + 1, mode, min_s);
  for (size_t i = 0; i < n; i++) {
    free(pages[i].body);
    free(pages[i].url);
    free(paths[i]);
  }
  free(pages);
  free(paths);
  curl_global_cleanup();
  return rc;
}
