/* scope.c: see scope.h.
 *
 * Prefixes. They are sorted (strcmp) and made prefix-free: a prefix that
 * an earlier one starts with admits nothing more and is dropped. In a
 * sorted, prefix-free array at most one element is a prefix of a URL u,
 * and if one is, it is the greatest element <= u. For say P is a prefix
 * of u and P < Q <= u: P is no prefix of Q, so they first differ at some
 * i < len(P), with P[i] < Q[i]; u agrees with P up to len(P), so u[i] <
 * Q[i] and u < Q, a contradiction. A binary search therefore finds the
 * one candidate, and one strncmp decides.
 * The search is narrowed first by the URL's "scheme://authority": a
 * normal-form prefix holds its whole "scheme://authority/" (an authority
 * has no '/'), so a URL it admits has that same authority, and the
 * prefixes of one authority are one run of the sorted array (they all
 * start with "scheme://authority/"). The set `origins` maps each
 * authority to its run.
 *
 * Domains. A set of them; a URL's host is looked up whole and, if it is a
 * name, suffix by suffix after each '.', shortest first, up to the
 * longest domain's length: longer suffixes cannot be in the set. A
 * suffix of digits and dots is not looked up (an address is only
 * compared whole; a domain never has that shape unless it is one).
 *
 * Nothing is written after scope_new returns, and libcs50's set allows
 * concurrent finds: hence no lock. */
#include "scope.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "set.h"
#include "url.h"

/* struct run: the prefixes of one authority, prefix[lo] to prefix[hi-1]. */
struct run {
  size_t lo, hi;
};

struct scope {
  char **prefix; /* sorted, prefix-free, NPREFIX; owned */
  size_t *len;   /* strlen of each prefix */
  size_t nprefix;
  struct run *runs;  /* the items of origins; owned */
  set_t *origins;    /* "scheme://authority" -> its struct run */
  set_t *domains;    /* the domains; every item is the scope itself
                      * (a set wants non-NULL items; presence is all) */
  size_t domain_max; /* length of the longest domain; 0 if none */
};

/* origin_len: the length of "scheme://authority" at the start of url, up
 * to the '/' that starts its path; 0 if there is no such '/'. */
static size_t origin_len(const char *url)
{
  const char *path = url_path_query(url);
  return path != url && *path == '/' ? (size_t)(path - url) : 0;
}

/* is_address: h[0..n) is an IP address: digits and dots alone (libcurl
 * writes every IPv4 form so), or an IPv6 literal in brackets. */
static bool is_address(const char *h, size_t n)
{
  if (n > 0 && h[0] == '[')
    return true;
  for (size_t i = 0; i < n; i++)
    if (!ascii_isdigit((unsigned char)h[i]) && h[i] != '.')
      return false;
  return true;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* add_prefixes: S's prefix array, runs and origins from the NP borrowed
 * PREFIXES. Returns 0, or -1 with errno set. */
static int add_prefixes(scope_t *s, const char *const *prefixes, size_t np)
{
  if (np == 0)
    return 0;
  s->prefix = calloc(np, sizeof(char *));
  s->len = calloc(np, sizeof(size_t));
  s->runs = calloc(np, sizeof(struct run));
  if (s->prefix == NULL || s->len == NULL || s->runs == NULL)
    return -1;
  size_t n = 0;
  for (size_t i = 0; i < np; i++) {
    if (prefixes[i] == NULL)
      continue;
    if (origin_len(prefixes[i]) == 0 || strlen(prefixes[i]) > URL_MAX_LEN) {
      errno = EINVAL;
      return -1;
    }
    if ((s->prefix[n++] = strdup(prefixes[i])) == NULL)
      return -1;
    s->nprefix = n;
  }
  qsort(s->prefix, n, sizeof(char *), cmp_str);
  /* Drop what the last kept prefix covers (see the top of this file). */
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(s->prefix[i]);
    if (kept > 0 &&
        strncmp(s->prefix[i], s->prefix[kept - 1], s->len[kept - 1]) == 0) {
      free(s->prefix[i]);
      continue;
    }
    s->prefix[kept] = s->prefix[i];
    s->len[kept++] = len;
  }
  s->nprefix = kept;
  if ((s->origins = set_new()) == NULL)
    return -1;
  char key[URL_MAX_LEN + 1];
  size_t nruns = 0;
  for (size_t i = 0; i < kept; i++) {
    size_t ol = origin_len(s->prefix[i]);
    struct run *r = nruns > 0 ? &s->runs[nruns - 1] : NULL;
    if (r != NULL && strncmp(s->prefix[r->lo], s->prefix[i], ol + 1) == 0) {
      r->hi = i + 1; /* same "scheme://authority/" */
      continue;
    }
    r = &s->runs[nruns++];
    *r = (struct run){ i, i + 1 };
    memcpy(key, s->prefix[i], ol);
    key[ol] = '\0';
    /* Runs are contiguous, so a key is new; false means no memory. */
    if (!set_insert(s->origins, key, r)) {
      errno = ENOMEM;
      return -1;
    }
  }
  return 0;
}

