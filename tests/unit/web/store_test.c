/* store_test.c: unit tests for web/store: a saved page directory
 * answering fetches (store_fetch) as replay and resume use it, and the
 * outcomes of URLs not saved, journaled (pstore_record_*) and replayed
 * (store_answer). */
#include "store.h"

#include "../../testhelp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "page.h"
#include "pagedir.h"
#include "pstore.h"

static char dir[] = "/tmp/store_test.XXXXXX";

/* save: publish page ID (URL, BODY) in dir. */
static void save(int id, const char *url, const char *body)
{
  char *tmp = pagedir_write_tmp(dir, (unsigned long long)id, url, 0, body,
                                strlen(body), 0);
  CHECK(tmp != NULL && pagedir_publish(dir, tmp, id) == 0);
  free(tmp);
}

static void rm_dir(void)
{
  static const char *const names[] = { "1",         "2",     ".journal",
                                       ".crawler",  ".lock", ".noindex-1",
                                       ".noindex-2" };
  char path[256];
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  memcpy(dir + strlen(dir) - 6, "XXXXXX", 6); /* for the next mkdtemp */
}

static void test_fetch(void)
{
  char err[256];
  const char *a = "http://h/a.html", *b = "http://h/b.txt";
  CHECK(mkdtemp(dir) != NULL);
  CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
  CHECK(pagedir_journal_add(dir, "redirect", 1, "http://h/old", a, 0) == 0);
  save(1, a, "<p>a</p>");
  CHECK(pagedir_journal_add(dir, "ctype", 2, b, "text/plain", 0) == 0);
  CHECK(pagedir_journal_add(dir, "xrobots", 2, b, "nofollow", 0) == 0);
  save(2, b, "a.html\n");
  store_t *s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL);
  if (s == NULL)
    return;

  fetch_result_t r;
  CHECK_INT(store_fetch(s, "http://h/old", false, &r), 0);
  CHECK_INT(r.outcome, FETCH_REDIRECT);
  CHECK_INT(r.status, 301);
  CHECK_STR(r.location, a);
  fetch_result_free(&r);

  CHECK_INT(store_fetch(s, a, false, &r), 1);
  CHECK_INT(r.outcome, FETCH_OK);
  CHECK_INT(r.status, 200);
  CHECK_INT(r.len, 8);
  CHECK_STR(r.body, "<p>a</p>");
  CHECK_STR(r.content_type, "text/html");
  CHECK_STR(r.x_robots_tag, NULL);
  fetch_result_free(&r);

  CHECK_INT(store_fetch(s, b, true, &r), 2);
  CHECK_STR(r.content_type, "text/plain");
  CHECK_STR(r.x_robots_tag, "nofollow");
  fetch_result_free(&r);

  /* Unknown: a 404 in replay, no answer on resume. */
  CHECK_INT(store_fetch(s, "http://h/new", true, &r), 0);
  CHECK_INT(r.outcome, FETCH_HTTP_ERROR);
  CHECK_INT(r.status, 404);
  CHECK_STR(r.error, "not in the saved crawl");
  fetch_result_free(&r);
  CHECK_INT(store_fetch(s, "http://h/new", false, &r), -1);
  CHECK(r.body == NULL && r.retry_after == -1);
  fetch_result_free(&r);

  /* A page gone since the store was opened: a network error. */
  char path[256];
  snprintf(path, sizeof(path), "%s/2", dir);
  CHECK(unlink(path) == 0);
  CHECK_INT(store_fetch(s, b, false, &r), 0);
  CHECK_INT(r.outcome, FETCH_NET_ERROR);
  CHECK(strncmp(r.error, "cannot read saved page 2: ", 26) == 0);
  fetch_result_free(&r);
  store_close(s);
  rm_dir();
}

/* test_validators: the ETag and Last-Modified pstore_journal_page
 * writes for a saved page come back from store_validators (issue 35,
 * --since); a page without them has none, and a directory where no page
 * has any counts 0 (store_validated), as a crawl made before they were
 * recorded does. */
