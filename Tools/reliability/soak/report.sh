# Sourced by Tools/reliability/soak.sh, from the repository root. The table of scenarios: runs, faults
# injected and survived, exit codes, failures; and the totals at the end.

declare -A table_runs table_injected table_ok table_fail table_exit
order=()
note_row() { # note_row NAME INJECTED
    [ -n "${table_runs[$1]:-}" ] || { order+=("$1"); table_runs[$1]=0; table_injected[$1]=0; table_ok[$1]=0; table_fail[$1]=0; }
    table_runs[$1]=$((table_runs[$1] + 1))
    table_injected[$1]=$((table_injected[$1] + $2))
    table_exit[$1]=$rc
    if [ "$step_failed" = 0 ]; then table_ok[$1]=$((table_ok[$1] + 1)); else table_fail[$1]=$((table_fail[$1] + 1)); fi
}

# report: prints the table and the totals; exits 1 on any failure.
report() {
    total_injected=0
    total_survived=0
    printf '\n%-27s %5s %9s %9s %6s %9s\n' scenario runs injected survived exit failures
    for name in "${order[@]}"; do
        survived=$((table_fail[$name] == 0 ? table_injected[$name] : 0))
        total_injected=$((total_injected + table_injected[$name]))
        total_survived=$((total_survived + survived))
        printf '%-27s %5s %9s %9s %6s %9s\n' "$name" "${table_runs[$name]}" "${table_injected[$name]}" "$survived" \
            "${table_exit[$name]}" "${table_fail[$name]}"
    done
    echo
    echo "passes: $pass (styles: ${styles[*]:0:$((pass < 3 ? pass : 3))}); client runs: $runs; $(elapsed) s"
    echo "faults injected: $total_injected, survived (handled as documented): $total_survived"
    echo "kill -9: $kills in $kill_rounds rounds; SIGINT: $interrupts; resumes: $resumes; outputs with notes lost or twice: $output_failures"
    echo "peak RSS: $((peak_kb / 1024)) MB ($peak_kb KiB, $peak_where); bound $max_rss_mb MB"
    echo "token leaks: $(printf '%s\n' "${failure_lines[@]}" | grep -c 'the token appears' || true)"
    if [ "$failures" -gt 0 ]; then
        echo "FAILURES: $failures"
        printf '  %s\n' "${failure_lines[@]}"
        exit 1
    fi
    echo "soak: passed"
}
