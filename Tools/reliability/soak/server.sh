# Sourced by Tools/reliability/soak.sh, from the repository root. The fixture server, one per scenario, and
# the client runs against it, each under GNU time for its peak memory.

server_pid=""
server_url=""
# start_server DIR ARGS...: a fresh server for one scenario; its log goes to DIR/server.log.
start_server() {
    local dir=$1
    shift
    NOTES_SERVER_TOKEN=$token node Tools/fixture-server/notes-server.mjs --count "$count" --page-size "$page_size" \
        "$@" >"$dir/server.out" 2>"$dir/server.log" &
    server_pid=$!
    servers+=("$server_pid")
    wait_for_server "$dir"
}

# wait_for_server DIR: sets $server_url from the server's first line of output, or ends the soak.
wait_for_server() {
    local dir=$1
    # Node prints its URL within a second here; a loaded machine can take much longer, so wait up to 60 s
    # while the process lives (a server that exits says why in its log).
    local i
    for i in $(seq 3000); do
        [ -s "$dir/server.out" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.02
    done
    server_url=$(head -n 1 "$dir/server.out")
    if [ -z "$server_url" ]; then
        local how="still running after 60 s"
        if ! kill -0 "$server_pid" 2>/dev/null; then
            wait "$server_pid"
            how="exited with status $?"
        fi
        echo "soak: the server did not start ($how): $(head -c 300 "$dir/server.log")" >&2
        exit 1
    fi
}

stop_server() {
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    local kept=()
    local pid
    for pid in "${servers[@]}"; do [ "$pid" != "$server_pid" ] && kept+=("$pid"); done
    servers=("${kept[@]}")
}

peak_kb=0
peak_where=""
rss_failures=0
# record_rss FILE WHERE: reads GNU time's %M (KiB, the last line) and keeps the peak.
record_rss() {
    local kb
    kb=$(tail -n 1 "$1" 2>/dev/null | tr -dc 0-9)
    [ -n "$kb" ] || return 0
    if [ "$kb" -gt "$peak_kb" ]; then
        peak_kb=$kb
        peak_where=$2
    fi
    if [ "$kb" -gt $((max_rss_mb * 1024)) ]; then
        fail "$2: peak RSS $((kb / 1024)) MB over the $max_rss_mb MB bound"
        rss_failures=$((rss_failures + 1))
    fi
}

# fetch DIR TOKEN(yes|no) ARGS...: one client run in the foreground; sets $rc; files DIR/run<N>.*.
runs=0
fetch() {
    local dir=$1 with_token=$2
    shift 2
    runs=$((runs + 1))
    local prefix=$dir/run$runs
    local env=(env -u NOTES_TOKEN -u NOTES_URL)
    [ "$with_token" = yes ] && env+=(NOTES_TOKEN="$token")
    "${env[@]}" /usr/bin/time -f %M -o "$prefix.rss" timeout -s KILL "$run_limit" "$bin" fetch --all "$@" \
        >"$prefix.stdout" 2>"$prefix.stderr" </dev/null
    rc=$?
    last_prefix=$prefix
    record_rss "$prefix.rss" "$current"
}
