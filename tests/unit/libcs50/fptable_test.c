/* fptable_test.c: the fingerprint table against a plain model: random
 * inserts, finds and removes (with crafted fingerprints whose home slots
 * crowd together and wrap around the end of the table, so removal has to
 * shift runs back across the wrap), growth with values intact, sets, odd
 * value sizes, iteration, and the hash's known answers (a stored
 * fingerprint must mean the same URL in the next release). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../testhelp.h"
#include "fptable.h"

/* A small deterministic generator (xorshift64*), so failures repeat. */
static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ULL;
}

static void test_hash_known_answers(void)
{
  /* The values of fpset_hash128, which the seen set used before: a
   * change here changes what every stored fingerprint means. */
  static const struct {
    const char *key;
    uint64_t a, b;
  } v[] = {
    { "", UINT64_C(0x85e3bfe45b613334), UINT64_C(0xa99e77def43e0a48) },
    { "a", UINT64_C(0x677c91d5c1e34214), UINT64_C(0xbe3a278c5b82ae92) },
    { "http://example.com/", UINT64_C(0xe1630388d0c23f51),
      UINT64_C(0x3f6daa24b41021a2) },
    { "http://127.0.0.2:38517/d0/section0/page0.html",
      UINT64_C(0x189b7959365a2461), UINT64_C(0xbd8b17f32373ca4c) },
  };
  for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    uint64_t fp[2];
    fptable_hash128(v[i].key, strlen(v[i].key), fp);
    CHECK(fp[0] == v[i].a);
    CHECK(fp[1] == v[i].b);
  }
  uint64_t fp[2];
  fptable_hash128(NULL, 0, fp);
  CHECK(fp[0] == v[0].a && fp[1] == v[0].b);
}

/* The model: key k (0 <= k < NKEYS) has fingerprint {home(k), k + 1}, so
 * fingerprints differ but home slots collide on purpose. */
enum { NKEYS = 3000 };

struct model {
  bool in[NKEYS];
  uint64_t val[NKEYS];
  size_t count;
};

static void key_fp(int k, uint64_t homes, uint64_t base, uint64_t fp[2])
{
  fp[0] = base + (uint64_t)k % homes;
  fp[1] = ((uint64_t)k + 1) << 32; /* low bits 0: the home is fp[0]'s */
}

struct visit {
  const struct model *m;
  size_t seen, bad;
};

static void check_one(void *arg, const uint64_t fp[2], const void *value)
{
  struct visit *v = arg;
  uint64_t k = (fp[1] >> 32) - 1, x;
  memcpy(&x, value, sizeof(x));
  v->seen++;
  if (k >= NKEYS || !v->m->in[k] || v->m->val[k] != x)
    v->bad++;
}

/* check_all: T holds exactly what M says. */
static void check_all(const fptable_t *t, const struct model *m, uint64_t homes,
                      uint64_t base)
{
  size_t wrong = 0;
  for (int k = 0; k < NKEYS; k++) {
    uint64_t fp[2], x = 0;
    key_fp(k, homes, base, fp);
    bool found = fptable_find(t, fp, &x);
    wrong += found != m->in[k] || (found && x != m->val[k]);
  }
  CHECK_INT(wrong, 0);
  CHECK_INT(fptable_count(t), m->count);
  struct visit v = { m, 0, 0 };
  fptable_iterate(t, &v, check_one);
  CHECK_INT(v.seen, m->count);
  CHECK_INT(v.bad, 0);
}

/* random_ops: OPS random inserts, finds and removes over keys below
 * LIVE, checked against the model as they go. */
static void random_ops(fptable_t *t, struct model *m, int live, int ops,
                       uint64_t homes, uint64_t base)
{
  int wrong = 0;
  for (int n = 0; n < ops; n++) {
    int k = (int)(next() % (uint64_t)live);
    uint64_t fp[2], x = next(), got = 0;
    key_fp(k, homes, base, fp);
    switch (next() % 3) {
    case 0:
      wrong += fptable_insert(t, fp, &x) != (m->in[k] ? 0 : 1);
      if (!m->in[k]) {
        m->in[k] = true;
        m->val[k] = x;
        m->count++;
      }
      break;
    case 1:
      wrong += fptable_find(t, fp, &got) != m->in[k];
      wrong += m->in[k] && got != m->val[k];
      break;
    case 2:
      wrong += fptable_remove(t, fp, &got) != m->in[k];
      wrong += m->in[k] && got != m->val[k];
      if (m->in[k]) {
        m->in[k] = false;
        m->count--;
      }
      break;
    }
    wrong += fptable_count(t) != m->count;
  }
  CHECK_INT(wrong, 0);
  check_all(t, m, homes, base);
}

