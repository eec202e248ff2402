/* crawler.c: the crawler program. Parses and checks the command line, sets
 * up the libraries, runs the crawl (webcrawl.c) and maps its status to an
 * exit code. See usage() for the interface and exit codes.
 *
 * Threads: every function but signal_main runs on the main thread, which
 * is alone until start_signal_thread and webcrawl_run start others. */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <libxml/parser.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crawl.h"
#include "fptable.h"
#include "pagedir.h"
#include "scope.h"
#include "store.h"
#include "strbuf.h"
#include "summary.h"
#include "url.h"
#include "urlfilter.h"
#include "wcluster.h"
#include "webcrawl.h"

enum {
  EXIT_USAGE = 1,   /* bad option or argument count */
  EXIT_SEED = 2,    /* bad seedURL */
  EXIT_PAGEDIR = 3, /* bad pageDirectory */
  EXIT_DEPTH = 4,   /* bad maxDepth */
  EXIT_INTERRUPTED = 5,
  EXIT_IO = 6,      /* a page, the journal or the WARC file could not
                       be written, or a resume found the site changed */
  EXIT_FATAL = 7,   /* out of memory, no threads */
  EXIT_NOSEED = 8,  /* the seed page was not saved */
  EXIT_CLUSTER = 9, /* --cluster: Redis unreachable, or the shared crawl
                       failed (gone from Redis, a lease lost) */
  EXIT_RUNNING = 10 /* --status: the crawl is not complete yet */
};

/* What each status (crawl.h) exits with; any other, EXIT_FATAL. */
static const struct {
  int status, code;
} exit_codes[] = {
  { CRAWL_OK, 0 },
  { CRAWL_EDONE, 0 },
  { CRAWL_ESTOPPED, EXIT_INTERRUPTED },
  { CRAWL_EIO, EXIT_IO },
  { CRAWL_EMISMATCH, EXIT_PAGEDIR },
  { CRAWL_EREDIS, EXIT_CLUSTER },
  { CRAWL_ELOST, EXIT_CLUSTER },
  { CRAWL_EFENCED, EXIT_CLUSTER },
  { CRAWL_ENOENT, EXIT_CLUSTER },
  { CRAWL_EORDER, EXIT_CLUSTER },
  { CRAWL_ECLUSTER, EXIT_CLUSTER },
};

/* exit_code: the exit code of STATUS (exit_codes). */
static int exit_code(int status)
{
  for (size_t i = 0; i < sizeof(exit_codes) / sizeof(exit_codes[0]); i++)
    if (exit_codes[i].status == status)
      return exit_codes[i].code;
  return EXIT_FATAL;
}

#define MAX_DEPTH 1000
/* --max-memory: 512 MiB. A crawl of a million pages holds about half of
 * it (queued URLs, link lists, pages fetched ahead) and spills nothing; a
 * hostile site cannot make it hold more; any laptop has it to spare
 * (DESIGN.md, "The memory budget"). */
#define DEFAULT_MAX_MEMORY ((size_t)512 * 1024 * 1024)
/* The elastic download pool's cap without --download-workers (DESIGN.md,
 * "Concurrency without tuning"). */
#define DEFAULT_DOWNLOAD_MAX 512
#define DEFAULT_UA                                                             \
  "tse-crawler/" CRAWL_VERSION                                                 \
  " (+https://example.invalid/change-me; set --user-agent)"

static const char *prog = "crawler";

static void usage_line(FILE *fp)
{
  fprintf(fp, "usage: %s [options] seedURL pageDirectory maxDepth\n", prog);
}

/* The help text is laid out as it prints. */
/* clang-format off */
static void usage(void)
{
  usage_line(stdout);
  printf(
"\n"
"Crawl every page reachable from seedURL within maxDepth links, inside the\n"
"scope, and save each as pageDirectory/ID (1, 2, 3, ...): line 1 the URL,\n"
"line 2 the depth, then the page as served. The result is that of a plain\n"
"breadth-first crawl, byte for byte, whatever the worker counts.\n"
"\n"
"  seedURL         absolute http(s) URL; must be inside the scope\n"
"  pageDirectory   existing writable directory holding no crawl\n"
"  maxDepth        0 to %d\n"
"\n"
"Options:\n"
"  --download-workers N  exactly N threads fetching pages (default: 8, and\n"
"                        more while pages are due and none is free, up to\n"
"                        %d, or 64 at --rate 0; fewer again when idle)\n"
"  --parse-workers N     threads parsing pages (default 2)\n"
"  --queue-size N        most URLs queued (in memory or on disk) or being\n"
"                        fetched; 0 = no bound (default 0)\n"
"  --rate R              requests per second per host (default 1);\n"
"                        0 = unlimited, only for servers you own\n"
"  --burst B             requests a host may get at once (default 1)\n"
"  --scope PREFIX        follow URLs starting with PREFIX; repeatable, any\n"
"                        number (default, if no --domain either:\n"
"                        scheme://host[:port]/ of seedURL)\n"
"  --domain D            follow URLs whose host is D or a subdomain of D\n"
"                        (example.edu: also cs.example.edu, never\n"
"                        badexample.edu), any scheme (http, https) and\n"
"                        port; an IP address matches only itself;\n"
"                        repeatable, any number. A URL is followed if any\n"
"                        --scope or any --domain admits it\n"
"  --seed URL            another seed, at depth 0 after seedURL (IDs in the\n"
"                        order given); repeatable; its site joins the\n"
"                        default scope\n"
"  --seeds FILE          the seeds in FILE, one URL a line ('#' comments)\n"
"  --sitemaps            also follow the URLs a seed's site lists in its\n"
"                        sitemaps (robots.txt Sitemap: lines, /sitemap.xml;\n"
"                        indexes and .gz too), as links of the seed\n"
"  --accept-regex RE     follow only links in scope whose normalised URL\n"
"                        matches RE (POSIX extended, unanchored); repeatable:\n"
"                        any one may match\n"
"  --reject-regex RE     follow no link whose normalised URL matches RE\n"
"                        (e.g. '[?]C=[NMSD]' for Apache's sort links);\n"
"                        repeatable. Neither applies to seedURL\n"
"  --user-agent S        User-Agent header (default: %s)\n"
"  --header 'NAME: VALUE'  send this header (a cookie, credentials) with\n"
"                        every request to a seed's host, robots.txt included,\n"
"                        never over http to an https seed's; repeatable;\n"
"                        never logged nor recorded in the marker (a WARC\n"
"                        file records it)\n"
"  --max-pages N         stop after saving N pages; 0 = no limit (default)\n"
"  --max-pages-per-host N  save at most N pages of any one host; 0 = no\n"
"                        limit (default)\n"
"  --timeout SECONDS     per request (default 30)\n"
"  --retries N           retries of timeouts, connection failures, 5xx and\n"
"                        429, with exponential back-off (default 2)\n"
"  --max-page-size BYTES larger pages are abandoned (default 10485760)\n"
"  --max-memory BYTES    what waits for its turn (links found, URLs queued,\n"
"                        pages fetched ahead) beyond BYTES waits on disk,\n"
"                        in pageDirectory; 0 = no limit (default 536870912)\n",
         MAX_DEPTH, DEFAULT_DOWNLOAD_MAX, DEFAULT_UA);
  fputs(
"  --ca-certificate FILE trust the certificate authorities in FILE (PEM),\n"
"                        instead of the system's\n"
"  --ca-directory DIR    trust those in DIR (named by hash: openssl\n"
"                        rehash DIR), instead of the system's\n"
"  --no-check-certificate  check no TLS certificate: anyone on the way\n"
"                        can read and change the pages; test servers only\n"
"  --format F            html, link or auto: link format for text/plain\n"
"                        pages, HTML otherwise (default auto)\n"
"  --ignore-robots       ignore robots.txt, meta robots and X-Robots-Tag;\n"
"                        only for sites you own\n"
"  --respect-rel-nofollow  do not follow links marked rel=\"nofollow\"\n"
"  --compress            write each page file gzip-compressed (zcat shows it)\n"
"  --fsync               fsync every page before it gets its ID (survives a\n"
"                        power failure; costs a disk flush per page)\n"
"  --replay SAVED_DIR    fetch from a saved pageDirectory instead of the\n"
"                        network (a URL not in it is a broken link); no\n"
"                        politeness delay, no robots.txt\n"
"  --warc FILE.warc.gz   also record every HTTP exchange, as received, in a\n"
"                        WARC/1.1 file (appended to on --resume)\n"
"  --resume              continue an interrupted crawl in pageDirectory\n"
"                        (same seedURL, maxDepth and every option the\n"
"                        marker records: scope, domain, regexes, format,\n"
"                        page limits, robots options, user agent)\n"
"  --cluster redis://HOST[:PORT][/DB]  run as one worker of a crawl shared\n"
"                        with other crawler processes, on any machines,\n"
"                        through Redis (--crawl-name names it); the first\n"
"                        creates it, the others join; pageDirectory must\n"
"                        be the same directory for all (a shared mount)\n"
"  --crawl-name NAME     the shared crawl (letters, digits, '-', '_', '.')\n"
"  --lease-timeout SECONDS  a worker that stops answering loses its hosts\n"
"                        and the commit after this long (default 10)\n"
"  --status              with --cluster and --crawl-name, and no\n"
"                        arguments: print the shared crawl's state\n"
"  --log                 one line per event on stdout (CS50 layout)\n"
"  --log-file FILE       append every event to FILE, robots.txt fetches\n"
"                        included: ISO 8601 UTC time, depth, event, URL\n"
"  -q, --quiet           no summary and no status line\n"
"  --stats               add the engine's figures to the summary (memory\n"
"                        budget, politeness bound, Redis round trips)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 done; 1 bad usage; 2 bad seedURL; 3 bad pageDirectory\n"
"(or, with --cluster, an option that differs from the shared crawl's);\n"
"4 bad maxDepth; 5 interrupted; 6 a page could not be written; 7 out of\n"
"memory or threads; 8 the seed page was not saved (the last line on\n"
"stderr says why: its HTTP status, the network or TLS error, robots.txt);\n"
"9 --cluster: Redis cannot be reached, or the shared crawl failed;\n"
"10 --status: the shared crawl is still running (0: complete).\n",
         stdout);
}
/* clang-format on */

