/* pagedir_test.c: unit tests for common/pagedir's marker: written from a
 * pagedir_params_t, read whole, compared line for line, in the format the
 * golden samples (pageDirectory-samples/) and older page directories hold.
 * TOP comes from the environment (tests/run.sh), else ".". */
#include "pagedir.h"

#include "../../testdir.h"
#include "../../testhelp.h"
#include "file.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *top(void)
{
  const char *t = getenv("TOP");
  return t != NULL && *t != '\0' ? t : ".";
}

/* fresh_dir, remove_dir: a new empty directory, and away with it. */
static char *fresh_dir(void)
{
  return testdir_new("pagedir_test");
}

static void remove_dir(char *dir)
{
  testdir_remove(dir);
}

/* put: write TEXT as DIR/NAME. */
static void put(const char *dir, const char *name, const char *text)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *fp = fopen(path, "w");
  if (fp == NULL || fputs(text, fp) == EOF || fclose(fp) != 0) {
    fprintf(stderr, "cannot write '%s'\n", path);
    exit(1);
  }
}

/* slurp: DIR/NAME whole, owned (free()), or NULL. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *fp = fopen(path, "r");
  if (fp == NULL)
    return NULL;
  char *buf = malloc(1 << 16);
  size_t n = buf ? fread(buf, 1, (1 << 16) - 1, fp) : 0;
  fclose(fp);
  if (buf != NULL)
    buf[n] = '\0';
  *len = n;
  return buf;
}

static const char *const two_scopes[] = { "http://h.example/a/",
                                          "https://h.example/" };

static pagedir_params_t sample_params(void)
{
  pagedir_params_t p = {
    .seed = "http://h.example/a/index.html",
    .max_depth = 2,
    .scope = two_scopes,
    .nscope = 2,
    .format = "link",
    .max_pages = 10,
    .max_pages_per_host = 3,
    .max_page_size = 4096,
    .compress = true,
  };
  return p;
}

static void test_init_writes_the_format(void)
{
  char *dir = fresh_dir();
  pagedir_params_t p = sample_params();
  char err[256] = "";
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  size_t len = 0;
  char *text = slurp(dir, PAGEDIR_MARKER, &len);
  CHECK_STR(text, "tse-crawler pagedir 1\n"
                  "seed: http://h.example/a/index.html\n"
                  "maxDepth: 2\n"
                  "scope: http://h.example/a/\n"
                  "scope: https://h.example/\n"
                  "format: link\n"
                  "maxPages: 10\n"
                  "maxPagesPerHost: 3\n"
                  "maxPageSize: 4096\n"
                  "compress: yes\n");
  free(text);
  char *lines = pagedir_marker_read(dir);
  CHECK(lines != NULL && strncmp(lines, "seed: http://h", 14) == 0);
  free(lines);
  CHECK_INT(pagedir_count(dir), 0);
  CHECK_INT(pagedir_validate(dir, err, sizeof(err)), 0);
  /* A second init finds the marker. */
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), -1);
  CHECK(strstr(err, "already holds a crawl") != NULL);
  remove_dir(dir);
}

/* Parameters a marker could not hold (over PAGEDIR_MARKER_MAX, which
 * pagedir_marker_read refuses): refused, nothing written. And the
 * sitemaps, regex and extra seed lines, where pagedir.h puts them. */
static void test_init_marker_limits(void)
{
  char *dir = fresh_dir();
  char err[256] = "";
  size_t n = 9000, len = 2000;
  char **seeds = malloc(n * sizeof(char *));
  for (size_t i = 0; i < n; i++) {
    seeds[i] = malloc(len + 1);
    memset(seeds[i], 'a', len);
    snprintf(seeds[i], 32, "http://h.example/%zu/", i);
    seeds[i][strlen(seeds[i])] = 'a';
    seeds[i][len] = '\0';
  }
  pagedir_params_t p = sample_params();
  p.seeds = (const char *const *)seeds;
  p.nseeds = n;
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), -1);
  CHECK(strstr(err, "more than a marker may hold") != NULL);
  CHECK_INT(pagedir_count(dir), -1); /* no marker */
  p.nseeds = 1;
  const char *acc[] = { "a|b" }, *rej[] = { "[?]C=" };
  p.accept = acc;
  p.naccept = 1;
  p.reject = rej;
  p.nreject = 1;
  p.sitemaps = true;
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  char *lines = pagedir_marker_read(dir);
  CHECK(lines != NULL && strstr(lines, "seed: http://h.example/a/index.html\n"
                                       "seed: http://h.example/0/") == lines);
  CHECK(strstr(lines, "sitemaps: yes\nacceptRegex: a|b\n"
                      "rejectRegex: [?]C=\n") != NULL);
  free(lines);
  for (size_t i = 0; i < n; i++)
    free(seeds[i]);
  free(seeds);
  remove_dir(dir);
}