static void test_random_against_model(void)
{
  /* 3000 keys on 40 home values: long runs, through growth. */
  static struct model m;
  memset(&m, 0, sizeof(m));
  fptable_t *t = fptable_new(sizeof(uint64_t), 0);
  CHECK(t != NULL);
  random_ops(t, &m, NKEYS, 200000, 40, 0);
  /* Empty it again: every removal path, nothing left behind. */
  for (int k = 0; k < NKEYS; k++) {
    uint64_t fp[2];
    key_fp(k, 40, 0, fp);
    CHECK(fptable_remove(t, fp, NULL) == m.in[k]);
    m.in[k] = false;
  }
  m.count = 0;
  check_all(t, &m, 40, 0);
  fptable_delete(t);
}

static void test_removal_across_wraparound(void)
{
  /* At most 40 keys in the initial 64 slots (no growth), homes 58 to 63:
   * every run crosses the end of the table, and removals must move keys
   * from slots 0.. back to slots ..63 and not past their homes. */
  static struct model m;
  memset(&m, 0, sizeof(m));
  fptable_t *t = fptable_new(sizeof(uint64_t), 0);
  size_t bytes = fptable_bytes(t);
  for (int round = 0; round < 200; round++)
    random_ops(t, &m, 40, 300, 6, 58);
  CHECK_INT(fptable_bytes(t), bytes); /* never grew */
  /* Remove in insertion-independent orders until empty. */
  for (int k = 39; k >= 0; k -= 2) {
    uint64_t fp[2];
    key_fp(k, 6, 58, fp);
    if (m.in[k]) {
      CHECK(fptable_remove(t, fp, NULL));
      m.in[k] = false;
      m.count--;
    }
    check_all(t, &m, 6, 58);
  }
  fptable_delete(t);

  /* Homes 120 to 127 in a table of 64 are homes 56 to 63: the mask, not
   * the value, decides. */
  memset(&m, 0, sizeof(m));
  t = fptable_new(sizeof(uint64_t), 0);
  random_ops(t, &m, 40, 5000, 8, 120);
  fptable_delete(t);
}

static void test_growth_keeps_values(void)
{
  fptable_t *t = fptable_new(sizeof(uint32_t), 0);
  size_t before = fptable_bytes(t);
  enum { N = 100000 };
  char key[32];
  for (uint32_t i = 0; i < N; i++) {
    uint64_t fp[2];
    int len = snprintf(key, sizeof key, "http://h%u/p%u", i % 97, i);
    fptable_hash128(key, (size_t)len, fp);
    CHECK_INT(fptable_insert(t, fp, &i), 1);
  }
  CHECK_INT(fptable_count(t), N);
  CHECK(fptable_bytes(t) > before);
  /* At most 3/4 full: 16 + 4 bytes a slot, capacity a power of two. */
  CHECK(fptable_bytes(t) >= (size_t)N * 4 / 3 * 20);
  int wrong = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint64_t fp[2];
    uint32_t got = UINT32_MAX;
    int len = snprintf(key, sizeof key, "http://h%u/p%u", i % 97, i);
    fptable_hash128(key, (size_t)len, fp);
    wrong += !fptable_find(t, fp, &got) || got != i;
    uint32_t other = i + 1;
    wrong += fptable_insert(t, fp, &other) != 0; /* kept, not replaced */
    if (i % 2 == 0)
      wrong += !fptable_remove(t, fp, NULL);
  }
  CHECK_INT(wrong, 0);
  CHECK_INT(fptable_count(t), N / 2);
  for (uint32_t i = 0; i < N; i++) {
    uint64_t fp[2];
    uint32_t got = UINT32_MAX;
    int len = snprintf(key, sizeof key, "http://h%u/p%u", i % 97, i);
    fptable_hash128(key, (size_t)len, fp);
    bool found = fptable_find(t, fp, &got);
    wrong += found != (i % 2 == 1) || (found && got != i);
  }
  CHECK_INT(wrong, 0);
  fptable_delete(t);
}

