/* testserver: the loopback HTTP server the integration tests crawl.
 *
 * Usage (also printed by --help):
 *   testserver --root DIR --host 127.0.0.1 [--host 127.0.0.2 ...]
 *              [--port N] [--portfile FILE] [--log FILE] [--rules FILE]
 *              [--max-seconds N] [--substitute | --no-substitute]
 *              [--tls-cert FILE --tls-key FILE]
 *
 * Hosts. Each --host is a loopback address (127.0.0.0/8 only; anything else
 * is refused, so a test can never serve or reach the outside world). All
 * hosts listen on one port: the first is bound to --port (0, the default,
 * lets the OS choose), the others reuse that port; if one of them is taken
 * the whole set is retried on a new port. Host A serves DIR/A/ when that
 * directory exists, else DIR/ itself. Once every host listens, the port
 * number is written to --portfile (tmp file + rename, so a reader never sees
 * a half-written number).
 *
 * HTTPS (--tls-cert FILE --tls-key FILE, PEM): every host speaks TLS
 * with that certificate and key instead of plain HTTP; the tests make a
 * CA and certificates with openssl(1). Needs a libmicrohttpd built with
 * TLS (Debian's is, with GnuTLS); without it the server exits 3, which a
 * test takes as a reason to skip.
 *
 * Files. GET and HEAD only (others get 405). "/" and "/dir/" serve
 * index.html; "/dir" (a directory without the slash) is redirected 301 to
 * "/dir/" as real servers do, so relative links resolve the same way. A path
 * with a ".." segment, a missing file, or a directory without index.html is
 * 404. Content-Type comes from the extension (see type_for_path); unknown
 * extensions are application/octet-stream.
 *
 * Substitution (on by default; --no-substitute turns it off): in every
 * textual body (text/..., JavaScript, JSON, XML, and redirect Locations) the
 * literal "{{port}}" becomes the port and "{{host}}" the address of the host
 * serving the request, so fixture pages can hold absolute links.
 *
 * Log (--log FILE, appended): one line per request, written with a single
 * write() on an O_APPEND descriptor, so concurrent lines never interleave.
 * Tab-separated fields:
 *   1 seconds on CLOCK_MONOTONIC when the request line arrived (%.6f)
 *   2 ADDRESS:PORT of the host that served it
 *   3 method
 *   4 request-target as sent (path and query, not decoded)
 *   5 status sent, or "-" for a request that is never answered (hang)
 *   6 User-Agent ("-" if absent); control characters become '?'
 *   7 connection number (1, 2, ... per server): equal numbers on two lines
 *     mean the requests shared one kept-alive connection
 * The line is written when the response is decided, before any delay.
 *
 * Rules (--rules FILE): per-path behaviour, one rule per line; blank lines
 * and lines starting with '#' are ignored.
 *   [ADDRESS] PATTERN ACTION [ARGS]
 * ADDRESS restricts the rule to one host. PATTERN starts with '/'; it is an
 * exact match, or a prefix match when it ends in '*'. A pattern containing
 * '?' is matched against the whole request-target, others against the path
 * alone. Every matching rule applies, in file order; for a repeated action
 * the last one wins, except header, which accumulates. Actions:
 *   delay SECONDS        wait before sending anything (fractions allowed)
 *   drip BYTES SECONDS   send the body BYTES at a time, SECONDS apart
 *   status CODE          answer with CODE; the body is still the file (or a
 *                        small built-in page when there is no file)
 *   redirect CODE URL    answer CODE with "Location: URL" (substituted)
 *   header NAME VALUE    add a header; VALUE is the rest of the line
 *   require NAME VALUE   answer 401 unless the request has header NAME
 *                        with exactly VALUE (the rest of the line)
 *   type MIME            override Content-Type; MIME is the rest of the line
 *   gzip                 gzip the body (Content-Encoding: gzip) when the
 *                        request's Accept-Encoding mentions gzip
 *   endless              send an endless chunked text/html body
 *   hang                 read the request, never answer: wait until the
 *                        client closes, or the server stops
 *   close                send the headers (with the full Content-Length)
 *                        and half the body, then close the connection
 *   validators WHICH     a file served 200 carries validators, and a
 *                        conditional request for it is answered: WHICH is
 *                        etag (ETag: a CRC of the body as sent, before
 *                        gzip), lastmod (Last-Modified: the file's mtime),
 *                        both, or none (the default). 304 when
 *                        If-None-Match holds the ETag, else (no
 *                        If-None-Match) when If-Modified-Since is exactly
 *                        the Last-Modified, as nginx does by default
 *   notmodified          answer 304 to every conditional request (a lying
 *                        server, whatever the file holds now)
 *   generate             PATTERN must end in '*': PREFIXN (N = 0, 1, ...)
 *                        is a generated page linking to PREFIX(N+1), to
 *                        PREFIX(N-1) and to PREFIX0; PREFIX alone is page 0;
 *                        any other suffix is 404. An endless link chain, for
 *                        crawler-trap tests.
 * Order of effects: hang, else delay, then the body (redirect > generate >
 * endless > file), status, type, substitution, gzip (not for endless), and
 * finally the way it is sent (drip or close, else all at once).
 *
 * Stopping: after --max-seconds (default 600) or on SIGTERM/SIGINT the
 * server wakes every delayed, dripping or hanging request, stops the
 * daemons, and exits 0.
 *
 * Threads: libmicrohttpd runs one thread per connection, so a delayed or
 * hanging response blocks only its own connection. Every wait goes through
 * wait_for(), which sleeps in poll() on the client socket and on a
 * shutdown pipe, so it ends early when the client leaves or the server
 * stops. Everything global is read-only once the daemons start, except the
 * atomics named below. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_HOSTS 16
#define MAX_RULE_HEADERS 16
#define MAX_FILE_BYTES (64L * 1024 * 1024)
#define BIND_ATTEMPTS 50

/* ---------------------------------------------------------------- rules */

