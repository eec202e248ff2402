# events_refresh: refresh.sh with --transfers events (web/xfer.h): the
# conditional requests of --since made by the event loop, not threads.
TSE_TRANSFERS=events TAP_NAME=events_refresh exec bash "$(dirname "$0")/refresh.sh"
