#!/usr/bin/env bash
# Starts dorissim with its demo workload, waits until it is ready, then runs
# config/database_to_stdout.yaml, which prints the snapshots of demo.orders and
# demo.customers and then their live changes.
# Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp -t dorissim.XXXXXX.log)
ready=$(mktemp -t dorissim.XXXXXX.ready)
./bin/dorissim --demo >"$ready" 2>"$log" &
sim=$!
trap 'kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null; rm -f "$ready"' EXIT

for _ in $(seq 1 100); do
	if grep -q '^dorissim ready' "$ready"; then break; fi
	if ! kill -0 "$sim" 2>/dev/null; then
		echo "dorissim exited early; its log ($log):" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
if ! grep -q '^dorissim ready' "$ready"; then
	echo "dorissim did not become ready within 10s; its log: $log" >&2
	exit 1
fi
cat "$ready" >&2
echo "Streaming every table of the demo database (snapshots, then live changes: each transaction changes demo.orders and demo.customers). Press Ctrl-C to stop." >&2
./bin/rpconnect-doris run -r resources/offsets_memory_cache.yaml config/database_to_stdout.yaml
