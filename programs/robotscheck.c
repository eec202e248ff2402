/* robotscheck: ask common/robots whether URLs may be crawled.
 *
 * Usage: robotscheck ROBOTS_FILE USER_AGENT URL...
 * Prints "allowed URL" or "disallowed URL" per URL, in order, using the
 * same parser and matcher as the crawler. USER_AGENT may be a whole
 * User-Agent string; its product token (first word, up to '/' or a blank)
 * selects the group. A URL may be absolute (only its path and query are
 * used) or a bare path.
 * Exit: 0 done; 1 ROBOTS_FILE unreadable or stdout failed; 2 usage error.
 *
 * The path is url_path_query()'s, cut at '#': no normalisation, which is
 * good enough for a diagnostic tool whose input is typed by a person. */
#include "robots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "url.h"

static const char usage[] =
  "usage: robotscheck ROBOTS_FILE USER_AGENT URL...\n";

/* read_file: the whole file NAME, in *out (owned, free()) and *len.
 * Returns 0, or an errno value. */
static int read_file(const char *name, char **out, size_t *len)
{
  FILE *f = fopen(name, "rb");
  if (f == NULL)
    return errno;
  errno = 0;
  *out = file_readAll(f, len);
  /* file.h: on NULL, ferror() tells a read error from out of memory. */
  int err = *out != NULL ? 0 : ferror(f) ? (errno ? errno : EIO) : ENOMEM;
  fclose(f);
  return err;
}

int main(int argc, char *argv[])
{
  if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc < 4) {
    fputs(usage, stderr);
    return 2;
  }

  char *txt = NULL;
  size_t len = 0;
  int err = read_file(argv[1], &txt, &len);
  if (err != 0) {
    fprintf(stderr, "robotscheck: cannot read '%s': %s\n", argv[1],
            strerror(err));
    return 1;
  }
  robots_t *r = robots_parse(txt, len, argv[2]);
  free(txt);
  if (r == NULL) {
    fprintf(stderr, "robotscheck: cannot parse '%s': %s\n", argv[1],
            strerror(ENOMEM));
    return 1;
  }

  int status = 0;
  for (int i = 3; i < argc; i++) {
    /* robots_allowed() puts a missing leading '/' back itself. */
    const char *pq = url_path_query(argv[i]);
    char *path = strndup(pq, strcspn(pq, "#"));
    if (path == NULL) {
      fprintf(stderr, "robotscheck: %s\n", strerror(ENOMEM));
      status = 1;
      break;
    }
    printf("%s %s\n", robots_allowed(r, path) ? "allowed" : "disallowed",
           argv[i]);
    free(path);
  }
  robots_delete(r);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "robotscheck: cannot write output: %s\n", strerror(errno));
    status = 1;
  }
  return status;
}
