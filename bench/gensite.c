/* gensite.c: generate the benchmark site and its exact breadth-first sets.
 *
 * usage: gensite [--page-kb MIN-MAX] OUTDIR PORT HOSTS PAGES [DEPTH...]
 *
 * Writes, for each host 127.0.0.H (H = 2 .. HOSTS+1), a tree
 * OUTDIR/127.0.0.H/ of PAGES HTML pages of MIN-MAX KB (default 10-30; the
 * 24 links and their markup make a page at least about 2 KB, whatever MIN
 * says): /index.html and
 * /dS/pK.html (S = page / 100, K = page % 100), plus /private/pK.html
 * (disallowed by the host's robots.txt), a few non-HTML files
 * (/img/figK.png, /files/docK.pdf) and /robots.txt. Each page has about 24
 * <a href> links: prev/next, section head, home, nearby pages, a few
 * random ones, about 10% to other hosts, in every form (relative, "./",
 * "../", root-relative, absolute), some with fragments, some repeated,
 * some to missing pages (404), some to non-HTML files, some to /private/.
 *
 * Then computes, from the same link lists, the crawl a plain breadth-first
 * crawler with robots.txt on does from http://127.0.0.2:PORT/index.html,
 * and for each DEPTH writes
 *   OUTDIR/expected-DEPTH.txt   "URL DEPTH KIND" per reached target, KIND
 *                               page (HTML, 200) or other (non-HTML, 200);
 *                               404s and disallowed URLs are not listed
 * and OUTDIR/paths-127.0.0.2.txt: every page path of the first host (wrk).
 * Deterministic: the same arguments give the same files. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINKS 24
#define NIMG 6
#define NPDF 2
#define NPRIV 20

/* Target kinds. */
enum { T_PAGE, T_MISSING, T_IMG, T_PDF, T_PRIV };

typedef struct {
  int host; /* 0 .. HOSTS-1 */
  int kind;
  int idx; /* page index, or file number */
} target_t;

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int rnd(int n)
{
  return (int)(next_rand() % (uint64_t)n);
}

static int nhosts, npages, port;
static int page_min = 10240, page_span = 20480; /* bytes: MIN, MAX - MIN */
static const char *outdir;

static void page_path(int idx, char *buf, size_t n)
{
  if (idx == 0)
    snprintf(buf, n, "/index.html");
  else
    snprintf(buf, n, "/d%d/p%d.html", idx / 100, idx % 100);
}

static void target_path(const target_t *t, char *buf, size_t n)
{
  switch (t->kind) {
  case T_PAGE:
    page_path(t->idx, buf, n);
    break;
  case T_MISSING:
    snprintf(buf, n, "/d%d/missing%d.html", t->idx / 100, t->idx % 100);
    break;
  case T_IMG:
    snprintf(buf, n, "/img/fig%d.png", t->idx);
    break;
  case T_PDF:
    snprintf(buf, n, "/files/doc%d.pdf", t->idx);
    break;
  default:
    snprintf(buf, n, "/private/p%d.html", t->idx);
    break;
  }
}

/* The href for target t written in a page at srcpath on host srchost. */
static void href_for(int srchost, const char *srcpath, const target_t *t,
                     char *buf, size_t n)
{
  char p[128];
  target_path(t, p, sizeof p);
  int form = t->host != srchost ? 3 : rnd(4);
  const char *slash = strrchr(srcpath, '/');
  size_t dlen = (size_t)(slash - srcpath) + 1; /* "/" or "/d3/" */
  const char *tslash = strrchr(p, '/');
  size_t tdlen = (size_t)(tslash - p) + 1;
  int same_dir = dlen == tdlen && strncmp(srcpath, p, dlen) == 0;
  switch (form) {
  case 0: /* relative: "p7.html", "../d4/p7.html", "d4/p7.html" */
    if (same_dir)
      snprintf(buf, n, "%s", tslash + 1);
    else if (dlen == 1)
      snprintf(buf, n, "%s", p + 1);
    else
      snprintf(buf, n, "..%s", p);
    break;
  case 1: /* "./" */
    if (same_dir)
      snprintf(buf, n, "./%s", tslash + 1);
    else if (dlen == 1)
      snprintf(buf, n, ".%s", p);
    else
      snprintf(buf, n, "./..%s", p);
    break;
  case 2:
    snprintf(buf, n, "%s", p);
    break;
  default:
    snprintf(buf, n, "http://127.0.0.%d:%d%s", t->host + 2, port, p);
    break;
  }
  if (rnd(5) == 0) { /* a fragment */
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "#sec%d", rnd(9));
  }
}

