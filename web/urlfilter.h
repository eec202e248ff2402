/* urlfilter.h: --accept-regex and --reject-regex, which of the links in
 * scope a crawl follows.
 *
 * A URL passes when it matches at least one accept expression (or there
 * is none) and no reject expression: wget's rule, with each list
 * repeatable. Expressions are POSIX extended (regcomp REG_EXTENDED),
 * unanchored (use ^ and $), matched against the normalised URL
 * (url_normalize's form: lower-case scheme and host, no default port, no
 * fragment), so "\.pdf$" means what it says whatever the link spelled.
 *
 * Thread-safety: built once by urlfilter_new, then read-only: any number
 * of threads may call urlfilter_pass at once. */
#ifndef CRAWLER_URLFILTER_H
#define CRAWLER_URLFILTER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct urlfilter urlfilter_t;

/* urlfilter_new: the filter of NA accept and NR reject expressions
 * (borrowed; either array may be NULL when its count is 0).
 * Returns: owned by caller (urlfilter_delete); NULL if an expression does
 * not compile, holds a line break (the page directory's marker records
 * each on a line), or memory ran out, with a one-line reason naming the
 * option and the expression in ERR (size N). */
urlfilter_t *urlfilter_new(const char *const *accept, size_t na,
                           const char *const *reject, size_t nr, char *err,
                           size_t n);

/* urlfilter_pass: does URL (borrowed, normalised) pass F? A NULL F passes
 * everything. */
bool urlfilter_pass(const urlfilter_t *f, const char *url);

/* urlfilter_delete: free F; NULL is fine. */
void urlfilter_delete(urlfilter_t *f);

#endif /* CRAWLER_URLFILTER_H */
