# Sourced by Tools/reliability/soak.sh, from the repository root. Whole walks: seed 7, whose cursor of page
# 5 starts with '/', and two large pages with a truncation.

# Seed 7's cursor of page 5 is base64 that starts with '/', which the contract reads as a path: the
# server sends it as "~/7H8JH0esHOqD5mO5g==" (92f1e2e, found by this soak). The walk must reach every note.
slash_cursor() {
    current="seed-7-slash-cursor"
    step_failed=0
    local dir=$work/$runs-slash
    mkdir -p "$dir"
    start_server "$dir" --seed 7
    fetch "$dir" yes "$server_url" -o "$dir/out.ids" --format ids
    stop_server
    check_exit 0 "$current"
    if ! seq -f 'n%g' 0 $((count - 1)) | cmp -s - "$dir/out.ids"; then
        output_failures=$((output_failures + 1))
        fail "$current: the ids are not n0 … n$((count - 1)) in order, each once ($(wc -l <"$dir/out.ids") lines)"
    fi
    check_token "$dir" "$current"
    note_row "seed-7-slash-cursor" "$(fired "$dir/server.log")"
}

# Large pages (20,000 notes in 2 pages of about 1.4 MB), once with a reset mid-page: the client streams
# them, so its peak memory stays near the small-page runs'. Checked by ids, n0 … n19999 in order.
big_pages() {
    local style=$1 big=20000
    current="big-pages ($style)"
    step_failed=0
    local dir=$work/$runs-big
    mkdir -p "$dir"
    NOTES_SERVER_TOKEN=$token node Tools/fixture-server/notes-server.mjs --count "$big" --page-size 10000 --seed "$notes_seed" \
        --style "$style" --fault "truncate:500000@2x1" >"$dir/server.out" 2>"$dir/server.log" &
    server_pid=$!
    servers+=("$server_pid")
    wait_for_server "$dir"
    # shellcheck disable=SC2046
    fetch "$dir" yes "$server_url" -o "$dir/out.ids" --format ids $(style_args "$style")
    stop_server
    check_exit 0 "$current"
    if ! seq -f 'n%g' 0 $((big - 1)) | cmp -s - "$dir/out.ids"; then
        output_failures=$((output_failures + 1))
        fail "$current: the ids are not n0 … n$((big - 1)) in order, each once ($(wc -l <"$dir/out.ids") lines)"
    fi
    check_token "$dir" "$current"
    note_row "big-pages" "$(fired "$dir/server.log")"
}
