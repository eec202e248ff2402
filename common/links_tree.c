/* links_tree.c: the part of the HTML standard's tree construction that
 * decides which tags links_scan_html() reports, and the reporting; see
 * links_int.h. links_html.c runs the tokenizer and calls in here for
 * every tag and run of text.
 *
 * Of tree construction, only the state kept in scan_t: whether the
 * document has begun its body or become a frameset (and the frameset-ok
 * flag that decides it), the depth of <template> content (inert: nothing
 * in it counts), a <select> (which drops most tags), and a stack of the
 * SVG/MathML elements open (whose content is tokenised without raw-text
 * elements), with the tags that break out of it.
 *
 * The first <base href> applies to the whole document, also to links
 * before it, and a <frameset> honoured late removes the body and its
 * links: so links are held back (in scan_t.pend) until neither can
 * change them any more (see deliver_ready()), which on most pages is the
 * end of the page. */
#include "links.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "links_int.h"
#include "strbuf.h"

static bool name_in(const char *name, const char *const *list)
{
  for (size_t i = 0; list[i] != NULL; i++)
    if (strcmp(name, list[i]) == 0)
      return true;
  return false;
}

/* ---- delivery ---- */

/* The value v trimmed of ASCII whitespace, NUL-terminated in place. */
static const char *trimmed(strbuf_t *v)
{
  if (v->p == NULL)
    return "";
  size_t n = v->len;
  while (n > 0 && links_is_ws((unsigned char)v->p[n - 1]))
    n--;
  v->p[n] = '\0';
  const char *p = v->p;
  while (links_is_ws((unsigned char)*p))
    p++;
  return p;
}

/* See links_int.h. */
void links_deliver_pending(scan_t *s)
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
    links_scan_nomem(s);
    return;
  }
  s->npend++;
  if (deliver_ready(s))
    links_deliver_pending(s);
}

/* The URL value v, trimmed, its query encoded as the page's encoding
 * says (a browser sends "?q=\xc3\xa9" as %E9 from a windows-1252 page);
 * NULL on ENOMEM. */
static const char *url_value(scan_t *s, strbuf_t *v)
{
  if (s->qenc && !links_query_encode(s->enc, v)) {
    links_scan_nomem(s);
    return NULL;
  }
  return trimmed(v);
}

/* ---- what the elements mean ---- */

static bool rel_has_nofollow(const char *rel)
{
  static const char tok[] = "nofollow";
  const size_t toklen = sizeof tok - 1;
  const char *p = rel;
  while (*p != '\0') {
    while (links_is_ws((unsigned char)*p))
      p++;
    const char *start = p;
    while (*p != '\0' && !links_is_ws((unsigned char)*p))
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
    links_deliver_pending(s);
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

/* See links_int.h. */
bool links_wants_values(const char *n)
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

/* See links_int.h. */
void links_body_begins(scan_t *s)
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
      links_scan_nomem(s);
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
      links_body_begins(s);
      if (report)
        on_anchor(s);
      return true;
    }
    if (strcmp(n, "area") == 0) {
      links_body_begins(s);
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
      links_body_begins(s);
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
      links_body_begins(s);
      set_text(s, T_RAWTEXT);
      return true;
    }
    return false;
  case 'p':
    if (strcmp(n, "plaintext") == 0) {
      links_body_begins(s);
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
      links_body_begins(s);
      s->frameset_ok = false;
      set_text(s, T_RCDATA);
      return true;
    }
    return false;
  case 'x':
    if (strcmp(n, "xmp") == 0) {
      links_body_begins(s);
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
      links_body_begins(s); /* and ignored there */
      return true;
    }
    return false;
  case 'h':
    return strcmp(n, "html") == 0 || strcmp(n, "head") == 0;
  case 'i':
    if (strcmp(n, "input") == 0) {
      links_body_begins(s);
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
      links_body_begins(s);
      foreign_push(s, false);
      return true;
    }
    return false;
  case 'n':
    if (strcmp(n, "noscript") == 0) {
      if (s->mode != M_HEAD)
        links_body_begins(s); /* scripting off: an ordinary element */
      return true;
    }
    return false;
  case 's':
    if (strcmp(n, "select") == 0) {
      links_body_begins(s);
      s->frameset_ok = false;
      s->in_select = true;
      s->select_in_table = s->table_depth > 0;
      return true;
    }
    if (strcmp(n, "svg") == 0) {
      links_body_begins(s);
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

/* See links_int.h. */
void links_start_tag(scan_t *s)
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
  links_body_begins(s);
  if (s->frameset_ok && name_in(n, not_ok))
    s->frameset_ok = false;
  if (strcmp(n, "table") == 0 && s->table_depth < INT_MAX)
    s->table_depth++;
}

/* See links_int.h. */
void links_end_tag(scan_t *s)
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
    links_body_begins(s);
    s->frameset_ok = false;
  } else if (s->mode == M_HEAD &&
             (strcmp(n, "body") == 0 || strcmp(n, "html") == 0)) {
    links_body_begins(s);
  }
}

/* See links_int.h. */
void links_data_text(scan_t *s, size_t from, size_t to)
{
  if (s->mode >= M_FRAMESET || s->in_select ||
      (s->mode == M_BODY && !s->frameset_ok))
    return;
  for (size_t k = from; k < to; k++) {
    unsigned char c = s->b[k];
    if (!links_is_ws(c) && c != '\0') {
      if (s->fdepth == 0)
        links_body_begins(s);
      s->frameset_ok = false;
      return;
    }
  }
}
