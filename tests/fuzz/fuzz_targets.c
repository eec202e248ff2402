/* fuzz_targets.c: the fuzz targets' entry functions, shared by the libFuzzer
 * drivers (tests/fuzz/fuzz_main.c, built by `make fuzz` with clang) and by
 * the regression replay (tests/unit/common/fuzz_regress_test.c, built in
 * every normal, asan and tsan build), which #include this file.
 *
 * Each entry function takes one input (data, size: any bytes) and returns 0,
 * or -1 after printing on stderr which invariant the input broke. Memory
 * errors are the sanitizers' to find. Entry points:
 *
 *   links_html  links_scan_html: byte 0 picks the charset passed (or none)
 *               and byte 1 when the sink stops the scan; the rest is the
 *               page. The sink reads every byte of every string.
 *   links_text  links_scan_text: byte 0 picks when the sink stops; the rest
 *               is the page.
 *   url         url_resolve, url_resolve_normalized, url_normalize and the
 *               helpers: the input is split at its first NUL or newline into
 *               base and href (no separator: no base). Checks that every
 *               normal form is at most URL_MAX_LEN bytes, is http(s), holds
 *               no byte <= 0x20 or >= 0x7f, and is a fixed point of
 *               url_normalize.
 *   robots      robots_parse, robots_allowed, robots_crawl_delay: the input
 *               up to its first NUL is robots.txt; the lines after it, and
 *               the values of robots.txt's own lines, are paths to ask
 *               about. Checks that "/robots.txt" is always allowed.
 *   pagedir     pagedir_load of the input written as page 1 in a private
 *               temporary directory. Checks that a loaded page's body is
 *               NUL-terminated and its depth in range.
 *
 * fuzz_setup() must run once, single-threaded, before any entry function
 * (curl_global_init, xmlInitParser, a UTF-8 LC_CTYPE so that the IDN code
 * is reached, the pagedir target's directory); fuzz_teardown() removes the
 * directory. Not thread-safe: one input at a time. */
#include <curl/curl.h>
#include <dirent.h>
#include <libxml/parser.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "links.h"
#include "pagedir.h"
#include "robots.h"
#include "url.h"

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

static char fuzz_dir[64];        /* the pagedir target's directory */
static volatile unsigned fuzz_sink_sum;  /* keeps string reads alive */

/* dup_n: data[0..n) as a malloc'd NUL-terminated string of exactly n + 1
 * bytes, so that ASan sees any read past the terminator. */
static char *dup_n(const uint8_t *data, size_t n)
{
  char *s = malloc(n + 1);
  if (s == NULL)
    return NULL;
  if (n > 0)
    memcpy(s, data, n);
  s[n] = '\0';
  return s;
}

/* ------------------------------------------------------------ links */

struct fuzz_links {
  size_t calls, stop_at;  /* stop_at 0: never stop */
};

static void touch(const char *s)
{
  unsigned sum = 0;
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++)
    sum += (unsigned char)s[i];
  fuzz_sink_sum += sum + (unsigned)n;
}

static int fl_step(struct fuzz_links *fl)
{
  fl->calls++;
  return fl->stop_at != 0 && fl->calls >= fl->stop_at;
}

static int fl_link(void *arg, const char *href, int flags)
{
  touch(href);
  fuzz_sink_sum += (unsigned)flags;
  return fl_step(arg);
}

static int fl_base(void *arg, const char *href)
{
  touch(href);
  return fl_step(arg);
}

static int fl_meta(void *arg, const char *name, const char *content)
{
  touch(name);
  touch(content);
  return fl_step(arg);
}

static int fuzz_links_html(const uint8_t *data, size_t size)
{
  static const char *const charsets[] = {
    NULL, "utf-8", "ISO-8859-1", "windows-1252", "Shift_JIS", "utf-16",
    "UTF-16BE", "euc-jp", "koi8-r", "x-no-such-charset", "", "gb18030",
  };
  const size_t ncs = sizeof(charsets) / sizeof(charsets[0]);
  size_t pick = size > 0 ? data[0] : 0;
  size_t stop = size > 1 ? data[1] % 8 : 0;   /* 0: never */
  size_t skip = size < 2 ? size : 2;
  struct fuzz_links fl = { 0, stop };
  links_sink_t sink = {
    .link = fl_link, .base = fl_base, .meta_robots = fl_meta,
    .meta_agent = (pick & 0x80) ? "tse-crawler" : NULL, .arg = &fl,
  };
  /* An exact-size copy: reads past the page's end are caught. */
  char *body = size - skip > 0 ? (char *)dup_n(data + skip, size - skip) : NULL;
  int rc = links_scan_html(body, size - skip, charsets[pick % ncs], &sink);
  free(body);
  if (rc != LINKS_OK && rc != LINKS_STOPPED && rc != LINKS_ENOMEM) {
    fprintf(stderr, "links_scan_html returned %d\n", rc);
    return -1;
  }
  if (rc == LINKS_STOPPED && stop == 0) {
    fprintf(stderr, "links_scan_html stopped with a sink that never stops\n");
    return -1;
  }
  return 0;
}

