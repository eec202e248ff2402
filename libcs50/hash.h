/* hash.h: 64-bit non-cryptographic hash functions for strings and bytes.
 *
 * hash_bytes() is FNV-1a 64 (Fowler, Noll, Vo), a short, well-known
 * byte-at-a-time hash: with seed 0 its results match the published FNV-1a
 * 64 test vectors, so they are stable across runs, hosts and releases and
 * may be stored. FNV-1a mixes its high bits poorly for short keys, so code
 * that takes the low bits as a table index should pass the result through
 * hash_mix64() first (hashtable.c does).
 *
 * Not for security: an adversary who knows the seed can make keys collide.
 *
 * Thread-safety: every function is pure (no state); any thread. */
#ifndef LIBCS50_HASH_H
#define LIBCS50_HASH_H

#include <stddef.h>
#include <stdint.h>

/* hash_bytes: FNV-1a 64 of len bytes at data, started from the FNV offset
 * basis XOR seed (seed 0 gives standard FNV-1a 64).
 * Caller provides: data borrowed, readable for len bytes (may be NULL only
 * if len is 0); binary-safe, NUL bytes are hashed like any other byte.
 * Returns: the hash. Thread-safety: any thread. */
uint64_t hash_bytes(const void *data, size_t len, uint64_t seed);

/* hash_str: hash_bytes(s, strlen(s), 0), in one pass; hash_str(NULL) is the
 * hash of the empty string.
 * Caller provides: s borrowed, NUL-terminated, or NULL.
 * Returns: the hash. Thread-safety: any thread. */
uint64_t hash_str(const char *s);

/* hash_mix64: a bijective 64-bit finalizer (MurmurHash3 fmix64) that spreads
 * every input bit over every output bit, so `hash_mix64(h) & (n - 1)` is a
 * fair index into a power-of-two table.
 * Returns: the mixed value. Thread-safety: any thread. */
uint64_t hash_mix64(uint64_t x);

#endif /* LIBCS50_HASH_H */
