/* cmdline.h: the crawler program's command line (internal): its options
 * and their defaults, the help text, the checks of the arguments, and
 * the refusal of a bad one, which prints the usage line and exits. Only
 * the program may exit (STYLE.md 4): crawler.c is the one caller, and
 * nothing else links cmdline.o (it is in libwebcrawl.a, never in
 * libcrawler.so).
 *
 * Threads: main thread, before any other starts (getopt_long and the
 * refusals' exit are not for threads). */
#ifndef CRAWLER_CMDLINE_H
#define CRAWLER_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "coord.h"
#include "crawl.h"
#include "webcrawl.h"

/* maxDepth's largest value. */
#define MAX_DEPTH 1000

/* The elastic download pool's cap without --download-workers (DESIGN.md,
 * "Concurrency without tuning"). */
#define DEFAULT_DOWNLOAD_MAX 512

/* --user-agent's default. */
#define DEFAULT_UA                                                             \
  "tse-crawler/" CRAWL_VERSION                                                 \
  " (+https://example.invalid/change-me; set --user-agent)"

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
  const char *since_dir;                /* --since (argv), or NULL */
  char *since_path;                     /* its absolute path; owned */
  store_t *since;                       /* its store; owned */
  const char *cluster_url, *crawl_name; /* argv, or NULL */
  char stamp[128];                      /* the directory's, as bound */
  double lease;                         /* --lease-timeout */
  bool quiet, resume, status, stats;
  char *seed;               /* normalised; owned */
  char **scope;             /* normalised, NSCOPE; owned */
  char **domain;            /* normalised, NDOMAIN; owned */
  scope_t *in_scope;        /* of SCOPE and DOMAIN; owned */
  store_t *store;           /* --replay's or --resume's, or NULL */
  coord_t coord;            /* what the crawl shares: coord_local, or
                               --cluster's (then c->o.coord) */
  bool discarded;           /* nothing saved: the crawl's files removed */
  bool warc_new;            /* the --warc file did not exist before this run */
  const char *logfile_path; /* --log-file, or NULL */
  int argc;                 /* main's, for the --resume command we print */
  char **argv;
};

/* cmdline_parse: fill C with the defaults, then with ARGV's options and
 * its three arguments (borrowed: C points into ARGV, which must outlive
 * it); refuse a bad option or argument count. --help and --version
 * print and exit 0. Free with cmdline_free. */
void cmdline_parse(int argc, char *argv[], struct cmd *c);

/* cmdline_check: normalise and check, in this order, seedURL, every
 * seed, the scope, the --accept-regex and --reject-regex filter,
 * maxDepth, options that exclude each other and the --warc file's name,
 * into C->o, and open the --log-file; or refuse. Before the marker is
 * written, so that a refused command line leaves no trace. */
void cmdline_check(struct cmd *c);

/* cmdline_resume: the command that finishes the crawl C's command line
 * started: C's arguments with --resume added (once), each quoted for a
 * POSIX shell, a --header value shown by its name only.
 * Returns owned (free()), or NULL if out of memory. */
char *cmdline_resume(const struct cmd *c);

/* cmdline_free: free what cmdline_parse and cmdline_check allocated or
 * opened (the --log-file); the fields the program's other steps fill
 * are theirs. */
void cmdline_free(struct cmd *c);

/* cmdline_refuse: one line on stderr naming the argument and the reason,
 * then the usage line, then exit with CODE (crawler.h). */
void cmdline_refuse(int code, const char *fmt, ...)
  __attribute__((format(printf, 2, 3), noreturn));

/* cmdline_usage_line: the one-line usage, on FP (help.c). */
void cmdline_usage_line(FILE *fp);

/* cmdline_help: the --help text, on stdout (help.c). */
void cmdline_help(void);

#endif /* CRAWLER_CMDLINE_H */
