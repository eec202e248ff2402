/* fetch.c: see fetch.h. */
#include "fetch.h"
#include "clock.h"

#include <ctype.h>
#include <curl/curl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

#include "budget.h"
#include "strbuf.h"
#include "url.h"

_Static_assert(FETCH_ERROR_SIZE >= CURL_ERROR_SIZE,
               "libcurl's message fits in fetch_result_t.error");

/* The state of one transfer, shared by the callbacks: set by
 * fetcher_prepare, read by fetcher_finish. */
struct xfer {
  fetcher_t *f;
  fetch_result_t *res;
  bool robots;           /* fetcher_get_robots: any 2xx, any type */
  size_t max;            /* body cap */
  bool checked;          /* status and type checked at the first body byte */
  fetch_outcome_t abort; /* why the write callback stopped, or FETCH_OK */
  bool truncated;        /* robots: stopped at the cap on purpose */
  /* Content decoding, set up at the first body byte: */
  int coding; /* 0 identity, 1 gzip/deflate, -1 unsupported */
  z_stream z;
  bool zinit;
  bool zend;       /* a gzip member ended: reset before more input */
  bool ztail;      /* junk followed a complete stream: skip the rest */
  bool bad_coding; /* the body could not be decoded */
  size_t drained;  /* bytes of an unwanted body read and dropped */
  double unwanted; /* monotonic: when the body was found unwanted */
  size_t reserve;  /* the decoded size, to reserve at the first charge */
  bool h2;         /* an HTTP/2 stream (checked at the first body byte) */
  size_t charged;  /* bytes of the budget the body holds */
  strbuf_t body, req, head, raw;
};

struct fetcher {
  CURL *curl;
  fetch_config_t cfg;
  struct xfer x;                /* the transfer prepared, if any */
  char errbuf[CURL_ERROR_SIZE]; /* libcurl's message for it */
  struct curl_slist *cond;      /* its conditional headers, or NULL */
  bool may_pause;               /* fetcher_may_pause */
  size_t wants;                 /* paused for this many bytes; 0: not */
};

/* The most of an unwanted body (an error page, a redirect's, a non-page)
 * read and dropped to keep the connection (drain), and the longest it is
 * read for (a server trickling a 404 holds no thread). */
enum { DRAIN_MAX = 64 * 1024 };
#define UNWANTED_SECONDS 0.5

fetcher_t *fetcher_new(const fetch_config_t *cfg)
{
  fetcher_t *f = calloc(1, sizeof(*f));
  if (f == NULL)
    return NULL;
  f->cfg = *cfg;
  f->curl = curl_easy_init();
  if (f->curl == NULL) {
    free(f);
    return NULL;
  }
  return f;
}

void fetcher_delete(fetcher_t *f)
{
  if (f == NULL)
    return;
  curl_easy_cleanup(f->curl);
  curl_slist_free_all(f->cond);
  free(f);
}

void fetch_result_unland(fetch_result_t *res)
{
  if (res->landed)
    budget_land(res->budget, -(long long)res->charged);
  res->landed = false;
}

void fetch_result_drop_body(fetch_result_t *res)
{
  free(res->body);
  res->body = NULL;
  fetch_result_unland(res);
  budget_give(res->budget, res->charged);
  res->charged = 0;
}

void fetch_result_free(fetch_result_t *res)
{
  if (res == NULL)
    return;
  free(res->raw_request);
  free(res->raw_head);
  free(res->raw_body);
  fetch_result_drop_body(res);
  free(res->content_type);
  free(res->location);
  free(res->x_robots_tag);
  free(res->etag);
  free(res->last_modified);
  memset(res, 0, sizeof(*res));
}

/* media_is: true if the media type of CT (before ';', any case) is TYPE. */
static bool media_is(const char *ct, const char *type)
{
  while (*ct == ' ' || *ct == '\t')
    ct++;
  size_t n = strlen(type);
  if (strncasecmp(ct, type, n) != 0)
    return false;
  ct += n;
  while (*ct == ' ' || *ct == '\t')
    ct++;
  return *ct == '\0' || *ct == ';';
}

bool fetch_is_text_plain(const char *ct)
{
  return ct != NULL && media_is(ct, "text/plain");
}

/* is_page_type: the types the crawler downloads. A response without a
 * Content-Type is taken as HTML, as browsers sniff it. */
