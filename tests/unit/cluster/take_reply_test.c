/* take_reply_test.c: a take's reply names each item's partition as a
 * string. cstate_take kept atoi() of it unchecked (cstate_queue.c,
 * it->part); the feeder makes it the ticket's part, and cl_admit,
 * cl_ticket_done and the publisher index c->parts[] with it: a
 * malformed or hostile reply (a partition "100000000") was a wild read
 * and write (review). A partition the take did not ask for is now a
 * reply not this crawler's (CRAWL_ELOST). A fake Redis answers here. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cstate.h"
#include "testhelp.h"

static int lfd, port;

static int rd_line(int fd, char *buf, size_t n)
{
  size_t i = 0;
  char ch;
  while (i + 1 < n && read(fd, &ch, 1) == 1) {
    buf[i++] = ch;
    if (ch == '\n')
      break;
  }
  buf[i] = '\0';
  return (int)i;
}

static void say(int fd, const char *s)
{
  if (write(fd, s, strlen(s)) < 0)
    return;
}

static void *server(void *arg)
{
  (void)arg;
  int fd = accept(lfd, NULL, NULL);
  char line[4096], args[8][256];
  for (;;) {
    if (rd_line(fd, line, sizeof(line)) <= 0 || line[0] != '*')
      break;
    int argc = atoi(line + 1);
    for (int i = 0; i < argc; i++) {
      rd_line(fd, line, sizeof(line));
      int len = atoi(line + 1);
      char *b = malloc((size_t)len + 2);
      size_t got = 0;
      while (got < (size_t)len + 2) {
        ssize_t k = read(fd, b + got, (size_t)len + 2 - got);
        if (k <= 0)
          break;
        got += (size_t)k;
      }
      if (i < 8)
        snprintf(args[i], sizeof(args[i]), "%.*s", len < 255 ? len : 255, b);
      free(b);
    }
    if (!strcasecmp(args[0], "PING"))
      say(fd, "+PONG\r\n");
    else if (!strcasecmp(args[0], "CLIENT"))
      say(fd, ":7\r\n");
    else if (!strcasecmp(args[0], "HGET"))
      say(fd, "$1\r\nx\r\n");
    else if (!strcasecmp(args[0], "SCRIPT"))
      say(fd, "$40\r\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    else if (!strcasecmp(args[0], "EVALSHA")) {
      const char *item = "5 1 http://h.test:80 http://h.test/";
      char rep[512];
      snprintf(rep, sizeof(rep),
               "*4\r\n*2\r\n$9\r\n100000000\r\n*1\r\n*2\r\n$3\r\n1-1\r\n"
               "*2\r\n$1\r\ni\r\n$%zu\r\n%s\r\n*0\r\n*0\r\n*0\r\n",
               strlen(item), item);
      say(fd, rep);
    } else
      say(fd, "-ERR unknown\r\n");
  }
  close(fd);
  return NULL;
}

static void test_take_part_not_asked(void)
{
  lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET };
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  CHECK(bind(lfd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        listen(lfd, 4) == 0 &&
        getsockname(lfd, (struct sockaddr *)&a, &len) == 0);
  port = ntohs(a.sin_port);
  pthread_t th;
  CHECK_INT(pthread_create(&th, NULL, server, NULL), 0);
  char url[64], err[256];
  snprintf(url, sizeof(url), "redis://127.0.0.1:%d", port);
  cstate_t *cs = NULL;
  CHECK_INT(cstate_open(url, "fake", &cs, err, sizeof(err)), CRAWL_OK);
  if (cs == NULL)
    return;
  cstate_hold_t h = { .part = 3, .token = 1 };
  cstate_item_t *v = NULL;
  int n = cstate_take(cs, &h, 1, "w1", false, 10, &v);
  printf("# %d: %s\n", n, cstate_error(cs));
  CHECK_INT(n, CRAWL_ELOST);
  CHECK(v == NULL);
  if (n > 0)
    cstate_items_free(v, (size_t)n);
  cstate_close(cs);
  pthread_join(th, NULL);
  close(lfd);
}

int main(void)
{
  RUN(test_take_part_not_asked);
  return TEST_EXIT();
}
