/* fuzz_replay.c: replay the fuzz inputs kept in the tree through the entry
 * functions of fuzz_targets.c, for a regression test in the ordinary build
 * (tests/unit/common/fuzz_regress_test.c and tests/unit/web/
 * fuzz_regress_warc_test.c #include this file; define
 * FUZZ_WITH_CRAWLER first for the crawler-layer targets).
 *
 * Inputs: every file of $TOP/tests/fuzz/regressions/<target>/ (inputs that
 * once crashed or broke an invariant) and of $TOP/tests/fuzz/corpus/
 * <target>/ (the seeds), names starting with '.' skipped. TOP comes from
 * the environment (tests/run.sh exports it); without it, the current
 * directory is taken as the top. Missing or empty directories pass.
 * One thread only (fuzz_targets.c is not thread-safe). */
#include "fuzz_targets.c"

#include <errno.h>
#include <sys/stat.h>

#include "testhelp.h"

static const char *replay_top;

/* replay_read: the whole of PATH, malloc'd (NULL-safe for size 0). */
static uint8_t *replay_read(const char *path, size_t *len)
{
  FILE *fp = fopen(path, "rb");
  if (fp == NULL)
    return NULL;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 4096;
      uint8_t *b = realloc(buf, cap);
      if (b == NULL) {
        free(buf);
        fclose(fp);
        return NULL;
      }
      buf = b;
    }
    size_t r = fread(buf + n, 1, cap - n, fp);
    n += r;
    if (r == 0)
      break;
  }
  int bad = ferror(fp);
  fclose(fp);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* replay_dir: feed every file of TOP/tests/fuzz/KIND/<t's name> to t. */
static void replay_dir(const char *kind, const struct fuzz_target *t)
{
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s/%s", replay_top, kind, t->name);
  DIR *d = opendir(dir);
  if (d == NULL) {
    CHECK(errno == ENOENT); /* a missing directory is an empty one */
    return;
  }
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    size_t len = 0;
    uint8_t *data = replay_read(path, &len);
    CHECK(data != NULL || len == 0);
    if (data == NULL)
      continue;
    int rc = t->fn(data, len);
    if (rc != 0)
      fprintf(stderr, "fuzz_regress: %s failed on %s\n", t->name, path);
    CHECK_INT(rc, 0);
    free(data);
    n++;
  }
  closedir(d);
  fprintf(stderr, "fuzz_regress: %s: %d %s inputs\n", t->name, n, kind);
}

/* replay: the regressions, then the corpus, of target NAME. */
static void replay(const char *name)
{
  if (replay_top == NULL) {
    replay_top = getenv("TOP");
    if (replay_top == NULL || *replay_top == '\0')
      replay_top = "."; /* run by hand from the top of the tree */
  }
  for (size_t i = 0; i < sizeof(fuzz_targets) / sizeof(fuzz_targets[0]); i++)
    if (strcmp(fuzz_targets[i].name, name) == 0) {
      replay_dir("regressions", &fuzz_targets[i]);
      replay_dir("corpus", &fuzz_targets[i]);
      return;
    }
  CHECK(!"unknown fuzz target");
}
