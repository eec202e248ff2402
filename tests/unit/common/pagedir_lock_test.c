/* pagedir_lock_test.c: unit tests for pagedir_lock and pagedir_unlock:
 * one holder at a time, also when the holder lets go (pagedir_unlock
 * unlinks .lock, then closes it) while another process is between
 * opening .lock and locking it.
 *
 * fcntl locks belong to processes, so the other party is a child process
 * (fork), driven through two pipes. To run the holder's unlock exactly in
 * the window, between our open() and our fcntl(F_SETLK), fcntl is wrapped
 * (-Wl,--wrap=fcntl, tests/Makefile): armed, the wrapper has the child act
 * before the real fcntl runs. */
#include "pagedir.h"

#include "../../testdir.h"
#include "../../testhelp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int __real_fcntl(int fd, int cmd, ...);
int __wrap_fcntl(int fd, int cmd, ...);

/* The child: its process id and the pipes to and from it. */
static pid_t child = -1;
static int to_child = -1, from_child = -1;

/* armed: the next F_SETLK first sends this command to the child and waits
 * for its answer (kept in hook_reply); then it runs. */
static char armed;
static char hook_reply;

static void send_cmd(int fd, char c)
{
  if (write(fd, &c, 1) != 1) {
    fprintf(stderr, "pagedir_lock_test: pipe write: %s\n", strerror(errno));
    exit(1);
  }
}

static char recv_cmd(int fd)
{
  char c;
  if (read(fd, &c, 1) != 1)
    return '?';
  return c;
}

int __wrap_fcntl(int fd, int cmd, ...)
{
  va_list ap;
  va_start(ap, cmd);
  int rc;
  if (cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK) {
    struct flock *fl = va_arg(ap, struct flock *);
    if (cmd == F_SETLK && armed) {
      char c = armed;
      armed = 0;
      send_cmd(to_child, c);
      hook_reply = recv_cmd(from_child);
    }
    rc = __real_fcntl(fd, cmd, fl);
  } else if (cmd == F_GETFD || cmd == F_GETFL) {
    rc = __real_fcntl(fd, cmd);
  } else {
    rc = __real_fcntl(fd, cmd, va_arg(ap, int));
  }
  va_end(ap);
  return rc;
}

/* The child's side. Commands: 'L' lock (answers 'L' if it got the lock,
 * else 'E'), 'S' the same with pagedir_lock_shared, 'V' unlock it, 'U' unlock
 * (answers 'U'), 'R' unlock and lock again, as a crawler that ends and a
 * newcomer (answers as 'L'), 'X' exit. */
static void child_main(const char *dir, int in, int out)
{
  int fd = -1;
  for (;;) {
    char c = recv_cmd(in);
    if (c == 'V') { /* a shared holder lets go */
      pagedir_unlock_shared(fd);
      fd = -1;
      send_cmd(out, 'U');
      continue;
    }
    if (c == 'U' || c == 'R') {
      pagedir_unlock(dir, fd);
      fd = -1;
      if (c == 'U') {
        send_cmd(out, 'U');
        continue;
      }
    }
    if (c == 'L' || c == 'R' || c == 'S') {
      fd = c == 'S' ? pagedir_lock_shared(dir) : pagedir_lock(dir);
      send_cmd(out, fd >= 0 ? 'L' : 'E');
      continue;
    }
    _exit(0); /* 'X', or the parent is gone */
  }
}

static void child_start(const char *dir)
{
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) {
    fprintf(stderr, "pagedir_lock_test: pipe: %s\n", strerror(errno));
    exit(1);
  }
  fflush(stdout);
  fflush(stderr);
  child = fork();
  if (child < 0) {
    fprintf(stderr, "pagedir_lock_test: fork: %s\n", strerror(errno));
    exit(1);
  }
  if (child == 0) {
    close(a[1]);
    close(b[0]);
    child_main(dir, a[0], b[1]);
  }
  close(a[0]);
  close(b[1]);
  to_child = a[1];
  from_child = b[0];
}

static char child_do(char c)
{
  send_cmd(to_child, c);
  return recv_cmd(from_child);
}

