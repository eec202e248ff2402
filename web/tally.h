/* tally.h: counts by cause, for a summary (internal): how many pages
 * failed for each reason, with room for the first TALLY_MAX reasons seen;
 * the others are counted together.
 *
 * A plain value with no pointers: a crawl fills one in its statistics
 * and the program prints it after the crawl.
 *
 * Thread-safety: none; one thread at a time per tally (the crawler's
 * commit, then its main thread). */
#ifndef CRAWLER_TALLY_H
#define CRAWLER_TALLY_H

#include <stddef.h>

enum { TALLY_MAX = 8, TALLY_WHAT = 256 };

typedef struct tally {
  struct tally_entry {
    char what[TALLY_WHAT]; /* the cause, cut to fit */
    long n;
  } v[TALLY_MAX];
  size_t n;   /* entries used */
  long other; /* counts of causes that found no room */
} tally_t;

/* tally_add: count one more of WHAT (borrowed; copied, cut to
 * TALLY_WHAT - 1 bytes) in T, zeroed to start. */
void tally_add(tally_t *t, const char *what);

/* tally_sort: order T's entries by count, most first; equal counts keep
 * the order they were first seen in. */
void tally_sort(tally_t *t);

#endif /* CRAWLER_TALLY_H */