static int fuzz_links_text(const uint8_t *data, size_t size)
{
  size_t stop = size > 0 ? data[0] % 8 : 0;
  size_t skip = size < 1 ? size : 1;
  struct fuzz_links fl = { 0, stop };
  links_sink_t sink = { .link = fl_link, .arg = &fl };
  /* links_scan_text takes (body, len): give it an unterminated copy. */
  char *body = NULL;
  if (size - skip > 0) {
    body = malloc(size - skip);
    if (body == NULL)
      return 0;
    memcpy(body, data + skip, size - skip);
  }
  int rc = links_scan_text(body, size - skip, &sink);
  free(body);
  if (rc != LINKS_OK && rc != LINKS_STOPPED && rc != LINKS_ENOMEM) {
    fprintf(stderr, "links_scan_text returned %d\n", rc);
    return -1;
  }
  if (rc == LINKS_STOPPED && stop == 0) {
    fprintf(stderr, "links_scan_text stopped with a sink that never stops\n");
    return -1;
  }
  return 0;
}

/* -------------------------------------------------------------- url */

/* check_normal: u (may be NULL) must be in normal form. WHAT and the
 * inputs name the call in the message. */
static int check_normal(const char *what, const char *base, const char *href,
                        const char *u)
{
  if (u == NULL)
    return 0;
  const char *why = NULL;
  size_t n = strlen(u);
  if (n > URL_MAX_LEN)
    why = "longer than URL_MAX_LEN";
  else if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
    why = "not http(s)";
  for (size_t i = 0; why == NULL && i < n; i++)
    if ((unsigned char)u[i] <= 0x20 || (unsigned char)u[i] >= 0x7f)
      why = "holds a byte <= 0x20 or >= 0x7f";
  char *again = NULL;
  if (why == NULL) {
    again = url_normalize(u);
    if (again == NULL)
      why = "url_normalize rejects its own normal form";
    else if (strcmp(again, u) != 0)
      why = "url_normalize is not idempotent";
  }
  if (why != NULL)
    fprintf(stderr, "%s(base \"%s\", href \"%s\") = \"%s\": %s%s%s\n", what,
            base ? base : "(null)", href ? href : "(null)", u, why,
            again ? "; again: " : "", again ? again : "");
  free(again);
  return why ? -1 : 0;
}

static int url_extras(const char *u)
{
  /* The helpers the crawler applies to normal forms; results unchecked
   * beyond sanity. */
  if (u == NULL)
    return 0;
  int rc = 0;
  char *key = url_host_key(u);
  char *scope = url_scope_default(u);
  /* The default scope is "scheme://host[:port]/", without userinfo, so
   * only a URL without userinfo must be inside its own. */
  const char *auth = strstr(u, "://");
  size_t alen = auth ? strcspn(auth + 3, "/") : 0;
  bool userinfo = auth && memchr(auth + 3, '@', alen) != NULL;
  if (scope != NULL && !userinfo) {
    const char *prefixes[] = { scope, NULL };
    if (!url_in_scope(u, prefixes, 2)) {
      fprintf(stderr, "\"%s\" is not in its own default scope \"%s\"\n", u,
              scope);
      rc = -1;
    }
  }
  fuzz_sink_sum += url_is_nonpage(u) + url_is_http(u);
  if (key != NULL)
    touch(key);
  free(key);
  free(scope);
  return rc;
}

static int fuzz_url(const uint8_t *data, size_t size)
{
  size_t cut = 0;
  while (cut < size && data[cut] != '\0' && data[cut] != '\n')
    cut++;
  char *base = NULL, *href;
  if (cut < size) {
    base = dup_n(data, cut);
    href = dup_n(data + cut + 1, size - cut - 1);
  } else {
    href = dup_n(data, size);
  }
  if (href == NULL || (cut < size && base == NULL)) {
    free(base);
    free(href);
    return 0;
  }
  int rc = 0;
  char *r = url_resolve(base, href);
  if (r != NULL && strlen(r) > URL_MAX_LEN) {
    fprintf(stderr, "url_resolve result longer than URL_MAX_LEN\n");
    rc = -1;
  }
  char *rn = url_resolve_normalized(base, href);
  char *nh = url_normalize(href);
  char *nb = base ? url_normalize(base) : NULL;
  char *nr = r ? url_normalize(r) : NULL;
  if (check_normal("url_resolve_normalized", base, href, rn) != 0 ||
      check_normal("url_normalize", NULL, href, nh) != 0 ||
      check_normal("url_normalize", NULL, base, nb) != 0 ||
      check_normal("url_normalize(url_resolve)", base, href, nr) != 0 ||
      url_extras(rn) != 0 || url_extras(nh) != 0)
    rc = -1;
  /* Resolving against a normalised base is what the crawler does. */
  if (nb != NULL) {
    char *rnb = url_resolve_normalized(nb, href);
    if (check_normal("url_resolve_normalized", nb, href, rnb) != 0)
      rc = -1;
    free(rnb);
  }
  free(r);
  free(rn);
  free(nh);
  free(nb);
  free(nr);
  free(base);
  free(href);
  return rc;
}

