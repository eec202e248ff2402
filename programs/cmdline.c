/* cmdline.c: the crawler program's command line. See cmdline.h.
 *
 * Options are read in two passes: cmdline_parse takes each as getopt_long
 * hands it over and checks its value alone; cmdline_check then judges the
 * arguments together (seeds, scope, maxDepth, options that exclude each
 * other). Either refuses at the first fault, so that the message names
 * it. */
#include "cmdline.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <libxml/xmlversion.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "crawler.h"
#include "fptable.h"
#include "scope.h"
#include "strbuf.h"
#include "url.h"
#include "urlfilter.h"
#include "wcluster.h"

/* --max-memory: 512 MiB. A crawl of a million pages holds about half of
 * it (queued URLs, link lists, pages fetched ahead) and spills nothing; a
 * hostile site cannot make it hold more; any laptop has it to spare
 * (DESIGN.md, "The memory budget"). */
#define DEFAULT_MAX_MEMORY ((size_t)512 * 1024 * 1024)

static const char *prog = CRAWLER_PROG;

/* out_of_memory: say so and exit with EXIT_FATAL. */
static void out_of_memory(void) __attribute__((noreturn));

static void out_of_memory(void)
{
  fprintf(stderr, "%s: out of memory\n", prog);
  exit(EXIT_FATAL);
}

void cmdline_refuse(int code, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  cmdline_usage_line(stderr);
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
  O_TRANSFERS,
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
  O_SINCE,
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
  { "transfers", required_argument, NULL, O_TRANSFERS },
  { "ignore-robots", no_argument, NULL, O_IGNROBOTS },
  { "respect-rel-nofollow", no_argument, NULL, O_RELNOFOLLOW },
  { "compress", no_argument, NULL, O_COMPRESS },
  { "fsync", no_argument, NULL, O_FSYNC },
  { "replay", required_argument, NULL, O_REPLAY },
  { "since", required_argument, NULL, O_SINCE },
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
    cmdline_refuse(
      EXIT_USAGE, "--header: give 'Name: value', Name a header name, the value "
                  "one non-empty line");
  for (size_t i = 0; i < sizeof(own_headers) / sizeof(own_headers[0]); i++)
    if (strlen(own_headers[i]) == n &&
        strncasecmp(line, own_headers[i], n) == 0)
      cmdline_refuse(EXIT_USAGE, "--header: the crawler sets %.*s itself%s",
                     (int)n, line,
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
    cmdline_refuse(EXIT_USAGE, "%s: cannot read '%s': %s", name, path,
                   strerror(errno));
  if (dir ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode))
    cmdline_refuse(EXIT_USAGE, "%s: '%s' is not a %s", name, path,
                   dir ? "directory" : "file");
  if (access(path, dir ? R_OK | X_OK : R_OK) != 0)
    cmdline_refuse(EXIT_USAGE, "%s: cannot read '%s': %s", name, path,
                   strerror(errno));
}

/* parse_number: apply OPT if it is an option whose value is a number
 * (a count, a rate, a size, a time; its value in optarg) to C, or
 * refuse a bad value. Returns whether OPT is one of them. */
static bool parse_number(struct cmd *c, int opt)
{
  webcrawl_opts_t *o = &c->o;
  long v;
  double dv;
  switch (opt) {
  case O_DW:
  case O_PW:
    if (!parse_long(optarg, 1, 4096, &v))
      cmdline_refuse(EXIT_USAGE, "%s: '%s' is not a worker count (1 to 4096)",
                     opt == O_DW ? "--download-workers" : "--parse-workers",
                     optarg);
    *(opt == O_DW ? &o->download_workers : &o->parse_workers) = (int)v;
    if (opt == O_DW)
      o->download_max = 0; /* a count given is the count */
    break;
  case O_QS:
    if (!parse_long(optarg, 0, LONG_MAX, &v))
      cmdline_refuse(EXIT_USAGE, "--queue-size: '%s' is not a count", optarg);
    o->queue_size = (size_t)v;
    break;
  case O_RATE:
    if (!parse_double(optarg, 0, 1e6, &o->rate))
      cmdline_refuse(EXIT_USAGE, "--rate: '%s' is not a rate (0 to 1000000)",
                     optarg);
    break;
  case O_BURST:
    if (!parse_double(optarg, 1, 1e6, &o->burst))
      cmdline_refuse(EXIT_USAGE, "--burst: '%s' is not a burst (1 to 1000000)",
                     optarg);
    break;
  case O_MAXP:
    if (!parse_long(optarg, 0, INT_MAX, &o->max_pages))
      cmdline_refuse(EXIT_USAGE, "--max-pages: '%s' is not a count", optarg);
    break;
  case O_MAXPH:
    if (!parse_long(optarg, 0, INT_MAX, &o->max_pages_per_host))
      cmdline_refuse(EXIT_USAGE, "--max-pages-per-host: '%s' is not a count",
                     optarg);
    break;
  case O_TIMEOUT:
    if (!parse_long(optarg, 1, 86400, &o->timeout))
      cmdline_refuse(EXIT_USAGE, "--timeout: '%s' is not 1 to 86400 seconds",
                     optarg);
    break;
  case O_RETRIES:
    if (!parse_long(optarg, 0, 100, &v))
      cmdline_refuse(EXIT_USAGE, "--retries: '%s' is not 0 to 100", optarg);
    o->retries = (int)v;
    break;
  case O_MAXSIZE:
    if (!parse_double(optarg, 1, 1e12, &dv) || dv != (double)(long)dv)
      cmdline_refuse(EXIT_USAGE, "--max-page-size: '%s' is not a byte count",
                     optarg);
    o->max_page_size = (size_t)dv;
    break;
  case O_MAXMEM:
    if (!parse_double(optarg, 0, 1e15, &dv) || dv != (double)(long)dv)
      cmdline_refuse(EXIT_USAGE, "--max-memory: '%s' is not a byte count",
                     optarg);
    o->max_memory = (size_t)dv;
    break;
  case O_LEASE:
    if (!parse_double(optarg, 1, 3600, &c->lease))
      cmdline_refuse(EXIT_USAGE,
                     "--lease-timeout: '%s' is not 1 to 3600 seconds", optarg);
    break;
  default:
    return false;
  }
  return true;
}