static void test_validators(void)
{
  char err[256];
  const char *a = "http://h/a", *b = "http://h/b", *et, *lm;
  CHECK(mkdtemp(dir) != NULL);
  CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
  save(1, a, "<p>a</p>");
  save(2, b, "<p>b</p>");
  store_t *s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL);
  CHECK_INT(store_validated(s), 0);
  store_close(s);
  pstore_t *ps = pstore_new(dir, false, false, false);
  CHECK(ps != NULL);
  pstore_facts_t f = { .url = a,
                       .etag = "W/\"5f-1a\"",
                       .lastmod = "Sun, 29 Nov 2026 06:29:45 GMT" };
  CHECK_INT(pstore_journal_page(ps, 1, &f), 0);
  pstore_facts_t g = { .url = b, .etag = "bad\nvalue" };
  CHECK_INT(pstore_journal_page(ps, 2, &g), 0);
  pstore_close(ps, false);
  s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL);
  CHECK_INT(store_validated(s), 1);
  CHECK_INT(store_validators(s, a, &et, &lm), 1);
  CHECK_STR(et, "W/\"5f-1a\"");
  CHECK_STR(lm, "Sun, 29 Nov 2026 06:29:45 GMT");
  /* A value with a line break is not journaled: no validator. */
  CHECK_INT(store_validators(s, b, &et, &lm), 2);
  CHECK(et == NULL && lm == NULL);
  CHECK_INT(store_validators(s, "http://h/c", &et, &lm), 0);
  CHECK(et == NULL && lm == NULL);
  store_close(s);
  rm_dir();
}

/* item: an item added as CHAIN[0] (or URL if HOPS is 0), ended at URL. */
static pstore_item_t item(const char *url, char *const *chain, int hops)
{
  return (pstore_item_t){
    .url = url, .chain = chain, .hops = hops, .depth = 1, .seq = 7
  };
}

/* three_links: the pstore_links_fn of an array of three links. */
static int three_links(void *src, void (*fn)(void *arg, const struct link *l),
                       void *arg)
{
  const struct link *v = src;
  for (int i = 0; i < 3; i++)
    fn(arg, &v[i]);
  return 0;
}

