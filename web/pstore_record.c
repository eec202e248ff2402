/* pstore_record.c: see pstore.h. The outcome lines of URLs not saved
 * and the links files of noindex pages (formats: pagedir.h), written as
 * store.c reads them back, in the words of pstore_int.h. */
#include "pstore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "page.h"
#include "pstore_int.h"
#include "strbuf.h"

const char *const pstore_kinds[PSTORE_NKINDS] = { "failed", "robots", "binary",
                                                  "duplicate", "noindex" };

const char *const pstore_outcomes[PSTORE_NOUTCOMES] = { "ok",    "redirect",
                                                        "http",  "type",
                                                        "large", "net" };

const char *const pstore_classes[PSTORE_NCLASSES] = { "candidate", "extern",
                                                      "nonpage",   "invalid",
                                                      "nofollow",  "trap" };

/* record: append the outcome line "KIND TAG FIRST N HOPS.. REST" of IT
 * (REST, borrowed, may be NULL: none; a newline in it becomes a space). */
static int record(pstore_t *ps, int tag, const char *kind,
                  const pstore_item_t *it, const char *rest)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%d", it->hops);
  for (int i = 1; i <= it->hops; i++)
    strbuf_addf(&b, " %s", i < it->hops ? it->chain[i] : it->url);
  if (rest != NULL) {
    strbuf_addc(&b, ' ');
    for (const char *c = rest; *c != '\0'; c++)
      strbuf_addc(&b, *c == '\n' || *c == '\r' ? ' ' : *c);
  }
  char *line = strbuf_detach(&b);
  if (line == NULL) {
    errno = ENOMEM;
    return -1;
  }
  strbuf_t l = STRBUF_INIT;
  strbuf_addf(&l, "%s %d %s %s\n", kind, tag,
              it->hops > 0 ? it->chain[0] : it->url, line);
  free(line);
  int rc = -1;
  if (l.oom)
    errno = ENOMEM;
  else
    rc = pstore_journal_write(ps, l.p, l.len);
  strbuf_release(&l);
  return rc;
}

int pstore_record_failed(pstore_t *ps, int tag, const pstore_item_t *it,
                         const fetch_result_t *r)
{
  /* A failure is never FETCH_OK; a redirect not followed was made one. */
  int o = r->outcome >= FETCH_HTTP_ERROR && r->outcome <= FETCH_NET_ERROR
          ? (int)r->outcome
          : FETCH_NET_ERROR;
  char rest[FETCH_ERROR_SIZE + 64];
  snprintf(rest, sizeof(rest), "%s %ld %d %s", pstore_outcomes[o],
           r->status >= 0 && r->status <= 999 ? r->status : 0,
           r->curl_code >= 0 ? r->curl_code : 0, r->error);
  return record(ps, tag, pstore_kinds[PSTORE_FAILED], it, rest);
}

int pstore_record_robots(pstore_t *ps, int tag, const pstore_item_t *it,
                         const char *why)
{
  return record(ps, tag, pstore_kinds[PSTORE_ROBOTS], it, why);
}

int pstore_record_binary(pstore_t *ps, int tag, const pstore_item_t *it)
{
  return record(ps, tag, pstore_kinds[PSTORE_BINARY], it, NULL);
}

int pstore_record_duplicate(pstore_t *ps, int tag, const pstore_item_t *it)
{
  return record(ps, tag, pstore_kinds[PSTORE_DUPLICATE], it, NULL);
}

/* struct links_out: a links record being written (links_write). */
struct links_out {
  gzFile gz;
  strbuf_t line;
  int err; /* errno of the first failed write */
};

/* add_link: one line of a links record, written at once, so that the
 * record of a page of many links never sits in memory whole. */
static void add_link(void *arg, const struct link *l)
{
  struct links_out *o = arg;
  if (o->err)
    return;
  strbuf_t *b = &o->line;
  strbuf_reset(b);
  int cls = l->cls >= 0 && l->cls < PSTORE_NCLASSES ? l->cls : L_INVALID;
  strbuf_adds(b, pstore_classes[cls]);
  strbuf_addc(b, ' ');
  for (const char *c = l->url; *c != '\0'; c++) {
    if (*c == '\\' || *c == '\n')
      strbuf_addc(b, '\\');
    strbuf_addc(b, *c == '\n' ? 'n' : *c);
  }
  strbuf_addc(b, '\n');
  if (b->oom)
    o->err = ENOMEM;
  else if ((errno = 0, gzwrite(o->gz, b->p, (unsigned)b->len)) != (int)b->len)
    o->err = errno ? errno : EIO;
}

/* links_write: write .noindex-K, a page file (IT's URL and depth) whose
 * body is one "CLASS HREF" line per link of EACH over SRC, through a
 * temporary file, compressed and synced as PS's pages. Returns 0 or -1
 * (errno; nothing left behind). */
static int links_write(pstore_t *ps, const pstore_item_t *it, int k,
                       pstore_links_fn each, void *src)
{
  unsigned flags = ps->tmp_flags;
  char *tmp = pagedir_tmp_path(ps->dir, "noindex", it->seq);
  if (tmp == NULL) {
    errno = ENOMEM;
    return -1;
  }
  struct links_out o = { .line = STRBUF_INIT };
  errno = 0; /* zlib does not always set it */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  /* "T": transparent, a plain file, when not compressing. */
  o.gz = fd < 0 ? NULL : gzdopen(fd, (flags & PAGEDIR_GZIP) ? "wb6" : "wbT");
  if (o.gz == NULL) {
    o.err = errno ? errno : ENOMEM;
    if (fd >= 0)
      close(fd);
  } else {
    size_t ul = strlen(it->url);
    errno = 0;
    if (gzwrite(o.gz, it->url, (unsigned)ul) != (int)ul ||
        gzprintf(o.gz, "\n%d\n", it->depth) <= 0)
      o.err = errno ? errno : EIO;
    if (!o.err && each(src, add_link, &o) != 0)
      o.err = errno ? errno : EIO;
    errno = 0;
    if (!o.err && (flags & PAGEDIR_FSYNC) &&
        (gzflush(o.gz, Z_FINISH) != Z_OK || fsync(fd) != 0))
      o.err = errno ? errno : EIO;
    if (gzclose(o.gz) != Z_OK && !o.err) /* closes fd too */
      o.err = errno ? errno : EIO;
  }
  strbuf_release(&o.line);
  char name[32];
  snprintf(name, sizeof(name), ".noindex-%d", k);
  if (!o.err && pagedir_publish_name(ps->dir, tmp, name) != 0)
    o.err = errno ? errno : EIO;
  if (o.err)
    unlink(tmp);
  free(tmp);
  errno = o.err;
  return o.err ? -1 : 0;
}

int pstore_record_noindex(pstore_t *ps, int tag, const pstore_item_t *it,
                          bool nofollow, int k, pstore_links_fn each, void *src,
                          size_t nlinks)
{
  if (nlinks > 0 && links_write(ps, it, k, each, src) != 0)
    return -1;
  char rest[48];
  snprintf(rest, sizeof(rest), "%s %d", nofollow ? "nofollow" : "follow",
           nlinks > 0 ? k : 0);
  return record(ps, tag, pstore_kinds[PSTORE_NOINDEX], it, rest);
}
