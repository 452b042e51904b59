# notes-page: build, test, demo. Every target installs what it needs first (Debian, as root or with sudo).

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SWIFT_SOURCES := Package.swift Sources Tests $(wildcard Benchmarks/*.swift Benchmarks/*/)

.PHONY: all deps build release demo test test-swift test-node lint format clean bench bench-quick

all: build

## deps: install the Debian packages the build and tests need, if missing.
deps:
	@missing=""; \
	for package in libyajl-dev libcurl4-openssl-dev pkg-config; do dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	[ -x /usr/bin/time ] || missing="$$missing time"; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## demo: the main job end to end on a built-in default.
demo: release
	@Tools/demo.sh

## test: every test: formatting, Swift (unit and end to end), Node.
test: deps lint test-swift test-node

test-swift: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-node: deps
	node --test Tools/

## bench: the full benchmarks (1,000,000 notes); ARGS="--save NAME" or ARGS="--compare NAME" to track.
bench: deps
	$(SWIFT) run -c release benchmarks $(ARGS)

## bench-quick: the same harness on small inputs, so that it cannot rot (figures not of record).
bench-quick: deps
	$(SWIFT) run -c release benchmarks --quick $(ARGS)

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

clean:
	rm -rf .build

# BEGIN reliability targets
# END reliability targets