static void child_stop(void)
{
  send_cmd(to_child, 'X');
  waitpid(child, NULL, 0);
  close(to_child);
  close(from_child);
  child = -1;
}

/* One holder: the other process is refused while it holds the lock, and
 * gets it once it lets go. */
static void test_exclusive(void)
{
  char *dir = testdir_new("pagedir_lock_test");
  child_start(dir);
  CHECK_INT(child_do('L'), 'L');
  errno = 0;
  int fd = pagedir_lock(dir);
  CHECK_INT(fd, -1);
  CHECK_INT(errno, EAGAIN);
  CHECK_INT(child_do('U'), 'U');
  fd = pagedir_lock(dir);
  CHECK(fd >= 0);
  CHECK_INT(child_do('L'), 'E');
  pagedir_unlock(dir, fd);
  child_stop();
  testdir_remove(dir);
}

/* We open .lock; before we lock it, its holder unlocks (unlinks it, then
 * closes it) and a newcomer locks a fresh .lock. Our lock on the old,
 * unlinked file must not count: the newcomer holds the directory. */
static void test_holder_leaves_newcomer_locks(void)
{
  char *dir = testdir_new("pagedir_lock_test");
  child_start(dir);
  CHECK_INT(child_do('L'), 'L');
  armed = 'R';
  errno = 0;
  int fd = pagedir_lock(dir);
  CHECK_INT(hook_reply, 'L'); /* the newcomer has the fresh .lock */
  CHECK_INT(fd, -1);          /* so we must not have it too */
  CHECK_INT(errno, EAGAIN);
  if (fd >= 0)
    close(fd); /* not pagedir_unlock: the .lock is the child's */
  child_stop();
  testdir_remove(dir);
}

/* As above, with no newcomer: the lock we get must be on the .lock at the
 * path, so that the next comer is refused. */
static void test_holder_leaves(void)
{
  char *dir = testdir_new("pagedir_lock_test");
  child_start(dir);
  CHECK_INT(child_do('L'), 'L');
  armed = 'U';
  int fd = pagedir_lock(dir);
  CHECK_INT(hook_reply, 'U');
  CHECK(fd >= 0);
  CHECK_INT(child_do('L'), 'E'); /* the next comer is refused */
  pagedir_unlock(dir, fd);
  child_stop();
  testdir_remove(dir);
}

/* Shared holders (the workers of a --cluster crawl): any number at once,
 * no pagedir_lock meanwhile, pagedir_holder names one; letting go leaves
 * .lock, which the next pagedir_lock takes. */
static void test_shared(void)
{
  char *dir = testdir_new("pagedir_lock_test");
  char *path = malloc(strlen(dir) + 16);
  sprintf(path, "%s/.lock", dir);
  struct stat sb;
  child_start(dir);
  CHECK_INT(child_do('S'), 'L');
  errno = 0;
  CHECK_INT(pagedir_lock(dir), -1);
  CHECK_INT(errno, EAGAIN);
  long pid = 0;
  CHECK_INT(pagedir_holder(dir, &pid), 1);
  CHECK_INT(pid, child);
  int fd = pagedir_lock_shared(dir);
  CHECK(fd >= 0);
  CHECK_INT(child_do('V'), 'U');
  CHECK_INT(stat(path, &sb), 0); /* ours still holds it */
  CHECK_INT(child_do('L'), 'E');
  CHECK_INT(child_do('S'), 'L'); /* shared again, beside ours */
  pagedir_unlock_shared(fd);
  CHECK_INT(child_do('V'), 'U');
  CHECK_INT(stat(path, &sb), 0);           /* left in place */
  CHECK_INT(child_do('L'), 'L');           /* and taken by a write lock */
  CHECK_INT(pagedir_lock_shared(dir), -1); /* a write lock refuses it */
  child_stop();
  free(path);
  testdir_remove(dir);
}

int main(void)
{
  RUN(test_exclusive);
  RUN(test_holder_leaves_newcomer_locks);
  RUN(test_holder_leaves);
  RUN(test_shared);
  return TEST_EXIT();
}
