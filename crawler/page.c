/* page.c: see page.h. No locks: a record has one user at a time. The
 * scan's sink (struct scan, on_*) is links.h's, one per page scanned. */
#include "page.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "links.h"
#include "pagecheck.h"
#include "pagedir.h"
#include "robots.h"
#include "url.h"

struct page *page_of(fitem_t *it)
{
  if (it->data == NULL)
    it->data = calloc(1, sizeof(struct page));
  return it->data;
}

void page_robots(struct page *p, unsigned d)
{
  if (d & ROBOTS_NOINDEX)
    p->noindex = true;
  if (d & ROBOTS_NOFOLLOW)
    p->nofollow = true;
}

void page_sniff(struct page *p, int format, const char *agent)
{
  fetch_result_t *r = &p->res;
  pagecheck_kind_t k = pagecheck_sniff(r, format, agent);
  p->sniffed = true;
  p->binary = k.binary;
  p->text = k.text;
  page_robots(p, k.robots);
  if (p->binary) {
    free(r->body);
    r->body = NULL;
  }
}

void page_charge(struct page *p, budget_t *budget, size_t extra)
{
  const fetch_result_t *r = &p->res;
  size_t n = sizeof(*p) + extra + 2 * BUDGET_OVERHEAD;
  if (r->content_type)
    n += strlen(r->content_type) + 1 + BUDGET_OVERHEAD;
  if (r->x_robots_tag)
    n += strlen(r->x_robots_tag) + 1 + BUDGET_OVERHEAD;
  for (int i = 0; i < p->hops; i++)
    n += strlen(p->chain[i]) + 1 + BUDGET_OVERHEAD;
  p->budget = budget;
  budget_force(budget, n);
  p->held += n;
  p->charged = true;
}

/* link_cost: what L costs the budget in memory. */
static size_t link_cost(const struct link *l)
{
  return sizeof(*l) + strlen(l->url) + 1 + BUDGET_OVERHEAD +
         (l->key ? strlen(l->key) + 1 + BUDGET_OVERHEAD : 0);
}

/* A link on disk: its class, its key's length, the key, the URL. */
struct spilled {
  uint8_t cls;
  uint32_t keylen;
};

/* spill_link: append L to P's spill file (DIR, KEY: page_add_link).
 * Returns 0 or -1 (errno). */
static int spill_link(struct page *p, const struct link *l, const char *dir,
                      unsigned long long key)
{
  if (p->spill == NULL) {
    char *path = pagedir_tmp_path(dir, "links", key);
    p->spill = path ? diskq_new(path, 16 * 1024, p->budget) : NULL;
    free(path);
    if (p->spill == NULL) {
      errno = ENOMEM;
      return -1;
    }
  }
  struct spilled h = { (uint8_t)l->cls, l->key ? (uint32_t)strlen(l->key) : 0 };
  size_t ul = strlen(l->url), n = sizeof(h) + h.keylen + ul;
  char *rec = malloc(n);
  if (rec == NULL)
    return -1;
  memcpy(rec, &h, sizeof(h));
  if (h.keylen)
    memcpy(rec + sizeof(h), l->key, h.keylen);
  memcpy(rec + sizeof(h) + h.keylen, l->url, ul);
  int rc = diskq_push(p->spill, rec, n);
  free(rec);
  if (rc == -2)
    errno = ENOMEM;
  return rc == 0 ? 0 : -1;
}

int page_add_link(struct page *p, struct link *l, budget_t *budget,
                  const char *dir, unsigned long long key)
{
  p->budget = budget;
  size_t cost = link_cost(l);
  bool limited = budget != NULL && budget->limit > 0;
  bool memory = p->spill == NULL && (!limited || budget_take(budget, cost));
  int rc = 0;
  if (memory) {
    if (p->nlinks == p->cap) {
      size_t cap = p->cap ? p->cap * 2 : 32;
      struct link *v = realloc(p->links, cap * sizeof(*v));
      if (v == NULL) {
        if (limited)
          budget_give(budget, cost); /* taken above */
        errno = ENOMEM;
        rc = -1;
        goto out;
      }
      p->links = v;
      p->cap = cap;
    }
    if (!limited)
      budget_force(budget, cost); /* counted all the same */
    p->held += cost;
    p->links[p->nlinks++] = *l;
    return 0;
  }
  rc = spill_link(p, l, dir, key);
out:
  free(l->url);
  free(l->key);
  return rc;
}

size_t page_links(const struct page *p)
{
  return p->nlinks + (p->spill ? diskq_count(p->spill) : 0);
}

int page_links_park(struct page *p)
{
  return p->spill ? diskq_park(p->spill) : 0;
}

struct each {
  void (*fn)(void *arg, const struct link *l);
  void *arg;
  int err;
};

/* each_spilled: one link of the spill file (page_links_each). */
static void each_spilled(void *arg, const char *rec, size_t n)
{
  struct each *x = arg;
  struct spilled h;
  if (x->err)
    return;
  if (n < sizeof(h)) {
    x->err = EIO;
    return;
  }
  memcpy(&h, rec, sizeof(h));
  if (n < sizeof(h) + h.keylen) {
    x->err = EIO;
    return;
  }
  /* The key ends where the URL starts: copied out to have its NUL. */
  char *key = NULL;
  if (h.keylen && (key = strndup(rec + sizeof(h), h.keylen)) == NULL) {
    x->err = ENOMEM;
    return;
  }
  struct link l = { (char *)rec + sizeof(h) + h.keylen, key, h.cls };
  x->fn(x->arg, &l);
  free(key);
}

