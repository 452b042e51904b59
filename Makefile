# notes-page: build, test, demo. Every target installs what it needs first (Debian, as root or with sudo).

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SWIFT_SOURCES := Package.swift Sources Tests $(wildcard Benchmarks/*.swift Benchmarks/*/)

.PHONY: all deps build release demo test test-swift test-node lint format clean bench bench-quick perf-table mutants mutants-ci first-try

all: build

## deps: install the Debian packages the build and tests need, if missing.
deps:
	@missing=""; \
	for package in libyajl-dev libyaml-dev libcurl4-openssl-dev libsqlite3-dev sqlite3 libpq-dev postgresql-15 pkg-config node-graphql; do dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	[ -x /usr/bin/time ] || missing="$$missing time"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	command -v gdb >/dev/null 2>&1 || missing="$$missing gdb"; \
	for shell in zsh fish; do command -v $$shell >/dev/null 2>&1 || missing="$$missing $$shell"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@slurm=""; \
	for package in slurmctld slurmd slurm-client munge; do dpkg -s $$package >/dev/null 2>&1 || slurm="$$slurm $$package"; done; \
	if [ -n "$$slurm" ]; then \
		echo "Installing:$$slurm"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$slurm; } \
			|| echo 'deps: no Slurm: the Slurm test runs its workers as local processes'; \
	fi
	@Tools/apps/drf/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no Django REST framework: its tests are skipped'; }
	@Tools/apps/fastapi/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no FastAPI: its tests are skipped'; }
	@Tools/apps/datasette/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no Datasette: its tests are skipped'; }
	@Tools/apps/kinto/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no Kinto: its tests are skipped'; }
	@Tools/apps/smorest/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no flask-smorest: its tests are skipped'; }
	@Tools/apps/eve/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no Eve: its tests are skipped'; }
	@Tools/apps/django-apis/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no django-ninja, tastypie or Wagtail: its tests are skipped'; }
	@Tools/apps/litestar/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no Litestar: its tests are skipped'; }
	@Tools/apps/pygeoapi/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no pygeoapi: its tests are skipped'; }
	@Tools/apps/moto/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no moto: its tests are skipped'; }
	@Tools/apps/oauth/install.sh || { [ "$${CI:-}" != true ] && echo 'deps: no django-oauth-toolkit: its tests are skipped'; }

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## demo: the main job end to end on a built-in default.
demo: release
	@Tools/demo.sh

## test: every test: formatting, Swift (unit and end to end), Node.
test: deps lint test-swift test-node

## A run takes some four minutes here; a hang prints every thread's stack and fails instead of waiting forever.
TEST_LIMIT ?= 900

## At most this many Swift tests run at once. Unbounded, every end-to-end test starts its servers together
## and the test process holds a thousand descriptors for a while (see Tests/TestSupport/Children.swift);
## sixteen hold some two hundred, and the run takes less time, not more.
TEST_WIDTH ?= 16

test-swift: deps
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) Tools/watchdog.sh $(TEST_LIMIT) $(SWIFT) test --skip-build

test-node: deps
	Tools/watchdog.sh $(TEST_LIMIT) node --test Tools/

## bench: the full benchmarks (1,000,000 notes); ARGS="--save NAME" or ARGS="--compare NAME" to track,
## ARGS="--report FILE.html" for the HTML report of the run beside the saved baselines.
bench: deps
	@Benchmarks/peers/install.sh || echo 'bench: no sqlite-utils or dlt: store/sqlite-utils and store/dlt are skipped'
	$(SWIFT) run -c release benchmarks $(ARGS)

## bench-quick: the same harness on small inputs, and the HTML report of that run beside the saved baselines
## (.build/benchmarks/report-quick.html), so that neither can rot (figures not of record).
bench-quick: deps
	@mkdir -p .build/benchmarks
	$(SWIFT) run -c release benchmarks --quick --report .build/benchmarks/report-quick.html $(ARGS)

## first-try: every endpoint of the real framework apps of Tools/ walked with no options (a table for
## docs/pagination.md).
first-try: release
	Tools/first-try.sh .build/release/notes-page

## perf-table: rewrite the table in docs/performance.md from the newest saved baseline in Benchmarks/Baselines
## (nothing is measured; the same baselines give the same bytes).
perf-table: deps
	$(SWIFT) run benchmarks --baseline-table docs/performance.md

## mutants: mutation testing: applies each breakage in Tools/reliability/mutants/mutants.txt (format in its
## header) to a copy of the tree in .build/mutants, builds it (incrementally) and runs that entry's tests, which
## must fail ("killed": the run stops at the first failing test); a mutant whose tests still pass "survived" and
## fails the target. Each mutant's time (build, tests) is printed, and the 10 slowest at the end (17 minutes for
## 198 entries on 2 cores). MUTANTS_ARGS="--only NAME" picks entries; mutants-ci runs only those marked `ci: yes`
## (CI adds MUTANTS_ARGS=--in-place: the clean clone's own tree and build, after make test).
mutants: deps
	SWIFT=$(SWIFT) Tools/reliability/mutants/run.py $(MUTANTS_ARGS)