/* out_of_memory: say so and exit with EXIT_FATAL. */
static void out_of_memory(void) __attribute__((noreturn));

static void out_of_memory(void)
{
  fprintf(stderr, "%s: out of memory\n", prog);
  exit(EXIT_FATAL);
}

/* refuse: one line naming the argument and the reason, then the usage
 * line, then exit with CODE. */
static void refuse(int code, const char *fmt, ...)
  __attribute__((format(printf, 2, 3), noreturn));

static void refuse(int code, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  usage_line(stderr);
  fprintf(stderr, "Try '%s --help' for the options.\n", prog);
  exit(code);
}

/* parse_long: a decimal integer in [MIN, MAX], all of S, nothing else. */
static bool parse_long(const char *s, long min, long max, long *out)
{
  if (s[0] < '0' || s[0] > '9')
    return false;
  errno = 0;
  char *end;
  long v = strtol(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return false;
  *out = v;
  return true;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
  if ((s[0] < '0' || s[0] > '9') && s[0] != '.')
    return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno != 0 || *end != '\0' || !(v >= min && v <= max))
    return false;
  *out = v;
  return true;
}

/* check_resumable: DIR holds a crawl whose marker records exactly
 * PARAMS; else refuse, naming the first parameter that differs. */
static void check_resumable(const char *dir, const pagedir_params_t *params)
{
  if (pagedir_count(dir) < 0)
    refuse(EXIT_PAGEDIR, "pageDirectory '%s' holds no crawl to resume", dir);
  char *had, *want;
  int rc = pagedir_marker_compare(dir, params, &had, &want);
  if (rc < 0)
    refuse(EXIT_PAGEDIR, "pageDirectory: cannot read '%s/%s': %s", dir,
           PAGEDIR_MARKER, strerror(errno));
  if (rc > 0)
    refuse(EXIT_PAGEDIR,
           "cannot resume: '%s' was crawled with '%s', "
           "this command asks for '%s'",
           dir, had, want);
}

/* lock_or_refuse: the lock on DIR (see pagedir_lock), or refuse. */
static int lock_or_refuse(const char *dir)
{
  int fd = pagedir_lock(dir);
  if (fd < 0)
    refuse(EXIT_PAGEDIR, "pageDirectory '%s' %s", dir,
           errno == EAGAIN ? "is being written by another crawler"
                           : "cannot be locked");
  return fd;
}

/* The signal thread: the first SIGINT/SIGTERM stops the crawl cleanly,
 * the second ends the process at once. Pages are published by rename, so
 * the page directory is consistent either way. */
static void *signal_main(void *arg)
{
  sigset_t *set = arg;
  int sig, n = 0;
  while (sigwait(set, &sig) == 0) {
    if (++n == 1) {
      fprintf(stderr,
              "\n%s: interrupted; finishing the requests in flight "
              "(interrupt again to stop at once)\n",
              prog);
      webcrawl_interrupt();
    } else {
      _exit(EXIT_INTERRUPTED);
    }
  }
  return NULL;
}

/* struct cmd: the command line, checked, and what the program opened for
 * it. main's steps fill it in order; each names the fields it sets. */
struct cmd {
  webcrawl_opts_t o;                      /* what webcrawl_run is given */
  const char *seed_arg, *dir, *depth_arg; /* the arguments (argv) */
  const char **scope_arg;                 /* --scope values (argv), NSCOPE;
                                           * room for argc; owned */
  size_t nscope;
  const char **domain_arg; /* --domain values (argv), NDOMAIN;
                            * room for argc; owned */
  size_t ndomain;
  const char **accept, **reject; /* --accept-regex, --reject-regex values
                                  * (argv), NACCEPT and NREJECT; room for
                                  * argc; owned */
  size_t naccept, nreject;
  urlfilter_t *filter;        /* of ACCEPT and REJECT, or NULL; owned */
  struct curl_slist *headers; /* --header lines, checked; owned */
  const char **secret;        /* the --header values as getopt gave them (a word
                               * of argv, or its part after '='), never printed;
                               * NSECRET, room for argc; owned */
  size_t nsecret;
  const char **extra; /* --seed URL and --seeds FILE values (argv), in
                       * order, NEXTRA; room for argc; owned */
  bool *extra_file;   /* whether EXTRA[i] is a --seeds FILE */
  size_t nextra;
  char **seeds; /* every seed normalised, SEED first, NSEEDS; a
                 * repeated one once; owned */
  size_t nseeds;
  const char *replay_dir, *warc_path;   /* argv, or NULL */
  const char *cluster_url, *crawl_name; /* argv, or NULL */
  char stamp[128];                      /* the directory's, as bound */
  double lease;                         /* --lease-timeout */
  bool quiet, resume, status, stats;
  char *seed;               /* normalised; owned */
  char **scope;             /* normalised, NSCOPE; owned */
  char **domain;            /* normalised, NDOMAIN; owned */
  scope_t *in_scope;        /* of SCOPE and DOMAIN; owned */
  store_t *store;           /* --replay's or --resume's, or NULL */
  int lock;                 /* from pagedir_lock, or -1 */
  cluster_t *cluster;       /* --cluster: this worker of the shared crawl */
  coord_t coord;            /* --cluster: its coordinator (c->o.coord) */
  bool discarded;           /* nothing saved: the crawl's files removed */
  bool warc_new;            /* the --warc file did not exist before this run */
  const char *logfile_path; /* --log-file, or NULL */
  int argc;                 /* main's, for the --resume command we print */
  char **argv;
};

enum {
  O_DW = 256,
  O_PW,
  O_QS,
  O_RATE,
  O_BURST,
  O_SCOPE,
  O_UA,
  O_MAXP,
  O_TIMEOUT,
  O_RETRIES,
  O_MAXSIZE,
  O_MAXMEM,
  O_FORMAT,
  O_LOG,
  O_LOGFILE,
  O_QUIET,
  O_HELP,
  O_VERSION,
  O_STATS,
  O_IGNROBOTS,
  O_RELNOFOLLOW,
  O_MAXPH,
  O_COMPRESS,
  O_FSYNC,
  O_REPLAY,
  O_RESUME,
  O_WARC,
  O_DOMAIN,
  O_ACCEPT,
  O_HEADER,
  O_SEED,
  O_SEEDS,
  O_SITEMAPS,
  O_REJECT,
  O_CAFILE,
  O_CADIR,
  O_NOCHECK,
  O_CLUSTER,
  O_NAME,
  O_LEASE,
  O_STATUS
};

