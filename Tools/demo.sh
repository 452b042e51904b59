#!/usr/bin/env bash
# make demo: generate 100,000 notes, serve them on loopback, fetch every page, print a summary.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT=${COUNT:-100000}
work=$(mktemp -d "${TMPDIR:-/tmp}/notes-demo.XXXXXX")
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

bin=$(swift build -c release --show-bin-path)
echo "Generating $COUNT notes in pages of 1,000 ..."
"$bin/notes-gen" --count "$COUNT" --page-size 1000 --seed 42 --out "$work/pages"

node Tools/fixture-server/notes-server.mjs --dir "$work/pages" --port 0 --quiet > "$work/server.out" &
server=$!
for _ in $(seq 100); do [ -s "$work/server.out" ] && break; sleep 0.05; done
url=$(head -n 1 "$work/server.out")
echo "Serving them at $url"

echo "notes-page fetch --all $url -o notes.ndjson --state state.json"
"$bin/notes-page" fetch --all "$url" -o "$work/notes.ndjson" --state "$work/state.json"

lines=$(wc -l < "$work/notes.ndjson")
unique=$("$bin/notes-page" decode --format ids --max-page-bytes 1G --max-page-notes 10000000 \
    < <(printf "["; paste -sd, "$work/notes.ndjson"; printf "]") 2>/dev/null | sort -u | wc -l)
echo "Wrote $lines notes, $unique distinct ids; first note:"
head -n 1 "$work/notes.ndjson"
