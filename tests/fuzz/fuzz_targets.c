/* fuzz_targets.c: the fuzz targets' entry functions, shared by the libFuzzer
 * drivers (tests/fuzz/fuzz_main.c, built by `make fuzz` with clang) and by
 * the regression replays (tests/unit/common/fuzz_regress_test.c and, for
 * the warc target, tests/unit/web/fuzz_regress_warc_test.c through
 * fuzz_replay.c; built in every normal, asan and tsan build), which
 * #include this file.
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
 *               no byte <= 0x20 or >= 0x7f, is a fixed point of
 *               url_normalize, and is in the scope of its own host as a
 *               domain (url_host_normalize, scope_contains).
 *   robots      robots_parse, robots_allowed, robots_crawl_delay: the input
 *               up to its first NUL is robots.txt; the lines after it, and
 *               the values of robots.txt's own lines, are paths to ask
 *               about. Checks that "/robots.txt" is always allowed.
 *   sitemap     sitemap_read of the input as a whole document (plain or
 *               gzip). Checks that every loc handed over is a non-empty
 *               NUL-terminated string of at most SITEMAP_MAX_LOC bytes
 *               without surrounding whitespace, that no more than
 *               SITEMAP_MAX_LOCS are, and that a refusal says why.
 *   pagedir     pagedir_load (and pagedir_load_head, which must agree)
 *               of the input written as page 1 in a private
 *               temporary directory. Checks that a loaded page's body is
 *               NUL-terminated and its depth in range.
 *   warc        (crawler layer: only with FUZZ_WITH_CRAWLER, see below)
 *               warc_open, warc_write_exchange, warc_close on a file in the
 *               private directory. Byte 0 holds flags (raw_truncated, which
 *               server address), then URL NUL request NUL head NUL body:
 *               the body is the rest, NULs included; a missing part is
 *               empty. Reads the file back with zlib and checks that it is
 *               one gzip member per record, each "WARC/1.1" CRLF, fields,
 *               CRLF, a block of exactly Content-Length bytes, CRLF CRLF,
 *               with the right WARC-Block-Digest (and Payload-Digest when
 *               not chunked), that the blocks are the request and the head
 *               and body unchanged, and that warc_records agrees.
 *
 * The common-layer targets build against libcommon and libcs50 alone;
 * defining FUZZ_WITH_CRAWLER before including this file adds the targets
 * that need web/ code (libengine): the libFuzzer drivers define it,
 * tests/unit/common/fuzz_regress_test.c does not (it links common/ only)
 * and tests/unit/web/fuzz_regress_warc_test.c does.
 *
 * fuzz_setup() must run once, single-threaded, before any entry function
 * (curl_global_init, xmlInitParser, a UTF-8 LC_CTYPE so that the IDN code
 * is reached, the pagedir and warc targets' directory); fuzz_teardown()
 * removes the directory. Not thread-safe: one input at a time. */
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
#include "scope.h"
#include "sitemap.h"
#include "url.h"

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

