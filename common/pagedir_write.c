/* pagedir_write.c: see pagedir.h. What the crawler writes: the marker
 * (pagedir_init, pagedir_marker_derive), pages to temporary files and
 * their publication (rename, or a hard link for a shared crawl), the
 * journal's appends, repair and truncation, .complete, the lock, and
 * pagedir_discard. What a reader needs is in pagedir.c. */
#include "pagedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "hash.h"
#include "pagedir_int.h"
#include "strbuf.h"

#define TMP_PREFIX ".tmp-"

int pagedir_write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* writev_all: write the IOV buffers (N of them, changed) to FD in one
 * system call when it takes them all, riding out short writes. */
static int writev_all(int fd, struct iovec *iov, int n)
{
  while (n > 0) {
    ssize_t w = writev(fd, iov, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    while (n > 0 && (size_t)w >= iov->iov_len) {
      w -= (ssize_t)iov->iov_len;
      iov++;
      n--;
    }
    if (n > 0) {
      iov->iov_base = (char *)iov->iov_base + w;
      iov->iov_len -= (size_t)w;
    }
  }
  return 0;
}

/* crawl_files: whether DIR holds a file only a crawl writes (a journal,
 * a completion record, a noindex page's links, a temporary file), its
 * name then in NAME (size N). */
static bool crawl_files(const char *dir, char *name, size_t n)
{
  DIR *d = opendir(dir);
  if (d == NULL)
    return false;
  struct dirent *de;
  bool found = false;
  while (!found && (de = readdir(d)) != NULL) {
    const char *s = de->d_name;
    /* Not what a worker of a shared crawl starting at the same time
     * makes for a moment: another pagedir_init's marker on its way
     * (link() decides that race below), or its test of hard links
     * (wcluster.c, link_works: ".tmp-probe-*"). A race with the latter
     * refused one of four workers started at once (CI). */
    found = strcmp(s, PAGEDIR_JOURNAL) == 0 ||
            strcmp(s, PAGEDIR_COMPLETE) == 0 ||
            strncmp(s, ".noindex-", 9) == 0 ||
            (strncmp(s, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0 &&
             strncmp(s, TMP_PREFIX "marker-", sizeof(TMP_PREFIX) + 6) != 0 &&
             strncmp(s, TMP_PREFIX "probe-", sizeof(TMP_PREFIX) + 5) != 0);
    if (found)
      snprintf(name, n, "%s", s);
  }
  closedir(d);
  return found;
}

int pagedir_init(const char *dir, const pagedir_params_t *params, char *err,
                 size_t n)
{
  if (pagedir_is_dir(dir, err, n) != 0)
    return -1;
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(err, n, "'%s' is not writable: %s", dir, strerror(errno));
    return -1;
  }
  char *marker = pagedir_join(dir, PAGEDIR_MARKER);
  char *first = pagedir_join(dir, "1");
  char *text = pagedir_params_text(params);
  char *tmp = NULL;
  int rc = -1;
  if (marker == NULL || first == NULL || text == NULL) {
    snprintf(err, n, "out of memory");
    goto out;
  }
  if (access(marker, F_OK) == 0 || access(first, F_OK) == 0) {
    snprintf(err, n, "'%s' already holds a crawl; use an empty directory", dir);
    goto out;
  }
  /* Refused: what pagedir_marker_read would refuse to read back (9,000
   * seeds of 2 KB, say), which no --resume could read. */
  if (strlen(text) + sizeof(PAGEDIR_MAGIC) > (size_t)PAGEDIR_MARKER_MAX) {
    snprintf(err, n,
             "the crawl's parameters (seeds, --scope prefixes, ...) take "
             "over %ld MiB, more than a marker may hold",
             PAGEDIR_MARKER_MAX / (1024 * 1024));
    goto out;
  }
  /* A crawl's own files without a marker (the rest of a crawl removed by
   * hand): a crawl here would take them for its own, and one that saves
   * nothing (pagedir_discard) would remove them. */
  char left[256];
  if (crawl_files(dir, left, sizeof(left))) {
    snprintf(err, n,
             "'%s' holds '%s', a crawl's file, but no crawl; use an empty "
             "directory",
             dir, left);
    goto out;
  }
  /* Written whole under a name of its own, then linked to its name: a
   * reader never sees it half written (a worker joining a shared crawl
   * reads it at once), and link() fails if the name exists, so two
   * crawlers started on one directory cannot both win. */
  /* A name of this call's own (processes on other machines sharing the
   * directory may have the same pid), never an existing file. */
  char name[160], host[64] = "";
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  gethostname(host, sizeof(host) - 1);
  snprintf(name, sizeof(name), TMP_PREFIX "marker-%.40s-%ld-%ld", host,
           (long)getpid(), (long)now.tv_nsec);
  tmp = pagedir_join(dir, name);
  int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644) : -1;
  if (fd < 0) {
    snprintf(err, n, "cannot create '%s': %s", marker,
             tmp ? strerror(errno) : "out of memory");
    goto out;
  }
  if (pagedir_write_all(fd, PAGEDIR_MAGIC "\n", sizeof(PAGEDIR_MAGIC)) != 0 ||
      pagedir_write_all(fd, text, strlen(text)) != 0) {
    snprintf(err, n, "cannot write '%s': %s", marker, strerror(errno));
    close(fd);
    goto out;
  }
  if (close(fd) != 0) {
    snprintf(err, n, "cannot write '%s': %s", marker, strerror(errno));
    goto out;
  }
  int lrc = link(tmp, marker);
  if (lrc != 0 && errno != EEXIST) {
    /* No hard links here (vfat, some network file systems): the file is
     * created under its name, exclusively, and written there, as
     * before. A shared crawl needs hard links anyway (its pages). */
    int dfd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    lrc = dfd < 0 ? -1 : 0;
    if (dfd >= 0 &&
        (pagedir_write_all(dfd, PAGEDIR_MAGIC "\n", sizeof(PAGEDIR_MAGIC)) !=
           0 ||
         pagedir_write_all(dfd, text, strlen(text)) != 0 || close(dfd) != 0)) {
      snprintf(err, n, "cannot write '%s': %s", marker, strerror(errno));
      unlink(marker);
      goto out;
    }
  }
  if (lrc != 0) {
    snprintf(err, n,
             errno == EEXIST ? "'%s' already holds a crawl; use an empty "
                               "directory"
                             : "cannot create '%s': %s",
             errno == EEXIST ? dir : marker, strerror(errno));
    goto out;
  }
  rc = 0;
out:
  if (tmp != NULL)
    unlink(tmp);
  free(tmp);
  free(text);
  free(marker);
  free(first);
  return rc;
}

