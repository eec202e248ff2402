/* links_html.c: link extraction from HTML, links_scan_html(); see
 * links.h.
 *
 * A browser finds a page's links by parsing it into a tree by the HTML
 * standard (WHATWG) and looking at its elements. We do not build the
 * tree: we run the standard's tokenizer over the page and keep, of tree
 * construction, only the state that decides which tokens become elements
 * we report and how later bytes are tokenised (DESIGN.md, "Link
 * extraction", says why this replaced libxml2's HTML4 parser):
 *  - the tokenizer, complete where it can change which tags are seen:
 *    comments (also "<!-->"), bogus comments, DOCTYPE, CDATA sections
 *    (only in SVG/MathML), RCDATA, RAWTEXT, script data with its escape
 *    states, PLAINTEXT; attribute values with the standard's character
 *    references (links_tables.c); a tag cut off by the end of the page is
 *    no tag;
 *  - of tree construction: whether the document has begun its body or
 *    become a frameset (and the frameset-ok flag that decides it), the
 *    depth of <template> content (inert: nothing in it counts), a
 *    <select> (which drops most tags), and a stack of the SVG/MathML
 *    elements open (whose content is tokenised without raw-text
 *    elements), with the tags that break out of it.
 * Text is skipped with memchr(); only the tags we report have their
 * attribute values decoded.
 *
 * The first <base href> applies to the whole document, also to links
 * before it, and a <frameset> honoured late removes the body and its
 * links: so links are held back (in scan_t.pend) until neither can
 * change them any more (see deliver_ready()), which on most pages is the
 * end of the page. All per-call state lives in a scan_t on the caller's
 * stack. */
#include "links.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "links_int.h"
#include "strbuf.h"

/* Where the document is, as tree construction would know it. */
enum {
  M_HEAD, /* no body yet: initial .. "after head" */
  M_BODY, /* in body (also in table, after body ...) */
  M_FRAMESET,
  M_AFTER /* after frameset, after after frameset */
};

/* How the tokenizer reads what follows the current tag. */
enum { T_DATA, T_RCDATA, T_RAWTEXT, T_SCRIPT, T_PLAINTEXT };

/* The attributes we read, per element. */
enum { A_HREF, A_SRC, A_REL, A_NAME, A_CONTENT, A_TYPE, A_ENC, A_N };
static const char *const attr_names[A_N] = { "href",    "src",     "rel",
                                             "name",    "content", "type",
                                             "encoding" };

#define NAME_MAX_LEN 24 /* longer tag names match nothing we know */
#define FOREIGN_MAX 256

typedef struct foreign {
  char name[NAME_MAX_LEN + 1];
  bool svg;   /* else MathML */
  bool integ; /* an HTML or MathML text integration point */
} foreign_t;

typedef struct scan {
  const links_sink_t *sink;
  const unsigned char *b;
  size_t n, i;
  /* tree construction */
  int mode;
  bool frameset_ok;
  int frameset_depth;
  int template_depth;
  bool in_select;
  bool select_in_table; /* the select is in a table: table tags end it */
  int table_depth;      /* <table> elements open, roughly (no implied
                         * closes): only for select_in_table */
  foreign_t *fstack;    /* FOREIGN_MAX entries, allocated on first use */
  int fdepth;
  int text; /* T_*: how to read what follows the tag just emitted */
  char text_end[NAME_MAX_LEN + 1]; /* its end tag's name */
  /* the tag being read */
  char name[NAME_MAX_LEN + 1];
  size_t namelen; /* 0 if longer than NAME_MAX_LEN */
  bool selfclose;
  bool want; /* its attribute values are needed */
  bool has[A_N];
  bool font_attr; /* a color, face or size attribute (foreign breakout) */
  strbuf_t val[A_N];
  const char *enc; /* the page's encoding (links_sniff()) */
  bool qenc;       /* queries are sent in enc, not UTF-8 */
  /* delivery */
  bool base_seen;
  strbuf_t pend; /* held-back links: flags byte, href, NUL; ... */
  size_t npend;
  bool stopped;
  bool nomem;
} scan_t;

/* HTML's ASCII whitespace; CR counts, as the input stream turns it into
 * LF before tokenising. */
