/* pagedir_int.h: what pagedir.c (the readers) and pagedir_write.c (what
 * the crawler writes) share: internal to the page directory module, whose
 * contract is pagedir.h. Defined in pagedir.c, so that libtsepagedir.so,
 * which links that file alone, has them.
 *
 * Thread-safety: any thread. */
#ifndef COMMON_PAGEDIR_INT_H
#define COMMON_PAGEDIR_INT_H

#include <stddef.h>

/* pagedir_join: the path DIR/NAME (both borrowed). Returns: owned by
 * caller (free()), or NULL if out of memory. */
char *pagedir_join(const char *dir, const char *name);

/* pagedir_read_all: the whole decoded content of PATH (plain or gzip:
 * gzread passes plain files through), NUL-terminated, its length in
 * *LENP. Returns owned, or NULL. */
char *pagedir_read_all(const char *path, size_t *lenp);

/* pagedir_journal_lines: split BUF (LEN bytes) into complete lines and
 * call FN for each well-formed one with its parts, cut out of the line in
 * place, and the line itself: LINE, N bytes with its '\n' (NULs where it
 * was cut). Returns the number of bytes up to the last complete line. */
size_t pagedir_journal_lines(char *buf, size_t len,
                             void (*fn)(void *arg, const char *kind, int id,
                                        const char *a, const char *b,
                                        const char *line, size_t n),
                             void *arg);

#endif /* COMMON_PAGEDIR_INT_H */
