/* pagedir.c: a CS50 TSE student's common/pagedir.c (see pagedir.h),
 * with a file_readLine of its own as libcs50's file.c has. */
#include "pagedir.h"

#include <stdlib.h>
#include <string.h>

int pagedir_calls;

char *file_readLine(FILE *fp);
char *file_readFile(FILE *fp);

char *file_readLine(FILE *fp)
{
  size_t cap = 64, len = 0;
  char *s = malloc(cap);
  int c;
  while ((c = fgetc(fp)) != EOF && c != '\n') {
    if (len + 2 > cap)
      s = realloc(s, cap *= 2);
    s[len++] = (char)c;
  }
  if (c == EOF && len == 0) {
    free(s);
    return NULL;
  }
  s[len] = '\0';
  return s;
}

char *file_readFile(FILE *fp)
{
  size_t cap = 64, len = 0;
  char *s = malloc(cap);
  int c;
  while ((c = fgetc(fp)) != EOF) {
    if (len + 2 > cap)
      s = realloc(s, cap *= 2);
    s[len++] = (char)c;
  }
  s[len] = '\0';
  return s;
}

bool pagedir_init(const char *pageDirectory)
{
  pagedir_calls++;
  char path[4096];
  snprintf(path, sizeof(path), "%s/.crawler", pageDirectory);
  FILE *fp = fopen(path, "w");
  if (fp == NULL)
    return false;
  fclose(fp);
  return true;
}

void pagedir_save(const webpage_t *page, const char *pageDirectory,
                  const int docID)
{
  pagedir_calls++;
  char path[4096];
  snprintf(path, sizeof(path), "%s/%d", pageDirectory, docID);
  FILE *fp = fopen(path, "w");
  if (fp == NULL)
    return;
  fprintf(fp, "%s\n%d\n%s", page->url, page->depth, page->html);
  fclose(fp);
}

bool pagedir_validate(const char *pageDirectory)
{
  pagedir_calls++;
  char path[4096];
  snprintf(path, sizeof(path), "%s/.crawler", pageDirectory);
  FILE *fp = fopen(path, "r");
  if (fp == NULL)
    return false;
  fclose(fp);
  return true;
}

webpage_t *pagedir_load(FILE *fp)
{
  pagedir_calls++;
  char *url = file_readLine(fp);
  char *depth = url ? file_readLine(fp) : NULL;
  if (depth == NULL) {
    free(url);
    return NULL;
  }
  webpage_t *page = malloc(sizeof(*page));
  page->url = url;
  page->depth = atoi(depth);
  free(depth);
  page->html = file_readFile(fp);
  return page;
}

void webpage_delete(webpage_t *page)
{
  if (page == NULL)
    return;
  free(page->url);
  free(page->html);
  free(page);
}
