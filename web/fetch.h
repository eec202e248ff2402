/* fetch.h: one HTTP GET with libcurl, as the crawler needs it (internal).
 *
 * One fetcher per download thread: it owns a curl easy handle that is
 * reused for every request so connections are kept alive. Redirects are
 * NOT followed here: the crawler requeues the target so that every hop
 * takes a politeness token and is checked against scope and robots.txt.
 *
 * Only pages are downloaded: when the response headers are in, a 200
 * whose Content-Type is not text/html, application/xhtml+xml or text/plain
 * is abandoned before its body, as is every non-200 response (its body is
 * of no use), unless the exchange is captured for a WARC file: then the
 * non-page body is read too, up to FETCH_CAPTURE_MAX bytes. A short
 * unwanted body (64 KiB at most, by its Content-Length when it has one)
 * is read and dropped instead, so that the connection stays open: an
 * abandoned transfer closes it.
 *
 * libcurl removes the chunked transfer coding (it parses the chunks to
 * find the body's end in any case); this module undoes the gzip/deflate
 * content coding itself, streaming, with zlib, because libcurl's decoder
 * takes a compressed stream cut short for a whole body and refuses gzip
 * members after the first (DESIGN.md, Archiving). The size cap applies to
 * the decoded body, so a compression bomb stops at the cap. A WARC capture
 * takes the bytes as they came on the wire from libcurl's debug callback,
 * installed only then. */
#ifndef CRAWLER_FETCH_H
#define CRAWLER_FETCH_H

#include <stdbool.h>
#include <stddef.h>

struct budget;
struct curl_slist;
struct fetcher;

typedef struct fetch_config {
  const char *user_agent;           /* borrowed; must outlive the fetchers */
  const struct curl_slist *headers; /* --header lines, borrowed,
                                       read-only; NULL: none. Sent only
                                       to the hosts of HEADER_SEEDS
                                       (normalised URLs, NHEADER_SEEDS;
                                       borrowed), robots.txt included,
                                       and never over http to the host
                                       of an https seed */
  const char *const *header_seeds;
  size_t nheader_seeds;
  long connect_timeout; /* seconds */
  long timeout;         /* seconds, whole transfer */
  long low_speed_limit; /* bytes/s ... */
  long low_speed_time;  /* ... for this many seconds aborts */
  size_t max_size;      /* decoded body cap in bytes */
  bool capture;         /* keep the raw exchange (for WARC) */
  /* TLS. Given either, the CAs in CA_FILE (PEM) and CA_DIR (hashed
   * names, openssl rehash) are the ones trusted, in place of the
   * system's (libcurl's defaults); both borrowed, NULL for none. */
  const char *ca_file, *ca_dir;
  bool insecure;     /* check no certificate: test servers only */
  bool nonblocking;  /* in an event loop's thread, where nothing may
                        block: a name libcurl cannot resolve is not asked
                        again to tell "no such name" (final) from "no
                        answer now": retried, as the latter */
  long max_connects; /* connections a fetcher keeps open (its libcurl
                        connection cache, CURLOPT_MAXCONNECTS); 0: 64 */
  /* Bodies are charged to BUDGET (borrowed; NULL: not) as they arrive,
   * and stay charged in the fetch_result_t until its body is freed
   * (fetch_result_drop_body). A fetcher allowed to pause
   * (fetcher_may_pause; only an event loop's) is refused bytes that
   * would pass the limit: its transfer pauses (CURL_WRITEFUNC_PAUSE)
   * and ON_PAUSE(PAUSE_ARG, the fetcher) tells the loop, which resumes
   * it (fetcher_resume) when fetcher_wants bytes fit. Others are charged
   * over the limit (budget_force). */
  struct budget *budget;
  void (*on_pause)(void *arg, struct fetcher *f);
  void *pause_arg;
} fetch_config_t;

/* Room for a failure's reason: libcurl's CURL_ERROR_SIZE. */
#define FETCH_ERROR_SIZE 256

/* Raw bytes kept per response when capturing, beyond max_size. */
#define FETCH_CAPTURE_MAX (256 * 1024)

/* The longest validator (ETag, Last-Modified) fetcher_prepare_cond sends
 * back: a longer one is left out of the request (an HTTP date is 29
 * bytes, an ETag a hash or two; request header limits start at 8 KB). */
#define FETCH_VALIDATOR_MAX 1024