static char fuzz_dir[64]; /* the pagedir and warc targets' directory */
static volatile unsigned fuzz_sink_sum; /* keeps string reads alive */

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
  size_t calls, stop_at; /* stop_at 0: never stop */
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
    NULL,     "utf-8",    "ISO-8859-1", "windows-1252", "Shift_JIS",
    "utf-16", "UTF-16BE", "euc-jp",     "koi8-r",       "x-no-such-charset",
    "",       "gb18030",
  };
  const size_t ncs = sizeof(charsets) / sizeof(charsets[0]);
  size_t pick = size > 0 ? data[0] : 0;
  size_t stop = size > 1 ? data[1] % 8 : 0; /* 0: never */
  size_t skip = size < 2 ? size : 2;
  struct fuzz_links fl = { 0, stop };
  links_sink_t sink = {
    .link = fl_link,
    .base = fl_base,
    .meta_robots = fl_meta,
    .meta_agent = (pick & 0x80) ? "tse-crawler" : NULL,
    .arg = &fl,
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
    scope_t *s = scope_new(prefixes, 2, NULL, 0);
    if (s != NULL && !scope_contains(s, u)) {
      fprintf(stderr, "\"%s\" is not in its own default scope \"%s\"\n", u,
              scope);
      rc = -1;
    }
    scope_delete(s);
  }
  /* Nor outside the domain of its own host, as --domain reads it. */
  size_t hn;
  const char *h = url_host_normal(u, &hn);
  char *hc = h ? strndup(h, hn) : NULL;
  char *dom = hc ? url_host_normalize(hc) : NULL;
  if (dom != NULL) {
    const char *domains[] = { dom };
    scope_t *s = scope_new(NULL, 0, domains, 1);
    if (s != NULL && !scope_contains(s, u)) {
      fprintf(stderr, "\"%s\" is not in the domain of its host \"%s\"\n", u,
              dom);
      rc = -1;
    }
    scope_delete(s);
  }
  free(hc);
  free(dom);
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

/* ---------------------------------------------------------- sitemap */

struct sm_seen {
  long n;
  const char *bad;
};

static int sm_loc(void *arg, sitemap_kind_t kind, const char *loc)
{
  struct sm_seen *s = arg;
  size_t l = strlen(loc);
  s->n++;
  if (kind != SITEMAP_URLSET && kind != SITEMAP_INDEX)
    s->bad = "a loc of no kind";
  else if (l == 0 || l > SITEMAP_MAX_LOC)
    s->bad = "an empty or too long loc";
  else if (strchr(" \t\r\n", loc[0]) || strchr(" \t\r\n", loc[l - 1]))
    s->bad = "a loc with whitespace around it";
  return 0;
}

static int fuzz_sitemap(const uint8_t *data, size_t size)
{
  struct sm_seen s = { 0, NULL };
  char err[256] = "";
  int rc = sitemap_read((const char *)data, size, sm_loc, &s, err, sizeof(err));
  if (s.bad == NULL && s.n > SITEMAP_MAX_LOCS)
    s.bad = "more locs than SITEMAP_MAX_LOCS";
  if (s.bad == NULL && rc != 0 && err[0] == '\0')
    s.bad = "a refusal without a reason";
  if (s.bad != NULL) {
    fprintf(stderr, "sitemap: %s\n", s.bad);
    return -1;
  }
  return 0;
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
    "/",     "",           "/a",         "/a/b?c=d",      "/%7Efoo",
    "/~foo", "/foo%20bar", "/x*y$",      "/index.html",   "/%",
    "/%2",   "/%2a",       "/%E2%82%AC", "/\xe2\x82\xac",
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
    return 0; /* out of memory */
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
    if (page.url == NULL || page.body == NULL || page.body[page.len] != '\0' ||
        page.depth < 0 || page.len > size) {
      fprintf(stderr, "pagedir_load: malformed page struct\n");
      rc = -1;
    } else {
      touch(page.url);
      for (size_t i = 0; i < page.len; i++)
        fuzz_sink_sum += (unsigned char)page.body[i];
      /* The head alone agrees with the whole page (its URL line is read
       * up to 64 KiB). */
      char *url = NULL;
      int depth = -1;
      if (strlen(page.url) < 65535 &&
          (pagedir_load_head(fuzz_dir, 1, &url, &depth) != 0 ||
           strcmp(url, page.url) != 0 || depth != page.depth)) {
        fprintf(stderr, "pagedir_load_head disagrees with pagedir_load\n");
        rc = -1;
      }
      free(url);
    }
    pagedir_page_free(&page);
  }
  pagedir_page_free(NULL);
  unlink(path);
  return rc;
}

/* ------------------------------------------------------------- warc */

#ifdef FUZZ_WITH_CRAWLER
#include <openssl/evp.h>
#include <strings.h>
#include <zlib.h>

