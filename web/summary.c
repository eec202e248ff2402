/* summary.c: see summary.h. */
#include "summary.h"

#include <stdio.h>
#include <sys/resource.h>

/* print_tally: T's causes on stderr, one a line, "LABEL: N x CAUSE". */
static void print_tally(const char *prog, const char *label, const tally_t *t)
{
  for (size_t i = 0; i < t->n; i++)
    fprintf(stderr, "%s: %s: %ld x %s\n", prog, label, t->v[i].n, t->v[i].what);
  if (t->other > 0)
    fprintf(stderr, "%s: %s: %ld x other causes (--log names each)\n", prog,
            label, t->other);
}

/* s: the plural ending for N things. */
static const char *s(long n)
{
  return n == 1 ? "" : "s";
}

void summary_print(const char *prog, const webcrawl_opts_t *o, const char *dir,
                   const char *warc_path, const webcrawl_stats_t *st,
                   bool stats)
{
  /* A limit that ended the crawl, first: what follows is not all the
   * crawl would have saved. */
  if (o->max_pages > 0 && st->saved >= o->max_pages)
    fprintf(stderr, "%s: the crawl stopped at --max-pages %ld\n", prog,
            o->max_pages);
  fprintf(stderr,
          "%s: saved %ld page%s (%lld bytes) in '%s' in %.2f s, "
          "%.1f pages/s\n"
          "%s: fetched %ld, failed %ld (http %ld, network %ld, not a page "
          "%ld, binary %ld, too large %ld), redirects %ld, retries %ld\n",
          prog, st->saved, s(st->saved), st->bytes, dir, st->elapsed,
          st->elapsed > 0 ? st->saved / st->elapsed : 0.0, prog, st->fetched,
          st->failed, st->http_errors, st->net_errors, st->wrong_type,
          st->binary, st->too_large, st->redirects, st->retries);
  /* Seeds that failed while others were saved: the crawl stands (exit
   * 0), but the user asked for them. */
  if (st->seed_saved && st->seeds_failed > 0)
    fprintf(stderr, "%s: %ld of %zu seeds not saved; the first, '%s': %s\n",
            prog, st->seeds_failed, o->nseeds, st->seed_failed, st->seed_why);
  /* What the default scope became: the seed's site, and the sites its
   * own redirects went to. */
  if (o->widen != NULL) {
    fprintf(stderr, "%s: scope: the seed's site,", prog);
    for (size_t i = 0; i < o->nwiden; i++)
      fprintf(stderr, " %s%s", o->widen[i], i + 1 < o->nwiden ? "," : "");
    if (st->scope_added[0] != '\0')
      fprintf(stderr, "; the sites the seed redirects to, %s", st->scope_added);
    fputc('\n', stderr);
  }
  /* Why, next to how many: the log has the message of each. */
  print_tally(prog, "failed", &st->failures);
  print_tally(prog, "not fetched", &st->unreachable);
  fprintf(stderr,
          "%s: ignored links: duplicate %ld, external %ld, non-page %ld, "
          "invalid %ld, rel=nofollow %ld, trap %ld, filtered %ld; over the "
          "per-host limit %ld\n"
          "%s: robots: %ld robots.txt fetched, %ld failed; %ld URLs "
          "disallowed, %ld not fetched as their host or its robots.txt was "
          "unreachable; %ld pages noindex, %ld nofollow\n",
          prog, st->ign_dupl + st->dup_redirects, st->ign_extern,
          st->ign_nonpage, st->ign_invalid, st->ign_rel_nofollow, st->ign_trap,
          st->ign_filtered, st->ign_host_limit, prog, st->robots_fetched,
          st->robots_failed, st->ign_robots, st->ign_unreachable, st->noindex,
          st->nofollow);
  if (o->since != NULL)
    fprintf(stderr,
            "%s: refresh: %ld reused (304), %ld refetched, %ld new, %ld "
            "gone; %lld bytes received for %lld bytes saved\n",
            prog, st->reused, st->refetched, st->fresh, st->gone, st->received,
            st->bytes);
  if (o->since != NULL && st->earlier > 0)
    fprintf(stderr,
            "%s: refresh: %ld pages saved by the interrupted run, not "
            "counted by kind above\n",
            prog, st->earlier);
  if (o->sitemaps)
    fprintf(stderr, "%s: sitemaps: %ld read, %ld failed\n", prog,
            st->sitemaps_fetched, st->sitemaps_failed);
  if (o->warc != NULL)
    fprintf(stderr, "%s: %ld WARC records in '%s'\n", prog, st->warc_records,
            warc_path);
  double rps = st->elapsed > 0 ? st->requests / st->elapsed : 0;
  if (!stats) {
    fprintf(stderr, "%s: %ld request%s to %ld host%s, %.1f/s\n", prog,
            st->requests, s(st->requests), st->hosts, s(st->hosts), rps);
    return;
  }
  if (st->worker[0] != '\0')
    fprintf(stderr,
            "%s: cluster: worker %s: %ld Redis round trips (%.2f per page "
            "of the crawl)\n",
            prog, st->worker, st->round_trips,
            st->saved > 0 ? (double)st->round_trips / (double)st->saved : 0.0);
  struct rusage ru;
  long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
  fprintf(stderr,
          "%s: memory: budget %zu bytes, peak %zu held; spilled %lld bytes "
          "to disk (peak %lld at once); peak RSS %ld KiB\n",
          prog, o->max_memory, st->mem_peak, st->spilled, st->spill_peak, rss);
  /* The most a polite crawl could do: B + R*t requests per host, each
   * host counted from when it was found. */
  double bound = st->elapsed > 0 ? st->bound / st->elapsed : 0;
  if (o->rate > 0 && bound > 0)
    fprintf(stderr,
            "%s: politeness: %ld request%s to %ld host%s, %.1f/s; "
            "the bound (%g + %g/s x t per host, from when it was found) "
            "allows %.1f/s: %.0f%% of it\n",
            prog, st->requests, s(st->requests), st->hosts, s(st->hosts), rps,
            o->burst, o->rate, bound, 100 * rps / bound);
  else
    fprintf(stderr,
            "%s: %ld request%s to %ld host%s, %.1f/s (no rate "
            "limit)\n",
            prog, st->requests, s(st->requests), st->hosts, s(st->hosts), rps);
}