mutants-ci: deps
	SWIFT=$(SWIFT) Tools/reliability/mutants/run.py --ci $(MUTANTS_ARGS)

## The tests open files only through TestSupport.Files (O_CLOEXEC): Foundation's file calls do not set it,
## and a file open at the start of another test's child is handed to it. Every mutation must still apply.
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)
	@! grep -rnE 'write\(to(File)?:|contentsOfFile:|Data\(contentsOf:|FileHandle\(for|fopen\(' Tests \
		--include='*.swift' | grep -v '^Tests/TestSupport/Files.swift' \
		|| { echo 'lint: open test files with TestSupport.Files (closed on exec), not Foundation'; exit 1; }
	@out=$$(Tools/reliability/mutants/run.py --list 2>&1) || { echo "$$out" | grep -i 'must occur'; \
		echo 'lint: a mutation in Tools/reliability/mutants/mutants.txt no longer applies'; exit 1; }

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

clean:
	rm -rf .build

# BEGIN reliability targets
# Reliability: libFuzzer on the page decoder and on the fetch layer, every Swift test under AddressSanitizer
# and under ThreadSanitizer, and a soak against the hostile fixture server. Each has its own scratch path, so
# none of them rebuilds .build's debug products. CI runs `make fuzz SECONDS=30` and `make soak SECONDS=30`;
# `make fuzz-fetch SECONDS=30` takes under three minutes from a clean state, its build included.

SECONDS ?= 60
FUZZ_BUILD ?= .build/fuzz
FUZZ_FETCH_BUILD ?= .build/fuzz-fetch
ASAN_BUILD ?= .build/asan
TSAN_BUILD ?= .build/tsan
SOAK_BUILD ?= .build

.PHONY: fuzz fuzz-fetch fuzz-source asan tsan soak

## fuzz: libFuzzer with ASan on PageDecoder for SECONDS (default 60); a finding is minimized into
## Fixtures/regressions/ (read by Tests/NotesPageTests/RegressionTests.swift) and fails the target.
fuzz: deps
	FUZZ_BUILD=$(FUZZ_BUILD) Tools/reliability/fuzz/fuzz.sh $(SECONDS)

## fuzz-fetch: libFuzzer with ASan (and UBSan where swiftc has it for Swift) on the fetch layer's handling of
## what a server sends (Tools/reliability/fuzz/FuzzFetch.swift; its driver is
## Tests/NotesFetchTests/FetchDriver*.swift) for SECONDS: next values, page URLs and header fields through
## every pagination scheme, the attempt state machine, Retry-After and rate limits, without a network. A trap,
## a URL that PageLocator.urlProblem accepts but RFC 3986 does not, or a wait past its cap is minimized into
## Fixtures/regressions-fetch/ (replayed by Tests/NotesFetchTests/FetchRegressionTests.swift) and fails the
## target. SECONDS=0 only builds it.
fuzz-fetch: deps
	FUZZ_BUILD=$(FUZZ_FETCH_BUILD) Tools/reliability/fuzz/fuzz-fetch.sh $(SECONDS)

## fuzz-source: libFuzzer with ASan on a sync's source file (YAML or JSON, Tools/reliability/fuzz/FuzzSource.swift)
## for SECONDS; a finding is minimized into Fixtures/regressions-source/.
fuzz-source: deps
	FUZZ_BUILD=.build/fuzz-source Tools/reliability/fuzz/fuzz-source.sh $(SECONDS)

## asan: every Swift test under AddressSanitizer with LeakSanitizer. Suppressed, as leaks of the toolchain's
## libraries, not of this package: swift-foundation's Data(contentsOf:) leaks its 4 KiB read buffer on an
## empty file (JSONTestSuite's n_structure_no_data.json), Foundation's Process.run leaks a 32-byte weak
## reference side table now and then, XCTest's runner leaks its empty suites at exit, and FoundationNetworking
## never cleans up the libcurl handles behind a URLSession (URLSessionTransport's tests run in the test
## process, and `--transport urlsession` in notes-page-urlsession): a few strings each, allocated inside
## libcurl, whose frames the fast unwinder cannot get past, so the suppression names libcurl.
asan: deps
	@mkdir -p $(ASAN_BUILD)
	@printf '%s\n' 'leak:readBytesFromFile' 'leak:Foundation7ProcessC3run' 'leak:libXCTest.so' 'leak:libcurl.so.4' \
		>$(ASAN_BUILD)/lsan.supp
	$(SWIFT) build --build-tests --sanitize=address --scratch-path $(ASAN_BUILD)
	NOTES_SANITIZER=address LSAN_OPTIONS=suppressions=$(abspath $(ASAN_BUILD))/lsan.supp:print_suppressions=1 \
		$(SWIFT) test --skip-build --sanitize=address --scratch-path $(ASAN_BUILD)

## tsan: every Swift test under ThreadSanitizer. The end-to-end tests run notes-page built with TSan too: a
## report there makes it exit 66 (TSan's exit code), which fails the test that ran it, with every report
## of the run in that test's captured stderr.
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_BUILD)
	NOTES_SANITIZER=thread TSAN_OPTIONS=exitcode=66:second_deadlock_stack=1 \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_BUILD)

