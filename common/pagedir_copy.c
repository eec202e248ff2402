/* pagedir_copy.c: see pagedir.h (pagedir_holder, pagedir_check,
 * pagedir_copy_plain, pagedir_export): a directory as a whole, checked
 * and copied, for the tsepagedir(1) tool. */
#define _XOPEN_SOURCE 700 /* realpath */

#include "pagedir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define NOINDEX_PREFIX ".noindex-"
#define TMP_PREFIX ".tmp-"

int pagedir_holder(const char *dir, long *pid)
{
  char *path = pagedir_tmp_join(dir, PAGEDIR_LOCK);
  if (path == NULL)
    return -1;
  /* Read-only, and never created: asking must not change DIR. Followed
   * if a symbolic link, as pagedir_lock follows it; non-blocking, so a
   * FIFO cannot hold the open. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  int e = errno;
  free(path);
  if (fd < 0)
    return e == ENOENT ? 0 : (errno = e, -1);
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  int rc = fcntl(fd, F_GETLK, &fl);
  e = errno;
  close(fd);
  if (rc != 0) {
    errno = e;
    return -1;
  }
  if (fl.l_type == F_UNLCK)
    return 0;
  *pid = (long)fl.l_pid;
  return 1;
}

/* What the journal says of a directory: the highest ID a line carries,
 * the .noindex-K files it names (K in KS, N of them), and the first of
 * them that is not a well-formed file. */
struct jscan {
  const char *dir;
  int max_id;
  long bad_k;
  long *ks;
  size_t n, cap;
  bool nomem;
};

/* last_number: the number that ends B ("... FOLLOW K"), or -1. */
static long last_number(const char *b)
{
  const char *sp = strrchr(b, ' ');
  const char *w = sp ? sp + 1 : b;
  char *end;
  if (!isdigit((unsigned char)*w))
    return -1;
  long k = strtol(w, &end, 10);
  return *end == '\0' && k <= INT_MAX ? k : -1;
}

static void jscan_line(void *arg, const char *kind, int id, const char *a,
                       const char *b)
{
  struct jscan *s = arg;
  (void)a;
  if (id > s->max_id)
    s->max_id = id;
  long k = strcmp(kind, "noindex") == 0 ? last_number(b) : 0;
  if (k <= 0)
    return;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    long *v = realloc(s->ks, cap * sizeof(*v));
    if (v == NULL) {
      s->nomem = true;
      return;
    }
    s->ks = v;
    s->cap = cap;
  }
  s->ks[s->n++] = k;
  char name[48];
  snprintf(name, sizeof(name), NOINDEX_PREFIX "%ld", k);
  if (s->bad_k == 0 && pagedir_check_name(s->dir, name) != 0)
    s->bad_k = k;
}

/* noindex_k: K if NAME is ".noindex-K" (K decimal, no leading zero),
 * else 0. */
static long noindex_k(const char *name)
{
  size_t n = sizeof(NOINDEX_PREFIX) - 1;
  if (strncmp(name, NOINDEX_PREFIX, n) != 0 || name[n] < '1' || name[n] > '9')
    return 0;
  return last_number(name + n);
}

static bool named(const struct jscan *s, long k)
{
  for (size_t i = 0; i < s->n; i++)
    if (s->ks[i] == k)
      return true;
  return false;
}

/* printable: NAME for a message, each control byte as '?' (into BUF of
 * size N). */
