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
# Environment: FUZZ_BUILD (build directory, default .build/fuzz), FUZZ_CORPUS (keep the corpus there
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

# Build: NotesJSON and NotesPage as the modules they are (so their imports hold as written), then the
# target, each with -sanitize=fuzzer,address (coverage and ASan in every module); lld links quietly.
mkdir -p "$build"
flags=(-swift-version 6 -package-name notes_page -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -parse-as-library -O -g -sanitize=fuzzer,address -I Sources/CYajl -I Sources/CJSONBlocks/include -I "$build")
echo "fuzz: building $build/fuzz-page"
# Every source of each module, in its folders too.
mapfile -t system_sources < <(find Sources/NotesSystem -name '*.swift' | sort)
mapfile -t json_sources < <(find Sources/NotesJSON -name '*.swift' | sort)
mapfile -t page_sources < <(find Sources/NotesPage -name '*.swift' | sort)
swiftc "${flags[@]}" -module-name NotesSystem -wmo -emit-module -emit-module-path "$build/NotesSystem.swiftmodule" \
    -c "${system_sources[@]}" -o "$build/NotesSystem.o"
swiftc "${flags[@]}" -module-name NotesJSON -wmo -emit-module -emit-module-path "$build/NotesJSON.swiftmodule" \
    -c "${json_sources[@]}" -o "$build/NotesJSON.o"
swiftc "${flags[@]}" -module-name NotesPage -wmo -emit-module -emit-module-path "$build/NotesPage.swiftmodule" \
    -c "${page_sources[@]}" -o "$build/NotesPage.o"
swiftc "${flags[@]}" -module-name FuzzPage -wmo -c Tools/reliability/fuzz/FuzzPage.swift \
    Tools/reliability/fuzz/StrictJSON.swift -o "$build/FuzzPage.o"
compile_blocks "$build" fuzzer,address
swiftc -sanitize=fuzzer,address -use-ld=lld "$build/NotesSystem.o" "$build/NotesJSON.o" "$build/NotesPage.o" "$build/FuzzPage.o" \
    "$build/json_blocks.o" -lyajl -o "$build/fuzz-page"

make_seeds Fixtures/contract Fixtures/regressions --json-test-suite
binary=$build/fuzz-page corpus=${FUZZ_CORPUS:-$work/corpus} max_len=8192 dict=Tools/reliability/fuzz/page.dict
fixtures=Fixtures/regressions extension=json
run_fuzzer
