/* links_html.c: link extraction from HTML, links_scan_html(); see
 * links.h.
 *
 * HTML goes through libxml2's HTML push parser with a SAX handler whose
 * only content callback is startElement: libxml2 tokenises, recovers from
 * bad markup and decodes entities and charsets, and we look at the
 * attributes of four elements. No tree is built.
 *
 * Around libxml2 2.9 (Debian 12's) we add five things, each explained
 * where it is done:
 *  - text elision: runs of text are dropped before parsing, since
 *    libxml2 spends most of its time walking them;
 *  - markup elision: then tags that cannot matter (span, div, code ...)
 *    are dropped too, which pays again on documentation. Both are
 *    links_elide.c's (a model of libxml2's tokenizer, a job of its own);
 *    what each buys is in bench/RESULTS.md, "Link extraction: the parts";
 *  - a root element that never closes (ROOT_TAG), because the push
 *    parser ends the document at its root's end tag or a stray early end
 *    tag, losing all later links;
 *  - the page goes in as one final chunk (terminate = 1): fed in pieces,
 *    2.9's push parser scans ahead to the next '>' from every "<?" or
 *    "</" and is quadratic on pages full of them; given
 *    everything at once it never scans ahead;
 *  - a cap on its open-element stack (trim_stack), against another
 *    quadratic case.
 * All per-call state lives in a scan_t on the caller's stack. */
#include "links.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include "ascii.h"
#include "links_elide.h"
#include "strbuf.h"

typedef struct scan {
  const links_sink_t *sink;
  htmlParserCtxtPtr ctxt;
  bool stopped; /* no more callbacks: the sink asked, or nomem, or
                 * conv_failed */
  bool nomem;
  bool conv_failed; /* the charset converter met bytes it cannot decode */
  bool seen_base;   /* only the first <base href> counts */
  size_t delivered; /* callbacks made so far, over both passes */
  size_t skip;      /* items the retry pass must not deliver again */
  strbuf_t buf;     /* scratch copy of a trimmed value */
} scan_t;

/* HTML's "ASCII whitespace" (no \v), which the spec strips from URLs. */
static bool is_html_space(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Stop the parse: no more callbacks, no more input. xmlStopParser() makes
 * libxml2 drop what it holds; our own flag covers the startElement calls
 * libxml2 may still make for the tag it is in the middle of. */
static void scan_stop(scan_t *s)
{
  s->stopped = true;
  xmlStopParser(s->ctxt);
}

static void scan_nomem(scan_t *s)
{
  s->nomem = true;
  scan_stop(s);
}

/* Count an item about to go to the sink; true if the retry pass must
 * swallow it because the first pass delivered it already. */
static bool item_skipped(scan_t *s)
{
  if (s->skip > 0) {
    s->skip--;
    return true;
  }
  s->delivered++;
  return false;
}

/* Trim HTML whitespace around an attribute value (a bare attribute, with
 * value NULL, is the empty string); NULL on ENOMEM. */
static const char *trim_value(scan_t *s, const xmlChar *value)
{
  const char *p = value ? (const char *)value : "";
  while (is_html_space((unsigned char)*p))
    p++;
  size_t n = strlen(p);
  if (n == 0 || !is_html_space((unsigned char)p[n - 1]))
    return p; /* common case: no copy */
  while (n > 0 && is_html_space((unsigned char)p[n - 1]))
    n--;
  strbuf_reset(&s->buf);
  strbuf_add(&s->buf, p, n);
  return s->buf.oom ? NULL : s->buf.p;
}

/* Does the rel value hold the token "nofollow", in any case? */
static bool rel_has_nofollow(const char *rel)
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
    if ((size_t)(p - start) == toklen && ascii_strnieq(start, tok, toklen))
      return true;
  }
  return false;
}

/* Look up an attribute by its (lowercase) name. libxml2 lowercases
 * attribute names and keeps only the first of duplicates, as HTML does.
 * *found tells a bare attribute (value NULL) from a missing one. */
static const xmlChar *attr_get(const xmlChar **atts, const char *name,
                               bool *found)
{
  for (size_t i = 0; atts[i] != NULL; i += 2) {
    if (strcmp((const char *)atts[i], name) == 0) {
      *found = true;
      return atts[i + 1];
    }
  }
  *found = false;
  return NULL;
}

