/* links_dump: the links the crawler takes from pages, for the
 * differential test (tests/integration/links_differential.sh).
 *
 *   links_dump LIST   LIST has one page a line, "URL<TAB>FILE<TAB>CHARSET"
 *                     (CHARSET may be empty: none in HTTP). For each page,
 *                     prints "== FILE", then each link as page_scan() in
 *                     web/page.c resolves it: against the first
 *                     <base href> (resolved against URL) if it resolves,
 *                     else URL; in normal form; links that give no http(s)
 *                     URL are left out.
 *   links_dump -n     copies lines from stdin to stdout, each URL put in
 *                     normal form (url_normalize; dropped if NULL), lines
 *                     starting "== " as they are.
 * Exit 0, or 1 on a usage or I/O error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "file.h"
#include "links.h"
#include "url.h"

typedef struct page {
  const char *url;
  char *base; /* resolved <base href>, or NULL */
  char **hrefs;
  size_t n, cap;
} page_t;

static int on_base(void *arg, const char *href)
{
  page_t *p = arg;
  if (p->base == NULL)
    p->base = url_resolve(p->url, href);
  return 0;
}

static int on_link(void *arg, const char *href, int flags)
{
  page_t *p = arg;
  (void)flags;
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    char **h = realloc(p->hrefs, p->cap * sizeof *h);
    if (h == NULL)
      return 1;
    p->hrefs = h;
  }
  p->hrefs[p->n] = strdup(href);
  if (p->hrefs[p->n] == NULL)
    return 1;
  p->n++;
  return 0;
}

static int dump_page(const char *url, const char *file, const char *charset)
{
  FILE *f = fopen(file, "rb");
  if (f == NULL) {
    perror(file);
    return 1;
  }
  char *body = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? 2 * cap : 65536;
      char *nb = realloc(body, cap);
      if (nb == NULL) {
        fclose(f);
        free(body);
        return 1;
      }
      body = nb;
    }
    size_t k = fread(body + len, 1, cap - len, f);
    if (k == 0)
      break;
    len += k;
  }
  fclose(f);
  page_t p = { .url = url };
  links_sink_t sink = { .link = on_link, .base = on_base, .arg = &p };
  int rc = links_scan_html(body, len, charset[0] ? charset : NULL, &sink);
  free(body);
  printf("== %s\n", file);
  url_base_t b;
  url_base_init(&b, p.base != NULL ? p.base : url);
  for (size_t i = 0; i < p.n; i++) {
    char *u = url_base_resolve(&b, p.hrefs[i]);
    if (u != NULL)
      printf("%s\n", u);
    free(u);
    free(p.hrefs[i]);
  }
  free(p.hrefs);
  free(p.base);
  return rc == LINKS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int rc = 0;
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  if (argc == 2 && strcmp(argv[1], "-n") == 0) {
    while ((got = getline(&line, &cap, stdin)) > 0) {
      if (line[got - 1] == '\n')
        line[--got] = '\0';
      if (strncmp(line, "== ", 3) == 0) {
        printf("%s\n", line);
        continue;
      }
      char *u = url_normalize(line);
      if (u != NULL)
        printf("%s\n", u);
      free(u);
    }
  } else if (argc == 2) {
    FILE *list = fopen(argv[1], "r");
    if (list == NULL) {
      perror(argv[1]);
      return 1;
    }
    while (rc == 0 && (got = getline(&line, &cap, list)) > 0) {
      if (line[got - 1] == '\n')
        line[--got] = '\0';
      char *url = line, *file = strchr(url, '\t');
      char *cs = file ? strchr(file + 1, '\t') : NULL;
      if (cs == NULL) {
        fprintf(stderr, "links_dump: bad list line '%s'\n", line);
        rc = 1;
        break;
      }
      *file++ = '\0';
      *cs++ = '\0';
      rc = dump_page(url, file, cs);
    }
    fclose(list);
  } else {
    fprintf(stderr, "usage: links_dump LIST | links_dump -n\n");
    rc = 1;
  }
  free(line);
  curl_global_cleanup();
  return rc;
}