#include "warc.h"

/* fz_sha1_b32: "sha1:" + RFC 4648 base32 of the SHA-1 of DATA, written
 * independently of warc.c's (a bit accumulator, not byte pairs). */
static void fz_sha1_b32(const void *data, size_t len, char out[40])
{
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  EVP_Digest(data, len, md, &mdlen, EVP_sha1(), NULL);
  memcpy(out, "sha1:", 5);
  char *o = out + 5;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned i = 0; i < mdlen; i++) {
    acc = (acc << 8 | md[i]) & 0xfffff;
    bits += 8;
    while (bits >= 5) {
      *o++ = alphabet[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  *o = '\0';
}

/* find: the offset of NEEDLE (n bytes) in HAY[from..len), or len. */
static size_t find(const char *hay, size_t from, size_t len, const char *needle,
                   size_t n)
{
  for (size_t i = from; i + n <= len; i++)
    if (memcmp(hay + i, needle, n) == 0)
      return i;
  return len;
}

/* A record as read back: its named fields and its block. */
struct wrec {
  char type[32], id[64], concurrent[64], digest[64], payload[64];
  char *uri;         /* malloc'd, or NULL */
  int truncated;     /* WARC-Truncated fields seen */
  const char *block; /* inside the decompressed file */
  size_t len;
  size_t end; /* offset just past the record */
};

/* wrec_fields: parse the named-field lines of a record, FIELDS[0..n)
 * (each line CRLF-ended), into R. Returns NULL or what is wrong. */
static const char *wrec_fields(const char *fields, size_t n, struct wrec *r,
                               unsigned long long *clen)
{
  int ncl = 0, ndigest = 0;
  size_t i = 0;
  while (i < n) {
    size_t e = find(fields, i, n, "\r\n", 2);
    if (e == n)
      return "a field line does not end in CRLF";
    const char *line = fields + i;
    size_t ll = e - i;
    i = e + 2;
    if (memchr(line, '\n', ll) != NULL || memchr(line, '\r', ll) != NULL)
      return "a field line holds a bare CR or LF";
    const char *colon = memchr(line, ':', ll);
    if (colon == NULL || colon == line || colon + 1 >= line + ll ||
        colon[1] != ' ')
      return "a field line is not \"Name: value\"";
    size_t nl = (size_t)(colon - line);
    const char *v = colon + 2;
    size_t vl = ll - nl - 2;
    char *dst = NULL;
#define FIELD_IS(s) (nl == sizeof(s) - 1 && memcmp(line, s, nl) == 0)
    if (FIELD_IS("Content-Length")) {
      char num[32];
      if (vl == 0 || vl >= sizeof(num))
        return "Content-Length is not a decimal number";
      for (size_t k = 0; k < vl; k++)
        if (v[k] < '0' || v[k] > '9')
          return "Content-Length is not a decimal number";
      memcpy(num, v, vl);
      num[vl] = '\0';
      *clen = strtoull(num, NULL, 10);
      ncl++;
    } else if (FIELD_IS("WARC-Type")) {
      dst = r->type;
    } else if (FIELD_IS("WARC-Record-ID")) {
      dst = r->id;
    } else if (FIELD_IS("WARC-Concurrent-To")) {
      dst = r->concurrent;
    } else if (FIELD_IS("WARC-Block-Digest")) {
      dst = r->digest;
      ndigest++;
    } else if (FIELD_IS("WARC-Payload-Digest")) {
      dst = r->payload;
    } else if (FIELD_IS("WARC-Truncated")) {
      r->truncated++;
    } else if (FIELD_IS("WARC-Target-URI")) {
      if (r->uri != NULL)
        return "two WARC-Target-URI fields";
      r->uri = dup_n((const uint8_t *)v, vl);
      if (r->uri == NULL)
        return "out of memory";
    }
#undef FIELD_IS
    if (dst != NULL) {
      if (vl >= 64 || dst[0] != '\0')
        return "a WARC-Type, -Record-ID, -Concurrent-To or digest field is "
               "repeated or too long";
      memcpy(dst, v, vl);
      dst[vl] = '\0';
    }
  }
  if (ncl != 1)
    return "not exactly one Content-Length";
  if (ndigest != 1)
    return "not exactly one WARC-Block-Digest";
  if (r->type[0] == '\0' || r->id[0] == '\0')
    return "no WARC-Type or WARC-Record-ID";
  return NULL;
}

/* warc_parse: split D[0..n), the decompressed file, into at most MAX
 * records R. Returns NULL or what is wrong. */
static const char *warc_parse(const char *d, size_t n, struct wrec *r, int max,
                              int *nrec)
{
  size_t pos = 0;
  *nrec = 0;
  while (pos < n) {
    if (*nrec == max)
      return "more records than the exchange calls for";
    struct wrec *w = &r[(*nrec)++];
    if (n - pos < 10 || memcmp(d + pos, "WARC/1.1\r\n", 10) != 0)
      return "a record does not start with \"WARC/1.1\" CRLF";
    /* From the CRLF after the version: a record without fields ends
     * its (empty) field lines right there. */
    size_t f = pos + 10;
    size_t hend = find(d, pos + 8, n, "\r\n\r\n", 4);
    if (hend == n)
      return "a record's fields do not end in CRLF CRLF";
    unsigned long long clen = 0;
    const char *why = wrec_fields(d + f, hend + 2 - f, w, &clen);
    if (why != NULL)
      return why;
    size_t b = hend + 4;
    if (clen > n - b || n - b - clen < 4)
      return "a record's block is shorter than its Content-Length";
    w->block = d + b;
    w->len = (size_t)clen;
    if (memcmp(d + b + clen, "\r\n\r\n", 4) != 0)
      return "a record's block is not followed by CRLF CRLF";
    char digest[40];
    fz_sha1_b32(w->block, w->len, digest);
    if (strcmp(digest, w->digest) != 0)
      return "WARC-Block-Digest does not match the block";
    pos = b + clen + 4;
    w->end = pos;
  }
  return NULL;
}

/* gz_members: the decompressed end offset of each gzip member of the file
 * at PATH, in ENDS (at most MAX); -1 if it is not a series of complete
 * gzip members, else their count. */
static int gz_members(const char *path, size_t *ends, int max)
{
  size_t rawlen = 0;
  FILE *fp = fopen(path, "rb");
  if (fp == NULL)
    return -1;
  unsigned char *raw = NULL;
  size_t cap = 0;
  for (;;) {
    if (rawlen == cap) {
      cap = cap ? cap * 2 : 65536;
      unsigned char *q = realloc(raw, cap);
      if (q == NULL) {
        free(raw);
        fclose(fp);
        return -1;
      }
      raw = q;
    }
    size_t k = fread(raw + rawlen, 1, cap - rawlen, fp);
    rawlen += k;
    if (k == 0)
      break;
  }
  fclose(fp);
  int count = 0;
  size_t total = 0, used = 0;
  unsigned char out[16384];
  while (used < rawlen && count >= 0) {
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
      count = -1;
      break;
    }
    z.next_in = raw + used;
    z.avail_in = (uInt)(rawlen - used);
    int rc;
    do {
      z.next_out = out;
      z.avail_out = sizeof(out);
      rc = inflate(&z, Z_NO_FLUSH);
      total += sizeof(out) - z.avail_out;
    } while (rc == Z_OK);
    used = rawlen - z.avail_in;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || count == max)
      count = -1;
    else
      ends[count++] = total;
  }
  free(raw);
  return count;
}