## soak: notes-page fetch --all (release) against every fault of Tools/fixture-server/notes-server.mjs, with
## kill -9 and resume, for SECONDS (default 60); prints a table and fails on any lost or doubled note,
## undocumented exit code, memory over the bound or leaked token.
soak: deps
	SOAK_BUILD=$(SOAK_BUILD) Tools/reliability/soak.sh $(SECONDS)
# END reliability targets

# BEGIN install and docs targets
PREFIX ?= /usr/local
BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
# notes-page runs notes-page-urlsession from its own directory for `fetch --transport urlsession`.
PROGRAMS := notes-page notes-page-urlsession notes-gen
COMPLETED := notes-page notes-gen
DOCS_BUILD ?= .build/docs-build

.PHONY: install uninstall install-check docs

## install: the release build's notes-page, notes-page-urlsession (where it is built; notes-page runs it from
## beside itself) and notes-gen into $(PREFIX)/bin (default /usr/local), and their bash, zsh and fish
## completion scripts into $(PREFIX)/share/{bash-completion/completions,zsh/site-functions,
## fish/vendor_completions.d}; DESTDIR=<dir> installs under <dir> instead (a package's staging root).
install: release
	@bin=$$($(SWIFT) build -c release --show-bin-path) && \
	install -d "$(BINDIR)" "$(SHAREDIR)/bash-completion/completions" "$(SHAREDIR)/zsh/site-functions" \
		"$(SHAREDIR)/fish/vendor_completions.d" && \
	for program in $(PROGRAMS); do \
		[ ! -x "$$bin/$$program" ] || install -v -m 755 "$$bin/$$program" "$(BINDIR)/$$program" || exit 1; \
	done && \
	for command in $(COMPLETED); do \
		"$$bin/$$command" --generate-completion-script bash >"$(SHAREDIR)/bash-completion/completions/$$command" && \
		"$$bin/$$command" --generate-completion-script zsh >"$(SHAREDIR)/zsh/site-functions/_$$command" && \
		"$$bin/$$command" --generate-completion-script fish >"$(SHAREDIR)/fish/vendor_completions.d/$$command.fish" && \
		echo "completion scripts of $$command -> $(SHAREDIR)" || exit 1; \
	done

## uninstall: removes what install put under $(PREFIX) (and DESTDIR), with the same PREFIX and DESTDIR.
uninstall:
	rm -f $(foreach program,$(PROGRAMS),"$(BINDIR)/$(program)") \
		$(foreach command,$(COMPLETED),"$(SHAREDIR)/bash-completion/completions/$(command)" \
			"$(SHAREDIR)/zsh/site-functions/_$(command)" "$(SHAREDIR)/fish/vendor_completions.d/$(command).fish")

## install-check: install into a temporary DESTDIR with PREFIX=/usr, check every file is there, that the
## installed notes-page and notes-gen run (--version) and that `fetch --transport urlsession` finds
## notes-page-urlsession beside notes-page; then uninstall and check nothing is left. CI runs it.
install-check: release
	@set -e; root=$$(mktemp -d); trap 'rm -rf "$$root"' EXIT; \
	$(MAKE) --no-print-directory install DESTDIR="$$root" PREFIX=/usr >/dev/null; \
	for file in bin/notes-page bin/notes-page-urlsession bin/notes-gen \
		share/bash-completion/completions/notes-page share/zsh/site-functions/_notes-page \
		share/fish/vendor_completions.d/notes-page.fish share/bash-completion/completions/notes-gen \
		share/zsh/site-functions/_notes-gen share/fish/vendor_completions.d/notes-gen.fish; do \
		[ -s "$$root/usr/$$file" ] || { echo "install-check: $$file was not installed"; exit 1; }; \
	done; \
	"$$root/usr/bin/notes-page" --version; "$$root/usr/bin/notes-gen" --version; \
	bash -n "$$root/usr/share/bash-completion/completions/notes-page"; \
	if "$$root/usr/bin/notes-page" fetch --transport urlsession --retries 0 --quiet http://127.0.0.1:9/notes 2>&1 \
		| grep 'not beside this program'; then exit 1; fi; \
	$(MAKE) --no-print-directory uninstall DESTDIR="$$root" PREFIX=/usr >/dev/null; \
	left=$$(find "$$root" -type f); \
	[ -z "$$left" ] || { echo "install-check: left after uninstall: $$left"; exit 1; }; \
	echo 'install-check: installed, ran (--version, --transport urlsession) and uninstalled'

## docs: the DocC archives of NotesPage, NotesFetch and NotesScreen in .build/docs/<Module>.doccarchive, by the
## toolchain's docc with warnings as errors, from the symbol graphs of a build of their own ($(DOCS_BUILD):
## .build's debug products are not rebuilt); each catalog's Swift examples must compile (Tools/docs.sh).
docs: deps
	SWIFT=$(SWIFT) DOCS_BUILD=$(DOCS_BUILD) Tools/docs.sh
# END install and docs targets
