#!/usr/bin/env bash
# Usage: Tools/first-try.sh [NOTES_PAGE]
#
# A new user's first try: `notes-page fetch --all --format ids URL`, with no options at all, against every
# endpoint of the real framework apps of Tools/ that make deps installs (2,000 notes each, every 97th
# deleted: 1,980 served). Prints one line per endpoint: its exit code, the records written, how many of
# them are unique, and the first error line. NOTES_PAGE defaults to .build/release/notes-page.
set -uo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/notes-page}
[ -x "$binary" ] || { echo "first-try: no $binary (swift build -c release)" >&2; exit 66; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

endpoints() {
    case $1 in
    kinto) echo "/v1/buckets/notes/collections/notes/records" ;;
    smorest | eve) echo "/notes" ;;
    litestar) echo "/classic /offset /cursor" ;;
    pygeoapi) echo "/collections/notes/items?f=json" ;;
    django-apis) echo "/ninja/notes /tastypie/api/v1/note/ /wagtail/api/v2/pages/" ;;
    fastapi) echo "/page /limit-offset /links /cursor" ;;
    drf) echo "/limitoffset/ /pagenumber/ /cursor/ /jsonapi/" ;;
    datasette) echo "/notes/notes.json?_shape=objects" ;;
    esac
}

printf '| endpoint | exit | records | unique | error |\n|---|---|---|---|---|\n'
for app in kinto smorest eve litestar pygeoapi django-apis fastapi drf datasette; do
    python3 "Tools/apps/$app/server.py" --count 2000 --quiet >"$scratch/url" 2>/dev/null &
    server=$!
    for _ in $(seq 600); do [ -s "$scratch/url" ] && break; sleep 0.1; done
    url=$(head -n 1 "$scratch/url")
    if [ -z "$url" ]; then
        echo "| $app | not started (Tools/apps/$app/install.sh) | | | |"
        kill "$server" 2>/dev/null
        continue
    fi
    for path in $(endpoints "$app"); do
        "$binary" fetch --all --format ids "$url$path" >"$scratch/out" 2>"$scratch/err"
        status=$?
        error=$(grep -m 1 '^Error' "$scratch/err" | cut -c 1-100)
        printf '| %s `%s` | %s | %s | %s | %s |\n' "$app" "$path" "$status" "$(wc -l <"$scratch/out")" \
            "$(sort -u "$scratch/out" | wc -l)" "$error"
    done
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    : >"$scratch/url"
done
