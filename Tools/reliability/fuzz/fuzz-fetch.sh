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
# Environment: FUZZ_BUILD (build directory, default .build/fuzz-fetch), FUZZ_MODULES (the package's
# modules, compiled once for every fuzz target: default .build/fuzz-modules; a module whose sources did not
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

# Build: the modules the target uses (fuzz_modules, shared with the other targets), then the target with its
# driver, with the same sanitizers (coverage in every module); nothing whose inputs did not change is
# compiled again.
fuzz_modules
module NotesSystem
module NotesJSON NotesSystem
module NotesPage NotesSystem NotesJSON
module NotesFetch NotesSystem NotesJSON NotesPage
mkdir -p "$build"
# The driver: FetchDriver.swift and its extensions.
mapfile -t driver_sources < <(find Tests/NotesFetchTests -name 'FetchDriver*.swift' | sort)
driver=(Tools/reliability/fuzz/FuzzFetch.swift "${driver_sources[@]}" Tests/NotesFetchTests/StrictURI.swift
    Tests/TestSupport/SeededRandom.swift Sources/NotesGen/SplitMix64.swift)
if stale "$build/FuzzFetch.o" "${driver[@]}" "$modules/NotesFetch.swiftmodule" "$modules/flags"; then
    echo "fuzz-fetch: compiling FuzzFetch"
    swiftc "${flags[@]}" -module-name FuzzFetch -wmo -c "${driver[@]}" -o "$build/FuzzFetch.o"
fi
objects=("$modules/NotesSystem.o" "$modules/NotesJSON.o" "$modules/NotesPage.o" "$modules/NotesFetch.o"
    "$build/FuzzFetch.o" "$modules/json_blocks.o" "$modules/json_record.o")
if stale "$build/fuzz-fetch" "${objects[@]}"; then
    swiftc -sanitize="$sanitizers" -use-ld=lld "${objects[@]}" -lyajl -o "$build/fuzz-fetch"
fi
echo "fuzz-fetch: $build/fuzz-fetch built with -sanitize=$sanitizers"
# libFuzzer takes -max_total_time=0 for no limit: 0 here builds only.
[ "$seconds" -gt 0 ] || exit 0

make_seeds Tools/reliability/fuzz/fetch-seeds Fixtures/regressions-fetch
binary=$build/fuzz-fetch corpus=${FUZZ_CORPUS:-$work/corpus} max_len=4096 dict=Tools/reliability/fuzz/fetch.dict
fixtures=Fixtures/regressions-fetch extension=txt built_with="-sanitize=$sanitizers"
run_fuzzer
