/* mem.h: allocation helpers that never exit.
 *
 * Unlike the CS50 originals (mem_assert*, which exit(99)), these report
 * failure by returning NULL with errno = ENOMEM; the caller decides what an
 * out-of-memory means. A size of 0 is treated as 1, so NULL always means
 * failure and never "you asked for nothing".
 *
 * Every pointer returned by mem_malloc/mem_calloc/mem_realloc/mem_strdup is
 * returned owned: release it with mem_free() (free() works too, but then
 * mem_outstanding() over-counts). The libcs50 containers and file readers
 * allocate through here, so mem_failAfter() reaches all their allocations.
 *
 * The counters are C11 atomics (relaxed): cheap, and safe from any thread;
 * they are diagnostics, not synchronisation. */
#ifndef LIBCS50_MEM_H
#define LIBCS50_MEM_H

#include <stddef.h>

/* mem_malloc: like malloc(size), uninitialised.
 * Returns: owned block, or NULL (errno ENOMEM) on failure.
 * Thread-safety: any thread. */
void *mem_malloc(size_t size);

/* mem_calloc: like calloc(nmemb, size), zero-filled; nmemb * size overflow
 * is a failure, not a short block.
 * Returns: owned block, or NULL (errno ENOMEM) on failure.
 * Thread-safety: any thread. */
void *mem_calloc(size_t nmemb, size_t size);

/* mem_realloc: like realloc(ptr, size); ptr NULL acts as mem_malloc(size).
 * Caller provides: ptr NULL or owned from mem_*; adopted on success.
 * Returns: owned block (ptr is then invalid), or NULL on failure, in which
 * case ptr is untouched and still owned by the caller.
 * Thread-safety: any thread. */
void *mem_realloc(void *ptr, size_t size);

/* mem_strdup: copy a NUL-terminated string.
 * Caller provides: s borrowed; NULL gives NULL (errno EINVAL).
 * Returns: owned copy, or NULL on failure. Thread-safety: any thread. */
char *mem_strdup(const char *s);

/* mem_free: free(ptr) and count it; NULL is a no-op.
 * Caller provides: ptr NULL or owned from mem_* (adopted).
 * Thread-safety: any thread. */
void mem_free(void *ptr);

/* mem_outstanding: blocks handed out by mem_* minus those given back to
 * mem_free(), since the program started. A test takes it before and after
 * a unit of work to catch leaks; negative means something was passed to
 * mem_free() that mem_* did not allocate.
 * Thread-safety: any thread; a snapshot, other threads may change it. */
long mem_outstanding(void);

/* mem_failAfter: fault injection for tests. After n more successful
 * allocations, every mem_* allocation fails (NULL, ENOMEM) until the next
 * call; n < 0 (the initial state) turns injection off. Lets tests prove
 * that out-of-memory paths return errors and leak nothing.
 * Thread-safety: any thread, but it affects all threads: tests only. */
void mem_failAfter(long n);

#endif /* LIBCS50_MEM_H */