/* add_domains: S's domain set from the ND borrowed DOMAINS. Returns 0,
 * or -1 with errno set. */
static int add_domains(scope_t *s, const char *const *domains, size_t nd)
{
  if (nd == 0)
    return 0;
  if ((s->domains = set_new()) == NULL)
    return -1;
  for (size_t i = 0; i < nd; i++) {
    if (domains[i] == NULL)
      continue;
    size_t len = strlen(domains[i]);
    if (len == 0 || len > URL_MAX_LEN) {
      errno = EINVAL;
      return -1;
    }
    /* false for a duplicate too: only an absent key means no memory. */
    if (!set_insert(s->domains, domains[i], s) &&
        set_find(s->domains, domains[i]) == NULL) {
      errno = ENOMEM;
      return -1;
    }
    if (len > s->domain_max)
      s->domain_max = len;
  }
  return 0;
}

scope_t *scope_new(const char *const *prefixes, size_t np,
                   const char *const *domains, size_t nd)
{
  scope_t *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return NULL;
  if (add_prefixes(s, prefixes, np) != 0 || add_domains(s, domains, nd) != 0) {
    int e = errno;
    scope_delete(s);
    errno = e;
    return NULL;
  }
  return s;
}

/* prefix_match: url starts with one of S's prefixes. */
static bool prefix_match(const scope_t *s, const char *url)
{
  if (s->nprefix == 0)
    return false;
  size_t ol = origin_len(url);
  if (ol == 0 || ol > URL_MAX_LEN)
    return false;
  char key[URL_MAX_LEN + 1];
  memcpy(key, url, ol);
  key[ol] = '\0';
  const struct run *r = set_find(s->origins, key);
  if (r == NULL)
    return false;
  /* The first prefix of the run greater than url; the one before it is
   * the only candidate. */
  size_t lo = r->lo, hi = r->hi;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->prefix[mid], url) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > r->lo && strncmp(url, s->prefix[lo - 1], s->len[lo - 1]) == 0;
}

/* domain_match: url's host is one of S's domains or a subdomain of one. */
static bool domain_match(const scope_t *s, const char *url)
{
  if (s->domain_max == 0)
    return false;
  size_t n;
  const char *h = url_host_normal(url, &n);
  if (h == NULL || n == 0)
    return false;
  if (h[0] != '[' && h[n - 1] == '.' && --n == 0)
    return false; /* "example.edu." is "example.edu" */
  char key[URL_MAX_LEN + 1];
  if (is_address(h, n)) {
    if (n > s->domain_max)
      return false;
    memcpy(key, h, n);
    key[n] = '\0';
    return set_find(s->domains, key) != NULL;
  }
  /* The last T bytes of the host, the only ones a domain can match;
   * key + i is the suffix of length T - i. */
  size_t t = n < s->domain_max ? n : s->domain_max;
  memcpy(key, h + n - t, t);
  key[t] = '\0';
  bool digits = true; /* key + i holds digits and dots only */
  for (size_t i = t; i-- > 0;) {
    unsigned char c = (unsigned char)key[i];
    digits = digits && (ascii_isdigit(c) || c == '.');
    char before = i > 0 ? key[i - 1] : t < n ? h[n - t - 1] : '.';
    if (before != '.' || c == '.')
      continue; /* not at a label's start, or an empty label */
    if (digits && (i > 0 || t < n))
      continue; /* an address-shaped suffix of a name */
    if (set_find(s->domains, key + i) != NULL)
      return true;
  }
  return false;
}

bool scope_contains(const scope_t *s, const char *url)
{
  if (s == NULL || url == NULL)
    return false;
  return prefix_match(s, url) || domain_match(s, url);
}

void scope_delete(scope_t *s)
{
  if (s == NULL)
    return;
  for (size_t i = 0; i < s->nprefix; i++)
    free(s->prefix[i]);
  free(s->prefix);
  free(s->len);
  free(s->runs);
  set_delete(s->origins, NULL);
  set_delete(s->domains, NULL);
  free(s);
}