/* gz_write_all: write LEN bytes of BUF through GZ (gzwrite takes an
 * unsigned count, so big bodies go in pieces). */
static int gz_write_all(gzFile gz, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0) {
    unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;
    if (gzwrite(gz, p, n) != (int)n)
      return -1;
    p += n;
    len -= n;
  }
  return 0;
}

char *pagedir_write_tmp(const char *dir, unsigned long long key,
                        const char *url, int depth, const char *body,
                        size_t len, unsigned flags)
{
  bool compress = flags & PAGEDIR_GZIP;
  char name[48], head[32];
  snprintf(name, sizeof(name), TMP_PREFIX "%llu", key);
  char *path = pagedir_join(dir, name);
  if (path == NULL)
    return NULL;
  /* A new file, never one truncated in place: the name may be a hard
   * link to a published page (pagedir_publish_link). Almost always the
   * name is free, so it is unlinked only when taken. */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0 && errno == EEXIST && unlink(path) == 0)
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    free(path);
    return NULL;
  }
  int hl = snprintf(head, sizeof(head), "\n%d\n", depth);
  int rc;
  if (compress) {
    gzFile gz = gzdopen(fd, "wb6");
    if (gz == NULL) {
      close(fd);
      rc = -1;
    } else {
      rc = gz_write_all(gz, url, strlen(url)) != 0 ||
           gz_write_all(gz, head, (size_t)hl) != 0 ||
           gz_write_all(gz, body, len) != 0;
      /* Flush the stream, then sync the descriptor before gzclose
       * closes it. */
      if (rc == 0 && (flags & PAGEDIR_FSYNC) &&
          (gzflush(gz, Z_FINISH) != Z_OK || fsync(fd) != 0))
        rc = -1;
      if (gzclose(gz) != Z_OK) /* closes fd too */
        rc = -1;
      if (rc != 0 && errno == 0)
        errno = EIO;
    }
  } else {
    /* One system call for the three parts. */
    struct iovec iov[3] = { { (char *)url, strlen(url) },
                            { head, (size_t)hl },
                            { (char *)body, len } };
    rc = writev_all(fd, iov, 3);
    if (rc == 0 && (flags & PAGEDIR_FSYNC) && fsync(fd) != 0)
      rc = -1;
    if (close(fd) != 0)
      rc = -1;
  }
  if (rc != 0) {
    int e = errno;
    unlink(path);
    free(path);
    errno = e;
    return NULL;
  }
  return path;
}

