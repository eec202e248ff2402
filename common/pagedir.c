/* pagedir.c: see pagedir.h. What a reader needs: paths, the marker read
 * and compared, pages loaded, checked and counted, the journal read.
 * What the crawler writes is in pagedir_write.c; libtsepagedir.so links
 * this file without that one (common/Makefile). */
#include "pagedir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "file.h"
#include "pagedir_int.h"
#include "strbuf.h"

char *pagedir_join(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p != NULL)
    snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* params_text: PARAMS as the marker's "key: value" lines, in the order
 * pagedir.h gives ("" for NULL). Returns owned, or NULL (out of memory).
 * The one place that spells the marker's keys. */
static char *params_text(const pagedir_params_t *p)
{
  strbuf_t b = STRBUF_INIT;
  if (p != NULL) {
    strbuf_addf(&b, "seed: %s\n", p->seed);
    for (size_t i = 0; i < p->nseeds; i++)
      strbuf_addf(&b, "seed: %s\n", p->seeds[i]);
    strbuf_addf(&b, "maxDepth: %d\n", p->max_depth);
    for (size_t i = 0; i < p->nscope; i++)
      strbuf_addf(&b, "scope: %s\n", p->scope[i]);
    for (size_t i = 0; i < p->ndomain; i++)
      strbuf_addf(&b, "domain: %s\n", p->domain[i]);
    strbuf_addf(&b,
                "format: %s\nmaxPages: %ld\nmaxPagesPerHost: %ld\n"
                "maxPageSize: %zu\ncompress: %s\n",
                p->format, p->max_pages, p->max_pages_per_host,
                p->max_page_size, p->compress ? "yes" : "no");
    if (p->ignore_robots)
      strbuf_addf(&b, "ignoreRobots: yes\n");
    if (p->rel_nofollow)
      strbuf_addf(&b, "respectRelNofollow: yes\n");
    if (p->sitemaps)
      strbuf_addf(&b, "sitemaps: yes\n");
    if (p->user_agent != NULL)
      strbuf_addf(&b, "userAgent: %s\n", p->user_agent);
    for (size_t i = 0; i < p->naccept; i++)
      strbuf_addf(&b, "acceptRegex: %s\n", p->accept[i]);
    for (size_t i = 0; i < p->nreject; i++)
      strbuf_addf(&b, "rejectRegex: %s\n", p->reject[i]);
    if (p->since != NULL)
      strbuf_addf(&b, "since: %s\n", p->since);
  }
  return strbuf_detach(&b);
}

char *pagedir_params_text(const pagedir_params_t *params)
{
  return params_text(params);
}

int pagedir_is_dir(const char *dir, char *err, size_t n)
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
  return 0;
}

int pagedir_completed(const char *dir, int *pages, time_t *when)
{
  int fd = pagedir_open_name(dir, PAGEDIR_COMPLETE);
  if (fd < 0)
    return errno == ENOENT ? 0 : -1;
  char buf[32];
  struct stat st;
  ssize_t r = fstat(fd, &st) == 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  int e = errno;
  close(fd);
  if (r < 0) {
    errno = e;
    return -1;
  }
  buf[r] = '\0';
  char *end = buf;
  long n = strncmp(buf, "pages: ", 7) == 0 && isdigit((unsigned char)buf[7])
           ? strtol(buf + 7, &end, 10)
           : -1;
  if (n < 0 || n > INT_MAX || strcmp(end, "\n") != 0) {
    errno = EINVAL;
    return -1;
  }
  if (pages != NULL)
    *pages = (int)n;
  if (when != NULL)
    *when = st.st_mtime;
  return 1;
}

long long pagedir_journal_size(const char *dir)
{
  char *path = pagedir_join(dir, PAGEDIR_JOURNAL);
  if (path == NULL)
    return -1;
  struct stat sb;
  int rc = stat(path, &sb);
  int err = errno;
  free(path);
  if (rc != 0) {
    errno = err;
    return err == ENOENT ? 0 : -1;
  }
  return (long long)sb.st_size;
}

