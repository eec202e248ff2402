/* links_charset.c: a page's encoding as the HTML standard decides it,
 * and its text as UTF-8, for links_html.c; see links_int.h.
 *
 * The labels come from the Encoding standard's table (links_tables.c,
 * generated). Decoding uses glibc's iconv, except for UTF-8 (checked,
 * and repaired only when invalid) and windows-1252 (the default, and
 * what "iso-8859-1" and "ascii" mean on the web), decoded here because
 * glibc's CP1252 rejects the five bytes the standard maps to C1
 * controls. Where glibc's converter and the standard's decoder differ
 * in the characters they map, the standard's names are mapped to the
 * nearest glibc converter (iconv_name()); every mismatch is one
 * character of text, never a '<' or a quote, since all these encodings
 * but UTF-16 and ISO-2022-JP keep ASCII as it is. */
#include "links_int.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

static bool is_ws(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* See links_int.h. */
const char *links_encoding_name(const char *label, size_t len)
{
  while (len > 0 && is_ws((unsigned char)*label)) {
    label++;
    len--;
  }
  while (len > 0 && is_ws((unsigned char)label[len - 1]))
    len--;
  char key[64];
  if (len == 0 || len >= sizeof key)
    return NULL;
  for (size_t i = 0; i < len; i++)
    key[i] = (char)ascii_tolower((unsigned char)label[i]);
  key[len] = '\0';
  size_t lo = 0, hi = links_nlabels;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(key, links_labels[mid].label);
    if (c == 0)
      return links_labels[mid].name;
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* See links_int.h. */
size_t links_ascii_prefix(const unsigned char *b, size_t n)
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

/* See links_int.h. */
bool links_utf8_valid(const unsigned char *b, size_t n)
{
  size_t i = 0;
  while (i < n) {
    unsigned char c = b[i];
    if (c < 0x80) {
      i += links_ascii_prefix(b + i, n - i);
      continue;
    }
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

/* ---- the prescan (HTML standard, "prescan a byte stream to determine
 * its encoding"), over at most the first 1024 bytes ---- */

typedef struct pre {
  const unsigned char *b;
  size_t n, i;
} pre_t;

/* "get an attribute": name into name[], value into val[] (both lower
 * case, cut at their buffers' size, which no label or name we compare
 * exceeds). false when there is none (at '>' or the end). */
static bool pre_attr(pre_t *p, char *name, size_t nsz, char *val, size_t vsz)
{
  size_t nl = 0, vl = 0;
  while (p->i < p->n && (is_ws(p->b[p->i]) || p->b[p->i] == '/'))
    p->i++;
  if (p->i >= p->n || p->b[p->i] == '>')
    return false;
  for (bool first = true;; first = false) {
    if (p->i >= p->n)
      return false;
    unsigned char c = p->b[p->i];
    if (c == '=' && !first)
      break;
    if (is_ws(c)) {
      while (p->i < p->n && is_ws(p->b[p->i]))
        p->i++;
      if (p->i >= p->n || p->b[p->i] != '=')
        goto done;
      break;
    }
    if (c == '/' || c == '>')
      goto done;
    if (nl + 1 < nsz)
      name[nl++] = (char)ascii_tolower(c);
    p->i++;
  }
  p->i++; /* the '=' */
  while (p->i < p->n && is_ws(p->b[p->i]))
    p->i++;
  if (p->i >= p->n)
    return false;
  if (p->b[p->i] == '"' || p->b[p->i] == '\'') {
    unsigned char q = p->b[p->i++];
    for (;;) {
      if (p->i >= p->n)
        return false;
      unsigned char c = p->b[p->i++];
      if (c == q)
        break;
      if (vl + 1 < vsz)
        val[vl++] = (char)ascii_tolower(c);
    }
  } else if (p->b[p->i] == '>') {
    /* empty value */
  } else {
    while (p->i < p->n && !is_ws(p->b[p->i]) && p->b[p->i] != '>') {
      if (vl + 1 < vsz)
        val[vl++] = (char)ascii_tolower(p->b[p->i]);
      p->i++;
    }
    if (p->i >= p->n)
      return false;
  }
done:
  name[nl] = '\0';
  val[vl] = '\0';
  return true;
}

/* "extract a character encoding from a meta element" of content s. */
static const char *pre_content(const char *s)
{
  const char *p = s;
  for (;;) {
    const char *c = strstr(p, "charset");
    if (c == NULL)
      return NULL;
    p = c + 7;
    while (is_ws((unsigned char)*p))
      p++;
    if (*p != '=')
      continue;
    p++;
    while (is_ws((unsigned char)*p))
      p++;
    if (*p == '"' || *p == '\'') {
      const char *e = strchr(p + 1, *p);
      if (e == NULL)
        return NULL;
      return links_encoding_name(p + 1, (size_t)(e - p - 1));
    }
    if (*p == '\0')
      return NULL;
    const char *e = p;
    while (*e != '\0' && !is_ws((unsigned char)*e) && *e != ';')
      e++;
    return links_encoding_name(p, (size_t)(e - p));
  }
}

/* A <meta> at p->i (just after "<meta" and a space or '/'). */
static const char *pre_meta(pre_t *p)
{
  char name[32], val[256];
  bool seen_he = false, seen_content = false, seen_cs = false;
  bool got_pragma = false;
  int need_pragma = -1; /* null */
  const char *cs = NULL;
  while (pre_attr(p, name, sizeof name, val, sizeof val)) {
    if (strcmp(name, "http-equiv") == 0) {
      if (seen_he)
        continue;
      seen_he = true;
      if (strcmp(val, "content-type") == 0)
        got_pragma = true;
    } else if (strcmp(name, "content") == 0) {
      if (seen_content)
        continue;
      seen_content = true;
      if (cs == NULL) {
        cs = pre_content(val);
        if (cs != NULL)
          need_pragma = 1;
      }
    } else if (strcmp(name, "charset") == 0) {
      if (seen_cs)
        continue;
      seen_cs = true;
      cs = links_encoding_name(val, strlen(val));
      need_pragma = 0;
    }
  }
  if (need_pragma < 0 || (need_pragma == 1 && !got_pragma) || cs == NULL)
    return NULL;
  if (strcmp(cs, "UTF-16BE") == 0 || strcmp(cs, "UTF-16LE") == 0)
    return "UTF-8";
  if (strcmp(cs, "x-user-defined") == 0)
    return "windows-1252";
  return cs;
}

static bool pre_at(const pre_t *p, const char *w)
{
  size_t k = strlen(w);
  if (p->n - p->i < k)
    return false;
  for (size_t j = 0; j < k; j++)
    if (ascii_tolower(p->b[p->i + j]) != w[j])
      return false;
  return true;
}

static const char *prescan(const unsigned char *b, size_t n)
{
  pre_t p = { b, n < 1024 ? n : 1024, 0 };
  while (p.i < p.n) {
    if (p.b[p.i] != '<') {
      const unsigned char *lt = memchr(p.b + p.i, '<', p.n - p.i);
      if (lt == NULL)
        break;
      p.i = (size_t)(lt - p.b);
    }
    if (pre_at(&p, "<!--")) {
      size_t k = p.i + 2; /* "-->" may share the dashes of "<!--" */
      while (k + 3 <= p.n && memcmp(p.b + k, "-->", 3) != 0)
        k++;
      if (k + 3 > p.n)
        break;
      p.i = k + 3;
    } else if (pre_at(&p, "<meta") && p.i + 5 < p.n &&
               (is_ws(p.b[p.i + 5]) || p.b[p.i + 5] == '/')) {
      p.i += 6;
      const char *cs = pre_meta(&p);
      if (cs != NULL)
        return cs;
    } else if ((p.i + 1 < p.n && ascii_isalpha(p.b[p.i + 1])) ||
               (p.i + 2 < p.n && p.b[p.i + 1] == '/' &&
                ascii_isalpha(p.b[p.i + 2]))) {
      while (p.i < p.n && !is_ws(p.b[p.i]) && p.b[p.i] != '>')
        p.i++;
      char name[32], val[256];
      while (pre_attr(&p, name, sizeof name, val, sizeof val))
        ;
    } else if (pre_at(&p, "<!") || pre_at(&p, "</") || pre_at(&p, "<?")) {
      const unsigned char *gt = memchr(p.b + p.i, '>', p.n - p.i);
      if (gt == NULL)
        break;
      p.i = (size_t)(gt - p.b);
    }
    p.i++;
  }
  return NULL;
}

/* See links_int.h. */
const char *links_sniff(const char *body, size_t len, const char *charset,
                        size_t *bom, int *valid)
{
  const unsigned char *b = (const unsigned char *)body;
  *bom = 0;
  *valid = -1;
  if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
    *bom = 3;
    return "UTF-8";
  }
  if (len >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
    *bom = 2;
    return "UTF-16BE";
  }
  if (len >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
    *bom = 2;
    return "UTF-16LE";
  }
  const char *enc = NULL;
  if (charset != NULL)
    enc = links_encoding_name(charset, strlen(charset));
  if (enc == NULL)
    enc = prescan(b, len);
  if (enc != NULL)
    return enc;
  /* No declaration: the standard lets a browser guess from the bytes,
   * and browsers take valid UTF-8 for UTF-8. Pure ASCII decodes alike
   * in both. */
  size_t i = links_ascii_prefix(b, len);
  if (i == len) {
    *valid = 1;
    return "windows-1252";
  }
  *valid = links_utf8_valid(b + i, len - i);
  return *valid ? "UTF-8" : "windows-1252";
}

/* ---- decoding ---- */

void links_put_utf8(strbuf_t *o, uint32_t cp)
{
  char u[4];
  size_t k;
  if (cp < 0x80) {
    u[0] = (char)cp;
    k = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    k = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    k = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    k = 4;
  }
  strbuf_add(o, u, k);
}

/* The standard's UTF-8 decoder: each maximal invalid subpart is one
 * U+FFFD. */
static void decode_utf8(const unsigned char *b, size_t n, strbuf_t *o)
{
  size_t i = 0;
  while (i < n) {
    size_t start = i;
    while (i < n && b[i] < 0x80)
      i++;
    strbuf_add(o, b + start, i - start);
    if (i == n)
      break;
    unsigned char c = b[i];
    size_t k = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
      k = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      k = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      k = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    }
    if (k == 0) {
      links_put_utf8(o, 0xFFFD);
      i++;
      continue;
    }
    size_t j = 1;
    while (j <= k && i + j < n && b[i + j] >= (j == 1 ? lo : 0x80) &&
           b[i + j] <= (j == 1 ? hi : 0xBF))
      j++;
    if (j == k + 1)
      strbuf_add(o, b + i, k + 1);
    else
      links_put_utf8(o, 0xFFFD);
    i += j;
  }
}

static void decode_1252(const unsigned char *b, size_t n, strbuf_t *o)
{
  for (size_t i = 0; i < n;) {
    size_t start = i;
    while (i < n && b[i] < 0x80)
      i++;
    strbuf_add(o, b + start, i - start);
    if (i == n)
      break;
    unsigned c = b[i++];
    if (c < 0xA0 && links_c1_remap[c - 0x80] != 0)
      c = links_c1_remap[c - 0x80];
    links_put_utf8(o, c);
  }
}

/* glibc's name for the converter nearest to the standard's encoding. */
static const char *iconv_name(const char *enc)
{
  static const char *const map[][2] = {
    { "ISO-8859-8-I", "ISO-8859-8" },
    { "KOI8-U", "KOI8-RU" },
    { "macintosh", "MACINTOSH" },
    { "windows-874", "CP874" },
    { "x-mac-cyrillic", "MAC-UK" },
    { "GBK", "GB18030" },
    { "Big5", "BIG5-HKSCS" },
    { "Shift_JIS", "CP932" },
    { "EUC-KR", "CP949" },
    { NULL, NULL },
  };
  for (size_t i = 0; map[i][0] != NULL; i++)
    if (strcmp(enc, map[i][0]) == 0)
      return map[i][1];
  return enc;
}

/* Through iconv; false if glibc has no such converter. */
static bool decode_iconv(const char *b, size_t n, const char *enc, strbuf_t *o)
{
  iconv_t cd = iconv_open("UTF-8", iconv_name(enc));
  if (cd == (iconv_t)-1)
    return false;
  char *in = (char *)b;
  size_t inleft = n;
  char chunk[4096];
  while (inleft > 0 && !o->oom) {
    char *out = chunk;
    size_t outleft = sizeof chunk;
    size_t r = iconv(cd, &in, &inleft, &out, &outleft);
    strbuf_add(o, chunk, sizeof chunk - outleft);
    if (r == (size_t)-1 && errno != E2BIG) {
      /* EILSEQ, or EINVAL (cut short at the end): one U+FFFD, one byte
       * skipped, and the converter reset for what follows. */
      links_put_utf8(o, 0xFFFD);
      in++;
      inleft--;
      iconv(cd, NULL, NULL, NULL, NULL);
    }
  }
  char *out = chunk;
  size_t outleft = sizeof chunk;
  iconv(cd, NULL, NULL, &out, &outleft);
  strbuf_add(o, chunk, sizeof chunk - outleft);
  iconv_close(cd);
  return true;
}

/* See links_int.h. */
bool links_decode(const char *body, size_t len, const char *enc, char **out,
                  size_t *outlen)
{
  strbuf_t o = STRBUF_INIT;
  const unsigned char *b = (const unsigned char *)body;
  strbuf_reserve(&o, len + len / 2 + 16);
  if (strcmp(enc, "UTF-8") == 0) {
    decode_utf8(b, len, &o);
  } else if (strcmp(enc, "windows-1252") == 0) {
    decode_1252(b, len, &o);
  } else if (strcmp(enc, "replacement") == 0) {
    if (len > 0)
      links_put_utf8(&o, 0xFFFD);
  } else if (strcmp(enc, "x-user-defined") == 0) {
    for (size_t i = 0; i < len; i++)
      links_put_utf8(&o, b[i] < 0x80 ? b[i] : 0xF700u + b[i]);
  } else if (!decode_iconv(body, len, enc, &o)) {
    decode_1252(b, len, &o); /* no converter in this libc */
  }
  if (o.oom) {
    strbuf_release(&o);
    *out = NULL;
    return false;
  }
  *outlen = o.len;
  *out = strbuf_detach(&o);
  return true;
}

/* ---- query encoding ---- */

/* See links_int.h. */
bool links_query_encoding(const char *enc)
{
  return strcmp(enc, "UTF-8") != 0 && strncmp(enc, "UTF-16", 6) != 0 &&
         strcmp(enc, "replacement") != 0;
}

/* The length of the UTF-8 sequence starting with c (1 for a stray
 * byte, which the decoders never leave). */
static size_t utf8_len(unsigned char c)
{
  return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

static uint32_t utf8_cp(const unsigned char *p, size_t k)
{
  static const unsigned char lead_mask[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
  uint32_t cp = p[0] & lead_mask[k];
  for (size_t j = 1; j < k; j++)
    cp = cp << 6 | (p[j] & 0x3F);
  return cp;
}

/* See links_int.h. */
bool links_query_encode(const char *enc, strbuf_t *v)
{
  if (v->p == NULL)
    return true;
  size_t q = strcspn(v->p, "?#");
  if (v->p[q] != '?')
    return true;
  size_t end = q + strcspn(v->p + q, "#");
  size_t i = q;
  while (i < end && (unsigned char)v->p[i] < 0x80)
    i++;
  if (i == end)
    return true; /* nothing to encode: the common case */
  iconv_t cd = iconv_open(iconv_name(enc), "UTF-8");
  strbuf_t o = STRBUF_INIT;
  strbuf_add(&o, v->p, i);
  while (i < end) {
    const unsigned char *p = (const unsigned char *)v->p + i;
    if (*p < 0x80) {
      strbuf_addc(&o, (char)*p);
      i++;
      continue;
    }
    size_t k = utf8_len(*p);
    if (i + k > end)
      k = end - i;
    char out[16];
    char *in = (char *)p, *op = out;
    size_t inleft = k, outleft = sizeof out;
    bool ok = cd != (iconv_t)-1 &&
              iconv(cd, &in, &inleft, &op, &outleft) != (size_t)-1 &&
              iconv(cd, NULL, NULL, &op, &outleft) != (size_t)-1;
    if (cd != (iconv_t)-1)
      iconv(cd, NULL, NULL, NULL, NULL);
    if (ok) {
      for (char *b = out; b < op; b++)
        strbuf_addf(&o, "%%%02X", (unsigned char)*b);
    } else {
      /* Not in the encoding: the URL standard writes "&#N;", encoded. */
      strbuf_addf(&o, "%%26%%23%lu%%3B", (unsigned long)utf8_cp(p, k));
    }
    i += k;
  }
  strbuf_add(&o, v->p + end, v->len - end);
  if (cd != (iconv_t)-1)
    iconv_close(cd);
  if (o.oom) {
    strbuf_release(&o);
    return false;
  }
  strbuf_release(v);
  *v = o;
  return true;
}