enum action {
  ACT_DELAY,
  ACT_DRIP,
  ACT_STATUS,
  ACT_REDIRECT,
  ACT_HEADER,
  ACT_TYPE,
  ACT_GZIP,
  ACT_ENDLESS,
  ACT_HANG,
  ACT_CLOSE,
  ACT_GENERATE,
  ACT_REQUIRE,
  ACT_VALIDATORS,
  ACT_NOTMODIFIED
};

/* ACT_VALIDATORS: which a file carries (a bit each). */
enum { V_ETAG = 1, V_LASTMOD = 2 };

struct rule {
  char *host;    /* NULL: every host */
  char *pattern; /* without the trailing '*' when prefix */
  bool prefix;
  bool whole_target; /* pattern has '?': match path and query */
  enum action act;
  double num;  /* delay seconds, drip interval */
  long code;   /* status, redirect code, drip bytes */
  char *text;  /* redirect URL, header name, type */
  char *text2; /* header value */
};

/* What the matching rules ask for, for one request. Pointers borrow from
 * the rule table. */
struct plan {
  double delay;
  long drip_bytes;
  double drip_seconds;
  long status;   /* 0: none */
  long redirect; /* 0: none */
  const char *location;
  const char *type;
  const char *hdr_name[MAX_RULE_HEADERS];
  const char *hdr_value[MAX_RULE_HEADERS];
  int nhdr;
  bool gzip, endless, hang, close;
  const char *generate;                     /* prefix, or NULL */
  const char *require_name, *require_value; /* require; NULL: none */
  long validators;                          /* V_* bits */
  bool notmodified;
};

/* ------------------------------------------------------------- globals */

struct host {
  char addr[INET_ADDRSTRLEN];
  char *root; /* directory served, owned */
  int lfd;    /* listening socket, handed to the daemon */
  struct MHD_Daemon *daemon;
};

/* Read-only once the daemons start. */
static struct host hosts[MAX_HOSTS];
static int nhosts;
static unsigned port;
static struct rule *rules;
static int nrules;
static int log_fd = -1;
static bool substitute = true;
/* Written by a signal handler, and at the end by main; read by every wait.
 * The read end stays readable forever once a byte is in. */
static int stop_pipe[2] = { -1, -1 };
/* Connection numbers for the log. */
static atomic_ulong conn_seq;

/* Per request: allocated by on_uri() when the request line arrives, freed
 * by on_completed(). Touched only by the connection's thread. */
struct request {
  double t_arrival;
  char *target; /* request-target as sent */
  bool seen;    /* the handler has been called once */
};

/* ------------------------------------------------------------- helpers */

static double now_mono(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
  (void)sig;
  /* Async-signal-safe; a full pipe already means "stop". */
  ssize_t n = write(stop_pipe[1], "s", 1);
  (void)n;
}

static bool stopping(void)
{
  struct pollfd p = { .fd = stop_pipe[0], .events = POLLIN };
  return poll(&p, 1, 0) > 0;
}

static void stop_all_waits(void)
{
  ssize_t n = write(stop_pipe[1], "s", 1);
  (void)n;
}

/* wait_for: sleep up to SECONDS (< 0: without bound). Returns true when the
 * time ran out, false when the server is stopping or the client at fd
 * (-1: none) has closed its end. Any thread. */
static bool wait_for(double seconds, int fd)
{
  double deadline = now_mono() + seconds;
  for (;;) {
    struct pollfd p[2] = {
      { .fd = stop_pipe[0], .events = POLLIN },
      { .fd = fd, .events = POLLIN },
    };
    int timeout = -1;
    if (seconds >= 0) {
      double left = deadline - now_mono();
      if (left <= 0)
        return true;
      timeout = (int)(left * 1000.0) + 1;
    }
    int n = poll(p, fd >= 0 ? 2 : 1, timeout);
    if (n < 0 && errno != EINTR)
      return false;
    if (n <= 0)
      continue;
    if (p[0].revents)
      return false;
    if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL))
      return false;
    if (p[1].revents & POLLIN) {
      char c;
      ssize_t got = recv(fd, &c, 1, MSG_PEEK);
      if (got <= 0)
        return false;
      /* The client sent more (a pipelined request): we cannot see its
       * close behind that data, so wait on the clock and stop pipe only. */
      fd = -1;
    }
  }
}

static char *xstrdup(const char *s)
{
  char *d = strdup(s);
  if (d == NULL) {
    fprintf(stderr, "testserver: out of memory\n");
    exit(2);
  }
  return d;
}

/* ------------------------------------------------------- rule parsing */

/* next_token: the next whitespace-separated token of *s, NUL-terminated
 * in place; NULL at the end of the line. */
static char *next_token(char **s)
{
  char *p = *s;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return NULL;
  char *start = p;
  while (*p != '\0' && *p != ' ' && *p != '\t')
    p++;
  if (*p != '\0')
    *p++ = '\0';
  *s = p;
  return start;
}

/* rest_of_line: what is left of *s, trimmed; NULL if empty. */
static char *rest_of_line(char **s)
{
  char *p = *s;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return NULL;
  char *end = p + strlen(p);
  while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
    *--end = '\0';
  *s = end;
  return p;
}

static bool parse_double(const char *s, double *out)
{
  char *end;
  if (s == NULL)
    return false;
  errno = 0;
  *out = strtod(s, &end);
  return errno == 0 && end != s && *end == '\0' && *out >= 0;
}

