# threads_tls: tls.sh with --transfers threads: the same checks, the
# transfers run by download threads instead of the event loop.
TSE_TRANSFERS=threads TAP_NAME=threads_tls exec bash "$(dirname "$0")/tls.sh"
