/* store.c: see store.h. Two hashtables: URL -> struct entry (the
 * per-URL facts of saved pages), and the URL an item was added as ->
 * struct record (its outcome). This file is the one reader of the outcome
 * lines and the links files (formats: pagedir.h), which pstore_record.c
 * writes. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtable.h"
#include "hosts.h"
#include "page.h"
#include "pagedir.h"
#include "pstore_int.h"
#include "url.h"

struct entry {
  int id;         /* 0 if the URL has no page of its own */
  char *redirect; /* owned; NULL if none */
  char *ctype;    /* owned; NULL for plain text/html */
  char *xrobots;  /* owned; NULL if none */
  char *etag;     /* owned; NULL if none */
  char *lastmod;  /* owned; NULL if none */
  char *sitemap;  /* owned: the sitemap URLs of a seed saved under
                     --sitemaps, space-separated ("" for none); NULL if
                     the journal has no such line */
};

/* The kinds of outcome lines (pstore_int.h's words). */
enum rkind {
  R_FAILED = PSTORE_FAILED,
  R_ROBOTS = PSTORE_ROBOTS,
  R_BINARY = PSTORE_BINARY,
  R_DUPLICATE = PSTORE_DUPLICATE,
  R_NOINDEX = PSTORE_NOINDEX,
  R_NONE = PSTORE_NKINDS
};

struct record {
  enum rkind kind;
  int nhops;
  char **hops; /* owned: the URL after each redirect; the last is where
                  the item ended */
  /* R_FAILED: */
  fetch_outcome_t outcome;
  long status;
  int curl_code;
  char *why; /* owned; R_FAILED: the error, R_ROBOTS: the reason */
  /* R_NOINDEX: */
  bool nofollow;
  int links; /* K of .noindex-K, 0 if none */
};

struct store {
  char *dir;
  hashtable_t *urls;
  hashtable_t *records;
  int count;
  int validated; /* pages with an etag or lastmod line */
  bool nomem;
  bool bad; /* an outcome line is malformed */
};

/* entry_get: the entry for URL, created if new. */
static struct entry *entry_get(store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  if (e != NULL)
    return e;
  e = calloc(1, sizeof(*e));
  if (e == NULL || !hashtable_insert(s->urls, url, e)) {
    free(e);
    s->nomem = true;
    return NULL;
  }
  return e;
}

static void record_delete(void *item)
{
  struct record *r = item;
  if (r == NULL)
    return;
  for (int i = 0; i < r->nhops; i++)
    free(r->hops[i]);
  free(r->hops);
  free(r->why);
  free(r);
}

/* word: the next space-delimited word of *P (cut in place), *P moved past
 * it; NULL if none is left. */
static char *word(char **p)
{
  if (*p == NULL || **p == '\0')
    return NULL;
  char *w = *p, *sp = strchr(w, ' ');
  if (sp != NULL)
    *sp++ = '\0';
  *p = sp;
  return w;
}

/* number: W as a decimal number from 0 to MAX, or -1. */
static long number(const char *w, long max)
{
  char *end;
  if (w == NULL || *w < '0' || *w > '9')
    return -1;
  long n = strtol(w, &end, 10);
  return *end == '\0' && n <= max ? n : -1;
}

/* lookup: the index of W in the N words of V, or N. */
static int lookup(const char *w, const char *const *v, int n)
{
  int i = 0;
  while (i < n && (w == NULL || strcmp(w, v[i]) != 0))
    i++;
  return i;
}

/* record_parse: the outcome of kind K in B, the rest of its line
 * (pagedir.h: "N HOPS.. " and what the kind adds); NULL if malformed
 * (S->bad) or out of memory (S->nomem). */