static void test_init_without_params(void)
{
  char *dir = fresh_dir();
  char err[256] = "";
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  size_t len = 0;
  char *text = slurp(dir, PAGEDIR_MARKER, &len);
  CHECK_STR(text, "tse-crawler pagedir 1\n");
  free(text);
  char *lines = pagedir_marker_read(dir);
  CHECK_STR(lines, "");
  free(lines);
  CHECK(pagedir_param(dir, "seed") == NULL);
  remove_dir(dir);
}

static void test_init_refuses(void)
{
  char err[256] = "";
  char *dir = fresh_dir();
  put(dir, "1", "x\n");
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), -1);
  CHECK(strstr(err, "already holds a crawl") != NULL);
  char file[4200];
  snprintf(file, sizeof(file), "%s/1", dir);
  CHECK_INT(pagedir_init(file, NULL, err, sizeof(err)), -1);
  CHECK(strstr(err, "is not a directory") != NULL);
  remove_dir(dir);
}

/* first_diff: DIR's marker and P differ, first at the lines HAD (as
 * recorded) and WANT (as P gives it); says what it got if not. */
static bool first_diff(const char *dir, const pagedir_params_t *p,
                       const char *had, const char *want)
{
  char *h = NULL, *w = NULL;
  int rc = pagedir_marker_compare(dir, p, &h, &w);
  bool ok = rc == 1 && h != NULL && w != NULL && strcmp(h, had) == 0 &&
            strcmp(w, want) == 0;
  if (!ok)
    fprintf(stderr, "compare gave %d, '%s' and '%s'; want '%s' and '%s'\n", rc,
            h ? h : "(null)", w ? w : "(null)", had, want);
  free(h);
  free(w);
  return ok;
}

static void test_compare(void)
{
  char *dir = fresh_dir();
  pagedir_params_t p = sample_params();
  char err[256] = "", *had = NULL, *want = NULL;
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  CHECK(had == NULL && want == NULL);

  pagedir_params_t q = p;
  q.max_depth = 3;
  CHECK(first_diff(dir, &q, "maxDepth: 2", "maxDepth: 3"));
  q = p;
  q.nscope = 1; /* one line fewer: the next lines shift */
  CHECK(first_diff(dir, &q, "scope: https://h.example/", "format: link"));
  q = p;
  q.compress = false;
  CHECK(first_diff(dir, &q, "compress: yes", "compress: no"));

  /* A recorded line the command does not give: "" stands for it. */
  size_t len = 0;
  char *text = slurp(dir, PAGEDIR_MARKER, &len);
  char *more = malloc(len + 32);
  snprintf(more, len + 32, "%sfuture: 1\n", text);
  put(dir, PAGEDIR_MARKER, more);
  CHECK(first_diff(dir, &p, "future: 1", ""));

  /* As before: no final newline, or empty lines at the end, are alike. */
  text[len - 1] = '\0';
  put(dir, PAGEDIR_MARKER, text);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  snprintf(more, len + 32, "%s\n\n\n", text);
  put(dir, PAGEDIR_MARKER, more);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  free(more);
  free(text);
  remove_dir(dir);
}

/* Domains: a line each after the scope lines; a change is seen like a
 * changed scope, and a marker without them (every marker written before
 * they existed) compares equal to parameters without them. */
