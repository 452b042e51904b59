#!/usr/bin/env bash
# Usage: Tools/watchdog.sh SECONDS COMMAND [ARGUMENT...]
#
# Runs COMMAND; if it is still running after SECONDS, prints what every process under it is doing (the
# command line, the kernel's wait channel and, with gdb installed, every thread's stack), kills them all
# and exits 124. Otherwise exits with COMMAND's status. A hang in CI then ends with the stacks that show
# where, not with CI's own time limit and nothing to go on.
set -uo pipefail

limit=$1
shift
"$@" &
child=$!

descendants() {
    local pid
    for pid in $(pgrep -P "$1"); do
        echo "$pid"
        descendants "$pid"
    done
}

waited=0
while kill -0 "$child" 2>/dev/null; do
    if [ "$waited" -ge "$limit" ]; then
        echo "watchdog: '$*' still running after $limit s; what each process is doing:" >&2
        for pid in $child $(descendants "$child"); do
            echo "--- $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
            for task in /proc/"$pid"/task/*; do
                echo "thread ${task##*/} $(cat "$task/comm" 2>/dev/null): $(cat "$task/wchan" 2>/dev/null)" >&2
            done
            if command -v gdb >/dev/null 2>&1; then
                timeout 120 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 30' 2>&1 |
                    grep -E '^(Thread|#)' >&2
            fi
        done
        kill -KILL "$child" $(descendants "$child") 2>/dev/null
        wait "$child" 2>/dev/null
        exit 124
    fi
    sleep 1
    waited=$((waited + 1))
done
wait "$child"
