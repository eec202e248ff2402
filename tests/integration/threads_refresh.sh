# threads_refresh: refresh.sh with --transfers threads: the conditional
# requests of --since made by download threads, not the event loop.
TSE_TRANSFERS=threads TAP_NAME=threads_refresh exec bash "$(dirname "$0")/refresh.sh"