static void test_domains(void)
{
  static const char *const domains[] = { "example.edu", "127.0.0.2" };
  char *dir = fresh_dir();
  pagedir_params_t p = sample_params();
  p.domain = domains;
  p.ndomain = 2;
  char err[256] = "", *had = NULL, *want = NULL;
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  size_t len = 0;
  char *text = slurp(dir, PAGEDIR_MARKER, &len);
  CHECK(text != NULL && strstr(text, "\nscope: https://h.example/\n"
                                     "domain: example.edu\n"
                                     "domain: 127.0.0.2\n"
                                     "format: link\n") != NULL);
  free(text);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  char *v = pagedir_param(dir, "domain");
  CHECK_STR(v, "example.edu");
  free(v);
  pagedir_params_t q = p;
  static const char *const other[] = { "example.edu", "127.0.0.3" };
  q.domain = other;
  CHECK(first_diff(dir, &q, "domain: 127.0.0.2", "domain: 127.0.0.3"));
  q.ndomain = 0;
  CHECK(first_diff(dir, &q, "domain: example.edu", "format: link"));
  q = p;
  q.nscope = 0; /* domains alone */
  CHECK(first_diff(dir, &q, "scope: http://h.example/a/",
                   "domain: example.edu"));
  remove_dir(dir);

  /* No domains: the bytes of before. */
  dir = fresh_dir();
  p = sample_params();
  p.domain = domains; /* not read: NDOMAIN is 0 */
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  p.domain = NULL;
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  text = slurp(dir, PAGEDIR_MARKER, &len);
  CHECK(text != NULL && strstr(text, "domain") == NULL);
  free(text);
  remove_dir(dir);
}

static void test_unreadable_markers(void)
{
  char *dir = fresh_dir();
  char *had = NULL, *want = NULL;
  pagedir_params_t p = sample_params();
  errno = 0;
  CHECK(pagedir_marker_read(dir) == NULL);
  CHECK_INT(errno, ENOENT);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), -1);
  CHECK_INT(errno, ENOENT);
  CHECK(had == NULL && want == NULL);
  CHECK_INT(pagedir_count(dir), -1);

  static const char *const bad[] = {
    "",
    "tse-crawler pagedir 1",
    "tse-crawler pagedir 2\nseed: x\n",
    "tse-crawler pagedir 1 \n",
    "\ntse-crawler pagedir 1\n",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    put(dir, PAGEDIR_MARKER, bad[i]);
    errno = 0;
    char *lines = pagedir_marker_read(dir);
    CHECK(lines == NULL);
    CHECK_INT(errno, EINVAL);
    free(lines);
    CHECK_INT(pagedir_count(dir), -1);
    CHECK(pagedir_param(dir, "seed") == NULL);
    CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), -1);
  }
  remove_dir(dir);
}

/* A marker that is no regular file (a FIFO, a link to a device) is no
 * marker: refused at once, not waited on or read without end. */
static void test_special_markers(void)
{
  alarm(10); /* a wait on the FIFO ends the test, failed */
  char *dir = fresh_dir();
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", dir, PAGEDIR_MARKER);
  CHECK_INT(mkfifo(path, 0600), 0);
  errno = 0;
  CHECK(pagedir_marker_read(dir) == NULL);
  CHECK_INT(errno, EINVAL);
  CHECK_INT(pagedir_count(dir), -1);
  unlink(path);
  CHECK_INT(symlink("/dev/zero", path), 0);
  errno = 0;
  CHECK(pagedir_marker_read(dir) == NULL);
  CHECK_INT(errno, EINVAL);
  remove_dir(dir);
  alarm(0);
}

static void test_param(void)
{
  char *dir = fresh_dir();
  pagedir_params_t p = sample_params();
  char err[256] = "";
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  char *v;
  CHECK_STR(v = pagedir_param(dir, "maxDepth"), "2");
  free(v);
  CHECK_STR(v = pagedir_param(dir, "scope"), "http://h.example/a/");
  free(v);
  CHECK_STR(v = pagedir_param(dir, "compress"), "yes");
  free(v);
  CHECK(pagedir_param(dir, "max") == NULL);
  CHECK(pagedir_param(dir, "maxPage") == NULL);
  CHECK(pagedir_param(dir, "nope") == NULL);
  put(dir, PAGEDIR_MARKER, "tse-crawler pagedir 1\nempty: \nlast: x");
  CHECK_STR(v = pagedir_param(dir, "empty"), "");
  free(v);
  CHECK_STR(v = pagedir_param(dir, "last"), "x");
  free(v);
  remove_dir(dir);
}

/* 64 scopes of 160 bytes: a marker of about 11 KiB, past the 8 KiB the
 * resume check once read, must come back whole and compare equal. */
