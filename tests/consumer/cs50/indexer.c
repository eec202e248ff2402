/* indexer.c: a CS50-style program (its own pagedir.h and pagedir.c, to
 * the CS50 signatures) that also links libtsepagedir: both headers in one
 * file, both sets of functions used, each doing its own job
 * (tests/integration/consumer.sh).
 *
 * usage: indexer pageDirectory newDirectory
 * For each page of pageDirectory (plain) it compares what its own
 * pagedir_load(FILE *) reads with what tsepagedir_load reads, and prints
 * "ID DEPTH URL"; then its own pagedir_init and pagedir_save write page 1
 * to newDirectory, which tsepagedir_count must refuse (a CS50 marker is
 * empty) and tsepagedir_load must read. Last line: "own calls N", the
 * calls of its own pagedir_* functions, all made by itself.
 * Exit 0 if everything agreed, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tsepagedir.h>
#include "pagedir.h"

static int bad(const char *what, int id)
{
  fprintf(stderr, "indexer: %s (page %d)\n", what, id);
  return 1;
}

int main(int argc, char *argv[])
{
  if (argc != 3) {
    fprintf(stderr, "usage: indexer pageDirectory newDirectory\n");
    return 1;
  }
  const char *dir = argv[1], *newdir = argv[2];
  int own = 0; /* the calls this program makes of its own pagedir_* */
  own++;
  if (!pagedir_validate(dir))
    return bad("its own pagedir_validate refuses the directory", 0);
  char err[512];
  int n = tsepagedir_validate(dir, err, sizeof(err));
  if (n < 1)
    return bad(err, 0);
  if (tsepagedir_count(dir) != n)
    return bad("tsepagedir_count differs from tsepagedir_validate", 0);
  for (int id = 1; id <= n; id++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%d", dir, id);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
      return bad("cannot open the page file", id);
    own++;
    webpage_t *mine = pagedir_load(fp);
    fclose(fp);
    tsepagedir_page_t page;
    if (mine == NULL || tsepagedir_load(dir, id, &page) != 0)
      return bad("a page cannot be loaded", id);
    if (strcmp(mine->url, page.url) != 0 || mine->depth != page.depth ||
        strlen(mine->html) != page.len ||
        memcmp(mine->html, page.body, page.len) != 0)
      return bad("the two loads differ", id);
    char *url = tsepagedir_load_url(dir, id);
    if (url == NULL || strcmp(url, page.url) != 0)
      return bad("tsepagedir_load_url differs", id);
    free(url);
    printf("%d %d %s\n", id, page.depth, page.url);
    if (id == 1) {
      own += 2;
      if (!pagedir_init(newdir))
        return bad("its own pagedir_init fails", id);
      pagedir_save(mine, newdir, 1);
    }
    tsepagedir_page_free(&page);
    webpage_delete(mine);
  }
  if (tsepagedir_count(newdir) != -1)
    return bad("tsepagedir_count takes an empty CS50 marker", 0);
  tsepagedir_page_t page;
  char *seed = tsepagedir_param(dir, "seed");
  if (tsepagedir_load(newdir, 1, &page) != 0 || seed == NULL ||
      strcmp(page.url, seed) != 0)
    return bad("tsepagedir_load cannot read what pagedir_save wrote", 1);
  free(seed);
  tsepagedir_page_free(&page);
  printf("own calls %d\n", pagedir_calls);
  return pagedir_calls == own ? 0 : bad("the library called our pagedir_*", 0);
}