static const struct option opts[] = {
  { "download-workers", required_argument, NULL, O_DW },
  { "parse-workers", required_argument, NULL, O_PW },
  { "queue-size", required_argument, NULL, O_QS },
  { "rate", required_argument, NULL, O_RATE },
  { "burst", required_argument, NULL, O_BURST },
  { "scope", required_argument, NULL, O_SCOPE },
  { "domain", required_argument, NULL, O_DOMAIN },
  { "accept-regex", required_argument, NULL, O_ACCEPT },
  { "header", required_argument, NULL, O_HEADER },
  { "seed", required_argument, NULL, O_SEED },
  { "seeds", required_argument, NULL, O_SEEDS },
  { "sitemaps", no_argument, NULL, O_SITEMAPS },
  { "reject-regex", required_argument, NULL, O_REJECT },
  { "user-agent", required_argument, NULL, O_UA },
  { "max-pages", required_argument, NULL, O_MAXP },
  { "max-pages-per-host", required_argument, NULL, O_MAXPH },
  { "timeout", required_argument, NULL, O_TIMEOUT },
  { "retries", required_argument, NULL, O_RETRIES },
  { "max-page-size", required_argument, NULL, O_MAXSIZE },
  { "max-memory", required_argument, NULL, O_MAXMEM },
  { "ca-certificate", required_argument, NULL, O_CAFILE },
  { "ca-directory", required_argument, NULL, O_CADIR },
  { "no-check-certificate", no_argument, NULL, O_NOCHECK },
  { "format", required_argument, NULL, O_FORMAT },
  { "ignore-robots", no_argument, NULL, O_IGNROBOTS },
  { "respect-rel-nofollow", no_argument, NULL, O_RELNOFOLLOW },
  { "compress", no_argument, NULL, O_COMPRESS },
  { "fsync", no_argument, NULL, O_FSYNC },
  { "replay", required_argument, NULL, O_REPLAY },
  { "resume", no_argument, NULL, O_RESUME },
  { "warc", required_argument, NULL, O_WARC },
  { "cluster", required_argument, NULL, O_CLUSTER },
  { "crawl-name", required_argument, NULL, O_NAME },
  { "lease-timeout", required_argument, NULL, O_LEASE },
  { "status", no_argument, NULL, O_STATUS },
  { "log", no_argument, NULL, O_LOG },
  { "log-file", required_argument, NULL, O_LOGFILE },
  { "quiet", no_argument, NULL, O_QUIET },
  { "stats", no_argument, NULL, O_STATS },
  { "help", no_argument, NULL, O_HELP },
  { "version", no_argument, NULL, O_VERSION },
  { NULL, 0, NULL, 0 }
};

/* Headers --header may not set: the crawl sets them itself, per host or
 * per transfer (Host: every host of the scope gets the same lines;
 * Accept-Encoding: fetch.c decodes what it asked for), or an option
 * does. */
static const char *const own_headers[] = {
  "host",       "accept-encoding",   "user-agent", "content-length",
  "connection", "transfer-encoding", "te",         "upgrade",
};

/* add_header: --header LINE: "Name: value", Name an HTTP token, value
 * one non-empty line; appended to C->headers, or refused. The value is
 * never printed (it may be a credential). */
static void add_header(struct cmd *c, const char *line)
{
  static const char tchar[] = "!#$%&'*+-.^_`|~";
  size_t n = 0;
  while (line[n] != '\0' &&
         (isalnum((unsigned char)line[n]) || strchr(tchar, line[n]) != NULL))
    n++;
  const char *v = line + n + 1;
  while (line[n] == ':' && (*v == ' ' || *v == '\t'))
    v++;
  if (n == 0 || line[n] != ':' || *v == '\0' || strpbrk(line, "\r\n"))
    refuse(EXIT_USAGE,
           "--header: give 'Name: value', Name a header name, the value "
           "one non-empty line");
  for (size_t i = 0; i < sizeof(own_headers) / sizeof(own_headers[0]); i++)
    if (strlen(own_headers[i]) == n &&
        strncasecmp(line, own_headers[i], n) == 0)
      refuse(EXIT_USAGE, "--header: the crawler sets %.*s itself%s", (int)n,
             line,
             n == 10 && strncasecmp(line, "user-agent", n) == 0
               ? "; use --user-agent"
               : "");
  struct curl_slist *l = curl_slist_append(c->headers, line);
  if (l == NULL)
    out_of_memory();
  c->headers = l;
  c->o.headers = l;
}

/* check_ca: refuse unless PATH, the value of option NAME, is a file that
 * can be read or, with DIR, a directory that can be searched. Checked
 * here, as libcurl would say it only at the first HTTPS request, and in
 * its words ("error setting certificate file"). */
