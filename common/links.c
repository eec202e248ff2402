/* links.c: link extraction from HTML and from the link format; see links.h.
 *
 * HTML goes through libxml2's HTML push parser with a SAX handler whose
 * only content callback is startElement: libxml2 tokenises, recovers from
 * bad markup and decodes entities and charsets, and we look at the
 * attributes of four elements. No tree is built.
 *
 * Around libxml2 2.9 (Debian 12's) we add five things, each explained
 * where it is done:
 *  - text elision (feed_elided): runs of text are dropped before parsing,
 *    since libxml2 spends most of its time walking them; 2.5x faster;
 *  - markup elision (elide_tags): then tags that cannot matter (span,
 *    div, code ...) are dropped too; 2x faster again on documentation;
 *  - a root element that never closes (ROOT_TAG), because the push
 *    parser ends the document at its root's end tag or a stray early end
 *    tag, losing all later links;
 *  - the page goes in as one final chunk (terminate = 1): fed in pieces,
 *    2.9's push parser scans ahead to the next '>' from every "<?" or
 *    "</" and is quadratic on pages full of them (200 KB: 3 s); given
 *    everything at once it never scans ahead;
 *  - a cap on its open-element stack (trim_stack), against another
 *    quadratic case.
 * All per-call state lives in a scan_t on the caller's stack. */
#include "links.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

/* Most bytes handed to one htmlParseChunk() call (it takes an int). */
#define LINKS_PIECE (1 << 30)

typedef struct scan {
  const links_sink_t *sink;
  htmlParserCtxtPtr ctxt;
  int stopped;        /* no more callbacks: the sink asked, or nomem, or
                       * conv_failed */
  int nomem;
  int conv_failed;    /* the charset converter met bytes it cannot decode */
  int seen_base;      /* only the first <base href> counts */
  size_t delivered;   /* callbacks made so far, over both passes */
  size_t skip;        /* items the retry pass must not deliver again */
  char *buf;          /* scratch copy for trimmed or NUL-free strings */
  size_t cap;
  char *out;          /* the page as fed to libxml2, if elided */
  size_t outlen;
} scan_t;

