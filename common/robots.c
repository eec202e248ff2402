/* robots.c: robots.txt parser and matcher; see robots.h for the contract.
 *
 * Design: parsing keeps two rule lists, one for groups naming our product
 * token and one for "*" groups, and at the end keeps the one that applies
 * (RFC 9309 2.2.1). Patterns are stored in canonical percent-encoding, so
 * matching is a plain octet comparison of two canonical strings with '*'
 * and a final '$' as the only specials. No locks: a robots_t never changes
 * after construction. */
#include "robots.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

/* One allow or disallow line. Invariant: pat is canonical (see canon()),
 * NUL-terminated, holds no '$' (a final '$' became anchored = true). */
typedef struct rule {
  char *pat;     /* owned */
  size_t patlen; /* strlen(pat) */
  size_t prio;   /* patlen + anchored: the length that decides ties */
  bool anchored; /* pattern ended in '$' */
  bool allow;
} rule_t;

typedef struct rulevec {
  rule_t *v; /* owned array */
  size_t n, cap;
  double delay; /* first valid crawl-delay, -1 if none */
} rulevec_t;

struct robots {
  rulevec_t rules; /* read-only after construction */
  char **sitemaps; /* the Sitemap: values, in order; NSITEMAPS */
  size_t nsitemaps;
};

/* Paths up to this many canonical octets are matched without malloc. */
enum { PATH_STACK_BUF = 1024 };

static const char hexdig[] = "0123456789ABCDEF";

static bool is_blank(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* RFC 3986 unreserved: the only octets whose %XX form is decoded. */
static bool is_unreserved(unsigned char c)
{
  return ascii_isalpha(c) || ascii_isdigit(c) || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

/* ieq: a[0..alen) is b, ignoring ASCII case (never the locale's). */
static bool ieq(const char *a, size_t alen, const char *b)
{
  return alen == strlen(b) && ascii_strnieq(a, b, alen);
}

/* canon: write the canonical form of src[0..n) to out (room for 3*n + 1
 * octets) and NUL-terminate it; returns its length. In a pattern '*' stays
 * the wildcard; in a path '*' and '$' are encoded so that only a pattern's
 * "%2A"/"%24" can match them literally. A pattern's final '$' must have
 * been removed by the caller, so every '$' seen here is literal. */
static size_t canon(const char *src, size_t n, bool pattern, char *out)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    if (c == '%') {
      int hi = i + 2 < n ? ascii_hexval((unsigned char)src[i + 1]) : -1;
      int lo = i + 2 < n ? ascii_hexval((unsigned char)src[i + 2]) : -1;
      if (hi >= 0 && lo >= 0) {
        unsigned char d = (unsigned char)(hi * 16 + lo);
        if (is_unreserved(d)) {
          out[o++] = (char)d;
        } else {
          out[o++] = '%';
          out[o++] = hexdig[hi];
          out[o++] = hexdig[lo];
        }
        i += 2;
        continue;
      }
      /* A stray '%' is the literal octet, whose canonical form is %25. */
    }
    if (c == '%' || c <= 0x20 || c >= 0x7F || c == '$' ||
        (c == '*' && !pattern)) {
      out[o++] = '%';
      out[o++] = hexdig[c >> 4];
      out[o++] = hexdig[c & 0xF];
    } else {
      out[o++] = (char)c;
    }
  }
  out[o] = '\0';
  return o;
}

/* match: does pattern pat[0..m) match path s[0..n)? Anchored: the whole
 * path; otherwise a prefix of it. Greedy wildcard matching that on a
 * mismatch retries only from the most recent '*': correct for patterns
 * whose only special is '*', and O(n*m) in the worst case, with no
 * recursion (a backtracking matcher is exponential on "*a*a*a*a*b"). */