static void check_ca(const char *name, const char *path, bool dir)
{
  struct stat sb;
  if (stat(path, &sb) != 0)
    refuse(EXIT_USAGE, "%s: cannot read '%s': %s", name, path, strerror(errno));
  if (dir ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
    refuse(EXIT_USAGE, "%s: '%s' is not a %s", name, path,
           dir ? "directory" : "file");
  if (access(path, dir ? R_OK | X_OK : R_OK) != 0)
    refuse(EXIT_USAGE, "%s: cannot read '%s': %s", name, path, strerror(errno));
}

/* parse_option: apply option OPT (getopt_long's return; its value in
 * optarg; NAME the last word it read, for the refusals of a missing
 * value or an unknown option) to C, or refuse; --help and --version
 * print and exit 0. */
static void parse_option(struct cmd *c, int opt, const char *name)
{
  webcrawl_opts_t *o = &c->o;
  long v;
  double dv;
  switch (opt) {
  case O_DW:
  case O_PW:
    if (!parse_long(optarg, 1, 4096, &v))
      refuse(EXIT_USAGE, "%s: '%s' is not a worker count (1 to 4096)",
             opt == O_DW ? "--download-workers" : "--parse-workers", optarg);
    *(opt == O_DW ? &o->download_workers : &o->parse_workers) = (int)v;
    if (opt == O_DW)
      o->download_max = 0; /* a count given is the count */
    break;
  case O_QS:
    if (!parse_long(optarg, 0, LONG_MAX, &v))
      refuse(EXIT_USAGE, "--queue-size: '%s' is not a count", optarg);
    o->queue_size = (size_t)v;
    break;
  case O_RATE:
    if (!parse_double(optarg, 0, 1e6, &o->rate))
      refuse(EXIT_USAGE, "--rate: '%s' is not a rate (0 to 1000000)", optarg);
    break;
  case O_BURST:
    if (!parse_double(optarg, 1, 1e6, &o->burst))
      refuse(EXIT_USAGE, "--burst: '%s' is not a burst (1 to 1000000)", optarg);
    break;
  case O_SCOPE:
    c->scope_arg[c->nscope++] = optarg; /* room: parse_command_line */
    break;
  case O_DOMAIN:
    c->domain_arg[c->ndomain++] = optarg;
    break;
  case O_ACCEPT:
    c->accept[c->naccept++] = optarg;
    break;
  case O_REJECT:
    c->reject[c->nreject++] = optarg;
    break;
  case O_UA:
    if (optarg[0] == '\0' || strpbrk(optarg, "\r\n") != NULL)
      refuse(EXIT_USAGE, "--user-agent: must be one non-empty line");
    o->user_agent = optarg;
    break;
  case O_HEADER:
    c->secret[c->nsecret++] = optarg;
    add_header(c, optarg);
    break;
  case O_SITEMAPS:
    o->sitemaps = true;
    break;
  case O_SEED:
  case O_SEEDS:
    c->extra_file[c->nextra] = opt == O_SEEDS;
    c->extra[c->nextra++] = optarg;
    break;
  case O_MAXP:
    if (!parse_long(optarg, 0, INT_MAX, &o->max_pages))
      refuse(EXIT_USAGE, "--max-pages: '%s' is not a count", optarg);
    break;
  case O_MAXPH:
    if (!parse_long(optarg, 0, INT_MAX, &o->max_pages_per_host))
      refuse(EXIT_USAGE, "--max-pages-per-host: '%s' is not a count", optarg);
    break;
  case O_TIMEOUT:
    if (!parse_long(optarg, 1, 86400, &o->timeout))
      refuse(EXIT_USAGE, "--timeout: '%s' is not 1 to 86400 seconds", optarg);
    break;
  case O_RETRIES:
    if (!parse_long(optarg, 0, 100, &v))
      refuse(EXIT_USAGE, "--retries: '%s' is not 0 to 100", optarg);
    o->retries = (int)v;
    break;
  case O_MAXSIZE:
    if (!parse_double(optarg, 1, 1e12, &dv) || dv != (double)(long)dv)
      refuse(EXIT_USAGE, "--max-page-size: '%s' is not a byte count", optarg);
    o->max_page_size = (size_t)dv;
    break;
  case O_MAXMEM:
    if (!parse_double(optarg, 0, 1e15, &dv) || dv != (double)(long)dv)
      refuse(EXIT_USAGE, "--max-memory: '%s' is not a byte count", optarg);
    o->max_memory = (size_t)dv;
    break;
  case O_FORMAT:
    if (strcmp(optarg, "auto") == 0)
      o->format = FORMAT_AUTO;
    else if (strcmp(optarg, "html") == 0)
      o->format = FORMAT_HTML;
    else if (strcmp(optarg, "link") == 0)
      o->format = FORMAT_LINK;
    else
      refuse(EXIT_USAGE, "--format: '%s' is not html, link or auto", optarg);
    break;
  case O_CAFILE:
    check_ca("--ca-certificate", optarg, false);
    o->ca_file = optarg;
    break;
  case O_CADIR:
    check_ca("--ca-directory", optarg, true);
    o->ca_dir = optarg;
    break;
  case O_NOCHECK:
    o->insecure = true;
    break;
  case O_IGNROBOTS:
    o->ignore_robots = true;
    break;
  case O_RELNOFOLLOW:
    o->respect_rel_nofollow = true;
    break;
  case O_COMPRESS:
    o->compress = true;
    break;
  case O_FSYNC:
    o->fsync = true;
    break;
  case O_REPLAY:
    c->replay_dir = optarg;
    break;
  case O_RESUME:
    c->resume = true;
    break;
  case O_WARC:
    c->warc_path = optarg;
    break;
  case O_CLUSTER:
    c->cluster_url = optarg;
    break;
  case O_NAME:
    c->crawl_name = optarg;
    break;
  case O_LEASE:
    if (!parse_double(optarg, 1, 3600, &c->lease))
      refuse(EXIT_USAGE, "--lease-timeout: '%s' is not 1 to 3600 seconds",
             optarg);
    break;
  case O_STATUS:
    c->status = true;
    break;
  case O_LOG:
    o->log = true;
    break;
  case O_LOGFILE:
    c->logfile_path = optarg;
    break;
  case O_QUIET:
    c->quiet = true;
    break;
  case O_STATS:
    c->stats = true;
    break;
  case 'h':
  case O_HELP:
    usage();
    exit(0);
  case 'q':
    c->quiet = true;
    break;
  case 'V':
  case O_VERSION:
    printf("crawler %s (libcurl %s, libxml2 %s)\n", CRAWL_VERSION,
           curl_version_info(CURLVERSION_NOW)->version, LIBXML_DOTTED_VERSION);
    exit(0);
  case ':':
    refuse(EXIT_USAGE, "%s needs a value", name);
  default:
    /* "-1" where maxDepth goes looks like an option to getopt. */
    if (name[0] == '-' && name[1] >= '0' && name[1] <= '9')
      refuse(EXIT_DEPTH, "maxDepth '%s' is not an integer from 0 to %d", name,
             MAX_DEPTH);
    /* Its name only: what follows '=' may be a credential. */
    refuse(EXIT_USAGE, "unknown option '%.*s'", (int)strcspn(name, "="), name);
  }
}

/* check_cluster: --cluster and --crawl-name go together, with a Redis
 * URL that parses; --status needs them. Else refuse. */
static void check_cluster(struct cmd *c)
{
  if ((c->cluster_url == NULL) != (c->crawl_name == NULL))
    refuse(EXIT_USAGE, "--cluster and --crawl-name go together");
  if (c->status && c->cluster_url == NULL)
    refuse(EXIT_USAGE, "--status needs --cluster and --crawl-name");
  if (c->crawl_name != NULL && !cstate_name_ok(c->crawl_name))
    refuse(EXIT_USAGE,
           "--crawl-name '%s': use 1 to 64 letters, digits, '-', '_', '.'",
           c->crawl_name);
  char host[256], err[320];
  int port, db;
  if (c->cluster_url != NULL &&
      rconn_parse_url(c->cluster_url, host, sizeof(host), &port, &db, err,
                      sizeof(err)) != 0)
    refuse(EXIT_USAGE, "--cluster: %s", err);
}

/* parse_command_line: fill C with the defaults, then with ARGV's options
 * and its three arguments; refuse a bad option or argument count. */
static void parse_command_line(int argc, char *argv[], struct cmd *c)
{
  *c = (struct cmd){
    .o = {
      .download_workers = 8, .download_max = DEFAULT_DOWNLOAD_MAX,
      .parse_workers = 2, .queue_size = 0,
      .rate = 1, .burst = 1, .user_agent = DEFAULT_UA, .timeout = 30,
      .retries = 2, .max_page_size = 10 * 1024 * 1024,
      .max_memory = DEFAULT_MAX_MEMORY,
      .format = FORMAT_AUTO, .logfp = stdout,
    },
    .lock = -1,
    .lease = 10,
    .argc = argc,
    .argv = argv,
  };
  /* No cap on --scope or --domain: each takes at least one word of
   * ARGV, so ARGC entries always suffice. */
  c->scope_arg = calloc((size_t)argc, sizeof(char *));
  c->domain_arg = calloc((size_t)argc, sizeof(char *));
  c->accept = calloc((size_t)argc, sizeof(char *));
  c->reject = calloc((size_t)argc, sizeof(char *));
  c->extra = calloc((size_t)argc, sizeof(char *));
  c->extra_file = calloc((size_t)argc, sizeof(bool));
  c->secret = calloc((size_t)argc, sizeof(char *));
  if (c->scope_arg == NULL || c->domain_arg == NULL || c->accept == NULL ||
      c->reject == NULL || c->extra == NULL || c->extra_file == NULL ||
      c->secret == NULL)
    out_of_memory();
  int opt;
  opterr = 0;
  /* The leading ':' makes a missing value ':' rather than '?'. Short
   * options: -h, -q, -V. */
  while ((opt = getopt_long(argc, argv, ":hqV", opts, NULL)) != -1) {
    const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    /* An unknown short option ("-12" where maxDepth goes, or "-xy"):
     * getopt moves past its word only at the word's last letter, so
     * before that the word is still argv[optind]. */
    size_t len = strlen(name);
    if (opt == '?' && optopt > 0 && optopt < 256 && optind < argc &&
        !(name[0] == '-' && len > 1 && name[len - 1] == optopt))
      name = argv[optind];
    parse_option(c, opt, name);
  }
  check_cluster(c);
  if (c->status && argc - optind == 0)
    return; /* --status: the shared crawl has the rest */
  if (argc - optind != 3)
    refuse(EXIT_USAGE,
           "expected 3 arguments (seedURL pageDirectory "
           "maxDepth), got %d",
           argc - optind);
  c->seed_arg = argv[optind];
  c->dir = argv[optind + 1];
  c->depth_arg = argv[optind + 2];
}

/* set_ctype_locale: LC_CTYPE is C.UTF-8 where it exists, else C. */
static void set_ctype_locale(void)
{
  /* IDN hosts are converted only under a UTF-8 codeset (url.h), and the
   * bytes to convert are UTF-8 whatever the user's locale: the HTML
   * link scanner hands over attribute values in UTF-8 (a seed typed in another
   * codeset is read as UTF-8 too: usually invalid, so refused). Hence C.UTF-8,
   * not the user's locale (setlocale(LC_CTYPE, "")): the crawl's result does
   * not depend on $LANG, and webcrawl.c and fetch.c, which classify
   * bytes with <ctype.h> and strcasecmp, keep the C locale's answers for
   * every byte, which other locales change (tr_TR.UTF-8: tolower('I') is
   * 'I', so "NOINDEX" is not "noindex"; ISO-8859-1: isspace(0xA0)
   * holds). With no C.UTF-8, the C locale, where IDN is refused. urlnorm
   * does the same. */
  if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
    setlocale(LC_CTYPE, "C");
}

/* init_libraries: the process-wide setup, before any thread starts: the
 * locale, the open-file limit, libcurl, libxml2. Returns 0, or EXIT_FATAL after
 * saying why. */
static int init_libraries(void)
{
  set_ctype_locale();
  /* Hundreds of download threads keep connections open (webcrawl.c shares
   * the limit out among them): take what the hard limit allows. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &rl); /* the old limit is fine too */
  }
  if (curl_global_init(CURL_GLOBAL_ALL) != 0) {
    fprintf(stderr, "%s: cannot initialise libcurl\n", prog);
    return EXIT_FATAL;
  }
  xmlInitParser();
  return 0;
}