/* HTML's "ASCII whitespace" (no \v), which the spec strips from URLs. */
static int
is_html_space(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int
ascii_lower(int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int
ascii_casecmp(const char *a, const char *b)
{
  while (*a != '\0' && ascii_lower((unsigned char)*a) ==
         ascii_lower((unsigned char)*b)) {
    a++;
    b++;
  }
  return ascii_lower((unsigned char)*a) - ascii_lower((unsigned char)*b);
}

static int
has_prefix_ci(const char *s, const char *prefix)
{
  while (*prefix != '\0' && ascii_lower((unsigned char)*s) == *prefix) {
    s++;
    prefix++;
  }
  return *prefix == '\0';
}

/* Copy s[0..n) into the scratch buffer, NUL-terminated; NULL on ENOMEM. */
static const char *
scratch_copy(scan_t *s, const char *p, size_t n)
{
  if (n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 256;
    while (cap < n + 1)
      cap *= 2;
    char *b = realloc(s->buf, cap);
    if (b == NULL)
      return NULL;
    s->buf = b;
    s->cap = cap;
  }
  memcpy(s->buf, p, n);
  s->buf[n] = '\0';
  return s->buf;
}

/* Stop the parse: no more callbacks, no more input. xmlStopParser() makes
 * libxml2 drop what it holds; our own flag covers the startElement calls
 * libxml2 may still make for the tag it is in the middle of. */
static void
scan_stop(scan_t *s)
{
  s->stopped = 1;
  xmlStopParser(s->ctxt);
}

static void
scan_nomem(scan_t *s)
{
  s->nomem = 1;
  scan_stop(s);
}

/* Count an item about to go to the sink; 1 if the retry pass must swallow
 * it because the first pass delivered it already. */
static int
item_skipped(scan_t *s)
{
  if (s->skip > 0) {
    s->skip--;
    return 1;
  }
  s->delivered++;
  return 0;
}

/* Trim HTML whitespace around an attribute value (a bare attribute, with
 * value NULL, is the empty string); NULL on ENOMEM. */
static const char *
trim_value(scan_t *s, const xmlChar *value)
{
  const char *p = value ? (const char *)value : "";
  while (is_html_space((unsigned char)*p))
    p++;
  size_t n = strlen(p);
  if (n == 0 || !is_html_space((unsigned char)p[n - 1]))
    return p;   /* common case: no copy */
  while (n > 0 && is_html_space((unsigned char)p[n - 1]))
    n--;
  return scratch_copy(s, p, n);
}

/* Does the rel value hold the token "nofollow", in any case? */
static int
rel_has_nofollow(const char *rel)
{
  static const char tok[] = "nofollow";
  const size_t toklen = sizeof tok - 1;
  const char *p = rel;
  while (*p != '\0') {
    while (is_html_space((unsigned char)*p))
      p++;
    const char *start = p;
    while (*p != '\0' && !is_html_space((unsigned char)*p))
      p++;
    if ((size_t)(p - start) == toklen) {
      size_t i = 0;
      while (i < toklen && ascii_lower((unsigned char)start[i]) == tok[i])
        i++;
      if (i == toklen)
        return 1;
    }
  }
  return 0;
}

/* Look up an attribute by its (lowercase) name. libxml2 lowercases
 * attribute names and keeps only the first of duplicates, as HTML does.
 * *found tells a bare attribute (value NULL) from a missing one. */
static const xmlChar *
attr_get(const xmlChar **atts, const char *name, int *found)
{
  for (size_t i = 0; atts[i] != NULL; i += 2) {
    if (strcmp((const char *)atts[i], name) == 0) {
      *found = 1;
      return atts[i + 1];
    }
  }
  *found = 0;
  return NULL;
}

static void
on_anchor(scan_t *s, const xmlChar **atts)
{
  int found;
  const xmlChar *href = attr_get(atts, "href", &found);
  if (!found)
    return;
  int flags = 0;
  int has_rel;
  const xmlChar *rel = attr_get(atts, "rel", &has_rel);
  if (rel != NULL && rel_has_nofollow((const char *)rel))
    flags |= LINK_NOFOLLOW;
  if (item_skipped(s))
    return;
  const char *v = trim_value(s, href);
  if (v == NULL)
    scan_nomem(s);
  else if (s->sink->link(s->sink->arg, v, flags) != 0)
    scan_stop(s);
}

static void
on_base(scan_t *s, const xmlChar **atts)
{
  int found;
  const xmlChar *href = attr_get(atts, "href", &found);
  if (!found)
    return;   /* a <base target> alone does not count as "the" base */
  s->seen_base = 1;
  if (s->sink->base == NULL || item_skipped(s))
    return;
  const char *v = trim_value(s, href);
  if (v == NULL)
    scan_nomem(s);
  else if (s->sink->base(s->sink->arg, v) != 0)
    scan_stop(s);
}

static void
on_meta(scan_t *s, const xmlChar **atts)
{
  int found;
  const xmlChar *name = attr_get(atts, "name", &found);
  if (name == NULL)
    return;
  const char *n = (const char *)name;
  if (ascii_casecmp(n, "robots") != 0 &&
      (s->sink->meta_agent == NULL ||
       ascii_casecmp(n, s->sink->meta_agent) != 0))
    return;
  const xmlChar *content = attr_get(atts, "content", &found);
  if (!found)
    return;
  if (item_skipped(s))
    return;
  const char *c = content ? (const char *)content : "";
  if (s->sink->meta_robots(s->sink->arg, n, c) != 0)
    scan_stop(s);
}

/* Open elements libxml2 keeps track of, at most. Its name stack is the
 * only per-element state a no-tree parse has, and a stray end tag makes it
 * search the whole stack (htmlAutoCloseOnClose), so a page of 40,000
 * unclosed <b> and then 40,000 </i> took 3 s: quadratic. Past this depth
 * we forget the outermost open elements (never our root), keeping the
 * innermost half: their end tags then just count as stray. Nesting only
 * decides what gets implicitly closed, never whether a tag is seen, so no
 * link is lost; browsers cap their trees at about this depth too. */
#define LINKS_MAX_DEPTH 512

static void
trim_stack(htmlParserCtxtPtr ctxt)
{
  const int keep = LINKS_MAX_DEPTH / 2;
  /* nameTab[0] is our root; ctxt->name (the top) does not move. Names
   * are interned in the context's dictionary: dropping them frees
   * nothing. */
  memmove(&ctxt->nameTab[1], &ctxt->nameTab[ctxt->nameNr - keep],
          (size_t)keep * sizeof ctxt->nameTab[0]);
  ctxt->nameNr = keep + 1;
}

/* Has the charset converter met bytes it cannot decode? libxml2 then
 * stops at them for good, with the rest left in raw. The input is pushed
 * (and converted) in one go before parsing starts, and a <meta charset>
 * switch converts the rest at once too, so this is known before any
 * element after the bad bytes would be reported. */
static int
conversion_failed(htmlParserCtxtPtr ctxt)
{
  xmlParserInputBufferPtr in =
      ctxt->input != NULL ? ctxt->input->buf : NULL;
  if (in == NULL || in->encoder == NULL)
    return 0;
  return in->error != 0 || (in->raw != NULL && xmlBufUse(in->raw) > 0);
}

/* SAX startElement. name is lowercase (libxml2 folds HTML names) and
 * interned; atts is NULL or a NULL-terminated name/value array. */
static void
on_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
  scan_t *s = ctx;
  /* libxml2 has pushed name already and pops it via ctxt->name. */
  if (s->ctxt->nameNr > LINKS_MAX_DEPTH)
    trim_stack(s->ctxt);
  if (s->stopped || atts == NULL)
    return;
  if (conversion_failed(s->ctxt)) {
    /* Stop before reporting anything decoded differently from the retry
     * pass (see links_scan_html()). */
    s->conv_failed = 1;
    s->stopped = 1;
    xmlStopParser(s->ctxt);
    return;
  }
  const char *n = (const char *)name;
  switch (n[0]) {
  case 'a':
    if ((n[1] == '\0' || strcmp(n, "area") == 0) && s->sink->link != NULL)
      on_anchor(s, atts);
    break;
  case 'b':
    if (!s->seen_base && strcmp(n, "base") == 0)
      on_base(s, atts);
    break;
  case 'm':
    if (s->sink->meta_robots != NULL && strcmp(n, "meta") == 0)
      on_meta(s, atts);
    break;
  default:
    break;
  }
}

/* Error sinks: a crawler sees broken pages all day, and a library must not
 * print on its host's stderr. The structured one is what libxml2 calls for
 * parser errors once the handler says it is a SAX2 one (initialized ==
 * XML_SAX2_MAGIC); the others are belt and braces. */
static void
quiet_serror(void *ctx, xmlErrorPtr err)
{
  (void)ctx;
  (void)err;
}

static void
quiet_msg(void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

/* The page's encoding as we set it up before the first byte is parsed. */
typedef struct page_enc {
  xmlCharEncodingHandlerPtr handler;  /* NULL: let libxml2 detect */
  size_t skip;      /* BOM bytes to drop from the front of the body */
  int unit;         /* bytes per ASCII character: 1 or 2 (UTF-16) */
  int big_endian;   /* for unit 2 */
} page_enc_t;

/* WHATWG labels of UTF-16: libxml2 would take "utf-16" as big-endian
 * without a BOM; browsers take it as little-endian. */
static int
utf16_label(const char *cs, int *big_endian)
{
  static const char *const le[] = {
    "utf-16", "utf-16le", "ucs-2", "unicode", "csunicode",
    "iso-10646-ucs-2", "unicodefeff", NULL
  };
  for (size_t i = 0; le[i] != NULL; i++) {
    if (ascii_casecmp(cs, le[i]) == 0) {
      *big_endian = 0;
      return 1;
    }
  }
  if (ascii_casecmp(cs, "utf-16be") == 0 ||
      ascii_casecmp(cs, "unicodefffe") == 0) {
    *big_endian = 1;
    return 1;
  }
  return 0;
}

/* Choose the encoding as browsers do: a BOM, else the HTTP charset, else
 * (handler NULL) libxml2's own detection: <meta charset>, else UTF-8 with
 * a switch to ISO-8859-1 at the first invalid sequence. A handler pins the
 * encoding, so a later <meta charset> cannot contradict it. UTF-32 labels
 * are ignored, as in browsers. */
static page_enc_t
choose_encoding(const char *body, size_t len, const char *charset)
{
  page_enc_t pe = { NULL, 0, 1, 0 };
  const unsigned char *b = (const unsigned char *)body;
  if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
    pe.handler = xmlFindCharEncodingHandler("UTF-8");
    pe.skip = 3;
  } else if (len >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) ||
                          (b[0] == 0xFE && b[1] == 0xFF))) {
    pe.big_endian = b[0] == 0xFE;
    pe.handler = xmlGetCharEncodingHandler(
        pe.big_endian ? XML_CHAR_ENCODING_UTF16BE : XML_CHAR_ENCODING_UTF16LE);
    pe.skip = 2;
    pe.unit = 2;
  } else if (charset != NULL && charset[0] != '\0') {
    int be;
    if (utf16_label(charset, &be)) {
      pe.handler = xmlGetCharEncodingHandler(
          be ? XML_CHAR_ENCODING_UTF16BE : XML_CHAR_ENCODING_UTF16LE);
      pe.unit = 2;
      pe.big_endian = be;
    } else if (!has_prefix_ci(charset, "utf-32") &&
               !has_prefix_ci(charset, "utf32") &&
               !has_prefix_ci(charset, "ucs-4") &&
               !has_prefix_ci(charset, "ucs4")) {
      pe.handler = xmlFindCharEncodingHandler(charset);
    }
  }
  if (pe.handler == NULL)   /* unknown charset: back to detection */
    pe.unit = 1;
  return pe;
}

