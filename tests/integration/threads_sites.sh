# threads_sites: sites.sh with --transfers threads: the same checks, the
# transfers run by download threads instead of the event loop.
TSE_TRANSFERS=threads TAP_NAME=threads_sites exec bash "$(dirname "$0")/sites.sh"