/* add_seed: URL (borrowed), from WHERE, normalised into C->seeds unless
 * it is there already (SEEN: the seeds so far); or refuse. */
static void add_seed(struct cmd *c, fptable_t *seen, const char *url,
                     const char *where)
{
  char *u = url_normalize(url);
  if (u == NULL || !url_is_http(u))
    refuse(EXIT_SEED, "%s: '%s' is not an absolute http(s) URL", where, url);
  uint64_t fp[2];
  fptable_hash128(u, strlen(u), fp);
  int rc = fptable_insert(seen, fp, NULL);
  if (rc < 0)
    out_of_memory();
  if (rc == 0) { /* there already */
    free(u);
    return;
  }
  if (c->nseeds % 64 == 0) {
    char **v = realloc(c->seeds, (c->nseeds + 64) * sizeof(char *));
    if (v == NULL)
      out_of_memory();
    c->seeds = v;
  }
  c->seeds[c->nseeds++] = u;
}

/* read_seeds: the URLs of --seeds FILE, one a line; blank lines and
 * comments ('#' at the start of a line or after a blank) skipped, blanks
 * around a URL ignored; a line of two words, or with a NUL byte, is
 * refused (a URL holds neither). */
static void read_seeds(struct cmd *c, fptable_t *seen, const char *file)
{
  FILE *fp = fopen(file, "r");
  if (fp == NULL)
    refuse(EXIT_SEED, "--seeds: cannot read '%s': %s", file, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    char where[PATH_MAX + 32];
    snprintf(where, sizeof(where), "--seeds %s:%ld", file, lineno);
    if (memchr(line, '\0', (size_t)n) != NULL)
      refuse(EXIT_SEED, "%s: a NUL byte", where);
    char *a = line, *z = line + n;
    while (a < z && isspace((unsigned char)*a))
      a++;
    for (char *h = a; h < z; h++) /* a comment: "#" first or after a blank */
      if (*h == '#' && (h == a || isspace((unsigned char)h[-1])))
        z = h;
    while (z > a && isspace((unsigned char)z[-1]))
      z--;
    *z = '\0';
    if (*a == '\0')
      continue;
    for (char *h = a; h < z; h++)
      if (isspace((unsigned char)*h))
        refuse(EXIT_SEED, "%s: '%s' is more than one URL (one a line)", where,
               a);
    add_seed(c, seen, a, where);
  }
  bool failed = ferror(fp);
  free(line);
  fclose(fp);
  if (failed)
    refuse(EXIT_SEED, "--seeds: cannot read '%s'", file);
}

/* check_seeds: every seed, normalised (C->seeds): seedURL (C->seed,
 * checked), then --seed and --seeds in the order given; or refuse. */
static void check_seeds(struct cmd *c)
{
  fptable_t *seen = fptable_new(0, 64);
  if (seen == NULL)
    out_of_memory();
  add_seed(c, seen, c->seed, "seedURL");
  for (size_t i = 0; i < c->nextra; i++) {
    if (c->extra_file[i])
      read_seeds(c, seen, c->extra[i]);
    else
      add_seed(c, seen, c->extra[i], "--seed");
  }
  fptable_delete(seen);
  /* Every seed is queued before any is fetched: a bound below their
   * number would wait for room forever. */
  if (c->o.queue_size > 0 && c->nseeds > c->o.queue_size)
    refuse(EXIT_USAGE,
           "--queue-size %zu is below the number of seeds (%zu): every "
           "seed is queued at the start",
           c->o.queue_size, c->nseeds);
  if (c->nseeds > 1 && c->cluster_url != NULL)
    refuse(EXIT_USAGE, "--seed, --seeds: not with --cluster yet");
  if (c->o.sitemaps && c->cluster_url != NULL)
    refuse(EXIT_USAGE, "--sitemaps: not with --cluster yet");
}

/* check_scope: normalise the --scope and --domain values, or without
 * either take the seed's default scope (C->scope, C->domain), and build
 * the scope of both (C->in_scope, C->o.scope), which must hold the
 * normalised seed C->seed; or refuse. */
static void check_scope(struct cmd *c)
{
  c->scope = calloc(c->nscope > 0 ? c->nscope : 1, sizeof(char *));
  c->domain = calloc(c->ndomain > 0 ? c->ndomain : 1, sizeof(char *));
  if (c->scope == NULL || c->domain == NULL)
    out_of_memory();
  for (size_t i = 0; i < c->nscope; i++) {
    c->scope[i] = url_normalize(c->scope_arg[i]);
    if (c->scope[i] == NULL)
      refuse(EXIT_USAGE, "--scope: '%s' is not an http(s) URL prefix",
             c->scope_arg[i]);
  }
  for (size_t i = 0; i < c->ndomain; i++) {
    c->domain[i] = url_host_normalize(c->domain_arg[i]);
    if (c->domain[i] == NULL)
      refuse(EXIT_USAGE, "--domain: '%s' is not a host name or IP address",
             c->domain_arg[i]);
  }
  if (c->nscope == 0 && c->ndomain == 0) {
    /* Each seed's site over http and https (README, "Scope"). */
    char **v = realloc(c->scope, 2 * c->nseeds * sizeof(char *));
    if (v == NULL)
      out_of_memory();
    c->scope = v;
    for (size_t i = 0; i < c->nseeds; i++) {
      char **p = &c->scope[2 * i];
      p[0] = url_scope_default(c->seeds[i]);
      p[1] = p[0] ? url_scope_other(p[0]) : NULL;
      c->nscope += 2;
      if (p[0] == NULL || p[1] == NULL)
        refuse(EXIT_SEED, "seed '%s': cannot derive a scope", c->seeds[i]);
    }
    /* And the sites its own redirects go to, found as the crawl runs;
     * not for a shared crawl, whose workers must agree on it from the
     * start, nor for several seeds: the redirect of one would change
     * how the links of another were judged, by which came first
     * (DESIGN.md, "Scope"). */
    if (c->cluster_url == NULL && c->nseeds == 1) {
      c->o.widen = (const char *const *)c->scope;
      c->o.nwiden = c->nscope;
    }
  }
  c->in_scope = scope_new((const char *const *)c->scope, c->nscope,
                          (const char *const *)c->domain, c->ndomain);
  if (c->in_scope == NULL)
    out_of_memory(); /* not EINVAL: every value is normalised */
  c->o.scope = c->in_scope;
  /* Named: the first of each kind the seed is outside of. */
  size_t np = c->nscope, nd = c->ndomain;
  for (size_t i = 0; i < c->nseeds; i++)
    if (!scope_contains(c->in_scope, c->seeds[i]))
      refuse(EXIT_SEED, "%s '%s' is outside the scope (%s%s%s%s%s%s%s)",
             i == 0 ? "seedURL" : "seed", c->seeds[i], np ? "--scope " : "",
             np ? c->scope[0] : "", np > 1 ? ", ..." : "", np && nd ? "; " : "",
             nd ? "--domain " : "", nd ? c->domain[0] : "",
             nd > 1 ? ", ..." : "");
}

/* check_arguments: normalise and check, in this order, seedURL and the
 * scope (C->seed, check_scope), maxDepth, options that exclude each
 * other and the --warc file's name, into C->o; or refuse. Before the
 * marker is written, so that a refused command line leaves no trace. */