static bool is_ws(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool is_alnum(unsigned char c)
{
  return ascii_isalpha(c) || ascii_isdigit(c);
}

static bool name_in(const char *name, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    if (strcmp(name, list[i]) == 0)
      return true;
  return false;
}

static void scan_nomem(scan_t *s)
{
  s->nomem = true;
  s->stopped = true;
}

/* ---- delivery ---- */

/* The value v trimmed of ASCII whitespace, NUL-terminated in place. */
static const char *trimmed(strbuf_t *v)
{
  if (v->p == NULL)
    return "";
  size_t n = v->len;
  while (n > 0 && is_ws((unsigned char)v->p[n - 1]))
    n--;
  v->p[n] = '\0';
  const char *p = v->p;
  while (is_ws((unsigned char)*p))
    p++;
  return p;
}

static void deliver_pending(scan_t *s)
{
  const char *p = s->pend.p;
  for (size_t k = 0; k < s->npend && !s->stopped; k++) {
    int flags = (unsigned char)*p++;
    if (s->sink->link(s->sink->arg, p, flags) != 0)
      s->stopped = true;
    p += strlen(p) + 1;
  }
  strbuf_reset(&s->pend);
  s->npend = 0;
}

/* May held-back links go out now? Once the base is known and no
 * <frameset> can remove the body any more. */
static bool deliver_ready(const scan_t *s)
{
  return s->base_seen &&
         !(s->frameset_ok && (s->mode == M_HEAD || s->mode == M_BODY));
}

static void report_link(scan_t *s, const char *href, int flags)
{
  if (s->sink->link == NULL)
    return;
  strbuf_addc(&s->pend, (char)flags);
  strbuf_add(&s->pend, href, strlen(href) + 1);
  if (s->pend.oom) {
    scan_nomem(s);
    return;
  }
  s->npend++;
  if (deliver_ready(s))
    deliver_pending(s);
}

/* The URL value v, trimmed, its query encoded as the page's encoding
 * says (a browser sends "?q=\xc3\xa9" as %E9 from a windows-1252 page);
 * NULL on ENOMEM. */
static const char *url_value(scan_t *s, strbuf_t *v)
{
  if (s->qenc && !links_query_encode(s->enc, v)) {
    scan_nomem(s);
    return NULL;
  }
  return trimmed(v);
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

/* ---- what the elements mean ---- */

static bool rel_has_nofollow(const char *rel)
{
  static const char tok[] = "nofollow";
  const size_t toklen = sizeof tok - 1;
  const char *p = rel;
  while (*p != '\0') {
    while (is_ws((unsigned char)*p))
      p++;
    const char *start = p;
    while (*p != '\0' && !is_ws((unsigned char)*p))
      p++;
    if ((size_t)(p - start) == toklen && ascii_strnieq(start, tok, toklen))
      return true;
  }
  return false;
}

static void on_anchor(scan_t *s)
{
  if (!s->has[A_HREF])
    return;
  int flags = 0;
  if (s->has[A_REL] && rel_has_nofollow(trimmed(&s->val[A_REL])))
    flags |= LINK_NOFOLLOW;
  const char *href = url_value(s, &s->val[A_HREF]);
  if (href != NULL)
    report_link(s, href, flags);
}

/* frame and iframe: an empty src means about:blank, not this page. */
static void on_frame(scan_t *s)
{
  if (!s->has[A_SRC] || s->val[A_SRC].len == 0)
    return;
  const char *src = url_value(s, &s->val[A_SRC]);
  if (src != NULL)
    report_link(s, src, 0);
}

static void on_base(scan_t *s)
{
  if (s->base_seen || !s->has[A_HREF])
    return; /* a <base target> alone does not count as "the" base */
  s->base_seen = true;
  const char *href = url_value(s, &s->val[A_HREF]);
  if (href == NULL)
    return;
  if (s->sink->base != NULL && s->sink->base(s->sink->arg, href) != 0) {
    s->stopped = true;
    return;
  }
  if (deliver_ready(s))
    deliver_pending(s);
}

static void on_meta(scan_t *s)
{
  if (s->sink->meta_robots == NULL || !s->has[A_NAME] || !s->has[A_CONTENT])
    return;
  const char *n = trimmed(&s->val[A_NAME]);
  /* The name as written, but compared trimmed, as before. */
  if (!ascii_strnieq(n, "robots", SIZE_MAX) &&
      (s->sink->meta_agent == NULL ||
       !ascii_strnieq(n, s->sink->meta_agent, SIZE_MAX)))
    return;
  const char *c = s->val[A_CONTENT].p ? s->val[A_CONTENT].p : "";
  if (s->sink->meta_robots(s->sink->arg, n, c) != 0)
    s->stopped = true;
}

/* Which start tags need their attribute values, in HTML content. */
static bool wants_values(const char *n)
{
  switch (n[0]) {
  case 'a':
    return n[1] == '\0' || strcmp(n, "area") == 0 ||
           strcmp(n, "annotation-xml") == 0;
  case 'b':
    return strcmp(n, "base") == 0;
  case 'f':
    return strcmp(n, "frame") == 0 || strcmp(n, "font") == 0;
  case 'i':
    return strcmp(n, "iframe") == 0 || strcmp(n, "input") == 0;
  case 'm':
    return strcmp(n, "meta") == 0;
  default:
    return false;
  }
}

static void set_text(scan_t *s, int how)
{
  s->text = how;
  memcpy(s->text_end, s->name, sizeof s->name);
}

static void body_begins(scan_t *s)
{
  if (s->mode == M_HEAD && s->template_depth == 0)
    s->mode = M_BODY;
}

/* <frameset> in body, honoured: the body and its links are gone. */
static void frameset_begins(scan_t *s)
{
  strbuf_reset(&s->pend);
  s->npend = 0;
  s->mode = M_FRAMESET;
  s->frameset_depth = 1;
  s->fdepth = 0;
  s->in_select = false;
}

static void foreign_push(scan_t *s, bool svg)
{
  if (s->selfclose)
    return;
  if (s->fstack == NULL) {
    s->fstack = malloc(FOREIGN_MAX * sizeof *s->fstack);
    if (s->fstack == NULL) {
      scan_nomem(s);
      return;
    }
  }
  if (s->fdepth == FOREIGN_MAX)
    return; /* deeper than any page means; its end tags then go unmatched */
  foreign_t *f = &s->fstack[s->fdepth++];
  memcpy(f->name, s->name, sizeof f->name);
  f->svg = svg;
  const char *n = s->name;
  if (svg) {
    f->integ = strcmp(n, "foreignobject") == 0 || strcmp(n, "desc") == 0 ||
               strcmp(n, "title") == 0;
  } else {
    static const char *const text_points[] = { "mi", "mo",    "mn",
                                               "ms", "mtext", NULL };
    f->integ = name_in(n, text_points);
    if (strcmp(n, "annotation-xml") == 0 && s->has[A_ENC]) {
      const char *e = trimmed(&s->val[A_ENC]);
      f->integ = ascii_strnieq(e, "text/html", SIZE_MAX) ||
                 ascii_strnieq(e, "application/xhtml+xml", SIZE_MAX);
    }
  }
}

/* In foreign content (an SVG or MathML element is the current node, not
 * an integration point): the start tags that leave it. */
static bool breaks_out(const scan_t *s)
{
  static const char *const out[] = {
    "b",      "big",    "blockquote", "body",    "br",    "center", "code",
    "dd",     "div",    "dl",         "dt",      "em",    "embed",  "h1",
    "h2",     "h3",     "h4",         "h5",      "h6",    "head",   "hr",
    "i",      "img",    "li",         "listing", "menu",  "meta",   "nobr",
    "ol",     "p",      "pre",        "ruby",    "s",     "small",  "span",
    "strong", "strike", "sub",        "sup",     "table", "tt",     "u",
    "ul",     "var",    NULL
  };
  if (strcmp(s->name, "font") == 0)
    return s->font_attr;
  return name_in(s->name, out);
}

static void foreign_pop_to_html(scan_t *s)
{
  while (s->fdepth > 0 && !s->fstack[s->fdepth - 1].integ)
    s->fdepth--;
}

/* The tags that end a select in a table ("in select in table"). */
static const char *const table_tags[] = { "caption", "table", "tbody",
                                          "tfoot",   "thead", "tr",
                                          "td",      "th",    NULL };

/* A start tag in foreign content (s->fdepth > 0: an SVG or MathML
 * element open). Returns true if the tag is a foreign element (pushed);
 * false if it is HTML content, after popping the foreign elements it
 * breaks out of. */
static bool foreign_start(scan_t *s)
{
  const char *n = s->name;
  const foreign_t *top = &s->fstack[s->fdepth - 1];
  if (!top->integ) {
    if (!top->svg && strcmp(top->name, "annotation-xml") == 0 &&
        strcmp(n, "svg") == 0) {
      foreign_push(s, true); /* annotation-xml may hold SVG */
      return true;
    }
    if (!breaks_out(s)) {
      foreign_push(s, top->svg);
      return true;
    }
    foreign_pop_to_html(s);
  } else if (!top->svg &&
             (strcmp(n, "mglyph") == 0 || strcmp(n, "malignmark") == 0)) {
    foreign_push(s, false); /* MathML, even in a text integration point */
    return true;
  }
  return false;
}

/* A start tag in a select (s->in_select): most are dropped. Returns
 * whether the select took the tag; false if the tag closed it and goes
 * on as in body. */
static bool select_start(scan_t *s)
{
  const char *n = s->name;
  if (s->select_in_table && name_in(n, table_tags)) {
    s->in_select = false; /* "in select in table": and the tag goes on */
    return false;
  }
  if (strcmp(n, "select") == 0) {
    s->in_select = false;
    return true;
  }
  if (strcmp(n, "input") == 0 || strcmp(n, "keygen") == 0 ||
      strcmp(n, "textarea") == 0) {
    s->in_select = false; /* and the tag goes on as in body */
    return false;
  }
  if (strcmp(n, "script") == 0)
    set_text(s, T_SCRIPT);
  else if (strcmp(n, "template") == 0)
    s->template_depth++;
  return true; /* option, optgroup, hr and everything else */
}

/* A start tag once the document is a frameset (M_FRAMESET, M_AFTER):
 * only frames count. REPORT: not in a template. */
static void frameset_start(scan_t *s, bool report)
{
  const char *n = s->name;
  if (strcmp(n, "noframes") == 0)
    set_text(s, T_RAWTEXT);
  else if (s->mode == M_FRAMESET && strcmp(n, "frameset") == 0)
    s->frameset_depth++;
  else if (s->mode == M_FRAMESET && strcmp(n, "frame") == 0 && report)
    on_frame(s);
}

/* The start tags of the elements we report, in body or head: a, area,
 * base, meta, iframe (whose content is raw text). REPORT: not in a
 * template. Returns whether the tag is one of them. */
static bool link_start(scan_t *s, bool report)
{
  const char *n = s->name;
  switch (n[0]) {
  case 'a':
    if (n[1] == '\0') {
      body_begins(s);
      if (report)
        on_anchor(s);
      return true;
    }
    if (strcmp(n, "area") == 0) {
      body_begins(s);
      s->frameset_ok = false;
      if (report)
        on_anchor(s);
      return true;
    }
    return false;
  case 'b':
    if (strcmp(n, "base") == 0) {
      if (report)
        on_base(s);
      return true;
    }
    return false;
  case 'i':
    if (strcmp(n, "iframe") == 0) {
      body_begins(s);
      s->frameset_ok = false;
      if (report)
        on_frame(s);
      set_text(s, T_RAWTEXT);
      return true;
    }
    return false;
  case 'm':
    if (strcmp(n, "meta") == 0) {
      if (report)
        on_meta(s);
      return true;
    }
    return false;
  default:
    return false;
  }
}

/* The start tags of the other elements whose content the tokenizer reads
 * as text (set_text): noframes, noembed, plaintext, script, style,
 * title, textarea, xmp. Returns whether the tag is one of them. */
static bool text_start(scan_t *s)
{
  const char *n = s->name;
  switch (n[0]) {
  case 'n':
    if (strcmp(n, "noframes") == 0) {
      set_text(s, T_RAWTEXT);
      return true;
    }
    if (strcmp(n, "noembed") == 0) {
      body_begins(s);
      set_text(s, T_RAWTEXT);
      return true;
    }
    return false;
  case 'p':
    if (strcmp(n, "plaintext") == 0) {
      body_begins(s);
      set_text(s, T_PLAINTEXT);
      return true;
    }
    return false;
  case 's':
    if (strcmp(n, "script") == 0) {
      set_text(s, T_SCRIPT);
      return true;
    }
    if (strcmp(n, "style") == 0) {
      set_text(s, T_RAWTEXT);
      return true;
    }
    return false;
  case 't':
    if (strcmp(n, "title") == 0) {
      set_text(s, T_RCDATA);
      return true;
    }
    if (strcmp(n, "textarea") == 0) {
      body_begins(s);
      s->frameset_ok = false;
      set_text(s, T_RCDATA);
      return true;
    }
    return false;
  case 'x':
    if (strcmp(n, "xmp") == 0) {
      body_begins(s);
      s->frameset_ok = false;
      set_text(s, T_RAWTEXT);
      return true;
    }
    return false;
  default:
    return false;
  }
}

/* The start tags that change the document's structure as tree
 * construction sees it: html, head and head elements, body, frameset,
 * frame, input, select, template, noscript, and the roots of foreign
 * content (math, svg). Returns whether the tag is one of them. */
static bool structure_start(scan_t *s)
{
  const char *n = s->name;
  switch (n[0]) {
  case 'b':
    if (strcmp(n, "basefont") == 0 || strcmp(n, "bgsound") == 0)
      return true; /* head elements */
    if (strcmp(n, "body") == 0) {
      if (s->template_depth == 0) {
        s->mode = M_BODY;
        s->frameset_ok = false;
      }
      return true;
    }
    return false;
  case 'f':
    if (strcmp(n, "frameset") == 0) {
      if (s->template_depth > 0)
        return true;
      if (s->mode == M_HEAD)
        frameset_begins(s);
      else if (s->frameset_ok)
        frameset_begins(s);
      return true;
    }
    if (strcmp(n, "frame") == 0) {
      body_begins(s); /* and ignored there */
      return true;
    }
    return false;
  case 'h':
    return strcmp(n, "html") == 0 || strcmp(n, "head") == 0;
  case 'i':
    if (strcmp(n, "input") == 0) {
      body_begins(s);
      if (!s->has[A_TYPE] ||
          !ascii_strnieq(trimmed(&s->val[A_TYPE]), "hidden", SIZE_MAX))
        s->frameset_ok = false;
      return true;
    }
    return false;
  case 'l':
    return strcmp(n, "link") == 0;
  case 'm':
    if (strcmp(n, "math") == 0) {
      body_begins(s);
      foreign_push(s, false);
      return true;
    }
    return false;
  case 'n':
    if (strcmp(n, "noscript") == 0) {
      if (s->mode != M_HEAD)
        body_begins(s); /* scripting off: an ordinary element */
      return true;
    }
    return false;
  case 's':
    if (strcmp(n, "select") == 0) {
      body_begins(s);
      s->frameset_ok = false;
      s->in_select = true;
      s->select_in_table = s->table_depth > 0;
      return true;
    }
    if (strcmp(n, "svg") == 0) {
      body_begins(s);
      foreign_push(s, true);
      return true;
    }
    return false;
  case 't':
    if (strcmp(n, "template") == 0) {
      s->template_depth++;
      return true;
    }
    return false;
  default:
    return false;
  }
}

/* A start tag, name in s->name, attributes read. */
static void start_tag(scan_t *s)
{
  if (s->fdepth > 0 && foreign_start(s))
    return;
  /* HTML content. */
  bool report = s->template_depth == 0;
  if (s->in_select && select_start(s))
    return;
  if (s->mode == M_FRAMESET || s->mode == M_AFTER) {
    frameset_start(s, report);
    return;
  }
  if (link_start(s, report) || text_start(s) || structure_start(s))
    return;
  /* Any other start tag begins the body; these also say the page is no
   * frameset. */
  static const char *const not_ok[] = {
    "pre",    "listing", "li",     "dd",    "dt", "button",
    "applet", "marquee", "object", "table", "br", "embed",
    "img",    "image",   "keygen", "wbr",   "hr", NULL
  };
  const char *n = s->name;
  body_begins(s);
  if (s->frameset_ok && name_in(n, not_ok))
    s->frameset_ok = false;
  if (strcmp(n, "table") == 0 && s->table_depth < INT_MAX)
    s->table_depth++;
}

/* An end tag, name in s->name. */
static void end_tag(scan_t *s)
{
  const char *n = s->name;
  if (s->fdepth > 0) {
    if (strcmp(n, "br") == 0 || strcmp(n, "p") == 0) {
      if (!s->fstack[s->fdepth - 1].integ)
        foreign_pop_to_html(s);
    } else {
      for (int k = s->fdepth - 1; k >= 0; k--) {
        if (strcmp(s->fstack[k].name, n) == 0) {
          s->fdepth = k;
          return;
        }
      }
    }
  }
  if (strcmp(n, "template") == 0) {
    if (s->template_depth > 0)
      s->template_depth--;
    return;
  }
  if (s->in_select && s->select_in_table && name_in(n, table_tags))
    s->in_select = false; /* and the end tag goes on */
  if (s->in_select) {
    if (strcmp(n, "select") == 0)
      s->in_select = false;
    return;
  }
  if (strcmp(n, "table") == 0 && s->table_depth > 0)
    s->table_depth--;
  if (s->mode == M_FRAMESET) {
    if (strcmp(n, "frameset") == 0 && --s->frameset_depth == 0)
      s->mode = M_AFTER;
    return;
  }
  if (s->mode == M_AFTER)
    return;
  if (strcmp(n, "br") == 0) {
    body_begins(s);
    s->frameset_ok = false;
  } else if (s->mode == M_HEAD &&
             (strcmp(n, "body") == 0 || strcmp(n, "html") == 0)) {
    body_begins(s);
  }
}

/* ---- the tokenizer ---- */

/* Text b[from..to) in the data state: non-whitespace text begins the
 * body and says the page is no frameset. */
static void data_text(scan_t *s, size_t from, size_t to)
{
  if (s->mode >= M_FRAMESET || s->in_select ||
      (s->mode == M_BODY && !s->frameset_ok))
    return;
  for (size_t k = from; k < to; k++) {
    unsigned char c = s->b[k];
    if (!is_ws(c) && c != '\0') {
      if (s->fdepth == 0)
        body_begins(s);
      s->frameset_ok = false;
      return;
    }
  }
}

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
  while (i < n && !is_ws(b[i]) && b[i] != '/' && b[i] != '>') {
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
  bool want = !is_end && k > 0 && wants_values(s->name);
  if (want)
    memset(s->has, 0, sizeof s->has);
  for (;;) {
    while (i < n && is_ws(b[i]))
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
    while (i < n && !is_ws(b[i]) && b[i] != '/' && b[i] != '>' && b[i] != '=')
      i++;
    size_t anlen = i - an;
    while (i < n && is_ws(b[i]))
      i++;
    if (i >= n)
      return false;
    size_t v = 0, vlen = 0;
    if (b[i] == '=') {
      i++;
      while (i < n && is_ws(b[i]))
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
        while (i < n && !is_ws(b[i]) && b[i] != '>')
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
        scan_nomem(s);
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
  return is_ws(c) || c == '/' || c == '>';
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
  return is_ws(c) || c == '/' || c == '>';
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
    data_text(s, i, p);
    if (p + 1 >= n) {
      if (p < n)
        data_text(s, p, n); /* a lone '<' at the end is text */
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
        start_tag(s);
      else if (!s->stopped)
        body_begins(s);
    } else if (c == '/') {
      if (p + 2 >= n) {
        data_text(s, p, n);
        s->i = n;
      } else if (ascii_isalpha(b[p + 2])) {
        s->i = p + 2;
        if (!read_tag(s, true)) {
          s->i = n;
          break;
        }
        if (s->namelen > 0)
          end_tag(s);
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
        data_text(s, p + 9, text_end);
        s->i = k;
      } else {
        s->i = to_gt(s, p + 2); /* bogus comment */
      }
    } else if (c == '?') {
      s->i = to_gt(s, p + 2); /* bogus comment */
    } else {
      data_text(s, p, p + 1); /* '<' is text */
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
    deliver_pending(&s);
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
