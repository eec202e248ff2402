/* redishelp.h: a real redis-server for a test, never the system's.
 *
 * redis_start() runs Debian's redis-server on a free loopback port, in
 * a temporary directory of its own, with AOF persistence on (as the
 * README says to run it for a cluster crawl), and waits until it
 * answers; redis_stop() ends it (SIGTERM: it writes its AOF) and
 * redis_kill() kills it (SIGKILL); redis_restart() starts it again on
 * the same port and directory, so it comes back with what its AOF
 * holds, and redis_wipe() empties its directory first, so it comes back
 * empty. A test without redis-server installed is skipped (exit 77). */
#ifndef TESTS_REDISHELP_H
#define TESTS_REDISHELP_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct redis_srv {
  pid_t pid;
  int port;
  char dir[64];
  char url[64];
} redis_srv_t;

/* nap_ms: sleep MS milliseconds (a lease lapsing, a thread getting to
 * its blocking read). */
static void nap_ms(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

/* redis_free_port: a port nobody listens on now (the kernel's pick). */
static int redis_free_port(void)
{
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 ||
      getsockname(s, (struct sockaddr *)&a, &len) != 0) {
    if (s >= 0)
      close(s);
    return -1;
  }
  close(s);
  return ntohs(a.sin_port);
}

/* redis_up: whether something accepts connections on PORT. */
static int redis_up(int port)
{
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0;
  if (s >= 0)
    close(s);
  return ok;
}

static int redis_spawn(redis_srv_t *r)
{
  char port[16];
  snprintf(port, sizeof(port), "%d", r->port);
  r->pid = fork();
  if (r->pid == 0) {
    /* Never outlive the test, whatever ends it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execlp("redis-server", "redis-server", "--port", port, "--bind",
           "127.0.0.1", "--dir", r->dir, "--appendonly", "yes", "--save", "",
           "--daemonize", "no", "--loglevel", "warning", "--logfile",
           "redis.log", (char *)NULL);
    _exit(127);
  }
  if (r->pid < 0)
    return -1;
  for (int i = 0; i < 1000; i++) { /* 10 s at most */
    int st;
    /* Ours must be alive: something else on the port is not ours. */
    if (waitpid(r->pid, &st, WNOHANG) == r->pid) {
      r->pid = 0;
      return -1;
    }
    if (redis_up(r->port))
      return 0;
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  return -1;
}

/* redis_start: start a server; exit 77 (skip) if redis-server is not
 * installed, 1 if it does not come up. */
static void redis_start(redis_srv_t *r)
{
  if (system("command -v redis-server >/dev/null 2>&1") != 0) {
    fprintf(stderr, "redis-server is not installed\n");
    exit(77);
  }
  memset(r, 0, sizeof(*r));
  snprintf(r->dir, sizeof(r->dir), "/tmp/tse-redis-XXXXXX");
  if (mkdtemp(r->dir) == NULL || (r->port = redis_free_port()) < 0 ||
      redis_spawn(r) != 0) {
    fprintf(stderr, "could not start redis-server\n");
    exit(1);
  }
  snprintf(r->url, sizeof(r->url), "redis://127.0.0.1:%d", r->port);
}

static void redis_signal(redis_srv_t *r, int sig)
{
  if (r->pid > 0) {
    kill(r->pid, sig);
    waitpid(r->pid, NULL, 0);
    r->pid = 0;
  }
}

static void redis_stop(redis_srv_t *r)
{
  redis_signal(r, SIGTERM);
}

static void redis_kill(redis_srv_t *r)
{
  redis_signal(r, SIGKILL);
}

/* redis_restart: start R again on its port and directory. Returns 0. */
static int redis_restart(redis_srv_t *r)
{
  return redis_spawn(r);
}

/* redis_wipe: remove what the server persisted (it must be stopped). */
static void redis_wipe(redis_srv_t *r)
{
  char cmd[320];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'/appendonlydir '%s'/dump.rdb", r->dir,
           r->dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not wipe %s\n", r->dir);
}

/* redis_aof_keep: a copy of R's AOF as it is now: what a Redis that
 * crashes and loses everything after comes back with (redis_aof_back).
 * Returns 0. */
static int redis_aof_keep(redis_srv_t *r)
{
  char cmd[320];
  snprintf(cmd, sizeof(cmd),
           "rm -rf '%s/aofcopy' && cp -a '%s/appendonlydir' '%s/aofcopy'",
           r->dir, r->dir, r->dir);
  return system(cmd);
}

/* redis_aof_back: R crashes (SIGKILL) and comes back from the copy
 * redis_aof_keep made, as a Redis that lost its last second does.
 * Returns 0. */
static int redis_aof_back(redis_srv_t *r)
{
  redis_kill(r);
  char cmd[320];
  snprintf(cmd, sizeof(cmd),
           "rm -rf '%s/appendonlydir' && cp -a '%s/aofcopy' '%s/appendonlydir'",
           r->dir, r->dir, r->dir);
  if (system(cmd) != 0)
    return -1;
  return redis_restart(r);
}

/* redis_flushall: R comes back empty without a restart (FLUSHALL).
 * Returns 0. */
static int redis_flushall(redis_srv_t *r)
{
  char cmd[96];
  snprintf(cmd, sizeof(cmd), "redis-cli -p %d FLUSHALL >/dev/null", r->port);
  return system(cmd);
}

/* redis_cleanup: stop R and remove its directory. */
static void redis_cleanup(redis_srv_t *r)
{
  redis_stop(r);
  char cmd[160];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", r->dir);
}

#endif /* TESTS_REDISHELP_H */