static void check_arguments(struct cmd *c)
{
  webcrawl_opts_t *o = &c->o;
  c->seed = url_normalize(c->seed_arg);
  if (c->seed == NULL || !url_is_http(c->seed))
    refuse(EXIT_SEED, "seedURL '%s' is not an absolute http(s) URL",
           c->seed_arg);
  check_seeds(c);
  check_scope(c);
  o->seed = c->seed;
  if (c->nseeds > 1) {
    o->seeds = (const char *const *)c->seeds;
    o->nseeds = c->nseeds;
  }
  if (c->naccept + c->nreject > 0) {
    char err[512];
    c->filter = urlfilter_new(c->accept, c->naccept, c->reject, c->nreject, err,
                              sizeof(err));
    if (c->filter == NULL)
      refuse(EXIT_USAGE, "%s", err);
    o->filter = c->filter;
  }

  long v;
  if (!parse_long(c->depth_arg, 0, MAX_DEPTH, &v))
    refuse(EXIT_DEPTH, "maxDepth '%s' is not an integer from 0 to %d",
           c->depth_arg, MAX_DEPTH);
  o->max_depth = (int)v;

  if (c->replay_dir != NULL && c->resume)
    refuse(EXIT_USAGE, "--replay and --resume cannot be used together");
  if (c->warc_path != NULL && c->replay_dir != NULL)
    refuse(EXIT_USAGE, "--warc: a replay fetches nothing to record");
  if (c->warc_path != NULL && !c->resume && access(c->warc_path, F_OK) == 0)
    refuse(EXIT_USAGE, "--warc: '%s' exists; choose a new file", c->warc_path);
  if (c->logfile_path != NULL) {
    o->logfile = fopen(c->logfile_path, "a");
    if (o->logfile == NULL)
      refuse(EXIT_USAGE, "--log-file: cannot write '%s': %s", c->logfile_path,
             strerror(errno));
    setvbuf(o->logfile, NULL, _IOLBF, 0); /* a line at a time, for tail -f */
  }
  if (c->cluster_url == NULL)
    return;
  /* A shared crawl resumes by itself (a worker started again) and has
   * no per-host page counts yet. */
  if (c->resume || c->replay_dir != NULL)
    refuse(EXIT_USAGE,
           "--cluster: %s is not for a shared crawl (start a "
           "worker again to go on)",
           c->resume ? "--resume" : "--replay");
  if (o->max_pages_per_host > 0)
    refuse(EXIT_USAGE, "--cluster: --max-pages-per-host is not supported "
                       "yet with --cluster");
}

/* open_cluster: join the shared crawl (C->cluster, C->o's cluster and
 * pagedir): the worker that creates it writes the marker of PARAMS in
 * pageDirectory, which must then hold no crawl; one that joins checks
 * the marker if it is there already. No lock: every worker writes the
 * directory. Refuse on a mismatch (naming the option) or if Redis
 * cannot be reached; a crawl that is complete exits 0 at once. */
static void open_cluster(struct cmd *c, const pagedir_params_t *params)
{
  const char *dir = c->dir;
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    refuse(EXIT_PAGEDIR, "pageDirectory '%s' is not a directory", dir);
  if (access(dir, W_OK | X_OK) != 0)
    refuse(EXIT_PAGEDIR, "pageDirectory '%s' is not writable: %s", dir,
           strerror(errno));
  char err[512];
  bool created;
  int rc = wcluster_join(c->cluster_url, c->crawl_name, c->lease, params, &c->o,
                         &c->cluster, &created, err, sizeof(err));
  if (rc == CRAWL_EMISMATCH)
    refuse(exit_code(rc), "--cluster: %s", err);
  if (rc == CRAWL_EDONE) {
    /* The worker that saw the end may have died before it recorded it:
     * the directory of this crawl (its marker) gets its record. */
    char *had = NULL, *want = NULL;
    if (pagedir_marker_compare(dir, params, &had, &want) == 0 &&
        pagedir_completed(dir, NULL, NULL) == 0 &&
        pagedir_complete(dir, pagedir_count(dir)) != 0)
      fprintf(stderr, "%s: cannot write '%s/%s': %s\n", prog, dir,
              PAGEDIR_COMPLETE, strerror(errno));
    free(had);
    free(want);
    fprintf(stderr, "%s: crawl '%s' is complete already; nothing to do\n", prog,
            c->crawl_name);
    exit(0);
  }
  if (rc != CRAWL_OK) {
    fprintf(stderr, "%s: --cluster: %s\n", prog, err);
    exit(exit_code(rc));
  }
  (void)created; /* whoever binds the directory first makes it */
  rc = wcluster_pagedir(c->cluster, c->crawl_name, dir, params, c->stamp,
                        sizeof(c->stamp), err, sizeof(err));
  if (rc == CRAWL_EMISMATCH)
    refuse(exit_code(rc), "pageDirectory: %s", err);
  if (rc != CRAWL_OK) {
    fprintf(stderr, "%s: --cluster: %s\n", prog, err);
    exit(exit_code(rc));
  }
  /* Every worker holds the directory's lock shared: a crawler of its own
   * is refused it, and told by which process it is in use. A file
   * system without locks (ENOLCK) leaves the workers unlocked. */
  c->lock = pagedir_lock_shared(dir);
  if (c->lock < 0 && errno == EAGAIN)
    refuse(EXIT_PAGEDIR,
           "pageDirectory '%s' is being written by a crawler outside crawl "
           "%s",
           dir, c->crawl_name);
  if (c->lock < 0 && errno != ENOLCK)
    fprintf(stderr,
            "%s: warning: cannot lock '%s/%s' (%s): a crawler of its own "
            "given this directory would not be kept out\n",
            prog, dir, PAGEDIR_LOCK, strerror(errno));
  c->o.pagedir = dir;
  c->coord = wcluster_coord(c->cluster);
  c->o.coord = &c->coord;
  c->o.pagedir_stamp = c->stamp;
}

/* shell_quote: S appended to B quoted for a POSIX shell. */
static void shell_quote(strbuf_t *b, const char *s)
{
  strbuf_addc(b, '\'');
  for (; *s != '\0'; s++) {
    if (*s == '\'')
      strbuf_addf(b, "'\\''");
    else
      strbuf_addc(b, *s);
  }
  strbuf_addc(b, '\'');
}

/* resume_command: the command that finishes the crawl C's command line
 * started: C's arguments with --resume added (once), each quoted.
 * Returns owned (free()), or NULL if out of memory. */
static char *resume_command(const struct cmd *c)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s%s", c->argv[0], c->resume ? "" : " --resume");
  bool hidden = false;
  for (int i = 1; i < c->argc; i++) {
    const char *a = c->argv[i];
    /* A --header value may be a credential: its name only. Known by the
     * pointer getopt_long gave (the word after the option, or the rest
     * of "--head=..."), however the option was spelt or abbreviated. */
    const char *value = NULL;
    uintptr_t lo = (uintptr_t)a, hi = lo + strlen(a);
    for (size_t k = 0; k < c->nsecret && value == NULL; k++)
      if ((uintptr_t)c->secret[k] >= lo && (uintptr_t)c->secret[k] <= hi)
        value = c->secret[k];
    if (value != NULL) {
      strbuf_addc(&b, ' ');
      if (value > a)
        strbuf_add(&b, a, (size_t)(value - a)); /* "--head=" */
      strbuf_addf(&b, "'%.*s: ...'", (int)strcspn(value, ":'"), value);
      hidden = true;
      continue;
    }
    strbuf_addc(&b, ' ');
    shell_quote(&b, a);
  }
  if (hidden)
    strbuf_addf(&b, "\n  (with each --header value in place of '...')");
  return strbuf_detach(&b);
}

