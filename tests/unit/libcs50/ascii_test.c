/* ascii_test.c: the locale-independent character helpers of ascii.h,
 * checked against <ctype.h> in the "C" locale, where the two must agree,
 * and on the bytes >= 0x80 that no locale may turn into letters here. */
#include <ctype.h>
#include <stdint.h>

#include "ascii.h"
#include "testhelp.h"

static void test_classes_match_c_locale(void)
{
  for (int c = 0; c < 256; c++) {
    CHECK(ascii_isalpha(c) == (isalpha(c) != 0));
    CHECK(ascii_isdigit(c) == (isdigit(c) != 0));
    CHECK_INT(ascii_tolower(c), tolower(c));
    CHECK_INT(ascii_hexval(c) >= 0, isxdigit(c) != 0);
  }
  CHECK(!ascii_isalpha(EOF) && !ascii_isdigit(EOF));
  CHECK_INT(ascii_tolower(EOF), EOF);
  CHECK_INT(ascii_hexval(EOF), -1);
}

static void test_high_bytes_are_themselves(void)
{
  for (int c = 0x80; c < 256; c++) {
    CHECK(!ascii_isalpha(c));
    CHECK_INT(ascii_tolower(c), c);
    /* A plain char holding the byte, negative where char is signed. */
    char ch = (char)c;
    CHECK((char)ascii_tolower(ch) == ch);
    CHECK(!ascii_isalpha(ch) && !ascii_isdigit(ch));
  }
}

static void test_hexval(void)
{
  CHECK_INT(ascii_hexval('0'), 0);
  CHECK_INT(ascii_hexval('9'), 9);
  CHECK_INT(ascii_hexval('a'), 10);
  CHECK_INT(ascii_hexval('F'), 15);
  CHECK_INT(ascii_hexval('g'), -1);
  CHECK_INT(ascii_hexval('%'), -1);
}

static void test_strnieq(void)
{
  CHECK(ascii_strnieq("HTTP", "http", 4));
  CHECK(ascii_strnieq("HTTPS", "http", 4));
  CHECK(!ascii_strnieq("HTTPS", "http", 5));
  CHECK(ascii_strnieq("robots", "ROBOTS", SIZE_MAX));
  CHECK(!ascii_strnieq("robots", "robot", SIZE_MAX));
  CHECK(!ascii_strnieq("robot", "robots", SIZE_MAX));
  CHECK(ascii_strnieq("", "", SIZE_MAX));
  CHECK(ascii_strnieq("abc", "xyz", 0));
  /* A string shorter than n stops the compare at its NUL. */
  CHECK(!ascii_strnieq("utf", "utf-32", 6));
  CHECK(ascii_strnieq("a\0x", "A\0y", 3));
  /* No folding beyond ASCII: 0xC4 and 0xE4 are not one letter. */
  CHECK(!ascii_strnieq("\xC4", "\xE4", 1));
}

int main(void)
{
  RUN(test_classes_match_c_locale);
  RUN(test_high_bytes_are_themselves);
  RUN(test_hexval);
  RUN(test_strnieq);
  return TEST_EXIT();
}
