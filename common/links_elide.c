/* links_elide.c: shrink a page before libxml2 parses it; see
 * links_elide.h (private to the links_*.c files).
 *
 * libxml2 2.9 (Debian 12's) spends most of a parse walking text one
 * character at a time and tokenising tags, and nearly all of both can
 * never yield a link. So before links_html.c feeds a page, two elisions
 * drop them, each argued exact where it is done:
 *  - text elision (feed_elided): runs of text;
 *  - markup elision (elide_tags): then the tags that cannot matter (span,
 *    div, code ...), by a model of libxml2 2.9.14's tokenizer.
 * What each buys: bench/RESULTS.md, "Link extraction: the parts".
 * Both work on bytes alone (libxml2 is asked only its version) and keep
 * no state between calls. */
#include "links_elide.h"

#include <stdint.h>
#include <string.h>

#include <libxml/parser.h>

#include "ascii.h"

/* Text elision, the main speed-up: libxml2 2.9 walks text one character
 * at a time, at a cost per byte (bench/RESULTS.md) far above a memchr(),
 * and text never holds a link.
 * So we copy the page to out minus every run of bytes that directly
 * follows a '>', reaches the next '<', and holds no '>' and no quote
 * character. Why that is safe:
 *  - in content, the run is text: only text disappears;
 *  - in a comment, <script>, <style>, DOCTYPE or PI, the run can hold no
 *    terminator ("-->", "</script" and so on end in '>' or start with
 *    '<', and both ends of the run are kept), so extents do not change;
 *  - inside a quoted attribute value holding '>' and later '<', the run
 *    holds no quote, so the value only gets shorter and cannot end
 *    elsewhere: href="a>b<c" comes out as "a><c" (no valid URL anyway);
 *  - bytes '<', '>' and quotes are never part of a multibyte character in
 *    UTF-8, the ISO-8859 and windows code pages, EUC, Shift_JIS, GBK,
 *    GB18030, Big5 or UTF-7, so cutting at them keeps characters whole.
 *    UTF-16 pages and pages with ISO-2022 or HZ shift sequences are fed
 *    as they are (see links_elide_safe()).
 * Cost: one pass with memchr() and a copy of the markup. Returns the
 * length written to out. */
static size_t feed_elided(const char *p, const char *end, char *out)
{
  size_t len = 0;
  /* lt caches the next '<' at or after p (end if none), so a page of many
   * '>' and few '<' still takes linear time. */
  const char *lt = p;
  while (p < end) {
    const char *gt = memchr(p, '>', (size_t)(end - p));
    const char *next = gt != NULL ? gt + 1 : end;
    memcpy(out + len, p, (size_t)(next - p));
    len += (size_t)(next - p);
    p = next;
    if (lt < p) {
      lt = memchr(p, '<', (size_t)(end - p));
      if (lt == NULL)
        lt = end;
    }
    size_t n = (size_t)(lt - p);
    if (lt < end && memchr(p, '>', n) == NULL && memchr(p, '"', n) == NULL &&
        memchr(p, '\'', n) == NULL)
      p = lt; /* drop the text run [p, lt) */
  }
  return len;
}

/* See links_elide.h. */
bool links_elide_safe(const char *p, size_t n)
{
  if (memchr(p, 0x1B, n) != NULL)
    return false;
  for (const char *q = p, *end = p + n;
       (q = memchr(q, '~', (size_t)(end - q))) != NULL; q++) {
    if (q + 1 < end && q[1] == '{')
      return false;
  }
  return true;
}