static void test_big_marker(void)
{
  enum { N = 64 };
  char scope[N][192];
  const char *scopes[N];
  for (int i = 0; i < N; i++) {
    snprintf(scope[i], sizeof(scope[i]), "http://127.0.0.1:9/%0150d/%d/", 0, i);
    scopes[i] = scope[i];
  }
  pagedir_params_t p = sample_params();
  p.scope = scopes;
  p.nscope = N;
  char *dir = fresh_dir();
  char err[256] = "", *had = NULL, *want = NULL;
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  size_t len = 0;
  char *text = slurp(dir, PAGEDIR_MARKER, &len);
  CHECK(len > 10 * 1024);
  char *lines = pagedir_marker_read(dir);
  CHECK(lines != NULL && text != NULL &&
        strcmp(lines, text + strlen(PAGEDIR_MAGIC "\n")) == 0);
  free(lines);
  free(text);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  char *v;
  CHECK_STR(v = pagedir_param(dir, "compress"), "yes");
  free(v);

  /* A difference in the last scope, past 8 KiB, is seen. */
  char other[192];
  snprintf(other, sizeof(other), "http://127.0.0.1:9/%0150d/x/", 0);
  scopes[N - 1] = other;
  char had_line[256], want_line[256];
  snprintf(had_line, sizeof(had_line), "scope: %s", scope[N - 1]);
  snprintf(want_line, sizeof(want_line), "scope: %s", other);
  CHECK(first_diff(dir, &p, had_line, want_line));
  remove_dir(dir);
}

/* The golden samples were written by earlier crawlers: they validate, and
 * the parameters their crawls had compare equal, byte for byte. */
static void test_golden_samples(void)
{
  static const struct {
    const char *name;
    int depth;
  } s[] = {
    { "catalogue-d2", 2 },
    { "catalogue-d3", 3 },
    { "course-d2", 2 },
    { "course-d5", 5 },
  };
  const char *scope[] = { "http://127.0.0.1:8000/", "https://127.0.0.1:8000/" };
  for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
    char dir[4096], err[512] = "", *had = NULL, *want = NULL;
    snprintf(dir, sizeof(dir), "%s/pageDirectory-samples/%s", top(), s[i].name);
    pagedir_params_t p = {
      .seed = "http://127.0.0.1:8000/index.html",
      .max_depth = s[i].depth,
      .scope = scope,
      .nscope = 2,
      .format = "auto",
      .max_page_size = 10485760,
    };
    int n = pagedir_validate(dir, err, sizeof(err));
    if (n < 1)
      fprintf(stderr, "%s: %s\n", dir, err);
    CHECK(n >= 1);
    CHECK_INT(pagedir_count(dir), n);
    CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
    if (had != NULL)
      fprintf(stderr, "%s: had '%s', want '%s'\n", dir, had, want);
    free(had);
    free(want);
    char *v = pagedir_param(dir, "maxPageSize");
    CHECK_STR(v, "10485760");
    free(v);
    /* Written today with the same parameters: the same bytes. */
    char *mine = fresh_dir();
    CHECK_INT(pagedir_init(mine, &p, err, sizeof(err)), 0);
    size_t la = 0, lb = 0;
    char *a = slurp(dir, PAGEDIR_MARKER, &la);
    char *b = slurp(mine, PAGEDIR_MARKER, &lb);
    CHECK_STR(b, a);
    free(a);
    free(b);
    remove_dir(mine);
  }
}

/* journal_seen: collects pagedir_journal's calls as "KIND ID A|B;". */
static void journal_seen(void *arg, const char *kind, int id, const char *a,
                         const char *b)
{
  char *buf = arg;
  size_t n = strlen(buf);
  snprintf(buf + n, 512 - n, "%s %d %s|%s;", kind, id, a, b);
}

/* The journal: lines of ID 0 (outcomes before the first page) are read
 * and kept; repair keeps IDs 0..MAX, drops the rest and a torn last
 * line; malformed IDs are skipped. */