/* The element we open before the page and never close. libxml2's push
 * parser ends the document when its root element closes, so without it
 * "</html><a href=x>" or a stray "</a>" before any start tag would lose
 * every link after that point (its pull parser recovers; the push parser
 * does not). With HTML_PARSE_NOIMPLIED and this root on the stack, the
 * page's own <html> is a misplaced tag that libxml2 ignores, and </html> or
 * </body> close nothing that could end the document. A page containing
 * this exact end tag only cuts its own links short. */
#define ROOT_NAME "tse-links.root"
static const char ROOT_TAG[] = "<" ROOT_NAME ">";

static void
feed_root(htmlParserCtxtPtr ctxt, const page_enc_t *pe)
{
  char buf[2 * sizeof ROOT_TAG];
  size_t n = 0;
  for (size_t i = 0; ROOT_TAG[i] != '\0'; i++) {
    if (pe->unit == 2 && pe->big_endian)
      buf[n++] = '\0';
    buf[n++] = ROOT_TAG[i];
    if (pe->unit == 2 && !pe->big_endian)
      buf[n++] = '\0';
  }
  (void)htmlParseChunk(ctxt, buf, (int)n, 0);
}

static void
out_add(scan_t *s, const char *p, size_t n)
{
  memcpy(s->out + s->outlen, p, n);
  s->outlen += n;
}