/* page_path: DIR/ID. Returns owned, or NULL. */
static char *page_path(const char *dir, int id)
{
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  return pagedir_join(dir, name);
}

int pagedir_open_file(const char *path)
{
  /* Non-blocking for the open alone: a FIFO must not block it. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  int e = 0;
  if (fstat(fd, &st) != 0)
    e = errno;
  else if (!S_ISREG(st.st_mode))
    e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
  else if (fcntl(fd, F_SETFL, 0) != 0)
    e = errno;
  if (e != 0) {
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int pagedir_open_name(const char *dir, const char *name)
{
  char *path = pagedir_join(dir, name);
  if (path == NULL) {
    errno = ENOMEM;
    return -1;
  }
  int fd = pagedir_open_file(path);
  int e = errno;
  free(path);
  errno = e;
  return fd;
}

/* gz_fd: FD (pagedir_open_file's, or -1) for gzread, which passes plain
 * files through. Returns NULL with errno set (FD closed). */
static gzFile gz_fd(int fd)
{
  if (fd < 0)
    return NULL;
  gzFile gz = gzdopen(fd, "rb");
  if (gz == NULL) {
    close(fd);
    errno = ENOMEM;
  }
  return gz;
}

char *pagedir_read_all(const char *path, size_t *lenp)
{
  int fd = pagedir_open_file(path);
  struct stat st;
  /* A plain file is read into one block of its size (and the room the
   * loop below asks for), not grown by doubling to up to twice it: a
   * page of --max-page-size read back (--since, --resume, --replay)
   * costs what its fetch did. A compressed one grows from its size. */
  size_t hint = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                    st.st_size > 0 &&
                    (unsigned long long)st.st_size < SIZE_MAX / 4
                ? (size_t)st.st_size + 65536 + 1
                : 0;
  gzFile gz = gz_fd(fd);
  if (gz == NULL)
    return NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 65536 + 1 > cap) {
      cap = cap ? cap * 2 : hint > 65536 * 2 ? hint : 65536 * 2;
      char *b = realloc(buf, cap);
      if (b == NULL) {
        free(buf);
        gzclose(gz);
        errno = ENOMEM;
        return NULL;
      }
      buf = b;
    }
    int r = gzread(gz, buf + len, 65536);
    int zerr = Z_OK;
    if (r == 0)
      gzerror(gz, &zerr); /* a truncated stream also reads as 0 */
    if (r < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
      free(buf);
      gzclose(gz);
      errno = EINVAL; /* a damaged gzip stream */
      return NULL;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  gzclose(gz);
  buf[len] = '\0';
  *lenp = len;
  return buf;
}

/* clean_url: LEN bytes at P are a URL fit for line 1: non-empty, no
 * control byte, no space. */
static bool clean_url(const char *p, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] == 0x7f)
      return false;
  return true;
}

int pagedir_load(const char *dir, int id, pagedir_page_t *page)
{
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  return pagedir_load_name(dir, name, page);
}

int pagedir_load_name(const char *dir, const char *name, pagedir_page_t *page)
{
  memset(page, 0, sizeof(*page));
  char *path = pagedir_join(dir, name);
  if (path == NULL)
    return -1;
  int rc = pagedir_load_file(path, page);
  free(path);
  return rc;
}