static bool parse_long(const char *s, long *out)
{
  char *end;
  if (s == NULL)
    return false;
  errno = 0;
  *out = strtol(s, &end, 10);
  return errno == 0 && end != s && *end == '\0' && *out >= 0;
}

/* rule_parse: parse one line into r; false with a message in why. */
static bool rule_parse(char *line, struct rule *r, const char **why)
{
  memset(r, 0, sizeof(*r));
  char *s = line;
  char *tok = next_token(&s);
  if (tok != NULL && tok[0] != '/') {
    struct in_addr a;
    if (inet_pton(AF_INET, tok, &a) != 1) {
      *why = "expected an address or a path";
      return false;
    }
    r->host = xstrdup(tok);
    tok = next_token(&s);
  }
  if (tok == NULL || tok[0] != '/') {
    *why = "expected a path starting with '/'";
    return false;
  }
  size_t len = strlen(tok);
  if (tok[len - 1] == '*') {
    r->prefix = true;
    tok[len - 1] = '\0';
  }
  r->whole_target = strchr(tok, '?') != NULL;
  r->pattern = xstrdup(tok);
  char *act = next_token(&s);
  char *a1 = NULL;
  *why = "bad or missing arguments";
  if (act == NULL) {
    *why = "missing action";
    return false;
  } else if (strcmp(act, "delay") == 0) {
    r->act = ACT_DELAY;
    return parse_double(next_token(&s), &r->num);
  } else if (strcmp(act, "drip") == 0) {
    r->act = ACT_DRIP;
    return parse_long(next_token(&s), &r->code) && r->code > 0 &&
           parse_double(next_token(&s), &r->num);
  } else if (strcmp(act, "status") == 0) {
    r->act = ACT_STATUS;
    return parse_long(next_token(&s), &r->code) && r->code >= 100 &&
           r->code <= 999;
  } else if (strcmp(act, "redirect") == 0) {
    r->act = ACT_REDIRECT;
    if (!parse_long(next_token(&s), &r->code) || r->code < 300 ||
        r->code > 399 || (a1 = next_token(&s)) == NULL)
      return false;
    r->text = xstrdup(a1);
    return true;
  } else if (strcmp(act, "header") == 0 || strcmp(act, "require") == 0) {
    /* NAME VALUE: a token, then the rest of the line. */
    r->act = act[0] == 'h' ? ACT_HEADER : ACT_REQUIRE;
    if ((a1 = next_token(&s)) == NULL)
      return false;
    r->text = xstrdup(a1);
    if ((a1 = rest_of_line(&s)) == NULL)
      return false;
    r->text2 = xstrdup(a1);
    return true;
  } else if (strcmp(act, "type") == 0) {
    r->act = ACT_TYPE;
    if ((a1 = rest_of_line(&s)) == NULL)
      return false;
    r->text = xstrdup(a1);
    return true;
  } else if (strcmp(act, "gzip") == 0) {
    r->act = ACT_GZIP;
  } else if (strcmp(act, "endless") == 0) {
    r->act = ACT_ENDLESS;
  } else if (strcmp(act, "hang") == 0) {
    r->act = ACT_HANG;
  } else if (strcmp(act, "close") == 0) {
    r->act = ACT_CLOSE;
  } else if (strcmp(act, "validators") == 0) {
    r->act = ACT_VALIDATORS;
    a1 = next_token(&s);
    if (a1 == NULL)
      return false;
    r->code = strcmp(a1, "etag") == 0    ? V_ETAG
            : strcmp(a1, "lastmod") == 0 ? V_LASTMOD
            : strcmp(a1, "both") == 0    ? V_ETAG | V_LASTMOD
            : strcmp(a1, "none") == 0    ? 0
                                         : -1;
    if (r->code < 0)
      return false;
  } else if (strcmp(act, "notmodified") == 0) {
    r->act = ACT_NOTMODIFIED;
  } else if (strcmp(act, "generate") == 0) {
    r->act = ACT_GENERATE;
    if (!r->prefix) {
      *why = "generate needs a pattern ending in '*'";
      return false;
    }
  } else {
    *why = "unknown action";
    return false;
  }
  if (next_token(&s) != NULL) {
    *why = "unexpected arguments";
    return false;
  }
  return true;
}

static bool rules_load(const char *path)
{
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "testserver: cannot open '%s': %s\n", path,
            strerror(errno));
    return false;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0;
  bool ok = true;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0' || *p == '#')
      continue;
    struct rule *grown = realloc(rules, (nrules + 1) * sizeof(*rules));
    if (grown == NULL) {
      ok = false;
      break;
    }
    rules = grown;
    const char *why = "";
    if (!rule_parse(p, &rules[nrules], &why)) {
      fprintf(stderr, "testserver: %s:%d: %s\n", path, lineno, why);
      ok = false;
      break;
    }
    nrules++;
  }
  free(line);
  fclose(f);
  return ok;
}

static bool rule_matches(const struct rule *r, const char *addr,
                         const char *path, size_t pathlen, const char *target)
{
  if (r->host != NULL && strcmp(r->host, addr) != 0)
    return false;
  const char *subject = r->whole_target ? target : path;
  size_t slen = r->whole_target ? strlen(target) : pathlen;
  size_t plen = strlen(r->pattern);
  if (r->prefix)
    return slen >= plen && strncmp(subject, r->pattern, plen) == 0;
  return slen == plen && strncmp(subject, r->pattern, plen) == 0;
}

