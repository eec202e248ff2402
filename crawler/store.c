/* store.c: see store.h. One hashtable, URL -> struct entry. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtable.h"
#include "pagedir.h"

struct entry {
  int id;         /* 0 if the URL has no page of its own */
  char *redirect; /* owned; NULL if none */
  char *ctype;    /* owned; NULL for plain text/html */
  char *xrobots;  /* owned; NULL if none */
};

struct store {
  char *dir;
  hashtable_t *urls;
  int count;
  bool nomem;
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

static void on_journal(void *arg, const char *kind, int id, const char *a,
                       const char *b)
{
  (void)id;
  store_t *s = arg;
  struct entry *e = entry_get(s, a);
  if (e == NULL)
    return;
  char **field = strcmp(kind, "redirect") == 0 ? &e->redirect
               : strcmp(kind, "ctype") == 0    ? &e->ctype
               : strcmp(kind, "xrobots") == 0  ? &e->xrobots
                                               : NULL;
  if (field != NULL && *field == NULL && b[0] != '\0')
    s->nomem |= (*field = strdup(b)) == NULL;
}

static void entry_delete(void *item)
{
  struct entry *e = item;
  free(e->redirect);
  free(e->ctype);
  free(e->xrobots);
  free(e);
}

store_t *store_open(const char *dir, char *err, size_t n)
{
  int count = pagedir_validate(dir, err, n);
  if (count < 0)
    return NULL;
  store_t *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->dir = strdup(dir)) == NULL ||
      (s->urls = hashtable_new(count + 16)) == NULL) {
    if (s != NULL)
      free(s->dir);
    free(s);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  s->count = count;
  for (int id = 1; id <= count && !s->nomem; id++) {
    char *url = pagedir_load_url(dir, id);
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

const char *store_content_type(const store_t *s, const char *url)
{
  struct entry *e = hashtable_find(s->urls, url);
  return e ? e->ctype : NULL;
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

const char *store_dir(const store_t *s)
{
  return s->dir;
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
  fetch_result_free(r);
  r->outcome = FETCH_NET_ERROR;
  snprintf(r->error, sizeof(r->error), "out of memory");
  return 0;
}

void store_close(store_t *s)
{
  if (s == NULL)
    return;
  hashtable_delete(s->urls, entry_delete);
  free(s->dir);
  free(s);
}
