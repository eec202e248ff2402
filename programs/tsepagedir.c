/* tsepagedir: look at, check and convert a page directory (tsepagedir(1)).
 *
 * usage: tsepagedir list DIR | cat DIR ID | export DIR NEWDIR | check DIR
 *   list    one line a page: ID, depth and URL, tab-separated
 *   cat     page ID's file as a plain crawl saves it (decompressed)
 *   export  NEWDIR: the plain directory of DIR, byte for byte what the
 *           same crawl without --compress writes
 *   check   exit 0 for a finished, well-formed directory; else the
 *           first problem, named
 * Every command reads plain and compressed directories alike.
 * Exit: 0 success; 1 the directory (or a page) fails; 2 usage.
 * A thin program: the directory is common/pagedir's. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crawl.h"
#include "pagedir.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

static void usage(FILE *out)
{
  fprintf(out, "usage: tsepagedir list DIR\n"
               "       tsepagedir cat DIR ID\n"
               "       tsepagedir export DIR NEWDIR\n"
               "       tsepagedir check DIR\n"
               "Look at, check and convert a page directory that crawler(1) "
               "saved, plain or\n"
               "compressed (--compress).\n"
               "  list    print one line a page: ID, depth and URL, "
               "tab-separated\n"
               "  cat     print page ID's file as a plain crawl saves it: URL, "
               "depth, page\n"
               "  export  write NEWDIR (new, or an empty directory): the plain "
               "directory,\n"
               "          byte for byte what the crawl without --compress "
               "writes\n"
               "  check   exit 0 if DIR holds a finished, well-formed crawl; "
               "else name the\n"
               "          first problem\n"
               "  --help, -h     this text\n"
               "  --version, -V  the version\n"
               "Exit status: 0 success, 1 the directory or a page fails, 2 "
               "usage.\n");
}

static int fail(const char *what)
{
  fprintf(stderr, "tsepagedir: %s\n", what);
  return EXIT_FAIL;
}

/* flushed: exit status RC, or EXIT_FAIL if what was printed could not be
 * written (a full disk, a closed pipe). */
static int flushed(int rc)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "tsepagedir: cannot write: %s\n", strerror(errno));
    return EXIT_FAIL;
  }
  return rc;
}

static int cmd_list(const char *dir)
{
  int count = pagedir_count(dir);
  if (count < 0) {
    char err[1024];
    (void)pagedir_check(dir, err, sizeof(err)); /* names what is wrong */
    return fail(err);
  }
  for (int id = 1; id <= count; id++) {
    char *url;
    int depth;
    if (pagedir_load_head(dir, id, &url, &depth) != 0) {
      fprintf(stderr, "tsepagedir: '%s/%d' is not a well-formed page: %s\n",
              dir, id, strerror(errno));
      return EXIT_FAIL;
    }
    printf("%d\t%d\t%s\n", id, depth, url);
    free(url);
  }
  return flushed(0);
}

/* page_id: ARG as a page ID (decimal, 1 or more, no sign, no leading
 * zero, so that it names DIR/ARG and nothing else), or -1. */
static int page_id(const char *arg)
{
  if (arg[0] < '1' || arg[0] > '9')
    return -1;
  for (const char *p = arg; *p != '\0'; p++)
    if (!isdigit((unsigned char)*p))
      return -1;
  errno = 0;
  long id = strtol(arg, NULL, 10);
  return errno == 0 && id <= INT_MAX ? (int)id : -1;
}

static int cmd_cat(const char *dir, const char *arg)
{
  int id = page_id(arg);
  if (id < 0) {
    fprintf(stderr, "tsepagedir: '%s' is not a page ID (1, 2, 3 ...)\n", arg);
    return EXIT_USAGE;
  }
  int count = pagedir_count(dir);
  if (count < 0) {
    char err[1024];
    (void)pagedir_check(dir, err, sizeof(err));
    return fail(err);
  }
  if (id > count) {
    fprintf(stderr, "tsepagedir: '%s' has no page %d (it has %d)\n", dir, id,
            count);
    return EXIT_FAIL;
  }
  if (fflush(stdout) != 0 || pagedir_copy_plain(dir, arg, STDOUT_FILENO) != 0) {
    fprintf(stderr, "tsepagedir: cannot copy '%s/%s': %s\n", dir, arg,
            errno == EINVAL ? "damaged gzip stream" : strerror(errno));
    return EXIT_FAIL;
  }
  return 0;
}

static int cmd_check(const char *dir)
{
  char err[1024];
  int count = pagedir_check(dir, err, sizeof(err));
  if (count < 0)
    return fail(err);
  char *compress = pagedir_param(dir, "compress");
  printf("%s: %d page%s, %s, well-formed\n", dir, count, count == 1 ? "" : "s",
         compress != NULL && strcmp(compress, "yes") == 0 ? "compressed"
                                                          : "plain");
  free(compress);
  return flushed(0);
}

static int cmd_export(const char *dir, const char *newdir)
{
  char err[1024];
  int count = pagedir_export(dir, newdir, err, sizeof(err));
  if (count < 0)
    return fail(err);
  printf("%s: %d page%s exported to %s\n", dir, count, count == 1 ? "" : "s",
         newdir);
  return flushed(0);
}

int main(int argc, char *argv[])
{
  const char *cmd = argc > 1 ? argv[1] : "";
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("tsepagedir (tse-crawler) %s\n", CRAWL_VERSION);
    return 0;
  }
  if (strcmp(cmd, "list") == 0 && argc == 3)
    return cmd_list(argv[2]);
  if (strcmp(cmd, "cat") == 0 && argc == 4)
    return cmd_cat(argv[2], argv[3]);
  if (strcmp(cmd, "export") == 0 && argc == 4)
    return cmd_export(argv[2], argv[3]);
  if (strcmp(cmd, "check") == 0 && argc == 3)
    return cmd_check(argv[2]);
  if (argc > 1 && strcmp(cmd, "list") != 0 && strcmp(cmd, "cat") != 0 &&
      strcmp(cmd, "export") != 0 && strcmp(cmd, "check") != 0)
    fprintf(stderr, "tsepagedir: unknown command '%s'\n", cmd);
  usage(stderr);
  return EXIT_USAGE;
}