/* Text elision, the main speed-up: libxml2 2.9 walks text one character
 * at a time (about 60 instructions a byte), and text never holds a link.
 * So we copy the page to s->out minus every run of bytes that directly
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
 *    as they are (see elision_safe()).
 * Cost: one pass with memchr() and a copy of the markup. */
static void
feed_elided(scan_t *s, const char *p, const char *end)
{
  /* lt caches the next '<' at or after p (end if none), so a page of many
   * '>' and few '<' still takes linear time. */
  const char *lt = p;
  while (p < end) {
    const char *gt = memchr(p, '>', (size_t)(end - p));
    const char *next = gt != NULL ? gt + 1 : end;
    out_add(s, p, (size_t)(next - p));
    p = next;
    if (lt < p) {
      lt = memchr(p, '<', (size_t)(end - p));
      if (lt == NULL)
        lt = end;
    }
    size_t n = (size_t)(lt - p);
    if (lt < end && memchr(p, '>', n) == NULL &&
        memchr(p, '"', n) == NULL && memchr(p, '\'', n) == NULL)
      p = lt;   /* drop the text run [p, lt) */
  }
}

/* May the page be elided at the byte level (see feed_elided())? Not in
 * UTF-16, and not with ISO-2022 (ESC) or HZ ("~{") shift sequences, in
 * whose two-byte modes '<' and '>' can be halves of characters. */
static int
elision_safe(const char *body, size_t len, const page_enc_t *pe)
{
  if (pe->unit != 1 || memchr(body, 0x1B, len) != NULL)
    return 0;
  for (const char *p = body, *end = body + len;
       (p = memchr(p, '~', (size_t)(end - p))) != NULL; p++) {
    if (p + 1 < end && p[1] == '{')
      return 0;
  }
  return 1;
}

/* Markup elision, the second speed-up: with the text gone, libxml2 2.9
 * spends its time tokenising tags, and most tags of real pages (span,
 * div, p, code, li ...) can never matter to us. elide_tags() drops them
 * from s->out, the page as feed_elided() left it (call that stream S, and
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
 *    discarded tags, trim_stack()) changes only the stack again.
 *  - The retry pass: on_start() checks for a failed conversion at every
 *    start tag with attributes, a dropped one included, so the first pass
 *    may stop later on S'. No item comes in between (items come from kept
 *    tags), and the conversion stays failed, except that a <meta> charset
 *    switch re-decodes the failed rest: with an HTTP charset (without,
 *    nothing is converted before such a <meta>), the model gives up on a
 *    <meta> that may switch after a dropped start tag with attributes.
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
  C_BLANK = 1, C_NAME = 2, C_START = 4, C_ALNUM = 8, C_BAD = 16, C_DQ = 32,
  C_SQ = 64
};

static const unsigned char cclass[256] = {
  16, 16, 16, 16, 16, 16, 16, 16, 16,  1,  1, 16, 16,  1, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
   1,  0, 32,  0,  0,  0,  0, 64,  0,  0,  0,  0,  0, 10,  6,  0,
  10, 10, 10, 10, 10, 10, 10, 10, 10, 10,  6,  0, 16,  0, 16,  0,
   0, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
  14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,  0,  0,  0,  0,  6,
   0, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
  14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,  0,  0,  0,  0, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
  16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
};

static int
is_blank(unsigned char c)
{
  return cclass[c] & C_BLANK;
}

static int
is_alpha(unsigned char c)
{
  return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static size_t
skip_blanks(const unsigned char *b, size_t n, size_t q)
{
  while (q < n && (cclass[b[q]] & C_BLANK))
    q++;
  return q;
}

/* Do b[0..n) and the lowercase word w match, ignoring ASCII case? */
static int
word_is(const unsigned char *b, size_t n, const char *w)
{
  size_t i = 0;
  while (i < n && w[i] != '\0' && ascii_lower(b[i]) == w[i])
    i++;
  return i == n && w[i] == '\0';
}

