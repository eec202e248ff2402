/* hash_test.c: FNV-1a 64 known answers, seeds, binary keys, and that
 * hash_mix64 spreads similar keys evenly over a power-of-two table. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../testhelp.h"
#include "hash.h"

static void test_known_vectors(void)
{
  /* Published FNV-1a 64 test vectors (isthe.com/chongo/src/fnv). */
  CHECK(hash_bytes("", 0, 0) == UINT64_C(0xcbf29ce484222325));
  CHECK(hash_bytes("a", 1, 0) == UINT64_C(0xaf63dc4c8601ec8c));
  CHECK(hash_bytes("foobar", 6, 0) == UINT64_C(0x85944171f73967e8));
  CHECK(hash_str("") == UINT64_C(0xcbf29ce484222325));
  CHECK(hash_str("foobar") == UINT64_C(0x85944171f73967e8));
  CHECK(hash_str(NULL) == hash_str(""));
  CHECK(hash_bytes(NULL, 0, 0) == hash_str(""));
}

static void test_str_matches_bytes(void)
{
  const char *keys[] = { "x", "http://example.com/",
                         "a much longer key "
                         "that spans more than one cache line of text......" };

  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    CHECK(hash_str(keys[i]) == hash_bytes(keys[i], strlen(keys[i]), 0));
  }
}

static void test_seed_and_binary(void)
{
  const char a[] = { 'a', '\0', 'b' };
  const char b[] = { 'a', '\0', 'c' };

  CHECK(hash_bytes("key", 3, 1) != hash_bytes("key", 3, 0));
  CHECK(hash_bytes("key", 3, 7) == hash_bytes("key", 3, 7));
  /* Bytes after a NUL count: binary keys must not collide at the NUL. */
  CHECK(hash_bytes(a, 3, 0) != hash_bytes(b, 3, 0));
  CHECK(hash_bytes(a, 3, 0) != hash_str("a"));
  CHECK(hash_bytes(a, 2, 0) != hash_bytes(a, 1, 0));
}

static void test_mix_spreads(void)
{
  /* 65536 near-identical URLs into 1024 buckets by the low bits: each
   * bucket should get about 64; a weak mix piles them into a few. */
  enum { NKEYS = 65536, NBUCKETS = 1024 };
  static unsigned counts[NBUCKETS];
  char key[64];
  unsigned max = 0;
  unsigned min = NKEYS;

  for (int i = 0; i < NKEYS; i++) {
    snprintf(key, sizeof(key), "http://example.com/page%d.html", i);
    counts[hash_mix64(hash_str(key)) & (NBUCKETS - 1)]++;
  }
  for (int i = 0; i < NBUCKETS; i++) {
    max = counts[i] > max ? counts[i] : max;
    min = counts[i] < min ? counts[i] : min;
  }
  CHECK(max < 64 * 2);
  CHECK(min > 64 / 3);
  CHECK(hash_mix64(1) != hash_mix64(2));
  CHECK(hash_mix64(0) == 0); /* fmix64 fixes 0; documents the function */
}

int main(void)
{
  RUN(test_known_vectors);
  RUN(test_str_matches_bytes);
  RUN(test_seed_and_binary);
  RUN(test_mix_spreads);
  return TEST_EXIT();
}
