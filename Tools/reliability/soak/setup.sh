# Sourced by Tools/reliability/soak.sh, from the repository root. What the soak needs: its tools, the
# release build of notes-page, a work directory (removed at exit unless SOAK_KEEP=1), the seed of its kill
# timings and the token its runs send.

need() { # need COMMAND DEBIAN-PACKAGE
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "soak: installing $2 (for $1)"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    command -v "$1" >/dev/null 2>&1 || { echo "soak: cannot install $2" >&2; exit 69; }
}

# prepare: installs what is missing, builds notes-page (release, scratch path $scratch), makes the work
# directory; sets $bin, $work, $random_seed, $token and $started.
prepare() {
    need node nodejs
    need /usr/bin/time time
    need pgrep procps
    need timeout coreutils
    need sqlite3 sqlite3
    need swift swift # no Debian package: the toolchain must be on PATH

    echo "soak: building notes-page (release, scratch path $scratch)"
    if ! swift build -c release --product notes-page --scratch-path "$scratch" >/tmp/notes-soak-build.$$ 2>&1; then
        tail -n 30 /tmp/notes-soak-build.$$ >&2
        rm -f /tmp/notes-soak-build.$$
        echo "soak: the release build failed" >&2
        exit 1
    fi
    rm -f /tmp/notes-soak-build.$$
    bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/notes-page

    work=$(mktemp -d "${TMPDIR:-/tmp}/notes-soak.XXXXXX")
    trap cleanup EXIT
    trap 'exit 130' INT TERM

    random_seed=${SOAK_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
    RANDOM=$random_seed
    token="soak-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    started=$(date +%s)
}

servers=()
cleanup() {
    local pid
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    if [ "${SOAK_KEEP:-0}" = 1 ]; then echo "soak: kept $work"; else rm -rf "$work"; fi
}

elapsed() { echo $(($(date +%s) - started)); }
