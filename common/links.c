/* links.c: link extraction from HTML and from the link format; see links.h.
 *
 * HTML goes through libxml2's HTML push parser with a SAX handler whose
 * only content callback is startElement: libxml2 tokenises, recovers from
 * bad markup and decodes entities and charsets, and we look at the
 * attributes of four elements. No tree is built.
 *
 * Around libxml2 2.9 (Debian 12's) we add four things, each explained
 * where it is done:
 *  - text elision (feed_elided): runs of text are dropped before parsing,
 *    since libxml2 spends most of its time walking them; 2.5x faster;
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
static const char ROOT_TAG[] = "<tse-links.root>";

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
    p = s.out;
    n = s.outlen;
  }
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