static const char *words[] = {
  "crawler", "frontier", "breadth", "depth",    "politeness", "robots",
  "archive", "index",    "search",  "engine",   "thread",     "queue",
  "token",   "bucket",   "latency", "loopback", "page",       "link",
  "anchor",  "server",   "request", "response", "header",     "content",
  "type",    "length",   "the",     "of",       "and",        "a",
  "to",      "in",       "is",      "that",     "for",        "it",
  "as",      "with",     "on",      "by",       "this",       "be",
  "at",      "from",     "or",      "an",       "are",        "which"
};

static void filler(FILE *f, int bytes)
{
  int nw = (int)(sizeof words / sizeof words[0]);
  int col = 0;
  while (bytes > 0) {
    const char *w = words[rnd(nw)];
    fputs(w, f);
    fputc(' ', f);
    int l = (int)strlen(w) + 1;
    bytes -= l;
    col += l;
    if (col > 72) {
      fputc('\n', f);
      col = 0;
    }
  }
}

static void mkdirs(const char *path)
{
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
        perror(buf);
        exit(1);
      }
      *p = '/';
    }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
    perror(buf);
    exit(1);
  }
}

static FILE *open_out(int host, const char *path)
{
  char full[4096];
  snprintf(full, sizeof full, "%s/127.0.0.%d%s", outdir, host + 2, path);
  char *slash = strrchr(full, '/');
  *slash = 0;
  mkdirs(full);
  *slash = '/';
  FILE *f = fopen(full, "w");
  if (f == NULL) {
    perror(full);
    exit(1);
  }
  return f;
}

/* Page links: graph[(host * npages + idx) * LINKS + k]. */
static target_t *graph;

static target_t page_target(int host, int idx)
{
  target_t t = { host, T_PAGE, idx };
  return t;
}

