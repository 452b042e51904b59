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

name=fuzz-fetch
. Tools/reliability/fuzz/libfuzzer.sh
require_libfuzzer

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
if stale "$build/json_blocks.o" Sources/CJSONBlocks/json_blocks.c Sources/CJSONBlocks/include/*.h; then
    compile_blocks "$build" "$sanitizers"
fi
if stale "$build/fuzz-fetch" "$build"/NotesSystem.o "$build"/NotesJSON.o "$build"/NotesPage.o "$build"/NotesFetch.o "$build"/FuzzFetch.o "$build"/json_blocks.o; then
    swiftc -sanitize="$sanitizers" -use-ld=lld "$build/NotesSystem.o" "$build/NotesJSON.o" "$build/NotesPage.o" "$build/NotesFetch.o" \
        "$build/FuzzFetch.o" "$build/json_blocks.o" -lyajl -o "$build/fuzz-fetch"
fi
printf '%s' "$stamp" >"$build/flags"
echo "fuzz-fetch: $build/fuzz-fetch built with -sanitize=$sanitizers"
# libFuzzer takes -max_total_time=0 for no limit: 0 here builds only.
[ "$seconds" -gt 0 ] || exit 0

make_seeds Tools/reliability/fuzz/fetch-seeds Fixtures/regressions-fetch
binary=$build/fuzz-fetch corpus=${FUZZ_CORPUS:-$work/corpus} max_len=4096 dict=Tools/reliability/fuzz/fetch.dict
fixtures=Fixtures/regressions-fetch extension=txt built_with="-sanitize=$sanitizers"
run_fuzzer
