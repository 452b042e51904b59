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

command -v swiftc >/dev/null || { echo "fuzz: swiftc is not on PATH" >&2; exit 69; }
resource=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift/clang/lib/linux
if ! ls "$resource"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "fuzz: this Swift toolchain has no libFuzzer runtime ($resource)" >&2
    exit 69
fi

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
swiftc -sanitize=fuzzer,address -use-ld=lld "$build/NotesSystem.o" "$build/NotesJSON.o" "$build/NotesPage.o" "$build/FuzzPage.o" \
    -lyajl -o "$build/fuzz-page"

work=$(mktemp -d "${TMPDIR:-/tmp}/notes-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/artifacts"
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
cp Fixtures/contract/* "$work/seeds/"
if [ -d Fixtures/regressions ]; then
    find Fixtures/regressions -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$work/seeds/" \;
fi
suite=../shared/JSONTestSuite/test_parsing
if [ -d "$suite" ]; then
    cp "$suite"/* "$work/seeds/"
else
    echo "fuzz: $suite is absent: seeding from the fixtures only"
fi
echo "fuzz: $(ls "$work/seeds" | wc -l) seeds; running for $seconds s"

# ASan's quarantine is cut to 64 MiB so that -rss_limit_mb measures the decoder, not the quarantine.
# Swift's own backtracer is off: on a fatalError it would run inside the crashed process, where ASan
# stops it (a stack-buffer-underflow in CrashHandlerLinux) before libFuzzer can save the input.
export SWIFT_BACKTRACE=enable=no
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1} \
    "$build/fuzz-page" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -malloc_limit_mb="$malloc_mb" -max_len=8192 -dict=Tools/reliability/fuzz/page.dict -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$corpus" "$work/seeds" >"$work/log" 2>&1 || status=$?

grep -E "^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE))" "$work/log" || true
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log")
found=$(find "$work/artifacts" -type f | sort)

if [ -z "$found" ] && [ "$status" -ne 0 ]; then
    tail -n 40 "$work/log" >&2
    echo "fuzz: libFuzzer exited $status without an artifact" >&2
    exit 1
fi
if [ -z "$found" ]; then
    echo "fuzz: ${runs:-?} executions in $seconds s, 0 crashes, 0 hangs, 0 over the memory limits;" \
        "corpus $(ls "$corpus" | wc -l) inputs; peak RSS ${peak:-?} MB (ASan build)"
    exit 0
fi

# A finding: show it, minimize it, keep it as a regression fixture.
grep -E 'fuzz-page finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$work/log" | head -n 20 >&2 || true
mkdir -p Fixtures/regressions
for artifact in $found; do
    kind=$(basename "$artifact" | cut -d- -f1)
    minimized="$work/minimized"
    if ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1} "$build/fuzz-page" -minimize_crash=1 \
        -max_total_time=60 -timeout="$timeout_s" -malloc_limit_mb="$malloc_mb" -rss_limit_mb="$rss_mb" \
        -exact_artifact_path="$minimized" "$artifact" >"$work/minimize.log" 2>&1 || [ -s "$minimized" ]; then
        [ -s "$minimized" ] && artifact=$minimized
    fi
    sha=$(sha1sum "$artifact" | cut -c1-12)
    fixture=Fixtures/regressions/fuzz-$kind-$sha.json
    cp "$artifact" "$fixture"
    echo "fuzz: $kind after ${runs:-?} executions: saved $fixture ($(wc -c <"$fixture") bytes);" \
        "replay with: $build/fuzz-page $fixture" >&2
done
exit 1
