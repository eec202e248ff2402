/* pstore.c: see pstore.h. The page directory's writes, over pagedir.h's
 * primitives; the outcome lines and links files are pstore_record.c's.
 * The store holds the path, how it holds the directory (shared, its
 * lock) and how it writes (compressed, synced). */
#include "pstore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pstore_int.h"
#include "strbuf.h"

static void journal_close(pstore_t *ps);

pstore_t *pstore_new(const char *dir, bool shared, bool compress, bool fsync)
{
  pstore_t *ps = calloc(1, sizeof(*ps));
  if (ps == NULL || (ps->dir = strdup(dir)) == NULL) {
    free(ps);
    return NULL;
  }
  ps->shared = shared;
  ps->lock = -1;
  ps->journal = -1;
  ps->sync = fsync ? PAGEDIR_FSYNC : 0;
  ps->tmp_flags = ps->sync | (compress ? PAGEDIR_GZIP : 0);
  return ps;
}

const char *pstore_dir(const pstore_t *ps)
{
  return ps->dir;
}

int pstore_init(pstore_t *ps, const pagedir_params_t *params, char *err,
                size_t n)
{
  return pagedir_init(ps->dir, params, err, n);
}

int pstore_lock(pstore_t *ps)
{
  ps->lock = ps->shared ? pagedir_lock_shared(ps->dir) : pagedir_lock(ps->dir);
  return ps->lock >= 0 ? 0 : -1;
}

int pstore_resume(pstore_t *ps, int *pages, time_t *when, char *err, size_t n)
{
  /* Under the lock only: the temporary pages of a crawl still running
   * in the directory are never touched. */
  if (pagedir_remove_tmp(ps->dir) != 0) {
    snprintf(err, n, "cannot remove the temporary pages in '%s': %s", ps->dir,
             strerror(errno));
    return -1;
  }
  if (pagedir_completed(ps->dir, pages, when) == 1)
    return 1;
  journal_close(ps); /* the repair replaces the file */
  if (pagedir_journal_repair(ps->dir, pagedir_count(ps->dir)) != 0) {
    snprintf(err, n, "cannot repair '%s/%s': %s", ps->dir, PAGEDIR_JOURNAL,
             strerror(errno));
    return -1;
  }
  return 0;
}

int pstore_link_probe(pstore_t *ps, char *err, size_t n)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  strbuf_t a = STRBUF_INIT, b = STRBUF_INIT;
  strbuf_addf(&a, "%s/.tmp-probe-%ld-%ld", ps->dir, (long)getpid(),
              (long)ts.tv_nsec);
  strbuf_addf(&b, "%s-link", a.p ? a.p : "");
  bool ok = false;
  int e = ENOMEM;
  int fd = !a.oom && !b.oom ? open(a.p, O_WRONLY | O_CREAT | O_EXCL, 0600) : -1;
  if (fd >= 0) {
    close(fd);
    ok = link(a.p, b.p) == 0;
    e = errno;
    unlink(b.p);
    unlink(a.p);
  } else if (!a.oom && !b.oom) {
    e = errno;
  }
  if (!ok)
    snprintf(err, n,
             "'%s' cannot hold a shared crawl: its pages are published by "
             "hard links, and a test link failed: %s",
             ps->dir, strerror(e));
  strbuf_release(&a);
  strbuf_release(&b);
  return ok ? 0 : -1;
}

int pstore_stamp(const pstore_t *ps, char *out, size_t n)
{
  struct stat sb;
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s/%s", ps->dir, PAGEDIR_MARKER);
  int rc = !b.oom && b.p != NULL ? stat(b.p, &sb) : -1;
  if (b.oom || b.p == NULL)
    errno = ENOMEM;
  strbuf_release(&b);
  if (rc != 0)
    return -1;
  snprintf(out, n, "%lld.%09ld %lld", (long long)sb.st_mtim.tv_sec,
           (long)sb.st_mtim.tv_nsec, (long long)sb.st_size);
  return 0;
}

int pstore_sync(pstore_t *ps)
{
  return pagedir_sync(ps->dir);
}

int pstore_derive(pstore_t *ps, const char *const *values, size_t n)
{
  return pagedir_marker_derive(ps->dir, values, n);
}

int pstore_complete(pstore_t *ps)
{
  return pagedir_complete(ps->dir, pagedir_count(ps->dir));
}

/* journal_close: close the journal kept open, if it is. */
static void journal_close(pstore_t *ps)
{
  if (ps->journal >= 0)
    close(ps->journal);
  ps->journal = -1;
}