static int
word_in(const unsigned char *b, size_t n, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    if (word_is(b, n, list[i]))
      return 1;
  return 0;
}

/* What an element name means to the model. */
enum {
  NAME_DROP,    /* its tags may be dropped */
  NAME_KEEP,    /* its tags are kept */
  NAME_A,       /* a: start tags kept, end tags may be dropped */
  NAME_META,    /* kept, and may switch the encoding */
  NAME_RAW,     /* script, style: kept, raw text follows */
  NAME_PAGE,    /* html, head, body: kept, special-cased by libxml2 */
  NAME_ROOT     /* ROOT_NAME */
};

/* Classify the element name b[0..n) (libxml2 lowercases names). Names
 * with anything but letters, digits and '-' are kept; so are those of
 * the elements listed above. */
static int
name_kind(const unsigned char *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!(cclass[b[i]] & C_ALNUM))
      return word_is(b, n, ROOT_NAME) ? NAME_ROOT : NAME_KEEP;
  const char *w = NULL, *w2 = NULL;
  int kind = NAME_KEEP;
  switch (n * 256 + (size_t)ascii_lower(b[0])) {
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
  int has_val;
} attr_t;

/* Parse the attribute whose name starts at b[q] (a name start) as
 * htmlParseAttribute() does; return the index after it and the blanks
 * that follow. start_tag() does the same inline. */
static size_t
attr_parse(const unsigned char *b, size_t n, size_t q, attr_t *a)
{
  a->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  a->namelen = q - a->name;
  a->has_val = 0;
  q = skip_blanks(b, n, q);
  if (q < n && b[q] == '=') {
    a->has_val = 1;
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
  size_t end;         /* index just after the tag */
  int how;            /* TAG_GT, TAG_SELF or TAG_EOF */
  int plain;          /* no C_BAD byte between its first and last */
  int atts;           /* start tag: it has an attribute */
  size_t name, namelen;
} tag_t;

/* Tokenise the start tag at b[p] ('<', then a name start) as
 * htmlParseStartTag() does: the name, blanks, and attributes (a name,
 * optionally blanks '=' blanks and a value: quoted, to the same quote,
 * '<' and '>' included, entity references in it never swallowing the
 * quote; or unquoted, to a blank or '>'), each followed by blanks, up to
 * '>' or "/>" where an attribute would start. -1 where libxml2 would read
 * a bogus attribute, or at a name of 99 bytes or more (libxml2 reads at
 * most 100 at once): the model does not go there. */
static int
start_tag(const unsigned char *b, size_t n, size_t p, tag_t *t)
{
  size_t q = p + 1;
  t->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  t->namelen = q - t->name;
  if (t->namelen >= 99)
    return -1;
  t->plain = 1;
  t->atts = 0;
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
      return -1;
    t->atts = 1;
    size_t a = q;
    while (q < n && (cclass[b[q]] & C_NAME))
      q++;
    if (q - a >= 99)
      return -1;
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
        t->plain = 0;
        q++;
      }
      if (q < n)
        q++;
    } else {
      while (q < n && !(cclass[b[q]] & C_BLANK) && b[q] != '>') {
        if (cclass[b[q]] & C_BAD)
          t->plain = 0;
        q++;
      }
    }
  }
  t->end = q;
  return 0;
}

/* Tokenise the end tag at b[p] ("</", then a name start) as
 * htmlParseEndTag() does: the name, then anything up to a '>'. plain if
 * that is just blanks. -1 for a name of 99 bytes or more. */
static int
end_tag(const unsigned char *b, size_t n, size_t p, tag_t *t)
{
  size_t q = p + 2;
  t->name = q;
  while (q < n && (cclass[b[q]] & C_NAME))
    q++;
  t->namelen = q - t->name;
  if (t->namelen >= 99)
    return -1;
  q = skip_blanks(b, n, q);
  t->plain = q < n && b[q] == '>';
  t->atts = 0;
  const unsigned char *gt = t->plain ? b + q : memchr(b + q, '>', n - q);
  t->how = gt != NULL ? TAG_GT : TAG_EOF;
  t->end = gt != NULL ? (size_t)(gt - b) + 1 : n;
  return 0;
}

/* Charset labels (as libxml2 and iconv read them) of the encodings in
 * which a cut after '>' falls between characters and printable ASCII
 * decodes as itself (see above). Not here: stateful or composing
 * converters (UTF-7, HZ, ISO-2022, glibc's CP1255, CP1258 and
 * BIG5-HKSCS), GB18030 (a four-byte character may hold digits) and Johab
 * ('<' and '>' may be trail bytes). */