static void test_outcomes(void)
{
  char err[256];
  const char *a = "http://h/a.html";
  CHECK(mkdtemp(dir) != NULL);
  CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
  pstore_t *ps = pstore_new(dir, false, false, false);
  CHECK(ps != NULL);

  /* Before the first page (ID 0): a 500; a redirect to a 404. */
  fetch_result_t f = { .outcome = FETCH_HTTP_ERROR, .status = 500 };
  snprintf(f.error, sizeof(f.error), "HTTP 500 Internal Server Error");
  pstore_item_t it = item("http://h/x", NULL, 0);
  CHECK_INT(pstore_record_failed(ps, 0, &it, &f), 0);
  char *chain[] = { "http://h/r", "http://h/r2" };
  fetch_result_t g = { .outcome = FETCH_NET_ERROR, .curl_code = 28 };
  snprintf(g.error, sizeof(g.error), "Operation timed out\nafter 1 s");
  it = item("http://h/gone", chain, 2);
  CHECK_INT(pstore_record_failed(ps, 0, &it, &g), 0);
  save(1, a, "<p>a</p>");
  it = item("http://other/p", NULL, 0);
  CHECK_INT(pstore_record_robots(ps, 1, &it,
                                 "robots.txt unreachable: HTTP 503 x"),
            0);
  it = item("http://h/p", NULL, 0);
  CHECK_INT(pstore_record_robots(ps, 1, &it, "disallowed by robots.txt"), 0);
  it = item("http://h/bin", NULL, 0);
  CHECK_INT(pstore_record_binary(ps, 1, &it), 0);
  char *dchain[] = { "http://h/d" };
  it = item(a, dchain, 1);
  CHECK_INT(pstore_record_duplicate(ps, 1, &it), 0);
  char *echain[] = { "http://h/e" };
  it = item("http://h/nowhere", echain, 1);
  CHECK_INT(pstore_record_duplicate(ps, 1, &it), 0);
  struct link links[] = {
    { .url = "http://h/n1", .cls = L_CANDIDATE },
    { .url = "a\\b\nc d", .cls = L_INVALID },
    { .url = "http://x/", .cls = L_EXTERN },
  };
  it = item("http://h/n", NULL, 0);
  CHECK_INT(pstore_record_noindex(ps, 1, &it, false, 1, three_links, links, 3),
            0);
  it = item("http://h/nf", NULL, 0);
  CHECK_INT(pstore_record_noindex(ps, 1, &it, true, 2, three_links, links, 0),
            0);

  pagedir_page_t lf;
  CHECK(pagedir_load_name(dir, ".noindex-1", &lf) == 0);
  CHECK_STR(lf.url, "http://h/n");
  CHECK_INT(lf.depth, 1);
  CHECK_STR(lf.body, "candidate http://h/n1\ninvalid a\\\\b\\nc d\n"
                     "extern http://x/\n");
  pagedir_page_free(&lf);
  CHECK(pagedir_load_name(dir, ".noindex-2", &lf) != 0);

  store_t *s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL);
  if (s == NULL)
    return;
  fetch_result_t r;
  store_answer_t ans;

  CHECK(store_replayed(s, "http://h/x"));
  CHECK(store_replayed(s, "http://h/r"));
  CHECK(!store_replayed(s, "http://h/gone"));
  CHECK(!store_replayed(s, a));

  /* A failure exactly as seen, not retryable. */
  CHECK_INT(store_answer(s, "http://h/x", 0, "http://h/x", false, &r, &ans), 0);
  CHECK_INT(ans.verdict, STORE_RESPONSE);
  CHECK_INT(r.outcome, FETCH_HTTP_ERROR);
  CHECK_INT(r.status, 500);
  CHECK_STR(r.error, "HTTP 500 Internal Server Error");
  CHECK(!r.retryable && r.retry_after == -1);
  fetch_result_free(&r);

  /* Hop by hop: two redirects, then the failure (newline made a space). */
  CHECK_INT(store_answer(s, "http://h/r", 0, "http://h/r", false, &r, &ans), 0);
  CHECK_INT(r.outcome, FETCH_REDIRECT);
  CHECK_STR(r.location, "http://h/r2");
  fetch_result_free(&r);
  CHECK_INT(store_answer(s, "http://h/r", 1, "http://h/r2", false, &r, &ans),
            0);
  CHECK_STR(r.location, "http://h/gone");
  fetch_result_free(&r);
  CHECK_INT(store_answer(s, "http://h/r", 2, "http://h/gone", false, &r, &ans),
            0);
  CHECK_INT(r.outcome, FETCH_NET_ERROR);
  CHECK_INT(r.curl_code, 28);
  CHECK_STR(r.error, "Operation timed out after 1 s");
  fetch_result_free(&r);
  /* A request the outcome does not know: the per-URL answer. */
  CHECK_INT(store_answer(s, "http://h/r", 1, "http://h/zz", false, &r, &ans),
            -1);
  CHECK_INT(store_answer(s, "http://h/r", 1, "http://h/zz", true, &r, &ans), 0);
  CHECK_INT(r.status, 404);
  fetch_result_free(&r);
  /* The URL ended at, asked as an item of its own: not this outcome. */
  CHECK_INT(store_answer(s, "http://h/gone", 0, "http://h/gone", false, &r,
                         &ans),
            -1);

  CHECK_INT(store_answer(s, "http://h/p", 0, "http://h/p", false, &r, &ans), 0);
  CHECK_INT(ans.verdict, STORE_ROBOTS);
  CHECK_STR(ans.robots, "disallowed by robots.txt");
  fetch_result_free(&r);

  CHECK_INT(store_answer(s, "http://h/bin", 0, "http://h/bin", false, &r, &ans),
            0);
  CHECK_INT(ans.verdict, STORE_BINARY);
  CHECK_INT(r.outcome, FETCH_OK);
  CHECK(r.body == NULL);
  fetch_result_free(&r);

  /* A duplicate ends at the saved page, or at an empty 200. */
  CHECK_INT(store_answer(s, "http://h/d", 1, a, false, &r, &ans), 1);
  CHECK_INT(ans.verdict, STORE_RESPONSE);
  CHECK_STR(r.body, "<p>a</p>");
  fetch_result_free(&r);
  CHECK_INT(store_answer(s, "http://h/e", 1, "http://h/nowhere", false, &r,
                         &ans),
            0);
  CHECK_INT(ans.verdict, STORE_DUPLICATE);
  CHECK_INT(r.outcome, FETCH_OK);
  fetch_result_free(&r);

  /* noindex: the links back, with keys; not in a replay. */
  CHECK_INT(store_answer(s, "http://h/n", 0, "http://h/n", false, &r, &ans), 0);
  CHECK_INT(ans.verdict, STORE_NOINDEX);
  CHECK(!ans.nofollow);
  CHECK_INT(ans.nlinks, 3);
  if (ans.nlinks == 3) {
    CHECK_STR(ans.links[0].url, "http://h/n1");
    CHECK_INT(ans.links[0].cls, L_CANDIDATE);
    CHECK_STR(ans.links[0].key, "http://h:80");
    CHECK_STR(ans.links[1].url, "a\\b\nc d");
    CHECK_INT(ans.links[1].cls, L_INVALID);
    CHECK_STR(ans.links[1].key, NULL);
    CHECK_INT(ans.links[2].cls, L_EXTERN);
  }
  for (size_t i = 0; i < ans.nlinks; i++) {
    free(ans.links[i].url);
    free(ans.links[i].key);
  }
  free(ans.links);
  fetch_result_free(&r);
  CHECK_INT(store_answer(s, "http://h/nf", 0, "http://h/nf", false, &r, &ans),
            0);
  CHECK_INT(ans.verdict, STORE_NOINDEX);
  CHECK(ans.nofollow && ans.nlinks == 0);
  fetch_result_free(&r);
  CHECK_INT(store_answer(s, "http://h/n", 0, "http://h/n", true, &r, &ans), 0);
  CHECK_INT(ans.verdict, STORE_RESPONSE);
  CHECK_INT(r.status, 404);
  fetch_result_free(&r);

  store_close(s);
  pstore_close(ps, false);
  rm_dir();
}

