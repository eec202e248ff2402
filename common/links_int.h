/* links_int.h: what links_html.c shares with links_charset.c and the
 * generated links_tables.c.
 *
 * Private: not part of the public API, which is links.h. Only the
 * common/links_*.c files include it. */
#ifndef COMMON_LINKS_INT_H
#define COMMON_LINKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* COMMON_LINKS_INT_H */
