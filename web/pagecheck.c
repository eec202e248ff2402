/* pagecheck.c: see pagecheck.h. No locks: nothing here is shared. */
#include "pagecheck.h"

#include <string.h>

#include "ascii.h"
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

/* utf16_bom: BODY starts with a UTF-16 byte-order mark (either order). */
static bool utf16_bom(const char *body, size_t len)
{
  return len >= 2 && ((body[0] == '\xff' && body[1] == '\xfe') ||
                      (body[0] == '\xfe' && body[1] == '\xff'));
}

/* A NUL byte near the start, or the signature of a common binary format.
 * UTF-16 pages start with a byte-order mark and are let through. */
bool pagecheck_binary(const char *body, size_t len)
{
  static const struct {
    const char *sig;
    size_t n;
  } sigs[] = {
    { "%PDF-", 5 },
    { "\x89PNG", 4 },
    { "GIF8", 4 },
    { "\xff\xd8\xff", 3 },
    { "PK\x03\x04", 4 },
    { "\x1f\x8b", 2 },
    { "Rar!", 4 },
    { "7z\xbc\xaf", 4 },
    { "OggS", 4 },
    { "ID3", 3 },
    { "RIFF", 4 },
    { "\x7f"
      "ELF",
      4 },
    { "BZh", 3 },
    { "\xfd"
      "7zXZ",
      5 },
    { "wOFF", 4 },
    { "wOF2", 4 },
  };
  if (utf16_bom(body, len))
    return false;
  for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
    if (len >= sigs[i].n && memcmp(body, sigs[i].sig, sigs[i].n) == 0)
      return true;
  return memchr(body, '\0', len < SNIFF_BYTES ? len : SNIFF_BYTES) != NULL;
}

/* html_char: the character an HTML parser reads at B[*I] (*I < LEN), as
 * far as ASCII goes, and *I moved past it: the byte itself, or for a
 * numeric character reference ("&#114;", "&#x72;", any number of digits,
 * the ';' optional, as parsers take it) what it names, -1 for anything
 * beyond ASCII. Named references name no ASCII letter or digit, so they
 * stay bytes. */
static int html_char(const char *b, size_t len, size_t *i)
{
  size_t j = *i + 1;
  int c = (unsigned char)b[*i];
  if (c != '&' || j + 1 >= len || b[j] != '#') {
    *i = j;
    return c;
  }
  j++;
  bool hex = b[j] == 'x' || b[j] == 'X';
  if (hex)
    j++;
  size_t start = j;
  unsigned long v = 0;
  for (; j < len; j++) {
    int ch = (unsigned char)b[j];
    int d = hex ? ascii_hexval(ch) : ascii_isdigit(ch) ? ch - '0' : -1;
    if (d < 0)
      break;
    if (v < 0x110000)
      v = v * (hex ? 16 : 10) + (unsigned long)d;
  }
  if (j == start) { /* "&#" and no digit: only the '&' counts */
    *i += 1;
    return c;
  }
  if (j < len && b[j] == ';')
    j++;
  *i = j;
  return v < 0x80 ? (int)v : -1;
}

/* match_at: whether BODY[I..LEN) starts with WORD as pagecheck_mentions
 * reads it; if so *END is set past the match. */
static bool match_at(const char *body, size_t len, size_t i, const char *word,
                     size_t *end)
{
  size_t k = 0;
  while (word[k] != '\0' && i < len &&
         ascii_tolower(html_char(body, len, &i)) ==
           ascii_tolower((unsigned char)word[k]))
    k++;
  *end = i;
  return word[k] == '\0';
}

/* Runs on every page at maxDepth, so a comparison starts only where the
 * byte is the word's first letter or a '&'; a NUL in BODY never matches,
 * as WORD has none. */
bool pagecheck_mentions(const char *body, size_t len, const char *word)
{
  int first = ascii_tolower((unsigned char)word[0]);
  size_t end;
  for (size_t i = 0; i < len; i++) {
    int c = ascii_tolower((unsigned char)body[i]);
    if ((c == first || c == '&') && match_at(body, len, i, word, &end))
      return true;
  }
  return false;
}

/* ascii_label: whether the charset label L (N bytes) is known to name an
 * encoding that writes ASCII as ASCII bytes, so that a parser reads a
 * word of ASCII only where the bytes spell it: UTF-8, ISO 8859, Windows
 * and Mac code pages, KOI8, the CJK multibyte encodings. Not: UTF-16 and
 * UTF-32, UTF-7, EBCDIC, and any label not listed here. */
static bool ascii_label(const char *l, size_t n)
{
  static const char *const prefix[] = {
    "utf-8",     "utf8",      "us-ascii", "ascii", "iso-8859-", "iso8859",
    "iso_8859",  "latin",     "windows-", "cp125", "koi8",      "shift_jis",
    "shift-jis", "sjis",      "x-sjis",   "euc-",  "x-euc",     "gb",
    "big5",      "iso-2022-", "tis-620",  "mac",   "x-mac",
  };
  for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
    size_t m = strlen(prefix[i]);
    if (n >= m && ascii_strnieq(l, prefix[i], m))
      return true;
  }
  return false;
}

/* foreign_label: whether the charset named at BODY[I..LEN), after a
 * "charset" (a <meta charset>, an http-equiv Content-Type, which libxml2
 * honours mid-page, or just text), is one not known to write ASCII as
 * ASCII (ascii_label), read as a parser reads it (references count). A
 * "charset" without '=' after it names nothing. */
