/* delayserver.c: a static file server that delays every response, to give
 * loopback benchmarks and tests the latency of the real web, on as many
 * hosts as they need.
 *
 * usage: delayserver --port P [--ports N] --delay-ms D --root DIR
 *                    [--vhosts] [--log FILE] [--lifetime SECONDS] ADDR...
 *
 * Listens on every ADDR (IPv4, 127.0.0.0/8 only; anything else is refused)
 * at ports P to P+N-1 (N defaults to 1): every (ADDR, port) pair is a host
 * of its own to a crawler. Serves GET/HEAD from DIR/ADDR:PORT/ when that
 * directory exists, else from DIR/ADDR/ (so many ports can share one tree);
 * a request for ".../" serves ".../index.html"; ".." segments get 404.
 * Every response, 200 or 404, is sent D milliseconds after its request
 * arrived. HTTP/1.1 keep-alive and pipelining (one request of a connection
 * at a time). Content-Type from the extension (html, txt, png, pdf; else
 * application/octet-stream).
 * --vhosts: hosts by name, as one server (or an HTTP proxy) of many
 * names: a request's host is the NAME of an absolute-form target
 * ("GET http://NAME[:PORT]/PATH", what a client sends to an HTTP proxy,
 * e.g. libcurl with http_proxy=http://ADDR:P/), else of its Host header,
 * port dropped, lowercased; the file is DIR/NAME/PATH when the directory
 * DIR/NAME exists, else DIR/_common/PATH (one tree shared by every name
 * without one of its own; "_" is in no host name). A NAME of other than
 * letters, digits, '-' and '.' (or starting with '.'), or none, gets
 * 404. The listening address and port play no part.
 * --log FILE: one line per response, "START END ADDR:PORT PATH STATUS"
 * (with --vhosts "START END NAME PATH STATUS", PATH without the host,
 * NAME "-" for none or a bad one),
 * START when the request had arrived whole and END when its response was
 * handed to the kernel, both seconds since the epoch with microseconds: a
 * request is in flight from START to END, so the log tells how many were
 * in flight at once (tests/integration/inflight.sh).
 * Exits by itself after --lifetime seconds (default 900), or on SIGTERM.
 *
 * One thread, epoll, non-blocking sockets: thousands of listening ports and
 * connections cost a descriptor each, not a thread. Since every response
 * waits the same D, responses fall due in the order their requests
 * arrived, so the timer is a FIFO queue, not a heap. The soft limit on open
 * files is raised to the hard one. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ADDRS 64
#define MAX_PORTS 4096
#define REQ_MAX 16384

static const char *root;
static long delay_ms = 20;
static FILE *log_file;
static int ep;
static bool vhosts; /* --vhosts: the tree by the request's host name */

typedef struct {
  int fd;
  int port;
  char addr[INET_ADDRSTRLEN];
} listener_t;

enum { READING, WAITING, WRITING };

typedef struct conn {
  int fd;
  const listener_t *l;
  int state;
  bool dead; /* closed by the peer while WAITING: freed when due */
  char *buf; /* the request bytes received, NUL-terminated */
  size_t have;
  char *out; /* the response, from when the request is parsed */
  size_t out_len, out_off;
  bool keep;
  int status;
  char target[4096];
  char host[256];     /* --vhosts: the request's host name, "" if none */
  double due;         /* monotonic, when the response may go */
  struct timespec t0; /* realtime, when the request had arrived */
  struct conn *qnext; /* in the FIFO of WAITING connections */
} conn_t;

static conn_t *qhead, *qtail;

static double mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

/* Read file DIR/ADDR:PORT/path (or DIR/ADDR/path; with --vhosts
 * DIR/HOST/path or DIR/_common/path) into a malloc'd buffer of HL spare
 * bytes in front; NULL if absent. */