/* hosts_seen: collects store_unreachable_hosts's calls. */
static void hosts_seen(void *arg, const char *key, const char *why)
{
  char *buf = arg;
  size_t n = strlen(buf);
  snprintf(buf + n, 256 - n, "%s=%s;", key, why);
}

static void test_unreachable_hosts(void)
{
  char err[256];
  CHECK(mkdtemp(dir) != NULL);
  CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
  pstore_t *ps = pstore_new(dir, false, false, false);
  CHECK(ps != NULL);
  char *chain[] = { "http://h/r" };
  pstore_item_t it = item("http://b/x", chain, 1);
  CHECK_INT(pstore_record_robots(ps, 0, &it, "robots.txt unreachable: E"), 0);
  it = item("http://h/p", NULL, 0);
  CHECK_INT(pstore_record_robots(ps, 0, &it, "disallowed by robots.txt"), 0);
  store_t *s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL);
  char buf[256] = "";
  if (s != NULL)
    store_unreachable_hosts(s, hosts_seen, buf);
  CHECK_STR(buf, "http://b:80=robots.txt unreachable: E;");
  store_close(s);
  pstore_close(ps, false);
  rm_dir();
}

/* A malformed outcome line makes the directory unusable, with a reason;
 * a torn last line is ignored. */
static void test_malformed(void)
{
  char err[256];
  static const char *const bad[] = {
    "failed 0 http://h/x 0 http 500\n",                /* no code, no text */
    "failed 0 http://h/x 0 ok 200 0 fine\n",           /* not a failure */
    "failed 0 http://h/x 2 http://h/y http 500 0 E\n", /* hops short */
    "noindex 0 http://h/x 0 maybe 0\n",                /* FOLLOW */
    "binary 0 http://h/x 0 extra\n",                   /* extra words */
    "duplicate 0 http://h/x 0\n", /* a duplicate has a hop */
    "robots 0 http://h/x 0\n",    /* no reason */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    CHECK(mkdtemp(dir) != NULL);
    CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
    char path[256];
    snprintf(path, sizeof(path), "%s/.journal", dir);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp == NULL)
      return;
    fputs(bad[i], fp);
    fputs("failed 0 http://h/torn 0 http 500 0 E", fp);
    fclose(fp);
    store_t *s = store_open(dir, true, err, sizeof(err));
    if (s != NULL)
      fprintf(stderr, "accepted: %s", bad[i]);
    CHECK(s == NULL);
    CHECK(strstr(err, "malformed outcome") != NULL);
    store_close(s);
    rm_dir();
  }
  /* The torn line alone: ignored. */
  CHECK(mkdtemp(dir) != NULL);
  CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
  char path[256];
  snprintf(path, sizeof(path), "%s/.journal", dir);
  FILE *fp = fopen(path, "w");
  CHECK(fp != NULL);
  if (fp != NULL) {
    fputs("failed 0 http://h/torn 0 http", fp);
    fclose(fp);
  }
  store_t *s = store_open(dir, true, err, sizeof(err));
  CHECK(s != NULL && !store_replayed(s, "http://h/torn"));
  store_close(s);
  rm_dir();
}