/* when_text: T as ISO 8601 UTC, in BUF (size N). */
static const char *when_text(time_t t, char *buf, size_t n)
{
  struct tm tm;
  if (gmtime_r(&t, &tm) == NULL ||
      strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(buf, n, "an unknown time");
  return buf;
}

/* refuse_taken: DIR already holds a crawl (or pages): refuse, saying
 * which: being written (by which process), complete (how many pages,
 * when), or interrupted (with the command that finishes it, if it is
 * this one's with --resume: PARAMS match its marker). */
static void refuse_taken(const struct cmd *c, const pagedir_params_t *params)
{
  const char *dir = c->dir;
  long pid;
  int pages;
  time_t when;
  char t[64];
  if (pagedir_holder(dir, &pid) == 1)
    refuse(EXIT_PAGEDIR,
           "pageDirectory '%s' holds a crawl being written now by process "
           "%ld; use another directory",
           dir, pid);
  if (pagedir_completed(dir, &pages, &when) == 1)
    refuse(EXIT_PAGEDIR,
           "pageDirectory '%s' already holds a complete crawl (%d page%s, "
           "finished %s); use an empty directory",
           dir, pages, pages == 1 ? "" : "s", when_text(when, t, sizeof(t)));
  int count = pagedir_count(dir);
  char *had = NULL, *want = NULL;
  int same = count >= 0 ? pagedir_marker_compare(dir, params, &had, &want) : -1;
  char *cmd = same == 0 ? resume_command(c) : NULL;
  if (cmd != NULL)
    refuse(EXIT_PAGEDIR,
           "pageDirectory '%s' holds an interrupted crawl (%d page%s "
           "saved); finish it with: %s (or use an empty directory)",
           dir, count, count == 1 ? "" : "s", cmd);
  if (same == 1)
    refuse(EXIT_PAGEDIR,
           "pageDirectory '%s' holds an interrupted crawl (%d page%s "
           "saved) made with '%s' where this command has '%s': finish it "
           "with its own arguments and --resume, or use an empty directory",
           dir, count, count == 1 ? "" : "s", had, want);
  refuse(EXIT_PAGEDIR,
         "pageDirectory '%s' already holds %s; use an empty directory", dir,
         count >= 0 ? "a crawl" : "pages but no crawl marker");
}

/* open_pagedir: make pageDirectory ready to write (C->lock, C->store,
 * C->o's pagedir, resume and replay): on --resume check its marker, lock
 * it and clear what the interrupted crawl left; else open --replay's
 * store, write the marker and lock. Refuse on any failure. */
static void open_pagedir(struct cmd *c)
{
  webcrawl_opts_t *o = &c->o;
  const char *dir = c->dir;
  pagedir_params_t params = {
    .seed = o->seed,
    .max_depth = o->max_depth,
    .scope = (const char *const *)c->scope,
    .nscope = c->nscope,
    .domain = (const char *const *)c->domain,
    .ndomain = c->ndomain,
    .format = o->format == FORMAT_AUTO ? "auto"
            : o->format == FORMAT_HTML ? "html"
                                       : "link",
    .max_pages = o->max_pages,
    .max_pages_per_host = o->max_pages_per_host,
    .max_page_size = o->max_page_size,
    .compress = o->compress,
    .ignore_robots = o->ignore_robots,
    .rel_nofollow = o->respect_rel_nofollow,
    .sitemaps = o->sitemaps,
    .user_agent = strcmp(o->user_agent, DEFAULT_UA) != 0 ? o->user_agent : NULL,
    .seeds = (const char *const *)c->seeds + 1,
    .nseeds = c->nseeds - 1,
    .accept = c->accept,
    .naccept = c->naccept,
    .reject = c->reject,
    .nreject = c->nreject,
  };
  char err[512];
  if (c->cluster_url != NULL) {
    open_cluster(c, &params);
    return;
  }
  if (c->resume) {
    check_resumable(dir, &params);
    /* Lock first: the cleanup below must never touch the temporary
     * pages of a crawl still running in DIR. */
    c->lock = lock_or_refuse(dir);
    if (pagedir_remove_tmp(dir) != 0)
      refuse(EXIT_PAGEDIR,
             "pageDirectory: cannot remove the temporary "
             "pages in '%s': %s",
             dir, strerror(errno));
    int pages;
    time_t when;
    if (pagedir_completed(dir, &pages, &when) == 1) {
      char t[64];
      fprintf(stderr,
              "%s: '%s' holds a complete crawl (%d page%s, finished %s): "
              "nothing to resume\n",
              prog, dir, pages, pages == 1 ? "" : "s",
              when_text(when, t, sizeof(t)));
      pagedir_unlock(dir, c->lock);
      exit(0);
    }
    if (pagedir_journal_repair(dir, pagedir_count(dir)) != 0)
      refuse(EXIT_PAGEDIR, "pageDirectory: cannot repair '%s/%s': %s", dir,
             PAGEDIR_JOURNAL, strerror(errno));
    if ((c->store = store_open(dir, err, sizeof(err))) == NULL)
      refuse(EXIT_PAGEDIR, "pageDirectory: cannot resume: %s", err);
    o->resume = c->store;
  } else {
    if (c->replay_dir != NULL) {
      if ((c->store = store_open(c->replay_dir, err, sizeof(err))) == NULL)
        refuse(EXIT_USAGE, "--replay: %s", err);
      o->replay = c->store;
      o->rate = 0;
    }
    if (pagedir_init(dir, &params, err, sizeof(err)) != 0) {
      char *first = pagedir_tmp_join(dir, "1");
      char *marker = pagedir_tmp_join(dir, PAGEDIR_MARKER);
      bool taken = first != NULL && marker != NULL &&
                   (access(first, F_OK) == 0 || access(marker, F_OK) == 0);
      free(first);
      free(marker);
      if (taken)
        refuse_taken(c, &params);
      refuse(EXIT_PAGEDIR, "pageDirectory: %s", err);
    }
    c->lock = lock_or_refuse(dir);
  }
  o->pagedir = dir;
}

/* loopback: whether HOST (LEN bytes, normal form) is this machine: an
 * address of 127.0.0.0/8 (or IPv6's [::ffff:127.x.y.z]), [::1], or
 * localhost and its subdomains (RFC 6761), a trailing dot or not. */
static bool loopback(const char *host, size_t len)
{
  if (len > 0 && host[len - 1] == '.')
    len--;
  const char *v4 = "[::ffff:127.";
  size_t n4 = strlen(v4);
  if (len > n4 && strncmp(host, v4, n4) == 0 && host[len - 1] == ']')
    return true;
  const char *lh = "localhost";
  size_t nl = strlen(lh);
  return (len > 4 && strncmp(host, "127.", 4) == 0 &&
          strspn(host, "0123456789.") >= len) ||
         (len == 5 && strncmp(host, "[::1]", 5) == 0) ||
         (len == nl && strncmp(host, lh, nl) == 0) ||
         (len > nl && strncmp(host + len - nl - 1, ".localhost", nl + 1) == 0);
}

/* outward: whether the crawl C may reach a host that is not this
 * machine's: its seed's, a --scope prefix's or a --domain. */
static bool outward(const struct cmd *c)
{
  size_t len;
  const char *h = url_host_normal(c->seed, &len);
  if (h == NULL || !loopback(h, len))
    return true;
  for (size_t i = 0; i < c->nscope; i++)
    if ((h = url_host_normal(c->scope[i], &len)) == NULL || !loopback(h, len))
      return true;
  for (size_t i = 0; i < c->ndomain; i++)
    if (!loopback(c->domain[i], strlen(c->domain[i])))
      return true;
  return false;
}

/* prepare_run: the last choices before the crawl (C->o's progress and
 * warc): warn about --ignore-robots, --no-check-certificate and the
 * default User-Agent where it reaches beyond this machine, show a
 * status line only on a terminal, open the --warc file; refuse if it
 * cannot be written. */
static void prepare_run(struct cmd *c)
{
  webcrawl_opts_t *o = &c->o;
  if (o->ignore_robots)
    fprintf(stderr,
            "%s: WARNING: --ignore-robots: robots.txt and robots "
            "directives are ignored; crawl only sites you own\n",
            prog);
  if (o->insecure)
    fprintf(stderr,
            "%s: WARNING: --no-check-certificate: TLS "
            "certificates are not checked, so anyone on the way can read "
            "and change the pages; use it only for test servers\n",
            prog);
  /* A site's owner must be able to reach whoever crawls it. */
  if (strcmp(o->user_agent, DEFAULT_UA) == 0 && c->replay_dir == NULL &&
      outward(c))
    fprintf(stderr,
            "%s: WARNING: the User-Agent names no one to contact (%s); "
            "tell the sites you crawl who you are: --user-agent "
            "'mybot/1.0 (+https://example.edu/bot.html; you@example.edu)'\n",
            prog, DEFAULT_UA);
  o->progress = !o->log && !c->quiet && isatty(STDERR_FILENO);
  if (c->warc_path == NULL)
    return;
  c->warc_new = access(c->warc_path, F_OK) != 0;
  o->warc = warc_open(c->warc_path, "tse-crawler/" CRAWL_VERSION,
                      o->user_agent);
  if (o->warc == NULL)
    refuse(EXIT_USAGE, "--warc: cannot write '%s': %s", c->warc_path,
           strerror(errno));
}

/* start_signal_thread: hand SIGINT and SIGTERM to a thread of their own
 * (signal_main). Returns 0, or EXIT_FATAL after saying why. */
static int start_signal_thread(void)
{
  /* Signals go to one thread, blocked everywhere else (threads inherit
   * the mask), so workers never see EINTR from them. (main took their
   * default actions back first.) */
  static sigset_t set; /* static: the thread reads it for good */
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_t sig_thread;
  if (pthread_create(&sig_thread, NULL, signal_main, &set) != 0) {
    fprintf(stderr, "%s: cannot start a thread\n", prog);
    return EXIT_FATAL;
  }
  pthread_detach(sig_thread);
  return 0;
}

/* discard: a crawl that ran to its end without saving its seed or any
 * other page leaves nothing behind (C->discarded): no marker, no journal,
 * no WARC file, so that the same command, its mistake fixed, runs again.
 * Not a shared crawl's (the directory is every worker's), nor one
 * stopped early (it may still be resumed). With the lock held. */
static void discard(struct cmd *c, int rc, const webcrawl_stats_t *st)
{
  if (rc != CRAWL_OK || st->seed_saved || c->lock < 0 || c->cluster_url != NULL)
    return;
  if (pagedir_discard(c->dir) != 0) {
    if (errno != EEXIST) /* EEXIST: a page was saved after all */
      fprintf(stderr, "%s: cannot remove the crawl's files from '%s': %s\n",
              prog, c->dir, strerror(errno));
    return;
  }
  /* A file this run created only: --resume appends to the one the
   * interrupted crawl wrote, which holds what that crawl asked. */
  if (c->warc_new && unlink(c->warc_path) != 0 && errno != ENOENT)
    fprintf(stderr, "%s: cannot remove '%s': %s\n", prog, c->warc_path,
            strerror(errno));
  c->discarded = true;
}

/* run_crawl: crawl per C into *ST, then make the renames durable and
 * close the store, the WARC file and the lock (C->store, C->o.warc and
 * C->lock are spent), discarding a crawl that saved nothing (discard).
 * Returns webcrawl_run's status, or CRAWL_EIO if the crawl went well
 * but the WARC file could not be finished. */
static int run_crawl(struct cmd *c, webcrawl_stats_t *st)
{
  int rc = webcrawl_run(&c->o, st);
  /* Make the renames durable; the pages themselves are flushed by the
   * kernel (or by --fsync, one by one). */
  pagedir_sync(c->dir);
  store_close(c->store);
  if (c->o.warc != NULL && warc_close(c->o.warc) != 0 && rc == CRAWL_OK) {
    fprintf(stderr, "%s: cannot finish '%s': %s\n", prog, c->warc_path,
            strerror(errno));
    rc = CRAWL_EIO;
  }
  discard(c, rc, st);
  /* Ran to its end: recorded, with the lock still held, so that a
   * reader sees the directory being written or complete. Every worker
   * of a shared crawl that saw the end records it. */
  if (rc == CRAWL_OK && !c->discarded &&
      pagedir_complete(c->dir, pagedir_count(c->dir)) != 0) {
    fprintf(stderr, "%s: cannot write '%s/%s': %s\n", prog, c->dir,
            PAGEDIR_COMPLETE, strerror(errno));
    rc = CRAWL_EIO;
  }
  /* A worker leaves the file to the others (pagedir_unlock_shared),
   * unless the crawl is complete: then none is writing, nor will (a
   * worker joining a complete crawl takes no lock), and the directory
   * is left as one process's crawl leaves it. */
  if (c->lock >= 0 && c->cluster_url != NULL && rc != CRAWL_OK)
    pagedir_unlock_shared(c->lock);
  else if (c->lock >= 0)
    pagedir_unlock(c->dir, c->lock);
  cluster_delete(c->cluster);
  c->cluster = NULL;
  if (c->o.log)
    fflush(stdout);
  return rc;
}

/* free_strings: V's N strings, and V. */
static void free_strings(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

/* free_command_line: what parse_command_line made (the argv arrays and
 * the header list). */
static void free_command_line(struct cmd *c)
{
  free(c->scope_arg);
  free(c->domain_arg);
  free(c->accept);
  free(c->reject);
  free(c->extra);
  free(c->extra_file);
  free(c->secret);
  curl_slist_free_all(c->headers);
}

/* release: free what parse_command_line and check_arguments allocated;
 * clean up libcurl. */
static void release(struct cmd *c)
{
  if (c->o.logfile != NULL)
    fclose(c->o.logfile);
  scope_delete(c->in_scope);
  free_strings(c->scope, c->nscope);
  free_strings(c->domain, c->ndomain);
  urlfilter_delete(c->filter);
  free_strings(c->seeds, c->nseeds);
  free_command_line(c);
  free(c->seed);
  curl_global_cleanup();
}

/* exit_status: the exit code for webcrawl_run's status RC and ST; first,
 * on stderr, why the seed was not saved, or after an interrupt the
 * command (resume_command) that finishes the crawl. Before release (C's
 * seed). */
static int exit_status(int rc, const struct cmd *c, const webcrawl_stats_t *st)
{
  switch (rc) {
  case CRAWL_OK:
    if (st->seed_saved)
      return 0;
    /* Whatever else was saved (the links of a noindex seed), the crawl
     * did not do what was asked of it, and a script must be told. */
    /* The reason last, and alone under --quiet: what a script shows. */
    if (c->discarded && !c->quiet)
      fprintf(stderr,
              "%s: nothing was saved, so '%s' is left as it was given (no "
              "marker, no journal%s): %s\n",
              prog, c->dir, c->warc_new ? ", no WARC file" : "",
              c->resume ? "there is no crawl to resume now; run the command "
                          "without --resume"
                        : "the same command can run again");
    if (c->nseeds > 1)
      fprintf(stderr, "%s: none of the %zu seeds was saved; the first, ", prog,
              c->nseeds);
    else
      fprintf(stderr, "%s: ", prog);
    fprintf(stderr, "seed '%s' not saved: %s\n",
            st->seed_failed[0] ? st->seed_failed : c->seed,
            st->seed_why[0] ? st->seed_why : "no reason recorded");
    return EXIT_NOSEED;
  case CRAWL_ESTOPPED:
    fprintf(stderr,
            "%s: interrupted: the %ld pages saved are complete; "
            "to finish the crawl run:\n ",
            prog, st->saved);
    {
      char *cmd = resume_command(c);
      fprintf(stderr, " %s\n", cmd ? cmd : "(out of memory)");
      free(cmd);
    }
    return exit_code(rc);
  case CRAWL_EIO:
  case CRAWL_ECLUSTER: /* wcluster_finish said why */
    return exit_code(rc);
  default:
    fprintf(stderr, "%s: %s\n", prog, crawl_strerror(rc));
    return exit_code(rc);
  }
}

/* show_status: --status: print the shared crawl's state. Returns the
 * exit code: 0 complete, EXIT_RUNNING, or EXIT_CLUSTER (said why). */
static int show_status(const struct cmd *c)
{
  char err[512];
  int rc = wcluster_status(c->cluster_url, c->crawl_name, stdout, err,
                           sizeof(err));
  if (rc < 0) {
    fprintf(stderr, "%s: --status: %s\n", prog, err);
    return EXIT_CLUSTER;
  }
  return rc == 1 ? 0 : EXIT_RUNNING;
}

int main(int argc, char *argv[])
{
  struct cmd c;
  /* A shell starts background jobs with SIGINT ignored, and an ignored
   * signal is discarded even while blocked: take the defaults back, so
   * that the signal thread sees it, and so that until then (joining a
   * shared crawl may wait two minutes for Redis) it stops the process,
   * in the background too. */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  parse_command_line(argc, argv, &c);
  if (c.status) {
    int code = show_status(&c);
    free_command_line(&c);
    return code;
  }
  if (init_libraries() != 0)
    return EXIT_FATAL;
  check_arguments(&c);
  open_pagedir(&c);
  prepare_run(&c);
  if (start_signal_thread() != 0)
    return EXIT_FATAL;
  webcrawl_stats_t st;
  int rc = run_crawl(&c, &st);
  if (!c.quiet)
    summary_print(prog, &c.o, c.dir, c.warc_path, &st, c.stats);
  int code = exit_status(rc, &c, &st);
  release(&c);
  return code;
}
