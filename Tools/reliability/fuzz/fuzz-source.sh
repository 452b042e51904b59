#!/usr/bin/env bash
# make fuzz-source [SECONDS=60]: builds the libFuzzer target Tools/reliability/fuzz/FuzzSource.swift (a
# sync's source file read by NotesSync through libyaml) with AddressSanitizer and runs it for SECONDS
# seconds on a fresh corpus seeded from Tools/reliability/fuzz/source-seeds, Fixtures/regressions-source and
# ../shared/JSONTestSuite/test_parsing (copied into a temporary directory, never into the repository).
#
# A crash, a hang, an allocation over -malloc_limit_mb or a resident size over -rss_limit_mb is a finding:
# the input is minimized, saved as Fixtures/regressions-source/fuzz-<kind>-<sha1>.yaml (read by
# Tests/NotesSyncTests/SourceRegressionTests.swift), and the script exits 1.
#
# Environment: FUZZ_BUILD (build directory, default .build/fuzz-source), FUZZ_CORPUS (keep the corpus
# there across runs), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "fuzz-source: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
build=${FUZZ_BUILD:-.build/fuzz-source}
timeout_s=10       # one input: far beyond the milliseconds one takes
rss_mb=512         # the whole process, ASan's shadow and quarantine included
malloc_mb=64       # one allocation: a source is at most 1 MiB, its nodes 100,000

command -v swiftc >/dev/null || { echo "fuzz-source: swiftc is not on PATH" >&2; exit 69; }
resource=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift/clang/lib/linux
if ! ls "$resource"/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
    echo "fuzz-source: this Swift toolchain has no libFuzzer runtime ($resource)" >&2
    exit 69
fi

# Build: NotesSystem and NotesSync as the modules they are, then the target, each with
# -sanitize=fuzzer,address; lld links quietly.
mkdir -p "$build"
flags=(-swift-version 6 -package-name notes_page -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -parse-as-library -O -g -sanitize=fuzzer,address -I Sources/CYaml -I "$build")
echo "fuzz-source: building $build/fuzz-source"
mapfile -t system_sources < <(find Sources/NotesSystem -name '*.swift' | sort)
mapfile -t sync_sources < <(find Sources/NotesSync -name '*.swift' | sort)
swiftc "${flags[@]}" -module-name NotesSystem -wmo -emit-module -emit-module-path "$build/NotesSystem.swiftmodule" \
    -c "${system_sources[@]}" -o "$build/NotesSystem.o"
swiftc "${flags[@]}" -module-name NotesSync -wmo -emit-module -emit-module-path "$build/NotesSync.swiftmodule" \
    -c "${sync_sources[@]}" -o "$build/NotesSync.o"
swiftc "${flags[@]}" -module-name FuzzSource -wmo -c Tools/reliability/fuzz/FuzzSource.swift -o "$build/FuzzSource.o"
swiftc -sanitize=fuzzer,address -use-ld=lld "$build/NotesSystem.o" "$build/NotesSync.o" "$build/FuzzSource.o" \
    -lyaml -o "$build/fuzz-source"

work=$(mktemp -d "${TMPDIR:-/tmp}/notes-fuzz-source.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/artifacts"
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus"
cp Tools/reliability/fuzz/source-seeds/* "$work/seeds/"
if [ -d Fixtures/regressions-source ]; then
    find Fixtures/regressions-source -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$work/seeds/" \;
fi
suite=../shared/JSONTestSuite/test_parsing
if [ -d "$suite" ]; then
    cp "$suite"/* "$work/seeds/"
else
    echo "fuzz-source: $suite is absent: seeding from the source seeds only"
fi
echo "fuzz-source: $(ls "$work/seeds" | wc -l) seeds; running for $seconds s"

export SWIFT_BACKTRACE=enable=no
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1} \
    "$build/fuzz-source" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -malloc_limit_mb="$malloc_mb" -max_len=4096 -dict=Tools/reliability/fuzz/source.dict -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" ${FUZZ_ARGS:-} "$corpus" "$work/seeds" >"$work/log" 2>&1 || status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log")
found=$(find "$work/artifacts" -type f | sort)
if [ -z "$found" ] && [ "$status" -ne 0 ]; then
    tail -n 40 "$work/log" >&2
    echo "fuzz-source: libFuzzer exited $status without an artifact" >&2
    exit 1
fi
if [ -z "$found" ]; then
    echo "fuzz-source: ${runs:-?} executions in $seconds s, 0 crashes, 0 hangs, 0 over the memory limits;" \
        "corpus $(ls "$corpus" | wc -l) inputs; peak RSS ${peak:-?} MB (ASan build)"
    exit 0
fi

grep -E 'fuzz-source finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$work/log" | head -n 20 >&2 || true
mkdir -p Fixtures/regressions-source
for artifact in $found; do
    kind=$(basename "$artifact" | cut -d- -f1)
    minimized="$work/minimized"
    if ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1} "$build/fuzz-source" -minimize_crash=1 \
        -max_total_time=60 -timeout="$timeout_s" -malloc_limit_mb="$malloc_mb" -rss_limit_mb="$rss_mb" \
        -exact_artifact_path="$minimized" "$artifact" >"$work/minimize.log" 2>&1 || [ -s "$minimized" ]; then
        [ -s "$minimized" ] && artifact=$minimized
    fi
    sha=$(sha1sum "$artifact" | cut -c1-12)
    fixture=Fixtures/regressions-source/fuzz-$kind-$sha.yaml
    cp "$artifact" "$fixture"
    echo "fuzz-source: $kind after ${runs:-?} executions: saved $fixture ($(wc -c <"$fixture") bytes);" \
        "replay with: $build/fuzz-source $fixture" >&2
done
exit 1
