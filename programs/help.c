/* help.c: the crawler's usage line and --help text. See cmdline.h. */
#include "cmdline.h"

#include <stdio.h>

#include "crawler.h"

static const char *prog = CRAWLER_PROG;

void cmdline_usage_line(FILE *fp)
{
  fprintf(fp, "usage: %s [options] seedURL pageDirectory maxDepth\n", prog);
}

/* The help text is laid out as it prints. */
/* clang-format off */
/* help_crawl: what the crawler does, its arguments and the options of
 * the crawl itself. */
static void help_crawl(void)
{
  printf(
"\n"
"Crawl every page reachable from seedURL within maxDepth links, inside the\n"
"scope, and save each as pageDirectory/ID (1, 2, 3, ...): line 1 the URL,\n"
"line 2 the depth, then the page as served. The result is that of a plain\n"
"breadth-first crawl, byte for byte, whatever the worker counts.\n"
"\n"
"  seedURL         absolute http(s) URL; must be inside the scope\n"
"  pageDirectory   existing writable directory holding no crawl\n"
"  maxDepth        0 to %d\n"
"\n"
"Options:\n"
"  --download-workers N  at most N transfers at once (default: as many as\n"
"                        are due, up to %d and one per %d KiB of\n"
"                        --max-memory; 64 at --rate 0)\n"
"  --transfers MODE      events (one event loop, a socket a transfer; the\n"
"                        default unless $TSE_TRANSFERS says) or threads (a\n"
"                        thread a transfer: N of them with --download-workers\n"
"                        N, else 8 and more while pages are due, up to %d)\n"
"  --parse-workers N     threads parsing pages (default 2)\n"
"  --queue-size N        most URLs queued (in memory or on disk) or being\n"
"                        fetched; 0 = no bound (default 0)\n"
"  --rate R              requests per second per host (default 1);\n"
"                        0 = unlimited, only for servers you own\n"
"  --burst B             requests a host may get at once (default 1)\n"
"  --scope PREFIX        follow URLs starting with PREFIX; repeatable, any\n"
"                        number (default, if no --domain either:\n"
"                        scheme://host[:port]/ of seedURL)\n"
"  --domain D            follow URLs whose host is D or a subdomain of D\n"
"                        (example.edu: also cs.example.edu, never\n"
"                        badexample.edu), any scheme (http, https) and\n"
"                        port; an IP address matches only itself;\n"
"                        repeatable, any number. A URL is followed if any\n"
"                        --scope or any --domain admits it\n"
"  --seed URL            another seed, at depth 0 after seedURL (IDs in the\n"
"                        order given); repeatable; its site joins the\n"
"                        default scope\n"
"  --seeds FILE          the seeds in FILE, one URL a line ('#' comments)\n"
"  --sitemaps            also follow the URLs a seed's site lists in its\n"
"                        sitemaps (robots.txt Sitemap: lines, /sitemap.xml;\n"
"                        indexes and .gz too), as links of the seed\n"
"  --accept-regex RE     follow only links in scope whose normalised URL\n"
"                        matches RE (POSIX extended, unanchored); repeatable:\n"
"                        any one may match\n"
"  --reject-regex RE     follow no link whose normalised URL matches RE\n"
"                        (e.g. '[?]C=[NMSD]' for Apache's sort links);\n"
"                        repeatable. Neither applies to seedURL\n"
"  --user-agent S        User-Agent header (default: %s)\n"
"  --header 'NAME: VALUE'  send this header (a cookie, credentials) with\n"
"                        every request to a seed's host, robots.txt included,\n"
"                        never over http to an https seed's; repeatable;\n"
"                        never logged nor recorded in the marker (a WARC\n"
"                        file records it)\n"
"  --max-pages N         stop after saving N pages; 0 = no limit (default)\n"
"  --max-pages-per-host N  save at most N pages of any one host; 0 = no\n"
"                        limit (default)\n"
"  --timeout SECONDS     per request (default 30)\n"
"  --retries N           retries of timeouts, connection failures, 5xx and\n"
"                        429, with exponential back-off (default 2)\n"
"  --max-page-size BYTES larger pages are abandoned (default 10485760)\n"
"  --max-memory BYTES    what waits for its turn (links found, URLs queued,\n"
"                        pages fetched ahead) beyond BYTES waits on disk,\n"
"                        in pageDirectory, and a body arriving waits for\n"
"                        room; 0 = no limit (default 536870912)\n",
         MAX_DEPTH, WEBCRAWL_EVENTS_MAX, WEBCRAWL_TRANSFER_MEMORY / 1024,
         DEFAULT_DOWNLOAD_MAX, DEFAULT_UA);
}

