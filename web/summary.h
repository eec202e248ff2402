/* summary.h: what a crawl did, for a person, on stderr (internal). */
#ifndef CRAWLER_SUMMARY_H
#define CRAWLER_SUMMARY_H

#include "webcrawl.h"

/* summary_print: the summary of the crawl O (borrowed) into DIR, with its
 * WARC file WARC_PATH (or NULL), from ST, on stderr, for a person: pages,
 * failures by cause, requests, time and rate; with STATS also the
 * engine's figures (memory budget, politeness bound, Redis round trips).
 * Lines start with PROG. Main thread, after webcrawl_run. */
void summary_print(const char *prog, const webcrawl_opts_t *o, const char *dir,
                   const char *warc_path, const webcrawl_stats_t *st,
                   bool stats);

#endif /* CRAWLER_SUMMARY_H */
