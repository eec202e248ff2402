/* crawler.h: the crawler program's name and exit codes, which its two
 * files share (internal): cmdline.c refuses a bad command line with
 * them, crawler.c maps the crawl's statuses to them (exit_codes, beside
 * main). usage() (cmdline.c) and crawler(1) document them. */
#ifndef CRAWLER_CRAWLER_H
#define CRAWLER_CRAWLER_H

/* What the program's messages start with. */
#define CRAWLER_PROG "crawler"

enum {
  EXIT_USAGE = 1,   /* bad option or argument count */
  EXIT_SEED = 2,    /* bad seedURL */
  EXIT_PAGEDIR = 3, /* bad pageDirectory */
  EXIT_DEPTH = 4,   /* bad maxDepth */
  EXIT_INTERRUPTED = 5,
  EXIT_IO = 6,      /* a page, the journal or the WARC file could not
                       be written, or a resume found the site changed */
  EXIT_FATAL = 7,   /* out of memory, no threads */
  EXIT_NOSEED = 8,  /* the seed page was not saved */
  EXIT_CLUSTER = 9, /* --cluster: Redis unreachable, or the shared crawl
                       failed (gone from Redis, a lease lost) */
  EXIT_RUNNING = 10 /* --status: the crawl is not complete yet */
};

#endif /* CRAWLER_CRAWLER_H */
