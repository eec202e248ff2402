/* links_html.c: link extraction from HTML, links_scan_html(); see
 * links.h. This file is the tokenizer; links_tree.c the rest.
 *
 * A browser finds a page's links by parsing it into a tree by the HTML
 * standard (WHATWG) and looking at its elements. We do not build the
 * tree: we run the standard's tokenizer over the page and keep, of tree
 * construction, only the state that decides which tokens become elements
 * we report and how later bytes are tokenised (DESIGN.md, "Link
 * extraction", says why this replaced libxml2's HTML4 parser):
 *  - the tokenizer, here, complete where it can change which tags are seen:
 *    comments (also "<!-->"), bogus comments, DOCTYPE, CDATA sections
 *    (only in SVG/MathML), RCDATA, RAWTEXT, script data with its escape
 *    states, PLAINTEXT; attribute values with the standard's character
 *    references (links_tables.c); a tag cut off by the end of the page is
 *    no tag;
 *  - of tree construction (links_tree.c): whether the document has begun its
 * body or become a frameset (and the frameset-ok flag that decides it), the
 *    depth of <template> content (inert: nothing in it counts), a
 *    <select> (which drops most tags), and a stack of the SVG/MathML
 *    elements open (whose content is tokenised without raw-text
 *    elements), with the tags that break out of it.
 * Text is skipped with memchr(); only the tags we report have their
 * attribute values decoded.
 *
 * Links are held back until the <base> is known and no <frameset> can
 * remove them (links_tree.c). All per-call state lives in a scan_t
 * (links_int.h) on the caller's stack. */
#include "links.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "links_int.h"
#include "strbuf.h"

/* The names of the attributes we read, by A_* (links_int.h). */
static const char *const attr_names[A_N] = { "href",    "src",     "rel",
                                             "name",    "content", "type",
                                             "encoding" };

static bool is_alnum(unsigned char c)
{
  return ascii_isalpha(c) || ascii_isdigit(c);
}

/* ---- character references in attribute values ---- */

static const links_entity_t *entity_find(const char *name, size_t len)
{
  size_t lo = 0, hi = links_nentities;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *e = links_entities[mid].name;
    int c = strncmp(name, e, len);
    if (c == 0 && e[len] != '\0')
      c = -1;
    if (c == 0)
      return &links_entities[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* The reference at p[0] == '&' of p[0..n), in an attribute value:
 * append what it stands for to o and return the bytes it takes; 0 if it
 * is no reference (the '&' is then text). */
static size_t charref(const unsigned char *p, size_t n, strbuf_t *o)
{
  if (n < 2)
    return 0;
  if (p[1] == '#') {
    size_t i = 2;
    bool hex = i < n && (p[i] == 'x' || p[i] == 'X');
    if (hex)
      i++;
    size_t digits = i;
    uint32_t v = 0;
    bool big = false;
    while (i < n) {
      int d = hex ? ascii_hexval(p[i])
                  : (ascii_isdigit(p[i]) ? p[i] - '0' : -1);
      if (d < 0)
        break;
      v = v * (hex ? 16 : 10) + (uint32_t)d;
      if (v > 0x10FFFF) {
        big = true;
        v = 0x110000;
      }
      i++;
    }
    if (i == digits)
      return 0;
    if (i < n && p[i] == ';')
      i++;
    if (big || v == 0 || (v >= 0xD800 && v <= 0xDFFF))
      v = 0xFFFD;
    else if (v >= 0x80 && v <= 0x9F && links_c1_remap[v - 0x80] != 0)
      v = links_c1_remap[v - 0x80];
    links_put_utf8(o, v);
    return i;
  }
  if (!is_alnum(p[1]))
    return 0;
  size_t run = 1;
  while (1 + run < n && run <= links_entity_maxname && is_alnum(p[1 + run]))
    run++;
  const char *name = (const char *)p + 1;
  const links_entity_t *e = NULL;
  size_t m = 0;
  if (1 + run < n && p[1 + run] == ';') {
    e = entity_find(name, run + 1);
    m = run + 1;
  }
  for (size_t k = run; e == NULL && k > 0; k--) {
    e = entity_find(name, k);
    m = k;
  }
  if (e == NULL)
    return 0;
  /* In an attribute, a reference without ';' followed by '=' or an
   * alphanumeric stays text ("?a=1&copy=2"). */
  if (name[m - 1] != ';' && 1 + m < n &&
      (p[1 + m] == '=' || is_alnum(p[1 + m])))
    return 0;
  strbuf_adds(o, e->utf8);
  return 1 + m;
}

/* Decode the attribute value p[0..n) into o: character references, NUL
 * as U+FFFD, CR and CRLF as LF. */
static void attr_decode(const unsigned char *p, size_t n, strbuf_t *o)
{
  strbuf_reset(o);
  strbuf_reserve(o, n);
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && p[j] != '&' && p[j] != '\0' && p[j] != '\r')
      j++;
    strbuf_add(o, p + i, j - i);
    if (j == n)
      break;
    i = j;
    if (p[i] == '&') {
      size_t k = charref(p + i, n - i, o);
      if (k == 0) {
        strbuf_addc(o, '&');
        k = 1;
      }
      i += k;
    } else if (p[i] == '\0') {
      links_put_utf8(o, 0xFFFD);
      i++;
    } else {
      strbuf_addc(o, '\n');
      i += i + 1 < n && p[i + 1] == '\n' ? 2 : 1;
    }
  }
}