static const char *const elidable_charsets[] = {
  "utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "iso-8859-2",
  "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7",
  "iso-8859-8", "iso-8859-9", "iso-8859-10", "iso-8859-11",
  "iso-8859-13", "iso-8859-14", "iso-8859-15", "iso-8859-16", "latin1",
  "windows-1250", "windows-1251", "windows-1252", "windows-1253",
  "windows-1254", "windows-1256", "windows-1257", "koi8-r", "koi8-u",
  "shift_jis", "sjis", "windows-31j", "cp932", "euc-jp", "euc-kr", "gbk",
  "gb2312", "big5", NULL
};

static int
charset_elidable(const unsigned char *cs, size_t n)
{
  return word_in(cs, n, elidable_charsets);
}

static int
charset_utf8(const unsigned char *cs, size_t n)
{
  return word_is(cs, n, "utf-8") || word_is(cs, n, "utf8");
}

/* May the encoding name libxml2 would get from a <meta> value v[0..n)
 * (htmlCheckEncodingDirect(): leading spaces and tabs skipped) change
 * the page's encoding to one the model does not cover? */
static int
meta_value_unsafe(const unsigned char *v, size_t n)
{
  while (n > 0 && (*v == ' ' || *v == '\t')) {
    v++;
    n--;
  }
  return !charset_elidable(v, n);
}

/* Find the lowercase ASCII word w in b[0..n), ignoring case; the index
 * or n. */
static size_t
find_ci(const unsigned char *b, size_t n, const char *w)
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
static int
meta_charset(const unsigned char *b, size_t p, size_t end, int dropped_atts)
{
  static const char *const names[] = { "http-equiv", "charset", "content" };
  attr_t as[3];
  int have[3] = { 0, 0, 0 };
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
      have[k] = 1;
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
static size_t
ascii_prefix(const unsigned char *b, size_t n)
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
static int
utf8_valid(const unsigned char *b, size_t n)
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
      return 0;
    if (n - i <= k || b[i + 1] < lo || b[i + 1] > hi)
      return 0;
    for (size_t j = 2; j <= k; j++)
      if ((b[i + j] & 0xC0) != 0x80)
        return 0;
    i += k + 1;
  }
  return 1;
}

/* Append b[from..to) to the output at *o (in place: *o <= from). */
static void
keep_bytes(unsigned char *b, size_t *o, size_t from, size_t to)
{
  if (*o != from)
    memmove(b + *o, b + from, to - from);
  *o += to - from;
}

/* Drop the tags of s->out that cannot matter (see above), walking the
 * stream token by token as libxml2 2.9.14 does in content. Returns 0, or
 * -1 if it gave up (s->out is then garbled: feed it again). */
static int
elide_tags(scan_t *s, int detect)
{
  unsigned char *b = (unsigned char *)s->out;
  size_t n = s->outlen;
  size_t i = 0;   /* next byte to read */
  size_t o = 0;   /* next byte to write; b[o - 1] is what precedes a cut */
  int dropped_atts = 0;   /* a start tag with attributes was dropped */
  /* With the encoding left to libxml2 (detect), the first non-ASCII
   * character it reads before a <meta> sets one makes it guess one from
   * a search of the input ahead: S must be ASCII up to such a <meta>. */
  size_t ascii = detect ? ascii_prefix(b, n) : n;
  if (memchr(b, '\0', n) != NULL)
    return -1;
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
      break;   /* libxml2 stops at a lone '<' at the end */
    unsigned char c = b[p + 1];
    /* Only right after a '>' that ends a token or text: libxml2 decides
     * what '<', "</", "<!" and "<?" start by looking at up to 7 bytes
     * after them, which must not move into view. */
    int cut_ok = o == 0 || b[o - 1] == '>';
    tag_t t;
    if (cclass[c] & C_START) {
      if (start_tag(b, n, p, &t) != 0)
        return -1;
      int kind = name_kind(b + t.name, t.namelen);
      if (kind == NAME_PAGE && t.how != TAG_GT)
        return -1;   /* may pop the top, whatever it is */
      if (kind == NAME_META) {
        int named = meta_charset(b, p, t.end, dropped_atts && !detect);
        if (named < 0 || (named > 0 && ascii < t.end))
          return -1;
        if (named > 0)
          ascii = n;   /* the encoding is set: libxml2 guesses no more */
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
        return -1;   /* "</scripts": what it closes depends on the stack */
      keep_bytes(b, &o, i, k);
      i = k;
      continue;
    }
    if (c == '/') {
      if (p + 2 == n || !(cclass[b[p + 2]] & C_START)) {
        keep_bytes(b, &o, p, p + 2);   /* "</" alone is skipped */
        i = p + 2;
        continue;
      }
      if (end_tag(b, n, p, &t) != 0)
        return -1;
      int kind = name_kind(b + t.name, t.namelen);
      if (kind == NAME_ROOT)
        return -1;   /* whether it pops our root depends on the stack */
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
          return -1;
        end = (size_t)(gt - b) + 1;
        unsigned char q = 0;
        for (size_t k = p + 9; k + 1 < end; k++)
          if (q == 0 && (b[k] == '"' || b[k] == '\''))
            q = b[k];
          else if (b[k] == q)
            q = 0;
        if (q != 0)
          return -1;
      } else if (n - p >= 4 && b[p + 2] == '-' && b[p + 3] == '-') {
        /* htmlParseComment(): to the first "-->" or "--!>" that starts
         * after "<!--". Unterminated: give up. */
        size_t k = p + 4;
        for (;;) {
          const unsigned char *d = memchr(b + k, '-', n - k);
          if (d == NULL)
            return -1;
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
        break;   /* libxml2 stops here */
      } else {
        end = p + 1;   /* other "<!": the '<' is text */
      }
    } else if (c == '?') {
      /* htmlParsePI(): with a target name, to the first '>'; without
       * one, "<?" is skipped. */
      unsigned char d = p + 2 < n ? b[p + 2] : 0;
      end = p + 2;
      if (d >= 0x80)
        return -1;
      if (is_alpha(d) || d == '_' || d == ':') {
        const unsigned char *gt = memchr(b + p + 2, '>', n - p - 2);
        if (gt == NULL)
          return -1;
        end = (size_t)(gt - b) + 1;
      }
    } else {
      end = p + 1;   /* '<' and no name: text */
    }
    keep_bytes(b, &o, p, end);
    i = end;
  }
  if (ascii < n)
    return -1;
  keep_bytes(b, &o, i, n);
  s->outlen = o;
  return 0;
}