/* Markup elision, the second speed-up: with the text gone, libxml2 2.9
 * spends its time tokenising tags, and most tags of real pages (span,
 * div, p, code, li ...) can never matter to us. elide_tags() drops them
 * from out, the page as feed_elided() left it (call that stream S, and
 * S' the stream without the dropped tags). It walks S as a model of how
 * libxml2 2.9.14's push parser tokenises it, and gives up on the whole
 * page (S goes in as before) at anything it does not model exactly. Why
 * libxml2 then makes the same callbacks, with the same arguments, in the
 * same order, on S' as on S:
 *  - What is dropped: a whole start tag '<' name (blank+ attribute)*
 *    blank* ('>' | "/>"), an attribute being a name, optionally '=' and a
 *    value quoted with '"' or '\'' or unquoted, or a whole end tag "</"
 *    name blank* '>', where the model is in content (not inside a
 *    comment, a script or style body, a DOCTYPE, a PI or another tag: it
 *    follows each to its end as libxml2 does). Every byte is printable
 *    ASCII or a blank, with no '<' or '>' but the first and last; the
 *    name is letters, digits and '-', and not one that name_kind() keeps:
 *    a, area, base and meta start tags (they report something), script
 *    and style (libxml2 2.9 reads their bodies as raw text), html, head
 *    and body (it special-cases them), nor title, textarea, svg and the
 *    others whose bodies HTML or later libxml2 versions read otherwise.
 *  - Tokens: libxml2 reads such a tag from its '<' to its last '>' and is
 *    in content right after, so every other token of S is a token of S'.
 *    It must also start from the same state, and libxml2 looks ahead: what
 *    '<', "</", "<!" and "<?" start depends on up to 7 bytes after them
 *    ("<!DOCTYPE"), and "<" + "<em>" + "a href=x>" would become a link.
 *    So a tag is dropped only right after a '>' (or first in the page,
 *    after our root): every such look-ahead that reaches the cut meets
 *    that '>' first, and is decided by it alike on S and S'.
 *  - The stack: what a dropped tag changes is libxml2's stack of open
 *    element names (pushed, popped, others implicitly closed). startElement
 *    is called for every start tag in content, with its attributes,
 *    whatever the stack holds (only html, head and body are discarded
 *    depending on it, and we ignore those). The stack decides two more
 *    things. (1) Raw-text mode: entered when <script> or <style> becomes
 *    the top, left at the first "</script" (or "</style") in any case, as
 *    a prefix. Nothing is pushed in between and that end tag pops the top,
 *    unless its name only starts with "script" and names an element
 *    further down: the model gives up on "</script" or "</style" followed
 *    by a name character. (2) The end of the document: the parse ends once
 *    our root is popped. An end tag naming it pops it or not depending on
 *    what is open above it (a stray end tag cannot close a div or a
 *    table), and a discarded html, head or body start tag that ends in
 *    "/>" or not at all pops whatever is on top: the model gives up on
 *    both. All else the stack steers (implied <p>, the depth counter of
 *    discarded tags, trim_stack() of links_html.c) changes only the stack
 *    again.
 *  - The retry pass: links_html.c's on_start() checks for a failed
 *    conversion at every start tag with attributes, a dropped one
 *    included, so the first pass may stop later on S'. No item comes in
 *    between (items come from kept tags), and the conversion stays
 *    failed, except that a <meta> charset switch re-decodes the failed
 *    rest: with an HTTP charset (without, nothing is converted before
 *    such a <meta>), the model gives up on a <meta> that may switch after
 *    a dropped start tag with attributes.
 *  - Bytes decode the same: libxml2 decodes S' as S minus the dropped
 *    bytes as long as no character straddles a cut and the dropped bytes
 *    decode as themselves. The model runs only in the encodings of
 *    charset_elidable() (and gives up on a <meta> that could switch to
 *    another, or that it cannot read): UTF-8, single-byte ASCII-compatible
 *    ones, and Shift_JIS, EUC-JP, EUC-KR, GBK/GB2312 and Big5, whose
 *    multibyte characters never hold a byte below 0x40 (which '<', '>',
 *    quotes, '=', '/' and blanks are) and which start afresh after any
 *    ASCII character. A cut follows a '>', so it is between characters.
 *    libxml2 2.9 also guesses: left to detect the encoding, at the first
 *    non-ASCII character it reads before a <meta> names one, it searches
 *    the input ahead for "http-equiv", "content" and "charset=", dropped
 *    tags included, and switches to what follows. So with no HTTP charset
 *    the model gives up unless S is ASCII up to the end of the first
 *    <meta> naming a charset (after which libxml2 never guesses again);
 *    with an HTTP charset there is an encoder and no guessing, except
 *    that libxml2 may let invalid UTF-8 through and then guess: UTF-8
 *    must be valid.
 *  - Nothing else sees the dropped bytes: they are plain ASCII, so
 *    reading them changes no decoder or encoding state; libxml2 reads
 *    ahead nowhere else, the page going in as one final chunk; NUL bytes,
 *    which end libxml2's loops early, make the model give up.
 * The model follows libxml2 2.9.14 (Debian 12's), checked at run time:
 * with any other version nothing is dropped. tests/unit/common/
 * links_diff_test.c compares S and S' over the bench's real pages and
 * hostile ones. Cost: one more pass over S, on documentation about a
 * seventh of what it saves in libxml2. */

