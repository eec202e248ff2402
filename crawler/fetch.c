/* fetch.c: see fetch.h. */
#include "fetch.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct fetcher {
  CURL *curl;
  fetch_config_t cfg;
};

/* The state of one transfer, shared by the two callbacks. */
struct xfer {
  fetcher_t *f;
  fetch_result_t *res;
  size_t cap;
  bool robots;           /* fetcher_get_robots: any 2xx, any type */
  size_t max;            /* body cap */
  bool checked;          /* status and type checked at the first body byte */
  fetch_outcome_t abort; /* why the write callback stopped, or FETCH_OK */
  bool truncated;        /* robots: stopped at the cap on purpose */
};

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
  free(f);
}

void fetch_result_free(fetch_result_t *res)
{
  if (res == NULL)
    return;
  free(res->body);
  free(res->content_type);
  free(res->location);
  free(res->x_robots_tag);
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

/* header_value: if LINE (LEN bytes, no NUL) is header NAME, a malloc'd copy
 * of its trimmed value; else NULL. */
static char *header_value(const char *line, size_t len, const char *name)
{
  size_t n = strlen(name);
  if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
    return NULL;
  const char *v = line + n + 1, *end = line + len;
  while (v < end && (*v == ' ' || *v == '\t'))
    v++;
  while (end > v && isspace((unsigned char)end[-1]))
    end--;
  char *s = malloc((size_t)(end - v) + 1);
  if (s != NULL) {
    memcpy(s, v, (size_t)(end - v));
    s[end - v] = '\0';
  }
  return s;
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

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
  struct xfer *x = arg;
  size_t len = size * n;
  char *v;
  /* A new status line starts a new response (e.g. after 100 Continue):
   * forget what the previous one said. */
  if (len > 5 && strncmp(line, "HTTP/", 5) == 0) {
    free(x->res->location);
    free(x->res->x_robots_tag);
    x->res->location = x->res->x_robots_tag = NULL;
    x->res->retry_after = -1;
  } else if ((v = header_value(line, len, "Location")) != NULL) {
    free(x->res->location);
    x->res->location = v;
  } else if ((v = header_value(line, len, "Retry-After")) != NULL) {
    x->res->retry_after = retry_after(v);
    free(v);
  } else if ((v = header_value(line, len, "X-Robots-Tag")) != NULL) {
    char *old = x->res->x_robots_tag;
    if (old == NULL) {
      x->res->x_robots_tag = v;
    } else {
      char *both = malloc(strlen(old) + strlen(v) + 3);
      if (both != NULL)
        sprintf(both, "%s, %s", old, v);
      free(old);
      free(v);
      x->res->x_robots_tag = both;
    }
  }
  return len;
}

/* check: at the first body byte, decide whether the body is wanted. */
static bool check(struct xfer *x)
{
  long status = 0;
  char *ct = NULL;
  curl_easy_getinfo(x->f->curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(x->f->curl, CURLINFO_CONTENT_TYPE, &ct);
  x->checked = true;
  if (x->robots ? status / 100 != 2 : status != 200) {
    x->abort = FETCH_HTTP_ERROR;
    return false;
  }
  if (!x->robots && !is_page_type(ct)) {
    x->abort = FETCH_WRONG_TYPE;
    return false;
  }
  return true;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
  struct xfer *x = arg;
  fetch_result_t *r = x->res;
  size_t len = size * n;
  if (!x->checked && !check(x))
    return 0;
  if (r->len + len > x->max) {
    if (x->robots) {
      /* Keep the first MAX bytes and stop: enough to parse. */
      len = x->max - r->len;
      x->abort = FETCH_OK;
      x->truncated = true;
      if (len == 0)
        return 0;
    } else {
      x->abort = FETCH_TOO_LARGE;
      return 0;
    }
  }
  if (r->len + len + 1 > x->cap) {
    size_t cap = x->cap ? x->cap : 16384;
    while (cap < r->len + len + 1)
      cap *= 2;
    char *b = realloc(r->body, cap);
    if (b == NULL)
      return 0;
    r->body = b;
    x->cap = cap;
  }
  memcpy(r->body + r->len, data, len);
  r->len += len;
  return x->truncated ? 0 : size * n;
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
  case CURLE_COULDNT_RESOLVE_HOST:
    return true;
  default:
    return false;
  }
}

static void get(fetcher_t *f, const char *url, bool robots, size_t max,
                fetch_result_t *res)
{
  memset(res, 0, sizeof(*res));
  res->retry_after = -1;
  struct xfer x = { f, res, 0, robots, max, false, FETCH_OK, false };
  CURL *c = f->curl;

  curl_easy_reset(c);  /* keeps the connection cache */
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_USERAGENT, f->cfg.user_agent);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, f->cfg.connect_timeout);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, f->cfg.timeout);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, f->cfg.low_speed_limit);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, f->cfg.low_speed_time);
  if (!robots)
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
  char errbuf[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);

  CURLcode rc = curl_easy_perform(c);
  char *ct = NULL;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
  if (ct != NULL)
    res->content_type = strdup(ct);

  if (rc == CURLE_OK && !x.checked)
    check(&x);  /* an empty body: decide now */
  if (x.abort == FETCH_OK && rc == CURLE_FILESIZE_EXCEEDED)
    x.abort = FETCH_TOO_LARGE;
  if (x.truncated) {
    res->outcome = FETCH_OK;
  } else if (x.abort != FETCH_OK &&
      (rc == CURLE_OK || rc == CURLE_WRITE_ERROR ||
       rc == CURLE_FILESIZE_EXCEEDED)) {
    res->outcome = x.abort;
  } else if (rc != CURLE_OK) {
    res->outcome = FETCH_NET_ERROR;
    res->retryable = transient(rc);
    snprintf(res->error, sizeof(res->error), "%s",
             errbuf[0] ? errbuf : curl_easy_strerror(rc));
  } else {
    res->outcome = FETCH_OK;
  }

  if (res->outcome == FETCH_HTTP_ERROR) {
    long s = res->status;
    if ((s == 301 || s == 302 || s == 303 || s == 307 || s == 308) &&
        res->location != NULL && res->location[0] != '\0') {
      res->outcome = FETCH_REDIRECT;
    } else {
      res->retryable = s >= 500 || s == 429;
      snprintf(res->error, sizeof(res->error), "HTTP status %ld", s);
    }
  } else if (res->outcome == FETCH_WRONG_TYPE) {
    snprintf(res->error, sizeof(res->error), "not a page: %s",
             ct ? ct : "no Content-Type");
  } else if (res->outcome == FETCH_TOO_LARGE) {
    snprintf(res->error, sizeof(res->error), "larger than %zu bytes", max);
  }
  if (res->outcome == FETCH_OK) {
    if (res->body == NULL)
      res->body = calloc(1, 1);
    if (res->body != NULL)
      res->body[res->len] = '\0';
    else
      res->outcome = FETCH_NET_ERROR;
  } else {
    free(res->body);
    res->body = NULL;
    res->len = 0;
  }
}

void fetcher_get(fetcher_t *f, const char *url, fetch_result_t *res)
{
  get(f, url, false, f->cfg.max_size, res);
}

void fetcher_get_robots(fetcher_t *f, const char *url, size_t max,
                        fetch_result_t *res)
{
  get(f, url, true, max, res);
}
