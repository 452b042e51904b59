#!/usr/bin/env bash
# make fuzz-source [SECONDS=60]: builds the libFuzzer target Tools/reliability/fuzz/FuzzSource.swift (a
# sync's source file read by NotesSync through libyaml, and its children's placeholders filled from a parent
# record) with AddressSanitizer and runs it for SECONDS
# seconds on a fresh corpus seeded from Tools/reliability/fuzz/source-seeds, Fixtures/regressions-source and
# ../shared/JSONTestSuite/test_parsing (copied into a temporary directory, never into the repository).
#
# A crash, a hang, an allocation over -malloc_limit_mb or a resident size over -rss_limit_mb is a finding:
# the input is minimized, saved as Fixtures/regressions-source/fuzz-<kind>-<sha1>.yaml (read by
# Tests/NotesSyncTests/SourceRegressionTests.swift), and the script exits 1.
#
# Environment: FUZZ_BUILD (build directory, default .build/fuzz-source), FUZZ_MODULES (the package's
# modules, compiled once for every fuzz target: default .build/fuzz-modules), FUZZ_CORPUS (keep the corpus
# there across runs), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "fuzz-source: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
build=${FUZZ_BUILD:-.build/fuzz-source}
timeout_s=10       # one input: far beyond the milliseconds one takes
rss_mb=512         # the whole process, ASan's shadow and quarantine included
malloc_mb=64       # one allocation: a source is at most 1 MiB, its nodes 100,000

name=fuzz-source
. Tools/reliability/fuzz/libfuzzer.sh
require_libfuzzer

# Build: the modules the target uses (fuzz_modules, shared with the other targets: NotesFetch for the
# placeholders' URLs and JSON), then the target, with the same sanitizers; lld links quietly.
fuzz_modules
module NotesSystem
module NotesJSON NotesSystem
module NotesPage NotesSystem NotesJSON
module NotesFetch NotesSystem NotesJSON NotesPage
module NotesSync NotesSystem NotesJSON NotesPage NotesFetch
mkdir -p "$build"
echo "fuzz-source: building $build/fuzz-source"
swiftc "${flags[@]}" -module-name FuzzSource -wmo -c Tools/reliability/fuzz/FuzzSource.swift -o "$build/FuzzSource.o"
objects=()
for module in NotesSystem NotesJSON NotesPage NotesFetch NotesSync; do objects+=("$modules/$module.o"); done
swiftc -sanitize="$sanitizers" -use-ld=lld "${objects[@]}" "$build/FuzzSource.o" "$modules/json_blocks.o" "$modules/json_record.o" -lyaml -lyajl \
    -o "$build/fuzz-source"

make_seeds Tools/reliability/fuzz/source-seeds Fixtures/regressions-source --json-test-suite
binary=$build/fuzz-source corpus=${FUZZ_CORPUS:-$work/corpus} max_len=4096 dict=Tools/reliability/fuzz/source.dict
fixtures=Fixtures/regressions-source extension=yaml
run_fuzzer