/* May elide_tags() run on the stream b[0..n) of this page at all? Only
 * under libxml2 2.9.14, whose parser it models, in one piece (see
 * LINKS_PIECE), and in the encodings it covers: an HTTP charset (which
 * pins the encoding) must be one of them. Pinned UTF-8 must be valid
 * (libxml2 2.9 may pass invalid bytes on and then guess an encoding, see
 * elide_tags()). Returns 0 if not, 1 if so with the encoding pinned, 2 if
 * so with the encoding left to libxml2. */
static int
tags_allowed(const char *charset, const page_enc_t *pe, const char *b,
             size_t n)
{
  if (strncmp(xmlParserVersion, "20914", 5) != 0 || n > LINKS_PIECE)
    return 0;
  if (pe->handler == NULL)
    return 2;
  int utf8 = 1;   /* a UTF-8 BOM, or a charset label */
  if (pe->skip == 0) {
    const unsigned char *cs = (const unsigned char *)charset;
    size_t len = strlen(charset);
    if (!charset_elidable(cs, len))
      return 0;
    utf8 = charset_utf8(cs, len);
  }
  return !utf8 || utf8_valid((const unsigned char *)b, n);
}

/* One parse of the page p[0..n) with encoding pe; updates s. Returns -1
 * if the parser context could not be made. */
static int
scan_pass(scan_t *s, const char *p, size_t n, page_enc_t *pe,
          int ignore_meta_charset)
{
  htmlSAXHandler sax;
  memset(&sax, 0, sizeof sax);
  sax.startElement = on_start;
  sax.warning = quiet_msg;
  sax.error = quiet_msg;
  sax.fatalError = quiet_msg;
  sax.serror = quiet_serror;
  sax.initialized = XML_SAX2_MAGIC;

  /* No initial chunk: the encoding must be set before any byte is
   * decoded. libxml2 copies sax; s is only borrowed. */
  s->ctxt = htmlCreatePushParserCtxt(&sax, s, NULL, 0, NULL,
                                     XML_CHAR_ENCODING_NONE);
  if (s->ctxt == NULL) {
    if (pe->handler != NULL)
      xmlCharEncCloseFunc(pe->handler);
    pe->handler = NULL;
    return -1;
  }
  s->seen_base = 0;
  /* NOIMPLIED: the root element stands in for <html>/<body> (see
   * ROOT_TAG). NOBLANKS and COMPACT would only matter to a tree. */
  int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
             HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
             HTML_PARSE_NOIMPLIED | HTML_PARSE_NOBLANKS;
  if (ignore_meta_charset)
    opts |= HTML_PARSE_IGNORE_ENC;
  htmlCtxtUseOptions(s->ctxt, opts);
  if (pe->handler != NULL) {
    /* Takes the handler, even on failure (then libxml2 detects). */
    (void)xmlSwitchToEncoding(s->ctxt, pe->handler);
    pe->handler = NULL;
  }
  feed_root(s->ctxt, pe);

  /* The last piece goes in with terminate = 1, which is what keeps
   * libxml2 from scanning ahead (see the top of this file). */
  do {
    size_t k = n < LINKS_PIECE ? n : LINKS_PIECE;
    (void)htmlParseChunk(s->ctxt, p, (int)k, k == n);
    p += k;
    n -= k;
    if (s->ctxt->errNo == XML_ERR_NO_MEMORY)
      scan_nomem(s);
  } while (n > 0 && !s->stopped && s->ctxt->instate != XML_PARSER_EOF);
  if (!s->stopped && conversion_failed(s->ctxt))
    s->conv_failed = 1;
  return 0;
}

