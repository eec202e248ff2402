/* fptable.c: see fptable.h.
 *
 * The hash reads the key 8 bytes at a time into two lanes with different
 * odd multipliers and finishes each lane with the splitmix64 finaliser (a
 * full-avalanche 64-bit mix), cross-feeding the lanes so that each output
 * word depends on every input byte. It is not cryptographic: the keys are
 * URLs a crawl found, and an attacker who forged a collision would at worst
 * hide one page from the crawl.
 *
 * Invariant: every key is reachable from its home slot, i.e. no empty slot
 * lies between a key's home and its slot (cyclically). Insert keeps it by
 * taking the first empty slot; remove by moving back every later key of
 * the run whose home does not lie after the freed slot. */
#include "fptable.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct fptable {
  uint64_t (*key)[2]; /* capacity fingerprints; {0,0} = empty */
  unsigned char *val; /* capacity values of vsize bytes; NULL if 0 */
  size_t vsize;
  size_t capacity; /* a power of two */
  size_t count;    /* at most 3/4 of capacity */
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

void fptable_hash128(const void *key, size_t len, uint64_t fp[2])
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
  fp[0] = a;
  fp[1] = b;
  if (fp[0] == 0 && fp[1] == 0)
    fp[1] = 1;
}

static bool empty(const uint64_t k[2])
{
  return k[0] == 0 && k[1] == 0;
}

static unsigned char *val_at(const fptable_t *t, size_t i)
{
  return t->val + i * t->vsize;
}

/* copy: N bytes of a value. The common sizes (an index, a pointer) are
 * copied inline: a call to memcpy would cost a map lookup a third more. */
static void copy(void *dst, const void *src, size_t n)
{
  if (n == sizeof(uint32_t))
    memcpy(dst, src, sizeof(uint32_t));
  else if (n == sizeof(uint64_t))
    memcpy(dst, src, sizeof(uint64_t));
  else
    memcpy(dst, src, n);
}

/* alloc: empty arrays for CAP slots in *T (capacity set). */
static bool alloc(fptable_t *t, size_t cap)
{
  t->key = calloc(cap, sizeof(*t->key));
  t->val = NULL;
  if (t->key == NULL)
    return false;
  if (t->vsize > 0 && (t->val = malloc(cap * t->vsize)) == NULL) {
    free(t->key);
    return false;
  }
  t->capacity = cap;
  return true;
}

fptable_t *fptable_new(size_t value_size, size_t hint)
{
  if (hint > SIZE_MAX / 64 / (16 + value_size))
    return NULL; /* no such memory: spare the loop below an overflow */
  fptable_t *t = malloc(sizeof(*t));
  if (t == NULL)
    return NULL;
  size_t cap = 64;
  while (cap / 4 * 3 < hint)
    cap *= 2;
  t->vsize = value_size;
  t->count = 0;
  if (!alloc(t, cap)) {
    free(t);
    return NULL;
  }
  return t;
}

/* home: FP's home slot under MASK, from both words: a fingerprint cut to
 * 80 bits (a shared crawl's) has fp[0]'s low bits zero. */
static inline size_t home(const uint64_t fp[2], size_t mask)
{
  return (size_t)(fp[0] ^ fp[1]) & mask;
}

/* probe: index of FP's slot, or of the empty slot where it would go. */
static inline size_t probe(const fptable_t *t, const uint64_t fp[2])
{
  size_t mask = t->capacity - 1;
  size_t i = home(fp, mask);
  for (;;) {
    const uint64_t *k = t->key[i];
    if ((k[0] == fp[0] && k[1] == fp[1]) || empty(k))
      return i;
    i = (i + 1) & mask;
  }
}

static bool grow(fptable_t *t)
{
  fptable_t bigger = *t;
  if (!alloc(&bigger, t->capacity * 2))
    return false;
  size_t mask = bigger.capacity - 1;
  for (size_t i = 0; i < t->capacity; i++) {
    if (empty(t->key[i]))
      continue;
    /* Keys are distinct: the first empty slot from home is its place. */
    size_t j = home(t->key[i], mask);
    while (!empty(bigger.key[j]))
      j = (j + 1) & mask;
    bigger.key[j][0] = t->key[i][0];
    bigger.key[j][1] = t->key[i][1];
    if (t->vsize > 0)
      copy(val_at(&bigger, j), val_at(t, i), t->vsize);
  }
  free(t->key);
  free(t->val);
  *t = bigger;
  return true;
}

int fptable_insert(fptable_t *t, const uint64_t fp[2], const void *value)
{
  assert(!empty(fp));
  size_t i = probe(t, fp);
  if (!empty(t->key[i]))
    return 0;
  if (t->count + 1 > t->capacity / 4 * 3) {
    if (!grow(t))
      return -1;
    i = probe(t, fp);
  }
  t->key[i][0] = fp[0];
  t->key[i][1] = fp[1];
  if (t->vsize > 0)
    copy(val_at(t, i), value, t->vsize);
  t->count++;
  return 1;
}

bool fptable_find(const fptable_t *t, const uint64_t fp[2], void *value)
{
  size_t i = probe(t, fp);
  if (empty(t->key[i]))
    return false;
  if (value != NULL && t->vsize > 0)
    copy(value, val_at(t, i), t->vsize);
  return true;
}

bool fptable_remove(fptable_t *t, const uint64_t fp[2], void *value)
{
  size_t i = probe(t, fp);
  if (empty(t->key[i]))
    return false;
  if (value != NULL && t->vsize > 0)
    copy(value, val_at(t, i), t->vsize);
  /* Slot i is the hole. Move back each later key of the run unless its
   * home lies cyclically in (i, j]: then the hole is not on its path. */
  size_t mask = t->capacity - 1;
  for (size_t j = (i + 1) & mask; !empty(t->key[j]); j = (j + 1) & mask) {
    size_t h = home(t->key[j], mask);
    if ((i < j) ? (h <= i || h > j) : (h <= i && h > j)) {
      t->key[i][0] = t->key[j][0];
      t->key[i][1] = t->key[j][1];
      if (t->vsize > 0)
        copy(val_at(t, i), val_at(t, j), t->vsize);
      i = j;
    }
  }
  t->key[i][0] = 0;
  t->key[i][1] = 0;
  t->count--;
  return true;
}

void fptable_iterate(const fptable_t *t, void *arg,
                     void (*itemfunc)(void *arg, const uint64_t fp[2],
                                      const void *value))
{
  for (size_t i = 0; i < t->capacity; i++)
    if (!empty(t->key[i]))
      itemfunc(arg, t->key[i], t->vsize > 0 ? val_at(t, i) : NULL);
}

size_t fptable_count(const fptable_t *t)
{
  return t->count;
}

size_t fptable_bytes(const fptable_t *t)
{
  return sizeof(*t) + t->capacity * (sizeof(*t->key) + t->vsize);
}

void fptable_delete(fptable_t *t)
{
  if (t == NULL)
    return;
  free(t->key);
  free(t->val);
  free(t);
}