static void test_journal(void)
{
  char *dir = fresh_dir();
  CHECK_INT(pagedir_journal_add(dir, "failed", 0, "http://h/x",
                                "0 http 500 0 E", 0),
            0);
  CHECK_INT(pagedir_journal_add(dir, "ctype", 1, "http://h/", "text/plain", 0),
            0);
  CHECK_INT(pagedir_journal_add(dir, "robots", 1, "http://h/r", "0 why not", 0),
            0);
  CHECK_INT(pagedir_journal_add(dir, "ctype", 2, "http://h/2", NULL, 0), 0);
  size_t len;
  char *old = slurp(dir, PAGEDIR_JOURNAL, &len);
  char *torn = malloc(len + 64);
  CHECK(old != NULL && torn != NULL);
  if (old == NULL || torn == NULL)
    return;
  snprintf(torn, len + 64,
           "%sx -1 http://h/neg\nx 01a http://h/bad\nfailed 2 h", old);
  put(dir, PAGEDIR_JOURNAL, torn);
  char buf[512] = "";
  CHECK_INT(pagedir_journal(dir, journal_seen, buf), 0);
  CHECK_STR(buf,
            "failed 0 http://h/x|0 http 500 0 E;ctype 1 http://h/|text/plain;"
            "robots 1 http://h/r|0 why not;ctype 2 http://h/2|;");
  CHECK_INT(pagedir_journal_repair(dir, 1), 0);
  buf[0] = '\0';
  CHECK_INT(pagedir_journal(dir, journal_seen, buf), 0);
  CHECK_STR(buf,
            "failed 0 http://h/x|0 http 500 0 E;ctype 1 http://h/|text/plain;"
            "robots 1 http://h/r|0 why not;");
  char *now = slurp(dir, PAGEDIR_JOURNAL, &len);
  CHECK_STR(now, "failed 0 http://h/x 0 http 500 0 E\nctype 1 http://h/ "
                 "text/plain\nrobots 1 http://h/r 0 why not\n");
  CHECK_INT(pagedir_journal_repair(dir, 0), 0);
  free(now);
  now = slurp(dir, PAGEDIR_JOURNAL, &len);
  CHECK_STR(now, "failed 0 http://h/x 0 http 500 0 E\n");
  free(now);
  free(old);
  free(torn);
  remove_dir(dir);
}

/* A file in the page format under a name of its own: published and
 * loaded by name; still not a page. */
static void test_named_files(void)
{
  char *dir = fresh_dir();
  char err[256];
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  char *tmp = pagedir_write_tmp(dir, 9, "http://h/n", 2, "candidate x\n", 12,
                                PAGEDIR_GZIP);
  CHECK(tmp != NULL);
  CHECK_INT(pagedir_publish_name(dir, tmp, ".noindex-1"), 0);
  free(tmp);
  pagedir_page_t page;
  CHECK_INT(pagedir_load_name(dir, ".noindex-1", &page), 0);
  CHECK_STR(page.url, "http://h/n");
  CHECK_INT(page.depth, 2);
  CHECK_STR(page.body, "candidate x\n");
  pagedir_page_free(&page);
  CHECK_INT(pagedir_count(dir), 0);
  CHECK_INT(pagedir_validate(dir, err, sizeof(err)), 0);
  CHECK_INT(pagedir_remove_tmp(dir), 0);
  CHECK_INT(pagedir_load_name(dir, ".noindex-1", &page), 0);
  pagedir_page_free(&page);
  remove_dir(dir);
}

/* pagedir_load_head reads lines 1 and 2 alone, plain or gzip, and
 * refuses what pagedir_load refuses there; tsepagedir_* are the same
 * readers under the public prefix. */
static void test_load_head(void)
{
  char *dir = fresh_dir();
  char err[256], *url = NULL;
  int depth = -1;
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  char *tmp = pagedir_write_tmp(dir, 1, "http://h/a", 12, "body\n", 5,
                                PAGEDIR_GZIP);
  CHECK(tmp != NULL && pagedir_publish(dir, tmp, 1) == 0);
  free(tmp);
  CHECK_INT(pagedir_load_head(dir, 1, &url, &depth), 0);
  CHECK_STR(url, "http://h/a");
  CHECK_INT(depth, 12);
  free(url);
  static const char *const bad[] = {
    "http://h/b\n",            /* no depth line */
    "http://h/b\n\n",          /* an empty depth */
    "http://h/b\n12345678\nx", /* eight digits */
    "http://h/b\n1x\nx",       /* not a number */
    "\n1\nx",                  /* no URL */
    "http://h/ b\n1\nx",       /* a space in the URL */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    put(dir, "2", bad[i]);
    url = (char *)"unset";
    errno = 0;
    CHECK_INT(pagedir_load_head(dir, 2, &url, &depth), -1);
    CHECK(url == NULL && errno == EINVAL);
    pagedir_page_t page;
    CHECK_INT(pagedir_load(dir, 2, &page), -1);
  }
  put(dir, "2", "http://h/c\n0000007\n");
  CHECK_INT(pagedir_load_head(dir, 2, &url, &depth), 0);
  CHECK_INT(depth, 7);
  free(url);
  CHECK(pagedir_load_head(dir, 3, &url, &depth) == -1 && errno == ENOENT);
  url = tsepagedir_load_url(dir, 2);
  CHECK_STR(url, "http://h/c");
  free(url);
  tsepagedir_page_t page;
  CHECK_INT(tsepagedir_load(dir, 1, &page), 0);
  CHECK(page.len == 5 && memcmp(page.body, "body\n", 5) == 0);
  tsepagedir_page_free(&page);
  CHECK(page.url == NULL && page.body == NULL);
  CHECK_INT(tsepagedir_count(dir), 2);
  CHECK_INT(tsepagedir_validate(dir, err, sizeof(err)), 2);
  char *params = tsepagedir_params(dir);
  CHECK_STR(params, "");
  free(params);
  remove_dir(dir);
}