int pagedir_load_file(const char *path, pagedir_page_t *page)
{
  memset(page, 0, sizeof(*page));
  size_t len;
  char *buf = pagedir_read_all(path, &len);
  if (buf == NULL)
    return -1;
  char *nl1 = memchr(buf, '\n', len);
  char *nl2 = nl1 ? memchr(nl1 + 1, '\n', len - (size_t)(nl1 + 1 - buf)) : NULL;
  long d = -1;
  if (nl2 != NULL && nl2 > nl1 + 1 && nl2 - nl1 <= 8) {
    d = 0;
    for (char *q = nl1 + 1; q < nl2 && d >= 0; q++)
      d = isdigit((unsigned char)*q) ? d * 10 + (*q - '0') : -1;
  }
  if (nl1 == NULL || nl2 == NULL || !clean_url(buf, (size_t)(nl1 - buf)) ||
      d < 0) {
    free(buf);
    errno = EINVAL;
    return -1;
  }
  *nl1 = '\0';
  page->url = strdup(buf);
  page->depth = (int)d;
  page->len = len - (size_t)(nl2 + 1 - buf);
  if (page->url == NULL) {
    free(buf);
    errno = ENOMEM;
    return -1;
  }
  /* The body moved to the front of the block read, not copied: a page
   * read back costs one block of its size, not two. */
  memmove(buf, nl2 + 1, page->len + 1);
  char *body = realloc(buf, page->len + 1);
  page->body = body != NULL ? body : buf;
  return 0;
}

/* read_line: the next line of GZ without its newline, read whole into
 * LINE (size MAX_LINE); false if there is none, or it is too long. */
static bool read_line(gzFile gz, char *line, size_t max)
{
  if (gzgets(gz, line, (int)max) == NULL)
    return false;
  size_t n = strlen(line);
  if (n == 0 || line[n - 1] != '\n')
    return false;
  line[n - 1] = '\0';
  return true;
}

int pagedir_load_head(const char *dir, int id, char **url, int *depth)
{
  *url = NULL;
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  gzFile gz = gz_fd(pagedir_open_name(dir, name));
  if (gz == NULL)
    return -1;
  /* A URL is at most a few KiB; read a bounded first line. */
  enum { MAX_LINE = 65536 };
  char *line = malloc(MAX_LINE);
  int rc = -1, e = EINVAL;
  if (line == NULL)
    e = ENOMEM;
  else if (read_line(gz, line, MAX_LINE) && clean_url(line, strlen(line))) {
    *url = strdup(line);
    char *end;
    if (*url == NULL) {
      e = ENOMEM;
    } else if (depth == NULL) {
      rc = 0;
    } else if (read_line(gz, line, 16) && isdigit((unsigned char)line[0])) {
      long d = strtol(line, &end, 10);
      if (*end == '\0' && end - line <= 7) {
        *depth = (int)d;
        rc = 0;
      }
    }
  }
  gzclose(gz);
  free(line);
  if (rc != 0) {
    free(*url);
    *url = NULL;
    errno = e;
  }
  return rc;
}