static void plan_build(struct plan *pl, const char *addr, const char *target)
{
  memset(pl, 0, sizeof(*pl));
  size_t pathlen = strcspn(target, "?");
  for (int i = 0; i < nrules; i++) {
    const struct rule *r = &rules[i];
    if (!rule_matches(r, addr, target, pathlen, target))
      continue;
    switch (r->act) {
    case ACT_DELAY:
      pl->delay = r->num;
      break;
    case ACT_DRIP:
      pl->drip_bytes = r->code;
      pl->drip_seconds = r->num;
      break;
    case ACT_STATUS:
      pl->status = r->code;
      break;
    case ACT_REDIRECT:
      pl->redirect = r->code;
      pl->location = r->text;
      break;
    case ACT_HEADER:
      if (pl->nhdr < MAX_RULE_HEADERS) {
        pl->hdr_name[pl->nhdr] = r->text;
        pl->hdr_value[pl->nhdr] = r->text2;
        pl->nhdr++;
      }
      break;
    case ACT_TYPE:
      pl->type = r->text;
      break;
    case ACT_GZIP:
      pl->gzip = true;
      break;
    case ACT_ENDLESS:
      pl->endless = true;
      break;
    case ACT_HANG:
      pl->hang = true;
      break;
    case ACT_CLOSE:
      pl->close = true;
      break;
    case ACT_GENERATE:
      pl->generate = r->pattern;
      break;
    case ACT_REQUIRE:
      pl->require_name = r->text;
      pl->require_value = r->text2;
      break;
    case ACT_VALIDATORS:
      pl->validators = r->code;
      break;
    case ACT_NOTMODIFIED:
      pl->notmodified = true;
      break;
    }
  }
}

/* ---------------------------------------------------------- bodies */

/* A growable byte buffer; data is NUL-terminated for convenience. */
struct buf {
  char *data;
  size_t len, cap;
};

static bool buf_add(struct buf *b, const char *s, size_t n)
{
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL)
      return false;
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return true;
}

static bool buf_addf(struct buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

static bool buf_addf(struct buf *b, const char *fmt, ...)
{
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
  va_end(ap);
  if (n < 0)
    return false;
  if ((size_t)n >= sizeof(tmp))
    n = sizeof(tmp) - 1;
  return buf_add(b, tmp, (size_t)n);
}

/* substitute_vars: a copy of s[0..n) with {{port}} and {{host}} replaced;
 * returned owned (free()), NULL on ENOMEM; *outlen set. */
static char *substitute_vars(const char *s, size_t n, const char *addr,
                             size_t *outlen)
{
  struct buf b = { 0 };
  char portstr[16];
  snprintf(portstr, sizeof(portstr), "%u", port);
  size_t i = 0, start = 0;
  bool ok = buf_add(&b, "", 0);
  while (ok && i < n) {
    if (s[i] == '{' && n - i >= 8 && memcmp(s + i, "{{port}}", 8) == 0) {
      ok = buf_add(&b, s + start, i - start) &&
           buf_add(&b, portstr, strlen(portstr));
      i += 8;
      start = i;
    } else if (s[i] == '{' && n - i >= 8 && memcmp(s + i, "{{host}}", 8) == 0) {
      ok = buf_add(&b, s + start, i - start) && buf_add(&b, addr, strlen(addr));
      i += 8;
      start = i;
    } else {
      i++;
    }
  }
  if (ok)
    ok = buf_add(&b, s + start, n - start);
  if (!ok) {
    free(b.data);
    return NULL;
  }
  *outlen = b.len;
  return b.data;
}

/* gzip_bytes: s[0..n) gzip-compressed; returned owned, NULL on error. */
static char *gzip_bytes(const char *s, size_t n, size_t *outlen)
{
  z_stream z;
  memset(&z, 0, sizeof(z));
  /* windowBits 15 + 16: a gzip wrapper, not zlib's. */
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return NULL;
  size_t cap = deflateBound(&z, n) + 32;
  char *out = malloc(cap);
  if (out == NULL) {
    deflateEnd(&z);
    return NULL;
  }
  z.next_in = (Bytef *)s;
  z.avail_in = (uInt)n;
  z.next_out = (Bytef *)out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  *outlen = cap - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  return out;
}

static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  struct buf b = { 0 };
  char chunk[8192];
  size_t n;
  bool ok = buf_add(&b, "", 0);
  while (ok && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
    ok = buf_add(&b, chunk, n) && b.len <= MAX_FILE_BYTES;
  }
  if (ferror(f))
    ok = false;
  fclose(f);
  if (!ok) {
    free(b.data);
    return NULL;
  }
  *len = b.len;
  return b.data;
}

static const char *type_for_path(const char *path)
{
  static const char *const table[][2] = {
    { "html", "text/html; charset=utf-8" },
    { "htm", "text/html; charset=utf-8" },
    { "txt", "text/plain; charset=utf-8" },
    { "css", "text/css" },
    { "js", "text/javascript" },
    { "json", "application/json" },
    { "xml", "application/xml" },
    { "png", "image/png" },
    { "jpg", "image/jpeg" },
    { "jpeg", "image/jpeg" },
    { "gif", "image/gif" },
    { "svg", "image/svg+xml" },
    { "ico", "image/x-icon" },
    { "pdf", "application/pdf" },
    { "gz", "application/gzip" },
    { "zip", "application/zip" },
  };
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(path, '.');
  if (dot == NULL || (slash != NULL && dot < slash))
    return "application/octet-stream";
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
    if (strcasecmp(dot + 1, table[i][0]) == 0)
      return table[i][1];
  return "application/octet-stream";
}

static bool type_is_text(const char *type)
{
  return strncmp(type, "text/", 5) == 0 || strstr(type, "javascript") != NULL ||
         strstr(type, "json") != NULL || strstr(type, "xml") != NULL;
}

static bool has_dotdot_segment(const char *path)
{
  const char *p = path;
  while ((p = strstr(p, "..")) != NULL) {
    bool starts = p == path || p[-1] == '/';
    bool ends = p[2] == '\0' || p[2] == '/';
    if (starts && ends)
      return true;
    p += 2;
  }
  return false;
}

