#!/usr/bin/env bash
# make fuzz-fetch [SECONDS=60]: builds the libFuzzer target Tools/reliability/fuzz/FuzzFetch.swift (its
# driver is Tests/NotesFetchTests/FetchDriver*.swift) with AddressSanitizer, and UndefinedBehaviorSanitizer
# where the toolchain has it for Swift, and runs it for SECONDS seconds on a fresh corpus seeded from
# Tools/reliability/fuzz/fetch-seeds and Fixtures/regressions-fetch (copied into a temporary directory,
# never into the repository).
#
# A crash or trap, a finding of the driver (a URL that PageLocator.urlProblem accepts and RFC 3986 does
# not, a wait past its cap), a hang (-timeout), an allocation over -malloc_limit_mb or a resident size over
# -rss_limit_mb is a finding: the input is minimized, saved as Fixtures/regressions-fetch/fuzz-<kind>-<sha1>.txt
# (replayed by Tests/NotesFetchTests/FetchRegressionTests.swift), and the script exits 1.
#
# Environment: FUZZ_BUILD (build directory, default .build/fuzz-fetch; a module whose sources did not
# change since its last build is not compiled again), FUZZ_CORPUS (keep the corpus there across runs
# instead of a temporary directory), FUZZ_ARGS (more libFuzzer flags). SECONDS=0 builds the target only.
set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "fuzz-fetch: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
build=${FUZZ_BUILD:-.build/fuzz-fetch}
timeout_s=10       # one input: far beyond the ~1 ms one takes
rss_mb=512         # the whole process, ASan's shadow and quarantine included
malloc_mb=16       # one allocation: an input is at most 4 KiB, a page's decoder's largest is 1 MiB

command -v swiftc >/dev/null || { echo "fuzz-fetch: swiftc is not on PATH" >&2; exit 69; }
resource=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift/clang/lib/linux
if ! ls "$resource"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "fuzz-fetch: this Swift toolchain has no libFuzzer runtime ($resource)" >&2
    exit 69
fi

mkdir -p "$build"
# UBSan where swiftc accepts it for this target (not on Linux as of Swift 6.3); ASan always.
sanitizers=fuzzer,address
printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>?, _ n: Int) -> CInt { 0 }\n' \
    >"$build/probe.swift"
if swiftc -parse-as-library -sanitize=fuzzer,address,undefined "$build/probe.swift" -o "$build/probe" \
    >/dev/null 2>&1; then
    sanitizers=fuzzer,address,undefined
fi
rm -f "$build/probe" "$build/probe.swift"