static const char *printable(const char *name, char *buf, size_t n)
{
  size_t i = 0;
  for (; name[i] != '\0' && i + 1 < n; i++)
    buf[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
  buf[i] = '\0';
  return buf;
}

/* journal_torn: whether DIR's journal ends in a line without its newline
 * (a write an interruption cut). 0 no, 1 yes, -1 unreadable. */
static int journal_torn(const char *dir)
{
  int fd = pagedir_open_name(dir, PAGEDIR_JOURNAL);
  if (fd < 0)
    return errno == ENOENT ? 0 : -1;
  char c = '\n';
  off_t end = lseek(fd, 0, SEEK_END);
  int rc = end > 0 && pread(fd, &c, 1, end - 1) != 1 ? -1 : c != '\n';
  close(fd);
  return rc;
}

/* check_journal: the journal part of pagedir_check, into *S (the caller
 * frees S->ks): -1 with ERR set on a problem. */
static int check_journal(const char *dir, int count, struct jscan *s, char *err,
                         size_t n)
{
  int torn = journal_torn(dir);
  if (torn < 0 || pagedir_journal(dir, jscan_line, s) != 0 || s->nomem) {
    snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_JOURNAL,
             s->nomem ? strerror(ENOMEM) : strerror(errno));
    return -1;
  }
  if (torn || s->max_id > count) {
    snprintf(err, n,
             "'%s' holds an interrupted crawl: its %s goes beyond page %d "
             "(crawler --resume finishes it)",
             dir, PAGEDIR_JOURNAL, count);
    return -1;
  }
  if (s->bad_k > 0) {
    snprintf(err, n, "'%s/" NOINDEX_PREFIX "%ld' is not a well-formed file",
             dir, s->bad_k);
    return -1;
  }
  return 0;
}

/* check_names: the names pagedir_check looks at in DIR: no .tmp-* left,
 * and every .noindex-K named by the journal (S). */
static int check_names(const char *dir, const struct jscan *s, char *err,
                       size_t n)
{
  DIR *d = opendir(dir);
  if (d == NULL) {
    snprintf(err, n, "cannot read '%s': %s", dir, strerror(errno));
    return -1;
  }
  struct dirent *de;
  int rc = 0;
  char shown[256];
  while (rc == 0 && (de = readdir(d)) != NULL) {
    long k = noindex_k(de->d_name);
    if (strncmp(de->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0 ||
        (k > 0 && !named(s, k))) {
      snprintf(err, n,
               "'%s' holds an interrupted crawl: '%s' is left (crawler "
               "--resume finishes it)",
               dir, printable(de->d_name, shown, sizeof(shown)));
      rc = -1;
    }
  }
  closedir(d);
  return rc;
}

/* check: pagedir_check (pagedir_check_ids unless WHOLE), with the
 * journal's findings left in *S. */
static int check(const char *dir, bool whole, struct jscan *s, char *err,
                 size_t n)
{
  if (pagedir_is_dir(dir, err, n) != 0)
    return -1;
  char *marker = pagedir_marker_read(dir);
  if (marker == NULL) {
    int e = errno;
    if (e == ENOENT || e == EINVAL)
      snprintf(err, n,
               e == ENOENT ? "'%s' is not a page directory: no %s"
                           : "'%s' is not a page directory: %s is not a "
                             "crawl's marker",
               dir, PAGEDIR_MARKER);
    else
      snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_MARKER,
               strerror(e));
    return -1;
  }
  free(marker);
  long pid = 0;
  int held = pagedir_holder(dir, &pid);
  if (held != 0) {
    if (held > 0)
      snprintf(err, n, "'%s' is being written by a crawler now (process %ld)",
               dir, pid);
    else
      snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_LOCK,
               strerror(errno));
    return -1;
  }
  int count = whole ? pagedir_validate(dir, err, n)
                    : pagedir_validate_ids(dir, err, n);
  if (count < 0 || check_journal(dir, count, s, err, n) != 0 ||
      check_names(dir, s, err, n) != 0)
    return -1;
  int pages;
  int done = pagedir_completed(dir, &pages, NULL);
  if (done == 0)
    snprintf(err, n,
             "'%s' holds an interrupted crawl: no %s (crawler --resume "
             "finishes it; a crawl made before tse-crawler 0.2.0 has none)",
             dir, PAGEDIR_COMPLETE);
  else if (done < 0)
    snprintf(err, n, "'%s/%s' is not a completion record: %s", dir,
             PAGEDIR_COMPLETE, strerror(errno));
  else if (pages != count)
    snprintf(err, n, "'%s/%s' says %d page%s, the directory holds %d", dir,
             PAGEDIR_COMPLETE, pages, pages == 1 ? "" : "s", count);
  return done == 1 && pages == count ? count : -1;
}

