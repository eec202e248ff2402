/* links_int.h: what links_html.c shares with links_tree.c,
 * links_charset.c and the generated links_tables.c.
 *
 * Private: not part of the public API, which is links.h. Only the
 * common/links_*.c files include it. */
#ifndef COMMON_LINKS_INT_H
#define COMMON_LINKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "links.h"
#include "strbuf.h"

/* One named character reference of the HTML standard: name as written
 * after '&' (with its ';' when it has one: "amp;" and the legacy "amp"
 * are two rows), value in UTF-8. Sorted by name in byte order. */
typedef struct links_entity {
  const char *name;
  const char *utf8;
} links_entity_t;

extern const links_entity_t links_entities[];
extern const size_t links_nentities;
extern const size_t links_entity_maxname; /* longest name, in bytes */

/* links_c1_remap[c - 0x80]: the code point a numeric reference to c in
 * 0x80-0x9F stands for (windows-1252), or 0 if c stays. */
extern const unsigned short links_c1_remap[32];

/* One encoding label of the Encoding standard (lower case) and the name
 * of the encoding it means. Sorted by label in byte order. */
typedef struct links_label {
  const char *label;
  const char *name;
} links_label_t;

extern const links_label_t links_labels[];
extern const size_t links_nlabels;

/* links_encoding_name: the encoding a label means, per the Encoding
 * standard (ASCII whitespace around it ignored, any case): "utf-8",
 * "windows-1252", "Shift_JIS" ... or NULL for an unknown label.
 * Returns a static string. Thread-safety: any thread. */
const char *links_encoding_name(const char *label, size_t len);

/* links_sniff: the encoding of a page by the HTML standard's sniffing
 * algorithm: a BOM (*bom gets its length), else the transport's charset
 * label (NULL or unknown: skipped), else a <meta> charset found by the
 * prescan of the first 1024 bytes, else UTF-8 if the page is valid
 * UTF-8 with at least one non-ASCII byte, else windows-1252 (the
 * standard's default for an unknown locale). Returns a static encoding
 * name as links_encoding_name() does; *valid is 1 if body was found to
 * be valid UTF-8 (pure ASCII included), 0 if not, -1 if not checked.
 * Thread-safety: any thread. */
const char *links_sniff(const char *body, size_t len, const char *charset,
                        size_t *bom, int *valid);

/* links_decode: body[0..len) in the encoding enc (a name from
 * links_sniff()) as UTF-8, invalid or unmapped input as U+FFFD, in a
 * malloc'd buffer (*out, *outlen; NUL-terminated). Returns false on
 * ENOMEM (*out NULL). Thread-safety: any thread. */
bool links_decode(const char *body, size_t len, const char *enc, char **out,
                  size_t *outlen);

/* links_query_encoding: does a page in encoding enc send the non-ASCII
 * characters of its URLs' queries in that encoding (the URL standard's
 * "encoding-parse": every encoding but UTF-8, UTF-16 and replacement)? */
bool links_query_encoding(const char *enc);

/* links_query_encode: in the href v (UTF-8), percent-encode the non-ASCII
 * characters of the query (from the first '?' before any '#' to the
 * '#') as their bytes in enc, a character enc cannot encode as "&#N;"
 * percent-encoded, as a browser does for a page in enc. v is replaced;
 * false on ENOMEM (v unchanged). Thread-safety: any thread. */
bool links_query_encode(const char *enc, strbuf_t *v);

/* links_utf8_valid: is b[0..n) valid UTF-8? */
bool links_utf8_valid(const unsigned char *b, size_t n);

/* links_ascii_prefix: the length of the ASCII prefix of b[0..n). */
size_t links_ascii_prefix(const unsigned char *b, size_t n);

/* links_put_utf8: append code point CP (below 0x110000) to O as UTF-8.
 * (links_charset.c) */
void links_put_utf8(strbuf_t *o, uint32_t cp);

/* ---- The HTML scan: links_html.c runs the tokenizer, links_tree.c
 * keeps what tree construction decides and reports the links; both work
 * on one scan_t, on the stack of its links_scan_html() call. Every
 * function below: any thread, on a scan_t no other thread uses. ---- */

/* Where the document is, as tree construction would know it. */
enum {
  M_HEAD, /* no body yet: initial .. "after head" */
  M_BODY, /* in body (also in table, after body ...) */
  M_FRAMESET,
  M_AFTER /* after frameset, after after frameset */
};

/* How the tokenizer reads what follows the current tag. */
enum { T_DATA, T_RCDATA, T_RAWTEXT, T_SCRIPT, T_PLAINTEXT };

/* The attributes we read, per element (links_html.c, attr_names). */
enum { A_HREF, A_SRC, A_REL, A_NAME, A_CONTENT, A_TYPE, A_ENC, A_N };

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
static inline bool links_is_ws(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* links_scan_nomem: memory ran out; the scan stops (LINKS_ENOMEM). */
static inline void links_scan_nomem(scan_t *s)
{
  s->nomem = true;
  s->stopped = true;
}

/* links_start_tag: a start tag, its name in s->name, its attributes read
 * (those links_wants_values asks for in s->val): what tree construction
 * makes of it, and the link, base or meta it reports. (links_tree.c) */
void links_start_tag(scan_t *s);

/* links_end_tag: an end tag, its name in s->name. (links_tree.c) */
void links_end_tag(scan_t *s);

/* links_data_text: text s->b[from..to) in the data state: non-whitespace
 * text begins the body and says the page is no frameset. (links_tree.c) */
void links_data_text(scan_t *s, size_t from, size_t to);

/* links_body_begins: the body begins (M_HEAD becomes M_BODY), unless
 * the tag is in a template. (links_tree.c) */
void links_body_begins(scan_t *s);

/* links_deliver_pending: hand the held-back links to the sink, in order,
 * until one stops the scan; none is held after. (links_tree.c) */
void links_deliver_pending(scan_t *s);

/* links_wants_values: whether a start tag NAME (lower case) needs its
 * attribute values, in HTML content. (links_tree.c) */
bool links_wants_values(const char *name);

#endif /* COMMON_LINKS_INT_H */
