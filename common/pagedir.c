/* pagedir.c: see pagedir.h. */
#include "pagedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *path_join(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p != NULL)
    snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* write_all: write LEN bytes of BUF to FD, riding out short writes. */
static int write_all(int fd, const void *buf, size_t len)
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

int pagedir_init(const char *dir, const char *params, char *err, size_t n)
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
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(err, n, "'%s' is not writable: %s", dir, strerror(errno));
    return -1;
  }
  char *marker = path_join(dir, PAGEDIR_MARKER);
  char *first = path_join(dir, "1");
  if (marker == NULL || first == NULL) {
    free(marker);
    free(first);
    snprintf(err, n, "out of memory");
    return -1;
  }
  int rc = -1;
  if (access(marker, F_OK) == 0 || access(first, F_OK) == 0) {
    snprintf(err, n, "'%s' already holds a crawl; use an empty directory",
             dir);
    goto out;
  }
  /* O_EXCL: two crawlers started on one directory cannot both win. */
  int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    snprintf(err, n, "cannot create '%s': %s", marker, strerror(errno));
    goto out;
  }
  if (write_all(fd, PAGEDIR_MAGIC "\n", sizeof(PAGEDIR_MAGIC)) != 0 ||
      (params && write_all(fd, params, strlen(params)) != 0) ||
      close(fd) != 0) {
    snprintf(err, n, "cannot write '%s': %s", marker, strerror(errno));
    unlink(marker);
    goto out;
  }
  rc = 0;
out:
  free(marker);
  free(first);
  return rc;
}

char *pagedir_write_tmp(const char *dir, unsigned long long key,
                        const char *url, int depth, const char *body,
                        size_t len)
{
  char name[48], head[32];
  snprintf(name, sizeof(name), ".tmp-%llu", key);
  char *path = path_join(dir, name);
  if (path == NULL)
    return NULL;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    free(path);
    return NULL;
  }
  int hl = snprintf(head, sizeof(head), "\n%d\n", depth);
  if (write_all(fd, url, strlen(url)) != 0 ||
      write_all(fd, head, (size_t)hl) != 0 ||
      write_all(fd, body, len) != 0 || close(fd) != 0) {
    int e = errno;
    close(fd);  /* harmless if already closed: EBADF */
    unlink(path);
    free(path);
    errno = e;
    return NULL;
  }
  return path;
}

int pagedir_publish(const char *dir, const char *tmp, int id)
{
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  char *path = path_join(dir, name);
  if (path == NULL)
    return -1;
  int rc = rename(tmp, path);
  free(path);
  return rc;
}

int pagedir_load(const char *dir, int id, pagedir_page_t *page)
{
  memset(page, 0, sizeof(*page));
  char name[24];
  snprintf(name, sizeof(name), "%d", id);
  char *path = path_join(dir, name);
  if (path == NULL)
    return -1;
  FILE *fp = fopen(path, "rb");
  free(path);
  if (fp == NULL)
    return -1;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 16384;
      char *b = realloc(buf, cap);
      if (b == NULL) {
        free(buf);
        fclose(fp);
        return -1;
      }
      buf = b;
    }
    size_t r = fread(buf + len, 1, cap - len - 1, fp);
    len += r;
    if (r == 0)
      break;
  }
  bool bad = ferror(fp);
  fclose(fp);
  if (bad) {
    free(buf);
    return -1;
  }
  buf[len] = '\0';
  char *nl1 = memchr(buf, '\n', len);
  char *nl2 = nl1 ? memchr(nl1 + 1, '\n', len - (size_t)(nl1 + 1 - buf))
                  : NULL;
  char *end;
  long d = nl2 ? strtol(nl1 + 1, &end, 10) : -1;
  if (nl1 == NULL || nl2 == NULL || nl1 == buf || end != nl2 ||
      nl2 == nl1 + 1 || d < 0 || d > 1000000) {
    free(buf);
    errno = EINVAL;
    return -1;
  }
  *nl1 = '\0';
  page->url = strdup(buf);
  page->depth = (int)d;
  page->len = len - (size_t)(nl2 + 1 - buf);
  page->body = malloc(page->len + 1);
  if (page->url == NULL || page->body == NULL) {
    pagedir_page_free(page);
    free(buf);
    return -1;
  }
  memcpy(page->body, nl2 + 1, page->len + 1);
  free(buf);
  return 0;
}

void pagedir_page_free(pagedir_page_t *page)
{
  if (page == NULL)
    return;
  free(page->url);
  free(page->body);
  memset(page, 0, sizeof(*page));
}

int pagedir_count(const char *dir)
{
  char *marker = path_join(dir, PAGEDIR_MARKER);
  if (marker == NULL)
    return -1;
  int ok = access(marker, F_OK) == 0;
  free(marker);
  if (!ok)
    return -1;
  int n = 0;
  for (;;) {
    char name[24];
    snprintf(name, sizeof(name), "%d", n + 1);
    char *p = path_join(dir, name);
    if (p == NULL)
      return -1;
    ok = access(p, F_OK) == 0;
    free(p);
    if (!ok)
      return n;
    n++;
  }
}