/* ----------------------------------------------------------- robots */

static int ask(const robots_t *r, const char *path)
{
  bool ok = robots_allowed(r, path);
  fuzz_sink_sum += ok;
  return 0;
}

static int fuzz_robots(const uint8_t *data, size_t size)
{
  static const char *const fixed[] = {
    "/", "", "/a", "/a/b?c=d", "/%7Efoo", "/~foo", "/foo%20bar", "/x*y$",
    "/index.html", "/%", "/%2", "/%2a", "/%E2%82%AC", "/\xe2\x82\xac",
  };
  size_t cut = 0;
  while (cut < size && data[cut] != '\0')
    cut++;
  /* An exact-size, unterminated copy: robots_parse takes (txt, len). */
  char *txt = cut ? malloc(cut) : NULL;
  if (cut && txt == NULL)
    return 0;
  if (cut)
    memcpy(txt, data, cut);
  const char *token = (size & 1) ? "tse-crawler/1.0 (+x)" : "*";
  robots_t *r = robots_parse(txt, cut, token);
  int rc = 0;
  if (r == NULL) {
    free(txt);
    return 0;  /* out of memory */
  }
  if (!robots_allowed(r, "/robots.txt") ||
      !robots_allowed(r, "/robots.txt?x=1")) {
    fprintf(stderr, "/robots.txt is disallowed\n");
    rc = -1;
  }
  double d = robots_crawl_delay(r);
  if (!(d == -1 || d >= 0)) {
    fprintf(stderr, "robots_crawl_delay returned %g\n", d);
    rc = -1;
  }
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
    ask(r, fixed[i]);
  ask(r, NULL);
  /* Paths after the NUL, one a line; else the values of robots.txt's own
   * lines (what follows each ':'), which hit the patterns' edge cases. */
  const uint8_t *p = cut < size ? data + cut + 1 : data;
  const uint8_t *end = data + size;
  int asked = 0;
  while (p < end && asked < 64) {
    const uint8_t *nl = p;
    while (nl < end && *nl != '\n' && *nl != '\r' && *nl != '\0')
      nl++;
    const uint8_t *v = p;
    if (cut == size) {
      while (v < nl && *v != ':')
        v++;
      v = v < nl ? v + 1 : p;
      while (v < nl && (*v == ' ' || *v == '\t'))
        v++;
    }
    char *path = dup_n(v, (size_t)(nl - v));
    if (path != NULL)
      ask(r, path);
    free(path);
    asked++;
    p = nl + 1;
  }
  robots_delete(r);
  free(txt);
  return rc;
}

/* ---------------------------------------------------------- pagedir */

static int fuzz_pagedir(const uint8_t *data, size_t size)
{
  char path[96];
  snprintf(path, sizeof(path), "%s/1", fuzz_dir);
  FILE *fp = fopen(path, "wb");
  if (fp == NULL) {
    perror(path);
    return -1;
  }
  bool bad = size > 0 && fwrite(data, 1, size, fp) != size;
  if (fclose(fp) != 0 || bad) {
    perror(path);
    return -1;
  }
  pagedir_page_t page;
  int rc = 0;
  if (pagedir_load(fuzz_dir, 1, &page) == 0) {
    if (page.url == NULL || page.body == NULL || page.body[page.len] != '\0'
        || page.depth < 0 || page.len > size) {
      fprintf(stderr, "pagedir_load: malformed page struct\n");
      rc = -1;
    } else {
      touch(page.url);
      for (size_t i = 0; i < page.len; i++)
        fuzz_sink_sum += (unsigned char)page.body[i];
    }
    pagedir_page_free(&page);
  }
  pagedir_page_free(NULL);
  unlink(path);
  return rc;
}

/* ------------------------------------------------------------ setup */

static const struct fuzz_target {
  const char *name;
  fuzz_fn fn;
} fuzz_targets[] = {
  { "links_html", fuzz_links_html },
  { "links_text", fuzz_links_text },
  { "url", fuzz_url },
  { "robots", fuzz_robots },
  { "pagedir", fuzz_pagedir },
};

static void fuzz_teardown(void)
{
  if (fuzz_dir[0] == '\0')
    return;
  char path[96];
  snprintf(path, sizeof(path), "%s/1", fuzz_dir);
  unlink(path);
  rmdir(fuzz_dir);
  fuzz_dir[0] = '\0';
}

static int fuzz_setup(void)
{
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    fprintf(stderr, "fuzz: curl_global_init failed\n");
    return -1;
  }
  xmlInitParser();
  if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
    setlocale(LC_CTYPE, "");
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 40)
    tmp = "/tmp";
  snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/tse-fuzz.XXXXXX", tmp);
  if (mkdtemp(fuzz_dir) == NULL) {
    perror("fuzz: mkdtemp");
    fuzz_dir[0] = '\0';
    return -1;
  }
  return 0;
}
