/* fpset.h: a compact set of strings kept as 128-bit fingerprints.
 *
 * The crawler's "seen" set must hold millions of URLs in little memory, so
 * it stores only a 128-bit hash of each key (16 bytes a slot, open
 * addressing with linear probing, grown by doubling at 3/4 load): about 21 to
 * 43 bytes per key whatever the key's length. Two different keys are taken
 * as equal only if all 128 bits collide: for n keys the chance of any
 * collision is about n*n / 2^129, i.e. 1e-25 at five million keys.
 *
 * Not thread-safe: one owner, or every call under the owner's lock. */
#ifndef LIBCS50_FPSET_H
#define LIBCS50_FPSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fpset fpset_t;

/* fpset_new: an empty set sized for about HINT keys (0 is fine; it grows).
 * Returns: owned by caller (fpset_delete), or NULL if out of memory. */
fpset_t *fpset_new(size_t hint);

/* fpset_insert: add KEY (LEN bytes, borrowed; only its hash is kept).
 * Returns: 1 if added, 0 if already present, -1 if out of memory (the set
 * is unchanged and still usable). */
int fpset_insert(fpset_t *set, const void *key, size_t len);

/* fpset_contains: true if KEY (borrowed) was inserted before. */
bool fpset_contains(const fpset_t *set, const void *key, size_t len);

/* fpset_count: number of keys in the set. */
size_t fpset_count(const fpset_t *set);

/* fpset_bytes: bytes of memory the table uses now (for reports). */
size_t fpset_bytes(const fpset_t *set);

/* fpset_delete: free the set; NULL is fine. */
void fpset_delete(fpset_t *set);

/* fpset_hash128: the fingerprint used above, exposed for tests and for
 * callers that store fingerprints elsewhere (e.g. a resume journal).
 * Never returns the all-zero value (that marks an empty slot). */
void fpset_hash128(const void *key, size_t len, uint64_t out[2]);

#endif /* LIBCS50_FPSET_H */
