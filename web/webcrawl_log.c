/* webcrawl_log.c: what the crawl tells as it goes: event lines on the
 * --log stream and in the --log-file, and each exchange in the WARC file
 * (webcrawl_int.h). Any thread. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "fetch.h"
#include "warc.h"
#include "webcrawl_int.h"

/* wc_log_file: "TIME DEPTH LABEL URL" and " (WHY)" if WHY: TIME in ISO 8601 UTC
 * to the millisecond, DEPTH -1 for what is no page (robots.txt). One fprintf a
 * line: stdio's lock keeps the lines of several threads whole. */
void wc_log_file(struct webcrawl *w, int depth, const char *label,
                 const char *url, const char *why)
{
  if (w->o->logfile == NULL)
    return;
  struct timespec ts;
  struct tm tm;
  char t[32] = "";
  clock_gettime(CLOCK_REALTIME, &ts);
  if (gmtime_r(&ts.tv_sec, &tm) != NULL)
    strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
  fprintf(w->o->logfile, "%s.%03ldZ %d %s %s%s%s%s\n", t, ts.tv_nsec / 1000000,
          depth, label, url, why ? " (" : "", why ? why : "", why ? ")" : "");
}

void wc_log_event(struct webcrawl *w, int depth, const char *label,
                  const char *url)
{
  if (w->o->log)
    fprintf(w->o->logfp, "%2d %*s%9s: %s\n", depth, depth, "", label, url);
  wc_log_file(w, depth, label, url, NULL);
}

void wc_log_reason(struct webcrawl *w, int depth, const char *label,
                   const char *url, const char *why)
{
  if (w->o->log)
    fprintf(w->o->logfp, "%2d %*s%9s: %s (%s)\n", depth, depth, "", label, url,
            why);
  wc_log_file(w, depth, label, url, why);
}

/* wc_archive: write the exchange in R to the WARC file, if there is one, and
 * drop the raw copies. A write failure stops the crawl (nothing may be
 * fetched that cannot be archived). Download threads. */
void wc_archive(struct webcrawl *w, engine_t *e, const char *url,
                fetch_result_t *r)
{
  if (w->o->warc != NULL && warc_write_exchange(w->o->warc, url, r) != 0 &&
      !atomic_exchange(&w->warc_failed, true)) {
    fprintf(stderr, "crawler: cannot write the WARC file: %s\n",
            strerror(errno));
    engine_stop(e);
  }
  free(r->raw_request);
  free(r->raw_head);
  free(r->raw_body);
  r->raw_request = r->raw_head = r->raw_body = NULL;
  r->raw_request_len = r->raw_head_len = r->raw_body_len = 0;
}
