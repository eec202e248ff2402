# threads_inflight: inflight.sh with --transfers threads: the same checks
# (200 slow hosts in flight at once), made by the elastic pool's threads.
TSE_TRANSFERS=threads TAP_NAME=threads_inflight exec bash "$(dirname "$0")/inflight.sh"
