/* page.c: see page.h. No locks: a record has one user at a time. The
 * scan's sink (struct scan, on_*) is links.h's, one per page scanned. */
#include "page.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links.h"
#include "pagecheck.h"
#include "pagedir.h"
#include "robots.h"
#include "strbuf.h"
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
    fetch_result_drop_body(r);
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
  if (r->etag)
    n += strlen(r->etag) + 1 + BUDGET_OVERHEAD;
  if (r->last_modified)
    n += strlen(r->last_modified) + 1 + BUDGET_OVERHEAD;
  for (int i = 0; i < p->hops; i++)
    n += strlen(p->chain[i]) + 1 + BUDGET_OVERHEAD;
  p->budget = budget;
  budget_force(budget, n);
  p->held += n;
  p->charged = true;
}

/* A link as bytes, in memory (p->mem) and on disk (p->spill) alike: its
 * class, LINK_KEYED if it has a host key, then the key and a NUL if so,
 * then the URL and a NUL. */
enum { LINK_KEYED = 0x80 };

/* link_size: the bytes of L's record. */
static size_t link_size(const struct link *l)
{
  return 1 + (l->key ? strlen(l->key) + 1 : 0) + strlen(l->url) + 1;
}

/* link_encode: L's record, link_size(L) bytes, at TO. */
static void link_encode(const struct link *l, char *to)
{
  *to++ = (char)(l->cls | (l->key ? LINK_KEYED : 0));
  if (l->key) {
    size_t kl = strlen(l->key) + 1;
    memcpy(to, l->key, kl);
    to += kl;
  }
  memcpy(to, l->url, strlen(l->url) + 1);
}

/* link_decode: the link of record REC (N bytes) into *L, its strings
 * borrowed from REC. Returns 0, or -1 if REC is no link_encode's. */
static int link_decode(const char *rec, size_t n, struct link *l)
{
  if (n < 2 || rec[n - 1] != '\0')
    return -1;
  unsigned char c = (unsigned char)rec[0];
  l->cls = c & ~LINK_KEYED;
  l->key = NULL;
  l->url = (char *)rec + 1;
  if (c & LINK_KEYED) {
    const char *nul = memchr(rec + 1, '\0', n - 2);
    if (nul == NULL)
      return -1;
    l->key = (char *)rec + 1;
    l->url = (char *)nul + 1;
  }
  return l->cls <= L_FILTERED ? 0 : -1;
}

/* spill_link: append L to P's spill file (DIR, KEY: page_add_link).
 * Returns 0 or -1 (errno). */
static int spill_link(struct page *p, const struct link *l, pstore_t *ps,
                      unsigned long long key)
{
  if (p->spill == NULL) {
    char *path = pstore_tmp_path(ps, "links", key);
    p->spill = path ? diskq_new(path, 16 * 1024, p->budget) : NULL;
    free(path);
    if (p->spill == NULL) {
      errno = ENOMEM;
      return -1;
    }
  }
  size_t n = link_size(l);
  char *rec = malloc(n);
  if (rec == NULL)
    return -1;
  link_encode(l, rec);
  int rc = diskq_push(p->spill, rec, n);
  free(rec);
  if (rc == -2)
    errno = ENOMEM;
  return rc == 0 ? 0 : -1;
}

/* hold_link: L's record into P's memory if BUDGET has room for what it
 * takes. Returns 1 held; 0 no room (nothing charged); -1 out of memory
 * (errno). */
static int hold_link(struct page *p, const struct link *l, budget_t *budget)
{
  if (p->mem == NULL && (p->mem = recbuf_new()) == NULL) {
    errno = ENOMEM;
    return -1;
  }
  size_t n = link_size(l), need = recbuf_need(p->mem, n);
  bool limited = budget != NULL && budget->limit > 0;
  if (need > 0 && limited && !budget_take(budget, need))
    return 0;
  char *at = recbuf_add(p->mem, n);
  if (at == NULL) {
    if (need > 0 && limited)
      budget_give(budget, need); /* taken above */
    errno = ENOMEM;
    return -1;
  }
  if (need > 0 && !limited)
    budget_force(budget, need); /* counted all the same */
  p->held += need;
  link_encode(l, at);
  return 1;
}

