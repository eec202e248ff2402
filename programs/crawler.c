/* crawler.c: the crawler program. Parses and checks the command line
 * (cmdline.c), sets up the libraries, opens the page directory, runs the
 * crawl (webcrawl.c) and maps its status to an exit code (crawler.h). See
 * usage() in cmdline.c for the interface and exit codes.
 *
 * Threads: every function but signal_main runs on the main thread, which
 * is alone until start_signal_thread and webcrawl_run start others. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <curl/curl.h>
#include <errno.h>
#include <libxml/parser.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "cmdline.h"
#include "crawl.h"
#include "crawler.h"
#include "pagedir.h"
#include "pstore.h"
#include "store.h"
#include "strbuf.h"
#include "summary.h"
#include "url.h"
#include "wcluster.h"
#include "webcrawl.h"

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

static const char *prog = CRAWLER_PROG;

/* check_resumable: DIR holds a crawl whose marker records exactly
 * PARAMS; else refuse, naming the first parameter that differs. */
static void check_resumable(const char *dir, const pagedir_params_t *params)
{
  if (pagedir_count(dir) < 0)
    cmdline_refuse(EXIT_PAGEDIR, "pageDirectory '%s' holds no crawl to resume",
                   dir);
  char *had, *want;
  int rc = pagedir_marker_compare(dir, params, &had, &want);
  if (rc < 0)
    cmdline_refuse(EXIT_PAGEDIR, "pageDirectory: cannot read '%s/%s': %s", dir,
                   PAGEDIR_MARKER, strerror(errno));
  if (rc > 0)
    cmdline_refuse(EXIT_PAGEDIR,
                   "cannot resume: '%s' was crawled with '%s', "
                   "this command asks for '%s'",
                   dir, had, want);
}

/* new_store: C->o.pstore, the store of pageDirectory (pstore.h), held
 * SHARED or as this process's own; exit with EXIT_FATAL if out of
 * memory. */
static pstore_t *new_store(struct cmd *c, bool shared)
{
  c->o.pstore = pstore_new(c->dir, shared, c->o.compress, c->o.fsync);
  if (c->o.pstore == NULL) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(EXIT_FATAL);
  }
  return c->o.pstore;
}