typedef enum {
  FETCH_OK,          /* 200 and a page type (fetcher_get_robots: any
                        2xx): body holds the page */
  FETCH_REDIRECT,    /* 301, 302, 303, 307 or 308 with a non-empty
                        Location: see location */
  FETCH_HTTP_ERROR,  /* any other status */
  FETCH_WRONG_TYPE,  /* 200 but not a page type; body not downloaded */
  FETCH_TOO_LARGE,   /* body over max_size; abandoned */
  FETCH_NET_ERROR,   /* DNS, connect, timeout, reset, bad encoding... */
  FETCH_NOT_MODIFIED /* 304 to a conditional request (fetcher_prepare_cond):
                        the caller's copy is the body; never from
                        fetcher_prepare, where a 304 is FETCH_HTTP_ERROR */
} fetch_outcome_t;

typedef struct fetch_result {
  fetch_outcome_t outcome;
  long status;                  /* HTTP status, 0 if none */
  char *body;                   /* owned; NUL-terminated; NULL unless OK */
  size_t len;                   /* body bytes, not counting the NUL */
  char *content_type;           /* owned; as sent, or NULL */
  char *location;               /* owned; raw Location header, or NULL */
  char *x_robots_tag;           /* owned; all X-Robots-Tag values, or NULL */
  char *etag;                   /* owned; the ETag as sent, or NULL */
  char *last_modified;          /* owned; the Last-Modified as sent, or NULL */
  long long received;           /* bytes received: the response's head and
                                   body as they came (encoded, drained
                                   bodies included); 0 if no answer */
  double retry_after;           /* seconds from now; -1 if absent/invalid */
  bool retryable;               /* a transient failure: timeout, connection
                                   failure, 5xx, 429 */
  bool final;                   /* a failure no retry mends: a name the
                                   resolver says does not exist, a
                                   certificate that does not verify */
  char error[FETCH_ERROR_SIZE]; /* why, when not OK, in words for the log:
                              "HTTP 404 Not Found", libcurl's message
                              ("SSL certificate problem: ..."), ... */
  int curl_code;                /* libcurl's CURLcode when it failed the
                                   request, else 0 (see fetch_cause) */
  /* The raw exchange, when cfg.capture (else all NULL/0): */
  char *raw_request; /* owned; request line and headers as sent */
  size_t raw_request_len;
  char *raw_head; /* owned; status line and headers, CRLF CRLF */
  size_t raw_head_len;
  char *raw_body; /* owned; the body bytes as received, chunk
                     framing and content coding included */
  size_t raw_body_len;
  bool raw_truncated;    /* raw_body is not the whole body */
  bool raw_chunked;      /* raw_body carries the chunked transfer coding */
  char ip[64];           /* the server's address, "" if unknown */
  struct budget *budget; /* what body is charged to (fetch_config_t) ... */
  size_t charged;        /* ... and how much: fetch_result_drop_body */
  bool landed;           /* counted as landed (budget_land) */
} fetch_result_t;

typedef struct fetcher fetcher_t;

/* fetcher_new: a fetcher using CFG (copied; strings borrowed).
 * Returns: owned by caller (fetcher_delete), NULL if out of memory.
 * curl_global_init must have been called (main thread, before workers).
 * Thread-safety: any thread; the fetcher is then used by one thread. */
fetcher_t *fetcher_new(const fetch_config_t *cfg);

/* A transfer is prepared, run, then read: fetcher_prepare (or _cond),
 * then fetcher_perform in the calling thread, or the handle run by an
 * event loop over libcurl's multi interface (xfer.h) and fetcher_finish.
 *
 * fetcher_prepare: make F's easy handle ready to GET URL (borrowed;
 * libcurl copies it) into *RES (caller's; zeroed now, filled in by
 * fetcher_finish, and must stay where it is until then; free its
 * contents with fetch_result_free). A page: ROBOTS false, MAX
 * cfg.max_size. A robots.txt (ROBOTS): any 2xx status with any
 * Content-Type is FETCH_OK, and a body longer than MAX bytes is cut at
 * MAX (still FETCH_OK), as RFC 9309 allows. Every request header and
 * option is set here; nothing sleeps for politeness. One transfer at a
 * time per fetcher: each prepare is followed by one finish.
 * Thread-safety: the fetcher's one thread at a time. */
void fetcher_prepare(fetcher_t *f, const char *url, bool robots, size_t max,
                     fetch_result_t *res);

/* fetcher_prepare_cond: fetcher_prepare for a page, made conditional on
 * the validators of the copy the caller holds (issue 35, --since):
 * If-None-Match with ETAG and If-Modified-Since with LAST_MODIFIED, each
 * sent as recorded when not NULL, at most FETCH_VALIDATOR_MAX bytes long
 * and free of control bytes but tab (both borrowed; F keeps its copy of
 * the headers until fetcher_finish). A 304 is then FETCH_NOT_MODIFIED,
 * with whatever validators it carried (RES's etag, last_modified), and
 * no body. With neither validator sent it is fetcher_prepare. */
