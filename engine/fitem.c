/* fitem.c: fitem_new, fitem_set_url, fitem_delete (frontier.h): one URL
 * on its way through the crawl, allocated with its URL in one block. */
#include <stdlib.h>
#include <string.h>

#include "frontier.h"

fitem_t *fitem_new(const char *url, int depth)
{
  size_t len = strlen(url);
  fitem_t *it = calloc(1, sizeof(*it) + len + 1);
  if (it == NULL)
    return NULL;
  memcpy(it->url, url, len + 1);
  it->depth = depth;
  return it;
}

fitem_t *fitem_set_url(fitem_t *it, const char *url)
{
  size_t len = strlen(url);
  fitem_t *n = malloc(sizeof(*n) + len + 1);
  if (n == NULL)
    return NULL;
  *n = *it;
  memcpy(n->url, url, len + 1);
  free(it);
  return n;
}

void fitem_delete(fitem_t *it)
{
  free(it);
}