static char *load(const listener_t *l, const char *host, const char *path,
                  size_t hl, size_t *len)
{
  if (path[0] != '/' || strstr(path, "/../") != NULL ||
      (strlen(path) >= 3 && strcmp(path + strlen(path) - 3, "/..") == 0))
    return NULL;
  if (vhosts && host[0] == 0)
    return NULL;
  const char *index = path[strlen(path) - 1] == '/' ? "index.html" : "";
  char full[4096], dir[4096];
  struct stat st;
  int n = vhosts
          ? snprintf(dir, sizeof dir, "%s/%s", root, host)
          : snprintf(dir, sizeof dir, "%s/%s:%d", root, l->addr, l->port);
  if (n < 0 || (size_t)n >= sizeof dir || stat(dir, &st) != 0)
    n = vhosts ? snprintf(dir, sizeof dir, "%s/_common", root)
               : snprintf(dir, sizeof dir, "%s/%s", root, l->addr);
  if (n < 0 || (size_t)n >= sizeof dir)
    return NULL;
  n = snprintf(full, sizeof full, "%s%s%s", dir, path, index);
  if (n < 0 || (size_t)n >= sizeof full)
    return NULL;
  if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
    return NULL;
  FILE *f = fopen(full, "rb");
  if (f == NULL)
    return NULL;
  char *buf = malloc(hl + (size_t)st.st_size + 1);
  size_t got = buf ? fread(buf + hl, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (buf == NULL || got != (size_t)st.st_size) {
    free(buf);
    return NULL;
  }
  *len = got;
  return buf;
}

/* Find header NAME (case-insensitive) in the header block; its value's
 * first bytes compared with VALUE, case-insensitively. */
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

/* host_name: C's request's host (--vhosts) into C->host, "" if it has
 * none or a bad one; an absolute-form C->target ("http://NAME[:PORT]/P")
 * becomes its path "/P". HDRS: the request's header block. */
static void host_name(conn_t *c, const char *hdrs)
{
  const char *h = NULL;
  size_t hl = 0;
  c->host[0] = 0;
  if (strncasecmp(c->target, "http://", 7) == 0) {
    h = c->target + 7;
    hl = strcspn(h, "/");
  } else {
    for (const char *p = strstr(hdrs, "\r\n"); p != NULL && h == NULL;
         p = strstr(p + 2, "\r\n"))
      if (strncasecmp(p + 2, "Host:", 5) == 0) {
        h = p + 7;
        h += strspn(h, " \t");
        hl = strcspn(h, " \t\r");
      }
  }
  if (h == NULL)
    return;
  size_t nl = strcspn(h, ":");
  if (nl > hl)
    nl = hl;
  bool good = nl > 0 && nl < sizeof c->host && h[0] != '.';
  for (size_t i = 0; good && i < nl; i++) {
    unsigned char ch = (unsigned char)h[i];
    good = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
    c->host[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
  }
  c->host[good ? nl : 0] = 0;
  if (h == c->target + 7) {
    const char *path = h + hl;
    memmove(c->target, path[0] ? path : "/", strlen(path[0] ? path : "/") + 1);
  }
}

static void watch(conn_t *c, int op, unsigned events)
{
  struct epoll_event ev = { .events = events, .data.ptr = c };
  epoll_ctl(ep, op, c->fd, &ev);
}

static void conn_free(conn_t *c)
{
  close(c->fd); /* also leaves the epoll set */
  free(c->buf);
  free(c->out);
  free(c);
}

/* parse: if C's buffer holds a whole request, build its response and
 * queue C until it is due. Returns -1 on a bad request, 0 otherwise. */
static int parse(conn_t *c)
{
  char *end = strstr(c->buf, "\r\n\r\n");
  if (end == NULL)
    return c->have >= REQ_MAX ? -1 : 0;
  clock_gettime(CLOCK_REALTIME, &c->t0);
  c->due = mono_now() + delay_ms / 1000.0;
  *end = 0;
  size_t reqlen = (size_t)(end - c->buf) + 4;
  char method[8], version[16];
  if (sscanf(c->buf, "%7s %4095s %15s", method, c->target, version) != 3)
    return -1;
  int head = strcmp(method, "HEAD") == 0;
  c->keep = strcmp(version, "HTTP/1.1") == 0
            ? !header_is(c->buf, "Connection", "close")
            : header_is(c->buf, "Connection", "keep-alive");
  if (vhosts)
    host_name(c, c->buf);
  c->target[strcspn(c->target, "?#")] = 0;
  enum { HL = 512 };
  size_t blen = 0;
  char *resp = NULL;
  if (strcmp(method, "GET") == 0 || head)
    resp = load(c->l, c->host, c->target, HL, &blen);
  c->status = resp ? 200 : 404;
  if (resp == NULL) {
    static const char nf[] = "<html><body>404 Not Found</body></html>\n";
    blen = sizeof nf - 1;
    resp = malloc(HL + blen);
    if (resp == NULL)
      return -1;
    memcpy(resp + HL, nf, blen);
  }
  char hdr[HL];
  int hl = snprintf(hdr, sizeof hdr,
                    "HTTP/1.1 %s\r\nServer: delayserver\r\n"
                    "Content-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
                    c->status == 200 ? "200 OK" : "404 Not Found",
                    c->status == 200 ? ctype(c->target) : "text/html", blen,
                    c->keep ? "" : "Connection: close\r\n");
  /* Header and body in one send: two small writes would meet Nagle's
   * algorithm and the client's delayed ACK (40 ms more). */
  memcpy(resp + HL - hl, hdr, (size_t)hl);
  memmove(resp, resp + HL - hl, (size_t)hl + (head ? 0 : blen));
  c->out = resp;
  c->out_len = (size_t)hl + (head ? 0 : blen);
  c->out_off = 0;
  memmove(c->buf, c->buf + reqlen, c->have - reqlen + 1);
  c->have -= reqlen;
  c->state = WAITING;
  /* Nothing to read meanwhile: a pipelined request waits in the socket
   * (level-triggered, it would wake us for nothing until then). */
  watch(c, EPOLL_CTL_MOD, 0);
  c->qnext = NULL;
  if (qtail != NULL)
    qtail->qnext = c;
  else
    qhead = c;
  qtail = c;
  return 0;
}

/* readable: take what C's socket holds; parse a whole request. */
static void readable(conn_t *c)
{
  for (;;) {
    ssize_t r = recv(c->fd, c->buf + c->have, REQ_MAX - c->have, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (r <= 0) {
      conn_free(c);
      return;
    }
    c->have += (size_t)r;
    c->buf[c->have] = 0;
    if (c->have >= REQ_MAX || strstr(c->buf, "\r\n\r\n") != NULL)
      break;
  }
  if (parse(c) != 0)
    conn_free(c);
}

static void log_line(const conn_t *c)
{
  if (log_file == NULL)
    return;
  struct timespec t1;
  clock_gettime(CLOCK_REALTIME, &t1);
  char where[INET_ADDRSTRLEN + 8];
  const char *who = where;
  if (vhosts)
    who = c->host[0] ? c->host : "-";
  else
    snprintf(where, sizeof where, "%s:%d", c->l->addr, c->l->port);
  fprintf(log_file, "%ld.%06ld %ld.%06ld %s %s %d\n", (long)c->t0.tv_sec,
          c->t0.tv_nsec / 1000, (long)t1.tv_sec, t1.tv_nsec / 1000, who,
          c->target, c->status);
  fflush(log_file);
}

/* writable: send what is left of C's response; then the next request. */
static void writable(conn_t *c)
{
  while (c->out_off < c->out_len) {
    ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                     MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (c->state != WRITING)
        watch(c, EPOLL_CTL_MOD, EPOLLOUT);
      c->state = WRITING;
      return;
    }
    if (w <= 0) {
      conn_free(c);
      return;
    }
    c->out_off += (size_t)w;
  }
  log_line(c);
  free(c->out);
  c->out = NULL;
  if (!c->keep) {
    conn_free(c);
    return;
  }
  c->state = READING;
  watch(c, EPOLL_CTL_MOD, EPOLLIN);
  if (parse(c) != 0) /* a pipelined request already read */
    conn_free(c);
}

static void accept_all(const listener_t *l)
{
  for (;;) {
    int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK);
    if (fd < 0)
      return; /* EAGAIN, or out of descriptors: try at the next wake */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn_t *c = calloc(1, sizeof *c);
    char *buf = malloc(REQ_MAX + 1);
    if (c == NULL || buf == NULL) {
      free(c);
      free(buf);
      close(fd);
      continue;
    }
    c->fd = fd;
    c->l = l;
    c->buf = buf;
    c->buf[0] = 0;
    c->state = READING;
    watch(c, EPOLL_CTL_ADD, EPOLLIN);
  }
}

/* listen_all: a listener at every (ADDRS[a], port) pair, ports PORT to
 * PORT+NPORTS-1, each watched by the epoll EP; NULL (said on stderr) if
 * one cannot be made. */
static listener_t *listen_all(char (*addrs)[INET_ADDRSTRLEN], int na, int port,
                              int nports)
{
  listener_t *ls = calloc((size_t)na * (size_t)nports, sizeof *ls);
  if (ls == NULL) {
    fprintf(stderr, "delayserver: %s\n", strerror(errno));
    return NULL;
  }
  int nl = 0;
  for (int a = 0; a < na; a++)
    for (int p = port; p < port + nports; p++, nl++) {
      listener_t *l = &ls[nl];
      struct sockaddr_in sa;
      memset(&sa, 0, sizeof sa);
      sa.sin_family = AF_INET;
      sa.sin_port = htons((unsigned short)p);
      inet_pton(AF_INET, addrs[a], &sa.sin_addr);
      snprintf(l->addr, sizeof l->addr, "%s", addrs[a]);
      l->port = p;
      int one = 1;
      l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (l->fd < 0 ||
          setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
          bind(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
          listen(l->fd, 1024) != 0) {
        fprintf(stderr, "delayserver: %s:%d: %s\n", l->addr, p,
                strerror(errno));
        return NULL;
      }
      /* A listener is told from a connection by its address range. */
      struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };
      epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev);
    }
  return ls;
}

