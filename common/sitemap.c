/* sitemap.c: sitemaps read with libxml2's xmlTextReader (sitemap.h).
 *
 * The reader pulls the document through one input callback (feed), which
 * inflates a gzip sitemap as it goes, counts the bytes against
 * SITEMAP_MAX_BYTES and refuses a document type or entity declaration
 * before libxml2 ever sees it (the node checks in sitemap_read are a
 * second line). Text of a <loc> is gathered into a fixed buffer. */
#include "sitemap.h"

#include <libxml/xmlreader.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

/* The input: DATA, inflated on the way if gzip. */
struct in {
  const unsigned char *data;
  size_t len, pos;
  bool gzip, zinit, zdone;
  z_stream z;
  long out;      /* bytes handed to libxml2 */
  char tail[16]; /* the last bytes handed over, for a mark (scan) cut
                    between two calls */
  size_t ntail;
  long count[8];     /* of each mark (scan) */
  long intag;        /* bytes of the tag being read ('<' to '>'), or -1 */
  const char *fault; /* why feed refused, or NULL */
};

/* What feed looks for in the bytes it hands over. libxml2's reader keeps
 * comments, processing instructions and CDATA sections in memory until
 * their parent element ends, and parses ahead of what it returns: a
 * sitemap of 60 MB of "<?p a?>" took 1.9 GB before the first node came
 * back. So they are counted here, before the parser sees them. */
static const struct mark {
  const char *s;
  long max; /* -1: refused at once */
} marks[] = {
  { "<!DOCTYPE", -1 },
  { "<!ENTITY", -1 },
  { "<!--", SITEMAP_MAX_OTHERS },
  { "<?", SITEMAP_MAX_OTHERS },
  { "<![CDATA[", SITEMAP_MAX_LOCS },
};
enum { NMARKS = sizeof(marks) / sizeof(marks[0]), MARK_MAX = 9 };

/* scan: count the marks that start in the NTAIL bytes kept from before
 * and run into BUF, or start in BUF (N bytes); each once. Returns why
 * the document is refused, or NULL. */
static const char *scan(struct in *in, const char *buf, size_t n)
{
  char edge[2 * MARK_MAX];
  size_t head = n < MARK_MAX - 1 ? n : MARK_MAX - 1;
  memcpy(edge, in->tail, in->ntail);
  memcpy(edge + in->ntail, buf, head);
  for (int pass = 0; pass < 2; pass++) {
    const char *p = pass ? buf : edge;
    size_t len = pass ? n : in->ntail + head, to = pass ? n : in->ntail;
    for (size_t i = 0; i < to; i++) {
      if (p[i] != '<')
        continue;
      for (int m = 0; m < NMARKS; m++) {
        size_t ml = strlen(marks[m].s);
        if (i + ml > len || memcmp(p + i, marks[m].s, ml) != 0)
          continue;
        if (marks[m].max < 0)
          return "a document type or entity declaration (refused: a "
                 "sitemap has none, and they are how entity attacks come)";
        if (++in->count[m] > marks[m].max)
          return m == NMARKS - 1
                 ? "over 50,000 CDATA sections"
                 : "over 1,000 comments or processing instructions";
      }
    }
  }
  /* Tags of a sitemap are short; libxml2 checks each attribute of a tag
   * against the others: 300,000 of them took 440 s. */
  for (size_t i = 0; i < n; i++) {
    if (buf[i] == '<')
      in->intag = 0;
    else if (buf[i] == '>')
      in->intag = -1;
    else if (in->intag >= 0 && ++in->intag > SITEMAP_MAX_TAG)
      return "a tag over 16 KB";
  }
  /* Keep the last MARK_MAX - 1 bytes for the next call. */
  size_t keep = n < MARK_MAX - 1 ? n : MARK_MAX - 1;
  if (in->ntail + keep > MARK_MAX - 1) {
    size_t drop = in->ntail + keep - (MARK_MAX - 1);
    memmove(in->tail, in->tail + drop, in->ntail - drop);
    in->ntail -= drop;
  }
  memcpy(in->tail + in->ntail, buf + n - keep, keep);
  in->ntail += keep;
  return NULL;
}

/* feed: xmlInputReadCallback: up to LEN bytes of the document into BUF. */
static int feed(void *ctx, char *buf, int len)
{
  struct in *in = ctx;
  if (in->fault != NULL)
    return -1;
  int n = 0;
  if (!in->gzip) {
    size_t left = in->len - in->pos;
    n = (int)(left < (size_t)len ? left : (size_t)len);
    memcpy(buf, in->data + in->pos, (size_t)n);
    in->pos += (size_t)n;
  } else {
    while (n == 0 && !in->zdone) {
      in->z.next_in = (Bytef *)(in->data + in->pos);
      in->z.avail_in = (uInt)(in->len - in->pos);
      in->z.next_out = (Bytef *)buf;
      in->z.avail_out = (uInt)len;
      int rc = inflate(&in->z, Z_NO_FLUSH);
      in->pos = in->len - in->z.avail_in;
      n = len - (int)in->z.avail_out;
      if (rc == Z_STREAM_END) {
        /* Another gzip member may follow (gzip allows several). */
        if (in->pos < in->len && inflateReset(&in->z) == Z_OK)
          continue;
        in->zdone = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        in->fault = "a broken gzip stream";
        return -1;
      } else if (n == 0 && in->z.avail_in == 0) {
        in->fault = "a gzip stream cut short";
        return -1;
      }
    }
  }
  in->out += n;
  if (in->out > SITEMAP_MAX_BYTES) {
    in->fault = "over 50 MB once decompressed (the protocol's limit)";
    return -1;
  }
  if ((in->fault = scan(in, buf, (size_t)n)) != NULL)
    return -1;
  return n;
}

