/* file.h: read lines, words, or whole streams into allocated buffers.
 *
 * Every returned buffer is returned owned: NUL-terminated, allocated with
 * mem_malloc(), released with mem_free() (or free()). Lines and words have
 * no length limit. Bytes are passed through untouched: no encoding checks,
 * no "\r" stripping; an embedded NUL byte ends the string as C sees it, so
 * use file_readAll() for binary data.
 *
 * On NULL (other than at a clean end of file) the caller can tell why:
 * ferror(fp) for a read error, errno == ENOMEM for allocation failure; what
 * was read before the failure is lost.
 *
 * Thread-safety: any thread, one thread per FILE at a time. Each call holds
 * the stream's stdio lock (flockfile) while it reads, so a call's result is
 * never interleaved with another thread's reads of the same FILE, but which
 * thread gets which line is then up to the scheduler. */
#ifndef LIBCS50_FILE_H
#define LIBCS50_FILE_H

#include <stddef.h>
#include <stdio.h>

/* file_numLines: count the lines from the current position to end of file,
 * then seek back to that position (if the stream cannot seek, e.g. a pipe,
 * it is left at end of file). A last line without "\n" counts; an empty
 * stream has 0 lines. Agrees with the number of file_readLine() calls that
 * return non-NULL.
 * Caller provides: fp borrowed, open for reading.
 * Returns: the count (at most INT_MAX), or -1 if fp is NULL or on a read
 * error. Thread-safety: see top of file. */
int file_numLines(FILE *fp);

/* file_readLine: read up to and including the next "\n" (consumed, not
 * returned) or end of file.
 * Caller provides: fp borrowed, open for reading, or NULL.
 * Returns: owned line without its "\n" ("" for an empty line); NULL at end
 * of file with nothing read, for fp NULL, on read error or out of memory.
 * Thread-safety: see top of file. */
char *file_readLine(FILE *fp);

/* file_readWord: skip whitespace (isspace() in the C locale), then read the
 * run of non-whitespace bytes that follows. The whitespace byte that ends
 * the word is left unread, so a following file_readLine() returns the rest
 * of that line.
 * Caller provides: fp borrowed, open for reading, or NULL.
 * Returns: owned non-empty word; NULL if only whitespace remained, for fp
 * NULL, on read error or out of memory. Thread-safety: see top of file. */
char *file_readWord(FILE *fp);

/* file_readFile: read the rest of the stream as a string.
 * Caller provides: fp borrowed, open for reading, or NULL.
 * Returns: owned string, "" if already at end of file; NULL for fp NULL, on
 * read error or out of memory. Thread-safety: see top of file. */
char *file_readFile(FILE *fp);

/* file_readAll: binary-safe file_readFile(): read the rest of the stream,
 * NUL bytes included.
 * Caller provides: fp borrowed, open for reading, or NULL; len non-NULL,
 * set to the number of bytes read (0 on failure).
 * Returns: owned buffer of *len bytes plus one NUL after them (so text can
 * be used as a string); NULL for fp or len NULL, on read error or out of
 * memory. Thread-safety: see top of file. */
char *file_readAll(FILE *fp, size_t *len);

#endif /* LIBCS50_FILE_H */