static bool is_page_type(const char *ct)
{
  return ct == NULL || media_is(ct, "text/html") ||
         media_is(ct, "application/xhtml+xml") || media_is(ct, "text/plain");
}

const char *fetch_charset(const char *ct, char *buf, size_t n)
{
  if (ct == NULL || n == 0)
    return NULL;
  for (const char *p = strchr(ct, ';'); p; p = strchr(p + 1, ';')) {
    const char *q = p + 1;
    while (*q == ' ' || *q == '\t')
      q++;
    if (strncasecmp(q, "charset=", 8) != 0)
      continue;
    q += 8;
    if (*q == '"')
      q++;
    size_t k = 0;
    while (q[k] && q[k] != ';' && q[k] != '"' && q[k] != ' ' && k + 1 < n) {
      buf[k] = q[k];
      k++;
    }
    buf[k] = '\0';
    return k ? buf : NULL;
  }
  return NULL;
}

/* header: the value of header NAME in the response just received (the
 * first, if it is repeated), or NULL. Borrowed from libcurl: valid until
 * the handle's next request. */
static const char *header(CURL *c, const char *name)
{
  struct curl_header *h;
  if (curl_easy_header(c, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
    return NULL;
  return h->value;
}

/* has_token: true if the comma-separated list V holds TOKEN, in any
 * case ("gzip, Chunked"). */
static bool has_token(const char *v, const char *token)
{
  size_t n = strlen(token);
  while (*v) {
    while (*v == ' ' || *v == '\t' || *v == ',')
      v++;
    size_t k = strcspn(v, ", \t");
    if (k == n && strncasecmp(v, token, n) == 0)
      return true;
    v += k;
  }
  return false;
}

/* retry_after: seconds from now for a Retry-After value (delta-seconds or
 * an HTTP date); -1 if invalid. */
static double retry_after(const char *v)
{
  char *end;
  if (isdigit((unsigned char)*v)) {
    double s = strtod(v, &end);
    return *end == '\0' ? s : -1;
  }
  time_t t = curl_getdate(v, NULL);
  if (t < 0)
    return -1;
  double d = difftime(t, time(NULL));
  return d < 0 ? 0 : d;
}

/* read_headers: fill in what the response's headers tell RES. libcurl
 * keeps only the final response's as CURLH_HEADER (not a 100 Continue's,
 * not chunked trailers), and none from a previous request. */
static void read_headers(CURL *c, fetch_result_t *res)
{
  const char *v;
  if ((v = header(c, "Location")) != NULL)
    res->location = strdup(v);
  if ((v = header(c, "Retry-After")) != NULL)
    res->retry_after = retry_after(v);
  if ((v = header(c, "ETag")) != NULL && v[0] != '\0')
    res->etag = strdup(v);
  if ((v = header(c, "Last-Modified")) != NULL && v[0] != '\0')
    res->last_modified = strdup(v);
  struct curl_header *h;
  strbuf_t tags = STRBUF_INIT;
  for (size_t i = 0; curl_easy_header(c, "X-Robots-Tag", i, CURLH_HEADER, -1,
                                      &h) == CURLHE_OK;
       i++) {
    if (i > 0)
      strbuf_add(&tags, ", ", 2);
    strbuf_adds(&tags, h->value);
  }
  if (tags.len > 0)
    res->x_robots_tag = strbuf_detach(&tags);
}

/* coding_of: our code for a Content-Encoding value (NULL if absent). */
static int coding_of(const char *v)
{
  if (v == NULL || v[0] == '\0' || strcasecmp(v, "identity") == 0)
    return 0;
  if (strcasecmp(v, "gzip") == 0 || strcasecmp(v, "x-gzip") == 0 ||
      strcasecmp(v, "deflate") == 0)
    return 1;
  return -1;
}

/* check: at the first body byte, decide whether the body is wanted. */
static bool check(struct xfer *x)
{
  long status = 0;
  char *ct = NULL;
  curl_easy_getinfo(x->f->curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(x->f->curl, CURLINFO_CONTENT_TYPE, &ct);
  x->checked = true;
  x->coding = coding_of(header(x->f->curl, "Content-Encoding"));
  long v = 0;
  curl_easy_getinfo(x->f->curl, CURLINFO_HTTP_VERSION, &v);
  x->h2 = v == CURL_HTTP_VERSION_2_0;
  if (x->robots ? status / 100 != 2 : status != 200) {
    x->abort = FETCH_HTTP_ERROR;
    return false;
  }
  if (!x->robots && !is_page_type(ct)) {
    x->abort = FETCH_WRONG_TYPE;
    return false;
  }
  /* Without a content coding the Content-Length (a chunked response has
   * none) is the decoded size. A page over the cap is refused now rather
   * than read up to the cap. Otherwise the body gets its final size up
   * front (at its first charge, admit): growing by doubling leaves a
   * quarter of a typical page's block unused and copies the page at
   * every step, and the block is what a page holds while it waits for a
   * parse thread. */
  curl_off_t cl = -1;
  if (x->coding != 0 ||
      curl_easy_getinfo(x->f->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) !=
        CURLE_OK ||
      cl <= 0)
    return true;
  if (!x->robots && cl > (curl_off_t)x->max) {
    x->abort = FETCH_TOO_LARGE;
    return false;
  }
  x->reserve = (curl_off_t)x->max < cl ? x->max : (size_t)cl;
  return true;
}

/* admit: charge the budget for LEN more body bytes (and the block
 * reserved at the first: the Content-Length). A coded body's decoded
 * size is known only once decoded: it goes on only while the budget has
 * room for the rest of it up to the cap, and is charged as it decodes
 * (settle). Returns false, nothing charged, when X's transfer is to
 * pause for room (fetcher_may_pause). */
static bool admit(struct xfer *x, size_t len)
{
  fetcher_t *f = x->f;
  budget_t *b = f->cfg.budget;
  /* An HTTP/2 stream is charged over the limit, not paused: libcurl
   * 7.88's pausing of one stream of a shared connection is not to be
   * relied on. */
  bool may_pause = f->may_pause && f->cfg.on_pause != NULL && !x->h2;
  size_t want = x->body.len + len + 1;
  if (x->reserve + 1 > want)
    want = x->reserve + 1;
  if (b != NULL && x->coding != 0) {
    size_t rest = x->max - x->body.len + 1;
    if (may_pause && budget_room(b) < rest) {
      f->wants = rest;
      f->cfg.on_pause(f->cfg.pause_arg, f);
      return false;
    }
  } else if (b != NULL && want > x->charged) {
    size_t n = want - x->charged;
    if (!may_pause) {
      budget_force(b, n);
    } else if (!budget_take(b, n)) {
      f->wants = n;
      f->cfg.on_pause(f->cfg.pause_arg, f);
      return false;
    }
    x->charged += n;
  }
  if (x->reserve > 0) {
    (void)strbuf_reserve(&x->body, x->reserve);
    x->reserve = 0;
  }
  return true;
}

/* settle: charge what X's body block grew past its charge (doubling; a
 * coded body decoding to more than came). */
static void settle(struct xfer *x)
{
  budget_t *b = x->f->cfg.budget;
  if (b != NULL && x->body.cap > x->charged) {
    budget_force(b, x->body.cap - x->charged);
    x->charged = x->body.cap;
  }
}

/* add_decoded: append decoded body bytes, enforcing the size cap.
 * Returns false to stop the transfer. */
static bool add_decoded(struct xfer *x, const char *data, size_t n)
{
  if (n == 0)
    return true;
  if (x->body.len + n > x->max) {
    if (x->robots) {
      /* Keep the first MAX bytes and stop: enough to parse. */
      strbuf_add(&x->body, data, x->max - x->body.len);
      x->truncated = true;
    } else {
      x->abort = FETCH_TOO_LARGE;
    }
    return false;
  }
  strbuf_add(&x->body, data, n);
  return !x->body.oom;
}

/* inflate_add: undo the content coding of N bytes at DATA. */
static bool inflate_add(struct xfer *x, const char *data, size_t n)
{
  if (x->coding == 0)
    return add_decoded(x, data, n);
  if (x->coding < 0) {
    x->bad_coding = true;
    return false;
  }
  if (x->ztail)
    return true;
  if (!x->zinit) {
    memset(&x->z, 0, sizeof(x->z));
    if (inflateInit2(&x->z, 15 + 32) != Z_OK) /* gzip or zlib */
      return false;
    x->zinit = true;
  }
  char out[16384];
  x->z.next_in = (unsigned char *)data;
  x->z.avail_in = (unsigned)n;
  while (x->z.avail_in > 0) {
    if (x->zend) {
      /* gzip allows several members back to back; as gzip(1), bytes
       * that do not start with a member's first magic byte are junk
       * after the body and ignored. Anything else is a member, which
       * must decode whole. */
      if (x->z.next_in[0] != 0x1f) {
        x->ztail = true;
        return true;
      }
      if (inflateReset(&x->z) != Z_OK)
        return false;
      x->zend = false;
    }
    x->z.next_out = (unsigned char *)out;
    x->z.avail_out = sizeof(out);
    int rc = inflate(&x->z, Z_NO_FLUSH);
    if (!add_decoded(x, out, sizeof(out) - x->z.avail_out))
      return false;
    if (rc == Z_STREAM_END) {
      x->zend = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      x->bad_coding = true;
      return false;
    }
  }
  return true;
}

/* drain: whether to read on and drop the LEN bytes at hand of a body
 * that is not wanted, rather than stop the transfer: stopping it closes
 * the connection, and the next request to the host must open another
 * (on the bench's generated site, one request in nine reconnected after
 * a 404). Only a short body is read so: DRAIN_MAX in all, and none of
 * one whose Content-Length says it is longer, nor of one over the size
 * cap. */
static bool drain(struct xfer *x, size_t len)
{
  if (x->abort == FETCH_TOO_LARGE)
    return false;
  if (x->drained == 0) {
    curl_off_t cl = -1;
    if (curl_easy_getinfo(x->f->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
                          &cl) == CURLE_OK &&
        cl > (curl_off_t)DRAIN_MAX)
      return false;
  }
  x->drained += len;
  return x->drained <= DRAIN_MAX;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
  struct xfer *x = arg;
  size_t len = size * n;
  bool capture = x->f->cfg.capture;
  if (capture && (x->raw.oom || x->head.oom || x->req.oom))
    return 0;
  if (!x->checked)
    check(x);
  if (x->abort != FETCH_OK) {
    /* Not a page; read on to capture it, within bounds, or to keep the
     * connection, for UNWANTED_SECONDS at most (on_progress). */
    if (x->unwanted == 0)
      x->unwanted = clock_now();
    if (capture && x->raw.len < FETCH_CAPTURE_MAX)
      return len;
    if (drain(x, len))
      return len;
    if (capture)
      x->res->raw_truncated = true;
    return 0;
  }
  if (!admit(x, len))
    return CURL_WRITEFUNC_PAUSE; /* libcurl hands the same bytes again */
  bool go = inflate_add(x, data, len);
  settle(x);
  return go ? len : 0;
}

/* on_progress: stop draining a body found unwanted UNWANTED_SECONDS ago
 * (its outcome is decided: see fetcher_finish). One captured for the WARC
 * file is read on, within FETCH_CAPTURE_MAX and the timeouts, so that
 * what is archived does not depend on the link's speed. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
  struct xfer *x = arg;
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  return x->unwanted > 0 && !x->f->cfg.capture &&
         clock_now() - x->unwanted > UNWANTED_SECONDS;
}

/* on_debug: the exchange as it crossed the wire, for the WARC file; set
 * only when capturing. libcurl shows the bytes it reads here
 * (CURLINFO_DATA_IN) before it removes the chunked coding, and the
 * headers one line at a time. */
static int on_debug(CURL *c, curl_infotype type, char *data, size_t n,
                    void *arg)
{
  struct xfer *x = arg;
  (void)c;
  switch (type) {
  case CURLINFO_HEADER_OUT:
    strbuf_add(&x->req, data, n);
    break;
  case CURLINFO_HEADER_IN:
    /* A new status line starts a new response (e.g. after 100
     * Continue): the WARC file keeps the last. */
    if (n > 5 && strncmp(data, "HTTP/", 5) == 0)
      x->head.len = 0;
    strbuf_add(&x->head, data, n);
    break;
  case CURLINFO_DATA_IN:
    if (x->res->raw_truncated)
      break;
    if (x->raw.len + n > x->f->cfg.max_size + FETCH_CAPTURE_MAX)
      x->res->raw_truncated = true;
    else
      strbuf_add(&x->raw, data, n);
    break;
  default:
    break;
  }
  return 0; /* libcurl wants 0; on_body stops on a full buffer */
}

static bool transient(CURLcode rc)
{
  switch (rc) {
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_COULDNT_CONNECT:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_COULDNT_RESOLVE_HOST: /* unless final: no_such_name */
    return true;
  default:
    return false;
  }
}

/* no_such_name: whether the resolver says HOST does not exist (libcurl
 * gives one code for that and for a resolver that could not answer now,
 * which a retry may mend): asked again, once, after libcurl's failure. */
static bool no_such_name(const char *host)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC,
                            .ai_socktype = SOCK_STREAM };
  struct addrinfo *ai = NULL;
  int rc = getaddrinfo(host, NULL, &hints, &ai);
  if (ai != NULL)
    freeaddrinfo(ai);
  return rc == EAI_NONAME
#ifdef EAI_NODATA
      || rc == EAI_NODATA
#endif
    ;
}

/* net_error: RES failed in libcurl with RC (its message in ERRBUF, or
 * ""): outcome, code, whether a retry may mend it, and why, in words.
 * libcurl's message says the most ("SSL certificate problem: unable to
 * get local issuer certificate" where its code's text says "SSL peer
 * certificate or SSH remote key was not OK"); a name that does not
 * resolve is said plainly, and final if the resolver, asked again unless
 * NONBLOCKING, says it does not exist; an untrusted issuer names the
 * option that trusts a private CA. */
static void net_error(fetch_result_t *res, CURLcode rc, const char *errbuf,
                      bool nonblocking)
{
  res->outcome = FETCH_NET_ERROR;
  res->curl_code = (int)rc;
  const char *msg = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  const char *unresolved = "Could not resolve host: ";
  const char *host = rc == CURLE_COULDNT_RESOLVE_HOST &&
                         strncmp(msg, unresolved, strlen(unresolved)) == 0
                     ? msg + strlen(unresolved)
                     : NULL;
  bool untrusted = rc == CURLE_PEER_FAILED_VERIFICATION &&
                   (strstr(msg, "issuer") != NULL ||
                    strstr(msg, "self-signed") != NULL ||
                    strstr(msg, "self signed") != NULL);
  res->final = rc == CURLE_PEER_FAILED_VERIFICATION ||
               (host != NULL && !nonblocking && no_such_name(host));
  res->retryable = transient(rc) && !res->final;
  if (host != NULL)
    snprintf(res->error, sizeof(res->error), "cannot resolve host %s", host);
  else if (untrusted)
    /* libcurl's certificate messages are well under 180 bytes; the
     * precision keeps the hint whole. */
    snprintf(res->error, sizeof(res->error),
             "%.180s (its CA is not trusted here: --ca-certificate FILE "
             "trusts a private one)",
             msg);
  else
    snprintf(res->error, sizeof(res->error), "%s", msg);
}

/* headers_for: whether CFG's --header lines go with a request for URL
 * (normalised): its host is a seed's, and it is not http where that
 * seed was https. Not to a host a redirect or a --domain reached, which
 * the user did not name: they may be credentials. */
static bool headers_for(const fetch_config_t *cfg, const char *url)
{
  size_t ul, sl;
  const char *uh = url_host_normal(url, &ul);
  bool plain = strncmp(url, "http:", 5) == 0;
  for (size_t i = 0; uh != NULL && i < cfg->nheader_seeds; i++) {
    const char *seed = cfg->header_seeds[i];
    const char *sh = url_host_normal(seed, &sl);
    if (sh != NULL && sl == ul && memcmp(sh, uh, ul) == 0 &&
        !(plain && strncmp(seed, "https:", 6) == 0))
      return true;
  }
  return false;
}

/* setup: F's handle made ready to GET URL into X: our options, the
 * crawl's (TLS, User-Agent, headers, timeouts), X's callbacks; COND, if
 * not NULL, the request's headers in place of the --header lines
 * (cond_headers). */
static void setup(fetcher_t *f, const char *url, struct xfer *x,
                  const struct curl_slist *cond)
{
  CURL *c = f->curl;
  curl_easy_reset(c); /* keeps the connection cache */
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  /* Keep a connection open to every host this worker talks to (the
   * default, 5, makes a crawl over more hosts reconnect all the time);
   * fewer when there are many workers (webcrawl.c, file descriptors). */
  curl_easy_setopt(c, CURLOPT_MAXCONNECTS,
                   f->cfg.max_connects > 0 ? f->cfg.max_connects : 64L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  /* libcurl removes the chunked coding; we undo the content coding (see
   * the top of fetch.h). */
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "gzip, deflate");
  curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  if (f->cfg.capture) {
    curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_debug);
    curl_easy_setopt(c, CURLOPT_DEBUGDATA, x);
    curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
  }
  /* Proxies come from the environment (http_proxy, https_proxy,
   * no_proxy): libcurl's default, which this leaves alone. */
  if (f->cfg.ca_file != NULL || f->cfg.ca_dir != NULL) {
    /* Both set, NULL included: a CA option names every CA trusted,
     * whatever default bundle or directory libcurl was built with. */
    curl_easy_setopt(c, CURLOPT_CAINFO, f->cfg.ca_file);
    curl_easy_setopt(c, CURLOPT_CAPATH, f->cfg.ca_dir);
  }
  if (f->cfg.insecure) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_easy_setopt(c, CURLOPT_USERAGENT, f->cfg.user_agent);
  if (cond != NULL)
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, (struct curl_slist *)cond);
  else if (f->cfg.headers != NULL && headers_for(&f->cfg, url))
    curl_easy_setopt(c, CURLOPT_HTTPHEADER,
                     (struct curl_slist *)f->cfg.headers); /* only read */
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, f->cfg.connect_timeout);
  /* A transfer that may pause for memory has its whole-transfer limit
   * kept by the loop that pauses it, less the time paused
   * (fetcher_finish_timeout); libcurl's would count that time too. */
  curl_easy_setopt(c, CURLOPT_TIMEOUT,
                   f->cfg.on_pause != NULL ? 0L : f->cfg.timeout);
  /* A low-speed limit as long as the whole transfer's adds nothing (a
   * transfer that slow for that long has run that long). libcurl would
   * report it at the moment the loop's deadline comes, in other words
   * than a timeout's: it is left to the deadline, as libcurl's own
   * timeout takes it first. */
  bool same = f->cfg.on_pause != NULL &&
              f->cfg.low_speed_time >= f->cfg.timeout;
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT,
                   same ? 0L : f->cfg.low_speed_limit);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, f->cfg.low_speed_time);
  /* No CURLOPT_MAXFILESIZE: it compares the Content-Length, the
   * encoded size, with the cap, which counts decoded bytes (on_body;
   * check refuses an identity body by its length at the first byte). */
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
}