/* Character classes of the bytes, as libxml2 2.9 reads them: C_BLANK is
 * IS_BLANK_CH (no \f, no \v), C_NAME and C_START the characters of and
 * first characters of htmlParseHTMLName(); C_ALNUM what a dropped tag's
 * name may hold; C_BAD what no dropped tag holds (controls, non-ASCII,
 * '<' and '>'); C_DQ and C_SQ the quotes. */
enum {
  C_BLANK = 1,
  C_NAME = 2,
  C_START = 4,
  C_ALNUM = 8,
  C_BAD = 16,
  C_DQ = 32,
  C_SQ = 64
};

static const unsigned char cclass[256] = {
  16, 16, 16, 16, 16, 16, 16, 16, 16, 1,  1,  16, 16, 1,  16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 1,  0,  32, 0,  0,  0,
  0,  64, 0,  0,  0,  0,  0,  10, 6,  0,  10, 10, 10, 10, 10, 10, 10, 10, 10,
  10, 6,  0,  16, 0,  16, 0,  0,  14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
  14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 0,  0,  0,  0,
  6,  0,  14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
  14, 14, 14, 14, 14, 14, 14, 14, 14, 0,  0,  0,  0,  16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16,
};

static bool is_blank(unsigned char c)
{
  return cclass[c] & C_BLANK;
}

static size_t skip_blanks(const unsigned char *b, size_t n, size_t q)
{
  while (q < n && (cclass[b[q]] & C_BLANK))
    q++;
  return q;
}

/* Do b[0..n) and the lowercase word w match, ignoring ASCII case? */
static bool word_is(const unsigned char *b, size_t n, const char *w)
{
  size_t i = 0;
  while (i < n && w[i] != '\0' && ascii_tolower(b[i]) == w[i])
    i++;
  return i == n && w[i] == '\0';
}

static bool word_in(const unsigned char *b, size_t n, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    if (word_is(b, n, list[i]))
      return true;
  return false;
}

/* What an element name means to the model. */
enum {
  NAME_DROP, /* its tags may be dropped */
  NAME_KEEP, /* its tags are kept */
  NAME_A,    /* a: start tags kept, end tags may be dropped */
  NAME_META, /* kept, and may switch the encoding */
  NAME_RAW,  /* script, style: kept, raw text follows */
  NAME_PAGE, /* html, head, body: kept, special-cased by libxml2 */
  NAME_ROOT  /* LINKS_ROOT_NAME */
};

/* Classify the element name b[0..n) (libxml2 lowercases names). Names
 * with anything but letters, digits and '-' are kept; so are those of
 * the elements listed above. */