static struct record *record_parse(store_t *s, enum rkind k, const char *b)
{
  char *copy = strdup(b), *p = copy;
  struct record *r = calloc(1, sizeof(*r));
  long n = number(word(&p), 100000);
  if (copy == NULL || r == NULL) {
    s->nomem = true;
    goto fail;
  }
  r->kind = k;
  if (n < 0 || (k == R_DUPLICATE && n == 0))
    goto bad;
  if (n > 0 && (r->hops = calloc((size_t)n, sizeof(char *))) == NULL) {
    s->nomem = true;
    goto fail;
  }
  for (; r->nhops < n; r->nhops++) {
    char *h = word(&p);
    if (h == NULL)
      goto bad;
    if ((r->hops[r->nhops] = strdup(h)) == NULL) {
      s->nomem = true;
      goto fail;
    }
  }
  if (k == R_FAILED) {
    int o = lookup(word(&p), pstore_outcomes, PSTORE_NOUTCOMES);
    long status = number(word(&p), 999), code = number(word(&p), 100000);
    if (o < FETCH_HTTP_ERROR || o > FETCH_NET_ERROR || status < 0 || code < 0 ||
        p == NULL)
      goto bad;
    r->outcome = (fetch_outcome_t)o;
    r->status = status;
    r->curl_code = (int)code;
  } else if (k == R_NOINDEX) {
    const char *f = word(&p);
    long links = number(word(&p), 1L << 30);
    if (f == NULL || (strcmp(f, "follow") != 0 && strcmp(f, "nofollow") != 0) ||
        links < 0 || p != NULL)
      goto bad;
    r->nofollow = f[0] == 'n';
    r->links = (int)links;
  } else if (k == R_ROBOTS && p == NULL) {
    goto bad;
  } else if ((k == R_BINARY || k == R_DUPLICATE) && p != NULL) {
    goto bad;
  }
  if ((k == R_FAILED || k == R_ROBOTS) && (r->why = strdup(p)) == NULL) {
    s->nomem = true;
    goto fail;
  }
  free(copy);
  return r;
bad:
  s->bad = true;
fail:
  record_delete(r);
  free(copy);
  return NULL;
}

static void on_journal(void *arg, const char *kind, int id, const char *a,
                       const char *b)
{
  (void)id;
  store_t *s = arg;
  enum rkind k = (enum rkind)lookup(kind, pstore_kinds, R_NONE);
  if (k != R_NONE) {
    /* The first outcome of an item stands (an item has one). */
    if (hashtable_find(s->records, a) != NULL)
      return;
    struct record *r = record_parse(s, k, b);
    if (r != NULL && !hashtable_insert(s->records, a, r)) {
      record_delete(r);
      s->nomem = true;
    }
    return;
  }
  struct entry *e = entry_get(s, a);
  if (e == NULL)
    return;
  if (strcmp(kind, "sitemap") == 0) {
    if (e->sitemap == NULL)
      s->nomem |= (e->sitemap = strdup(b)) == NULL;
    return;
  }
  bool had = e->etag != NULL || e->lastmod != NULL;
  char **field = strcmp(kind, "redirect") == 0 ? &e->redirect
               : strcmp(kind, "ctype") == 0    ? &e->ctype
               : strcmp(kind, "xrobots") == 0  ? &e->xrobots
               : strcmp(kind, "etag") == 0     ? &e->etag
               : strcmp(kind, "lastmod") == 0  ? &e->lastmod
                                               : NULL;
  if (field != NULL && *field == NULL && b[0] != '\0')
    s->nomem |= (*field = strdup(b)) == NULL;
  if (!had && e->id > 0 && (e->etag != NULL || e->lastmod != NULL))
    s->validated++;
}

static void entry_delete(void *item)
{
  struct entry *e = item;
  free(e->redirect);
  free(e->ctype);
  free(e->xrobots);
  free(e->etag);
  free(e->lastmod);
  free(e->sitemap);
  free(e);
}

store_t *store_open(const char *dir, bool pages, char *err, size_t n)
{
  int count = pages ? pagedir_validate(dir, err, n)
                    : pagedir_validate_ids(dir, err, n);
  if (count < 0)
    return NULL;
  store_t *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->dir = strdup(dir)) == NULL ||
      (s->urls = hashtable_new(count + 16)) == NULL ||
      (s->records = hashtable_new(64)) == NULL) {
    store_close(s);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  s->count = count;
  for (int id = 1; id <= count && !s->nomem; id++) {
    char *url = pagedir_load_url(dir, id);
    if (url == NULL && errno != ENOMEM) {
      /* Unreadable up to its URL: that page's fault, not memory's. */
      snprintf(err, n, "'%s/%d' is not a well-formed page: %s", dir, id,
               errno == EINVAL ? "not in the page format, or a damaged "
                                 "gzip stream"
                               : strerror(errno));
      store_close(s);
      return NULL;
    }
    struct entry *e = url ? entry_get(s, url) : NULL;
    if (e != NULL && e->id == 0)
      e->id = id;
    s->nomem |= url == NULL;
    free(url);
  }
  if (!s->nomem && pagedir_journal(dir, on_journal, s) != 0) {
    snprintf(err, n, "cannot read the journal of '%s'", dir);
    store_close(s);
    return NULL;
  }
  if (s->bad) {
    snprintf(err, n, "the journal of '%s' holds a malformed outcome", dir);
    store_close(s);
    return NULL;
  }
  if (s->nomem) {
    snprintf(err, n, "cannot index '%s': out of memory", dir);
    store_close(s);
    return NULL;
  }
  return s;
}

int store_id(const store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  return e ? e->id : 0;
}