/* sendable: validator V may go back in a request header: not NULL, at
 * most FETCH_VALIDATOR_MAX bytes, no control byte but tab. A server
 * that sent a longer one or a stray control byte may well refuse it in
 * a request (nginx: 400 past 8 KB or on a control byte; others drop the
 * connection), and the page would then be lost where a fresh crawl saves
 * it; without the header the request is what a fresh crawl sends. */
static bool sendable(const char *v)
{
  if (v == NULL)
    return false;
  size_t n = 0;
  for (; v[n] != '\0'; n++)
    if (n >= FETCH_VALIDATOR_MAX ||
        ((unsigned char)v[n] < 0x20 && v[n] != '\t') ||
        (unsigned char)v[n] == 0x7f)
      return false;
  return true;
}

/* cond_headers: the headers of a conditional request for URL: the
 * --header lines that go there (headers_for), then If-None-Match with
 * ETAG and If-Modified-Since with LM (each if sendable).
 * Returns: owned by caller (curl_slist_free_all); NULL if there is no
 * validator, or out of memory (the request is then unconditional). */
static struct curl_slist *cond_headers(const fetcher_t *f, const char *url,
                                       const char *etag, const char *lm)
{
  const char *name[2] = { "If-None-Match", "If-Modified-Since" };
  const char *value[2] = { etag, lm };
  struct curl_slist *list = NULL, *l;
  if (f->cfg.headers != NULL && headers_for(&f->cfg, url))
    for (const struct curl_slist *h = f->cfg.headers; h; h = h->next) {
      if ((l = curl_slist_append(list, h->data)) == NULL) {
        curl_slist_free_all(list);
        return NULL;
      }
      list = l;
    }
  bool any = false;
  for (int i = 0; i < 2; i++) {
    if (!sendable(value[i]))
      continue;
    strbuf_t b = STRBUF_INIT;
    strbuf_addf(&b, "%s: %s", name[i], value[i]);
    l = b.oom ? NULL : curl_slist_append(list, b.p);
    strbuf_release(&b);
    if (l == NULL) {
      curl_slist_free_all(list);
      return NULL;
    }
    list = l;
    any = true;
  }
  if (!any) {
    curl_slist_free_all(list);
    return NULL;
  }
  return list;
}