static int name_kind(const unsigned char *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!(cclass[b[i]] & C_ALNUM))
      return word_is(b, n, LINKS_ROOT_NAME) ? NAME_ROOT : NAME_KEEP;
  const char *w = NULL, *w2 = NULL;
  int kind = NAME_KEEP;
  switch (n * 256 + (size_t)ascii_tolower(b[0])) {
  case 1 * 256 + 'a':
    return NAME_A;
  case 3 * 256 + 's':
    w = "svg";
    break;
  case 3 * 256 + 'x':
    w = "xmp";
    break;
  case 4 * 256 + 'a':
    w = "area";
    break;
  case 4 * 256 + 'b':
    if (word_is(b, n, "body"))
      return NAME_PAGE;
    w = "base";
    break;
  case 4 * 256 + 'h':
    w = "html";
    w2 = "head";
    kind = NAME_PAGE;
    break;
  case 4 * 256 + 'm':
    if (word_is(b, n, "meta"))
      return NAME_META;
    w = "math";
    break;
  case 5 * 256 + 's':
    w = "style";
    kind = NAME_RAW;
    break;
  case 5 * 256 + 't':
    w = "title";
    break;
  case 6 * 256 + 's':
    w = "script";
    kind = NAME_RAW;
    break;
  case 6 * 256 + 'i':
    w = "iframe";
    break;
  case 7 * 256 + 'n':
    w = "noembed";
    break;
  case 8 * 256 + 't':
    w = "textarea";
    w2 = "template";
    break;
  case 8 * 256 + 'n':
    w = "noframes";
    w2 = "noscript";
    break;
  case 9 * 256 + 'p':
    w = "plaintext";
    break;
  default:
    return NAME_DROP;
  }
  if (word_is(b, n, w) || (w2 != NULL && word_is(b, n, w2)))
    return kind;
  return NAME_DROP;
}

/* One attribute: name b[name..+namelen), value b[val..+vallen) if has_val
 * (a quoted value without its quotes; it may run to the end of input). */
typedef struct attr {
  size_t name, namelen;
  size_t val, vallen;
  bool has_val;
} attr_t;

/* Parse the attribute whose name starts at b[q] (a name start) as
 * htmlParseAttribute() does; return the index after it and the blanks
 * that follow. start_tag() does the same inline. */
static size_t attr_parse(const unsigned char *b, size_t n, size_t q, attr_t *a)
{
  a->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  a->namelen = q - a->name;
  a->has_val = false;
  q = skip_blanks(b, n, q);
  if (q < n && b[q] == '=') {
    a->has_val = true;
    q = skip_blanks(b, n, q + 1);
    if (q < n && (b[q] == '"' || b[q] == '\'')) {
      const unsigned char *e = memchr(b + q + 1, b[q], n - q - 1);
      a->val = q + 1;
      q = e != NULL ? (size_t)(e - b) : n;
      a->vallen = q - a->val;
      if (q < n)
        q++;
    } else {
      a->val = q;
      while (q < n && !(cclass[b[q]] & C_BLANK) && b[q] != '>')
        q++;
      a->vallen = q - a->val;
    }
  }
  return skip_blanks(b, n, q);
}

/* How a tag ends: '>', "/>", or the end of input. */
enum { TAG_GT, TAG_SELF, TAG_EOF };

typedef struct tag {
  size_t end; /* index just after the tag */
  int how;    /* TAG_GT, TAG_SELF or TAG_EOF */
  bool plain; /* no C_BAD byte between its first and last */
  bool atts;  /* start tag: it has an attribute */
  size_t name, namelen;
} tag_t;

/* Tokenise the start tag at b[p] ('<', then a name start) as
 * htmlParseStartTag() does: the name, blanks, and attributes (a name,
 * optionally blanks '=' blanks and a value: quoted, to the same quote,
 * '<' and '>' included, entity references in it never swallowing the
 * quote; or unquoted, to a blank or '>'), each followed by blanks, up to
 * '>' or "/>" where an attribute would start. false where libxml2 would
 * read a bogus attribute, or at a name of 99 bytes or more (libxml2 reads
 * at most 100 at once): the model does not go there. */