/* ---- the tokenizer ---- */

/* Read a tag from s->i (just after "<" or "</", at its name's first
 * letter) to just after its '>'. Returns false if the page ends first
 * (the tag is then dropped, as the standard says). The name goes to
 * s->name (lower case); with want_values, the values of the attributes
 * we read go to s->val. */
static bool read_tag(scan_t *s, bool is_end)
{
  const unsigned char *b = s->b;
  size_t n = s->n, i = s->i;
  size_t k = 0;
  bool long_name = false;
  while (i < n && !links_is_ws(b[i]) && b[i] != '/' && b[i] != '>') {
    if (k < NAME_MAX_LEN)
      s->name[k++] = (char)ascii_tolower(b[i]);
    else
      long_name = true;
    i++;
  }
  if (long_name)
    k = 0; /* "" matches nothing */
  s->name[k] = '\0';
  s->namelen = k;
  s->selfclose = false;
  s->font_attr = false;
  bool want = !is_end && k > 0 && links_wants_values(s->name);
  if (want)
    memset(s->has, 0, sizeof s->has);
  for (;;) {
    while (i < n && links_is_ws(b[i]))
      i++;
    if (i >= n)
      return false;
    if (b[i] == '>') {
      s->i = i + 1;
      return true;
    }
    if (b[i] == '/') {
      i++;
      if (i < n && b[i] == '>') {
        s->selfclose = true;
        s->i = i + 1;
        return true;
      }
      continue;
    }
    /* An attribute name: its first character may be '='. */
    size_t an = i++;
    while (i < n && !links_is_ws(b[i]) && b[i] != '/' && b[i] != '>' &&
           b[i] != '=')
      i++;
    size_t anlen = i - an;
    while (i < n && links_is_ws(b[i]))
      i++;
    if (i >= n)
      return false;
    size_t v = 0, vlen = 0;
    if (b[i] == '=') {
      i++;
      while (i < n && links_is_ws(b[i]))
        i++;
      if (i >= n)
        return false;
      if (b[i] == '"' || b[i] == '\'') {
        const unsigned char *q = memchr(b + i + 1, b[i], n - i - 1);
        if (q == NULL)
          return false;
        v = i + 1;
        vlen = (size_t)(q - b) - v;
        i = (size_t)(q - b) + 1;
      } else if (b[i] != '>') {
        v = i;
        while (i < n && !links_is_ws(b[i]) && b[i] != '>')
          i++;
        if (i >= n)
          return false;
        vlen = i - v;
      }
    }
    if (!want)
      continue;
    if (anlen >= 4 && anlen <= 5 && strcmp(s->name, "font") == 0) {
      /* color, face, size, in any case */
      char a[6];
      for (size_t j = 0; j < anlen; j++)
        a[j] = (char)ascii_tolower(b[an + j]);
      a[anlen] = '\0';
      if (strcmp(a, "color") == 0 || strcmp(a, "face") == 0 ||
          strcmp(a, "size") == 0)
        s->font_attr = true;
    }
    for (int j = 0; j < A_N; j++) {
      const char *w = attr_names[j];
      size_t wl = strlen(w);
      if (anlen != wl || s->has[j])
        continue;
      size_t m = 0;
      while (m < wl && ascii_tolower(b[an + m]) == w[m])
        m++;
      if (m < wl)
        continue;
      s->has[j] = true; /* the first of duplicates counts */
      attr_decode(b + v, vlen, &s->val[j]);
      if (s->val[j].oom)
        links_scan_nomem(s);
      break;
    }
  }
}

/* Skip to just after the first '>' at or after from (end of page if
 * none). */
static size_t to_gt(const scan_t *s, size_t from)
{
  if (from >= s->n)
    return s->n;
  const unsigned char *gt = memchr(s->b + from, '>', s->n - from);
  return gt != NULL ? (size_t)(gt - s->b) + 1 : s->n;
}