int pstore_journal_write(pstore_t *ps, const char *lines, size_t len)
{
  if (ps->shared)
    return pagedir_journal_append(ps->dir, lines, len, ps->sync);
  if (ps->journal < 0) {
    strbuf_t path = STRBUF_INIT;
    strbuf_addf(&path, "%s/%s", ps->dir, PAGEDIR_JOURNAL);
    if (path.oom) {
      strbuf_release(&path);
      errno = ENOMEM;
      return -1;
    }
    ps->journal = open(path.p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    strbuf_release(&path);
    if (ps->journal < 0)
      return -1;
  }
  if (pagedir_write_all(ps->journal, lines, len) != 0)
    return -1;
  return (ps->sync & PAGEDIR_FSYNC) && fsync(ps->journal) != 0 ? -1 : 0;
}

int pstore_discard(pstore_t *ps)
{
  journal_close(ps);
  return pagedir_discard(ps->dir);
}

void pstore_close(pstore_t *ps, bool done)
{
  if (ps == NULL)
    return;
  journal_close(ps);
  if (ps->lock >= 0 && ps->shared && !done)
    pagedir_unlock_shared(ps->lock);
  else if (ps->lock >= 0)
    pagedir_unlock(ps->dir, ps->lock);
  free(ps->dir);
  free(ps);
}

/* ---- temporary files ---- */

char *pstore_write_tmp(pstore_t *ps, unsigned long long key, const char *url,
                       int depth, const char *body, size_t len)
{
  return pagedir_write_tmp(ps->dir, key, url, depth, body, len, ps->tmp_flags);
}

char *pstore_tmp_path(const pstore_t *ps, const char *what,
                      unsigned long long key)
{
  return pagedir_tmp_path(ps->dir, what, key);
}

char *pstore_tmp_join(const pstore_t *ps, const char *name)
{
  return pagedir_tmp_join(ps->dir, name);
}

void pstore_tmp_drop(char **path)
{
  if (*path == NULL)
    return;
  unlink(*path);
  free(*path);
  *path = NULL;
}

/* ---- the commit ---- */

/* one_line: whether V may be a journal line's value (no line break). */
static bool one_line(const char *v)
{
  return strpbrk(v, "\r\n") == NULL;
}

/* fact: the journal line "KIND ID A B" into B (as pagedir_journal_add
 * writes it). */
static void fact(strbuf_t *b, const char *kind, int id, const char *a,
                 const char *v)
{
  strbuf_addf(b, "%s %d %s %s\n", kind, id, a, v);
}

int pstore_journal_page(pstore_t *ps, int id, const pstore_facts_t *f)
{
  strbuf_t b = STRBUF_INIT;
  for (int i = 0; i < f->hops; i++)
    fact(&b, "redirect", id, f->chain[i],
         i + 1 < f->hops ? f->chain[i + 1] : f->url);
  const char *ct = f->ctype;
  if (ct != NULL && strcmp(ct, "text/html") != 0 && one_line(ct))
    fact(&b, "ctype", id, f->url, ct);
  if (f->xrobots != NULL && one_line(f->xrobots))
    fact(&b, "xrobots", id, f->url, f->xrobots);
  if (f->etag != NULL && one_line(f->etag))
    fact(&b, "etag", id, f->url, f->etag);
  if (f->lastmod != NULL && one_line(f->lastmod))
    fact(&b, "lastmod", id, f->url, f->lastmod);
  if (f->sitemap != NULL)
    fact(&b, "sitemap", id, f->url, f->sitemap);
  /* One write for the page's lines: one open and, with --fsync, one
   * sync, not one of each a line. */
  int rc = 0;
  if (b.oom) {
    errno = ENOMEM;
    rc = -1;
  } else if (b.len > 0) {
    rc = pstore_journal_write(ps, b.p, b.len);
  }
  strbuf_release(&b);
  return rc;
}

int pstore_publish(pstore_t *ps, char **tmp, int id, const char *url, int depth)
{
  if (!ps->shared) {
    /* By rename: no one else will publish the file again. */
    if (pagedir_publish(ps->dir, *tmp, id) != 0)
      return -1;
    free(*tmp);
    *tmp = NULL;
    return 0;
  }
  /* By a link: the temporary file stays until the commit is recorded, as
   * a committer after this one may publish it again. */
  if (pagedir_publish_link(ps->dir, *tmp, id) == 0)
    return 0;
  /* Gone with the crawl's end, which Redis then lost: the page
   * unpublished at the takeover is this one (pagedir_publish_kept). */
  int err = errno;
  if (err == ENOENT && pagedir_publish_kept(ps->dir, id, url, depth) == 0)
    return 0;
  errno = err;
  return -1;
}

/* ---- a shared crawl's position ---- */

long long pstore_position(const pstore_t *ps)
{
  return pagedir_journal_size(ps->dir);
}

int pstore_cut(pstore_t *ps, long pages, long long journal)
{
  if (pagedir_journal_truncate(ps->dir, journal) != 0 ||
      pagedir_unpublish_after(ps->dir, (int)pages) != 0)
    return -1;
  return 0;
}

int pstore_clear_tmp(pstore_t *ps)
{
  return pagedir_remove_tmp(ps->dir);
}
