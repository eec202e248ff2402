/* scope.h: which URLs a crawl follows, asked once per link.
 *
 * A scope is a set of URL prefixes and a set of domains, built once by
 * scope_new and read-only afterwards. A URL is in scope when it matches
 * any prefix OR any domain:
 *   - prefix: the URL starts with it, byte for byte (a plain prefix
 *     match: "http://h/a" also admits "http://h/ab"; end a prefix with
 *     '/' to mean a directory), so scheme, userinfo, host and port must
 *     be the prefix's;
 *   - domain: the URL's host is the domain or a subdomain of it, aligned
 *     on labels ("example.edu" admits "example.edu" and "cs.example.edu",
 *     not "badexample.edu"), whatever the scheme (http or https), port
 *     and userinfo; one trailing dot of the host is ignored
 *     ("example.edu." is "example.edu"). An IP address (a host of digits
 *     and dots only, or an IPv6 literal in brackets) has no subdomains
 *     and is no subdomain: as a domain it admits that address alone, and
 *     a URL's address is only ever compared whole ("1.2.3.4" does not
 *     admit "a.1.2.3.4").
 *
 * Cost of scope_contains, whatever the number of prefixes and domains
 * (no entry is ever scanned):
 *   - prefixes: one hash lookup of the URL's "scheme://authority", then a
 *     binary search among the prefixes of that authority alone: prefixes
 *     on N hosts cost one lookup, K prefixes on one host log2(K)
 *     comparisons;
 *   - domains: one hash lookup per label-aligned suffix of the URL's host
 *     that is no longer than the longest domain, so a hostile host of a
 *     thousand labels costs no more than a plain one.
 * No allocation; a copy of the authority or host on the stack (at most
 * URL_MAX_LEN bytes).
 *
 * Memory: scope_new copies what it is given; scope_delete frees it.
 *
 * Thread-safety: scope_new on any thread. Once built a scope is never
 * written, so any number of threads may call scope_contains on it at
 * once, without a lock, until scope_delete. */
#ifndef COMMON_SCOPE_H
#define COMMON_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct scope scope_t;

/* scope_new: the scope of NP prefixes and ND domains.
 * Caller provides: prefixes, borrowed array of borrowed strings, each a
 *   URL in normal form (url_normalize, url_scope_default); domains,
 *   borrowed array of borrowed strings, each from url_host_normalize.
 *   Neither is normalised here (the cost stays per scope, not per link).
 *   NULL entries are skipped; an array may be NULL when its count is 0.
 *   Duplicates, and prefixes another prefix already covers, are fine.
 * Returns: owned by caller (scope_delete); NULL with errno EINVAL if a
 *   prefix has no "scheme://authority/", a domain is empty, or either is
 *   longer than URL_MAX_LEN; ENOMEM if memory runs out. With no prefix
 *   and no domain the scope admits nothing.
 * Thread-safety: any thread. */
scope_t *scope_new(const char *const *prefixes, size_t np,
                   const char *const *domains, size_t nd);

/* scope_contains: is url in s (see the top of this file)?
 * Caller provides: s from scope_new, borrowed; url, borrowed, in normal
 *   form (url_normalize, url_resolve_normalized, url_base_resolve). NULL
 *   for either gives false.
 * Returns: true if url matches a prefix or a domain of s.
 * Thread-safety: any thread, concurrently with any other scope_contains
 *   on s; reads only. */
bool scope_contains(const scope_t *s, const char *url);

/* scope_delete: free s and everything it holds; NULL is fine.
 * Thread-safety: any thread, once no other thread uses s. */
void scope_delete(scope_t *s);

#endif /* COMMON_SCOPE_H */