/* help_rest: TLS, archiving, sharing, output, and the exit statuses. */
static void help_rest(void)
{
  fputs(
"  --ca-certificate FILE trust the certificate authorities in FILE (PEM),\n"
"                        instead of the system's\n"
"  --ca-directory DIR    trust those in DIR (named by hash: openssl\n"
"                        rehash DIR), instead of the system's\n"
"  --no-check-certificate  check no TLS certificate: anyone on the way\n"
"                        can read and change the pages; test servers only\n"
"  --format F            html, link or auto: link format for text/plain\n"
"                        pages, HTML otherwise (default auto)\n"
"  --ignore-robots       ignore robots.txt, meta robots and X-Robots-Tag;\n"
"                        only for sites you own\n"
"  --respect-rel-nofollow  do not follow links marked rel=\"nofollow\"\n"
"  --compress            write each page file gzip-compressed (zcat shows it)\n"
"  --fsync               fsync every page before it gets its ID (survives a\n"
"                        power failure; costs a disk flush per page)\n"
"  --replay SAVED_DIR    fetch from a saved pageDirectory instead of the\n"
"                        network (a URL not in it is a broken link); no\n"
"                        politeness delay, no robots.txt\n"
"  --since OLD_DIR       refresh: crawl anew, asking for each page OLD_DIR\n"
"                        (a complete crawl) saved only if it changed\n"
"                        (ETag, Last-Modified); on 304 its copy is reused\n"
"  --warc FILE.warc.gz   also record every HTTP exchange, as received, in a\n"
"                        WARC/1.1 file (appended to on --resume)\n"
"  --resume              continue an interrupted crawl in pageDirectory\n"
"                        (same seedURL, maxDepth and every option the\n"
"                        marker records: scope, domain, regexes, format,\n"
"                        page limits, robots options, user agent, --since)\n"
"  --cluster redis://HOST[:PORT][/DB]  run as one worker of a crawl shared\n"
"                        with other crawler processes, on any machines,\n"
"                        through Redis (--crawl-name names it); the first\n"
"                        creates it, the others join; pageDirectory must\n"
"                        be the same directory for all (a shared mount)\n"
"  --crawl-name NAME     the shared crawl (letters, digits, '-', '_', '.')\n"
"  --lease-timeout SECONDS  a worker that stops answering loses its hosts\n"
"                        and the commit after this long (default 10)\n"
"  --status              with --cluster and --crawl-name, and no\n"
"                        arguments: print the shared crawl's state\n"
"  --log                 one line per event on stdout (CS50 layout)\n"
"  --log-file FILE       append every event to FILE, robots.txt fetches\n"
"                        included: ISO 8601 UTC time, depth, event, URL\n"
"  -q, --quiet           no summary and no status line\n"
"  --stats               add the engine's figures to the summary (memory\n"
"                        budget, politeness bound, Redis round trips)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Exit status: 0 done; 1 bad usage; 2 bad seedURL; 3 bad pageDirectory\n"
"(or, with --cluster, an option that differs from the shared crawl's);\n"
"4 bad maxDepth; 5 interrupted; 6 a page could not be written; 7 out of\n"
"memory or threads; 8 the seed page was not saved (the last line on\n"
"stderr says why: its HTTP status, the network or TLS error, robots.txt);\n"
"9 --cluster: Redis cannot be reached, or the shared crawl failed;\n"
"10 --status: the shared crawl is still running (0: complete).\n",
         stdout);
}
/* clang-format on */

void cmdline_help(void)
{
  cmdline_usage_line(stdout);
  help_crawl();
  help_rest();
}
