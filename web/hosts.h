/* hosts.h: what the crawl knows of each host, and the host policy that
 * reads it (internal): the host's robots.txt rules, fetched at its gate
 * (RFC 9309), and the number of its pages saved (--max-pages-per-host).
 *
 * Hosts are named by the frontier's host ids (fitem_t.host). The table is
 * this module's: it grows as new ids are asked about, and hosts.c keeps
 * the lock and the rule of who writes what next to the data.
 *
 * robots.txt at the gate (frontier.h, Gates). The gate item of a new host
 * is handled in two halves around the request, which the caller makes
 * (it is a request like any other: counted, archived):
 *     hosts_gate_begin -> fetch the URL it gives -> hosts_gate_end
 * 2xx: the rules of our product token; 3xx: up to 5 hops, each a new gate
 * item, each a request charged to the host it goes to: the host's token
 * (the gate item's), or for a hop to another host that host's, which the
 * gate waits for (frontier_host_take); 4xx but 429, or redirects without
 * end: no restrictions; 5xx, 429 or a network failure: the gate again
 * after a back-off (or the Retry-After of a 429 or 503,
 * hosts_retry_delay), up to RETRIES times, then nothing of the host is
 * allowed (DESIGN.md, robots.txt, says why). A Crawl-delay above 60 s
 * skips the whole host; a lower one slows it down
 * (frontier_host_interval). The host is opened once its rules are known.
 *
 * A cache of answers (hosts_cache_t), where the crawl is shared with
 * other processes, is asked before each request and told each answer:
 * the gate alone decides what an answer means.
 *
 * Thread-safety: every function: any thread. The module takes its lock
 * inside each call and holds it across no call out of the module: no
 * parse, no frontier call, no I/O. */
#ifndef CRAWLER_HOSTS_H
#define CRAWLER_HOSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "fetch.h"
#include "frontier.h"
#include "robots.h"

typedef struct hosts hosts_t;

/* A cache of robots.txt answers: those asked for already, by this
 * process or another of the crawl. It finds and keeps answers; what one
 * means for a host is the gate's. Each call: CTX is the cache's
 * (hosts_cache_t); HOSTKEY (borrowed) the url_host_key of the host whose
 * gate asks; URL (borrowed) the robots.txt URL asked, the host's own or
 * where a redirect led. Thread-safety: any thread (the download thread
 * holding the host's gate item), without the table's lock. */
typedef struct hosts_cache_ops {
  /* find: the answer to URL kept for HOSTKEY's gate, into *R (owned
   * by the caller then: fetch_result_free): true if there is one (and
   * no request is made). The gate takes it as settled: an unreachable
   * one skips the host at once, its tries spent where it was asked. */
  bool (*find)(void *ctx, const char *hostkey, const char *url,
               fetch_result_t *r);
  /* keep: R (borrowed), the answer to URL fetched for HOSTKEY's gate,
   * before the frontier hears of it. LAST: an unreachable robots.txt
   * (hosts_robots_unreachable) after which the host is skipped, no try
   * being left (or none mending it: fetch_result_t.final); kept, the
   * host is skipped wherever it goes next, not asked again there with
   * its tries counted afresh. AGAIN: the seconds until the gate asks
   * again after a failure (Retry-After, or the back-off), else 0. */
  void (*keep)(void *ctx, const char *hostkey, const char *url,
               const fetch_result_t *r, bool last, double again);
} hosts_cache_ops_t;

/* A cache: its calls and their context; OPS NULL for none. */
typedef struct hosts_cache {
  const hosts_cache_ops_t *ops;
  void *ctx;
} hosts_cache_t;

/* hosts_new: an empty table. USER_AGENT (borrowed; must outlive the
 * table) names us in robots.txt (robots_parse uses its product token);
 * RETRIES is how often an unreachable robots.txt is asked again;
 * MAX_PAGES the pages saved per host at most (0: no limit). ROBOTS says
 * whether robots.txt applies at all, which is whether the frontier gates
 * hosts: without it hosts_forbids forbids nothing. CACHE (copied; NULL
 * for none) is the gates' cache of answers; its context must outlive
 * the table.
 * Returns: owned by caller (hosts_delete), NULL if out of memory.
 * Thread-safety: any thread. */
hosts_t *hosts_new(const char *user_agent, int retries, long max_pages,
                   bool robots, const hosts_cache_t *cache);

/* hosts_gate_begin: the first half of the gate item IT (borrowed) of a
 * host: the robots.txt URL to fetch now (the host's /robots.txt, or where
 * the last one redirected to). ASK false: nothing of the host will be
 * fetched (the crawl's --max-pages is reached), so robots.txt is not
 * asked for, and the host opens as if it had none.
 * Returns: true with *URL owned by the caller, to be fetched now and
 *   handed to hosts_gate_end. False if there is no request to make now:
 *   no robots.txt URL could be made (the host is skipped and opened);
 *   the host's robots.txt was unreachable in the crawl resumed
 *   (hosts_replay_unreachable: the host is skipped and opened); ASK is
 *   false (the host is opened); the cache had the answer (taken as
 *   hosts_gate_end takes one, but settled: see hosts_cache_ops_t; no
 *   token is charged for a request not made); the URL is a redirect
 *   target on another host that may not be
 *   fetched yet (the gate is asked for again when it may); or out of
 *   memory (the gate is asked for again in a second).
 * Thread-safety: any thread; the one that holds IT. */