/* See links.h. */
int
links_scan_html(const char *body, size_t len, const char *charset,
                const links_sink_t *sink)
{
  return links_scan_html_test(body, len, charset, sink, 1, NULL);
}

/* See links.h. */
int
links_scan_html_test(const char *body, size_t len, const char *charset,
                     const links_sink_t *sink, int tags, size_t *fed)
{
  assert(sink != NULL);
  assert(body != NULL || len == 0);
  if (sink->link == NULL && sink->base == NULL && sink->meta_robots == NULL)
    return LINKS_OK;
  /* NULL + 0 is undefined behaviour in C (clang's UBSan reports it), and
   * the pointer is offset below even for an empty page. */
  if (body == NULL)
    body = "";

  /* Charset conversion errors are raised without a parser context, so
   * the per-context handlers never see them and libxml2 would print them
   * through this thread's structured (else generic) error handler.
   * libxml2 keeps those handlers per thread, so swapping ours in for the
   * call changes nothing for other threads; the caller's is restored
   * before we return. */
  xmlStructuredErrorFunc saved_fn = xmlStructuredError;
  void *saved_ctx = xmlStructuredErrorContext;
  xmlSetStructuredErrorFunc(NULL, quiet_serror);

  scan_t s;
  memset(&s, 0, sizeof s);
  s.sink = sink;
  int result = LINKS_OK;

  page_enc_t pe = choose_encoding(body, len, charset);
  int unit = pe.unit;
  const char *p = body + pe.skip;
  size_t n = len - pe.skip;
  if (n > 0 && elision_safe(p, n, &pe)) {
    s.out = malloc(n);   /* elision never makes the page longer */
    if (s.out == NULL) {
      if (pe.handler != NULL)
        xmlCharEncCloseFunc(pe.handler);
      result = LINKS_ENOMEM;
      goto out;
    }
    feed_elided(&s, p, p + n);
    int how = tags ? tags_allowed(charset, &pe, s.out, s.outlen) : 0;
    if (how != 0 && elide_tags(&s, how == 2) != 0) {
      s.outlen = 0;   /* gave up part way: start again without it */
      feed_elided(&s, p, p + n);
    }
    p = s.out;
    n = s.outlen;
  }
  if (fed != NULL)
    *fed = n;
  if (scan_pass(&s, p, n, &pe, 0) != 0) {
    result = LINKS_ENOMEM;
    goto out;
  }
  if (s.conv_failed && !s.nomem && unit == 1) {
    /* The page is not in the charset it claims (in HTTP or <meta>).
     * Rather than lose every link after the first bad byte, parse it
     * again as ISO-8859-1, which cannot fail and keeps ASCII intact, and
     * skip the items already delivered: both passes see the same tags up
     * to the bad bytes, and none after them was delivered. */
    htmlFreeParserCtxt(s.ctxt);
    s.ctxt = NULL;
    s.skip = s.delivered;
    s.stopped = 0;
    s.conv_failed = 0;
    pe.handler = xmlGetCharEncodingHandler(XML_CHAR_ENCODING_8859_1);
    if (scan_pass(&s, p, n, &pe, 1) != 0) {
      result = LINKS_ENOMEM;
      goto out;
    }
  }
  if (s.nomem)
    result = LINKS_ENOMEM;
  else if (s.stopped && !s.conv_failed)
    result = LINKS_STOPPED;

out:
  htmlFreeParserCtxt(s.ctxt);   /* accepts NULL */
  free(s.out);
  free(s.buf);
  xmlSetStructuredErrorFunc(saved_ctx, saved_fn);
  return result;
}

static int
is_text_space(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

/* See links.h. */
int
links_scan_text(const char *body, size_t len, const links_sink_t *sink)
{
  static const char prefix[] = "link:";
  const size_t plen = sizeof prefix - 1;

  assert(sink != NULL);
  assert(body != NULL || len == 0);
  if (sink->link == NULL)
    return LINKS_OK;

  scan_t s;   /* only for the scratch buffer */
  memset(&s, 0, sizeof s);
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
    const char *url = body + start + plen;
    size_t ulen = toklen - plen;
    if (memchr(url, '\0', ulen) != NULL)
      continue;
    const char *v = scratch_copy(&s, url, ulen);
    if (v == NULL) {
      result = LINKS_ENOMEM;
      break;
    }
    if (sink->link(sink->arg, v, 0) != 0) {
      result = LINKS_STOPPED;
      break;
    }
  }
  free(s.buf);
  return result;
}