/* A temporary file is written anew, never through a name that is a hard
 * link to a published page; plain, it holds exactly the page format. */
/* The scope a crawl derives (its seed's redirects) is added to the marker
 * once, however often derived, and never counts against a command line
 * that gives the same parameters (a resume). */
static void test_marker_derive(void)
{
  char *dir = fresh_dir();
  char err[256], *had = NULL, *want = NULL;
  pagedir_params_t p = sample_params();
  CHECK_INT(pagedir_init(dir, &p, err, sizeof(err)), 0);
  const char *v[] = { "http://www.h.example/", "https://www.h.example/" };
  CHECK_INT(pagedir_marker_derive(dir, v, 2), 0);
  CHECK_INT(pagedir_marker_derive(dir, v, 2), 0);
  char *text = pagedir_marker_read(dir);
  char *tail = text ? strstr(text, "redirectScope: ") : NULL;
  CHECK_STR(tail, "redirectScope: http://www.h.example/\n"
                  "redirectScope: https://www.h.example/\n");
  free(text);
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 0);
  p.max_depth = 3;
  CHECK_INT(pagedir_marker_compare(dir, &p, &had, &want), 1);
  CHECK_STR(had, "maxDepth: 2");
  free(had);
  free(want);
  remove_dir(dir);
}

static void test_tmp_rewrite(void)
{
  char *dir = fresh_dir();
  char err[256];
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  char *tmp = pagedir_write_tmp(dir, 5, "http://h/a", 1, "first\n", 6, 0);
  CHECK(tmp != NULL);
  CHECK_INT(pagedir_publish_link(dir, tmp, 1), 0);
  char *again = pagedir_write_tmp(dir, 5, "http://h/b", 2, "second", 6, 0);
  CHECK(again != NULL);
  CHECK(again != NULL && strcmp(again, tmp) == 0);
  pagedir_page_t page;
  CHECK_INT(pagedir_load(dir, 1, &page), 0);
  CHECK_STR(page.url, "http://h/a");
  CHECK_STR(page.body, "first\n");
  pagedir_page_free(&page);
  size_t n = 0;
  char *text = NULL;
  FILE *fp = again ? fopen(again, "r") : NULL;
  CHECK(fp != NULL);
  if (fp != NULL) {
    text = file_readAll(fp, &n);
    fclose(fp);
  }
  CHECK(text != NULL && n == 19 &&
        memcmp(text, "http://h/b\n2\nsecond", 19) == 0);
  free(text);
  free(tmp);
  free(again);
  remove_dir(dir);
}

/* A shared crawl's takeover unpublishes what was not recorded, keeping
 * each page by its URL, and publishes it again from there as the page of
 * the same URL and depth, whatever its ID now: its temporary name may be
 * gone (the crawl ended, then Redis lost the last commits). */
