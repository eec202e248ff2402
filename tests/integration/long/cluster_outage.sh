# cluster_outage, soaked: the Redis outage of ../cluster_outage.sh six
# times over rather than twice (each one a new crawl, the outage at a
# slightly different point of it).
OUTAGE_TRIES=${OUTAGE_TRIES:-1 2 3 4 5 6} exec bash "$(dirname "$0")/../cluster_outage.sh"