/* prepare: F's handle and transfer state ready for URL (fetcher_prepare),
 * with the validators ETAG and LM (either may be NULL) as a conditional
 * request's headers, which F keeps until fetcher_finish. */
static void prepare(fetcher_t *f, const char *url, bool robots, size_t max,
                    const char *etag, const char *lm, fetch_result_t *res)
{
  memset(res, 0, sizeof(*res));
  res->retry_after = -1;
  curl_slist_free_all(f->cond);
  f->cond = etag != NULL || lm != NULL ? cond_headers(f, url, etag, lm) : NULL;
  f->x = (struct xfer){ .f = f, .res = res, .robots = robots, .max = max };
  setup(f, url, &f->x, f->cond);
  f->errbuf[0] = '\0';
  curl_easy_setopt(f->curl, CURLOPT_ERRORBUFFER, f->errbuf);
}

void fetcher_prepare(fetcher_t *f, const char *url, bool robots, size_t max,
                     fetch_result_t *res)
{
  prepare(f, url, robots, max, NULL, NULL, res);
}

void fetcher_prepare_cond(fetcher_t *f, const char *url, const char *etag,
                          const char *last_modified, fetch_result_t *res)
{
  prepare(f, url, false, f->cfg.max_size, etag, last_modified, res);
}

void *fetcher_handle(fetcher_t *f)
{
  return f->curl;
}