static bool start_tag(const unsigned char *b, size_t n, size_t p, tag_t *t)
{
  size_t q = p + 1;
  t->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  t->namelen = q - t->name;
  if (t->namelen >= 99)
    return false;
  t->plain = true;
  t->atts = false;
  for (;;) {
    q = skip_blanks(b, n, q);
    if (q == n) {
      t->how = TAG_EOF;
      break;
    }
    unsigned char c = b[q];
    if (c == '>') {
      q++;
      t->how = TAG_GT;
      break;
    }
    if (c == '/' && q + 1 < n && b[q + 1] == '>') {
      q += 2;
      t->how = TAG_SELF;
      break;
    }
    if (!(cclass[c] & C_START))
      return false;
    t->atts = true;
    size_t a = q;
    while (q < n && (cclass[b[q]] & C_NAME))
      q++;
    if (q - a >= 99)
      return false;
    q = skip_blanks(b, n, q);
    if (q == n || b[q] != '=')
      continue;
    q = skip_blanks(b, n, q + 1);
    if (q < n && (cclass[b[q]] & (C_DQ | C_SQ))) {
      /* To the same quote; stop at C_BAD bytes on the way too. */
      int stop = (cclass[b[q++]] & (C_DQ | C_SQ)) | C_BAD;
      for (;;) {
        while (q < n && !(cclass[b[q]] & stop))
          q++;
        if (q == n || !(cclass[b[q]] & C_BAD))
          break;
        t->plain = false;
        q++;
      }
      if (q < n)
        q++;
    } else {
      while (q < n && !(cclass[b[q]] & C_BLANK) && b[q] != '>') {
        if (cclass[b[q]] & C_BAD)
          t->plain = false;
        q++;
      }
    }
  }
  t->end = q;
  return true;
}

/* Tokenise the end tag at b[p] ("</", then a name start) as
 * htmlParseEndTag() does: the name, then anything up to a '>'. plain if
 * that is just blanks. false for a name of 99 bytes or more. */
static bool end_tag(const unsigned char *b, size_t n, size_t p, tag_t *t)
{
  size_t q = p + 2;
  t->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  t->namelen = q - t->name;
  if (t->namelen >= 99)
    return false;
  q = skip_blanks(b, n, q);
  t->plain = q < n && b[q] == '>';
  t->atts = false;
  const unsigned char *gt = t->plain ? b + q : memchr(b + q, '>', n - q);
  t->how = gt != NULL ? TAG_GT : TAG_EOF;
  t->end = gt != NULL ? (size_t)(gt - b) + 1 : n;
  return true;
}

/* Charset labels (as libxml2 and iconv read them) of the encodings in
 * which a cut after '>' falls between characters and printable ASCII
 * decodes as itself (see above). Not here: stateful or composing
 * converters (UTF-7, HZ, ISO-2022, glibc's CP1255, CP1258 and
 * BIG5-HKSCS), GB18030 (a four-byte character may hold digits) and Johab
 * ('<' and '>' may be trail bytes). */
static const char *const elidable_charsets[] = {
  "utf-8",        "utf8",         "us-ascii",
  "ascii",        "iso-8859-1",   "iso-8859-2",
  "iso-8859-3",   "iso-8859-4",   "iso-8859-5",
  "iso-8859-6",   "iso-8859-7",   "iso-8859-8",
  "iso-8859-9",   "iso-8859-10",  "iso-8859-11",
  "iso-8859-13",  "iso-8859-14",  "iso-8859-15",
  "iso-8859-16",  "latin1",       "windows-1250",
  "windows-1251", "windows-1252", "windows-1253",
  "windows-1254", "windows-1256", "windows-1257",
  "koi8-r",       "koi8-u",       "shift_jis",
  "sjis",         "windows-31j",  "cp932",
  "euc-jp",       "euc-kr",       "gbk",
  "gb2312",       "big5",         NULL
};

static bool charset_elidable(const unsigned char *cs, size_t n)
{
  return word_in(cs, n, elidable_charsets);
}

static bool charset_utf8(const unsigned char *cs, size_t n)
{
  return word_is(cs, n, "utf-8") || word_is(cs, n, "utf8");
}

/* May the encoding name libxml2 would get from a <meta> value v[0..n)
 * (htmlCheckEncodingDirect(): leading spaces and tabs skipped) change
 * the page's encoding to one the model does not cover? */
static bool meta_value_unsafe(const unsigned char *v, size_t n)
{
  while (n > 0 && (*v == ' ' || *v == '\t')) {
    v++;
    n--;
  }
  return !charset_elidable(v, n);
}

/* Find the lowercase ASCII word w in b[0..n), ignoring case; the index
 * or n. */
