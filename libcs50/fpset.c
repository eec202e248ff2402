/* fpset.c: see fpset.h.
 *
 * The hash reads the key 8 bytes at a time into two lanes with different
 * odd multipliers and finishes each lane with the splitmix64 finaliser (a
 * full-avalanche 64-bit mix), cross-feeding the lanes so that each output
 * word depends on every input byte. It is not cryptographic: the keys are
 * URLs a crawl found, and an attacker who forged a collision would at worst
 * hide one page from the crawl. */
#include "fpset.h"

#include <stdlib.h>
#include <string.h>

struct fpset {
  uint64_t (*slot)[2];  /* capacity entries; {0,0} = empty */
  size_t capacity;      /* a power of two */
  size_t count;
};

static uint64_t mix64(uint64_t z)
{
  z ^= z >> 30;
  z *= 0xbf58476d1ce4e5b9ULL;
  z ^= z >> 27;
  z *= 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return z;
}

void fpset_hash128(const void *key, size_t len, uint64_t out[2])
{
  const unsigned char *p = key;
  uint64_t a = 0x9e3779b97f4a7c15ULL ^ len;
  uint64_t b = 0xc2b2ae3d27d4eb4fULL + len;
  size_t i = 0;

  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    a = (a ^ w) * 0x100000001b3ULL;
    a = (a << 31) | (a >> 33);
    b = (b + w) * 0xff51afd7ed558ccdULL;
    b = (b << 29) | (b >> 35);
  }
  uint64_t t = 0;
  for (size_t k = 0; i + k < len; k++)
    t |= (uint64_t)p[i + k] << (8 * k);
  a = mix64(a ^ t);
  b = mix64(b + t + a);
  a = mix64(a ^ b);
  out[0] = a;
  out[1] = b;
  if (out[0] == 0 && out[1] == 0)
    out[1] = 1;
}

fpset_t *fpset_new(size_t hint)
{
  fpset_t *set = malloc(sizeof(*set));
  if (set == NULL)
    return NULL;
  size_t cap = 64;
  while (cap / 4 * 3 < hint)
    cap *= 2;
  set->slot = calloc(cap, sizeof(*set->slot));
  if (set->slot == NULL) {
    free(set);
    return NULL;
  }
  set->capacity = cap;
  set->count = 0;
  return set;
}

/* find: index of FP's slot, or of the empty slot where it would go. */
static size_t find(const fpset_t *set, const uint64_t fp[2])
{
  size_t mask = set->capacity - 1;
  size_t i = (size_t)fp[0] & mask;
  for (;;) {
    const uint64_t *s = set->slot[i];
    if ((s[0] == fp[0] && s[1] == fp[1]) || (s[0] == 0 && s[1] == 0))
      return i;
    i = (i + 1) & mask;
  }
}

static bool grow(fpset_t *set)
{
  fpset_t bigger = { NULL, set->capacity * 2, set->count };
  bigger.slot = calloc(bigger.capacity, sizeof(*bigger.slot));
  if (bigger.slot == NULL)
    return false;
  for (size_t i = 0; i < set->capacity; i++) {
    const uint64_t *s = set->slot[i];
    if (s[0] != 0 || s[1] != 0) {
      size_t j = find(&bigger, s);
      bigger.slot[j][0] = s[0];
      bigger.slot[j][1] = s[1];
    }
  }
  free(set->slot);
  *set = bigger;
  return true;
}

int fpset_insert(fpset_t *set, const void *key, size_t len)
{
  uint64_t fp[2];
  fpset_hash128(key, len, fp);
  size_t i = find(set, fp);
  if (set->slot[i][0] != 0 || set->slot[i][1] != 0)
    return 0;
  if (set->count + 1 > set->capacity / 4 * 3) {
    if (!grow(set))
      return -1;
    i = find(set, fp);
  }
  set->slot[i][0] = fp[0];
  set->slot[i][1] = fp[1];
  set->count++;
  return 1;
}

bool fpset_contains(const fpset_t *set, const void *key, size_t len)
{
  uint64_t fp[2];
  fpset_hash128(key, len, fp);
  size_t i = find(set, fp);
  return set->slot[i][0] != 0 || set->slot[i][1] != 0;
}

size_t fpset_count(const fpset_t *set)
{
  return set->count;
}

size_t fpset_bytes(const fpset_t *set)
{
  return sizeof(*set) + set->capacity * sizeof(*set->slot);
}

void fpset_delete(fpset_t *set)
{
  if (set == NULL)
    return;
  free(set->slot);
  free(set);
}