/* outcome: the outcome of X's transfer, which libcurl ended with RC,
 * and why, into RES (X->res); the rest of fetcher_finish. */
static void outcome(fetcher_t *f, struct xfer *x, CURLcode rc,
                    fetch_result_t *res)
{
  CURL *c = f->curl;
  char *ct = NULL;
  long head = 0;
  curl_off_t got = 0;
  curl_easy_getinfo(c, CURLINFO_HEADER_SIZE, &head);
  curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &got);
  res->received = (long long)head + (long long)got;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
  if (ct != NULL)
    res->content_type = strdup(ct);
  read_headers(c, res);

  if (rc == CURLE_OK && !x->checked)
    check(x); /* an empty body: decide now */
  if (x->bad_coding && x->abort == FETCH_OK) {
    /* reported by fetcher_finish */
  } else if (x->truncated) {
    res->outcome = FETCH_OK;
  } else if (x->abort != FETCH_OK) {
    /* Decided by the headers at the first body byte: what became of the
     * rest (cut short, trickling and stopped) changes nothing. */
    res->outcome = x->abort;
  } else if (rc != CURLE_OK) {
    net_error(res, rc, f->errbuf, f->cfg.nonblocking);
  } else {
    res->outcome = FETCH_OK;
  }

  if (res->outcome == FETCH_HTTP_ERROR && res->status == 304 &&
      f->cond != NULL) {
    res->outcome = FETCH_NOT_MODIFIED;
  } else if (res->outcome == FETCH_HTTP_ERROR) {
    long s = res->status;
    if ((s == 301 || s == 302 || s == 303 || s == 307 || s == 308) &&
        res->location != NULL && res->location[0] != '\0') {
      res->outcome = FETCH_REDIRECT;
    } else {
      res->retryable = s >= 500 || s == 429;
      const char *text = fetch_status_text(s);
      snprintf(res->error, sizeof(res->error), "HTTP %ld%s%s", s,
               text[0] ? " " : "", text);
    }
  } else if (res->outcome == FETCH_WRONG_TYPE) {
    snprintf(res->error, sizeof(res->error), "not a page: %s",
             ct ? ct : "no Content-Type");
  } else if (res->outcome == FETCH_TOO_LARGE) {
    snprintf(res->error, sizeof(res->error), "larger than %zu bytes", x->max);
  }
}