void fetcher_prepare_cond(fetcher_t *f, const char *url, const char *etag,
                          const char *last_modified, fetch_result_t *res);

/* fetcher_perform: run the transfer prepared, in this thread (blocking,
 * within the configured timeouts), and read it (fetcher_finish). */
void fetcher_perform(fetcher_t *f);

/* fetcher_get_robots: fetcher_prepare of a robots.txt (or any file read
 * by its rules: a sitemap), then fetcher_perform. */
void fetcher_get_robots(fetcher_t *f, const char *url, size_t max,
                        fetch_result_t *res);

/* fetcher_handle: F's easy handle (a CURL *), to run the prepared
 * transfer (curl_multi_add_handle; its CURLOPT_PRIVATE is the caller's).
 * Borrowed; lives as long as F. */
void *fetcher_handle(fetcher_t *f);

/* fetcher_finish: the transfer prepared ended with libcurl's CURLcode
 * CURL_CODE (curl_easy_perform's, or the multi's CURLMSG_DONE result):
 * read its outcome, body and headers into the RES given to
 * fetcher_prepare. Thread-safety: as fetcher_prepare. */
void fetcher_finish(fetcher_t *f, int curl_code);

/* fetch_result_free: free what *RES holds and zero it; RES may be NULL. */
void fetch_result_free(fetch_result_t *res);

/* fetch_result_drop_body: free RES's body (body NULL; len kept) and give
 * its charge back to the budget. */
void fetch_result_drop_body(fetch_result_t *res);

/* fetch_result_unland: RES's body, charged, landed by fetcher_finish (on
 * its way to a parser, to be freed: budget_land), is no longer counted so
 * (a parser has it, and may keep it). */
void fetch_result_unland(fetch_result_t *res);

/* fetcher_may_pause: whether F's transfers may pause for room in the
 * budget (fetch_config_t.budget; false at first, as a thread's must).
 * Thread-safety: as fetcher_prepare. */
void fetcher_may_pause(fetcher_t *f, bool may);

/* fetcher_wants: the bytes F's transfer, paused, waits to charge; 0 if
 * it is not paused. */
size_t fetcher_wants(const fetcher_t *f);

/* fetcher_finish_timeout: fetcher_finish for a transfer its loop ended
 * (curl_multi_remove_handle) after MS milliseconds not paused, at
 * cfg.timeout: with on_pause set, libcurl does not keep that limit (it
 * would count the time paused). */
void fetcher_finish_timeout(fetcher_t *f, long ms);

/* fetcher_resume: resume F's paused transfer (not from inside one of
 * libcurl's callbacks). It may take its bytes at once, in this call, or
 * pause again (on_pause). Returns curl_easy_pause's CURLcode: not 0, the
 * write callback failed on those bytes and libcurl drives the transfer
 * no more: the caller ends it (curl_multi_remove_handle, then
 * fetcher_finish with that code). */
int fetcher_resume(fetcher_t *f);

/* fetch_status_text: the reason phrase RFC 9110 gives HTTP status STATUS
 * ("Not Found" for 404), or "" for a status it does not name.
 * Returns: static text. Thread-safety: any thread. */
const char *fetch_status_text(long status);

/* fetch_cause: why R (borrowed; not FETCH_OK) failed, in a few words that
 * stay the same across URLs, for counting failures by cause: for a
 * libcurl error its generic text ("Couldn't connect to server"; the
 * message in R->error also names the address and timings), but for a
 * certificate that failed verification libcurl's message, which says
 * why; else R->error up to its first ": " (what follows names a URL or
 * a type).
 * Returns: BUF (size N, N > 0), NUL-terminated, possibly cut.
 * Thread-safety: any thread. */
const char *fetch_cause(const fetch_result_t *r, char *buf, size_t n);

/* fetch_is_text_plain: true if CONTENT_TYPE (may be NULL) is text/plain. */
bool fetch_is_text_plain(const char *content_type);

/* fetch_charset: the charset parameter of CONTENT_TYPE, copied into BUF
 * (size N); NULL if there is none. Any thread. */
const char *fetch_charset(const char *content_type, char *buf, size_t n);

/* fetcher_delete: free F and its connections. NULL is fine. */
void fetcher_delete(fetcher_t *f);

#endif /* CRAWLER_FETCH_H */