static bool generate_page(struct buf *b, const char *prefix, const char *path,
                          long *status)
{
  const char *suffix = path + strlen(prefix);
  long n = 0;
  if (*suffix != '\0') {
    char *end;
    errno = 0;
    n = strtol(suffix, &end, 10);
    if (errno != 0 || *end != '\0' || n < 0 || suffix[0] == '+' ||
        suffix[0] == '-' || n >= LONG_MAX) {
      *status = MHD_HTTP_NOT_FOUND;
      return buf_addf(b, "<html><body><p>no such generated page</p>"
                         "</body></html>\n");
    }
  }
  *status = MHD_HTTP_OK;
  bool ok = buf_addf(b,
                     "<!DOCTYPE html>\n<html><head><title>Generated "
                     "page %ld</title></head>\n<body>\n<h1>Generated page "
                     "%ld</h1>\n<p>A calendar without end: every page "
                     "links to the next one.</p>\n<p><a href=\"%s%ld\">"
                     "next</a>\n",
                     n, n, prefix, n + 1);
  if (ok && n > 0)
    ok = buf_addf(b, "<a href=\"%s%ld\">previous</a>\n", prefix, n - 1);
  return ok &&
         buf_addf(b, "<a href=\"%s0\">first</a></p>\n</body></html>\n", prefix);
}

/* ------------------------------------------- callback-driven bodies */

enum send_mode { SEND_DRIP, SEND_CLOSE, SEND_ENDLESS };

/* The state of one streamed body; owned by the MHD response, freed by
 * stream_free. Used only by the connection's thread. */
struct stream {
  enum send_mode mode;
  char *body;
  size_t len;
  size_t chunk;
  double interval;
  int fd;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
  struct stream *st = cls;
  if (st->mode == SEND_ENDLESS) {
    static const char line[] =
      "<p>This page never ends: filler text, over and over.</p>\n";
    const size_t ll = sizeof(line) - 1;
    if (stopping())
      return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = 0;
    if (pos == 0) {
      const char *head = "<!DOCTYPE html>\n<html><body>\n";
      n = strlen(head) < max ? strlen(head) : max;
      memcpy(out, head, n);
    }
    while (n < max) {
      size_t k = max - n < ll ? max - n : ll;
      memcpy(out + n, line, k);
      n += k;
    }
    return (ssize_t)n;
  }
  size_t end = st->mode == SEND_CLOSE ? st->len / 2 : st->len;
  if (pos >= end)
    return st->mode == SEND_CLOSE ? MHD_CONTENT_READER_END_WITH_ERROR
                                  : MHD_CONTENT_READER_END_OF_STREAM;
  size_t n = end - pos;
  if (n > max)
    n = max;
  if (st->mode == SEND_DRIP) {
    if (pos > 0 && !wait_for(st->interval, st->fd))
      return MHD_CONTENT_READER_END_WITH_ERROR;
    if (n > st->chunk)
      n = st->chunk;
  }
  memcpy(out, st->body + pos, n);
  return (ssize_t)n;
}

static void stream_free(void *cls)
{
  struct stream *st = cls;
  if (st == NULL)
    return;
  free(st->body);
  free(st);
}

/* ---------------------------------------------------------------- log */

static void log_request(const struct host *h, const struct request *req,
                        const char *method, long status, const char *ua,
                        unsigned long conn)
{
  if (log_fd < 0)
    return;
  char st[24];
  if (status > 0)
    snprintf(st, sizeof(st), "%ld", status);
  else
    snprintf(st, sizeof(st), "-");
  char line[4096];
  int n = snprintf(line, sizeof(line), "%.6f\t%s:%u\t%s\t%s\t%s\t%s\t%lu",
                   req->t_arrival, h->addr, port, method, req->target, st,
                   ua != NULL && *ua != '\0' ? ua : "-", conn);
  if (n < 0)
    return;
  size_t len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
      line[i] = '?';
  line[len++] = '\n';
  /* One write() on an O_APPEND descriptor: lines never interleave. */
  ssize_t w = write(log_fd, line, len);
  (void)w;
}

/* ------------------------------------------------------- MHD callbacks */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
  (void)cls;
  (void)c;
  struct request *req = calloc(1, sizeof(*req));
  if (req == NULL)
    return NULL;
  req->t_arrival = now_mono();
  req->target = strdup(uri);
  if (req->target == NULL) {
    free(req);
    return NULL;
  }
  return req;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  (void)cls;
  (void)c;
  (void)toe;
  struct request *req = *con_cls;
  if (req != NULL) {
    free(req->target);
    free(req);
  }
  *con_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
  (void)cls;
  (void)c;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED)
    *socket_context = (void *)(uintptr_t)(atomic_fetch_add(&conn_seq, 1) + 1);
}

static bool accepts_gzip(struct MHD_Connection *c)
{
  const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                               "Accept-Encoding");
  if (ae == NULL)
    return false;
  for (const char *p = ae; *p != '\0'; p++)
    if (strncasecmp(p, "gzip", 4) == 0)
      return true;
  return false;
}

static const char builtin_page[] =
  "<!DOCTYPE html>\n<html><head><title>%ld</title></head>\n"
  "<body><p>testserver: status %ld</p></body></html>\n";

/* validate: the validators of a file served 200 (PL's, BODY the bytes
 * as sent before gzip, MTIME the file's) into ETAG and LM ("" for none),
 * and whether the request's conditions say it is not modified (304). */