static bool match(const char *pat, size_t m, bool anchored, const char *s,
                  size_t n)
{
  size_t p = 0, i = 0;
  size_t star = SIZE_MAX, mark = 0;
  while (i < n) {
    if (p == m && !anchored)
      return true; /* the rest of the path is the unanchored tail */
    if (p < m && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (p < m && pat[p] == s[i]) {
      p++;
      i++;
    } else if (star != SIZE_MAX) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < m && pat[p] == '*')
    p++;
  return p == m;
}

static void rulevec_free(rulevec_t *rv)
{
  for (size_t i = 0; i < rv->n; i++)
    free(rv->v[i].pat);
  free(rv->v);
  rv->v = NULL;
  rv->n = rv->cap = 0;
}

/* rulevec_add: append a rule for the raw pattern value[0..n) (n > 0).
 * Returns false if out of memory (rv unchanged). */
static bool rulevec_add(rulevec_t *rv, const char *value, size_t n, bool allow)
{
  bool anchored = n > 0 && value[n - 1] == '$';
  if (anchored)
    n--;
  if (rv->n == rv->cap) {
    size_t cap = rv->cap ? rv->cap * 2 : 8;
    rule_t *v = realloc(rv->v, cap * sizeof *v);
    if (v == NULL)
      return false;
    rv->v = v;
    rv->cap = cap;
  }
  char *pat = malloc(3 * n + 1);
  if (pat == NULL)
    return false;
  size_t len = canon(value, n, true, pat);
  rv->v[rv->n++] = (rule_t){ .pat = pat,
                             .patlen = len,
                             .prio = len + anchored,
                             .anchored = anchored,
                             .allow = allow };
  return true;
}

/* parse_delay: a non-negative decimal "12", "0.5", ".5" or "3."; returns
 * -1 for anything else. Hand-written because strtod() follows the locale's
 * decimal point and accepts "inf", "nan" and hex. */
static double parse_delay(const char *v, size_t n)
{
  double val = 0, scale = 1;
  bool digits = false, dot = false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if (ascii_isdigit(c)) {
      digits = true;
      if (dot) {
        scale /= 10;
        val += (c - '0') * scale;
      } else {
        val = val * 10 + (c - '0');
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return -1;
    }
  }
  return digits ? val : -1;
}

/* token_len: length of the product token at the start of s[0..n): up to
 * '/' or a blank. */
static size_t token_len(const char *s, size_t n)
{
  size_t i = 0;
  while (i < n && s[i] != '/' && !is_blank((unsigned char)s[i]))
    i++;
  return i;
}

enum key {
  KEY_OTHER,
  KEY_AGENT,
  KEY_ALLOW,
  KEY_DISALLOW,
  KEY_DELAY,
  KEY_SITEMAP
};

static enum key classify(const char *k, size_t n)
{
  if (ieq(k, n, "user-agent") || ieq(k, n, "useragent") ||
      ieq(k, n, "user agent"))
    return KEY_AGENT;
  if (ieq(k, n, "allow"))
    return KEY_ALLOW;
  if (ieq(k, n, "disallow"))
    return KEY_DISALLOW;
  if (ieq(k, n, "crawl-delay"))
    return KEY_DELAY;
  if (ieq(k, n, "sitemap"))
    return KEY_SITEMAP; /* not a group member: it ends no group */
  return KEY_OTHER;     /* host, typos: not group members */
}

/* Parser state across lines. */
typedef struct pstate {
  const char *tok; /* our product token, borrowed */
  size_t toklen;   /* 0: match only "*" */
  bool in_agents;  /* last group line was user-agent: more join the group */
  bool cur_spec;   /* current group names us */
  bool cur_glob;   /* current group is "*" */
  bool seen_spec;  /* some group named us */
  rulevec_t spec;  /* merged rules of the groups naming us */
  rulevec_t glob;  /* merged rules of the "*" groups */
  char **sitemaps; /* Sitemap: values, ROBOTS_MAX_SITEMAPS at most */
  size_t nsitemaps;
} pstate_t;

/* parse_line: apply one line (no terminator). False only if out of
 * memory. */
static bool parse_line(pstate_t *st, const char *line, size_t n)
{
  const char *hash = memchr(line, '#', n);
  if (hash != NULL)
    n = (size_t)(hash - line);
  if (memchr(line, '\0', n) != NULL)
    return true; /* binary garbage outside a comment: ignore the line */
  const char *colon = memchr(line, ':', n);
  if (colon == NULL)
    return true;
  const char *k = line;
  size_t klen = (size_t)(colon - line);
  while (klen > 0 && is_blank((unsigned char)k[0])) {
    k++;
    klen--;
  }
  while (klen > 0 && is_blank((unsigned char)k[klen - 1]))
    klen--;
  const char *v = colon + 1;
  size_t vlen = n - (size_t)(v - line);
  while (vlen > 0 && is_blank((unsigned char)v[0])) {
    v++;
    vlen--;
  }
  while (vlen > 0 && is_blank((unsigned char)v[vlen - 1]))
    vlen--;

  enum key key = classify(k, klen);
  if (key == KEY_OTHER)
    return true;
  if (key == KEY_SITEMAP) {
    if (vlen == 0 || st->nsitemaps == ROBOTS_MAX_SITEMAPS)
      return true;
    char **v2 = realloc(st->sitemaps, (st->nsitemaps + 1) * sizeof(char *));
    if (v2 == NULL)
      return false;
    st->sitemaps = v2;
    if ((v2[st->nsitemaps] = strndup(v, vlen)) == NULL)
      return false;
    st->nsitemaps++;
    return true;
  }
  if (key == KEY_AGENT) {
    if (!st->in_agents) {
      /* A user-agent line after a rule starts a new group. */
      st->in_agents = true;
      st->cur_spec = st->cur_glob = false;
    }
    size_t tl = token_len(v, vlen);
    if (tl == 1 && v[0] == '*') {
      st->cur_glob = true;
    } else if (st->toklen > 0 && tl == st->toklen &&
               ascii_strnieq(v, st->tok, tl)) {
      st->cur_spec = st->seen_spec = true;
    }
    return true;
  }
  st->in_agents = false;
  if (key == KEY_DELAY) {
    double d = parse_delay(v, vlen);
    if (d >= 0 && st->cur_spec && st->spec.delay < 0)
      st->spec.delay = d;
    if (d >= 0 && st->cur_glob && st->glob.delay < 0)
      st->glob.delay = d;
    return true;
  }
  if (vlen == 0)
    return true; /* "Disallow:" with no value disallows nothing */
  bool allow = key == KEY_ALLOW;
  if (st->cur_spec && !rulevec_add(&st->spec, v, vlen, allow))
    return false;
  if (st->cur_glob && !rulevec_add(&st->glob, v, vlen, allow))
    return false;
  return true;
}

static robots_t *robots_new(void)
{
  robots_t *r = calloc(1, sizeof *r);
  if (r != NULL)
    r->rules.delay = -1;
  return r;
}

robots_t *robots_parse(const char *txt, size_t len, const char *product_token)
{
  robots_t *r = robots_new();
  if (r == NULL)
    return NULL;
  if (txt == NULL)
    len = 0;

  pstate_t st = { .tok = product_token ? product_token : "" };
  st.toklen = token_len(st.tok, strlen(st.tok));
  st.spec.delay = st.glob.delay = -1;

  size_t full = len;
  if (len > ROBOTS_MAX_BYTES)
    len = ROBOTS_MAX_BYTES;
  size_t pos = 0;
  if (len >= 3 && memcmp(txt, "\xEF\xBB\xBF", 3) == 0)
    pos = 3;
  while (pos < len) {
    size_t end = pos;
    while (end < len && txt[end] != '\n' && txt[end] != '\r')
      end++;
    /* A line the size limit cut in two is dropped, not half-applied. */
    if (end == len && full > len && txt[len] != '\n' && txt[len] != '\r')
      break;
    if (!parse_line(&st, txt + pos, end - pos)) {
      rulevec_free(&st.spec);
      rulevec_free(&st.glob);
      r->sitemaps = st.sitemaps;
      r->nsitemaps = st.nsitemaps;
      robots_delete(r);
      return NULL;
    }
    if (end < len && txt[end] == '\r' && end + 1 < len && txt[end + 1] == '\n')
      end++;
    pos = end + 1;
  }

  if (st.seen_spec) {
    r->rules = st.spec;
    rulevec_free(&st.glob);
  } else {
    r->rules = st.glob;
    rulevec_free(&st.spec);
  }
  r->sitemaps = st.sitemaps;
  r->nsitemaps = st.nsitemaps;
  return r;
}

size_t robots_sitemaps(const robots_t *r)
{
  return r ? r->nsitemaps : 0;
}

const char *robots_sitemap(const robots_t *r, size_t i)
{
  return r && i < r->nsitemaps ? r->sitemaps[i] : NULL;
}

robots_t *robots_allow_all(void)
{
  return robots_new();
}

robots_t *robots_disallow_all(void)
{
  robots_t *r = robots_new();
  if (r != NULL && !rulevec_add(&r->rules, "/", 1, false)) {
    robots_delete(r);
    return NULL;
  }
  return r;
}

bool robots_allowed(const robots_t *r, const char *path_and_query)
{
  if (r == NULL || r->rules.n == 0)
    return true;
  const char *path = path_and_query ? path_and_query : "";
  size_t n = strlen(path);
  bool slash = n == 0 || path[0] != '/';

  char stackbuf[PATH_STACK_BUF];
  char *buf = stackbuf;
  if (n > (SIZE_MAX - 2) / 3)
    return false;
  size_t need = 3 * n + 2; /* canon() worst case, '/' and NUL */
  if (need > sizeof stackbuf) {
    buf = malloc(need);
    if (buf == NULL)
      return false;
  }
  if (slash)
    buf[0] = '/';
  size_t plen = slash + canon(path, n, false, buf + slash);

  bool allowed = true;
  size_t qpos = strcspn(buf, "?");
  if (qpos == strlen("/robots.txt") && memcmp(buf, "/robots.txt", qpos) == 0)
    goto out; /* RFC 9309 2.2.2: always allowed */

  /* Longest match wins, allow wins ties (RFC 9309 2.2.2). */
  bool have_allow = false, have_dis = false;
  size_t best_allow = 0, best_dis = 0;
  for (size_t i = 0; i < r->rules.n; i++) {
    const rule_t *ru = &r->rules.v[i];
    size_t *best = ru->allow ? &best_allow : &best_dis;
    bool *have = ru->allow ? &have_allow : &have_dis;
    if (*have && ru->prio <= *best)
      continue; /* cannot improve on this side's best */
    if (match(ru->pat, ru->patlen, ru->anchored, buf, plen)) {
      *have = true;
      *best = ru->prio;
    }
  }
  if (have_dis && (!have_allow || best_dis > best_allow))
    allowed = false;
out:
  if (buf != stackbuf)
    free(buf);
  return allowed;
}

double robots_crawl_delay(const robots_t *r)
{
  return r ? r->rules.delay : -1;
}

void robots_delete(robots_t *r)
{
  if (r == NULL)
    return;
  rulevec_free(&r->rules);
  for (size_t i = 0; i < r->nsitemaps; i++)
    free(r->sitemaps[i]);
  free(r->sitemaps);
  free(r);
}

/* ---- page-level directives: meta robots, X-Robots-Tag ---- */

/* is_space: isspace() of the "C" locale, whatever the process's locale. */
static bool is_space(unsigned char c)
{
  return is_blank(c) || c == '\n' || c == '\r';
}

/* NEEDSWORK: a ':' anywhere makes the text before it the agent, so a
 * value such as "noindex, unavailable_after: 2030-01-01" names no agent
 * of ours and is ignored whole. Kept as it is until a test site needs
 * otherwise: the saved crawls pin the current reading. */
unsigned robots_directives(const char *value, const char *agent)
{
  unsigned d = 0;
  const char *v = value;
  const char *colon = strchr(v, ':');
  if (colon != NULL) {
    const char *a = v;
    while (is_space((unsigned char)*a))
      a++;
    size_t n = (size_t)(colon - a);
    while (n > 0 && is_space((unsigned char)a[n - 1]))
      n--;
    if (!ieq(a, n, agent))
      return 0;
    v = colon + 1;
  }
  while (*v) {
    while (*v == ',' || is_space((unsigned char)*v))
      v++;
    size_t n = strcspn(v, ", \t");
    if (ieq(v, n, "noindex") || ieq(v, n, "none"))
      d |= ROBOTS_NOINDEX;
    if (ieq(v, n, "nofollow") || ieq(v, n, "none"))
      d |= ROBOTS_NOFOLLOW;
    v += n;
  }
  return d;
}