void fetcher_finish(fetcher_t *f, int curl_code)
{
  struct xfer *x = &f->x;
  fetch_result_t *res = x->res;
  CURL *c = f->curl;
  CURLcode rc = (CURLcode)curl_code;
  /* A compressed body must end with its stream: one cut short would be
   * saved as a truncated page. */
  if (rc == CURLE_OK && x->abort == FETCH_OK && !x->truncated && x->zinit &&
      !x->zend && !x->ztail)
    x->bad_coding = true;
  if (x->zinit)
    inflateEnd(&x->z);
  /* What the WARC file gets is not the whole body when anything cut the
   * transfer short. */
  if (rc != CURLE_OK || x->abort != FETCH_OK || x->truncated || x->bad_coding)
    res->raw_truncated = res->raw_truncated || x->raw.len > 0 || rc != CURLE_OK;
  res->body = x->body.p;
  res->len = x->body.len;
  res->budget = f->cfg.budget;
  res->charged = x->charged;
  if (res->charged > x->body.cap) { /* admitted more than came */
    budget_give(res->budget, res->charged - x->body.cap);
    res->charged = x->body.cap;
  }
  res->landed = res->charged > 0;
  budget_land(res->budget, (long long)res->charged);
  if (f->cfg.capture) {
    char *ip = NULL;
    if (curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip)
      snprintf(res->ip, sizeof(res->ip), "%s", ip);
    res->raw_request = x->req.p;
    res->raw_request_len = x->req.len;
    res->raw_head = x->head.p;
    res->raw_head_len = x->head.len;
    res->raw_body = x->raw.p;
    res->raw_body_len = x->raw.len;
    const char *te = header(c, "Transfer-Encoding");
    res->raw_chunked = te != NULL && has_token(te, "chunked");
  }
  if (x->bad_coding && x->abort == FETCH_OK) {
    res->outcome = FETCH_NET_ERROR;
    snprintf(res->error, sizeof(res->error),
             "cannot decode the body "
             "(its Content-Encoding is broken or unknown)");
    rc = CURLE_OK;
  }
  outcome(f, x, rc, res);
  if (res->outcome == FETCH_OK) {
    if (res->body == NULL)
      res->body = calloc(1, 1);
    if (res->body != NULL) {
      res->body[res->len] = '\0';
    } else {
      res->outcome = FETCH_NET_ERROR;
      snprintf(res->error, sizeof(res->error), "out of memory");
    }
  } else {
    fetch_result_drop_body(res);
    res->len = 0;
  }
  /* The buffers are RES's now (or freed): the next prepare starts
   * afresh. */
  memset(x, 0, sizeof(*x));
  f->wants = 0;
  curl_slist_free_all(f->cond);
  f->cond = NULL;
}

