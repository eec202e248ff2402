/* hash.c: FNV-1a 64 and the fmix64 finalizer; see hash.h. */
#include "hash.h"

/* The FNV-1a 64 parameters, from the FNV reference (isthe.com/chongo). */
#define FNV64_OFFSET UINT64_C(14695981039346656037)
#define FNV64_PRIME UINT64_C(1099511628211)

uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
  const unsigned char *p = data;
  uint64_t h = FNV64_OFFSET ^ seed;

  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= FNV64_PRIME;
  }
  return h;
}

uint64_t hash_str(const char *s)
{
  uint64_t h = FNV64_OFFSET;

  if (s == NULL) {
    return h;
  }
  /* One pass instead of strlen() + hash_bytes(): keys are mostly URLs. */
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
    h ^= *p;
    h *= FNV64_PRIME;
  }
  return h;
}

uint64_t hash_mix64(uint64_t x)
{
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}