bool hosts_gate_begin(hosts_t *h, frontier_t *fr, const fitem_t *it, bool ask,
                      char **url);

/* hosts_replay_unreachable: make the host KEY (a url_host_key; borrowed)
 * one whose robots.txt could not be fetched, for WHY (borrowed; copied;
 * starting with HOSTS_UNREACHABLE), as an interrupted crawl found it:
 * its gate then asks nothing of the network and skips the host for WHY,
 * so that its URLs come out as they did (store.h, Outcomes). A host
 * given twice keeps the first WHY.
 * Returns: 0, or -1 if out of memory.
 * Thread-safety: before the crawl starts (the table it fills is read
 * without the lock afterwards). */
int hosts_replay_unreachable(hosts_t *h, const char *key, const char *why);

/* hosts_robots_unreachable: whether R, a robots.txt response, means the
 * file is unreachable (RFC 9309 2.3.1.4: 5xx, network failure; and 429),
 * so that the gate is retried and, at the last attempt, the host
 * disallowed. The one classification: hosts_gate_end acts on it and the
 * crawl's counts report it. Thread-safety: any thread. */
bool hosts_robots_unreachable(const fetch_result_t *r);

/* hosts_gate_end: the second half: what the response R to URL says for
 * the host of IT (borrowed): its rules are set and the host is opened
 * (frontier_gate_done), or the gate is asked for again (frontier_
 * gate_retry) after a redirect (at once) or a failure (after a back-off).
 * The cache, if any, keeps R first. URL is adopted (freed); R's contents
 * are freed (fetch_result_free), so archive the exchange first.
 * Thread-safety: any thread; the one that holds IT. */
void hosts_gate_end(hosts_t *h, frontier_t *fr, const fitem_t *it, char *url,
                    fetch_result_t *r);

/* The reason hosts_forbids gives for every URL of a host whose robots.txt
 * could not be fetched starts with one of these: its robots.txt answered
 * with an error (5xx, 429), or the host did not answer at all (the
 * network, DNS, TLS). hosts_is_unreachable tells a reason of either. */
#define HOSTS_UNREACHABLE "robots.txt unreachable"
#define HOSTS_NET_UNREACHABLE "host unreachable"

/* hosts_is_unreachable: whether the reason WHY (borrowed) is one of a
 * host whose robots.txt could not be fetched. Thread-safety: any. */
bool hosts_is_unreachable(const char *why);

/* hosts_forbids: why robots.txt keeps the URL with path and query PATH
 * (borrowed; as robots_allowed takes it) on host HOST from being fetched,
 * or NULL if it does not. Called for page items, which the frontier hands
 * out only once their host's gate is done.
 * Returns: text valid until hosts_delete ("disallowed by robots.txt",
 *   "robots.txt unreachable: " or "host unreachable: " and the last
 *   failure's reason, from fetch_result_t.error, "out of memory", ...),
 *   or NULL.
 * Thread-safety: any thread. */
const char *hosts_forbids(hosts_t *h, uint32_t host, const char *path);

/* hosts_robots: the robots.txt rules of HOST once it is open (its
 * Sitemap: lines: robots_sitemap), borrowed, valid until hosts_delete;
 * NULL if robots.txt does not apply, the host is not open yet, or none
 * was had. Thread-safety: any thread. */
const robots_t *hosts_robots(hosts_t *h, uint32_t host);

/* hosts_full: whether HOST has had its MAX_PAGES pages saved; always
 * false without a limit. Out of memory reads as not full.
 * Thread-safety: any thread. */
bool hosts_full(hosts_t *h, uint32_t host);

/* hosts_count_saved: count a page of HOST saved. Only a host already in
 * the table is counted: with a limit, hosts_full has put every host of a
 * fetched page there; without one, no count is ever read.
 * Thread-safety: any thread; the crawler calls it from commit. */
void hosts_count_saved(hosts_t *h, uint32_t host);

/* hosts_backoff: seconds to wait before retry ATTEMPT (1, 2, 3, ...) of
 * anything on a host: 1, 2, 4, ..., at most 64.
 * Thread-safety: any thread. */
double hosts_backoff(int attempt);

/* hosts_overloaded: whether the response R (borrowed) asks the whole host
 * to wait: a 429 (too many requests) or a 503 (overloaded, down for
 * maintenance). The host is then paused for hosts_retry_delay, whether or
 * not the request is tried again (DESIGN.md, Politeness).
 * Thread-safety: any thread. */
bool hosts_overloaded(const fetch_result_t *r);

/* hosts_retry_delay: seconds to leave the host of the response R
 * (borrowed) to attempt ATTEMPT (1, 2, 3, ...) alone: its Retry-After, at
 * most 60 s, when R is a 429 or 503 that has one; else hosts_backoff.
 * Thread-safety: any thread. */
double hosts_retry_delay(const fetch_result_t *r, int attempt);

/* hosts_delete: free H and every host's rules; NULL is fine.
 * Thread-safety: any thread, once no other thread uses H. */
void hosts_delete(hosts_t *h);

#endif /* CRAWLER_HOSTS_H */