/* parse_repeatable: apply OPT if it is an option that may be given any
 * number of times (its value in optarg, kept in the order given) to C.
 * Returns whether OPT is one of them. */
static bool parse_repeatable(struct cmd *c, int opt)
{
  switch (opt) {
  case O_SCOPE:
    c->scope_arg[c->nscope++] = optarg; /* room: cmdline_parse */
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
  case O_HEADER:
    c->secret[c->nsecret++] = optarg;
    add_header(c, optarg);
    break;
  case O_SEED:
  case O_SEEDS:
    c->extra_file[c->nextra] = opt == O_SEEDS;
    c->extra[c->nextra++] = optarg;
    break;
  default:
    return false;
  }
  return true;
}

/* set_transfers: --transfers (or, WHAT, its default from the
 * environment) is V, or refused. */
static void set_transfers(webcrawl_opts_t *o, const char *v, const char *what)
{
  if (strcmp(v, "threads") != 0 && strcmp(v, "events") != 0)
    cmdline_refuse(EXIT_USAGE, "%s: '%s' is not threads or events", what, v);
  o->events = strcmp(v, "events") == 0;
}

/* parse_fetching: apply OPT if it is an option of how pages are fetched
 * and read (its value, if any, in optarg) to C, or refuse a bad value.
 * Returns whether OPT is one of them. */
static bool parse_fetching(struct cmd *c, int opt)
{
  webcrawl_opts_t *o = &c->o;
  switch (opt) {
  case O_UA:
    if (optarg[0] == '\0' || strpbrk(optarg, "\r\n") != NULL)
      cmdline_refuse(EXIT_USAGE, "--user-agent: must be one non-empty line");
    o->user_agent = optarg;
    break;
  case O_SITEMAPS:
    o->sitemaps = true;
    break;
  case O_FORMAT:
    if (strcmp(optarg, "auto") == 0)
      o->format = FORMAT_AUTO;
    else if (strcmp(optarg, "html") == 0)
      o->format = FORMAT_HTML;
    else if (strcmp(optarg, "link") == 0)
      o->format = FORMAT_LINK;
    else
      cmdline_refuse(EXIT_USAGE, "--format: '%s' is not html, link or auto",
                     optarg);
    break;
  case O_TRANSFERS:
    set_transfers(o, optarg, "--transfers");
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
  default:
    return false;
  }
  return true;
}

/* parse_output: apply OPT if it is an option of where the crawl's pages
 * go and what it says (its value, if any, in optarg) to C. Returns
 * whether OPT is one of them. */
static bool parse_output(struct cmd *c, int opt)
{
  webcrawl_opts_t *o = &c->o;
  switch (opt) {
  case O_COMPRESS:
    o->compress = true;
    break;
  case O_FSYNC:
    o->fsync = true;
    break;
  case O_REPLAY:
    c->replay_dir = optarg;
    break;
  case O_SINCE:
    c->since_dir = optarg;
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
  case 'q':
    c->quiet = true;
    break;
  case O_STATS:
    c->stats = true;
    break;
  default:
    return false;
  }
  return true;
}

/* parse_option: apply option OPT (getopt_long's return; its value in
 * optarg; NAME the last word it read, for the refusals of a missing
 * value or an unknown option) to C, or refuse; --help and --version
 * print and exit 0. */
