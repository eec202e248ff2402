/* warc.h: a WARC/1.1 writer for the crawler's exchanges (internal).
 *
 * The file is a series of gzip members, one per record (the usual
 * .warc.gz layout): a warcinfo record when the file is opened, then for
 * every HTTP exchange a request record and a response record holding the
 * request and the response exactly as they crossed the wire (a compressed
 * or chunked transfer is stored so), linked by WARC-Concurrent-To, with
 * WARC-Block-Digest and WARC-Payload-Digest (sha1, base32). Redirects and
 * error statuses are recorded like any response; a body the crawler did
 * not read whole is marked WARC-Truncated.
 *
 * Crash safety: each record is built and compressed in memory and then
 * appended with one write() under the writer's lock; a short write is cut
 * off again. So a crash can only leave a torn last member, every complete
 * record before it still reads, and warc_open (on --resume) cuts such a
 * tail before appending.
 *
 * Thread-safety: warc_write_exchange may be called from any number of
 * threads at once; open and close from one thread, with no writer busy. */
#ifndef CRAWLER_WARC_H
#define CRAWLER_WARC_H

#include "fetch.h"

typedef struct warc warc_t;

/* warc_open: open PATH (borrowed) for appending, creating it if needed,
 * cut a torn last member off, and write a warcinfo record naming SOFTWARE and
 * USER_AGENT (borrowed). Returns: owned by caller (warc_close); NULL with errno
 * set. */
warc_t *warc_open(const char *path, const char *software,
                  const char *user_agent);

/* warc_write_exchange: record the exchange for URL (borrowed) held in RES
 * (borrowed; fetched with fetch_config_t.capture; raw_chunked says whether
 * the payload digest must skip the chunk framing). Nothing is written for
 * an exchange that got no response (a connection failure).
 * Returns: 0, or -1 with errno set (the file is then left as it was, but
 * for a possibly torn member at its end). */
int warc_write_exchange(warc_t *w, const char *url, const fetch_result_t *res);

/* warc_records: records written so far (warcinfo included). */
long warc_records(warc_t *w);

/* warc_close: flush and close; NULL is fine. Returns 0 or -1 (errno). */
int warc_close(warc_t *w);

#endif /* CRAWLER_WARC_H */
