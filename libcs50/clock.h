/* clock.h: the project's one clock.
 *
 * Every deadline, token bucket and timeout in the crawler is measured on
 * the monotonic clock, so a change of the wall clock (NTP, a user) moves
 * none of them.
 */
#ifndef LIBCS50_CLOCK_H
#define LIBCS50_CLOCK_H

/* clock_now: seconds on the monotonic clock (CLOCK_MONOTONIC), from an
 * arbitrary origin fixed while the process runs. Any thread. */
double clock_now(void);

#endif /* LIBCS50_CLOCK_H */