/* A comment starting at s->i == "<!--": its end. */
static size_t comment_end(const scan_t *s)
{
  const unsigned char *b = s->b;
  size_t n = s->n, i = s->i + 4;
  if (i < n && b[i] == '>')
    return i + 1; /* "<!-->" */
  if (i + 1 < n && b[i] == '-' && b[i + 1] == '>')
    return i + 2; /* "<!--->" */
  for (;;) {
    const unsigned char *d = i < n ? memchr(b + i, '-', n - i) : NULL;
    if (d == NULL)
      return n;
    i = (size_t)(d - b);
    if (i + 2 < n && b[i + 1] == '-' && b[i + 2] == '>')
      return i + 3;
    if (i + 3 < n && b[i + 1] == '-' && b[i + 2] == '!' && b[i + 3] == '>')
      return i + 4;
    i++;
  }
}

/* Is b[i..] "</" + text_end followed by whitespace, '/' or '>' (the end
 * tag that ends raw text)? */
static bool at_text_end(const scan_t *s, size_t i)
{
  size_t k = strlen(s->text_end);
  if (s->n - i < k + 3 || s->b[i + 1] != '/')
    return false;
  for (size_t j = 0; j < k; j++)
    if (ascii_tolower(s->b[i + 2 + j]) != s->text_end[j])
      return false;
  unsigned char c = s->b[i + 2 + k];
  return links_is_ws(c) || c == '/' || c == '>';
}

/* RCDATA and RAWTEXT: to the end tag (its '<'), or the end of page. */
static size_t raw_end(const scan_t *s, size_t i)
{
  for (;;) {
    const unsigned char *lt = i < s->n ? memchr(s->b + i, '<', s->n - i) : NULL;
    if (lt == NULL)
      return s->n;
    i = (size_t)(lt - s->b);
    if (at_text_end(s, i))
      return i;
    i++;
  }
}

/* Does b[i..] start "<script" / "</script" (at the '<', slash given)
 * followed by whitespace, '/' or '>'? */
static bool at_script_word(const scan_t *s, size_t i, bool slash)
{
  size_t k = i + 1 + (slash ? 1 : 0);
  if (slash && (k > s->n || s->b[i + 1] != '/'))
    return false;
  if (s->n - k < 7)
    return false;
  for (size_t j = 0; j < 6; j++)
    if (ascii_tolower(s->b[k + j]) != "script"[j])
      return false;
  unsigned char c = s->b[k + 6];
  return links_is_ws(c) || c == '/' || c == '>';
}

/* Script data, with the escape states ("<!--" ... "-->", and "<script"
 * inside it, where "</script>" does not end the script): the index of
 * the '<' of the end tag, or the end of page. */
static size_t script_end(const scan_t *s, size_t i)
{
  const unsigned char *b = s->b;
  size_t n = s->n;
  enum { DATA, ESC, DESC } st = DATA;
  int dashes = 0; /* dashes just read, in ESC and DESC */
  while (i < n) {
    if (st == DATA) {
      const unsigned char *lt = memchr(b + i, '<', n - i);
      if (lt == NULL)
        return n;
      i = (size_t)(lt - b);
      if (at_script_word(s, i, true))
        return i;
      if (n - i >= 4 && memcmp(b + i, "<!--", 4) == 0) {
        st = ESC;
        dashes = 2;
        i += 4;
      } else {
        i++;
      }
      continue;
    }
    unsigned char c = b[i];
    if (c == '-') {
      dashes++;
      i++;
      continue;
    }
    if (c == '>' && dashes >= 2) {
      st = DATA;
      i++;
      continue;
    }
    dashes = 0;
    if (c == '<') {
      if (st == ESC && at_script_word(s, i, true))
        return i;
      if (st == ESC && at_script_word(s, i, false)) {
        st = DESC;
        i += 7;
        continue;
      }
      if (st == DESC && at_script_word(s, i, true)) {
        st = ESC;
        i += 8;
        continue;
      }
    }
    i++;
  }
  return n;
}

/* After a start tag that switched the tokenizer: skip the text. */
static void skip_text(scan_t *s)
{
  int how = s->text;
  s->text = T_DATA;
  if (how == T_PLAINTEXT)
    s->i = s->n;
  else if (how == T_SCRIPT)
    s->i = script_end(s, s->i);
  else
    s->i = raw_end(s, s->i);
}

