# Sourced by Tools/reliability/soak.sh, from the repository root. The fault scenarios: one fixture server
# with its faults and one client run each, checked for the documented exit code and the committed pages.

# name | server faults | client options | exit | committed pages (all or N) | client token (yes/no)
#   [| styles: the only envelope styles it runs in, space-separated; a pass of another style runs it in
#   one of these, taking turns, so that every scenario runs in every pass]
scenarios=(
    "status-500x2|500@2x2||0|all|yes"
    "status-502|502x1||0|all|yes"
    "status-503-retry-after|503:0@3x1||0|all|yes"
    "status-429-retry-after|429:0@4x2||0|all|yes"
    "status-504|504@5x1||0|all|yes"
    "reset-once|reset@3x1||0|all|yes"
    "truncate-once|truncate@2x1||0|all|yes"
    "truncate-10-bytes|truncate:10@6x2||0|all|yes"
    "drip-truncate-once|drip:512/1@4x1,truncate@4x1||0|all|yes"
    "slow-drip|drip:256/2@3||0|all|yes"
    "delay|delay:300@2||0|all|yes"
    "redirect-302|redirect||0|all|yes"
    "redirect-307|redirect:307@3||0|all|yes"
    "redirect-308|redirect:308@5||0|all|yes"
    "auth|auth||0|all|yes"
    "auth-redirect|auth,redirect||0|all|yes"
    "auth-no-token|auth||77|0|no"
    "status-401|401||77|0|yes"
    "status-403|403@3||77|2|yes"
    "unavailable-503|503:0@2|--retries 2|69|1|yes"
    "unavailable-500|500@4|--retries 1|69|3|yes"
    "reset-always|reset@2|--retries 1|69|1|yes"
    "truncate-always|truncate@5|--retries 1|69|4|yes"
    "idle-timeout|drip:1/3000@2|--timeout 1 --retries 1|69|1|yes"
    "stall|stall:10@3|--timeout 1 --retries 1|69|2|yes"
    "rate-limit-github|ratelimit-github:1@3x1||0|all|yes"
    "rate-limit-ietf|ratelimit-ietf:1@4x1||0|all|yes"
    "rate-limit-retry-after|ratelimit-retry-after:1@2x1||0|all|yes"
    "remaining-zero|remaining-zero:1@2x1||0|all|yes"
    "rate-limit-too-long|ratelimit-github:600@3|--max-wait 5|69|2|yes"
    "gzip-bomb|bomb:100000000@2|--max-page-bytes 8M|65|1|yes"
    "status-404|404@2||65|1|yes"
    "html|html@2||65|1|yes"
    "content-type|content-type@3||65|2|yes"
    "invalid-json|invalid-json@2||65|1|yes"
    "missing-id|missing-id@3||65|2|yes"
    "number-id|number-id||65|0|yes"
    "truncated-page|fixture:truncated.json@4||65|3|yes"
    "lone-surrogate|fixture:lone-surrogate.json@2||65|1|yes"
    "duplicate-id|duplicate-id@3||65|2|yes"
    "cycle|cycle@4||65|3|yes"
    "huge-title|huge-title@2||65|1|yes"
    "huge-title-small-cap|huge-title:5000@3|--max-string-bytes 4K|65|2|yes"
    "deep|deep@2||65|1|yes"
    "deep-65|deep:64@5||65|4|yes"
    "too-many-notes||--max-page-notes 99|65|0|yes"
    # Hostile next references on page 3 (contract: next_cursor, a cursor; drf: next and link: Link
    # rel="next", URLs). What names the same server is followed to the end; what must not be followed
    # stops the run, the page that holds it uncommitted (2 pages), naming that page.
    "next-ref-brackets-raw|next-ref:brackets-raw@3||0|all|yes"
    "next-ref-brackets-encoded|next-ref:brackets-encoded@3||0|all|yes"
    # A raw space: the client percent-encodes it, in a cursor and in a URL's query alike, and follows.
    "next-ref-space|next-ref:space@3||0|all|yes"
    "next-ref-unicode|next-ref:unicode@3||0|all|yes"
    "next-ref-bad-escape-cursor|next-ref:bad-escape@3||0|all|yes|contract"
    # %zz in a URL's path: the client encodes the % as %25 and follows; the server answers 404 for
    # /notes%25zz, so page 3 is committed and the error names page 4.
    "next-ref-bad-escape-url|next-ref:bad-escape@3||65|3|yes|drf link"
    "next-ref-fragment|next-ref:fragment@3||0|all|yes|drf link"
    # Followed; the client sends user:pass as Basic credentials unless it has a token (then its Bearer).
    "next-ref-userinfo|next-ref:userinfo@3||0|all|yes|drf link"
    "next-ref-ftp|next-ref:ftp@3||65|2|yes|drf link"
    "next-ref-file|next-ref:file@3||65|2|yes|drf link"
    "next-ref-empty-host|next-ref:empty-host@3||65|2|yes|drf link"
    "next-ref-long-name|next-ref:long-name@3||65|2|yes|contract drf"
    # In a Link header the 64 KiB name first meets the client's 64 KiB bound on response headers, which
    # it retries as a transport error: 69, not the URL limit's 65.
    "next-ref-long-name-link|next-ref:long-name@3|--retries 1|69|2|yes|link"
)

style_args() {
    case $1 in
        drf) echo "--items-path results --next-path next" ;;
        *) echo "" ;;
    esac
}

run_scenario() { # run_scenario STYLE LINE
    local style=$1 name faults options want pages with_token only
    IFS='|' read -r name faults options want pages with_token only <<<"$2"
    if [ -n "$only" ] && [[ " $only " != *" $style "* ]]; then
        local allowed
        read -r -a allowed <<<"$only"
        style=${allowed[$((pass % ${#allowed[@]}))]}
    fi
    current="$name ($style)"
    step_failed=0
    local dir=$work/$runs-$name
    mkdir -p "$dir"
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "$faults"
    # shellcheck disable=SC2046
    fetch "$dir" "$with_token" "$server_url" -o "$dir/out.ndjson" $options $(style_args "$style")
    stop_server
    check_exit "$want" "$current"
    check_output "$dir/out.ndjson" "$pages" "$current"
    check_token "$dir" "$current"
    # A run stopped by a hostile next reference names the page it could not go on from.
    if [[ $name == next-ref-* ]] && [ "$want" != 0 ] && ! grep -q "^Error: page $((pages + 1)) " "$last_prefix.stderr"; then
        fail "$current: the error does not name page $((pages + 1)): $(head -c 300 "$last_prefix.stderr" | tr '\n' ' ')"
    fi
    note_row "$name" "$(fired "$dir/server.log")"
}
