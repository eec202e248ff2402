# threads_failures: failures.sh with --transfers threads: the same
# checks, the transfers run by download threads instead of the event loop.
TSE_TRANSFERS=threads TAP_NAME=threads_failures exec bash "$(dirname "$0")/failures.sh"