int main(int argc, char **argv)
{
  int port = 0, nports = 1;
  long lifetime = 900;
  static char addrs[MAX_ADDRS][INET_ADDRSTRLEN];
  int na = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
      port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--ports") == 0 && i + 1 < argc)
      nports = atoi(argv[++i]);
    else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc)
      delay_ms = atol(argv[++i]);
    else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
      root = argv[++i];
    else if (strcmp(argv[i], "--vhosts") == 0)
      vhosts = true;
    else if (strcmp(argv[i], "--lifetime") == 0 && i + 1 < argc)
      lifetime = atol(argv[++i]);
    else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
      log_file = fopen(argv[++i], "a");
      if (log_file == NULL) {
        perror(argv[i]);
        return 1;
      }
    } else if (na < MAX_ADDRS) {
      struct in_addr a;
      if (inet_pton(AF_INET, argv[i], &a) != 1 ||
          (ntohl(a.s_addr) >> 24) != 127) {
        fprintf(stderr, "delayserver: %s: not a 127.0.0.0/8 address\n",
                argv[i]);
        return 1;
      }
      snprintf(addrs[na], sizeof addrs[na], "%s", argv[i]);
      na++;
    }
  }
  if (port <= 0 || nports < 1 || nports > MAX_PORTS ||
      port + nports - 1 > 65535 || root == NULL || na == 0 || delay_ms < 0) {
    fprintf(stderr, "usage: delayserver --port P [--ports N] --delay-ms D "
                    "--root DIR [--vhosts] [--log FILE] [--lifetime S] "
                    "ADDR...\n");
    return 1;
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  ep = epoll_create1(0);
  int nl = na * nports;
  listener_t *ls = ep < 0 ? NULL : listen_all(addrs, na, port, nports);
  if (ls == NULL)
    return 1;
  double end = mono_now() + (double)lifetime;
  enum { NEV = 256 };
  struct epoll_event evs[NEV];
  for (;;) {
    double now = mono_now();
    if (now >= end)
      break;
    /* Send what is due, oldest first. */
    while (qhead != NULL && qhead->due <= now) {
      conn_t *c = qhead;
      qhead = c->qnext;
      if (qhead == NULL)
        qtail = NULL;
      if (c->dead)
        conn_free(c);
      else
        writable(c);
    }
    double until = qhead != NULL ? qhead->due : end;
    int timeout = (int)((until - now) * 1000.0) + 1;
    int n = epoll_wait(ep, evs, NEV, timeout);
    for (int i = 0; i < n; i++) {
      void *p = evs[i].data.ptr;
      if (p >= (void *)ls && p < (void *)(ls + nl)) {
        accept_all(p);
        continue;
      }
      conn_t *c = p;
      if (c->state == WAITING) {
        /* Only an error or hang-up wakes a waiting connection: answer
         * nobody, free it when its turn comes. */
        c->dead = true;
        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
      } else if (c->state == WRITING) {
        writable(c);
      } else {
        readable(c);
      }
    }
  }
  return 0;
}