int pagedir_check(const char *dir, char *err, size_t n)
{
  struct jscan s = { dir, 0, 0, NULL, 0, 0, false };
  int count = check(dir, true, &s, err, n);
  free(s.ks);
  return count;
}

int pagedir_check_ids(const char *dir, char *err, size_t n)
{
  struct jscan s = { dir, 0, 0, NULL, 0, 0, false };
  int count = check(dir, false, &s, err, n);
  free(s.ks);
  return count;
}

/* copy_fd: write the content of the file at PATH to FD: decoded if
 * DECODE (gzread passes a plain file through), else byte for byte.
 * Returns 0, or -1 with errno (EINVAL: a damaged gzip stream). */
static int copy_fd(const char *path, int fd, bool decode)
{
  enum { CHUNK = 65536 };
  int in = pagedir_open_file(path);
  if (in < 0)
    return -1;
  gzFile gz = decode ? gzdopen(in, "rb") : NULL;
  char *buf = malloc(CHUNK);
  if (buf == NULL || (decode && gz == NULL)) {
    free(buf);
    if (gz != NULL)
      gzclose(gz);
    else
      close(in);
    errno = ENOMEM;
    return -1;
  }
  int rc = 0;
  for (;;) {
    ssize_t r;
    if (decode) {
      r = gzread(gz, buf, CHUNK);
      int zerr = Z_OK;
      if (r == 0)
        gzerror(gz, &zerr); /* a truncated stream also reads as 0 */
      if (r < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        errno = EINVAL;
        rc = -1;
        break;
      }
    } else if ((r = read(in, buf, CHUNK)) < 0) {
      if (errno == EINTR)
        continue;
      rc = -1;
      break;
    }
    if (r == 0)
      break;
    if (pagedir_write_all(fd, buf, (size_t)r) != 0) {
      rc = -1;
      break;
    }
  }
  int e = errno;
  free(buf);
  if (gz != NULL)
    gzclose(gz); /* closes IN too */
  else
    close(in);
  errno = e;
  return rc;
}

int pagedir_copy_plain(const char *dir, const char *name, int fd)
{
  char *path = pagedir_tmp_join(dir, name);
  if (path == NULL)
    return -1;
  int rc = copy_fd(path, fd, true);
  free(path);
  return rc;
}

/* The files an export writes, to remove them all if it fails. */
struct written {
  char **name;
  size_t n, cap;
};

static int written_add(struct written *w, const char *name)
{
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 64;
    char **v = realloc(w->name, cap * sizeof(*v));
    if (v == NULL)
      return -1;
    w->name = v;
    w->cap = cap;
  }
  if ((w->name[w->n] = strdup(name)) == NULL)
    return -1;
  w->n++;
  return 0;
}

/* export_file: NEWDIR/NAME from DIR/NAME (decoded if DECODE; with TEXT
 * non-NULL, TEXT instead), whole under a temporary name, then renamed. */
static int export_file(const char *dir, const char *newdir, const char *name,
                       bool decode, const char *text, struct written *w,
                       char *err, size_t n)
{
  char tmpname[64];
  snprintf(tmpname, sizeof(tmpname), TMP_PREFIX "export-%zu", w->n);
  char *tmp = pagedir_tmp_join(newdir, tmpname);
  char *src = pagedir_tmp_join(dir, name);
  int rc = -1, fd = -1;
  if (tmp == NULL || src == NULL) {
    snprintf(err, n, "out of memory");
    goto out;
  }
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, n, "cannot create '%s': %s", tmp, strerror(errno));
    goto out;
  }
  int wrc = text != NULL ? pagedir_write_all(fd, text, strlen(text))
                         : copy_fd(src, fd, decode);
  if (wrc != 0 || fsync(fd) != 0) {
    snprintf(err, n, "cannot copy '%s' to '%s': %s", src, tmp,
             errno == EINVAL ? "damaged gzip stream" : strerror(errno));
    unlink(tmp);
    goto out;
  }
  if (close(fd) != 0 || pagedir_publish_name(newdir, tmp, name) != 0) {
    fd = -1;
    snprintf(err, n, "cannot write '%s/%s': %s", newdir, name, strerror(errno));
    unlink(tmp);
    goto out;
  }
  fd = -1;
  if (written_add(w, name) != 0) {
    snprintf(err, n, "out of memory");
    goto out;
  }
  rc = 0;