static size_t find_ci(const unsigned char *b, size_t n, const char *w)
{
  size_t k = strlen(w);
  for (size_t i = 0; i + k <= n; i++)
    if (word_is(b + i, k, w))
      return i;
  return n;
}

/* Does the <meta> start tag b[p..end) set the page's encoding? Mirrors
 * htmlCheckMeta(): the first of each attribute name counts; a charset
 * value goes to htmlCheckEncodingDirect(), and with http-equiv=
 * "Content-Type" so does what follows "charset" and '=' in content
 * (htmlCheckEncoding()). Returns 0 if it names no encoding, 1 if all it
 * names are covered by the model, -1 if one is not or if the model cannot
 * tell (values are taken raw, so one with '&', an entity, is beyond it).
 * With dropped_atts (a start tag with attributes was dropped before it)
 * any switch at all is -1: see elide_tags(). */
static int meta_charset(const unsigned char *b, size_t p, size_t end,
                        bool dropped_atts)
{
  static const char *const names[] = { "http-equiv", "charset", "content" };
  attr_t as[3];
  bool have[3] = { false, false, false };
  size_t q = skip_blanks(b, end, p + 5);
  while (q < end && b[q] != '>' && b[q] != '/') {
    attr_t a;
    q = attr_parse(b, end, q, &a);
    for (size_t k = 0; k < 3; k++) {
      if (have[k] || !word_is(b + a.name, a.namelen, names[k]))
        continue;
      if (a.has_val && memchr(b + a.val, '&', a.vallen) != NULL)
        return -1;
      as[k] = a;
      have[k] = true;
    }
  }
  int named = 0;
  const attr_t *http = &as[0], *cs = &as[1], *content = &as[2];
  if (have[1] && cs->has_val) {
    if (dropped_atts || meta_value_unsafe(b + cs->val, cs->vallen))
      return -1;
    named = 1;
  }
  if (!have[0] || !http->has_val || !have[2] || !content->has_val ||
      !word_is(b + http->val, http->vallen, "content-type"))
    return named;
  const unsigned char *c = b + content->val;
  size_t n = content->vallen;
  size_t k = find_ci(c, n, "charset");
  if (k == n)
    return named;
  k += 7;
  if (k < n && is_blank(c[k]))
    k = find_ci(c, n, "=");
  if (k >= n || c[k] != '=')
    return named;
  if (dropped_atts || meta_value_unsafe(c + k + 1, n - k - 1))
    return -1;
  return 1;
}

/* The length of the ASCII prefix of b[0..n). */
static size_t ascii_prefix(const unsigned char *b, size_t n)
{
  size_t i = 0;
  uint64_t w;
  while (n - i >= 8 &&
         (memcpy(&w, b + i, 8), (w & UINT64_C(0x8080808080808080)) == 0))
    i += 8;
  while (i < n && b[i] < 0x80)
    i++;
  return i;
}

/* Is b[0..n) strictly valid UTF-8 (no overlongs, surrogates or values
 * past U+10FFFF)? */
static bool utf8_valid(const unsigned char *b, size_t n)
{
  size_t i = 0;
  while (i < n) {
    if (b[i] < 0x80) {
      i += ascii_prefix(b + i, n - i);
      continue;
    }
    unsigned char c = b[i];
    size_t k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
      k = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      k = 2;
      if (c == 0xE0)
        lo = 0xA0;
      else if (c == 0xED)
        hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      k = 3;
      if (c == 0xF0)
        lo = 0x90;
      else if (c == 0xF4)
        hi = 0x8F;
    } else
      return false;
    if (n - i <= k || b[i + 1] < lo || b[i + 1] > hi)
      return false;
    for (size_t j = 2; j <= k; j++)
      if ((b[i + j] & 0xC0) != 0x80)
        return false;
    i += k + 1;
  }
  return true;
}

/* Append b[from..to) to the output at *o (in place: *o <= from). */
static void keep_bytes(unsigned char *b, size_t *o, size_t from, size_t to)
{
  if (*o != from)
    memmove(b + *o, b + from, to - from);
  *o += to - from;
}