int page_add_link(struct page *p, struct link *l, budget_t *budget,
                  pstore_t *ps, unsigned long long key)
{
  p->budget = budget;
  int rc = p->spill == NULL ? hold_link(p, l, budget) : 0;
  if (rc == 0)
    rc = spill_link(p, l, ps, key);
  free(l->url);
  free(l->key);
  return rc < 0 ? -1 : 0;
}

size_t page_links(const struct page *p)
{
  return (p->mem ? recbuf_count(p->mem) : 0) +
         (p->spill ? diskq_count(p->spill) : 0);
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

/* each_rec: one link record, in memory or read back (page_links_each). */
static void each_rec(void *arg, const char *rec, size_t n)
{
  struct each *x = arg;
  struct link l;
  if (x->err)
    return;
  if (link_decode(rec, n, &l) != 0) {
    x->err = EIO;
    return;
  }
  x->fn(x->arg, &l);
}

void page_links_each_held(const struct page *p,
                          void (*fn)(void *arg, const struct link *l),
                          void *arg)
{
  struct each x = { fn, arg, 0 };
  if (p->mem != NULL)
    recbuf_each(p->mem, each_rec, &x); /* its own records: well formed */
}

int page_links_each(struct page *p, void (*fn)(void *arg, const struct link *l),
                    void *arg)
{
  page_links_each_held(p, fn, arg);
  if (p->spill == NULL)
    return 0;
  struct each x = { fn, arg, 0 };
  int rc = diskq_each(p->spill, each_rec, &x);
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

/* classify: the class of L's normalised URL, in scope or not, by C. */
static void classify(struct link *l, const page_scan_t *c)
{
  if (!scope_contains(c->scope, l->url))
    l->cls = L_EXTERN;
  else if (!urlfilter_pass(c->filter, l->url))
    l->cls = L_FILTERED;
  else if (pagecheck_trap(url_path_query(l->url)))
    l->cls = L_TRAP;
  else if (url_is_nonpage(l->url))
    l->cls = L_NONPAGE;
  else
    l->cls = L_CANDIDATE;
}

/* keep: L (classified; its url adopted, NULL if a copy failed) among P's
 * links, with its host key if a candidate. Returns 0, or -1: out of
 * memory (P->spill_errno 0), or the spill failed (P->spill_errno set). */
static int keep(struct page *p, const fitem_t *it, const page_scan_t *c,
                struct link *l)
{
  l->key = l->cls == L_CANDIDATE && l->url ? url_host_key_normal(l->url) : NULL;
  if (l->url == NULL || (l->cls == L_CANDIDATE && l->key == NULL)) {
    free(l->url);
    free(l->key);
    return -1;
  }
  if (page_add_link(p, l, c->budget, c->store, (unsigned long long)it->seq) !=
      0) {
    if (errno != ENOMEM)
      p->spill_errno = errno ? errno : EIO;
    return -1;
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
  } else {
    classify(l, s->c);
  }
  if (keep(p, s->it, s->c, l) != 0) {
    s->nomem |= p->spill_errno == 0;
    return 1;
  }
  return 0;
}

int page_add_url(struct page *p, const fitem_t *it, const page_scan_t *c,
                 const char *url)
{
  if (page_links(p) >= PAGE_MAX_LINKS)
    return 0;
  struct link l = { .url = url_normalize(url) };
  if (l.url == NULL || !url_is_http(l.url)) {
    free(l.url);
    return 0;
  }
  classify(&l, c);
  if (keep(p, it, c, &l) != 0) {
    p->nomem |= p->spill_errno == 0;
    return -1;
  }
  return 1;
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

void page_write_tmp(struct page *p, const fitem_t *it, unsigned long long key,
                    pstore_t *ps)
{
  fetch_result_t *r = &p->res;
  p->tmp = pstore_write_tmp(ps, key, it->url, it->depth, r->body, r->len);
  if (p->tmp == NULL) {
    p->write_errno = errno ? errno : EIO;
    return;
  }
  p->tmp_depth = it->depth;
  fetch_result_drop_body(r);
}

int page_reload(struct page *p, const char *dir)
{
  pagedir_page_t pg;
  int rc = p->tmp != NULL ? pagedir_load_file(p->tmp, &pg)
                          : pagedir_load(dir, p->stored_id, &pg);
  int err = errno;
  pstore_tmp_drop(&p->tmp);
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
  recbuf_delete(p->mem);
  budget_give(p->budget, p->held);
  diskq_delete(p->spill);
  free(p->base);
  if (!p->keep_tmp)
    pstore_tmp_drop(&p->tmp); /* never published: leave nothing behind */
  free(p->tmp);
  free(p->robots_own);
  free(p);
}

/* ---- a record for another process (page_pack, page_unpack) ----
 *
 * A sequence of fields, each a tag byte, its length as 4 bytes (little
 * endian) and that many bytes; numbers as decimal text. Tags: U url, D
 * depth, H a redirect (in order), O outcome, S status, E error text, C
 * curl code, T Content-Type, X X-Robots-Tag, L body length, F flags, R
 * robots.txt's reason, P the temporary file's name, Q its depth, W, Y
 * and Z the write, spill and read errnos, K a link (its class as one
 * byte, its URL, a NUL, its host key). */

enum {
  PF_SKIPPED = 1,
  PF_NOINDEX = 2,
  PF_NOFOLLOW = 4,
  PF_BINARY = 8,
  PF_TEXT = 16,
  PF_NOMEM = 32,
  PF_SNIFFED = 64,
  PF_SCANNED = 128,
  PF_META = 256
};

static void field(strbuf_t *b, char tag, const void *data, size_t len)
{
  unsigned char head[5] = { (unsigned char)tag, (unsigned char)len,
                            (unsigned char)(len >> 8),
                            (unsigned char)(len >> 16),
                            (unsigned char)(len >> 24) };
  strbuf_add(b, head, sizeof(head));
  strbuf_add(b, data, len);
}

static void field_s(strbuf_t *b, char tag, const char *s)
{
  if (s != NULL)
    field(b, tag, s, strlen(s));
}

static void field_n(strbuf_t *b, char tag, long long v)
{
  char num[32];
  int n = snprintf(num, sizeof(num), "%lld", v);
  field(b, tag, num, (size_t)n);
}

static void pack_link(void *arg, const struct link *l)
{
  strbuf_t *b = arg;
  size_t ul = strlen(l->url), kl = l->key ? strlen(l->key) : 0;
  if (ul + kl + 2 > UINT32_MAX)
    return;
  unsigned char head[6] = { 'K',
                            (unsigned char)(ul + kl + 2),
                            (unsigned char)((ul + kl + 2) >> 8),
                            (unsigned char)((ul + kl + 2) >> 16),
                            (unsigned char)((ul + kl + 2) >> 24),
                            (unsigned char)l->cls };
  strbuf_add(b, head, sizeof(head));
  strbuf_add(b, l->url, ul + 1);
  if (kl)
    strbuf_add(b, l->key, kl);
}

char *page_pack(const fitem_t *it, const struct page *p, size_t *len)
{
  strbuf_t b = STRBUF_INIT;
  field_s(&b, 'U', it->url);
  field_n(&b, 'D', it->depth);
  for (int i = 0; i < p->hops; i++)
    field_s(&b, 'H', p->chain[i]);
  const fetch_result_t *r = &p->res;
  field_n(&b, 'O', r->outcome);
  field_n(&b, 'S', r->status);
  field_s(&b, 'E', r->error);
  field_n(&b, 'C', r->curl_code);
  field_s(&b, 'T', r->content_type);
  field_s(&b, 'X', r->x_robots_tag);
  field_s(&b, 'G', r->etag);
  field_s(&b, 'M', r->last_modified);
  field_n(&b, 'L', (long long)r->len);
  unsigned f = (p->skipped ? PF_SKIPPED : 0) | (p->noindex ? PF_NOINDEX : 0) |
               (p->nofollow ? PF_NOFOLLOW : 0) | (p->binary ? PF_BINARY : 0) |
               (p->text ? PF_TEXT : 0) | (p->nomem ? PF_NOMEM : 0) |
               (p->sniffed ? PF_SNIFFED : 0) | (p->scanned ? PF_SCANNED : 0) |
               (p->meta_checked ? PF_META : 0);
  field_n(&b, 'F', f);
  field_s(&b, 'R', p->robots);
  if (p->tmp != NULL) {
    const char *slash = strrchr(p->tmp, '/');
    field_s(&b, 'P', slash ? slash + 1 : p->tmp);
    field_n(&b, 'Q', p->tmp_depth);
  }
  field_n(&b, 'W', p->write_errno);
  field_n(&b, 'Y', p->spill_errno);
  field_n(&b, 'Z', p->read_errno);
  /* Links on disk are read back: page_links_each's page is not const. */
  if (page_links_each((struct page *)p, pack_link, &b) != 0) {
    int err = errno;
    strbuf_release(&b);
    errno = err;
    return NULL;
  }
  *len = b.len;
  char *out = strbuf_detach(&b);
  if (out == NULL)
    errno = ENOMEM;
  return out;
}

/* num: the decimal number of field V (N bytes). */
static long long num(const char *v, size_t n)
{
  char buf[32];
  if (n >= sizeof(buf))
    return 0;
  memcpy(buf, v, n);
  buf[n] = '\0';
  return strtoll(buf, NULL, 10);
}

static char *dup_n(const char *v, size_t n)
{
  char *s = malloc(n + 1);
  if (s != NULL) {
    memcpy(s, v, n);
    s[n] = '\0';
  }
  return s;
}

/* unpack_field: apply field TAG (V, N bytes) to P. Returns 0, or
 * -1 with errno. */
static int unpack_field(struct page *p, char tag, const char *v, size_t n,
                        budget_t *budget, pstore_t *ps, unsigned long long key)
{
  fetch_result_t *r = &p->res;
  char **s = NULL;
  switch (tag) {
  case 'H': {
    char **c = realloc(p->chain, (size_t)(p->hops + 1) * sizeof(*c));
    if (c == NULL)
      return -1;
    p->chain = c;
    if ((c[p->hops] = dup_n(v, n)) == NULL)
      return -1;
    p->hops++;
    return 0;
  }
  case 'O':
    r->outcome = (fetch_outcome_t)num(v, n);
    return 0;
  case 'S':
    r->status = (long)num(v, n);
    return 0;
  case 'E':
    snprintf(r->error, sizeof(r->error), "%.*s", (int)n, v);
    return 0;
  case 'C':
    r->curl_code = (int)num(v, n);
    return 0;
  case 'T':
    s = &r->content_type;
    break;
  case 'X':
    s = &r->x_robots_tag;
    break;
  case 'G':
    s = &r->etag;
    break;
  case 'M':
    s = &r->last_modified;
    break;
  case 'L':
    r->len = (size_t)num(v, n);
    return 0;
  case 'F': {
    unsigned f = (unsigned)num(v, n);
    p->skipped = f & PF_SKIPPED;
    p->noindex = f & PF_NOINDEX;
    p->nofollow = f & PF_NOFOLLOW;
    p->binary = f & PF_BINARY;
    p->text = f & PF_TEXT;
    p->nomem = f & PF_NOMEM;
    p->sniffed = f & PF_SNIFFED;
    p->scanned = f & PF_SCANNED;
    p->meta_checked = f & PF_META;
    return 0;
  }
  case 'R':
    free(p->robots_own); /* a field twice: the last stands */
    if ((p->robots_own = dup_n(v, n)) == NULL)
      return -1;
    p->robots = p->robots_own;
    return 0;
  case 'P': {
    char *name = dup_n(v, n);
    if (name == NULL)
      return -1;
    if (strncmp(name, ".tmp-", 5) != 0 || name[5] == '\0' ||
        strspn(name + 5, "0123456789") != strlen(name + 5)) {
      free(name);
      errno = EINVAL; /* only a temporary page (pstore_write_tmp's name) */
      return -1;
    }
    free(p->tmp);
    p->tmp = pstore_tmp_join(ps, name);
    free(name);
    if (p->tmp == NULL)
      return -1;
    p->keep_tmp = true;
    return 0;
  }
  case 'Q':
    p->tmp_depth = (int)num(v, n);
    return 0;
  case 'W':
    p->write_errno = (int)num(v, n);
    return 0;
  case 'Y':
    p->spill_errno = (int)num(v, n);
    return 0;
  case 'Z':
    p->read_errno = (int)num(v, n);
    return 0;
  case 'K': {
    const char *nul = n > 1 ? memchr(v + 1, '\0', n - 1) : NULL;
    size_t ul = nul ? (size_t)(nul - (v + 1)) : 0, kl = nul ? n - 2 - ul : 0;
    /* A class page.h knows; a candidate with its host key (page_scan's
     * always has one), or the commit would add it under none. */
    if (nul == NULL || (unsigned char)v[0] > L_FILTERED ||
        ((unsigned char)v[0] == L_CANDIDATE && kl == 0)) {
      errno = EINVAL;
      return -1;
    }
    struct link l = { dup_n(v + 1, ul), kl ? dup_n(nul + 1, kl) : NULL,
                      (unsigned char)v[0] };
    if (l.url == NULL || (kl && l.key == NULL)) {
      free(l.url);
      free(l.key);
      errno = ENOMEM;
      return -1;
    }
    if (page_add_link(p, &l, budget, ps, key) != 0)
      p->spill_errno = errno ? errno : EIO;
    return 0;
  }
  default:
    return 0; /* a field of a later version: skipped */
  }
  free(*s);
  return (*s = dup_n(v, n)) != NULL ? 0 : -1;
}

fitem_t *page_unpack(const char *data, size_t len, budget_t *budget,
                     pstore_t *ps, unsigned long long key)
{
  const char *url = NULL;
  size_t url_len = 0;
  int depth = -1;
  /* The URL and depth first, to make the item. */
  for (size_t i = 0; i + 5 <= len;) {
    const unsigned char *h = (const unsigned char *)data + i;
    size_t n = (size_t)h[1] | (size_t)h[2] << 8 | (size_t)h[3] << 16 |
               (size_t)h[4] << 24;
    if (n > len - i - 5)
      break;
    if (h[0] == 'U') {
      url = data + i + 5;
      url_len = n;
    } else if (h[0] == 'D') {
      depth = (int)num(data + i + 5, n);
    }
    i += 5 + n;
  }
  char *u = url ? dup_n(url, url_len) : NULL;
  if (url == NULL || depth < 0) {
    errno = EINVAL;
    return NULL;
  }
  fitem_t *it = u ? fitem_new(u, depth) : NULL;
  free(u);
  struct page *p = it ? page_of(it) : NULL;
  if (p == NULL) {
    fitem_delete(it);
    errno = ENOMEM;
    return NULL;
  }
  for (size_t i = 0; i < len;) {
    const unsigned char *h = (const unsigned char *)data + i;
    size_t n = i + 5 <= len ? (size_t)h[1] | (size_t)h[2] << 8 |
                                (size_t)h[3] << 16 | (size_t)h[4] << 24
                            : SIZE_MAX;
    if (n == SIZE_MAX || n > len - i - 5) {
      errno = EINVAL;
      goto fail;
    }
    if (h[0] != 'U' && h[0] != 'D' &&
        unpack_field(p, (char)h[0], data + i + 5, n, budget, ps, key) != 0)
      goto fail;
    i += 5 + n;
  }
  if (page_links_park(p) != 0 && !p->spill_errno)
    p->spill_errno = errno ? errno : EIO;
  return it;
fail:;
  int err = errno ? errno : EINVAL;
  page_free(p);
  it->data = NULL;
  fitem_delete(it);
  errno = err;
  return NULL;
}