static int clampi(int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static void make_links(int h, int i, target_t *out)
{
  int k = 0;
  out[k++] = page_target(h, 0);                            /* home */
  out[k++] = page_target(h, clampi(i + 1, 0, npages - 1)); /* next */
  out[k++] = page_target(h, clampi(i - 1, 0, npages - 1)); /* prev */
  out[k++] = page_target(h, clampi(i / 100 * 100, 0, npages - 1));
  if (i == 0) /* a home page links every section */
    for (int s = 100; s < npages && k < LINKS / 2; s += 100)
      out[k++] = page_target(h, s);
  while (k < LINKS) {
    int r = rnd(100);
    target_t t;
    if (r < 10) { /* another host, a page near the same index */
      int oh = (h + 1 + rnd(nhosts - 1)) % nhosts;
      t = page_target(nhosts > 1 ? oh : h,
                      clampi(i + rnd(41) - 20, 0, npages - 1));
    } else if (r < 23) { /* a random page of this host */
      t = page_target(h, rnd(npages));
    } else if (r < 25) { /* 404 */
      t.host = h;
      t.kind = T_MISSING;
      t.idx = rnd(npages);
    } else if (r < 26) { /* non-HTML */
      t.host = h;
      t.kind = rnd(4) == 0 ? T_PDF : T_IMG;
      t.idx = t.kind == T_PDF ? rnd(NPDF) : rnd(NIMG);
    } else if (r < 28) { /* disallowed by robots.txt */
      t.host = h;
      t.kind = T_PRIV;
      t.idx = rnd(NPRIV);
    } else if (r < 33 && k > 4) { /* a duplicate of an earlier link */
      t = out[rnd(k)];
    } else { /* a nearby page */
      t = page_target(h, clampi(i + rnd(61) - 30, 0, npages - 1));
    }
    out[k++] = t;
  }
}

static void write_page(int h, int i, const target_t *links, int priv)
{
  char path[128], href[256];
  if (priv)
    snprintf(path, sizeof path, "/private/p%d.html", i);
  else
    page_path(i, path, sizeof path);
  FILE *f = open_out(h, path);
  int size = page_min + rnd(page_span + 1);
  fprintf(f,
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n<title>Host %d page %d</title>\n"
          "</head>\n<body>\n<h1 id=\"top\">Host %d page %d</h1>\n",
          h + 2, i, h + 2, i);
  int per = size / (LINKS + 1);
  for (int k = 0; k < LINKS; k++) {
    fprintf(f, "<p id=\"sec%d\">", k % 9);
    filler(f, per - 60);
    if (links != NULL) {
      href_for(h, path, &links[k], href, sizeof href);
      fprintf(f, "<a href=\"%s\">link %d</a>", href, k);
    }
    fputs("</p>\n", f);
  }
  fputs("<p>", f);
  filler(f, per - 40);
  fputs("</p>\n</body>\n</html>\n", f);
  fclose(f);
}

static void write_blob(int h, const char *path, int bytes)
{
  FILE *f = open_out(h, path);
  for (int b = 0; b < bytes; b++)
    fputc(rnd(256), f);
  fclose(f);
}

static void write_site(void)
{
  for (int h = 0; h < nhosts; h++)
    for (int i = 0; i < npages; i++)
      make_links(h, i, graph + ((size_t)h * npages + i) * LINKS);
  for (int h = 0; h < nhosts; h++) {
    for (int i = 0; i < npages; i++)
      write_page(h, i, graph + ((size_t)h * npages + i) * LINKS, 0);
    for (int i = 0; i < NPRIV; i++)
      write_page(h, i, NULL, 1);
    char p[64];
    for (int i = 0; i < NIMG; i++) {
      snprintf(p, sizeof p, "/img/fig%d.png", i);
      write_blob(h, p, 2000 + rnd(4000));
    }
    for (int i = 0; i < NPDF; i++) {
      snprintf(p, sizeof p, "/files/doc%d.pdf", i);
      write_blob(h, p, 20000 + rnd(20000));
    }
    FILE *f = open_out(h, "/robots.txt");
    fputs("User-agent: *\nDisallow: /private/\n", f);
    fclose(f);
  }
  char p[4096], pp[128];
  snprintf(p, sizeof p, "%s/paths-127.0.0.2.txt", outdir);
  FILE *f = fopen(p, "w");
  if (f == NULL) {
    perror(p);
    exit(1);
  }
  for (int i = 0; i < npages; i++) {
    page_path(i, pp, sizeof pp);
    fprintf(f, "%s\n", pp);
  }
  fclose(f);
}

/* The breadth-first crawl from host 0 page 0: the depth of every page, and
 * of every non-HTML file (a leaf); the pages in visiting order. */
static int *depth, *queue, *odepth;
static size_t nqueue;
static int nother;

static void bfs(void)
{
  size_t n = (size_t)nhosts * npages;
  depth = malloc(n * sizeof *depth);
  queue = malloc(n * sizeof *queue);
  nother = nhosts * (NIMG + NPDF);
  odepth = malloc((size_t)nother * sizeof *odepth);
  if (depth == NULL || queue == NULL || odepth == NULL) {
    fprintf(stderr, "gensite: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++)
    depth[i] = -1;
  for (int i = 0; i < nother; i++)
    odepth[i] = -1;
  size_t qh = 0, qt = 0;
  depth[0] = 0;
  queue[qt++] = 0;
  while (qh < qt) {
    int u = queue[qh++];
    const target_t *l = graph + (size_t)u * LINKS;
    for (int k = 0; k < LINKS; k++) {
      if (l[k].kind == T_PAGE) {
        int v = l[k].host * npages + l[k].idx;
        if (depth[v] < 0) {
          depth[v] = depth[u] + 1;
          queue[qt++] = v;
        }
      } else if (l[k].kind == T_IMG || l[k].kind == T_PDF) {
        int o = l[k].host * (NIMG + NPDF) +
                (l[k].kind == T_IMG ? l[k].idx : NIMG + l[k].idx);
        if (odepth[o] < 0)
          odepth[o] = depth[u] + 1;
      }
    }
  }
  nqueue = qt;
  /* The queue is in depth order: count each depth's pages from it. */
  fprintf(stderr, "gensite: %d hosts x %d pages; pages per depth:", nhosts,
          npages);
  for (size_t q = 0; q < qt;) {
    int d = depth[queue[q]];
    size_t c = 0;
    while (q < qt && depth[queue[q]] == d)
      q++, c++;
    fprintf(stderr, " %d:%zu", d, c);
  }
  fputc('\n', stderr);
}

/* OUTDIR/expected-LIM.txt: every target the crawl reaches within LIM. */
static void write_expected(int lim)
{
  char p[4096], pp[128];
  snprintf(p, sizeof p, "%s/expected-%d.txt", outdir, lim);
  FILE *f = fopen(p, "w");
  if (f == NULL) {
    perror(p);
    exit(1);
  }
  int pages = 0, others = 0;
  for (size_t q = 0; q < nqueue; q++) { /* breadth-first order */
    int v = queue[q];
    if (depth[v] > lim)
      break;
    page_path(v % npages, pp, sizeof pp);
    fprintf(f, "http://127.0.0.%d:%d%s %d page\n", v / npages + 2, port, pp,
            depth[v]);
    pages++;
  }
  for (int o = 0; o < nother; o++)
    if (odepth[o] >= 0 && odepth[o] <= lim) {
      int h = o / (NIMG + NPDF), j = o % (NIMG + NPDF);
      if (j < NIMG)
        snprintf(pp, sizeof pp, "/img/fig%d.png", j);
      else
        snprintf(pp, sizeof pp, "/files/doc%d.pdf", j - NIMG);
      fprintf(f, "http://127.0.0.%d:%d%s %d other\n", h + 2, port, pp,
              odepth[o]);
      others++;
    }
  fclose(f);
  fprintf(stderr, "gensite: depth %d: %d pages + %d other files = %d\n", lim,
          pages, others, pages + others);
}

/* --page-kb MIN-MAX: 1 <= MIN <= MAX <= 1024. */
static int parse_page_kb(const char *s)
{
  int lo, hi;
  char end;
  if (sscanf(s, "%d-%d%c", &lo, &hi, &end) != 2 || lo < 1 || hi < lo ||
      hi > 1024)
    return -1;
  page_min = lo * 1024;
  page_span = (hi - lo) * 1024;
  return 0;
}

int main(int argc, char **argv)
{
  int a = 1;
  if (argc > 2 && strcmp(argv[1], "--page-kb") == 0) {
    if (parse_page_kb(argv[2]) != 0) {
      fprintf(stderr, "gensite: bad --page-kb %s (MIN-MAX, in KB)\n", argv[2]);
      return 1;
    }
    a = 3;
  }
  if (argc - a < 4) {
    fprintf(stderr, "usage: gensite [--page-kb MIN-MAX] OUTDIR PORT HOSTS "
                    "PAGES [DEPTH...]\n");
    return 1;
  }
  outdir = argv[a];
  port = atoi(argv[a + 1]);
  nhosts = atoi(argv[a + 2]);
  npages = atoi(argv[a + 3]);
  if (nhosts < 1 || nhosts > 250 || npages < 1 || npages > 1000000 ||
      (long)nhosts * npages > 10000000) {
    fprintf(stderr, "gensite: bad HOSTS or PAGES\n");
    return 1;
  }
  mkdirs(outdir);
  graph = malloc((size_t)nhosts * npages * LINKS * sizeof *graph);
  if (graph == NULL) {
    fprintf(stderr, "gensite: out of memory\n");
    return 1;
  }
  write_site();
  bfs();
  for (int k = a + 4; k < argc; k++)
    write_expected(atoi(argv[k]));
  free(depth);
  free(queue);
  free(odepth);
  free(graph);
  return 0;
}
