/* delayserver.c: a static file server that delays every response, to give
 * loopback benchmarks the latency of the real web.
 *
 * usage: delayserver --port P --delay-ms D --root DIR [--log FILE]
 *                    [--lifetime SECONDS] ADDR...
 *
 * Listens on every ADDR (IPv4, 127.0.0.0/8 only; anything else is refused)
 * at port P and serves GET/HEAD from DIR/ADDR/ (a request for ".../" serves
 * ".../index.html"; ".." segments get 404). Every response, 200 or 404,
 * is sent D milliseconds after its request arrived. HTTP/1.1 keep-alive
 * and pipelining; one thread per connection. Content-Type from the
 * extension (html, txt, png, pdf; else application/octet-stream).
 * --log FILE: one line per request, "SECONDS.MILLIS ADDR PATH STATUS".
 * Exits by itself after --lifetime seconds (default 900), or on SIGTERM. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ADDRS 64
#define REQ_MAX 16384

static const char *root;
static long delay_ms = 20;
static FILE *log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
  int fd;
  char addr[INET_ADDRSTRLEN];
} listener_t;

typedef struct {
  int fd;
  const char *addr;
} conn_t;

static void sleep_ms(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static int send_all(int fd, const char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static const char *ctype(const char *path)
{
  const char *dot = strrchr(path, '.');
  if (dot == NULL || strchr(dot, '/') != NULL)
    return "application/octet-stream";
  if (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0)
    return "text/html";
  if (strcmp(dot, ".txt") == 0)
    return "text/plain";
  if (strcmp(dot, ".png") == 0)
    return "image/png";
  if (strcmp(dot, ".pdf") == 0)
    return "application/pdf";
  return "application/octet-stream";
}

/* Read file DIR/addr/path into a malloc'd buffer; NULL if absent. */
static char *load(const char *addr, const char *path, size_t *len)
{
  if (path[0] != '/' || strstr(path, "/../") != NULL ||
      (strlen(path) >= 3 && strcmp(path + strlen(path) - 3, "/..") == 0))
    return NULL;
  char full[4096];
  int n = snprintf(full, sizeof full, "%s/%s%s%s", root, addr, path,
                   path[strlen(path) - 1] == '/' ? "index.html" : "");
  if (n < 0 || (size_t)n >= sizeof full)
    return NULL;
  struct stat st;
  if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
    return NULL;
  FILE *f = fopen(full, "rb");
  if (f == NULL)
    return NULL;
  char *buf = malloc((size_t)st.st_size + 1);
  size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (buf == NULL || got != (size_t)st.st_size) {
    free(buf);
    return NULL;
  }
  *len = got;
  return buf;
}

/* Find header NAME (case-insensitive) in the header block; its value's
 * first LEN bytes compared with VALUE, case-insensitively. */
static int header_is(const char *hdrs, const char *name, const char *value)
{
  size_t nl = strlen(name);
  for (const char *p = strstr(hdrs, "\r\n"); p != NULL;
       p = strstr(p + 2, "\r\n")) {
    const char *h = p + 2;
    if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
      h += nl + 1;
      while (*h == ' ' || *h == '\t')
        h++;
      return strncasecmp(h, value, strlen(value)) == 0;
    }
  }
  return 0;
}

