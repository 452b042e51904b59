#!/usr/bin/env bash
# make docs: the DocC archives of the modules with a catalog (Sources/<Module>/<Module>.docc), written to
# .build/docs/<Module>.doccarchive by the toolchain's docc, warnings as errors.
#
# The symbol graphs come from a build of their own (DOCS_BUILD, default .build/docs-build), so .build's
# debug products are never rebuilt for them; a module writes its graph when it compiles, so an incremental
# build keeps the graphs of the modules it did not compile.
#
# Links from one module's doc comments into another's: docc follows a link into another archive only when
# it is written /Module/Symbol. Before each conversion, a link whose first component is a top-level symbol
# of another module of the package is written so when that module has an archive (built before, passed as
# --dependency), and becomes code voice when it has none (NotesJSON, NotesURLSession, NotesStore). A link
# that names nothing anywhere is left as it is, and fails the conversion.
#
# The ```swift blocks of each catalog are type-checked against the same build: the examples compile.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
BUILD=${DOCS_BUILD:-.build/docs-build}
OUT=${DOCS_OUT:-.build/docs}
# Each after the modules it links to; NotesScreen's target depends on all of them.
MODULES=(NotesPage NotesFetch NotesScreen)
TOOLCHAIN=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
DOCC=${DOCC:-$(command -v docc || echo "$TOOLCHAIN/docc")}
SWIFTC=${SWIFTC:-$(command -v swiftc || echo "$TOOLCHAIN/swiftc")}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD ;; esac
GRAPHS=$BUILD/symbol-graphs

build() {
    mkdir -p "$GRAPHS"
    "$SWIFT" build --scratch-path "$BUILD" --target NotesScreen \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$GRAPHS"
}
build
# Every module built needs its graph (a link may name any of them): one missing was removed after its
# module compiled, and only a build from scratch writes it again.
for module in "$BUILD"/debug/Modules/*.swiftmodule; do
    module=$(basename "$module" .swiftmodule)
    if [ ! -f "$GRAPHS/$module.symbols.json" ]; then
        echo "docs: no symbol graph of $module: building $BUILD from scratch"
        rm -rf "$BUILD"
        build
        break
    fi
done

# Type-check each ```swift block as a program of its own.
flags=(-typecheck -warnings-as-errors -I "$BUILD/debug/Modules")
for map in Sources/*/module.modulemap Sources/*/include/module.modulemap; do
    flags+=(-Xcc "-fmodule-map-file=$map")
done
# The system libraries' headers outside the default paths (libpq's, in /usr/include/postgresql).
for package in libpq; do
    for include in $(pkg-config --cflags-only-I "$package" 2>/dev/null); do flags+=(-Xcc "$include"); done
done
mkdir -p "$BUILD/snippets"
for module in "${MODULES[@]}"; do
    rm -f "$BUILD/snippets/$module"-*.swift
    awk -v prefix="$BUILD/snippets/$module" '
        /^```swift$/ { n++; file = sprintf("%s-%d.swift", prefix, n); printf "" > file; inside = 1; next }
        /^```$/ && inside { inside = 0; close(file); next }
        inside { print > file }
    ' "Sources/$module/$module.docc"/*.md
    for snippet in "$BUILD/snippets/$module"-*.swift; do
        [ -e "$snippet" ] || continue
        mkdir -p "${snippet%.swift}" && cp "$snippet" "${snippet%.swift}/main.swift"
        "$SWIFTC" "${flags[@]}" "${snippet%.swift}/main.swift" 2>&1 ||
            { echo "docs: an example of Sources/$module/$module.docc does not compile ($snippet)"; exit 1; }
    done
done

# Convert, each module's links into the others qualified first.
dependencies=()
archived=()
for module in "${MODULES[@]}"; do
    graphs=$BUILD/symbol-graphs-$module
    rm -rf "$graphs" "$OUT/$module.doccarchive"
    mkdir -p "$graphs" "$OUT"
    python3 - "$GRAPHS" "$module" "$graphs" "${archived[*]:-}" <<'EOF'
import glob, json, os, re, sys

graphs, module, out, archived = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
owner = {}  # a top-level symbol's name (or a module's) -> its module
own = {module}
for path in sorted(glob.glob(os.path.join(graphs, "*.symbols.json"))):
    name = os.path.basename(path)[: -len(".symbols.json")]
    if "@" in name:
        continue
    with open(path, encoding="utf-8") as file:
        symbols = json.load(file)["symbols"]
    # A function's path component is `name()`: its name is what a link starts with.
    names = {s["pathComponents"][0].split("(")[0] for s in symbols if len(s["pathComponents"]) == 1}
    if name == module:
        own |= names
    for symbol in names | {name}:
        owner.setdefault(symbol, name)

def qualify(match):
    first, rest = match[1], match[2]
    home = owner.get(first)
    if first in own or home is None:
        return match[0]
    path = first + rest if first == home else f"{home}/{first}{rest}"
    return f"``/{path}``" if home in archived else f"`{first}{rest}`"

link = re.compile(r"``([A-Za-z_][A-Za-z0-9_]*)([^`]*)``")
for path in glob.glob(os.path.join(graphs, f"{module}.symbols.json")) + glob.glob(
        os.path.join(graphs, f"{module}@*.symbols.json")):
    with open(path, encoding="utf-8") as file:
        graph = json.load(file)
    for symbol in graph["symbols"]:
        for line in (symbol.get("docComment") or {}).get("lines", []):
            line["text"] = link.sub(qualify, line["text"])
    with open(os.path.join(out, os.path.basename(path)), "w", encoding="utf-8") as file:
        json.dump(graph, file)
EOF
    "$DOCC" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
        --output-dir "$OUT/$module.doccarchive" --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.notes-page.$module" --enable-experimental-external-link-support \
        --warnings-as-errors ${dependencies[@]+"${dependencies[@]}"}
    echo "docs: $OUT/$module.doccarchive (Sources/$module/$module.docc, no warnings)"
    dependencies+=(--dependency "$OUT/$module.doccarchive")
    archived+=("$module")
done
