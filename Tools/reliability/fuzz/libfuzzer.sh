# What the fuzz scripts share (sourced, not run): the toolchain check, and running a built target on a
# corpus with its limits, then reporting: the figures of a clean run, or each finding minimized and kept as
# a regression fixture.
#
# The caller sets: name (for messages), binary, seconds, timeout_s, rss_mb, malloc_mb, max_len, dict,
# corpus, fixtures (where findings go), extension (of a kept finding), and optionally built_with (said
# after a clean run's figures); make_seeds makes work, a temporary directory with seeds/ filled.

# Exits 69 when swiftc or the toolchain's libFuzzer runtime is missing.
require_libfuzzer() {
    command -v swiftc >/dev/null || { echo "$name: swiftc is not on PATH" >&2; exit 69; }
    local resource
    resource=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift/clang/lib/linux
    if ! ls "$resource"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
        echo "$name: this Swift toolchain has no libFuzzer runtime ($resource)" >&2
        exit 69
    fi
}

# The package's modules, compiled once for the three targets (whole-module, -O, the sanitizers, coverage in
# every module) into $modules: FUZZ_MODULES, default .build/fuzz-modules. Sets sanitizers (ASan always,
# UBSan where swiftc accepts it for Swift: not on Linux as of Swift 6.3), flags and modules; a change of
# flags or toolchain empties the directory. CCurl is never on the include path, so CurlTransport
# (`#if canImport(CCurl)`) compiles out: nothing fuzzed can reach a network.
fuzz_modules() {
    modules=${FUZZ_MODULES:-.build/fuzz-modules}
    mkdir -p "$modules"
    sanitizers=fuzzer,address
    local probe="$modules/probe-$$"
    printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>?, _ n: Int) -> CInt { 0 }\n' \
        >"$probe.swift"
    if swiftc -parse-as-library -sanitize=fuzzer,address,undefined "$probe.swift" -o "$probe" >/dev/null 2>&1; then
        sanitizers=fuzzer,address,undefined
    fi
    rm -f "$probe" "$probe.swift"
    flags=(-swift-version 6 -package-name notes_page
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
        -parse-as-library -O -g -sanitize="$sanitizers" -I Sources/CYaml -I Sources/CYajl
        -I Sources/CJSONBlocks/include -I "$modules")
    local stamp
    stamp="$(swiftc --version 2>&1 | head -n 1) ${flags[*]}"
    if [ "$(cat "$modules/flags" 2>/dev/null)" != "$stamp" ]; then
        rm -f "$modules"/*.o "$modules"/*.swiftmodule "$modules/flags"
        printf '%s' "$stamp" >"$modules/flags"
    fi
    if stale "$modules/json_blocks.o" Sources/CJSONBlocks/*.c Sources/CJSONBlocks/include/*.h \
        || stale "$modules/json_record.o" Sources/CJSONBlocks/*.c Sources/CJSONBlocks/include/*.h; then
        compile_blocks "$modules" "$sanitizers"
    fi
}

# stale OUTPUT INPUT...: whether OUTPUT is missing or older than any of the inputs.
stale() {
    local output=$1 input
    shift
    [ -e "$output" ] || return 0
    for input in "$@"; do [ "$input" -nt "$output" ] && return 0; done
    return 1
}

# module NAME DEPENDENCY...: compiles Sources/NAME (every .swift in its folders) into $modules/NAME.o and its
# .swiftmodule, unless they are newer than its sources, its dependencies' modules and the C headers the
# modules import, and its list of sources is the one it was built from (a file removed or renamed). One
# fuzz script at a time: two that build the same module at once may each find it stale.
module() {
    local module=$1 inputs=() sources dependency
    shift
    for dependency in "$@"; do inputs+=("$modules/$dependency.swiftmodule"); done
    mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
    inputs+=(Sources/CJSONBlocks/include/*.h Sources/CYajl/*.h Sources/CYaml/*.h)
    if [ "$(cat "$modules/$module.sources" 2>/dev/null)" != "${sources[*]}" ] \
        || stale "$modules/$module.o" "${sources[@]}" "${inputs[@]}"; then
        echo "$name: compiling $module ($modules)"
        swiftc "${flags[@]}" -module-name "$module" -wmo -emit-module \
            -emit-module-path "$modules/$module.$$.swiftmodule" -c "${sources[@]}" -o "$modules/$module.$$.o"
        mv "$modules/$module.$$.swiftmodule" "$modules/$module.swiftmodule"
        mv "$modules/$module.$$.o" "$modules/$module.o"
        rm -f "$modules/$module.$$".*  # the module's doc and source info
        printf '%s' "${sources[*]}" >"$modules/$module.sources"
    fi
}

# Compiles the C that NotesJSON calls (Sources/CJSONBlocks: the scanner's classifiers, json_blocks.c, and
# the recording callbacks, json_record.c) into $1/json_blocks.o and $1/json_record.o with the toolchain's
# clang, instrumented as the Swift modules are: $2 is the sanitizer list swiftc takes
# (fuzzer,address[,undefined]); the C objects take fuzzer-no-link for coverage, not the fuzzer's main.
compile_blocks() {
    local build=$1 sanitizers=${2/fuzzer/fuzzer-no-link} clang source
    clang=$(dirname "$(readlink -f "$(command -v swiftc)")")/clang
    for source in json_blocks json_record; do
        "$clang" -O2 -g -fsanitize="$sanitizers" -I Sources/CJSONBlocks/include -c "Sources/CJSONBlocks/$source.c" \
            -o "$build/$source.o"
    done
}

# Makes $work (removed on exit) with seeds/ holding the files of each directory named that exists (a
# README.md aside); ../shared/JSONTestSuite/test_parsing too with --json-test-suite, said when absent.
make_seeds() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/notes-$name.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/seeds"
    local directory suite=../shared/JSONTestSuite/test_parsing
    for directory in "$@"; do
        if [ "$directory" = --json-test-suite ]; then
            if [ -d "$suite" ]; then directory=$suite; else echo "$name: $suite is absent: not among the seeds"; continue; fi
        fi
        [ -d "$directory" ] || continue
        find "$directory" -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$work/seeds/" \;
    done
}

# Runs the target for $seconds, then exits: 0 with the run's figures, or 1 after keeping each finding in
# $fixtures. ASan's quarantine is cut to 64 MiB so that -rss_limit_mb measures the target, not the
# quarantine; Swift's own backtracer is off, since on a fatalError it would run inside the crashed process,
# where ASan stops it before libFuzzer can save the input.
run_fuzzer() {
    mkdir -p "$work/artifacts" "$corpus"
    echo "$name: $(ls "$work/seeds" | wc -l) seeds; running for $seconds s"
    export SWIFT_BACKTRACE=enable=no
    local options=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1} status=0
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    ASAN_OPTIONS=$options "$binary" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
        -malloc_limit_mb="$malloc_mb" -max_len="$max_len" -dict="$dict" -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$corpus" "$work/seeds" >"$work/log" 2>&1 || status=$?

    grep -E "^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE))" "$work/log" || true
    local runs peak rate found
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log")
    rate=$(sed -n 's/^#[0-9]*[[:space:]]*DONE.* exec\/s: \([0-9]*\).*/\1/p' "$work/log" | tail -n 1)
    found=$(find "$work/artifacts" -type f | sort)
    if [ -z "$found" ] && [ "$status" -ne 0 ]; then
        tail -n 40 "$work/log" >&2
        echo "$name: libFuzzer exited $status without an artifact" >&2
        exit 1
    fi
    if [ -z "$found" ]; then
        echo "$name: ${runs:-?} executions in $seconds s (${rate:-?} exec/s), 0 crashes, 0 findings, 0 hangs," \
            "0 over the memory limits; corpus $(ls "$corpus" | wc -l) inputs; peak RSS ${peak:-?} MB" \
            "(${built_with:-ASan build})"
        exit 0
    fi

    # A finding: show it, minimize it, keep it as a regression fixture.
    grep -E 'finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$work/log" \
        | head -n 20 >&2 || true
    mkdir -p "$fixtures"
    local artifact kind minimized sha fixture
    for artifact in $found; do
        kind=$(basename "$artifact" | cut -d- -f1)
        minimized="$work/minimized"
        if ASAN_OPTIONS=$options "$binary" -minimize_crash=1 -max_total_time=60 -timeout="$timeout_s" \
            -malloc_limit_mb="$malloc_mb" -rss_limit_mb="$rss_mb" -exact_artifact_path="$minimized" "$artifact" \
            >"$work/minimize.log" 2>&1 || [ -s "$minimized" ]; then
            [ -s "$minimized" ] && artifact=$minimized
        fi
        sha=$(sha1sum "$artifact" | cut -c1-12)
        fixture=$fixtures/fuzz-$kind-$sha.$extension
        cp "$artifact" "$fixture"
        echo "$name: $kind after ${runs:-?} executions: saved $fixture ($(wc -c <"$fixture") bytes);" \
            "replay with: $binary $fixture" >&2
    done
    exit 1
}
