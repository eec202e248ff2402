# threads_archive: archive.sh with --transfers threads (a download thread
# a transfer, not the default event loop): SIGINT and kill -9 with
# transfers in flight in threads, then --resume, give the uninterrupted
# crawl byte for byte; replay and WARC as well.
TSE_TRANSFERS=threads TAP_NAME=threads_archive exec bash "$(dirname "$0")/archive.sh"
