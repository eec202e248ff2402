/* file_test.c: lines (empty, last without newline, CRLF, 1 MB long),
 * words and their delimiters, line counting and position restore, whole
 * streams (text and binary), NULL arguments, read errors, out-of-memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../testhelp.h"
#include "file.h"
#include "mem.h"

/* stream: a rewound temporary file holding len bytes of data. */
static FILE *stream(const void *data, size_t len)
{
  FILE *fp = tmpfile();

  if (fp != NULL) {
    if (fwrite(data, 1, len, fp) != len) {
      fclose(fp);
      return NULL;
    }
    rewind(fp);
  }
  return fp;
}

static FILE *text(const char *s)
{
  return stream(s, strlen(s));
}

/* check_line: the next line is want (NULL: end of file); frees it. */
#define CHECK_LINE(fp, want)                                                   \
  do {                                                                         \
    char *got_ = file_readLine(fp);                                            \
    CHECK_STR(got_, want);                                                     \
    mem_free(got_);                                                            \
  } while (0)

#define CHECK_WORD(fp, want)                                                   \
  do {                                                                         \
    char *got_ = file_readWord(fp);                                            \
    CHECK_STR(got_, want);                                                     \
    mem_free(got_);                                                            \
  } while (0)

static void test_null_args(void)
{
  size_t len = 99;

  CHECK(file_readLine(NULL) == NULL);
  CHECK(file_readWord(NULL) == NULL);
  CHECK(file_readFile(NULL) == NULL);
  CHECK(file_readAll(NULL, &len) == NULL);
  CHECK_INT(len, 0);
  CHECK_INT(file_numLines(NULL), -1);
}

static void test_readLine(void)
{
  FILE *fp = text("first\n\nthird\r\nlast");
  FILE *empty = text("");
  FILE *nl = text("\n");

  CHECK_LINE(fp, "first");
  CHECK_LINE(fp, "");        /* an empty line is not end of file */
  CHECK_LINE(fp, "third\r"); /* bytes pass through untouched */
  CHECK_LINE(fp, "last");    /* no final newline: still a line */
  CHECK_LINE(fp, NULL);
  CHECK_LINE(fp, NULL); /* and stays at end */
  CHECK_LINE(empty, NULL);
  CHECK_LINE(nl, "");
  CHECK_LINE(nl, NULL);
  fclose(fp);
  fclose(empty);
  fclose(nl);
}

static void test_long_line(void)
{
  enum { LEN = 1 << 20 };
  char *big = malloc(LEN + 3);
  FILE *fp;
  char *line;
  long base;

  if (big == NULL) {
    CHECK(big != NULL);
    return;
  }
  for (size_t i = 0; i < LEN; i++) {
    big[i] = (char)('a' + i % 26);
  }
  memcpy(big + LEN, "\nx", 3);
  fp = text(big);
  line = file_readLine(fp);
  CHECK(line != NULL && strlen(line) == LEN);
  CHECK(line != NULL && memcmp(line, big, LEN) == 0);
  CHECK_LINE(fp, "x");
  CHECK_LINE(fp, NULL);
  mem_free(line);
  /* Running out of memory while the line grows: NULL, nothing leaked. */
  rewind(fp);
  base = mem_outstanding();
  mem_failAfter(5);
  errno = 0;
  CHECK(file_readLine(fp) == NULL);
  CHECK_INT(errno, ENOMEM);
  mem_failAfter(-1);
  CHECK_INT(mem_outstanding(), base);
  free(big);
  fclose(fp);
}

static void test_readWord(void)
{
  FILE *fp = text("  hello\tworld\n\n  foo bar  \n");
  FILE *blank = text(" \t\n ");

  CHECK_WORD(fp, "hello");
  CHECK_WORD(fp, "world");
  CHECK_WORD(fp, "foo");
  /* The delimiter after "foo" is left, so the rest of its line follows. */
  CHECK_LINE(fp, " bar  ");
  CHECK_WORD(fp, NULL);
  CHECK_WORD(blank, NULL);
  fclose(fp);
  fclose(blank);
}

