#!/usr/bin/env bash
# Usage: Tools/watchdog.sh SECONDS COMMAND [ARGUMENT...]
#
# Runs COMMAND; if it is still running after SECONDS, prints what every process under it is doing (the
# command line, the kernel's wait channel and, with gdb installed, every thread's stack), kills them all
# and exits 124. Otherwise exits with COMMAND's status. A hang in CI then ends with the stacks that show
# where, not with CI's own time limit and nothing to go on.
#
# COMMAND runs in the foreground, as it would without the watchdog (Ctrl-C reaches it; a command started
# in the background by a script would ignore SIGINT); the timer is the background process here.
set -uo pipefail

limit=$1
shift
watchdog=$$
expired=$(mktemp)
rm -f "$expired"

descendants() {
    local pid
    for pid in $(pgrep -P "$1"); do
        [ "$pid" = "$timer" ] && continue
        echo "$pid"
        descendants "$pid"
    done
}

report() {
    echo "watchdog: still running after $limit s; what each process is doing:" >&2
    for pid in "$@"; do
        echo "--- $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
        for task in /proc/"$pid"/task/*; do
            echo "thread ${task##*/} $(cat "$task/comm" 2>/dev/null): $(cat "$task/wchan" 2>/dev/null)" >&2
        done
        if command -v gdb >/dev/null 2>&1; then
            timeout 120 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 30' 2>&1 |
                grep -E '^(Thread|#)' >&2
        fi
    done
}

(
    sleep "$limit"
    timer=$BASHPID
    pids=$(descendants "$watchdog")
    touch "$expired"
    # shellcheck disable=SC2086
    report $pids
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
) &
timer=$!
disown "$timer"
trap 'pkill -P "$timer" sleep 2>/dev/null; kill "$timer" 2>/dev/null' EXIT

"$@"
status=$?
if [ -e "$expired" ]; then
    rm -f "$expired"
    exit 124
fi
exit "$status"