static void *serve(void *arg)
{
  conn_t *c = arg;
  char *buf = malloc(REQ_MAX + 1);
  size_t have = 0;
  while (buf != NULL) {
    char *end;
    while ((buf[have] = 0, end = strstr(buf, "\r\n\r\n")) == NULL) {
      if (have >= REQ_MAX)
        goto out;
      ssize_t r = recv(c->fd, buf + have, REQ_MAX - have, 0);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        goto out;
      have += (size_t)r;
    }
    struct timespec t0;
    clock_gettime(CLOCK_REALTIME, &t0);
    *end = 0;
    size_t reqlen = (size_t)(end - buf) + 4;
    char method[8], target[4096], version[16];
    if (sscanf(buf, "%7s %4095s %15s", method, target, version) != 3)
      goto out;
    int head = strcmp(method, "HEAD") == 0;
    int keep = strcmp(version, "HTTP/1.1") == 0
               ? !header_is(buf, "Connection", "close")
               : header_is(buf, "Connection", "keep-alive");
    target[strcspn(target, "?#")] = 0;
    size_t blen = 0;
    char *body = NULL;
    if (strcmp(method, "GET") == 0 || head)
      body = load(c->addr, target, &blen);
    int status = body ? 200 : 404;
    if (body == NULL) {
      static const char nf[] = "<html><body>404 Not Found</body></html>\n";
      body = strdup(nf);
      blen = sizeof nf - 1;
    }
    char hdr[512];
    int hl = snprintf(hdr, sizeof hdr,
                      "HTTP/1.1 %s\r\nServer: delayserver\r\n"
                      "Content-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
                      status == 200 ? "200 OK" : "404 Not Found",
                      status == 200 ? ctype(target) : "text/html", blen,
                      keep ? "" : "Connection: close\r\n");
    /* The delay counts from the request's arrival. */
    struct timespec t1;
    clock_gettime(CLOCK_REALTIME, &t1);
    long spent = (t1.tv_sec - t0.tv_sec) * 1000 +
                 (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (spent < delay_ms)
      sleep_ms(delay_ms - spent);
    /* Header and body in one send: two small writes would meet Nagle's
     * algorithm and the client's delayed ACK (40 ms more). */
    size_t out_len = (size_t)hl + (head ? 0 : blen);
    char *resp = malloc(out_len);
    int bad = resp == NULL;
    if (!bad) {
      memcpy(resp, hdr, (size_t)hl);
      if (!head)
        memcpy(resp + hl, body, blen);
      bad = send_all(c->fd, resp, out_len) != 0;
      free(resp);
    }
    free(body);
    if (log_file != NULL) {
      pthread_mutex_lock(&log_lock);
      fprintf(log_file, "%ld.%03ld %s %s %d\n", (long)t0.tv_sec,
              t0.tv_nsec / 1000000, c->addr, target, status);
      fflush(log_file);
      pthread_mutex_unlock(&log_lock);
    }
    if (bad || !keep)
      goto out;
    memmove(buf, buf + reqlen, have - reqlen);
    have -= reqlen;
  }
out:
  free(buf);
  close(c->fd);
  free(c);
  return NULL;
}

static void *accept_loop(void *arg)
{
  listener_t *l = arg;
  for (;;) {
    int fd = accept(l->fd, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
        continue;
      return NULL;
    }
    conn_t *c = malloc(sizeof *c);
    pthread_t t;
    if (c == NULL) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->addr = l->addr;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    if (pthread_create(&t, &at, serve, c) != 0) {
      close(fd);
      free(c);
    }
    pthread_attr_destroy(&at);
  }
}

int main(int argc, char **argv)
{
  int port = 0;
  long lifetime = 900;
  listener_t ls[MAX_ADDRS];
  int nl = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
      port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc)
      delay_ms = atol(argv[++i]);
    else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
      root = argv[++i];
    else if (strcmp(argv[i], "--lifetime") == 0 && i + 1 < argc)
      lifetime = atol(argv[++i]);
    else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
      log_file = fopen(argv[++i], "a");
      if (log_file == NULL) {
        perror(argv[i]);
        return 1;
      }
    } else if (nl < MAX_ADDRS) {
      struct sockaddr_in sa;
      memset(&sa, 0, sizeof sa);
      sa.sin_family = AF_INET;
      if (inet_pton(AF_INET, argv[i], &sa.sin_addr) != 1 ||
          (ntohl(sa.sin_addr.s_addr) >> 24) != 127) {
        fprintf(stderr, "delayserver: %s: not a 127.0.0.0/8 address\n",
                argv[i]);
        return 1;
      }
      snprintf(ls[nl].addr, sizeof ls[nl].addr, "%s", argv[i]);
      nl++;
    }
  }
  if (port <= 0 || root == NULL || nl == 0) {
    fprintf(stderr, "usage: delayserver --port P --delay-ms D --root DIR "
                    "[--log FILE] [--lifetime S] ADDR...\n");
    return 1;
  }
  for (int i = 0; i < nl; i++) {
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    inet_pton(AF_INET, ls[i].addr, &sa.sin_addr);
    int one = 1;
    ls[i].fd = socket(AF_INET, SOCK_STREAM, 0);
    if (ls[i].fd < 0 ||
        setsockopt(ls[i].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(ls[i].fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(ls[i].fd, 1024) != 0) {
      fprintf(stderr, "delayserver: %s:%d: %s\n", ls[i].addr, port,
              strerror(errno));
      return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, accept_loop, &ls[i]) != 0)
      return 1;
    pthread_detach(t);
  }
  sleep_ms(lifetime * 1000);
  return 0;
}