static void test_numLines(void)
{
  struct {
    const char *text;
    int lines;
  } cases[] = {
    { "", 0 },     { "a", 1 },    { "a\n", 1 },
    { "a\nb", 2 }, { "\n\n", 2 }, { "a\n\nb\n", 3 },
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    FILE *fp = text(cases[i].text);
    int n = 0;
    char *line;

    CHECK_INT(file_numLines(fp), cases[i].lines);
    /* It agrees with readLine, and left the position where it was. */
    while ((line = file_readLine(fp)) != NULL) {
      n++;
      mem_free(line);
    }
    CHECK_INT(n, cases[i].lines);
    fclose(fp);
  }
}

static void test_numLines_position(void)
{
  FILE *fp = text("one\ntwo\nthree\n");
  int fds[2];
  FILE *pipe_fp;

  CHECK_LINE(fp, "one");
  CHECK_INT(file_numLines(fp), 2); /* from the current position */
  CHECK_LINE(fp, "two");
  fclose(fp);

  /* A pipe cannot seek back: it is counted and left at end of file. */
  if (pipe(fds) != 0) {
    CHECK(0);
    return;
  }
  CHECK(write(fds[1], "p\nq\n", 4) == 4);
  close(fds[1]);
  pipe_fp = fdopen(fds[0], "r");
  CHECK_INT(file_numLines(pipe_fp), 2);
  CHECK_LINE(pipe_fp, NULL);
  fclose(pipe_fp);
}

static void test_readFile_readAll(void)
{
  enum { LEN = 300000 };
  unsigned char *bin = malloc(LEN);
  FILE *fp = text("line 1\nline 2\n");
  FILE *empty = text("");
  FILE *bfp;
  char *s;
  size_t len = 1;

  if (bin == NULL) {
    CHECK(bin != NULL);
    return;
  }
  s = file_readFile(fp);
  CHECK_STR(s, "line 1\nline 2\n");
  mem_free(s);
  s = file_readFile(fp); /* at end: "", not NULL */
  CHECK_STR(s, "");
  mem_free(s);
  s = file_readAll(empty, &len);
  CHECK_STR(s, "");
  CHECK_INT(len, 0);
  mem_free(s);

  for (size_t i = 0; i < LEN; i++) {
    bin[i] = (unsigned char)(i * 7 % 256); /* NULs included */
  }
  bfp = stream(bin, LEN);
  s = file_readAll(bfp, &len);
  CHECK_INT(len, LEN);
  CHECK(s != NULL && memcmp(s, bin, LEN) == 0);
  CHECK(s != NULL && s[len] == '\0'); /* terminated after the data */
  CHECK(file_readAll(bfp, NULL) == NULL);
  mem_free(s);
  free(bin);
  fclose(fp);
  fclose(empty);
  fclose(bfp);
}

static void test_errors(void)
{
  long base = mem_outstanding();
  FILE *fp = text("some words here\n");
  /* Reading a directory stream fails with EISDIR: a real read error. */
  FILE *dir = fopen("/tmp", "r");
  size_t len = 5;

  CHECK(dir != NULL);
  if (dir != NULL) {
    CHECK(file_readLine(dir) == NULL);
    CHECK(ferror(dir));
    clearerr(dir);
    CHECK(file_readWord(dir) == NULL);
    clearerr(dir);
    CHECK(file_readFile(dir) == NULL);
    clearerr(dir);
    CHECK(file_readAll(dir, &len) == NULL);
    CHECK_INT(len, 0);
    clearerr(dir);
    CHECK_INT(file_numLines(dir), -1);
    fclose(dir);
  }
  mem_failAfter(0);
  errno = 0;
  CHECK(file_readLine(fp) == NULL);
  CHECK_INT(errno, ENOMEM);
  rewind(fp);
  CHECK(file_readWord(fp) == NULL);
  rewind(fp);
  CHECK(file_readFile(fp) == NULL);
  rewind(fp);
  CHECK(file_readAll(fp, &len) == NULL);
  mem_failAfter(-1);
  CHECK_INT(mem_outstanding(), base); /* failures leak nothing */
  fclose(fp);
}

int main(void)
{
  RUN(test_null_args);
  RUN(test_readLine);
  RUN(test_long_line);
  RUN(test_readWord);
  RUN(test_numLines);
  RUN(test_numLines_position);
  RUN(test_readFile_readAll);
  RUN(test_errors);
  return TEST_EXIT();
}