static bool foreign_label(const char *body, size_t len, size_t i)
{
  int c;
  do
    c = i < len ? html_char(body, len, &i) : -1;
  while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f');
  if (c != '=')
    return false;
  do
    c = i < len ? html_char(body, len, &i) : -1;
  while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '"' || c == '\'');
  char label[32];
  size_t n = 0;
  while (n < sizeof(label) && (ascii_isalpha(c) || ascii_isdigit(c) ||
                               c == '-' || c == '_' || c == '.' || c == ':')) {
    label[n++] = (char)c;
    c = i < len ? html_char(body, len, &i) : -1;
  }
  return !ascii_label(label, n);
}

static bool tag_ws(int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* meta_at: whether BODY[I..LEN) starts a meta start tag as the HTML
 * tokenizer reads one: "<meta", in any ASCII case, ended by white space,
 * '/' or '>' (a tag name is never written with references). */
static bool meta_at(const char *body, size_t len, size_t i)
{
  return len - i > 5 && ascii_strnieq(body + i + 1, "meta", 4) &&
         (tag_ws((unsigned char)body[i + 5]) || body[i + 5] == '/' ||
          body[i + 5] == '>');
}

/* tag_end: the end of the attributes of the tag whose name ends at
 * BODY[I], read as links_html.c's read_tag reads them (the HTML
 * tokenizer's attribute states): the index of its '>', or LEN when the
 * page ends first. A '>' inside a quoted value does not end it. */
static size_t tag_end(const char *body, size_t len, size_t i)
{
  for (;;) {
    while (i < len && (tag_ws((unsigned char)body[i]) || body[i] == '/'))
      i++;
    if (i >= len || body[i] == '>')
      return i;
    i++; /* an attribute name; its first character may be '=' */
    while (i < len && !tag_ws((unsigned char)body[i]) && body[i] != '/' &&
           body[i] != '>' && body[i] != '=')
      i++;
    while (i < len && tag_ws((unsigned char)body[i]))
      i++;
    if (i >= len || body[i] != '=')
      continue;
    i++;
    while (i < len && tag_ws((unsigned char)body[i]))
      i++;
    if (i < len && (body[i] == '"' || body[i] == '\'')) {
      const char *q = memchr(body + i + 1, body[i], len - i - 1);
      if (q == NULL)
        return len;
      i = (size_t)(q - body) + 1;
    } else {
      while (i < len && !tag_ws((unsigned char)body[i]) && body[i] != '>')
        i++;
    }
  }
}

/* Only meta tags are read for robots metas (links_html.c's on_meta) and
 * for a charset (the prescan, links_charset.c), so only their attributes
 * are searched: '<' is found with memchr, and a tag's extent (quoted
 * values and all) is read as the tokenizer reads it. Within one, a table
 * marks the bytes a match can start with, the first letter of a word in
 * either case, and '&' for all of them. Text that merely mentions robots
 * costs nothing more than the memchr. */
bool pagecheck_meta_possible(const char *body, size_t len, const char *charset,
                             const char *agent)
{
  if (utf16_bom(body, len))
    return true; /* UTF-16 */
  if (memchr(body, '\0', len) != NULL)
    return true; /* UTF-16 or UTF-32 without a BOM, or bytes a parser
                    may read otherwise */
  if (charset != NULL && !ascii_label(charset, strlen(charset)))
    return true;
  const char *word[3] = { "robots", "charset", agent };
  int nwords = agent[0] != '\0' ? 3 : 2;
  unsigned char starts[256] = { 0 };
  for (int w = 0; w < nwords; w++) {
    unsigned char c = (unsigned char)word[w][0];
    starts[ascii_tolower(c)] |= (unsigned char)(1u << w);
    starts[c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c] |= (unsigned char)(1u
                                                                        << w);
  }
  starts['&'] = 7;
  const char *lt = body;
  while ((lt = memchr(lt, '<', len - (size_t)(lt - body))) != NULL) {
    size_t at = (size_t)(lt - body);
    lt++;
    if (!meta_at(body, len, at))
      continue;
    size_t end = tag_end(body, len, at + 5);
    /* A "<meta" that is no tag (in a comment, in an attribute value) may
     * reach, read as a tag, into a real one that starts inside it and
     * ends later: a '<' within is the full parse's to judge. Not resumed
     * at the '<' instead, which would make "<meta a<meta a..." quadratic. */
    if (memchr(body + at + 5, '<', end > at + 5 ? end - at - 5 : 0) != NULL)
      return true;
    for (size_t i = at + 5; i < end; i++) {
      unsigned m = starts[(unsigned char)body[i]];
      if (m == 0)
        continue;
      size_t past;
      for (int w = 0; w < nwords; w++)
        if ((m & (1u << w)) && match_at(body, end, i, word[w], &past) &&
            (w != 1 || foreign_label(body, end, past)))
          return true;
    }
    if (end >= len)
      break;
    lt = body + end;
  }
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
  unsigned robots; /* the directives found so far, ORed */
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
  char cs[64];
  const char *charset = fetch_charset(r->content_type, cs, sizeof(cs));
  if (!pagecheck_meta_possible(r->body, r->len, charset, agent))
    return 0;
  struct meta_scan s = { .agent = agent };
  links_sink_t sink = { .meta_robots = on_meta,
                        .meta_agent = agent,
                        .arg = &s };
  links_scan_html(r->body, r->len, charset, &sink);
  return s.robots;
}
