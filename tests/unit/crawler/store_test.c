/* store_test.c: unit tests for crawler/store: a saved page directory
 * answering fetches (store_fetch) as replay and resume use it. */
#include "store.h"

#include "../../testhelp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagedir.h"

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
  static const char *const names[] = { "1", "2", ".journal", ".crawler",
                                       ".lock" };
  char path[256];
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
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
  store_t *s = store_open(dir, err, sizeof(err));
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

int main(void)
{
  RUN(test_fetch);
  return TEST_EXIT();
}