char *pagedir_tmp_path(const char *dir, const char *what,
                       unsigned long long key)
{
  char name[80];
  snprintf(name, sizeof(name), TMP_PREFIX "%.32s-%llu", what, key);
  return pagedir_join(dir, name);
}

int pagedir_remove_tmp(const char *dir)
{
  DIR *d = opendir(dir);
  if (d == NULL)
    return -1;
  int rc = 0, fd = dirfd(d);
  struct dirent *de;
  /* By name in the open directory: no path to build and walk again for
   * each of a crawl's thousands of pages. */
  while ((de = readdir(d)) != NULL) {
    if (strncmp(de->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) != 0)
      continue;
    if (unlinkat(fd, de->d_name, 0) != 0 && errno != ENOENT)
      rc = -1;
  }
  closedir(d);
  return rc;
}

int pagedir_complete(const char *dir, int pages)
{
  if (pages < 0) {
    errno = EINVAL;
    return -1;
  }
  char name[160], host[64] = "", text[32];
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  gethostname(host, sizeof(host) - 1);
  int len = snprintf(text, sizeof(text), "pages: %d\n", pages);
  char *path = pagedir_join(dir, PAGEDIR_COMPLETE);
  if (path == NULL)
    return -1;
  int rc = -1;
  /* A shared crawl's other processes remove every .tmp-* at their end,
   * maybe this one's before it is renamed: then write it again. */
  for (int tries = 0; tries < 5 && rc != 0; tries++) {
    snprintf(name, sizeof(name), TMP_PREFIX "complete-%.40s-%ld-%ld-%d", host,
             (long)getpid(), (long)now.tv_nsec, tries);
    char *tmp = pagedir_join(dir, name);
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)
                 : -1;
    if (fd >= 0) {
      bool ok = pagedir_write_all(fd, text, (size_t)len) == 0 && fsync(fd) == 0;
      ok = close(fd) == 0 && ok;
      if (ok && rename(tmp, path) == 0)
        rc = 0;
      else if (!(ok && errno == ENOENT))
        tries = 5; /* a real failure: say so */
      int e = errno;
      unlink(tmp);
      errno = e;
    } else {
      tries = 5;
    }
    free(tmp);
  }
  free(path);
  return rc == 0 ? pagedir_sync(dir) : -1;
}