static bool validate(struct MHD_Connection *c, const struct plan *pl,
                     const struct buf *body, time_t mtime, char etag[32],
                     char lm[64])
{
  etag[0] = lm[0] = '\0';
  if (pl->validators & V_ETAG)
    snprintf(etag, 32, "\"%08lx-%zx\"",
             crc32(0L, (const Bytef *)(body->data ? body->data : ""),
                   (uInt)body->len),
             body->len);
  struct tm tm;
  if ((pl->validators & V_LASTMOD) && gmtime_r(&mtime, &tm) != NULL)
    strftime(lm, 64, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                "If-None-Match");
  const char *ims = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                "If-Modified-Since");
  if (pl->notmodified)
    return inm != NULL || ims != NULL;
  if (inm != NULL)
    return etag[0] != '\0' &&
           (strstr(inm, etag) != NULL || strcmp(inm, "*") == 0);
  return ims != NULL && lm[0] != '\0' && strcmp(ims, lm) == 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
  struct host *h = cls;
  (void)version;
  (void)upload_data;
  if (*upload_data_size != 0) {
    *upload_data_size = 0; /* a request body: ignored */
    return MHD_YES;
  }
  struct request *req = *con_cls;
  if (req == NULL)
    return MHD_NO; /* on_uri ran out of memory */
  if (!req->seen) {
    /* Answering before the request is complete would make MHD close the
     * connection afterwards: wait for the call that ends the request. */
    req->seen = true;
    return MHD_YES;
  }

  const union MHD_ConnectionInfo *ci =
    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  int fd = ci != NULL ? ci->connect_fd : -1;
  ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  unsigned long conn = ci != NULL ? (unsigned long)(uintptr_t)ci->socket_context
                                  : 0;
  const char *ua = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                               "User-Agent");

  struct plan pl;
  plan_build(&pl, h->addr, req->target);
  if (pl.require_name != NULL) {
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                pl.require_name);
    if (v == NULL || strcmp(v, pl.require_value) != 0)
      pl.status = MHD_HTTP_UNAUTHORIZED;
  }
  if (pl.hang) {
    log_request(h, req, method, 0, ua, conn);
    wait_for(-1, fd);
    return MHD_NO; /* close without a word */
  }

  struct buf body = { 0 };
  long status = MHD_HTTP_OK;
  const char *type = "text/html; charset=utf-8";
  char *location = NULL;
  bool ok = true;
  bool is_get = strcmp(method, "GET") == 0;
  bool is_head = strcmp(method, "HEAD") == 0;
  time_t mtime = 0;
  bool file = false;
  char etag[32] = "", lm[64] = "";

  if (!is_get && !is_head) {
    status = MHD_HTTP_METHOD_NOT_ALLOWED;
    ok = buf_addf(&body, builtin_page, status, status);
  } else if (pl.redirect) {
    status = pl.redirect;
    size_t n;
    location = substitute_vars(pl.location, strlen(pl.location), h->addr, &n);
    ok = location != NULL &&
         buf_addf(&body,
                  "<html><body><p>moved to <a href=\"%s\">%s</a>"
                  "</p></body></html>\n",
                  location, location);
  } else if (pl.generate) {
    size_t pathlen = strcspn(req->target, "?");
    char *path = strndup(req->target, pathlen);
    ok = path != NULL && generate_page(&body, pl.generate, path, &status);
    free(path);
  } else if (!pl.endless) {
    char fspath[PATH_MAX];
    struct stat sb;
    int n = snprintf(fspath, sizeof(fspath), "%s%s", h->root, url);
    bool found = false;
    if (url[0] == '/' && !has_dotdot_segment(url) && n > 0 &&
        (size_t)n < sizeof(fspath) - 16 && stat(fspath, &sb) == 0) {
      if (S_ISDIR(sb.st_mode) && url[strlen(url) - 1] != '/') {
        /* Like real servers: "/dir" -> "/dir/" keeps relative links. */
        size_t pathlen = strcspn(req->target, "?");
        status = MHD_HTTP_MOVED_PERMANENTLY;
        location = malloc(strlen(req->target) + 2);
        ok = location != NULL;
        if (ok) {
          memcpy(location, req->target, pathlen);
          location[pathlen] = '/';
          strcpy(location + pathlen + 1, req->target + pathlen);
          ok = buf_addf(&body, builtin_page, status, status);
        }
        found = true;
      } else {
        if (S_ISDIR(sb.st_mode))
          strcat(fspath, "index.html");
        size_t len;
        char *data = NULL;
        if (stat(fspath, &sb) == 0 && S_ISREG(sb.st_mode))
          data = read_file(fspath, &len);
        if (data != NULL) {
          found = true;
          body.data = data;
          body.len = body.cap = len;
          type = type_for_path(fspath);
          mtime = sb.st_mtime;
          file = true;
        }
      }
    }
    if (!found) {
      status = MHD_HTTP_NOT_FOUND;
      ok = buf_addf(&body, builtin_page, status, status);
    }
  }
  if (pl.status)
    status = pl.status;
  if (pl.type)
    type = pl.type;

  if (ok && substitute && type_is_text(type) && body.data != NULL) {
    size_t n;
    char *s = substitute_vars(body.data, body.len, h->addr, &n);
    free(body.data);
    body.data = s;
    body.len = n;
    ok = s != NULL;
  }
  if (ok && file && status == MHD_HTTP_OK &&
      (pl.validators || pl.notmodified) &&
      validate(c, &pl, &body, mtime, etag, lm)) {
    status = MHD_HTTP_NOT_MODIFIED;
    body.len = 0;
  }
  bool gzipped = false;
  if (ok && pl.gzip && !pl.endless && status != MHD_HTTP_NOT_MODIFIED &&
      accepts_gzip(c)) {
    size_t n;
    char *z = gzip_bytes(body.data ? body.data : "", body.len, &n);
    free(body.data);
    body.data = z;
    body.len = n;
    ok = z != NULL;
    gzipped = true;
  }
  if (!ok) {
    free(body.data);
    free(location);
    fprintf(stderr, "testserver: out of memory serving '%s'\n", req->target);
    return MHD_NO;
  }

  log_request(h, req, method, status, ua, conn);
  if (pl.delay > 0 && !wait_for(pl.delay, fd)) {
    free(body.data);
    free(location);
    return MHD_NO;
  }

  struct MHD_Response *resp;
  if (pl.endless || pl.close || pl.drip_bytes > 0) {
    struct stream *st = calloc(1, sizeof(*st));
    if (st == NULL) {
      free(body.data);
      free(location);
      return MHD_NO;
    }
    st->mode = pl.endless ? SEND_ENDLESS : pl.close ? SEND_CLOSE : SEND_DRIP;
    st->body = body.data;
    st->len = body.len;
    st->chunk = pl.drip_bytes > 0 ? (size_t)pl.drip_bytes : body.len;
    st->interval = pl.drip_seconds;
    st->fd = fd;
    uint64_t size = pl.endless ? MHD_SIZE_UNKNOWN : (uint64_t)body.len;
    size_t block = st->mode == SEND_DRIP && st->chunk < 4096 ? st->chunk : 4096;
    resp = MHD_create_response_from_callback(size, block, stream_read, st,
                                             stream_free);
    if (resp == NULL)
      stream_free(st);
  } else {
    resp = MHD_create_response_from_buffer(body.len, body.data,
                                           MHD_RESPMEM_MUST_FREE);
    if (resp == NULL)
      free(body.data);
  }
  if (resp == NULL) {
    free(location);
    return MHD_NO;
  }
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (location != NULL)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
  if (pl.gzip)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
  if (gzipped)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  for (int i = 0; i < pl.nhdr; i++)
    MHD_add_response_header(resp, pl.hdr_name[i], pl.hdr_value[i]);
  if (etag[0] != '\0')
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
  if (lm[0] != '\0')
    MHD_add_response_header(resp, MHD_HTTP_HEADER_LAST_MODIFIED, lm);
  free(location);
  enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, resp);
  MHD_destroy_response(resp);
  return rc;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
  fprintf(
    out,
    "usage: testserver --root DIR --host 127.0.0.1 [--host 127.0.0.X ...]\n"
    "         [--port N] [--portfile FILE] [--log FILE] [--rules FILE]\n"
    "         [--max-seconds N] [--substitute | --no-substitute]\n"
    "         [--tls-cert FILE --tls-key FILE]\n"
    "Serves DIR (or DIR/ADDRESS/ when it exists) on loopback addresses,\n"
    "over HTTPS with --tls-cert and --tls-key (PEM; exit 3 if this\n"
    "libmicrohttpd has no TLS).\n"
    "--port 0 (default) lets the OS choose; the port is written to\n"
    "--portfile. {{port}} and {{host}} are substituted in text bodies\n"
    "unless --no-substitute. Stops after --max-seconds (default 600)\n"
    "or on SIGTERM/SIGINT.\n"
    "Log lines, tab-separated: MONOTONIC_SECONDS ADDRESS:PORT METHOD\n"
    "  TARGET STATUS|- USER_AGENT|- CONNECTION_NUMBER\n"
    "Rules: [ADDRESS] /PATH[*] ACTION ARGS, one per line; actions:\n"
    "  delay S | drip BYTES S | status CODE | redirect CODE URL |\n"
    "  header NAME VALUE | type MIME | gzip | endless | hang | close |\n"
    "  generate (see the top of tests/server/testserver.c)\n");
}