# Build: NotesJSON, NotesPage and NotesFetch as the modules they are (so their imports hold as written),
# then the target with its driver, each with the same sanitizers (coverage in every module). CCurl is not
# on the include path, so CurlTransport (`#if canImport(CCurl)`) compiles out: nothing here can reach a
# network.
flags=(-swift-version 6 -package-name notes_page
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -parse-as-library -O -g -sanitize="$sanitizers" -I Sources/CYajl -I Sources/CJSONBlocks/include -I "$build")
# A change of flags or toolchain rebuilds everything.
stamp="$(swiftc --version 2>&1 | head -n 1) ${flags[*]}"
if [ "$(cat "$build/flags" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$build"/*.o "$build"/*.swiftmodule "$build/fuzz-fetch" "$build/flags"
fi
# stale OUTPUT INPUT...: whether OUTPUT is missing or older than any of the inputs.
stale() {
    local output=$1 input
    shift
    [ -e "$output" ] || return 0
    for input in "$@"; do [ "$input" -nt "$output" ] && return 0; done
    return 1
}
module() {  # module NAME DEPENDENCY... -- SOURCE...
    local name=$1 inputs=() sources=()
    shift
    while [ "$1" != -- ]; do inputs+=("$build/$1.swiftmodule"); shift; done
    shift
    sources=("$@")
    if stale "$build/$name.o" "${sources[@]}" "${inputs[@]}"; then
        echo "fuzz-fetch: compiling $name"
        swiftc "${flags[@]}" -module-name "$name" -wmo -emit-module -emit-module-path "$build/$name.swiftmodule" \
            -c "${sources[@]}" -o "$build/$name.o"
    fi
}
mapfile -t system_sources < <(find Sources/NotesSystem -name '*.swift' | sort)
mapfile -t json_sources < <(find Sources/NotesJSON -name '*.swift' | sort)
mapfile -t page_sources < <(find Sources/NotesPage -name '*.swift' | sort)
mapfile -t fetch_sources < <(find Sources/NotesFetch -name '*.swift' | sort)
# The driver: FetchDriver.swift and its extensions.
mapfile -t driver_sources < <(find Tests/NotesFetchTests -name 'FetchDriver*.swift' | sort)
module NotesSystem -- "${system_sources[@]}"
module NotesJSON NotesSystem -- "${json_sources[@]}"
module NotesPage NotesSystem NotesJSON -- "${page_sources[@]}"
module NotesFetch NotesSystem NotesJSON NotesPage -- "${fetch_sources[@]}"
if stale "$build/FuzzFetch.o" Tools/reliability/fuzz/FuzzFetch.swift "${driver_sources[@]}" \
    Tests/NotesFetchTests/StrictURI.swift \
    Tests/TestSupport/SeededRandom.swift Sources/NotesGen/SplitMix64.swift \
    "$build/NotesFetch.swiftmodule"; then
    echo "fuzz-fetch: compiling FuzzFetch"
    swiftc "${flags[@]}" -module-name FuzzFetch -wmo -c Tools/reliability/fuzz/FuzzFetch.swift \
        "${driver_sources[@]}" Tests/NotesFetchTests/StrictURI.swift Tests/TestSupport/SeededRandom.swift \
        Sources/NotesGen/SplitMix64.swift -o "$build/FuzzFetch.o"
fi
if stale "$build/fuzz-fetch" "$build"/NotesSystem.o "$build"/NotesJSON.o "$build"/NotesPage.o "$build"/NotesFetch.o "$build"/FuzzFetch.o; then
    swiftc -sanitize="$sanitizers" -use-ld=lld "$build/NotesSystem.o" "$build/NotesJSON.o" "$build/NotesPage.o" "$build/NotesFetch.o" \
        "$build/FuzzFetch.o" -lyajl -o "$build/fuzz-fetch"
fi
printf '%s' "$stamp" >"$build/flags"
echo "fuzz-fetch: $build/fuzz-fetch built with -sanitize=$sanitizers"
# libFuzzer takes -max_total_time=0 for no limit: 0 here builds only.
[ "$seconds" -gt 0 ] || exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/notes-fuzz-fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/artifacts"
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
cp Tools/reliability/fuzz/fetch-seeds/* "$work/seeds/"
if [ -d Fixtures/regressions-fetch ]; then
    find Fixtures/regressions-fetch -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$work/seeds/" \;
fi
echo "fuzz-fetch: $(ls "$work/seeds" | wc -l) seeds; running for $seconds s"

# As in fuzz.sh: ASan's quarantine cut to 64 MiB so that -rss_limit_mb measures the target, and Swift's
# own backtracer off, so that libFuzzer saves the input of a fatalError.
export SWIFT_BACKTRACE=enable=no
options=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1}
status=0
ASAN_OPTIONS=$options "$build/fuzz-fetch" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -malloc_limit_mb="$malloc_mb" -max_len=4096 -dict=Tools/reliability/fuzz/fetch.dict -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$corpus" "$work/seeds" >"$work/log" 2>&1 || status=$?

grep -E "^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE))" "$work/log" || true
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log")
rate=$(sed -n 's/^#[0-9]*[[:space:]]*DONE.* exec\/s: \([0-9]*\).*/\1/p' "$work/log" | tail -n 1)
found=$(find "$work/artifacts" -type f | sort)

if [ -z "$found" ] && [ "$status" -ne 0 ]; then
    tail -n 40 "$work/log" >&2
    echo "fuzz-fetch: libFuzzer exited $status without an artifact" >&2
    exit 1
fi
if [ -z "$found" ]; then
    echo "fuzz-fetch: ${runs:-?} executions in $seconds s (${rate:-?} exec/s), 0 crashes, 0 findings, 0 hangs," \
        "0 over the memory limits; corpus $(ls "$corpus" | wc -l) inputs; peak RSS ${peak:-?} MB" \
        "(-sanitize=$sanitizers)"
    exit 0
fi

# A finding: show it, minimize it, keep it as a regression fixture.
grep -E 'fuzz-fetch finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$work/log" \
    | head -n 20 >&2 || true
mkdir -p Fixtures/regressions-fetch
for artifact in $found; do
    kind=$(basename "$artifact" | cut -d- -f1)
    minimized="$work/minimized"
    if ASAN_OPTIONS=$options "$build/fuzz-fetch" -minimize_crash=1 -max_total_time=60 -timeout="$timeout_s" \
        -malloc_limit_mb="$malloc_mb" -rss_limit_mb="$rss_mb" -exact_artifact_path="$minimized" "$artifact" \
        >"$work/minimize.log" 2>&1 || [ -s "$minimized" ]; then
        [ -s "$minimized" ] && artifact=$minimized
    fi
    sha=$(sha1sum "$artifact" | cut -c1-12)
    fixture=Fixtures/regressions-fetch/fuzz-$kind-$sha.txt
    cp "$artifact" "$fixture"
    echo "fuzz-fetch: $kind after ${runs:-?} executions: saved $fixture ($(wc -c <"$fixture") bytes);" \
        "replay with: $build/fuzz-fetch $fixture" >&2
done
exit 1