static void on_anchor(scan_t *s, const xmlChar **atts)
{
  bool found;
  const xmlChar *href = attr_get(atts, "href", &found);
  if (!found)
    return;
  int flags = 0;
  bool has_rel;
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

static void on_base(scan_t *s, const xmlChar **atts)
{
  bool found;
  const xmlChar *href = attr_get(atts, "href", &found);
  if (!found)
    return; /* a <base target> alone does not count as "the" base */
  s->seen_base = true;
  if (s->sink->base == NULL || item_skipped(s))
    return;
  const char *v = trim_value(s, href);
  if (v == NULL)
    scan_nomem(s);
  else if (s->sink->base(s->sink->arg, v) != 0)
    scan_stop(s);
}

static void on_meta(scan_t *s, const xmlChar **atts)
{
  bool found;
  const xmlChar *name = attr_get(atts, "name", &found);
  if (name == NULL)
    return;
  const char *n = (const char *)name;
  if (!ascii_strnieq(n, "robots", SIZE_MAX) &&
      (s->sink->meta_agent == NULL ||
       !ascii_strnieq(n, s->sink->meta_agent, SIZE_MAX)))
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

static void trim_stack(htmlParserCtxtPtr ctxt)
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
static bool conversion_failed(htmlParserCtxtPtr ctxt)
{
  xmlParserInputBufferPtr in = ctxt->input != NULL ? ctxt->input->buf : NULL;
  if (in == NULL || in->encoder == NULL)
    return false;
  return in->error != 0 || (in->raw != NULL && xmlBufUse(in->raw) > 0);
}

/* SAX startElement. name is lowercase (libxml2 folds HTML names) and
 * interned; atts is NULL or a NULL-terminated name/value array. */
static void on_start(void *ctx, const xmlChar *name, const xmlChar **atts)
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
    s->conv_failed = true;
    s->stopped = true;
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
static void quiet_serror(void *ctx, xmlErrorPtr err)
{
  (void)ctx;
  (void)err;
}

static void quiet_msg(void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

/* The page's encoding as we set it up before the first byte is parsed. */
typedef struct page_enc {
  xmlCharEncodingHandlerPtr handler; /* NULL: let libxml2 detect */
  size_t skip;     /* BOM bytes to drop from the front of the body */
  int unit;        /* bytes per ASCII character: 1 or 2 (UTF-16) */
  bool big_endian; /* for unit 2 */
} page_enc_t;

/* WHATWG labels of UTF-16: libxml2 would take "utf-16" as big-endian
 * without a BOM; browsers take it as little-endian. */
static bool utf16_label(const char *cs, bool *big_endian)
{
  static const char *const le[] = { "utf-16",      "utf-16le",
                                    "ucs-2",       "unicode",
                                    "csunicode",   "iso-10646-ucs-2",
                                    "unicodefeff", NULL };
  for (size_t i = 0; le[i] != NULL; i++) {
    if (ascii_strnieq(cs, le[i], SIZE_MAX)) {
      *big_endian = false;
      return true;
    }
  }
  if (ascii_strnieq(cs, "utf-16be", SIZE_MAX) ||
      ascii_strnieq(cs, "unicodefffe", SIZE_MAX)) {
    *big_endian = true;
    return true;
  }
  return false;
}

/* Choose the encoding as browsers do: a BOM, else the HTTP charset, else
 * (handler NULL) libxml2's own detection: <meta charset>, else UTF-8 with
 * a switch to ISO-8859-1 at the first invalid sequence. A handler pins the
 * encoding, so a later <meta charset> cannot contradict it. UTF-32 labels
 * are ignored, as in browsers. */
static page_enc_t choose_encoding(const char *body, size_t len,
                                  const char *charset)
{
  page_enc_t pe = { NULL, 0, 1, false };
  const unsigned char *b = (const unsigned char *)body;
  if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
    pe.handler = xmlFindCharEncodingHandler("UTF-8");
    pe.skip = 3;
  } else if (len >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) ||
                          (b[0] == 0xFE && b[1] == 0xFF))) {
    pe.big_endian = b[0] == 0xFE;
    pe.handler = xmlGetCharEncodingHandler(pe.big_endian
                                             ? XML_CHAR_ENCODING_UTF16BE
                                             : XML_CHAR_ENCODING_UTF16LE);
    pe.skip = 2;
    pe.unit = 2;
  } else if (charset != NULL && charset[0] != '\0') {
    bool be;
    if (utf16_label(charset, &be)) {
      pe.handler = xmlGetCharEncodingHandler(be ? XML_CHAR_ENCODING_UTF16BE
                                                : XML_CHAR_ENCODING_UTF16LE);
      pe.unit = 2;
      pe.big_endian = be;
    } else if (!ascii_strnieq(charset, "utf-32", 6) &&
               !ascii_strnieq(charset, "utf32", 5) &&
               !ascii_strnieq(charset, "ucs-4", 5) &&
               !ascii_strnieq(charset, "ucs4", 4)) {
      pe.handler = xmlFindCharEncodingHandler(charset);
    }
  }
  if (pe.handler == NULL) /* unknown charset: back to detection */
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
 * this exact end tag only cuts its own links short. links_elide.h holds
 * its name, which the tag model must know too. */
static const char ROOT_TAG[] = "<" LINKS_ROOT_NAME ">";

static void feed_root(htmlParserCtxtPtr ctxt, const page_enc_t *pe)
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

/* One parse of the page p[0..n) with encoding pe; updates s. Returns
 * false if the parser context could not be made. */
static bool scan_pass(scan_t *s, const char *p, size_t n, page_enc_t *pe,
                      bool ignore_meta_charset)
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
    return false;
  }
  s->seen_base = false;
  /* NOIMPLIED: the root element stands in for <html>/<body> (see
   * ROOT_TAG). NOBLANKS and COMPACT would only matter to a tree. */
  int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
             HTML_PARSE_NONET | HTML_PARSE_NOIMPLIED | HTML_PARSE_NOBLANKS;
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
    s->conv_failed = true;
  return true;
}

