/* links_bench.c: link extraction speed of links_scan_html().
 *
 * usage: links_bench [MIN_SECONDS [notags]] < FILE_LIST
 * Reads the files named on stdin (one path a line) into memory, then scans
 * them all with links_scan_html() (one thread, no charset given, a sink
 * that counts links), pass after pass until MIN_SECONDS (default 2) have
 * gone by; MIN_SECONDS 0 makes one pass (for callgrind). With "notags",
 * without the markup elision of links.c (links_scan_html_test()), to see
 * what it gains. Prints one line: files, MB, links per pass, passes, MB/s
 * and ms per page. Nothing is written to disk; file reading is not
 * timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/parser.h>

#include "links.h"

typedef struct {
  char *body;
  size_t len;
} page_t;

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

int main(int argc, char **argv)
{
  double min_s = argc > 1 ? atof(argv[1]) : 2.0;
  int tags = !(argc > 2 && strcmp(argv[2], "notags") == 0);
  xmlInitParser();
  size_t n = 0, cap = 1024, total = 0;
  page_t *pages = malloc(cap * sizeof *pages);
  char path[4096];
  while (pages != NULL && fgets(path, sizeof path, stdin) != NULL) {
    path[strcspn(path, "\n")] = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
      perror(path);
      return 1;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(sz > 0 ? (size_t)sz : 1);
    if (b == NULL || fread(b, 1, (size_t)sz, f) != (size_t)sz) {
      fprintf(stderr, "links_bench: cannot read '%s'\n", path);
      return 1;
    }
    fclose(f);
    if (n == cap)
      pages = realloc(pages, (cap *= 2) * sizeof *pages);
    if (pages == NULL)
      return 1;
    pages[n].body = b;
    pages[n].len = (size_t)sz;
    n++;
    total += (size_t)sz;
  }
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
      if (links_scan_html_test(pages[i].body, pages[i].len, NULL, &sink,
                               tags, NULL) < 0) {
        fprintf(stderr, "links_bench: out of memory\n");
        return 1;
      }
    passes++;
    t = now() - t0;
  } while (t < min_s);
  double mb = total / 1e6;
  printf("files %zu MB %.1f links %ld passes %d MB/s %.1f ms/page %.4f\n",
         n, mb, links, passes, mb * passes / t, t * 1000 / (n * passes));
  for (size_t i = 0; i < n; i++)
    free(pages[i].body);
  free(pages);
  xmlCleanupParser();
  return 0;
}
