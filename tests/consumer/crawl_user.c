/* crawl_user.c: a program that embeds crawl(), built outside the tree
 * against the installed <crawl.h> and libcrawler only, through pkg-config
 * (tests/integration/consumer.sh, tests/package/install_deb.sh).
 *
 * usage: crawl_user
 * Crawls a graph of four pages held in memory (one of them broken) and
 * prints "FROM TO" for every link occurrence, then "version V". The
 * edges come from several threads in any order; the test sorts them.
 * Exit: 0, or 1 if crawl() failed (crawl_strerror says why). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crawl.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* fetch: any download thread; the pages are constants, so no lock. */
static char *fetch(char *link)
{
  if (strcmp(link, "a") == 0)
    return strdup("start link:b link:c link:a");
  if (strcmp(link, "b") == 0)
    return strdup("link:c link:broken");
  if (strcmp(link, "c") == 0)
    return strdup("the end");
  return NULL; /* a broken link */
}

/* edge: any parse thread; one printf a call, under a lock so that lines
 * from two threads never mix. */
static void edge(char *from, char *to)
{
  pthread_mutex_lock(&out_lock);
  printf("%s %s\n", from, to);
  pthread_mutex_unlock(&out_lock);
}

int main(void)
{
  int status = crawl("a", 3, 2, 8, fetch, edge);
  if (status != CRAWL_OK) {
    fprintf(stderr, "crawl_user: %s\n", crawl_strerror(status));
    return 1;
  }
  printf("version %s\n", CRAWL_VERSION);
  return 0;
}