const char *store_redirect(const store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  return e ? e->redirect : NULL;
}

const char *store_sitemap(const store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  return e ? e->sitemap : NULL;
}

const char *store_x_robots_tag(const store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  return e ? e->xrobots : NULL;
}

int store_count(const store_t *s)
{
  return s->count;
}

int store_validators(const store_t *s, const char *url, const char **etag,
                     const char **lastmod)
{
  struct entry *e = hashtable_find(s->urls, url);
  *etag = e ? e->etag : NULL;
  *lastmod = e ? e->lastmod : NULL;
  return e && e->redirect == NULL ? e->id : 0;
}

int store_validated(const store_t *s)
{
  return s->validated;
}

/* answer_nomem: *R says the answer was lost to out of memory. Returns 0
 * (an answer, as store_fetch's). */
static int answer_nomem(fetch_result_t *r)
{
  fetch_result_free(r);
  r->outcome = FETCH_NET_ERROR;
  snprintf(r->error, sizeof(r->error), "out of memory");
  return 0;
}

int store_fetch(const store_t *s, const char *url, bool every,
                fetch_result_t *r)
{
  memset(r, 0, sizeof(*r));
  r->retry_after = -1;
  struct entry *e = hashtable_find(s->urls, url);
  if (e != NULL && e->redirect != NULL) {
    r->outcome = FETCH_REDIRECT;
    r->status = 301;
    r->location = strdup(e->redirect);
    if (r->location == NULL)
      goto nomem;
    return 0;
  }
  if (e != NULL && e->id > 0) {
    pagedir_page_t page;
    if (pagedir_load(s->dir, e->id, &page) != 0) {
      r->outcome = FETCH_NET_ERROR;
      snprintf(r->error, sizeof(r->error), "cannot read saved page %d: %s",
               e->id, strerror(errno));
      return 0;
    }
    /* The file is not the page indexed at store_open: the directory
     * changed since (another crawl into it, files moved). Its body is
     * another URL's; --since must not save it under this one. */
    if (strcmp(page.url, url) != 0) {
      pagedir_page_free(&page);
      r->outcome = FETCH_NET_ERROR;
      snprintf(r->error, sizeof(r->error),
               "saved page %d is no longer this URL's (the directory "
               "changed)",
               e->id);
      return 0;
    }
    r->outcome = FETCH_OK;
    r->status = 200;
    r->body = page.body;
    r->len = page.len;
    free(page.url);
    /* The headers that decided how the page was read, as served. */
    r->content_type = strdup(e->ctype ? e->ctype : "text/html");
    if (r->content_type == NULL ||
        (e->xrobots != NULL && (r->x_robots_tag = strdup(e->xrobots)) == NULL))
      goto nomem;
    return e->id;
  }
  if (!every)
    return -1;
  r->outcome = FETCH_HTTP_ERROR;
  r->status = 404;
  snprintf(r->error, sizeof(r->error), "not in the saved crawl");
  return 0;
nomem:
  return answer_nomem(r);
}

void store_close(store_t *s)
{
  if (s == NULL)
    return;
  hashtable_delete(s->urls, entry_delete);
  hashtable_delete(s->records, record_delete);
  free(s->dir);
  free(s);
}

/* ---- outcomes: reading ---- */

static void links_free(struct link *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(v[i].url);
    free(v[i].key);
  }
  free(v);
}

/* links_parse: the links in BODY (LEN bytes, NUL-terminated), the part
 * of a links file after its depth line, into A. Returns 0, or -1 with
 * errno EINVAL (malformed) or ENOMEM. */
static int links_parse(char *body, size_t len, store_answer_t *a)
{
  size_t cap = 0;
  char *line = body, *end = body + len;
  while (line < end) {
    char *nl = memchr(line, '\n', (size_t)(end - line));
    char *sp = nl ? memchr(line, ' ', (size_t)(nl - line)) : NULL;
    if (sp != NULL)
      *sp = '\0';
    int cls = sp ? lookup(line, pstore_classes, PSTORE_NCLASSES)
                 : PSTORE_NCLASSES;
    if (cls == PSTORE_NCLASSES) {
      errno = EINVAL;
      return -1;
    }
    if (a->nlinks == cap) {
      cap = cap ? 2 * cap : 16;
      struct link *v = realloc(a->links, cap * sizeof(*v));
      if (v == NULL) {
        errno = ENOMEM;
        return -1;
      }
      a->links = v;
    }
    /* Unescape in place: "\\" and "\n" are never longer than what
     * they stand for. */
    char *w = sp + 1;
    for (char *q = sp + 1; q < nl; q++) {
      if (*q == '\\' && q + 1 < nl && (q[1] == '\\' || q[1] == 'n'))
        *w++ = *++q == 'n' ? '\n' : '\\';
      else
        *w++ = *q;
    }
    *w = '\0';
    struct link *l = &a->links[a->nlinks];
    l->cls = cls;
    l->url = strdup(sp + 1);
    l->key = l->url && cls == L_CANDIDATE ? url_host_key_normal(l->url) : NULL;
    if (l->url == NULL || (cls == L_CANDIDATE && l->key == NULL)) {
      free(l->url);
      free(l->key);
      errno = ENOMEM;
      return -1;
    }
    a->nlinks++;
    line = nl + 1;
  }
  return 0;
}