int pagedir_check_name(const char *dir, const char *name)
{
  gzFile gz = gz_fd(pagedir_open_name(dir, name));
  if (gz == NULL)
    return -1;
  /* What pagedir_load_file accepts, read through a fixed buffer: line 1
   * a clean URL, line 2 one to seven digits, then any bytes, to the end
   * of an intact stream. */
  enum { URL, DEPTH, BODY } at = URL;
  size_t line = 0; /* bytes of the current line */
  bool ok = true;
  char buf[65536];
  int r = 0;
  while (ok && (r = gzread(gz, buf, sizeof(buf))) > 0) {
    for (int i = 0; i < r && at != BODY && ok; i++) {
      unsigned char c = (unsigned char)buf[i];
      if (c == '\n') {
        ok = line > 0;
        at = at == URL ? DEPTH : BODY;
        line = 0;
      } else if (at == URL) {
        ok = c > 0x20 && c != 0x7f;
        line++;
      } else {
        ok = isdigit(c) && ++line <= 7;
      }
    }
  }
  int zerr = Z_OK;
  if (ok && r == 0)
    gzerror(gz, &zerr); /* a truncated stream also reads as 0 */
  if (r < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
    ok = false;
  gzclose(gz);
  if (!ok || at != BODY) {
    errno = EINVAL;
    return -1;
  }
  return 0;
}

char *pagedir_load_url(const char *dir, int id)
{
  char *url;
  return pagedir_load_head(dir, id, &url, NULL) == 0 ? url : NULL;
}

void pagedir_page_free(pagedir_page_t *page)
{
  if (page == NULL)
    return;
  free(page->url);
  free(page->body);
  memset(page, 0, sizeof(*page));
}

char *pagedir_marker_read(const char *dir)
{
  char *path = pagedir_join(dir, PAGEDIR_MARKER);
  if (path == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  /* A regular file only: a FIFO would block the open, a device (a link
   * to /dev/zero) be read without end. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  free(path);
  if (fd < 0)
    return NULL;
  struct stat st;
  int bad = 0;
  if (fstat(fd, &st) != 0)
    bad = errno;
  else if (!S_ISREG(st.st_mode))
    bad = EINVAL;
  else if (st.st_size > PAGEDIR_MARKER_MAX)
    bad = EFBIG;
  FILE *fp = bad == 0 ? fdopen(fd, "r") : NULL;
  if (fp == NULL) {
    bad = bad != 0 ? bad : errno;
    close(fd);
    errno = bad;
    return NULL;
  }
  size_t len;
  char *text = file_readAll(fp, &len);
  int e = ferror(fp) ? (errno ? errno : EIO) : ENOMEM;
  fclose(fp);
  if (text == NULL) {
    errno = e;
    return NULL;
  }
  const size_t magic = sizeof(PAGEDIR_MAGIC); /* the line and its '\n' */
  if (len < magic || memcmp(text, PAGEDIR_MAGIC "\n", magic) != 0) {
    free(text);
    errno = EINVAL;
    return NULL;
  }
  memmove(text, text + magic, len - magic + 1); /* with the NUL */
  return text;
}

int pagedir_marker_compare(const char *dir, const pagedir_params_t *params,
                           char **had, char **want)
{
  *had = *want = NULL;
  char *rec = pagedir_marker_read(dir);
  if (rec == NULL)
    return -1;
  char *cur = params_text(params);
  int rc = -1;
  if (cur == NULL) {
    errno = ENOMEM;
    goto out;
  }
  /* Line for line; a missing last newline or trailing empty lines do not
   * count as a difference, nor the lines the crawl added itself
   * (PAGEDIR_DERIVED: no command line gives them). */
  const char *a = rec, *b = cur;
  rc = 0;
  while (*a != '\0' || *b != '\0') {
    if (strncmp(a, PAGEDIR_DERIVED ": ", sizeof(PAGEDIR_DERIVED) + 1) == 0) {
      a += strcspn(a, "\n");
      a += *a == '\n';
      continue;
    }
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    if (la != lb || strncmp(a, b, la) != 0) {
      *had = strndup(a, la);
      *want = strndup(b, lb);
      rc = 1;
      if (*had == NULL || *want == NULL) {
        free(*had);
        free(*want);
        *had = *want = NULL;
        errno = ENOMEM;
        rc = -1;
      }
      break;
    }
    a += la + (a[la] == '\n');
    b += lb + (b[lb] == '\n');
  }
out:
  free(cur);
  free(rec);
  return rc;
}

char *pagedir_param(const char *dir, const char *key)
{
  char *text = pagedir_marker_read(dir);
  if (text == NULL)
    return NULL;
  char *value = NULL;
  size_t klen = strlen(key);
  for (const char *line = text; *line != '\0' && value == NULL;) {
    size_t len = strcspn(line, "\n");
    if (len > klen + 1 && strncmp(line, key, klen) == 0 && line[klen] == ':' &&
        line[klen + 1] == ' ')
      value = strndup(line + klen + 2, len - klen - 2);
    line += len + (line[len] == '\n');
  }
  free(text);
  return value;
}

int pagedir_count(const char *dir)
{
  char *marker = pagedir_marker_read(dir);
  if (marker == NULL)
    return -1;
  free(marker);
  int n = 0;
  for (;;) {
    char *p = page_path(dir, n + 1);
    if (p == NULL)
      return -1;
    bool ok = access(p, F_OK) == 0;
    free(p);
    if (!ok)
      return n;
    n++;
  }
}

int pagedir_validate(const char *dir, char *err, size_t n)
{
  int count = pagedir_validate_ids(dir, err, n);
  for (int id = 1; id <= count; id++) {
    char name[24];
    snprintf(name, sizeof(name), "%d", id);
    if (pagedir_check_name(dir, name) != 0) {
      snprintf(err, n, "'%s/%d' is not a well-formed page: %s", dir, id,
               errno == EINVAL ? "not in the page format, or a damaged "
                                 "gzip stream"
                               : strerror(errno));
      return -1;
    }
  }
  return count;
}

int pagedir_validate_ids(const char *dir, char *err, size_t n)
{
  int count = pagedir_count(dir);
  if (count < 0) {
    snprintf(err, n, "'%s' is not a page directory (no valid %s)", dir,
             PAGEDIR_MARKER);
    return -1;
  }
  DIR *d = opendir(dir);
  if (d == NULL) {
    snprintf(err, n, "cannot read '%s': %s", dir, strerror(errno));
    return -1;
  }
  struct dirent *de;
  int bad = 0;
  while ((de = readdir(d)) != NULL) {
    const char *s = de->d_name;
    if (!isdigit((unsigned char)s[0]))
      continue;
    char *end;
    long id = strtol(s, &end, 10);
    if (*end == '\0' && (id < 1 || id > count || s[0] == '0')) {
      bad = 1;
      snprintf(err, n,
               "'%s/%s' lies beyond the pages 1..%d: IDs are not "
               "contiguous",
               dir, s, count);
      break;
    }
  }
  closedir(d);
  return bad ? -1 : count;
}

size_t pagedir_journal_lines(char *buf, size_t len,
                             void (*fn)(void *arg, const char *kind, int id,
                                        const char *a, const char *b,
                                        const char *line, size_t n),
                             void *arg)
{
  char *line = buf, *nl;
  while ((nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL) {
    size_t n = (size_t)(nl + 1 - line);
    *nl = '\0';
    char *sp1 = strchr(line, ' ');
    char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    char *end;
    long id = sp2 ? strtol(sp1 + 1, &end, 10) : 0;
    if (sp2 != NULL && isdigit((unsigned char)sp1[1]) && end == sp2 &&
        id <= INT_MAX) {
      char kind[32];
      snprintf(kind, sizeof(kind), "%.*s", (int)(sp1 - line), line);
      char *a = sp2 + 1, *b = strchr(a, ' ');
      if (b != NULL)
        *b++ = '\0';
      char *copy = line; /* the parts are cut out of the line itself */
      fn(arg, kind, (int)id, a, b ? b : "", copy, n);
    }
    *nl = '\n';
    line = nl + 1;
  }
  return (size_t)(line - buf);
}

struct journal_cb {
  void (*fn)(void *arg, const char *kind, int id, const char *a, const char *b);
  void *arg;
};

static void journal_call(void *arg, const char *kind, int id, const char *a,
                         const char *b, const char *line, size_t n)
{
  struct journal_cb *cb = arg;
  (void)line;
  (void)n;
  cb->fn(cb->arg, kind, id, a, b);
}

int pagedir_journal(const char *dir,
                    void (*fn)(void *arg, const char *kind, int id,
                               const char *a, const char *b),
                    void *arg)
{
  char *path = pagedir_join(dir, PAGEDIR_JOURNAL);
  if (path == NULL)
    return -1;
  if (access(path, F_OK) != 0) {
    free(path);
    return 0;
  }
  size_t len;
  char *buf = pagedir_read_all(path, &len);
  free(path);
  if (buf == NULL)
    return -1;
  struct journal_cb cb = { fn, arg };
  pagedir_journal_lines(buf, len, journal_call, &cb);
  free(buf);
  return 0;
}
