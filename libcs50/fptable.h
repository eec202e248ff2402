/* fptable.h: a hash table keyed by 128-bit fingerprints, each key with a
 * value of a size fixed per table (size 0: a set).
 *
 * The crawler keeps three: the seen set (millions of URLs, no value), the
 * frontier's host map (host key -> host index) and the engine's
 * speculation map (URL -> record). A key is stored only as its
 * fptable_hash128 fingerprint: two different keys are taken as equal only
 * if all 128 bits collide; for n keys the chance of any collision is about
 * n*n / 2^129, i.e. 1e-25 at five million keys.
 *
 * Layout: open addressing with linear probing over an array of 16-byte
 * fingerprints ({0,0} = empty; home slot = the low bits of the two
 * words' xor), grown by doubling at 3/4 load; values sit in a parallel array of
 * VALUE_SIZE bytes a slot. So a probe reads fingerprints only, four to a
 * cache line, and a set pays 16 bytes a slot and nothing for values: 21
 * to 43 bytes a key whatever the key's length. A map pays 16 + VALUE_SIZE
 * a slot and reads its value array once, on a hit. Slots holding
 * fingerprint and value together would save that read but make every slot
 * of a set carry a value, or need a second probing core for sets; the
 * maps are small (hosts, speculative URLs), the set is not.
 *
 * Removal moves the later entries of the probe run back (backward shift,
 * no tombstones), so a table with many inserts and removes (the
 * speculation map) does not fill up with deleted slots. A table grows,
 * never shrinks; a bound on its size is the owner's business.
 *
 * Values are copied in and out, never handed out by address: slots move
 * when the table grows or an entry is removed.
 *
 * Thread-safety: not thread-safe; one owner, or every call under the
 * owner's lock. fptable_hash128 is pure: any thread. */
#ifndef LIBCS50_FPTABLE_H
#define LIBCS50_FPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fptable fptable_t;

/* fptable_hash128: the fingerprint of LEN bytes at KEY (borrowed; may be
 * NULL only if LEN is 0), the only fingerprints a table takes. Never
 * all-zero (that marks an empty slot). Stable across runs and hosts, so it
 * may be stored (e.g. in a resume journal).
 * Thread-safety: any thread. */
void fptable_hash128(const void *key, size_t len, uint64_t fp[2]);

/* fptable_new: an empty table whose keys carry VALUE_SIZE bytes each (0:
 * a set), with room for HINT keys before it first grows (0 is fine).
 * Returns: owned by caller (fptable_delete), or NULL if out of memory
 * (or HINT keys would not fit in any).
 * Thread-safety: any thread. */
fptable_t *fptable_new(size_t value_size, size_t hint);

/* fptable_insert: add FP (from fptable_hash128) with VALUE (VALUE_SIZE
 * bytes, copied; NULL for a set).
 * Returns: 1 added; 0 already present (its value unchanged); -1 out of
 * memory (the table is unchanged and still usable).
 * Thread-safety: T's owner, or under the owner's lock. */
int fptable_insert(fptable_t *t, const uint64_t fp[2], const void *value);

/* fptable_find: true if FP is in T; then its value is copied to VALUE
 * (VALUE_SIZE bytes) unless VALUE is NULL.
 * Thread-safety: T's owner, or under the owner's lock. */
bool fptable_find(const fptable_t *t, const uint64_t fp[2], void *value);

/* fptable_remove: take FP out of T. Returns true if it was there; then
 * its value is copied to VALUE unless VALUE is NULL.
 * Thread-safety: T's owner, or under the owner's lock. */
bool fptable_remove(fptable_t *t, const uint64_t fp[2], void *value);

/* fptable_iterate: call ITEMFUNC(ARG, fp, value) for every key, in no
 * particular order; fp and value (NULL for a set) are borrowed for the
 * call. ITEMFUNC must not insert into or remove from T.
 * Thread-safety: T's owner, or under the owner's lock (held while
 * ITEMFUNC runs). */
void fptable_iterate(const fptable_t *t, void *arg,
                     void (*itemfunc)(void *arg, const uint64_t fp[2],
                                      const void *value));

/* fptable_count: number of keys in T.
 * Thread-safety: T's owner, or under the owner's lock. */
size_t fptable_count(const fptable_t *t);

/* fptable_bytes: bytes of memory T uses now (for reports).
 * Thread-safety: T's owner, or under the owner's lock. */
size_t fptable_bytes(const fptable_t *t);

/* fptable_delete: free T; NULL is fine. Values are plain bytes: whatever
 * they point to is the owner's to free first (fptable_iterate).
 * Thread-safety: T's owner, once nothing else uses T. */
void fptable_delete(fptable_t *t);

#endif /* LIBCS50_FPTABLE_H */
