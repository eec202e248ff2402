# events_failures: failures.sh with --transfers events (web/xfer.h): the same
# checks, the transfers run by the event loop instead of threads.
TSE_TRANSFERS=events TAP_NAME=events_failures exec bash "$(dirname "$0")/failures.sh"
