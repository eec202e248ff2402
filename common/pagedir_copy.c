/* pagedir_copy.c: see pagedir.h (pagedir_holder, pagedir_check,
 * pagedir_copy_plain, pagedir_export): a directory as a whole, checked
 * and copied, for the tsepagedir(1) tool. */
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
  /* Read-only, and never created: asking must not change DIR. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
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
 * whether its last line is torn, and the first .noindex-K it names that
 * is not a well-formed file. */
struct jscan {
  const char *dir;
  int max_id;
  long bad_k;
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
  if (k > 0 && s->bad_k == 0) {
    char name[48];
    snprintf(name, sizeof(name), NOINDEX_PREFIX "%ld", k);
    pagedir_page_t p;
    if (pagedir_load_name(s->dir, name, &p) != 0)
      s->bad_k = k;
    pagedir_page_free(&p);
  }
}

/* journal_torn: whether DIR's journal ends in a line without its newline
 * (a write an interruption cut). 0 no, 1 yes, -1 unreadable. */
static int journal_torn(const char *dir)
{
  char *path = pagedir_tmp_join(dir, PAGEDIR_JOURNAL);
  if (path == NULL)
    return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  free(path);
  if (fd < 0)
    return errno == ENOENT ? 0 : -1;
  char c = '\n';
  off_t end = lseek(fd, 0, SEEK_END);
  int rc = end > 0 && pread(fd, &c, 1, end - 1) != 1 ? -1 : c != '\n';
  close(fd);
  return rc;
}

int pagedir_check(const char *dir, char *err, size_t n)
{
  struct stat st;
  if (stat(dir, &st) != 0) {
    snprintf(err, n, "cannot use '%s': %s", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, n, "'%s' is not a directory", dir);
    return -1;
  }
  char *marker = pagedir_marker_read(dir);
  if (marker == NULL) {
    snprintf(err, n,
             errno == ENOENT   ? "'%s' is not a page directory: no %s"
             : errno == EINVAL ? "'%s' is not a page directory: %s is not "
                                 "a crawl's marker"
                               : "cannot read '%s/%s'",
             dir, PAGEDIR_MARKER);
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
  DIR *d = opendir(dir);
  if (d == NULL) {
    snprintf(err, n, "cannot read '%s': %s", dir, strerror(errno));
    return -1;
  }
  struct dirent *de;
  int left = 0;
  while (!left && (de = readdir(d)) != NULL)
    if (strncmp(de->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0) {
      snprintf(err, n,
               "'%s' holds an interrupted crawl: '%s' is left (crawler "
               "--resume finishes it)",
               dir, de->d_name);
      left = 1;
    }
  closedir(d);
  if (left)
    return -1;
  int count = pagedir_validate(dir, err, n);
  if (count < 0)
    return -1;
  struct jscan s = { dir, 0, 0 };
  int torn = journal_torn(dir);
  if (torn < 0 || pagedir_journal(dir, jscan_line, &s) != 0) {
    snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_JOURNAL,
             strerror(errno));
    return -1;
  }
  if (torn || s.max_id > count) {
    snprintf(err, n,
             "'%s' holds an interrupted crawl: its %s goes beyond page %d "
             "(crawler --resume finishes it)",
             dir, PAGEDIR_JOURNAL, count);
    return -1;
  }
  if (s.bad_k > 0) {
    snprintf(err, n, "'%s/" NOINDEX_PREFIX "%ld' is not a well-formed file",
             dir, s.bad_k);
    return -1;
  }
  return count;
}

/* write_all: write LEN bytes of BUF to FD, riding out short writes. */
static int write_all(int fd, const char *buf, size_t len)
{
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

/* copy_fd: write the content of the file at PATH to FD: decoded if
 * DECODE (gzread passes a plain file through), else byte for byte.
 * Returns 0, or -1 with errno (EINVAL: a damaged gzip stream). */
static int copy_fd(const char *path, int fd, bool decode)
{
  enum { CHUNK = 65536 };
  int in = open(path, O_RDONLY | O_CLOEXEC);
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
    if (write_all(fd, buf, (size_t)r) != 0) {
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
  int wrc = text != NULL ? write_all(fd, text, strlen(text))
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

/* new_dir: make NEWDIR, or take it if it is an empty directory. Sets
 * *MADE if it was made here. */
static int new_dir(const char *newdir, bool *made, char *err, size_t n)
{
  *made = false;
  if (mkdir(newdir, 0777) == 0) {
    *made = true;
    return 0;
  }
  if (errno != EEXIST) {
    snprintf(err, n, "cannot create '%s': %s", newdir, strerror(errno));
    return -1;
  }
  DIR *d = opendir(newdir);
  if (d == NULL) {
    snprintf(err, n,
             errno == ENOTDIR ? "'%s' is not a directory" : "cannot read '%s'",
             newdir);
    return -1;
  }
  struct dirent *de;
  int full = 0;
  while (!full && (de = readdir(d)) != NULL)
    full = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  if (full) {
    snprintf(err, n, "'%s' is not empty", newdir);
    return -1;
  }
  return 0;
}

int pagedir_export(const char *dir, const char *newdir, char *err, size_t n)
{
  int count = pagedir_check(dir, err, n);
  if (count < 0)
    return -1;
  bool made;
  if (new_dir(newdir, &made, err, n) != 0)
    return -1;
  int lock = pagedir_lock(newdir);
  if (lock < 0) {
    snprintf(err, n, "cannot lock '%s': %s", newdir,
             errno == EAGAIN ? "another process holds it" : strerror(errno));
    if (made)
      rmdir(newdir);
    return -1;
  }
  struct written w = { NULL, 0, 0 };
  int rc = -1;
  char name[32];
  for (int id = 1; id <= count; id++) {
    snprintf(name, sizeof(name), "%d", id);
    if (export_file(dir, newdir, name, true, NULL, &w, err, n) != 0)
      goto out;
  }
  DIR *d = opendir(dir);
  if (d == NULL) {
    snprintf(err, n, "cannot read '%s': %s", dir, strerror(errno));
    goto out;
  }
  struct dirent *de;
  int bad = 0;
  while (!bad && (de = readdir(d)) != NULL) {
    const char *s = de->d_name;
    if (strncmp(s, NOINDEX_PREFIX, sizeof(NOINDEX_PREFIX) - 1) == 0)
      bad = export_file(dir, newdir, s, true, NULL, &w, err, n);
    else if (strcmp(s, PAGEDIR_JOURNAL) == 0)
      bad = export_file(dir, newdir, s, false, NULL, &w, err, n);
  }
  closedir(d);
  if (bad)
    goto out;
  /* The marker last: until it is there, NEWDIR is no page directory. */
  char *marker = plain_marker(dir);
  if (marker == NULL) {
    snprintf(err, n, "cannot read '%s/%s': %s", dir, PAGEDIR_MARKER,
             strerror(errno));
    goto out;
  }
  rc = export_file(dir, newdir, PAGEDIR_MARKER, false, marker, &w, err, n);
  free(marker);
  if (rc == 0 && pagedir_sync(newdir) != 0) {
    snprintf(err, n, "cannot sync '%s': %s", newdir, strerror(errno));
    rc = -1;
  }
out:
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
  pagedir_unlock(newdir, lock);
  if (rc != 0 && made)
    rmdir(newdir);
  return rc == 0 ? count : -1;
}
