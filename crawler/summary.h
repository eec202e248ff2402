/* summary.h: what a crawl did, for a person, on stderr (internal). */
#ifndef CRAWLER_SUMMARY_H
#define CRAWLER_SUMMARY_H

#include "webcrawl.h"

/* summary_print: the summary of the crawl O (borrowed) into DIR, with its
 * WARC file WARC_PATH (or NULL), from ST, on stderr; lines start with
 * PROG. Main thread, after webcrawl_run. */
void summary_print(const char *prog, const webcrawl_opts_t *o, const char *dir,
                   const char *warc_path, const webcrawl_stats_t *st);

#endif /* CRAWLER_SUMMARY_H */