/* gz_slurp: the whole decompressed file through gzread; NULL on error. */
static char *gz_slurp(const char *path, size_t *len)
{
  gzFile gz = gzopen(path, "rb");
  if (gz == NULL)
    return NULL;
  char *d = NULL;
  size_t n = 0, cap = 0;
  int k;
  do {
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 65536;
      char *q = realloc(d, cap);
      if (q == NULL) {
        free(d);
        gzclose(gz);
        return NULL;
      }
      d = q;
    }
    k = gzread(gz, d + n, 65536);
    if (k > 0)
      n += (size_t)k;
  } while (k > 0);
  /* gzclose_r reports a stream cut short (Z_BUF_ERROR). */
  if (gzclose(gz) != Z_OK || k < 0) {
    free(d);
    return NULL;
  }
  *len = n;
  return d;
}

static int fuzz_warc(const uint8_t *data, size_t size)
{
  static const char *const ips[] = { "", "127.0.0.1", "::1", "10.0.0.1" };
  char path[96];
  snprintf(path, sizeof(path), "%s/w.warc.gz", fuzz_dir);
  unlink(path); /* warc_open appends */
  unsigned flags = size > 0 ? data[0] : 0;
  const uint8_t *p = size > 0 ? data + 1 : data, *end = data + size;
  /* URL, request and head end at a NUL; the body is the rest. */
  const uint8_t *part[3];
  size_t plen[3];
  for (int i = 0; i < 3; i++) {
    const uint8_t *z = memchr(p, '\0', (size_t)(end - p));
    part[i] = p;
    plen[i] = z ? (size_t)(z - p) : (size_t)(end - p);
    p = z ? z + 1 : end;
  }
  /* The crawler hands warc.c normal forms, which hold no byte <= 0x20 or
   * >= 0x7f (the url target checks that): make the URL one. */
  char *url = dup_n(part[0], plen[0]);
  if (url == NULL)
    return 0;
  for (char *c = url; *c; c++)
    if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
      *c = '_';
  /* Exact-size, unterminated copies: fetch.h promises no terminator for
   * the raw buffers, so reads past their ends must be caught. */
  fetch_result_t res;
  memset(&res, 0, sizeof(res));
  size_t blen = (size_t)(end - p);
  char *bufs[3] = { NULL, NULL, NULL };
  const uint8_t *src[3] = { part[1], part[2], p };
  size_t lens[3] = { plen[1], plen[2], blen };
  bool nomem = false;
  for (int i = 0; i < 3; i++)
    if (lens[i] > 0) {
      bufs[i] = malloc(lens[i]);
      if (bufs[i] == NULL)
        nomem = true;
      else
        memcpy(bufs[i], src[i], lens[i]);
    }
  res.raw_request = bufs[0];
  res.raw_request_len = lens[0];
  res.raw_head = bufs[1];
  res.raw_head_len = lens[1];
  res.raw_body = bufs[2];
  res.raw_body_len = lens[2];
  res.raw_truncated = flags & 1;
  snprintf(res.ip, sizeof(res.ip), "%s", ips[(flags >> 1) & 3]);

  const char *why = NULL;
  char *d = NULL;
  struct wrec r[4];
  memset(r, 0, sizeof(r));
  int nrec = 0;
  warc_t *w = nomem ? NULL : warc_open(path, "fuzz/1.0", "fuzz-agent/1.0");
  if (nomem) {
    goto out;
  } else if (w == NULL) {
    why = "warc_open failed";
    goto out;
  }
  if (warc_write_exchange(w, url, &res) != 0)
    why = "warc_write_exchange failed";
  long nw = warc_records(w);
  if (warc_close(w) != 0 && why == NULL)
    why = "warc_close failed";
  if (why != NULL)
    goto out;
  int want = res.raw_head_len == 0 ? 1 : 3;
  size_t dlen = 0;
  d = gz_slurp(path, &dlen);
  if (d == NULL) {
    why = "gzread cannot read the file back";
    goto out;
  }
  why = warc_parse(d, dlen, r, 4, &nrec);
  if (why != NULL)
    goto out;
  size_t ends[4];
  int members = gz_members(path, ends, 4);
  if (nrec != want || nw != want)
    why = "not as many records as the exchange calls for";
  else if (members != nrec)
    why = "not one gzip member per record";
  for (int i = 0; why == NULL && i < nrec; i++)
    if (ends[i] != r[i].end)
      why = "a gzip member does not hold exactly one record";
  if (why != NULL)
    goto out;
  if (strcmp(r[0].type, "warcinfo") != 0)
    why = "the first record is not warcinfo";
  if (why != NULL || nrec == 1)
    goto out;
  struct wrec *q = &r[1], *s = &r[2];
  char digest[40];
  if (strcmp(q->type, "request") != 0 || strcmp(s->type, "response") != 0)
    why = "records are not warcinfo, request, response";
  else if (q->len != lens[0] ||
           (q->len && memcmp(q->block, bufs[0], q->len) != 0))
    why = "the request block is not the request as sent";
  else if (s->len != lens[1] + lens[2] ||
           memcmp(s->block, bufs[1], lens[1]) != 0 ||
           (lens[2] && memcmp(s->block + lens[1], bufs[2], lens[2]) != 0))
    why = "the response block is not the head and body as received";
  else if (q->uri == NULL || strcmp(q->uri, url) != 0 || s->uri == NULL ||
           strcmp(s->uri, url) != 0)
    why = "WARC-Target-URI is not the URL";
  else if (strcmp(q->concurrent, s->id) != 0 ||
           strcmp(s->concurrent, q->id) != 0 || strcmp(q->id, s->id) == 0)
    why = "request and response are not linked by WARC-Concurrent-To";
  else if (s->truncated != (res.raw_truncated ? 1 : 0) || q->truncated)
    why = "WARC-Truncated does not say whether the body was cut";
  else if (strncmp(s->payload, "sha1:", 5) != 0 || strlen(s->payload) != 37)
    why = "WARC-Payload-Digest missing or malformed";
  if (why == NULL) {
    /* Not chunked (no "chunked" anywhere in the head): the payload is the
     * body as received. */
    bool chunked = false;
    for (size_t i = 0; i + 7 <= lens[1] && !chunked; i++)
      chunked = strncasecmp(bufs[1] + i, "chunked", 7) == 0;
    fz_sha1_b32(bufs[2] ? bufs[2] : "", lens[2], digest);
    if (!chunked && strcmp(digest, s->payload) != 0)
      why = "WARC-Payload-Digest is not the body's digest";
  }
out:
  if (why != NULL)
    fprintf(stderr,
            "warc: %s (url \"%s\", request %zu, head %zu, body %zu "
            "bytes, %d records read)\n",
            why, url, lens[0], lens[1], lens[2], nrec);
  for (int i = 0; i < 4; i++)
    free(r[i].uri);
  free(d);
  for (int i = 0; i < 3; i++)
    free(bufs[i]);
  free(url);
  unlink(path);
  return why ? -1 : 0;
}
#endif /* FUZZ_WITH_CRAWLER */

/* ------------------------------------------------------------ setup */

static const struct fuzz_target {
  const char *name;
  fuzz_fn fn;
} fuzz_targets[] = {
  { "links_html", fuzz_links_html },
  { "links_text", fuzz_links_text },
  { "url", fuzz_url },
  { "robots", fuzz_robots },
  { "sitemap", fuzz_sitemap },
  { "pagedir", fuzz_pagedir },
#ifdef FUZZ_WITH_CRAWLER
  { "warc", fuzz_warc },
#endif
};

static void fuzz_teardown(void)
{
  if (fuzz_dir[0] == '\0')
    return;
  char path[96];
  snprintf(path, sizeof(path), "%s/1", fuzz_dir);
  unlink(path);
  snprintf(path, sizeof(path), "%s/w.warc.gz", fuzz_dir);
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