out:
  if (fd >= 0)
    close(fd);
  free(tmp);
  free(src);
  return rc;
}

/* plain_marker: DIR's marker as a plain crawl of the same parameters
 * writes it (its "compress: yes" line "compress: no"). Returns owned, or
 * NULL. */
static char *plain_marker(const char *dir)
{
  char *params = pagedir_marker_read(dir);
  if (params == NULL)
    return NULL;
  size_t len = strlen(params);
  char *text = malloc(sizeof(PAGEDIR_MAGIC) + len + 1);
  if (text == NULL) {
    free(params);
    return NULL;
  }
  char *p = text + sprintf(text, "%s\n", PAGEDIR_MAGIC);
  for (const char *line = params; *line != '\0';) {
    size_t l = strcspn(line, "\n");
    bool nl = line[l] == '\n';
    if (l == strlen("compress: yes") && memcmp(line, "compress: yes", l) == 0)
      p += sprintf(p, "compress: no");
    else
      p += sprintf(p, "%.*s", (int)l, line);
    if (nl)
      *p++ = '\n';
    line += l + nl;
  }
  *p = '\0';
  free(params);
  return text;
}

/* only_lock: whether NEWDIR holds nothing but our .lock. */
static int only_lock(const char *newdir, char *err, size_t n)
{
  DIR *d = opendir(newdir);
  if (d == NULL) {
    snprintf(err, n, "cannot read '%s': %s", newdir, strerror(errno));
    return -1;
  }
  struct dirent *de;
  int full = 0;
  while (!full && (de = readdir(d)) != NULL)
    full = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
           strcmp(de->d_name, PAGEDIR_LOCK) != 0;
  closedir(d);
  if (full) {
    snprintf(err, n, "'%s' is not empty", newdir);
    return -1;
  }
  return 0;
}

/* inside: whether NEWDIR is DIR or lies under it (real paths). */
static int inside(const char *dir, const char *newdir, char *err, size_t n)
{
  char *a = realpath(dir, NULL), *b = realpath(newdir, NULL);
  int rc = 0;
  if (a == NULL || b == NULL) {
    snprintf(err, n, "cannot resolve '%s': %s", a == NULL ? dir : newdir,
             strerror(errno));
    rc = -1;
  } else {
    size_t l = strlen(a);
    if (strncmp(a, b, l) == 0 &&
        (b[l] == '\0' || b[l] == '/' || strcmp(a, "/") == 0)) {
      snprintf(err, n, "'%s' lies inside '%s': export elsewhere", newdir, dir);
      rc = -1;
    }
  }
  free(a);
  free(b);
  return rc;
}

/* take_dir: make NEWDIR, or take it if it exists; then lock it and make
 * sure it holds nothing else and is not DIR's own. Sets *MADE if it was
 * made here. Returns the lock's descriptor, or -1 with ERR set (NEWDIR
 * removed again if made). */
