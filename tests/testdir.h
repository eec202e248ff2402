/* testdir.h: temporary directories for unit tests (static inline
 * functions, no library, like testhelp.h).
 *
 *   char *d = testdir_new("mytest");   $TMPDIR/mytest.XXXXXX, made empty
 *   ...
 *   testdir_remove(d);                 its files, itself, and frees d
 *
 * A directory that cannot be made ends the test program (exit 1): there is
 * nothing to test without it. Thread-safety: any thread. */
#ifndef TESTS_TESTDIR_H
#define TESTS_TESTDIR_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* testdir_new: a new empty directory named after NAME (borrowed) under
 * $TMPDIR (else /tmp); returned owned (testdir_remove, or free()). */
static inline char *testdir_new(const char *name)
{
  const char *tmp = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.XXXXXX",
           tmp != NULL && *tmp != '\0' ? tmp : "/tmp", name);
  char *dir = mkdtemp(path) != NULL ? strdup(path) : NULL;
  if (dir == NULL) {
    fprintf(stderr, "cannot create '%s': %s\n", path, strerror(errno));
    exit(1);
  }
  return dir;
}

/* testdir_remove: DIR's files (it must have no subdirectories), then DIR
 * itself; frees DIR. */
static inline void testdir_remove(char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d != NULL && (de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    unlink(path);
  }
  if (d != NULL)
    closedir(d);
  rmdir(dir);
  free(dir);
}

#endif /* TESTS_TESTDIR_H */