/* The first error libxml2 reported, kept for the reason. */
struct xml_error {
  char msg[160];
  int line;
};

static void on_error(void *arg, xmlErrorPtr e)
{
  struct xml_error *x = arg;
  if (x->msg[0] != '\0' || e == NULL)
    return;
  snprintf(x->msg, sizeof(x->msg), "%s", e->message ? e->message : "error");
  size_t l = strlen(x->msg);
  while (l > 0 && (x->msg[l - 1] == '\n' || x->msg[l - 1] == ' '))
    x->msg[--l] = '\0';
  x->line = e->line;
}

/* loc_end: the text gathered for a <loc> (BUF, *N bytes), trimmed, to FN;
 * returns FN's answer (0 if the loc was empty or skipped). */
static int loc_end(char *buf, size_t n, bool too_long, sitemap_loc_fn fn,
                   void *arg, sitemap_kind_t kind)
{
  size_t a = 0;
  while (a < n && strchr(" \t\r\n", buf[a]) != NULL)
    a++;
  while (n > a && strchr(" \t\r\n", buf[n - 1]) != NULL)
    n--;
  if (too_long || n == a)
    return 0;
  buf[n] = '\0';
  return fn(arg, kind, buf + a);
}

int sitemap_read(const char *data, size_t len, sitemap_loc_fn fn, void *arg,
                 char *err, size_t n)
{
  struct in in = { .data = (const unsigned char *)data,
                   .len = len,
                   .intag = -1 };
  in.gzip = len >= 2 && in.data[0] == 0x1f && in.data[1] == 0x8b;
  if (in.gzip) {
    if (inflateInit2(&in.z, 16 + MAX_WBITS) != Z_OK) {
      snprintf(err, n, "out of memory");
      return -1;
    }
    in.zinit = true;
  }
  xmlTextReaderPtr r = xmlReaderForIO(feed, NULL, &in, NULL, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR |
                                        XML_PARSE_NOWARNING);
  if (r == NULL) {
    if (in.zinit)
      inflateEnd(&in.z);
    snprintf(err, n, "%s", in.fault ? in.fault : "cannot start the XML reader");
    return -1;
  }
  struct xml_error xe = { "", 0 };
  xmlTextReaderSetStructuredErrorHandler(r, on_error, &xe);

  char buf[SITEMAP_MAX_LOC + 1];
  size_t nbuf = 0;
  bool in_loc = false, too_long = false, item = false;
  sitemap_kind_t kind = 0;
  long nlocs = 0;
  const char *why = NULL;
  int rc = 0, stop = 0;
  while (why == NULL && stop == 0 && (rc = xmlTextReaderRead(r)) == 1) {
    int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
    const char *name = (const char *)xmlTextReaderConstLocalName(r);
    switch (type) {
    case XML_READER_TYPE_DOCUMENT_TYPE:
    case XML_READER_TYPE_ENTITY:
      why = "a document type or entity declaration (refused)";
      break;
    case XML_READER_TYPE_ENTITY_REFERENCE:
      why = "an entity reference (refused)";
      break;
    case XML_READER_TYPE_ELEMENT:
      if (depth == 0) {
        kind = name && strcmp(name, "urlset") == 0       ? SITEMAP_URLSET
             : name && strcmp(name, "sitemapindex") == 0 ? SITEMAP_INDEX
                                                         : 0;
        if (kind == 0)
          why = "not a sitemap (its root is neither <urlset> nor "
                "<sitemapindex>)";
      } else if (depth == 1) {
        item = name != NULL &&
               strcmp(name, kind == SITEMAP_URLSET ? "url" : "sitemap") == 0;
      } else if (depth == 2 && item && name && strcmp(name, "loc") == 0 &&
                 !xmlTextReaderIsEmptyElement(r)) {
        in_loc = true;
        too_long = false;
        nbuf = 0;
      }
      break;
    case XML_READER_TYPE_TEXT:
    case XML_READER_TYPE_CDATA:
    case XML_READER_TYPE_WHITESPACE:
    case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
      if (in_loc) {
        const char *v = (const char *)xmlTextReaderConstValue(r);
        size_t vl = v ? strlen(v) : 0;
        if (nbuf + vl > SITEMAP_MAX_LOC)
          too_long = true;
        else {
          memcpy(buf + nbuf, v, vl);
          nbuf += vl;
        }
      }
      break;
    case XML_READER_TYPE_END_ELEMENT:
      if (in_loc && depth == 2) {
        in_loc = false;
        if (++nlocs > SITEMAP_MAX_LOCS)
          why = "over 50,000 URLs (the protocol's limit)";
        else
          stop = loc_end(buf, nbuf, too_long, fn, arg, kind);
      } else if (depth == 1) {
        item = false;
      }
      break;
    default:
      break;
    }
  }
  if (why == NULL && stop == 0 && rc != 0) {
    if (in.fault != NULL)
      why = in.fault;
    else if (xe.msg[0] != '\0') {
      snprintf(err, n, "malformed XML at line %d: %s", xe.line, xe.msg);
      why = err;
    } else
      why = "malformed XML";
  }
  if (why == NULL && stop == 0 && kind == 0)
    why = "not a sitemap (no root element)";
  xmlFreeTextReader(r);
  if (in.zinit)
    inflateEnd(&in.z);
  if (why == NULL)
    return 0;
  if (why != err)
    snprintf(err, n, "%s", why);
  return -1;
}