/* links_load: the links of links file K of S into A. Returns 0 or -1. */
static int links_load(const store_t *s, int k, store_answer_t *a)
{
  char name[32];
  snprintf(name, sizeof(name), ".noindex-%d", k);
  pagedir_page_t page;
  if (pagedir_load_name(s->dir, name, &page) != 0)
    return -1;
  int rc = links_parse(page.body, page.len, a);
  int e = errno;
  pagedir_page_free(&page);
  if (rc != 0) {
    links_free(a->links, a->nlinks);
    a->links = NULL;
    a->nlinks = 0;
    errno = e;
  }
  return rc;
}

/* replay: answer request HOP of an item for URL from its outcome REC;
 * -1 if REC does not know the request (then S's per-URL facts answer). */
static int replay(const store_t *s, const struct record *rec, int hop,
                  const char *url, fetch_result_t *r, store_answer_t *a)
{
  if (hop > 0 && (hop > rec->nhops || strcmp(url, rec->hops[hop - 1]) != 0))
    return -1;
  if (hop < rec->nhops) {
    r->outcome = FETCH_REDIRECT;
    r->status = 301;
    if ((r->location = strdup(rec->hops[hop])) == NULL)
      goto nomem;
    return 0;
  }
  switch (rec->kind) {
  case R_FAILED:
    r->outcome = rec->outcome;
    r->status = rec->status;
    r->curl_code = rec->curl_code;
    snprintf(r->error, sizeof(r->error), "%s", rec->why);
    return 0;
  case R_ROBOTS:
    a->verdict = STORE_ROBOTS;
    a->robots = rec->why;
    return 0;
  case R_DUPLICATE: {
    /* The page it ended at, if saved, as any other request for it. */
    int id = store_fetch(s, url, false, r);
    if (id > 0)
      return id;
    fetch_result_free(r);
    r->retry_after = -1;
    break;
  }
  case R_NOINDEX:
    a->nofollow = rec->nofollow;
    if (rec->links > 0 && links_load(s, rec->links, a) != 0) {
      r->outcome = FETCH_NET_ERROR;
      snprintf(r->error, sizeof(r->error), "cannot read the saved links %d: %s",
               rec->links, strerror(errno));
      return 0;
    }
    break;
  default:
    break;
  }
  a->verdict = rec->kind == R_BINARY  ? STORE_BINARY
             : rec->kind == R_NOINDEX ? STORE_NOINDEX
                                      : STORE_DUPLICATE;
  r->outcome = FETCH_OK;
  r->status = 200;
  return 0;
nomem:
  return answer_nomem(r);
}

int store_answer(const store_t *s, const char *first, int hop, const char *url,
                 bool every, fetch_result_t *r, store_answer_t *a)
{
  memset(a, 0, sizeof(*a));
  memset(r, 0, sizeof(*r));
  r->retry_after = -1;
  const struct record *rec = hashtable_find(s->records, first);
  if (rec != NULL && !(every && rec->kind == R_NOINDEX)) {
    int rc = replay(s, rec, hop, url, r, a);
    if (rc != -1)
      return rc;
  }
  return store_fetch(s, url, every, r);
}

bool store_replayed(const store_t *s, const char *first)
{
  return hashtable_find(s->records, first) != NULL;
}

struct hosts_arg {
  void (*fn)(void *arg, const char *key, const char *why);
  void *arg;
};

static void unreachable_host(void *arg, const char *first, void *item)
{
  struct hosts_arg *h = arg;
  const struct record *r = item;
  if (r->kind != R_ROBOTS || !hosts_is_unreachable(r->why))
    return;
  char *key = url_host_key_normal(r->nhops ? r->hops[r->nhops - 1] : first);
  if (key != NULL)
    h->fn(h->arg, key, r->why);
  free(key);
}

void store_unreachable_hosts(const store_t *s,
                             void (*fn)(void *arg, const char *key,
                                        const char *why),
                             void *arg)
{
  struct hosts_arg h = { fn, arg };
  hashtable_iterate(s->records, &h, unreachable_host);
}
