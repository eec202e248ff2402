/* crawl.h: the public interface of libcrawler.so, and all it promises.
 *
 * crawl() runs a breadth-first-ish crawl over pages that a caller fetches:
 * a pool of download threads calls fetch_fn, a pool of parse threads scans
 * each page for links in the simple link format and calls edge_fn once per
 * link occurrence. Each distinct link is fetched at most once.
 *
 * Link format: a link is a whitespace-separated token (whitespace being
 * space, tab, newline, carriage return, vertical tab, form feed) that
 * starts with "link:"; the URL is the rest of the token. The token "link:"
 * alone is not a link. Anything else is text. Links are compared as exact
 * byte strings: no normalisation is done.
 *
 * Link with -lcrawler (and -pthread). Thread-safety: crawl() is reentrant;
 * several crawls may run at once in one process, each with its own threads
 * and state; the library has no global state. */
#ifndef CRAWLER_CRAWL_H
#define CRAWLER_CRAWL_H

#ifdef __cplusplus
extern "C" {
#endif

#define CRAWL_EXTERN __attribute__((visibility("default")))

#define CRAWL_VERSION "0.2.0"

/* The project's one status type: 0 is success, errors are negative.
 * crawl() returns the first four; the others are the crawler program's
 * (its web front end and its shared crawl), described here so that one
 * crawl_strerror names them all. Values never change meaning. */
enum {
  CRAWL_OK = 0,
  CRAWL_EINVAL = -1,    /* invalid argument */
  CRAWL_ENOMEM = -2,    /* out of memory */
  CRAWL_ETHREAD = -3,   /* a thread could not be started */
  CRAWL_ESTOPPED = -4,  /* stopped on request (a signal) */
  CRAWL_EIO = -5,       /* an output or spill file failed */
  CRAWL_EREDIS = -6,    /* Redis unreachable in time, or it said no */
  CRAWL_EMISMATCH = -7, /* an option differs from the shared crawl's */
  CRAWL_ELOST = -8,     /* the shared crawl vanished, or is another's */
  CRAWL_EFENCED = -9,   /* a lease lapsed and is someone else's now */
  CRAWL_ENOENT = -10,   /* no such shared crawl */
  CRAWL_EORDER = -11,   /* a shared commit out of order */
  CRAWL_ECLUSTER = -12, /* the shared crawl failed this worker */
  CRAWL_EDONE = -13     /* the shared crawl is complete: nothing to do */
};

/* crawl_strerror: a static English description of STATUS (never NULL).
 * Thread-safety: any thread. */
CRAWL_EXTERN const char *crawl_strerror(int status);

/* crawl: crawl every page reachable from START_URL.
 *
 * Arguments:
 *   start_url         borrowed; copied before crawl() starts any thread.
 *   download_workers  threads that call fetch_fn (>= 1).
 *   parse_workers     threads that scan pages and call edge_fn (>= 1).
 *   queue_size        the links queue (parsers -> downloaders) holds at most
 *                     this many links (>= 1); a parser that finds it full
 *                     waits. A link leaves it when a downloader pops it:
 *                     links being fetched do not count. The queue of
 *                     fetched pages is unbounded.
 *   fetch_fn, edge_fn see below; neither may be NULL.
 *
 * Returns CRAWL_OK (0) once every reachable page was fetched and parsed
 * and every worker thread has been joined. Otherwise a negative status,
 * always after every thread crawl() started has been joined:
 *   CRAWL_EINVAL   an argument is invalid (NULL start_url or callback, a
 *                  count below 1, more than 4096 workers of a kind);
 *                  no thread was started.
 *   CRAWL_ENOMEM   memory ran out, at the start or during the crawl (a
 *                  link could not be queued): the crawl stopped there, so
 *                  some reachable pages may not have been fetched.
 *   CRAWL_ETHREAD  a worker thread could not be started.
 * crawl_strerror() describes each. Waiting is on condition variables: a
 * crawl whose callbacks block uses no CPU.
 *
 * fetch_fn(link): fetch one page.
 *   Called from: a download thread only, never from the thread that called
 *     crawl(); several download threads call it at once (for different
 *     links), so it must be thread-safe. Called exactly once per distinct
 *     link, the start link included.
 *   Locks held: none; fetch_fn may block as long as it likes.
 *   link: NUL-terminated, borrowed: valid only during the call; do not
 *     modify or free it.
 *   Returns: the page as a NUL-terminated string allocated with malloc();
 *     the library adopts it and frees it with free(). Only the text up to
 *     the first NUL is scanned. NULL means a broken link: no edges come from
 *     it, and the crawl goes on.
 *
 * edge_fn(from, to): one link occurrence found on page FROM.
 *   Called from: a parse thread only, never from the thread that called
 *     crawl(); several parse threads call it at once (for different pages),
 *     so it must be thread-safe. Within one page, calls come in the order
 *     the links appear in the page, one per occurrence: duplicates, self
 *     links and links to pages already seen are all reported.
 *   Locks held: none.
 *   from, to: NUL-terminated, borrowed: valid only during the call.
 *   Returns: nothing. */
CRAWL_EXTERN int crawl(char *start_url, int download_workers, int parse_workers,
                       int queue_size, char *(*fetch_fn)(char *link),
                       void (*edge_fn)(char *from, char *to));

#ifdef __cplusplus
}
#endif

#endif /* CRAWLER_CRAWL_H */