void fetcher_finish_timeout(fetcher_t *f, long ms)
{
  /* In libcurl's words for its own limit, so that a log reads the same
   * whichever kept it. */
  curl_off_t got = 0, all = -1;
  curl_easy_getinfo(f->curl, CURLINFO_SIZE_DOWNLOAD_T, &got);
  curl_easy_getinfo(f->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &all);
  if (all >= 0)
    snprintf(f->errbuf, sizeof(f->errbuf),
             "Operation timed out after %ld milliseconds with %lld out of "
             "%lld bytes received",
             ms, (long long)got, (long long)all);
  else
    snprintf(f->errbuf, sizeof(f->errbuf),
             "Operation timed out after %ld milliseconds with %lld bytes "
             "received",
             ms, (long long)got);
  fetcher_finish(f, CURLE_OPERATION_TIMEDOUT);
}

void fetcher_may_pause(fetcher_t *f, bool may)
{
  f->may_pause = may;
}

size_t fetcher_wants(const fetcher_t *f)
{
  return f->wants;
}

int fetcher_resume(fetcher_t *f)
{
  f->wants = 0;
  /* The bytes held back are handed to on_body in this call: a failure
   * there comes back here, not to the transfer (see fetch.h). */
  return (int)curl_easy_pause(f->curl, CURLPAUSE_CONT);
}

void fetcher_perform(fetcher_t *f)
{
  fetcher_finish(f, (int)curl_easy_perform(f->curl));
}

void fetcher_get_robots(fetcher_t *f, const char *url, size_t max,
                        fetch_result_t *res)
{
  prepare(f, url, true, max, NULL, NULL, res);
  fetcher_perform(f);
}