/* Drop the tags of b[0..*len) that cannot matter (see above), in place,
 * walking the stream token by token as libxml2 2.9.14 does in content;
 * detect: the encoding is left to libxml2. Returns true with the new
 * length in *len, or false if it gave up (b is then garbled: elide the
 * page again without it). */
static bool elide_tags(unsigned char *b, size_t *len, bool detect)
{
  size_t n = *len;
  size_t i = 0; /* next byte to read */
  size_t o = 0; /* next byte to write; b[o - 1] is what precedes a cut */
  bool dropped_atts = false; /* a start tag with attributes was dropped */
  /* With the encoding left to libxml2 (detect), the first non-ASCII
   * character it reads before a <meta> sets one makes it guess one from
   * a search of the input ahead: S must be ASCII up to such a <meta>. */
  size_t ascii = detect ? ascii_prefix(b, n) : n;
  if (memchr(b, '\0', n) != NULL)
    return false;
  while (i < n) {
    /* Text up to the next '<' ('&' references stop at it too). */
    size_t p = i;
    if (b[p] != '<') {
      const unsigned char *lt = memchr(b + p, '<', n - p);
      p = lt != NULL ? (size_t)(lt - b) : n;
      keep_bytes(b, &o, i, p);
      i = p;
    }
    if (n - p < 2)
      break; /* libxml2 stops at a lone '<' at the end */
    unsigned char c = b[p + 1];
    /* Only right after a '>' that ends a token or text: libxml2 decides
     * what '<', "</", "<!" and "<?" start by looking at up to 7 bytes
     * after them, which must not move into view. */
    bool cut_ok = o == 0 || b[o - 1] == '>';
    tag_t t;
    if (cclass[c] & C_START) {
      if (!start_tag(b, n, p, &t))
        return false;
      int kind = name_kind(b + t.name, t.namelen);
      if (kind == NAME_PAGE && t.how != TAG_GT)
        return false; /* may pop the top, whatever it is */
      if (kind == NAME_META) {
        int named = meta_charset(b, p, t.end, dropped_atts && !detect);
        if (named < 0 || (named > 0 && ascii < t.end))
          return false;
        if (named > 0)
          ascii = n; /* the encoding is set: libxml2 guesses no more */
      }
      if (kind == NAME_DROP && t.plain && t.how != TAG_EOF && cut_ok) {
        dropped_atts |= t.atts;
        i = t.end;
        continue;
      }
      keep_bytes(b, &o, p, t.end);
      i = t.end;
      if (kind != NAME_RAW || t.how != TAG_GT)
        continue;
      /* Raw text up to "</script" (or "</style"), any case, as a prefix
       * (htmlParseScript() in recovery mode); the end tag is next. */
      const char *raw = t.namelen == 6 ? "script" : "style";
      size_t k = i;
      for (;;) {
        const unsigned char *lt = memchr(b + k, '<', n - k);
        k = lt != NULL ? (size_t)(lt - b) : n;
        if (k == n || (n - k >= t.namelen + 2 && b[k + 1] == '/' &&
                       word_is(b + k + 2, t.namelen, raw)))
          break;
        k++;
      }
      if (k < n && k + t.namelen + 2 < n &&
          (cclass[b[k + t.namelen + 2]] & C_NAME))
        return false; /* "</scripts": what it closes depends on the stack */
      keep_bytes(b, &o, i, k);
      i = k;
      continue;
    }
    if (c == '/') {
      if (p + 2 == n || !(cclass[b[p + 2]] & C_START)) {
        keep_bytes(b, &o, p, p + 2); /* "</" alone is skipped */
        i = p + 2;
        continue;
      }
      if (!end_tag(b, n, p, &t))
        return false;
      int kind = name_kind(b + t.name, t.namelen);
      if (kind == NAME_ROOT)
        return false; /* whether it pops our root depends on the stack */
      if ((kind == NAME_DROP || kind == NAME_A) && t.plain && cut_ok) {
        i = t.end;
        continue;
      }
      keep_bytes(b, &o, p, t.end);
      i = t.end;
      continue;
    }
    size_t end;
    if (c == '!') {
      if (n - p >= 9 && word_is(b + p + 2, 7, "doctype")) {
        /* htmlParseDocTypeDecl() ends at the first '>' unless that is
         * inside a quoted literal: give up if it may be. */
        const unsigned char *gt = memchr(b + p + 9, '>', n - p - 9);
        if (gt == NULL)
          return false;
        end = (size_t)(gt - b) + 1;
        unsigned char q = 0;
        for (size_t k = p + 9; k + 1 < end; k++)
          if (q == 0 && (b[k] == '"' || b[k] == '\''))
            q = b[k];
          else if (b[k] == q)
            q = 0;
        if (q != 0)
          return false;
      } else if (n - p >= 4 && b[p + 2] == '-' && b[p + 3] == '-') {
        /* htmlParseComment(): to the first "-->" or "--!>" that starts
         * after "<!--". Unterminated: give up. */
        size_t k = p + 4;
        for (;;) {
          const unsigned char *d = memchr(b + k, '-', n - k);
          if (d == NULL)
            return false;
          k = (size_t)(d - b);
          if (n - k >= 3 && b[k + 1] == '-' && b[k + 2] == '>') {
            end = k + 3;
            break;
          }
          if (n - k >= 4 && b[k + 1] == '-' && b[k + 2] == '!' &&
              b[k + 3] == '>') {
            end = k + 4;
            break;
          }
          k++;
        }
      } else if (n - p < 4) {
        break; /* libxml2 stops here */
      } else {
        end = p + 1; /* other "<!": the '<' is text */
      }
    } else if (c == '?') {
      /* htmlParsePI(): with a target name, to the first '>'; without
       * one, "<?" is skipped. */
      unsigned char d = p + 2 < n ? b[p + 2] : 0;
      end = p + 2;
      if (d >= 0x80)
        return false;
      if (ascii_isalpha(d) || d == '_' || d == ':') {
        const unsigned char *gt = memchr(b + p + 2, '>', n - p - 2);
        if (gt == NULL)
          return false;
        end = (size_t)(gt - b) + 1;
      }
    } else {
      end = p + 1; /* '<' and no name: text */
    }
    keep_bytes(b, &o, p, end);
    i = end;
  }
  if (ascii < n)
    return false;
  keep_bytes(b, &o, i, n);
  *len = o;
  return true;
}