/* lock_or_refuse: the lock on PS's directory (pstore_lock), or refuse. */
static void lock_or_refuse(pstore_t *ps)
{
  if (pstore_lock(ps) != 0)
    cmdline_refuse(EXIT_PAGEDIR, "pageDirectory '%s' %s", pstore_dir(ps),
                   errno == EAGAIN ? "is being written by another crawler"
                                   : "cannot be locked");
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

/* open_cluster: join the shared crawl (C->coord, C->o's coord and
 * pstore, a shared store): the worker that creates it writes the marker
 * of PARAMS in pageDirectory, which must then hold no crawl; one that
 * joins checks the marker if it is there already. No write lock: every
 * worker writes the directory, holding it shared. Refuse on a mismatch
 * (naming the option) or if Redis cannot be reached; a crawl that is
 * complete exits 0 at once. */
static void open_cluster(struct cmd *c, const pagedir_params_t *params)
{
  const char *dir = c->dir;
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    cmdline_refuse(EXIT_PAGEDIR, "pageDirectory '%s' is not a directory", dir);
  if (access(dir, W_OK | X_OK) != 0)
    cmdline_refuse(EXIT_PAGEDIR, "pageDirectory '%s' is not writable: %s", dir,
                   strerror(errno));
  char err[512];
  bool created;
  cluster_t *cl;
  pstore_t *ps = new_store(c, true);
  int rc = wcluster_join(c->cluster_url, c->crawl_name, c->lease, params, &c->o,
                         &cl, &created, err, sizeof(err));
  if (rc == CRAWL_EMISMATCH)
    cmdline_refuse(exit_code(rc), "--cluster: %s", err);
  if (rc == CRAWL_EDONE) {
    /* The worker that saw the end may have died before it recorded it:
     * the directory of this crawl (its marker) gets its record. */
    char *had = NULL, *want = NULL;
    if (pagedir_marker_compare(dir, params, &had, &want) == 0 &&
        pagedir_completed(dir, NULL, NULL) == 0 && pstore_complete(ps) != 0)
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
  rc = wcluster_pagedir(cl, c->crawl_name, ps, params, c->stamp,
                        sizeof(c->stamp), err, sizeof(err));
  if (rc == CRAWL_EMISMATCH)
    cmdline_refuse(exit_code(rc), "pageDirectory: %s", err);
  if (rc != CRAWL_OK) {
    fprintf(stderr, "%s: --cluster: %s\n", prog, err);
    exit(exit_code(rc));
  }
  /* Every worker holds the directory's lock shared: a crawler of its own
   * is refused it, and told by which process it is in use. A file
   * system without locks (ENOLCK) leaves the workers unlocked. */
  int locked = pstore_lock(ps);
  if (locked < 0 && errno == EAGAIN)
    cmdline_refuse(
      EXIT_PAGEDIR,
      "pageDirectory '%s' is being written by a crawler outside crawl "
      "%s",
      dir, c->crawl_name);
  if (locked < 0 && errno != ENOLCK)
    fprintf(stderr,
            "%s: warning: cannot lock '%s/%s' (%s): a crawler of its own "
            "given this directory would not be kept out\n",
            prog, dir, PAGEDIR_LOCK, strerror(errno));
  c->coord = wcluster_coord(cl);
  c->o.coord = &c->coord;
  c->o.pagedir_stamp = c->stamp;
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
    cmdline_refuse(
      EXIT_PAGEDIR,
      "pageDirectory '%s' holds a crawl being written now by process "
      "%ld; use another directory",
      dir, pid);
  if (pagedir_completed(dir, &pages, &when) == 1)
    cmdline_refuse(
      EXIT_PAGEDIR,
      "pageDirectory '%s' already holds a complete crawl (%d page%s, "
      "finished %s); use an empty directory",
      dir, pages, pages == 1 ? "" : "s", when_text(when, t, sizeof(t)));
  int count = pagedir_count(dir);
  char *had = NULL, *want = NULL;
  int same = count >= 0 ? pagedir_marker_compare(dir, params, &had, &want) : -1;
  char *cmd = same == 0 ? cmdline_resume(c) : NULL;
  if (cmd != NULL)
    cmdline_refuse(EXIT_PAGEDIR,
                   "pageDirectory '%s' holds an interrupted crawl (%d page%s "
                   "saved); finish it with: %s (or use an empty directory)",
                   dir, count, count == 1 ? "" : "s", cmd);
  if (same == 1)
    cmdline_refuse(
      EXIT_PAGEDIR,
      "pageDirectory '%s' holds an interrupted crawl (%d page%s "
      "saved) made with '%s' where this command has '%s': finish it "
      "with its own arguments and --resume, or use an empty directory",
      dir, count, count == 1 ? "" : "s", had, want);
  cmdline_refuse(EXIT_PAGEDIR,
                 "pageDirectory '%s' already holds %s; use an empty directory",
                 dir, count >= 0 ? "a crawl" : "pages but no crawl marker");
}

/* in_dir: whether DIR/NAME exists. */
static bool in_dir(const char *dir, const char *name)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s/%s", dir, name);
  bool there = !b.oom && b.p != NULL && access(b.p, F_OK) == 0;
  strbuf_release(&b);
  return there;
}

/* open_since: --since OLD_DIR (C->since_path, since, o.since): refuse
 * unless it is a complete crawl no one writes, other than pageDirectory,
 * that recorded validators (DESIGN.md, "Refresh"). */
static void open_since(struct cmd *c)
{
  const char *old = c->since_dir;
  char err[512];
  if (old == NULL)
    return;
  if ((c->since_path = realpath(old, NULL)) == NULL)
    cmdline_refuse(EXIT_USAGE, "--since: cannot use '%s': %s", old,
                   strerror(errno));
  char *dir = realpath(c->dir, NULL);
  bool same = dir != NULL && strcmp(dir, c->since_path) == 0;
  free(dir);
  if (same)
    cmdline_refuse(EXIT_PAGEDIR,
                   "--since: pageDirectory '%s' is OLD_DIR itself; refresh "
                   "into a new, empty directory",
                   c->dir);
  long pid;
  if (pagedir_holder(old, &pid) == 1)
    cmdline_refuse(EXIT_USAGE,
                   "--since: '%s' is being written now by process %ld; "
                   "refresh from a complete crawl",
                   old, pid);
  if (pagedir_check_ids(old, err, sizeof(err)) < 0)
    cmdline_refuse(EXIT_USAGE, "--since: '%s' is not a complete crawl: %s", old,
                   err);
  if ((c->since = store_open(old, false, err, sizeof(err))) == NULL)
    cmdline_refuse(EXIT_USAGE, "--since: %s", err);
  if (store_validated(c->since) == 0)
    cmdline_refuse(EXIT_USAGE,
                   "--since: '%s': no validators recorded: crawl it afresh",
                   old);
  c->o.since = c->since;
}

/* open_pagedir: make pageDirectory ready to write (C->store, C->o's
 * pstore, resume and replay): on --resume check its marker, lock it and
 * bring it back to its last page (pstore_resume); else open --replay's
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
    .since = c->since_path,
  };
  char err[512];
  if (c->cluster_url != NULL) {
    open_cluster(c, &params);
    return;
  }
  pstore_t *ps = new_store(c, false);
  if (c->resume) {
    check_resumable(dir, &params);
    /* Lock first: the cleanup must never touch the temporary pages of a
     * crawl still running in DIR. */
    lock_or_refuse(ps);
    int pages;
    time_t when;
    int rc = pstore_resume(ps, &pages, &when, err, sizeof(err));
    if (rc < 0)
      cmdline_refuse(EXIT_PAGEDIR, "pageDirectory: %s", err);
    if (rc == 1) {
      char t[64];
      fprintf(stderr,
              "%s: '%s' holds a complete crawl (%d page%s, finished %s): "
              "nothing to resume\n",
              prog, dir, pages, pages == 1 ? "" : "s",
              when_text(when, t, sizeof(t)));
      pstore_close(ps, true);
      c->o.pstore = NULL;
      exit(0);
    }
    if ((c->store = store_open(dir, true, err, sizeof(err))) == NULL)
      cmdline_refuse(EXIT_PAGEDIR, "pageDirectory: cannot resume: %s", err);
    o->resume = c->store;
  } else {
    if (c->replay_dir != NULL) {
      if ((c->store = store_open(c->replay_dir, true, err, sizeof(err))) ==
          NULL)
        cmdline_refuse(EXIT_USAGE, "--replay: %s", err);
      o->replay = c->store;
      o->rate = 0;
    }
    if (pstore_init(ps, &params, err, sizeof(err)) != 0) {
      if (in_dir(dir, "1") || in_dir(dir, PAGEDIR_MARKER))
        refuse_taken(c, &params);
      cmdline_refuse(EXIT_PAGEDIR, "pageDirectory: %s", err);
    }
    lock_or_refuse(ps);
  }
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
    cmdline_refuse(EXIT_USAGE, "--warc: cannot write '%s': %s", c->warc_path,
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
 * stopped early (it may still be resumed). With the lock held (an own
 * store is always locked: open_pagedir). */
static void discard(struct cmd *c, int rc, const webcrawl_stats_t *st)
{
  if (rc != CRAWL_OK || st->seed_saved || c->cluster_url != NULL)
    return;
  if (pstore_discard(c->o.pstore) != 0) {
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
 * close the stores and the WARC file (C->store, C->o.warc and C->o.pstore
 * are spent; the last unlocks), discarding a crawl that saved nothing
 * (discard).
 * Returns webcrawl_run's status, or CRAWL_EIO if the crawl went well
 * but the WARC file could not be finished. */
static int run_crawl(struct cmd *c, webcrawl_stats_t *st)
{
  int rc = webcrawl_run(&c->o, st);
  /* Make the renames durable; the pages themselves are flushed by the
   * kernel (or by --fsync, one by one). */
  pstore_sync(c->o.pstore);
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
  if (rc == CRAWL_OK && !c->discarded && pstore_complete(c->o.pstore) != 0) {
    fprintf(stderr, "%s: cannot write '%s/%s': %s\n", prog, c->dir,
            PAGEDIR_COMPLETE, strerror(errno));
    rc = CRAWL_EIO;
  }
  /* A worker leaves the lock file to the others, unless the crawl is
   * complete: then none is writing, nor will (a worker joining a
   * complete crawl takes no lock), and the directory is left as one
   * process's crawl leaves it. */
  pstore_close(c->o.pstore, rc == CRAWL_OK);
  c->o.pstore = NULL;
  c->coord.ops->close(c->coord.ctx);
  c->coord = coord_local;
  if (c->o.log)
    fflush(stdout);
  return rc;
}

/* release: free what cmdline_parse and cmdline_check allocated; clean up
 * libcurl. */
static void release(struct cmd *c)
{
  store_close(c->since);
  c->since = NULL;
  c->o.since = NULL;
  free(c->since_path);
  c->since_path = NULL;
  cmdline_free(c);
  curl_global_cleanup();
}

/* exit_status: the exit code for webcrawl_run's status RC and ST; first,
 * on stderr, why the seed was not saved, or after an interrupt the
 * command (cmdline_resume) that finishes the crawl. Before release (C's
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
      char *cmd = cmdline_resume(c);
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
  int rc = cluster_status(c->cluster_url, c->crawl_name, stdout, err,
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
  cmdline_parse(argc, argv, &c);
  if (c.status) {
    int code = show_status(&c);
    cmdline_free(&c);
    return code;
  }
  if (init_libraries() != 0)
    return EXIT_FATAL;
  cmdline_check(&c);
  open_since(&c);
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
