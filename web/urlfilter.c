/* urlfilter.c: accept and reject expressions (urlfilter.h), compiled
 * once with regcomp; glibc's regexec is safe to call on one compiled
 * expression from several threads. */
#include "urlfilter.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct urlfilter {
  regex_t *re; /* NA accept expressions, then NR reject ones */
  size_t na, nr;
};

/* compile: RE into F->re[I] for OPT; 0, or -1 with the reason in ERR. */
static int compile(urlfilter_t *f, size_t i, const char *opt, const char *re,
                   char *err, size_t n)
{
  if (strpbrk(re, "\r\n") != NULL) {
    snprintf(err, n, "%s: an expression holds a line break", opt);
    return -1;
  }
  int rc = regcomp(&f->re[i], re, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, &f->re[i], why, sizeof(why));
    snprintf(err, n, "%s '%s': %s", opt, re, why);
    return -1;
  }
  return 0;
}

urlfilter_t *urlfilter_new(const char *const *accept, size_t na,
                           const char *const *reject, size_t nr, char *err,
                           size_t n)
{
  urlfilter_t *f = calloc(1, sizeof(*f));
  if (f != NULL && na + nr > 0)
    f->re = calloc(na + nr, sizeof(regex_t));
  if (f == NULL || (na + nr > 0 && f->re == NULL)) {
    free(f);
    snprintf(err, n, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < na + nr; i++) {
    bool acc = i < na;
    if (compile(f, i, acc ? "--accept-regex" : "--reject-regex",
                acc ? accept[i] : reject[i - na], err, n) != 0) {
      urlfilter_delete(f);
      return NULL;
    }
    if (acc)
      f->na++;
    else
      f->nr++;
  }
  return f;
}

bool urlfilter_pass(const urlfilter_t *f, const char *url)
{
  if (f == NULL)
    return true;
  bool accepted = f->na == 0;
  for (size_t i = 0; i < f->na && !accepted; i++)
    accepted = regexec(&f->re[i], url, 0, NULL, 0) == 0;
  if (!accepted)
    return false;
  for (size_t i = f->na; i < f->na + f->nr; i++)
    if (regexec(&f->re[i], url, 0, NULL, 0) == 0)
      return false;
  return true;
}

void urlfilter_delete(urlfilter_t *f)
{
  if (f == NULL)
    return;
  for (size_t i = 0; i < f->na + f->nr; i++)
    regfree(&f->re[i]);
  free(f->re);
  free(f);
}