/* bind_listen: a listening socket on addr:p; -1 with errno on failure. */
static int bind_listen(const char *addr, unsigned p)
{
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)p);
  if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
    errno = EINVAL;
    return -1;
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  /* Lets a test restart a server on a port in TIME_WAIT. */
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
      listen(fd, 128) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* bind_all: every host listening on one port; false after reporting. */
static bool bind_all(unsigned want)
{
  for (int attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
    unsigned p = want;
    int i;
    for (i = 0; i < nhosts; i++) {
      hosts[i].lfd = bind_listen(hosts[i].addr, p);
      if (hosts[i].lfd < 0)
        break;
      if (i == 0 && p == 0) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof(sa);
        if (getsockname(hosts[0].lfd, (struct sockaddr *)&sa, &sl) != 0)
          break;
        p = ntohs(sa.sin_port);
      }
    }
    if (i == nhosts) {
      port = p;
      return true;
    }
    int e = errno;
    for (int j = 0; j < i; j++) {
      close(hosts[j].lfd);
      hosts[j].lfd = -1;
    }
    /* Retry only when an OS-chosen port is taken on another address. */
    if (!(want == 0 && i > 0 && e == EADDRINUSE)) {
      fprintf(stderr, "testserver: cannot listen on %s:%u: %s\n", hosts[i].addr,
              p, strerror(e));
      return false;
    }
  }
  fprintf(stderr, "testserver: no port free on every host after %d tries\n",
          BIND_ATTEMPTS);
  return false;
}