static void test_unpublish_keeps(void)
{
  char *dir = fresh_dir();
  char err[256];
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  for (int id = 1; id <= 3; id++) {
    char url[32];
    snprintf(url, sizeof(url), "http://h/%d", id);
    char *tmp = pagedir_write_tmp(dir, (unsigned long long)id, url, 1, "x", 1,
                                  id == 3 ? PAGEDIR_GZIP : 0);
    CHECK(tmp != NULL);
    CHECK_INT(pagedir_publish_link(dir, tmp, id), 0);
    if (tmp)
      unlink(tmp); /* the crawl's end */
    free(tmp);
  }
  CHECK_INT(pagedir_unpublish_after(dir, 1), 0);
  pagedir_page_t page;
  CHECK_INT(pagedir_load(dir, 2, &page), -1);
  CHECK_INT(pagedir_count(dir), 1);
  errno = 0;
  CHECK_INT(pagedir_publish_kept(dir, 2, "http://h/2", 2), -1);
  CHECK_INT(errno, ENOENT); /* another depth */
  errno = 0;
  CHECK_INT(pagedir_publish_kept(dir, 4, "http://h/4", 1), -1);
  CHECK_INT(errno, ENOENT); /* none kept */
  /* The history redone without page 2: page 3 is ID 2 now (gzip). */
  CHECK_INT(pagedir_publish_kept(dir, 2, "http://h/3", 1), 0);
  CHECK_INT(pagedir_publish_kept(dir, 2, "http://h/3", 1), 0); /* again */
  CHECK_INT(pagedir_load(dir, 2, &page), 0);
  CHECK_STR(page.url, "http://h/3");
  pagedir_page_free(&page);
  /* A second takeover unpublishes it again, though ID 2 and its kept
   * name are one file (review: rename() between two names of one file
   * does nothing, and ID 2 stayed published). */
  CHECK_INT(pagedir_unpublish_after(dir, 1), 0);
  CHECK_INT(pagedir_count(dir), 1);
  CHECK_INT(pagedir_load(dir, 2, &page), -1);
  CHECK_INT(pagedir_publish_kept(dir, 2, "http://h/2", 1), 0);
  CHECK_INT(pagedir_publish_kept(dir, 3, "http://h/3", 1), 0);
  CHECK_INT(pagedir_remove_tmp(dir), 0);
  CHECK_INT(pagedir_count(dir), 3);
  DIR *d = opendir(dir);
  struct dirent *de;
  int left = 0;
  while (d != NULL && (de = readdir(d)) != NULL)
    left += strncmp(de->d_name, ".tmp-", 5) == 0;
  if (d)
    closedir(d);
  CHECK_INT(left, 0);
  remove_dir(dir);
}

/* An unpublish that stops half way (killed, or a page it cannot read)
 * leaves the pages above the count a run from count + 1, with no gap:
 * the next takeover walks up from there and stops at the first ID
 * missing, so pages past a gap stayed published for ever (review). It
 * unpublishes from the highest ID down. */
static void test_unpublish_leaves_no_gap(void)
{
  char *dir = fresh_dir();
  char err[256];
  CHECK_INT(pagedir_init(dir, NULL, err, sizeof(err)), 0);
  for (int id = 1; id <= 6; id++) {
    char url[32];
    snprintf(url, sizeof(url), "http://h/%d", id);
    char *tmp = pagedir_write_tmp(dir, (unsigned long long)id, url, 1, "x", 1,
                                  0);
    CHECK(tmp != NULL);
    if (id != 4)
      CHECK_INT(pagedir_publish_link(dir, tmp, id), 0);
    if (tmp)
      unlink(tmp);
    free(tmp);
  }
  /* ID 4 cannot be read (a directory), even by root. */
  char four[4096];
  snprintf(four, sizeof(four), "%s/4", dir);
  CHECK_INT(mkdir(four, 0755), 0);
  CHECK_INT(pagedir_unpublish_after(dir, 2), -1);
  pagedir_page_t page;
  int three = pagedir_load(dir, 3, &page);
  CHECK_INT(three, 0); /* below what failed: still published */
  if (three == 0)
    pagedir_page_free(&page);
  CHECK_INT(pagedir_load(dir, 5, &page), -1); /* above it: unpublished */
  CHECK_INT(pagedir_load(dir, 6, &page), -1);
  rmdir(four);
  /* The next takeover then unpublishes the rest. */
  CHECK_INT(pagedir_unpublish_after(dir, 2), 0);
  CHECK_INT(pagedir_count(dir), 2);
  remove_dir(dir);
}

int main(void)
{
  RUN(test_init_writes_the_format);
  RUN(test_init_without_params);
  RUN(test_init_marker_limits);
  RUN(test_init_refuses);
  RUN(test_compare);
  RUN(test_domains);
  RUN(test_unreadable_markers);
  RUN(test_special_markers);
  RUN(test_param);
  RUN(test_big_marker);
  RUN(test_golden_samples);
  RUN(test_journal);
  RUN(test_named_files);
  RUN(test_load_head);
  RUN(test_marker_derive);
  RUN(test_tmp_rewrite);
  RUN(test_unpublish_keeps);
  RUN(test_unpublish_leaves_no_gap);
  return TEST_EXIT();
}
