/* pagedir.h: a CS50 TSE student's common/pagedir.h, as nearly every one
 * reads: these names and signatures, which libtsepagedir must leave to
 * the program (tests/integration/consumer.sh). */
#ifndef PAGEDIR_H
#define PAGEDIR_H

#include <stdbool.h>
#include <stdio.h>

typedef struct webpage {
  char *url;
  int depth;
  char *html;
} webpage_t;

/* pagedir_init: mark DIR as made by the crawler (an empty .crawler). */
bool pagedir_init(const char *pageDirectory);

/* pagedir_save: write PAGE as DIR/ID: URL, depth, HTML. */
void pagedir_save(const webpage_t *page, const char *pageDirectory,
                  const int docID);

/* pagedir_validate: whether DIR/.crawler can be read. */
bool pagedir_validate(const char *pageDirectory);

/* pagedir_load: the page of an open page file, or NULL. */
webpage_t *pagedir_load(FILE *fp);

void webpage_delete(webpage_t *page);

/* How often each of the above was called: the program's own functions
 * are called by the program only, never by the library. */
extern int pagedir_calls;

#endif