static int take_dir(const char *dir, const char *newdir, bool *made, char *err,
                    size_t n)
{
  *made = mkdir(newdir, 0777) == 0;
  if (!*made && errno != EEXIST) {
    snprintf(err, n, "cannot create '%s': %s", newdir, strerror(errno));
    return -1;
  }
  struct stat st;
  if (!*made && (stat(newdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    snprintf(err, n, "'%s' is not a directory%s%s", newdir,
             errno == ENOENT ? ": " : "",
             errno == ENOENT ? strerror(errno) : "");
    return -1;
  }
  int lock = -1;
  if (inside(dir, newdir, err, n) == 0) {
    lock = pagedir_lock(newdir);
    if (lock < 0)
      snprintf(err, n, "cannot lock '%s': %s", newdir,
               errno == EAGAIN ? "another process is writing it"
                               : strerror(errno));
  }
  /* Empty once locked: two exports into one directory cannot both
   * pass. */
  if (lock >= 0 && only_lock(newdir, err, n) != 0) {
    pagedir_unlock(newdir, lock);
    lock = -1;
  }
  if (lock < 0 && *made)
    rmdir(newdir);
  return lock;
}

/* export_files: the pages, the .noindex-K files the journal names (KS),
 * the journal and .complete, written to NEWDIR; the marker is the
 * caller's. */
static int export_files(const char *dir, const char *newdir, int count,
                        const struct jscan *s, struct written *w, char *err,
                        size_t n)
{
  char name[48];
  for (int id = 1; id <= count; id++) {
    snprintf(name, sizeof(name), "%d", id);
    if (export_file(dir, newdir, name, true, NULL, w, err, n) != 0)
      return -1;
  }
  for (size_t i = 0; i < s->n; i++) {
    snprintf(name, sizeof(name), NOINDEX_PREFIX "%ld", s->ks[i]);
    bool again = false; /* a K named twice is written once */
    for (size_t j = 0; j < i; j++)
      again = again || s->ks[j] == s->ks[i];
    if (!again && export_file(dir, newdir, name, true, NULL, w, err, n) != 0)
      return -1;
  }
  char *journal = pagedir_tmp_join(dir, PAGEDIR_JOURNAL);
  if (journal == NULL) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  bool has = access(journal, F_OK) == 0;
  free(journal);
  if (has &&
      export_file(dir, newdir, PAGEDIR_JOURNAL, false, NULL, w, err, n) != 0)
    return -1;
  return export_file(dir, newdir, PAGEDIR_COMPLETE, false, NULL, w, err, n);
}

int pagedir_export(const char *dir, const char *newdir, char *err, size_t n)
{
  struct jscan s = { dir, 0, 0, NULL, 0, 0, false };
  int count = check(dir, true, &s, err, n);
  bool made = false;
  int lock = count < 0 ? -1 : take_dir(dir, newdir, &made, err, n);
  if (lock < 0) {
    free(s.ks);
    return -1;
  }
  struct written w = { NULL, 0, 0 };
  int rc = export_files(dir, newdir, count, &s, &w, err, n);
  /* A crawler that began on DIR meanwhile (--resume) may have changed
   * what was copied. */
  long pid;
  if (rc == 0 &&
      (pagedir_holder(dir, &pid) != 0 || pagedir_count(dir) != count)) {
    snprintf(err, n, "'%s' changed during the export (a crawler wrote it)",
             dir);
    rc = -1;
  }
  /* The marker last: until it is there, NEWDIR is no page directory. */
  char *marker = rc == 0 ? plain_marker(dir) : NULL;
  if (rc == 0 && marker == NULL) {
    snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_MARKER,
             strerror(errno));
    rc = -1;
  }
  if (rc == 0)
    rc = export_file(dir, newdir, PAGEDIR_MARKER, false, marker, &w, err, n);
  free(marker);
  if (rc == 0 && pagedir_sync(newdir) != 0) {
    snprintf(err, n, "cannot sync '%s': %s", newdir, strerror(errno));
    rc = -1;
  }
  if (rc != 0) /* leave NEWDIR as it was found */
    for (size_t i = 0; i < w.n; i++) {
      char *p = pagedir_tmp_join(newdir, w.name[i]);
      if (p != NULL)
        unlink(p);
      free(p);
    }
  for (size_t i = 0; i < w.n; i++)
    free(w.name[i]);
  free(w.name);
  free(s.ks);
  pagedir_unlock(newdir, lock);
  if (rc != 0 && made)
    rmdir(newdir);
  return rc == 0 ? count : -1;
}