static void parse_option(struct cmd *c, int opt, const char *name)
{
  if (parse_number(c, opt) || parse_repeatable(c, opt) ||
      parse_fetching(c, opt) || parse_output(c, opt))
    return;
  switch (opt) {
  case 'h':
  case O_HELP:
    cmdline_help();
    exit(0);
  case 'V':
  case O_VERSION:
    printf("crawler %s (libcurl %s, libxml2 %s)\n", CRAWL_VERSION,
           curl_version_info(CURLVERSION_NOW)->version, LIBXML_DOTTED_VERSION);
    exit(0);
  case ':':
    cmdline_refuse(EXIT_USAGE, "%s needs a value", name);
  default:
    /* "-1" where maxDepth goes looks like an option to getopt. */
    if (name[0] == '-' && name[1] >= '0' && name[1] <= '9')
      cmdline_refuse(EXIT_DEPTH, "maxDepth '%s' is not an integer from 0 to %d",
                     name, MAX_DEPTH);
    /* Its name only: what follows '=' may be a credential. */
    cmdline_refuse(EXIT_USAGE, "unknown option '%.*s'", (int)strcspn(name, "="),
                   name);
  }
}

/* check_cluster: --cluster and --crawl-name go together, with a Redis
 * URL that parses; --status needs them. Else refuse. */
static void check_cluster(struct cmd *c)
{
  if ((c->cluster_url == NULL) != (c->crawl_name == NULL))
    cmdline_refuse(EXIT_USAGE, "--cluster and --crawl-name go together");
  if (c->status && c->cluster_url == NULL)
    cmdline_refuse(EXIT_USAGE, "--status needs --cluster and --crawl-name");
  if (c->crawl_name != NULL && !cluster_name_ok(c->crawl_name))
    cmdline_refuse(
      EXIT_USAGE,
      "--crawl-name '%s': use 1 to 64 letters, digits, '-', '_', '.'",
      c->crawl_name);
  char err[320];
  if (c->cluster_url != NULL &&
      !cluster_url_ok(c->cluster_url, err, sizeof(err)))
    cmdline_refuse(EXIT_USAGE, "--cluster: %s", err);
}

void cmdline_parse(int argc, char *argv[], struct cmd *c)
{
  *c = (struct cmd){
    .o = {
      .download_workers = 8, .download_max = DEFAULT_DOWNLOAD_MAX,
      .parse_workers = 2, .queue_size = 0,
      .rate = 1, .burst = 1, .user_agent = DEFAULT_UA, .timeout = 30,
      .retries = 2, .max_page_size = 10 * 1024 * 1024,
      .max_memory = DEFAULT_MAX_MEMORY,
      .format = FORMAT_AUTO, .logfp = stdout, .events = true,
    },
    .coord = coord_local,
    .lease = 10,
    .argc = argc,
    .argv = argv,
  };
  /* --transfers's default (crawler(1), ENVIRONMENT). */
  const char *transfers = getenv("TSE_TRANSFERS");
  if (transfers != NULL && transfers[0] != '\0')
    set_transfers(&c->o, transfers, "TSE_TRANSFERS");
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
    cmdline_refuse(EXIT_USAGE,
                   "expected 3 arguments (seedURL pageDirectory "
                   "maxDepth), got %d",
                   argc - optind);
  c->seed_arg = argv[optind];
  c->dir = argv[optind + 1];
  c->depth_arg = argv[optind + 2];
}
/* add_seed: URL (borrowed), from WHERE, normalised into C->seeds unless
 * it is there already (SEEN: the seeds so far); or refuse. */