static void count_one(void *arg, const uint64_t fp[2], const void *value)
{
  (void)fp;
  *(size_t *)arg += value == NULL;
}

static void test_set_pays_no_values(void)
{
  fptable_t *t = fptable_new(0, 1000);
  CHECK(t != NULL);
  /* Room for 1000 keys at 3/4 load: 2048 slots of 16 bytes. */
  size_t bytes = fptable_bytes(t);
  CHECK(bytes >= 2048 * 16 && bytes < 2048 * 16 + 256);
  for (int i = 0; i < 1000; i++) {
    uint64_t fp[2];
    fptable_hash128(&i, sizeof(i), fp);
    CHECK_INT(fptable_insert(t, fp, NULL), 1);
  }
  CHECK_INT(fptable_bytes(t), bytes); /* the hint was enough */
  uint64_t fp[2];
  int i = 7;
  fptable_hash128(&i, sizeof(i), fp);
  CHECK(fptable_find(t, fp, NULL));
  CHECK_INT(fptable_insert(t, fp, NULL), 0);
  size_t visited = 0;
  fptable_iterate(t, &visited, count_one);
  CHECK_INT(visited, 1000);
  CHECK(fptable_remove(t, fp, NULL));
  CHECK(!fptable_find(t, fp, NULL));
  CHECK(!fptable_remove(t, fp, NULL));
  CHECK_INT(fptable_count(t), 999);
  fptable_delete(t);
  fptable_delete(NULL);
  CHECK(fptable_new(0, SIZE_MAX) == NULL); /* refused, not looping */
}

static void test_odd_value_size(void)
{
  struct v12 {
    char c[12];
  };
  fptable_t *t = fptable_new(sizeof(struct v12), 0);
  for (int i = 0; i < 500; i++) {
    uint64_t fp[2];
    struct v12 v;
    fptable_hash128(&i, sizeof(i), fp);
    snprintf(v.c, sizeof v.c, "v%d", i);
    CHECK_INT(fptable_insert(t, fp, &v), 1);
  }
  int wrong = 0;
  for (int i = 0; i < 500; i++) {
    uint64_t fp[2];
    struct v12 v, want;
    fptable_hash128(&i, sizeof(i), fp);
    snprintf(want.c, sizeof want.c, "v%d", i);
    wrong += !fptable_find(t, fp, &v) || strcmp(v.c, want.c) != 0;
  }
  CHECK_INT(wrong, 0);
  fptable_delete(t);
}

/* Fingerprints cut to 80 bits (a shared crawl's seen set: fp[0]'s top 16
 * bits and fp[1], the rest zero) spread over the table like whole ones.
 * With the home slot from fp[0]'s low bits alone, every such key had home
 * 0 and each insert probed past all the others: 200,000 of them took
 * minutes. The bound is generous (a tenth of a second is usual). */
static void test_masked_fingerprints(void)
{
  enum { N = 200000 };
  fptable_t *t = fptable_new(0, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t saved = rng;
  for (int i = 0; i < N; i++) {
    uint64_t fp[2] = { next() & UINT64_C(0xffff000000000000), next() | 1 };
    CHECK(fptable_insert(t, fp, NULL) >= 0);
  }
  rng = saved;
  size_t found = 0;
  for (int i = 0; i < N; i++) {
    uint64_t fp[2] = { next() & UINT64_C(0xffff000000000000), next() | 1 };
    found += fptable_find(t, fp, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  fprintf(stderr, "200,000 masked fingerprints in %.3f s\n", s);
  CHECK_INT(found, N);
  CHECK(s < 10);
  fptable_delete(t);
}

int main(void)
{
  RUN(test_hash_known_answers);
  RUN(test_random_against_model);
  RUN(test_removal_across_wraparound);
  RUN(test_growth_keeps_values);
  RUN(test_set_pays_no_values);
  RUN(test_odd_value_size);
  RUN(test_masked_fingerprints);
  return TEST_EXIT();
}
