# events_archive: archive.sh with --transfers events (web/xfer.h): SIGINT
# and kill -9 with transfers in flight in the event loop, then --resume,
# give the uninterrupted crawl byte for byte; replay and WARC as well.
TSE_TRANSFERS=events TAP_NAME=events_archive exec bash "$(dirname "$0")/archive.sh"
