/* page.c: see page.h. No locks: a record has one user at a time. */
#include "page.h"

#include <stdlib.h>
#include <unistd.h>

#include "pagecheck.h"
#include "robots.h"

struct page *page_of(fitem_t *it)
{
  if (it->data == NULL)
    it->data = calloc(1, sizeof(struct page));
  return it->data;
}

void page_robots(struct page *p, unsigned d)
{
  if (d & ROBOTS_NOINDEX)
    p->noindex = true;
  if (d & ROBOTS_NOFOLLOW)
    p->nofollow = true;
}

void page_sniff(struct page *p, int format, const char *agent)
{
  fetch_result_t *r = &p->res;
  pagecheck_kind_t k = pagecheck_sniff(r, format, agent);
  p->sniffed = true;
  p->binary = k.binary;
  p->text = k.text;
  page_robots(p, k.robots);
  if (p->binary) {
    free(r->body);
    r->body = NULL;
  }
}

void page_free(struct page *p)
{
  if (p == NULL)
    return;
  for (int i = 0; i < p->hops; i++)
    free(p->chain[i]);
  free(p->chain);
  fetch_result_free(&p->res);
  for (size_t i = 0; i < p->nlinks; i++) {
    free(p->links[i].url);
    free(p->links[i].key);
  }
  free(p->links);
  free(p->base);
  if (p->tmp != NULL) {
    unlink(p->tmp); /* never published: leave nothing behind */
    free(p->tmp);
  }
  free(p);
}
