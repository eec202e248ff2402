/* seen_bench.c: memory of the crawler's seen set (libcs50/fptable.h).
 *
 * usage: seen_bench [N...]    (default: 1000000 5000000)
 * Inserts distinct URLs like the generated site's, 60 to 70 bytes each,
 * into one fptable set (value size 0, as the engine's) and, when the
 * count reaches each N, prints the RSS growth since the empty set (from
 * /proc/self/statm) per URL, the table's own bytes per URL, the peak RSS
 * so far and the insert rate (hashing included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fptable.h"

static long rss_bytes(void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL)
    return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
    resident = 0;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  long marks[16] = { 1000000, 5000000 };
  int nm = 2;
  if (argc > 1) {
    nm = 0;
    for (int i = 1; i < argc && nm < 16; i++)
      marks[nm++] = atol(argv[i]);
  }
  fptable_t *set = fptable_new(0, 0);
  if (set == NULL)
    return 1;
  long base = rss_bytes();
  double t0 = now();
  char url[256];
  long n = 0;
  for (int m = 0; m < nm; m++) {
    for (; n < marks[m]; n++) {
      int len =
        snprintf(url, sizeof url,
                 "http://127.0.0.%ld:38517/d%ld/section%ld/page%ld.html",
                 2 + n % 8, n / 100000, (n / 1000) % 100, n);
      uint64_t fp[2];
      fptable_hash128(url, (size_t)len, fp);
      if (fptable_insert(set, fp, NULL) != 1) {
        fprintf(stderr, "seen_bench: insert failed at %ld\n", n);
        return 1;
      }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long grow = rss_bytes() - base;
    printf("urls %ld: RSS growth %.1f MB = %.1f bytes/URL; table %.1f "
           "bytes/URL; peak RSS %ld MB; %.2f M inserts/s\n",
           n, grow / 1e6, (double)grow / n, (double)fptable_bytes(set) / n,
           ru.ru_maxrss / 1024, n / (now() - t0) / 1e6);
  }
  fptable_delete(set);
  return 0;
}
