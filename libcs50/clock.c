/* clock.c: the monotonic clock; see clock.h. */
#include "clock.h"

#include <time.h>

double clock_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
