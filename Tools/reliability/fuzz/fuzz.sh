#!/usr/bin/env bash
# make fuzz [SECONDS=60]: builds the libFuzzer target Tools/reliability/fuzz/FuzzPage.swift (with its
# JSON validator, StrictJSON.swift) with AddressSanitizer and runs it for SECONDS seconds on a fresh corpus
# seeded from Fixtures/contract, Fixtures/regressions and ../shared/JSONTestSuite/test_parsing (copied into
# a temporary directory, never into the repository).
#
# A crash, a hang (-timeout), an allocation over -malloc_limit_mb or a resident size over -rss_limit_mb
# is a finding: the input is minimized, saved as Fixtures/regressions/fuzz-<kind>-<sha1>.json (read by
# Tests/NotesPageTests/RegressionTests.swift), and the script exits 1.
#
# Environment: FUZZ_BUILD (build directory, default .build/fuzz), FUZZ_MODULES (the package's modules,
# compiled once for every fuzz target: default .build/fuzz-modules), FUZZ_CORPUS (keep the corpus there
# across runs instead of a temporary directory), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
build=${FUZZ_BUILD:-.build/fuzz}
timeout_s=10       # one input: far beyond the ~1 ms one takes
rss_mb=512         # the whole process, ASan's shadow and quarantine included
malloc_mb=4        # one allocation: the decoder's largest is the id set's 1 MiB arena segment

name=fuzz
. Tools/reliability/fuzz/libfuzzer.sh
require_libfuzzer

# Build: the modules the target uses (fuzz_modules, shared with the other targets), then the target, with
# the same sanitizers; lld links quietly.
fuzz_modules
module NotesSystem
module NotesJSON NotesSystem
module NotesPage NotesSystem NotesJSON
mkdir -p "$build"
echo "fuzz: building $build/fuzz-page"
swiftc "${flags[@]}" -module-name FuzzPage -wmo -c Tools/reliability/fuzz/FuzzPage.swift \
    Tools/reliability/fuzz/StrictJSON.swift -o "$build/FuzzPage.o"
swiftc -sanitize="$sanitizers" -use-ld=lld "$modules/NotesSystem.o" "$modules/NotesJSON.o" "$modules/NotesPage.o" \
    "$build/FuzzPage.o" "$modules/json_blocks.o" "$modules/json_record.o" -lyajl -o "$build/fuzz-page"

make_seeds Fixtures/contract Fixtures/regressions --json-test-suite
binary=$build/fuzz-page corpus=${FUZZ_CORPUS:-$work/corpus} max_len=8192 dict=Tools/reliability/fuzz/page.dict
fixtures=Fixtures/regressions extension=json
run_fuzzer