/* What tags_allowed() allows. */
enum { TAGS_NO, TAGS_PINNED, TAGS_DETECT };

/* May elide_tags() run on the stream b[0..n) of this page at all? Only
 * under libxml2 2.9.14, whose parser it models, in one piece (see
 * LINKS_PIECE), and in the encodings it covers: a pinned encoding (an
 * HTTP charset, or a UTF-8 BOM) must be one of them. Pinned UTF-8 must be
 * valid (libxml2 2.9 may pass invalid bytes on and then guess an
 * encoding, see elide_tags()). Returns TAGS_NO if not, TAGS_PINNED if so
 * with the encoding pinned, TAGS_DETECT if so with the encoding left to
 * libxml2. */
static int tags_allowed(const char *pinned, const char *b, size_t n)
{
  if (strncmp(xmlParserVersion, "20914", 5) != 0 || n > LINKS_PIECE)
    return TAGS_NO;
  if (pinned == NULL)
    return TAGS_DETECT;
  const unsigned char *cs = (const unsigned char *)pinned;
  size_t len = strlen(pinned);
  if (!charset_elidable(cs, len))
    return TAGS_NO;
  if (charset_utf8(cs, len) && !utf8_valid((const unsigned char *)b, n))
    return TAGS_NO;
  return TAGS_PINNED;
}

/* See links_elide.h. */
size_t links_elide(const char *p, size_t n, const char *pinned, bool tags,
                   char *out)
{
  size_t len = feed_elided(p, p + n, out);
  int how = tags ? tags_allowed(pinned, out, len) : TAGS_NO;
  if (how != TAGS_NO &&
      !elide_tags((unsigned char *)out, &len, how == TAGS_DETECT))
    len = feed_elided(p, p + n, out); /* gave up part way: text only */
  return len;
}