/* test_damaged_head: store_open without PAGES (--since) reads each page's
 * first line only. A page whose first line cannot be read (an empty
 * file, a directory, a FIFO where the page was) is no memory shortage:
 * the reason names the page, as pagedir_validate's does with PAGES. */
static void test_damaged_head(void)
{
  char err[256], path[256];
  for (int kind = 0; kind < 3; kind++) {
    CHECK(mkdtemp(dir) != NULL);
    CHECK(pagedir_init(dir, NULL, err, sizeof(err)) == 0);
    save(1, "http://h/a", "<p>a</p>");
    save(2, "http://h/b", "<p>b</p>");
    snprintf(path, sizeof(path), "%s/2", dir);
    CHECK(unlink(path) == 0);
    if (kind == 0) {
      FILE *fp = fopen(path, "w"); /* empty */
      CHECK(fp != NULL);
      if (fp != NULL)
        fclose(fp);
    } else if (kind == 1) {
      CHECK(mkdir(path, 0755) == 0);
    } else {
      CHECK(mkfifo(path, 0644) == 0);
    }
    err[0] = '\0';
    store_t *s = store_open(dir, false, err, sizeof(err));
    if (s == NULL) {
      char want[300];
      snprintf(want, sizeof(want), "'%s/2'", dir);
      if (strstr(err, "out of memory") != NULL || strstr(err, want) == NULL)
        fprintf(stderr, "page 2 damaged (%d): %s\n", kind, err);
      CHECK(strstr(err, "out of memory") == NULL);
      CHECK(strstr(err, want) != NULL);
    }
    store_close(s);
    if (kind == 1)
      rmdir(path);
    rm_dir();
  }
}

int main(void)
{
  RUN(test_fetch);
  RUN(test_validators);
  RUN(test_outcomes);
  RUN(test_unreachable_hosts);
  RUN(test_malformed);
  RUN(test_damaged_head);
  return TEST_EXIT();
}