static void tokenize(scan_t *s)
{
  const unsigned char *b = s->b;
  size_t n = s->n;
  while (s->i < n && !s->stopped) {
    if (s->text != T_DATA) {
      skip_text(s);
      continue;
    }
    size_t i = s->i;
    const unsigned char *lt = memchr(b + i, '<', n - i);
    size_t p = lt != NULL ? (size_t)(lt - b) : n;
    links_data_text(s, i, p);
    if (p + 1 >= n) {
      if (p < n)
        links_data_text(s, p, n); /* a lone '<' at the end is text */
      s->i = n;
      break;
    }
    unsigned char c = b[p + 1];
    if (ascii_isalpha(c)) {
      s->i = p + 1;
      if (!read_tag(s, false)) {
        s->i = n;
        break;
      }
      if (!s->stopped && s->namelen > 0)
        links_start_tag(s);
      else if (!s->stopped)
        links_body_begins(s);
    } else if (c == '/') {
      if (p + 2 >= n) {
        links_data_text(s, p, n);
        s->i = n;
      } else if (ascii_isalpha(b[p + 2])) {
        s->i = p + 2;
        if (!read_tag(s, true)) {
          s->i = n;
          break;
        }
        if (s->namelen > 0)
          links_end_tag(s);
      } else if (b[p + 2] == '>') {
        s->i = p + 3;
      } else {
        s->i = to_gt(s, p + 2); /* bogus comment */
      }
    } else if (c == '!') {
      s->i = p;
      if (n - p >= 4 && b[p + 2] == '-' && b[p + 3] == '-') {
        s->i = comment_end(s);
      } else if (n - p >= 9 &&
                 ascii_strnieq((const char *)b + p + 2, "doctype", 7)) {
        s->i = to_gt(s, p + 9);
      } else if (n - p >= 9 && memcmp(b + p + 2, "[CDATA[", 7) == 0 &&
                 s->fdepth > 0) {
        /* CDATA is text, from after "<![CDATA[" to "]]>" or the end */
        size_t k = p + 9, text_end = n;
        for (;;) {
          const unsigned char *r = k < n ? memchr(b + k, ']', n - k) : NULL;
          if (r == NULL) {
            k = n;
            break;
          }
          k = (size_t)(r - b);
          if (n - k >= 3 && b[k + 1] == ']' && b[k + 2] == '>') {
            text_end = k;
            k += 3;
            break;
          }
          k++;
        }
        links_data_text(s, p + 9, text_end);
        s->i = k;
      } else {
        s->i = to_gt(s, p + 2); /* bogus comment */
      }
    } else if (c == '?') {
      s->i = to_gt(s, p + 2); /* bogus comment */
    } else {
      links_data_text(s, p, p + 1); /* '<' is text */
      s->i = p + 1;
    }
  }
}

/* See links.h. */
int links_scan_html(const char *body, size_t len, const char *charset,
                    const links_sink_t *sink)
{
  assert(sink != NULL);
  assert(body != NULL || len == 0);
  if (sink->link == NULL && sink->base == NULL && sink->meta_robots == NULL)
    return LINKS_OK;
  if (body == NULL)
    body = "";

  size_t bom;
  int valid;
  const char *enc = links_sniff(body, len, charset, &bom, &valid);
  const char *p = body + bom;
  size_t n = len - bom;
  char *decoded = NULL;
  /* Tokenise the bytes as they are when they are UTF-8 already (valid),
   * or ASCII in an encoding that keeps ASCII as it is; else as UTF-8. */
  bool as_is = false;
  bool utf16 = strncmp(enc, "UTF-16", 6) == 0;
  const unsigned char *u = (const unsigned char *)p;
  if (valid >= 0) /* sniffed from the bytes: ASCII, or valid UTF-8 */
    as_is = valid == 1;
  else if (strcmp(enc, "UTF-8") == 0)
    as_is = links_utf8_valid(u, n);
  else if (!utf16 && strcmp(enc, "replacement") != 0 &&
           strcmp(enc, "ISO-2022-JP") != 0)
    as_is = links_ascii_prefix(u, n) == n;
  if (!as_is) {
    if (!links_decode(p, n, enc, &decoded, &n))
      return LINKS_ENOMEM;
    p = decoded;
  }

  scan_t s = { .sink = sink, .mode = M_HEAD, .frameset_ok = true };
  s.b = (const unsigned char *)p;
  s.n = n;
  s.enc = enc;
  s.qenc = links_query_encoding(enc);
  tokenize(&s);
  if (!s.stopped) {
    s.base_seen = true; /* nothing can change the links now */
    s.frameset_ok = false;
    links_deliver_pending(&s);
  }
  int result = LINKS_OK;
  if (s.nomem)
    result = LINKS_ENOMEM;
  else if (s.stopped)
    result = LINKS_STOPPED;
  for (int k = 0; k < A_N; k++)
    strbuf_release(&s.val[k]);
  strbuf_release(&s.pend);
  free(s.fstack);
  free(decoded);
  return result;
}