static void add_seed(struct cmd *c, fptable_t *seen, const char *url,
                     const char *where)
{
  char *u = url_normalize(url);
  if (u == NULL || !url_is_http(u))
    cmdline_refuse(EXIT_SEED, "%s: '%s' is not an absolute http(s) URL", where,
                   url);
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
    cmdline_refuse(EXIT_SEED, "--seeds: cannot read '%s': %s", file,
                   strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, fp)) >= 0) {
    lineno++;
    char where[PATH_MAX + 32];
    snprintf(where, sizeof(where), "--seeds %s:%ld", file, lineno);
    if (memchr(line, '\0', (size_t)n) != NULL)
      cmdline_refuse(EXIT_SEED, "%s: a NUL byte", where);
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
        cmdline_refuse(EXIT_SEED, "%s: '%s' is more than one URL (one a line)",
                       where, a);
    add_seed(c, seen, a, where);
  }
  bool failed = ferror(fp);
  free(line);
  fclose(fp);
  if (failed)
    cmdline_refuse(EXIT_SEED, "--seeds: cannot read '%s'", file);
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
    cmdline_refuse(EXIT_USAGE,
                   "--queue-size %zu is below the number of seeds (%zu): every "
                   "seed is queued at the start",
                   c->o.queue_size, c->nseeds);
  if (c->nseeds > 1 && c->cluster_url != NULL)
    cmdline_refuse(EXIT_USAGE, "--seed, --seeds: not with --cluster yet");
  if (c->o.sitemaps && c->cluster_url != NULL)
    cmdline_refuse(EXIT_USAGE, "--sitemaps: not with --cluster yet");
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
      cmdline_refuse(EXIT_USAGE, "--scope: '%s' is not an http(s) URL prefix",
                     c->scope_arg[i]);
  }
  for (size_t i = 0; i < c->ndomain; i++) {
    c->domain[i] = url_host_normalize(c->domain_arg[i]);
    if (c->domain[i] == NULL)
      cmdline_refuse(EXIT_USAGE,
                     "--domain: '%s' is not a host name or IP address",
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
        cmdline_refuse(EXIT_SEED, "seed '%s': cannot derive a scope",
                       c->seeds[i]);
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
      cmdline_refuse(EXIT_SEED, "%s '%s' is outside the scope (%s%s%s%s%s%s%s)",
                     i == 0 ? "seedURL" : "seed", c->seeds[i],
                     np ? "--scope " : "", np ? c->scope[0] : "",
                     np > 1 ? ", ..." : "", np && nd ? "; " : "",
                     nd ? "--domain " : "", nd ? c->domain[0] : "",
                     nd > 1 ? ", ..." : "");
}

void cmdline_check(struct cmd *c)
{
  webcrawl_opts_t *o = &c->o;
  c->seed = url_normalize(c->seed_arg);
  if (c->seed == NULL || !url_is_http(c->seed))
    cmdline_refuse(EXIT_SEED, "seedURL '%s' is not an absolute http(s) URL",
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
      cmdline_refuse(EXIT_USAGE, "%s", err);
    o->filter = c->filter;
  }

  long v;
  if (!parse_long(c->depth_arg, 0, MAX_DEPTH, &v))
    cmdline_refuse(EXIT_DEPTH, "maxDepth '%s' is not an integer from 0 to %d",
                   c->depth_arg, MAX_DEPTH);
  o->max_depth = (int)v;

  if (c->replay_dir != NULL && c->resume)
    cmdline_refuse(EXIT_USAGE, "--replay and --resume cannot be used together");
  if (c->replay_dir != NULL && c->since_dir != NULL)
    cmdline_refuse(EXIT_USAGE, "--since and --replay cannot be used together");
  if (c->warc_path != NULL && c->replay_dir != NULL)
    cmdline_refuse(EXIT_USAGE, "--warc: a replay fetches nothing to record");
  if (c->warc_path != NULL && !c->resume && access(c->warc_path, F_OK) == 0)
    cmdline_refuse(EXIT_USAGE, "--warc: '%s' exists; choose a new file",
                   c->warc_path);
  if (c->logfile_path != NULL) {
    o->logfile = fopen(c->logfile_path, "a");
    if (o->logfile == NULL)
      cmdline_refuse(EXIT_USAGE, "--log-file: cannot write '%s': %s",
                     c->logfile_path, strerror(errno));
    setvbuf(o->logfile, NULL, _IOLBF, 0); /* a line at a time, for tail -f */
  }
  if (c->cluster_url == NULL)
    return;
  /* A shared crawl resumes by itself (a worker started again) and has
   * no per-host page counts yet. */
  if (c->resume || c->replay_dir != NULL)
    cmdline_refuse(EXIT_USAGE,
                   "--cluster: %s is not for a shared crawl (start a "
                   "worker again to go on)",
                   c->resume ? "--resume" : "--replay");
  if (o->max_pages_per_host > 0 || c->since_dir != NULL)
    cmdline_refuse(EXIT_USAGE,
                   "--cluster: %s is not supported yet with --cluster",
                   c->since_dir ? "--since" : "--max-pages-per-host");
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

char *cmdline_resume(const struct cmd *c)
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

/* free_strings: V's N strings, and V. */
static void free_strings(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

void cmdline_free(struct cmd *c)
{
  if (c->o.logfile != NULL)
    fclose(c->o.logfile);
  scope_delete(c->in_scope);
  free_strings(c->scope, c->nscope);
  free_strings(c->domain, c->ndomain);
  urlfilter_delete(c->filter);
  free_strings(c->seeds, c->nseeds);
  free(c->scope_arg);
  free(c->domain_arg);
  free(c->accept);
  free(c->reject);
  free(c->extra);
  free(c->extra_file);
  free(c->secret);
  curl_slist_free_all(c->headers);
  free(c->seed);
}