int pagedir_discard(const char *dir)
{
  char *first = pagedir_join(dir, "1");
  if (first == NULL)
    return -1;
  bool saved = access(first, F_OK) == 0;
  free(first);
  if (saved) {
    errno = EEXIST;
    return -1;
  }
  DIR *d = opendir(dir);
  if (d == NULL)
    return -1;
  int rc = 0, fd = dirfd(d);
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    const char *s = de->d_name;
    if ((strncmp(s, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0 ||
         strncmp(s, ".noindex-", 9) == 0 || strcmp(s, PAGEDIR_JOURNAL) == 0 ||
         strcmp(s, PAGEDIR_COMPLETE) == 0) &&
        unlinkat(fd, s, 0) != 0 && errno != ENOENT)
      rc = -1;
  }
  closedir(d);
  /* The marker last: until it goes, DIR still says it holds a crawl. */
  char *marker = pagedir_join(dir, PAGEDIR_MARKER);
  if (marker == NULL || (rc == 0 && unlink(marker) != 0 && errno != ENOENT))
    rc = -1;
  free(marker);
  return rc;
}

int pagedir_publish(const char *dir, const char *tmp, int id)
{
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  return pagedir_publish_name(dir, tmp, name);
}

int pagedir_publish_name(const char *dir, const char *tmp, const char *name)
{
  char *path = pagedir_join(dir, name);
  if (path == NULL)
    return -1;
  int rc = rename(tmp, path);
  free(path);
  return rc;
}

char *pagedir_tmp_join(const char *dir, const char *name)
{
  return pagedir_join(dir, name);
}

