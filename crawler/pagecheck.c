/* pagecheck.c: see pagecheck.h. No locks: nothing here is shared. */
#include "pagecheck.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "links.h"
#include "robots.h"

/* A path in which one segment occurs more often than this is a crawler
 * trap (/a/a/a/..., relative links that pile up on a misconfigured
 * server) and is not followed. */
enum { MAX_SEGMENT_REPEAT = 3 };
/* Bytes looked at to tell a binary body served as text. */
enum { SNIFF_BYTES = 1024 };

bool pagecheck_trap(const char *path)
{
  size_t plen = strcspn(path, "?");
  enum { MAX_SEGS = 256 };
  const char *seg[MAX_SEGS];
  size_t len[MAX_SEGS], n = 0;
  for (size_t i = 0; i < plen && n < MAX_SEGS;) {
    while (i < plen && path[i] == '/')
      i++;
    size_t j = i;
    while (j < plen && path[j] != '/')
      j++;
    if (j > i) {
      seg[n] = path + i;
      len[n++] = j - i;
    }
    i = j;
  }
  for (size_t a = 0; a < n; a++) {
    int count = 1;
    for (size_t b = a + 1; b < n; b++)
      if (len[b] == len[a] && memcmp(seg[a], seg[b], len[a]) == 0)
        count++;
    if (count > MAX_SEGMENT_REPEAT)
      return true;
  }
  return false;
}

/* A NUL byte near the start, or the signature of a common binary format.
 * UTF-16 pages start with a byte-order mark and are let through. */
bool pagecheck_binary(const char *body, size_t len)
{
  static const struct { const char *sig; size_t n; } sigs[] = {
    { "%PDF-", 5 }, { "\x89PNG", 4 }, { "GIF8", 4 }, { "\xff\xd8\xff", 3 },
    { "PK\x03\x04", 4 }, { "\x1f\x8b", 2 }, { "Rar!", 4 },
    { "7z\xbc\xaf", 4 }, { "OggS", 4 }, { "ID3", 3 }, { "RIFF", 4 },
    { "\x7f" "ELF", 4 }, { "BZh", 3 }, { "\xfd" "7zXZ", 5 },
    { "wOFF", 4 }, { "wOF2", 4 },
  };
  if (len >= 2 && ((body[0] == '\xff' && body[1] == '\xfe') ||
                   (body[0] == '\xfe' && body[1] == '\xff')))
    return false;
  for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
    if (len >= sigs[i].n && memcmp(body, sigs[i].sig, sigs[i].n) == 0)
      return true;
  return memchr(body, '\0', len < SNIFF_BYTES ? len : SNIFF_BYTES) != NULL;
}

/* Runs on every page at maxDepth, so the first byte is tested before a
 * comparison is started; a NUL in BODY never matches, since strncasecmp
 * stops there unequal. */
bool pagecheck_mentions(const char *body, size_t len, const char *word)
{
  size_t n = strlen(word);
  int c = tolower((unsigned char)word[0]);
  for (size_t i = 0; i + n <= len; i++)
    if (tolower((unsigned char)body[i]) == c &&
        strncasecmp(body + i, word, n) == 0)
      return true;
  return false;
}

pagecheck_kind_t pagecheck_sniff(const fetch_result_t *r, int format,
                                 const char *agent)
{
  pagecheck_kind_t k = { .binary = false };
  if (pagecheck_binary(r->body, r->len)) {
    k.binary = true;
    return k;
  }
  if (agent != NULL && r->x_robots_tag != NULL)
    k.robots = robots_directives(r->x_robots_tag, agent);
  k.text = format == FORMAT_LINK ||
           (format == FORMAT_AUTO && fetch_is_text_plain(r->content_type));
  return k;
}

/* The sink's argument for pagecheck_meta_robots. */
struct meta_scan {
  const char *agent;
  unsigned robots;  /* the directives found so far, ORed */
};

static int on_meta(void *arg, const char *name, const char *content)
{
  struct meta_scan *s = arg;
  (void)name;
  s->robots |= robots_directives(content, s->agent);
  return 0;
}

unsigned pagecheck_meta_robots(const fetch_result_t *r, const char *agent)
{
  if (!pagecheck_mentions(r->body, r->len, "robots") &&
      (agent[0] == '\0' || !pagecheck_mentions(r->body, r->len, agent)))
    return 0;
  struct meta_scan s = { .agent = agent };
  links_sink_t sink = { .meta_robots = on_meta, .meta_agent = agent,
                        .arg = &s };
  char cs[64];
  links_scan_html(r->body, r->len,
                  fetch_charset(r->content_type, cs, sizeof(cs)), &sink);
  return s.robots;
}
