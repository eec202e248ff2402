/* links_text.c: the link-format scanner, links_scan_text(); see links.h.
 *
 * A file of its own: a library or program that links libcommon.a for
 * this scanner alone gets this object alone, with nothing of the HTML
 * scanner behind it. So it uses only libc and libcs50, never a symbol of
 * the HTML scanner's files (links_html.c, links_charset.c,
 * links_tables.c); `nm -u` on its object shows it. */
#include "links.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "strbuf.h"

/* The token separators of links.h: C's isspace() in the "C" locale. */
static bool is_text_space(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

/* See links.h. */
int links_scan_text(const char *body, size_t len, const links_sink_t *sink)
{
  static const char prefix[] = "link:";
  const size_t plen = sizeof prefix - 1;

  assert(sink != NULL);
  assert(body != NULL || len == 0);
  if (sink->link == NULL)
    return LINKS_OK;

  /* The body is not NUL-terminated after a token: each URL is copied out
   * into one buffer, reused from link to link. */
  strbuf_t url = STRBUF_INIT;
  int result = LINKS_OK;
  size_t i = 0;
  while (i < len) {
    while (i < len && is_text_space((unsigned char)body[i]))
      i++;
    size_t start = i;
    while (i < len && !is_text_space((unsigned char)body[i]))
      i++;
    size_t toklen = i - start;
    if (toklen <= plen || memcmp(body + start, prefix, plen) != 0)
      continue;
    const char *u = body + start + plen;
    size_t ulen = toklen - plen;
    if (memchr(u, '\0', ulen) != NULL)
      continue;
    strbuf_reset(&url);
    strbuf_add(&url, u, ulen);
    if (url.oom) {
      result = LINKS_ENOMEM;
      break;
    }
    if (sink->link(sink->arg, url.p, 0) != 0) {
      result = LINKS_STOPPED;
      break;
    }
  }
  strbuf_release(&url);
  return result;
}