/* See links.h. */
int links_scan_html(const char *body, size_t len, const char *charset,
                    const links_sink_t *sink)
{
  return links_scan_html_test(body, len, charset, sink, true, NULL);
}

/* See links.h. */
int links_scan_html_test(const char *body, size_t len, const char *charset,
                         const links_sink_t *sink, bool tags, size_t *fed)
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

  scan_t s = { .sink = sink, .buf = STRBUF_INIT };
  int result = LINKS_OK;
  char *elided = NULL; /* the page as fed to libxml2, if elided */

  page_enc_t pe = choose_encoding(body, len, charset);
  int unit = pe.unit;
  const char *p = body + pe.skip;
  size_t n = len - pe.skip;
  if (n > 0 && unit == 1 && links_elide_safe(p, n)) {
    elided = malloc(n); /* elision never makes the page longer */
    if (elided == NULL) {
      if (pe.handler != NULL)
        xmlCharEncCloseFunc(pe.handler);
      result = LINKS_ENOMEM;
      goto out;
    }
    /* What pins the encoding, for the tag model: with unit 1, a handler
     * comes from a UTF-8 BOM or else from the HTTP charset. */
    const char *pinned = NULL;
    if (pe.handler != NULL)
      pinned = pe.skip > 0 ? "utf-8" : charset;
    n = links_elide(p, n, pinned, tags, elided);
    p = elided;
  }
  if (fed != NULL)
    *fed = n;
  if (!scan_pass(&s, p, n, &pe, false)) {
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
    s.stopped = false;
    s.conv_failed = false;
    pe.handler = xmlGetCharEncodingHandler(XML_CHAR_ENCODING_8859_1);
    if (!scan_pass(&s, p, n, &pe, true)) {
      result = LINKS_ENOMEM;
      goto out;
    }
  }
  if (s.nomem)
    result = LINKS_ENOMEM;
  else if (s.stopped && !s.conv_failed)
    result = LINKS_STOPPED;

out:
  htmlFreeParserCtxt(s.ctxt); /* accepts NULL */
  free(elided);
  strbuf_release(&s.buf);
  xmlSetStructuredErrorFunc(saved_ctx, saved_fn);
  return result;
}