int page_links_each(struct page *p, void (*fn)(void *arg, const struct link *l),
                    void *arg)
{
  for (size_t i = 0; i < p->nlinks; i++)
    fn(arg, &p->links[i]);
  if (p->spill == NULL)
    return 0;
  struct each x = { fn, arg, 0 };
  int rc = diskq_each(p->spill, each_spilled, &x);
  if (rc == 0 && x.err) {
    errno = x.err;
    rc = -1;
  }
  /* Parked again: the file stays for another pass, without a descriptor. */
  if (diskq_park(p->spill) != 0 && rc == 0)
    rc = -1;
  return rc;
}

/* ---- scanning a page's links ---- */

struct scan {
  const page_scan_t *c;
  const fitem_t *it;
  struct page *p;
  bool nomem;
  url_base_t base; /* the page's base, prepared for url_base_resolve */
  bool base_ready; /* base is set for the current base URL */
};

static int on_base(void *arg, const char *href)
{
  struct scan *s = arg;
  if (s->p->base == NULL) {
    s->p->base = url_resolve(s->it->url, href);
    s->base_ready = false;
  }
  return 0;
}

static int on_link(void *arg, const char *href, int flags)
{
  struct scan *s = arg;
  struct page *p = s->p;
  if (page_links(p) == PAGE_MAX_LINKS)
    return 1;
  struct link link, *l = &link;
  if (!s->base_ready) {
    /* Once per page (and again after a <base href>), not per link. */
    url_base_init(&s->base, p->base ? p->base : s->it->url);
    s->base_ready = true;
  }
  l->url = url_base_resolve(&s->base, href);
  if (l->url != NULL && (flags & LINK_NOFOLLOW) && s->c->respect_rel_nofollow) {
    l->cls = L_NOFOLLOW;
  } else if (l->url == NULL) {
    l->cls = L_INVALID;
    l->url = strdup(href);
  } else if (!scope_contains(s->c->scope, l->url)) {
    l->cls = L_EXTERN;
  } else if (pagecheck_trap(url_path_query(l->url))) {
    l->cls = L_TRAP;
  } else if (url_is_nonpage(l->url)) {
    l->cls = L_NONPAGE;
  } else {
    l->cls = L_CANDIDATE;
  }
  l->key = l->cls == L_CANDIDATE ? url_host_key_normal(l->url) : NULL;
  if (l->url == NULL || (l->cls == L_CANDIDATE && l->key == NULL)) {
    free(l->url);
    free(l->key);
    s->nomem = true;
    return 1;
  }
  if (page_add_link(p, l, s->c->budget, s->c->dir,
                    (unsigned long long)s->it->seq) != 0) {
    if (errno == ENOMEM)
      s->nomem = true;
    else
      p->spill_errno = errno ? errno : EIO;
    return 1;
  }
  return 0;
}

static int on_meta(void *arg, const char *name, const char *content)
{
  struct scan *s = arg;
  (void)name;
  page_robots(s->p, robots_directives(content, s->c->agent));
  return 0;
}

void page_scan(struct page *p, const fitem_t *it, const page_scan_t *c)
{
  fetch_result_t *r = &p->res;
  p->scanned = true;
  struct scan s = { .c = c, .it = it, .p = p };
  links_sink_t sink = { .link = on_link, .base = on_base, .arg = &s };
  if (c->agent != NULL) {
    sink.meta_robots = on_meta;
    sink.meta_agent = c->agent;
  }
  int rc;
  if (p->text) {
    rc = links_scan_text(r->body, r->len, &sink);
  } else {
    char cs[64];
    rc = links_scan_html(r->body, r->len,
                         fetch_charset(r->content_type, cs, sizeof(cs)), &sink);
  }
  p->nomem = s.nomem || rc == LINKS_ENOMEM;
  if (page_links_park(p) != 0 && p->spill_errno == 0)
    p->spill_errno = errno ? errno : EIO;
}

/* ---- the body on disk ---- */

void page_write_tmp(struct page *p, const fitem_t *it, const char *dir,
                    unsigned flags)
{
  fetch_result_t *r = &p->res;
  p->tmp = pagedir_write_tmp(dir, (unsigned long long)it->seq, it->url,
                             it->depth, r->body, r->len, flags);
  if (p->tmp == NULL) {
    p->write_errno = errno ? errno : EIO;
    return;
  }
  p->tmp_depth = it->depth;
  free(r->body);
  r->body = NULL;
}

int page_reload(struct page *p, const char *dir)
{
  pagedir_page_t pg;
  int rc = p->tmp != NULL ? pagedir_load_file(p->tmp, &pg)
                          : pagedir_load(dir, p->stored_id, &pg);
  int err = errno;
  if (p->tmp != NULL) {
    unlink(p->tmp);
    free(p->tmp);
    p->tmp = NULL;
  }
  if (rc != 0) {
    p->read_errno = err ? err : EIO;
    return -1;
  }
  free(pg.url);
  p->res.body = pg.body;
  p->res.len = pg.len;
  return 0;
}

void page_free(struct page *p)
{
  if (p == NULL)
    return;
  for (int i = 0; i < p->hops; i++)
    free(p->chain[i]);
  free(p->chain);
  fetch_result_free(&p->res);
  for (size_t i = 0; i < p->nlinks; i++) {
    free(p->links[i].url);
    free(p->links[i].key);
  }
  free(p->links);
  budget_give(p->budget, p->held);
  diskq_delete(p->spill);
  free(p->base);
  if (p->tmp != NULL) {
    unlink(p->tmp); /* never published: leave nothing behind */
    free(p->tmp);
  }
  free(p);
}