int pagedir_publish_link(const char *dir, const char *tmp, int id)
{
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  char *path = pagedir_join(dir, name);
  if (path == NULL)
    return -1;
  int rc = link(tmp, path);
  if (rc != 0 && errno == EEXIST) {
    struct stat a, b;
    if (stat(tmp, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
      rc = 0;
    else
      errno = EEXIST;
  }
  int err = errno;
  free(path);
  errno = err;
  return rc;
}

/* kept_name: the temporary name the page of URL is kept under once
 * unpublished (by its URL, not its ID: a history redone may give it
 * another), in BUF (size N). */
static void kept_name(char *buf, size_t n, const char *url)
{
  snprintf(buf, n, TMP_PREFIX "kept-%016llx",
           (unsigned long long)hash_str(url));
}

int pagedir_unpublish_after(const char *dir, int last)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  /* From the highest ID down: one that stops half way (killed, or a
   * page it cannot read) leaves a run from LAST + 1, which the next
   * walks up again; bottom up, it would leave a gap, and the pages past
   * it published for ever. */
  int top = last;
  for (char name[24]; top < INT_MAX; top++) {
    struct stat sb;
    snprintf(name, sizeof(name), "%d", top + 1);
    if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
      break;
  }
  int rc = 0;
  for (int id = top; id > last; id--) {
    char name[24], kept[40];
    snprintf(name, sizeof(name), "%d", id);
    char *url = pagedir_load_url(dir, id);
    if (url == NULL && errno == ENOENT)
      continue; /* gone meanwhile */
    if (url == NULL && errno != EINVAL) {
      rc = -1; /* unreadable, or out of memory: not unpublished */
      break;
    }
    if (url == NULL) { /* not a page: nothing to keep */
      if (unlinkat(fd, name, 0) != 0 && errno != ENOENT) {
        rc = -1;
        break;
      }
      continue;
    }
    kept_name(kept, sizeof(kept), url);
    free(url);
    /* Not a name of the same file (a page published from there again):
     * renaming one name of a file to another is no change at all. */
    if ((unlinkat(fd, kept, 0) != 0 && errno != ENOENT) ||
        (renameat(fd, name, fd, kept) != 0 && errno != ENOENT)) {
      rc = -1;
      break;
    }
  }
  int err = errno;
  close(fd);
  errno = err;
  return rc;
}

int pagedir_publish_kept(const char *dir, int id, const char *url, int depth)
{
  char kept[40];
  kept_name(kept, sizeof(kept), url);
  pagedir_page_t page;
  if (pagedir_load_name(dir, kept, &page) != 0)
    return -1;
  bool same = strcmp(page.url, url) == 0 && page.depth == depth;
  pagedir_page_free(&page);
  if (!same) {
    errno = ENOENT; /* not this page's: as if there were none */
    return -1;
  }
  char *path = pagedir_join(dir, kept);
  if (path == NULL)
    return -1;
  int rc = pagedir_publish_link(dir, path, id);
  int err = errno;
  free(path);
  errno = err;
  return rc;
}

int pagedir_journal_truncate(const char *dir, long long size)
{
  long long now = pagedir_journal_size(dir);
  if (now < 0)
    return -1;
  if (now < size) {
    errno = EINVAL;
    return -1;
  }
  if (now == size)
    return 0;
  char *path = pagedir_join(dir, PAGEDIR_JOURNAL);
  if (path == NULL)
    return -1;
  int rc = truncate(path, (off_t)size);
  int err = errno;
  free(path);
  errno = err;
  return rc;
}

int pagedir_marker_derive(const char *dir, const char *const *values, size_t n)
{
  char *path = pagedir_join(dir, PAGEDIR_MARKER);
  char *params = pagedir_marker_read(dir);
  strbuf_t b = STRBUF_INIT;
  int rc = -1;
  if (path == NULL || params == NULL)
    goto out;
  strbuf_addf(&b, "%s\n%s", PAGEDIR_MAGIC, params);
  if (b.len > 0 && b.p[b.len - 1] != '\n')
    strbuf_addf(&b, "\n");
  size_t added = 0;
  for (size_t i = 0; i < n; i++) {
    char line[8192];
    snprintf(line, sizeof(line), "\n" PAGEDIR_DERIVED ": %s\n", values[i]);
    /* Each once: a resumed crawl derives them again. (Every line of B
     * follows a newline, the magic line's at least.) */
    if (b.p != NULL && strstr(b.p, line) != NULL)
      continue;
    strbuf_addf(&b, "%s", line + 1);
    added++;
  }
  if (b.p == NULL || b.oom) {
    errno = ENOMEM;
    goto out;
  }
  rc = 0;
  if (added == 0)
    goto out;
  char name[64];
  snprintf(name, sizeof(name), TMP_PREFIX "marker-derive-%ld", (long)getpid());
  char *tmp = pagedir_join(dir, name);
  int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  rc = fd >= 0 && pagedir_write_all(fd, b.p, b.len) == 0 && fsync(fd) == 0 ? 0
                                                                           : -1;
  if (fd >= 0 && close(fd) != 0)
    rc = -1;
  if (rc == 0 && rename(tmp, path) != 0)
    rc = -1;
  if (rc != 0 && tmp != NULL) {
    int e = errno;
    unlink(tmp);
    errno = e;
  }
  free(tmp);
out:
  strbuf_release(&b);
  free(params);
  free(path);
  return rc;
}

int pagedir_journal_append(const char *dir, const char *lines, size_t len,
                           unsigned flags)
{
  char *path = pagedir_join(dir, PAGEDIR_JOURNAL);
  if (path == NULL) {
    errno = ENOMEM;
    return -1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  int rc = fd < 0 ? -1 : pagedir_write_all(fd, lines, len);
  if (rc == 0 && (flags & PAGEDIR_FSYNC) && fsync(fd) != 0)
    rc = -1;
  if (fd >= 0 && close(fd) != 0)
    rc = -1;
  free(path);
  return rc;
}

int pagedir_journal_add(const char *dir, const char *kind, int id,
                        const char *a, const char *b, unsigned flags)
{
  size_t len = strlen(kind) + 12 + strlen(a) + (b ? strlen(b) + 1 : 0) + 3;
  char *line = malloc(len + 1);
  if (line == NULL) {
    errno = ENOMEM;
    return -1;
  }
  int n = snprintf(line, len + 1, "%s %d %s%s%s\n", kind, id, a, b ? " " : "",
                   b ? b : "");
  int rc = pagedir_journal_append(dir, line, (size_t)n, flags);
  free(line);
  return rc;
}

struct keep {
  int max_id;
  int fd;
  int rc;
};

static void journal_keep(void *arg, const char *kind, int id, const char *a,
                         const char *b, const char *line, size_t n)
{
  struct keep *k = arg;
  (void)kind;
  (void)a;
  (void)b;
  /* The line was cut in place for parsing; write it back whole. */
  if (id <= k->max_id && k->rc == 0) {
    char *copy = malloc(n);
    if (copy == NULL) {
      k->rc = -1;
      return;
    }
    memcpy(copy, line, n);
    for (size_t i = 0; i + 1 < n; i++)
      if (copy[i] == '\0')
        copy[i] = ' ';
    copy[n - 1] = '\n';
    if (pagedir_write_all(k->fd, copy, n) != 0)
      k->rc = -1;
    free(copy);
  }
}

int pagedir_journal_repair(const char *dir, int max_id)
{
  char *path = pagedir_join(dir, PAGEDIR_JOURNAL);
  char *tmp = pagedir_join(dir, ".journal.tmp");
  int rc = -1;
  size_t len;
  char *buf = NULL;
  if (path == NULL || tmp == NULL)
    goto out;
  if (access(path, F_OK) != 0) {
    rc = errno == ENOENT ? 0 : -1;
    goto out;
  }
  if ((buf = pagedir_read_all(path, &len)) == NULL)
    goto out;
  struct keep k = { max_id, open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0 };
  if (k.fd < 0)
    goto out;
  pagedir_journal_lines(buf, len, journal_keep, &k);
  if (close(k.fd) != 0)
    k.rc = -1;
  rc = k.rc == 0 ? rename(tmp, path) : -1;
  if (rc != 0)
    unlink(tmp);
out:
  free(buf);
  free(path);
  free(tmp);
  return rc;
}

/* Tries of pagedir_lock, at most: each one after the first means that
 * the .lock we locked had been unlinked, by a crawler that ended while we
 * were between open and fcntl. */
enum { LOCK_TRIES = 100 };

/* lock_as: pagedir_lock with an fcntl lock of TYPE (F_WRLCK, F_RDLCK). */
static int lock_as(const char *dir, short type)
{
  /* A file of its own: an fcntl lock is dropped when the process closes
   * ANY descriptor of the locked file, and the marker is read often. */
  char *path = pagedir_join(dir, PAGEDIR_LOCK);
  if (path == NULL)
    return -1;
  int fd = -1, err = EAGAIN;
  for (int i = 0; i < LOCK_TRIES; i++) {
    fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) {
      err = errno;
      break;
    }
    struct flock fl = { .l_type = type, .l_whence = SEEK_SET };
    if (fcntl(fd, F_SETLK, &fl) != 0) {
      err = errno == EACCES ? EAGAIN : errno;
      close(fd);
      fd = -1;
      break;
    }
    /* pagedir_unlock unlinks .lock before closing it, so the file we
     * opened may be gone from the path by now, the lock we got on it
     * dropped by its holder, and a newcomer may hold a fresh .lock: ours
     * counts only if it is on the file at the path. Else try that one. */
    struct stat ours, at_path;
    if (fstat(fd, &ours) != 0) {
      err = errno;
      close(fd);
      fd = -1;
      break;
    }
    int st = stat(path, &at_path);
    if (st == 0 && at_path.st_dev == ours.st_dev &&
        at_path.st_ino == ours.st_ino)
      break;
    err = st != 0 && errno != ENOENT ? errno : EAGAIN;
    close(fd);
    fd = -1;
    if (err != EAGAIN)
      break;
  }
  free(path);
  if (fd < 0)
    errno = err;
  return fd;
}

int pagedir_lock(const char *dir)
{
  return lock_as(dir, F_WRLCK);
}

int pagedir_lock_shared(const char *dir)
{
  return lock_as(dir, F_RDLCK);
}

void pagedir_unlock_shared(int fd)
{
  if (fd >= 0)
    close(fd);
}

void pagedir_unlock(const char *dir, int fd)
{
  if (fd < 0)
    return;
  /* Unlink while still holding the lock, so nobody can take a lock on a
   * file that is about to vanish and believe the directory is theirs. */
  char *path = pagedir_join(dir, PAGEDIR_LOCK);
  if (path != NULL)
    unlink(path);
  free(path);
  close(fd);
}

int pagedir_sync(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}
