/* words.c: an indexer's first step, built outside the tree against the
 * installed <tsepagedir.h> and libtsepagedir only, through pkg-config
 * (tests/integration/consumer.sh, tests/package/install_deb.sh).
 *
 * usage: words pageDirectory
 * Checks the directory (tsepagedir_validate), then reads every page, plain
 * or gzip-compressed, and prints one line a page:
 *   ID DEPTH WORDS URL
 * WORDS counts the maximal runs of ASCII letters in the body (the markup
 * included: a first step, not an HTML parser). Last line: "compress
 * VALUE", the marker's parameter.
 * Exit: 0; 1 usage, a directory that is not a valid page directory, or a
 * page that cannot be loaded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tsepagedir.h>

/* is_letter: ASCII only, whatever the locale. */
static int is_letter(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static long count_words(const char *body, size_t len)
{
  long words = 0;
  int in = 0;
  for (size_t i = 0; i < len; i++) {
    int letter = is_letter((unsigned char)body[i]);
    if (letter && !in)
      words++;
    in = letter;
  }
  return words;
}

int main(int argc, char *argv[])
{
  if (argc != 2) {
    fprintf(stderr, "usage: words pageDirectory\n");
    return 1;
  }
  const char *dir = argv[1];
  char err[512];
  int n = tsepagedir_validate(dir, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "words: %s\n", err);
    return 1;
  }
  for (int id = 1; id <= n; id++) {
    tsepagedir_page_t page;
    if (tsepagedir_load(dir, id, &page) != 0) {
      fprintf(stderr, "words: cannot load page %d of '%s': %s\n", id, dir,
              strerror(errno));
      return 1;
    }
    printf("%d %d %ld %s\n", id, page.depth, count_words(page.body, page.len),
           page.url);
    tsepagedir_page_free(&page);
  }
  char *compress = tsepagedir_param(dir, "compress");
  printf("compress %s\n", compress != NULL ? compress : "?");
  free(compress);
  return 0;
}
