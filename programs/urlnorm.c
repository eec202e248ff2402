/* urlnorm: resolve and normalise hrefs the way the crawler does.
 *
 * usage: urlnorm BASE_URL HREF...
 * Prints, one line per HREF, url_resolve_normalized(BASE_URL, HREF) or
 * "invalid HREF" (HREF as given, control characters shown as '?', so one
 * HREF stays one line). Exit 0 if every HREF gave a URL, 1 if any did
 * not, 2 on a usage error (including a BASE_URL that is not an absolute
 * http(s) URL). A thin program: all the logic is common/url.
 */
#include <curl/curl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

static void usage(FILE *out)
{
  fprintf(out, "usage: urlnorm BASE_URL HREF...\n"
               "Print each HREF resolved against BASE_URL in the "
               "crawler's normal form,\n"
               "or 'invalid HREF' if it is not a followable http(s) "
               "URL.\n"
               "Resolution is RFC 3986's, with the WHATWG URL standard's "
               "rules where\n"
               "browsers differ: outer spaces and controls stripped, "
               "TAB/CR/LF removed,\n"
               "a backslash read as '/' in http(s) URLs before the "
               "query.\n");
}

/* print_invalid: "invalid HREF" with controls masked, because a raw LF in
 * an argument would otherwise split the line-per-HREF output. */
static void print_invalid(const char *href)
{
  fputs("invalid ", stdout);
  for (const unsigned char *p = (const unsigned char *)href; *p; p++)
    putchar(*p < 0x20 || *p == 0x7f ? '?' : *p);
  putchar('\n');
}

int main(int argc, char *argv[])
{
  if (argc == 2 &&
      (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc < 3) {
    usage(stderr);
    return 2;
  }
  /* IDN hosts are converted only under a UTF-8 codeset (url.h): C.UTF-8
   * whatever the user's locale, as the crawler does (crawler.c,
   * set_ctype_locale, says why), so that both give the same URLs. Main
   * thread, before any URL work. */
  if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
    setlocale(LC_CTYPE, "C");
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    fprintf(stderr, "urlnorm: cannot initialise libcurl\n");
    return 2;
  }

  /* A bad base is the caller's mistake, not a bad link: say so once
   * instead of printing "invalid" for every HREF. */
  char *base = url_normalize(argv[1]);
  if (base == NULL) {
    fprintf(stderr, "urlnorm: invalid BASE_URL '%s'\n", argv[1]);
    curl_global_cleanup();
    return 2;
  }
  free(base);

  int status = 0;
  for (int i = 2; i < argc; i++) {
    char *u = url_resolve_normalized(argv[1], argv[i]);
    if (u == NULL) {
      print_invalid(argv[i]);
      status = 1;
    } else {
      puts(u);
      free(u);
    }
  }
  curl_global_cleanup();
  if (fflush(stdout) != 0) {
    perror("urlnorm: cannot write output");
    return 2;
  }
  return status;
}