static bool write_portfile(const char *path)
{
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (f == NULL || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 ||
      rename(tmp, path) != 0) {
    fprintf(stderr, "testserver: cannot write '%s': %s\n", path,
            strerror(errno));
    return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  const char *root = NULL, *portfile = NULL, *logfile = NULL;
  const char *rulesfile = NULL, *certfile = NULL, *keyfile = NULL;
  long max_seconds = 600, want_port = 0;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = true;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--substitute") == 0) {
      substitute = true;
      takes = false;
    } else if (strcmp(a, "--no-substitute") == 0) {
      substitute = false;
      takes = false;
    } else if (v == NULL) {
      fprintf(stderr, "testserver: '%s' needs a value\n", a);
      usage(stderr);
      return 2;
    } else if (strcmp(a, "--root") == 0) {
      root = v;
    } else if (strcmp(a, "--portfile") == 0) {
      portfile = v;
    } else if (strcmp(a, "--log") == 0) {
      logfile = v;
    } else if (strcmp(a, "--rules") == 0) {
      rulesfile = v;
    } else if (strcmp(a, "--tls-cert") == 0) {
      certfile = v;
    } else if (strcmp(a, "--tls-key") == 0) {
      keyfile = v;
    } else if (strcmp(a, "--port") == 0) {
      if (!parse_long(v, &want_port) || want_port > 65535) {
        fprintf(stderr, "testserver: bad port '%s'\n", v);
        return 2;
      }
    } else if (strcmp(a, "--max-seconds") == 0) {
      if (!parse_long(v, &max_seconds) || max_seconds > 86400) {
        fprintf(stderr, "testserver: bad --max-seconds '%s'\n", v);
        return 2;
      }
    } else if (strcmp(a, "--host") == 0) {
      struct in_addr ia;
      if (inet_pton(AF_INET, v, &ia) != 1 || (ntohl(ia.s_addr) >> 24) != 127) {
        fprintf(stderr,
                "testserver: refusing host '%s': only loopback "
                "addresses (127.0.0.0/8) are served\n",
                v);
        return 2;
      }
      if (nhosts == MAX_HOSTS) {
        fprintf(stderr, "testserver: at most %d hosts\n", MAX_HOSTS);
        return 2;
      }
      /* Normalised form, as the log and {{host}} show it. */
      inet_ntop(AF_INET, &ia, hosts[nhosts].addr, sizeof(hosts[0].addr));
      hosts[nhosts].lfd = -1;
      nhosts++;
    } else {
      fprintf(stderr, "testserver: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    if (takes)
      i++;
  }
  if (root == NULL || nhosts == 0) {
    usage(stderr);
    return 2;
  }
  struct stat sb;
  if (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "testserver: '%s' is not a directory\n", root);
    return 2;
  }
  for (int i = 0; i < nhosts; i++) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/%s", root, hosts[i].addr);
    hosts[i].root = xstrdup(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) ? dir
                                                                       : root);
    /* url always starts with '/': drop a trailing slash from the root. */
    size_t n = strlen(hosts[i].root);
    while (n > 1 && hosts[i].root[n - 1] == '/')
      hosts[i].root[--n] = '\0';
  }
  if ((certfile == NULL) != (keyfile == NULL)) {
    fprintf(stderr, "testserver: --tls-cert and --tls-key go together\n");
    return 2;
  }
  /* PEM text, NUL-terminated (read_file), as MHD takes it; kept until
   * the daemons stop. */
  char *cert = NULL, *key = NULL;
  if (certfile != NULL) {
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
      fprintf(stderr, "testserver: this libmicrohttpd has no TLS "
                      "support\n");
      return 3;
    }
    size_t n;
    const char *bad = (cert = read_file(certfile, &n)) == NULL ? certfile
                    : (key = read_file(keyfile, &n)) == NULL   ? keyfile
                                                               : NULL;
    if (bad != NULL) {
      fprintf(stderr, "testserver: cannot read '%s': %s\n", bad,
              strerror(errno));
      free(cert);
      return 2;
    }
  }
  /* Options for TLS, or none: an array that starts with its end. */
  struct MHD_OptionItem tls_opts[] = {
    { cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, key },
    { MHD_OPTION_HTTPS_MEM_CERT, 0, cert },
    { MHD_OPTION_END, 0, NULL },
  };
  if (rulesfile != NULL && !rules_load(rulesfile))
    return 2;
  if (logfile != NULL) {
    log_fd = open(logfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd < 0) {
      fprintf(stderr, "testserver: cannot open '%s': %s\n", logfile,
              strerror(errno));
      return 2;
    }
  }
  if (pipe(stop_pipe) != 0) {
    fprintf(stderr, "testserver: pipe: %s\n", strerror(errno));
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);

  if (!bind_all((unsigned)want_port))
    return 1;
  int rc = 0;
  for (int i = 0; i < nhosts; i++) {
    hosts[i].daemon = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
        MHD_USE_POLL | MHD_USE_ERROR_LOG | (cert ? MHD_USE_TLS : 0),
      0, NULL, NULL, on_request, &hosts[i], MHD_OPTION_LISTEN_SOCKET,
      hosts[i].lfd, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
      MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
      MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
      /* Idle kept-alive connections hold a thread each: reap them. */
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_ARRAY, tls_opts,
      MHD_OPTION_END);
    if (hosts[i].daemon == NULL) {
      fprintf(stderr, "testserver: cannot start the server on %s:%u\n",
              hosts[i].addr, port);
      rc = 1;
      break;
    }
    hosts[i].lfd = -1; /* the daemon owns it now */
  }
  if (rc == 0 && portfile != NULL && !write_portfile(portfile))
    rc = 1;

  /* Sleep until a signal writes to the pipe or the time is up. */
  if (rc == 0 && !wait_for((double)max_seconds, -1) && !stopping())
    rc = 1;
  stop_all_waits();
  for (int i = 0; i < nhosts; i++) {
    if (hosts[i].daemon != NULL)
      MHD_stop_daemon(hosts[i].daemon);
    if (hosts[i].lfd >= 0)
      close(hosts[i].lfd);
    free(hosts[i].root);
  }
  for (int i = 0; i < nrules; i++) {
    free(rules[i].host);
    free(rules[i].pattern);
    free(rules[i].text);
    free(rules[i].text2);
  }
  free(rules);
  free(cert);
  free(key);
  if (log_fd >= 0)
    close(log_fd);
  return rc;
}
