# RevenueDot: `make run` and `make test` are the two set-up commands (see README.md).
SHELL := /bin/bash
SWIFT ?= swift

# C libraries the package links (system-library targets), and the tools to find them;
# ca-certificates for the system trust store https webhooks verify against; the openssl command
# and python3 for the tests' throwaway CA and TLS receivers.
BUILD_PACKAGES := pkg-config libssl-dev libsqlite3-dev libpq-dev libmicrohttpd-dev libzstd-dev ca-certificates openssl python3
# `make bench` compares against `openssl speed` and Apple's Python library.
BENCH_PACKAGES := $(BUILD_PACKAGES) python3-venv zstd postgresql-15
# The storage contract runs against a throwaway PostgreSQL 15 cluster too (scripts/with-postgres.sh).
# The deployment files are checked by the tools that read them (systemd-analyze, nginx -t); the
# reference pages' JavaScript snippets run with Node (make docs-check), and /docs is read in
# headless Chromium through Selenium.
TEST_PACKAGES := $(BUILD_PACKAGES) postgresql-15 systemd nginx nodejs chromium chromium-driver python3-selenium

BENCH_DIR := .build/bench

# Fuzz targets whose short run (a fixed seed, seconds each) is part of `make test`: all of them
# (scripts/fuzz.sh).
FUZZ_SHORT_TARGETS ?= json jws certificate verifier response-reader router
# `make fuzz`: seconds per target, and which targets (all when empty).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
export FUZZ_SECONDS

.PHONY: all deps build run test fuzz bench clean install install-files docs docs-check

all: build

deps:
	@scripts/install-deps.sh $(BUILD_PACKAGES)

# Release builds link Swift's runtime and Foundation statically, so the binary needs no Swift
# toolchain where it runs, only the Debian libraries README "Deploying" lists. The bench builds
# the same way, so it measures the binary that is installed.
SWIFT_RELEASE_FLAGS ?= -c release --static-swift-stdlib

## Release build; the binary is .build/release/revenuedot.
build: deps
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS) --product revenuedot

## Installs what is missing, builds, writes a demo config on first run, and serves it (SQLite).
run: build
	@[ -f revenuedot.json ] || .build/release/revenuedot init --config revenuedot.json
	.build/release/revenuedot serve --config revenuedot.json

# `make install`: where the binary, the systemd unit, the sysusers entry and the nginx example go
# (DESTDIR prefixes them all, for packaging and for the test that checks the installed files).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_BINARY ?= .build/release/revenuedot
SYSTEMD_UNIT_DIR ?= /etc/systemd/system
SYSUSERS_DIR ?= /usr/lib/sysusers.d

## Release build, then installs it with its systemd unit (README "Deploying"); as root.
install: build install-files
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers && chgrp revenuedot /etc/revenuedot; fi
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "installed $(PREFIX)/bin/revenuedot $$($(DESTDIR)$(PREFIX)/bin/revenuedot --version | cut -d' ' -f2-)"

install-files:
	install -D -m 0755 $(INSTALL_BINARY) $(DESTDIR)$(PREFIX)/bin/revenuedot
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed 's|/usr/local/bin/revenuedot|$(PREFIX)/bin/revenuedot|g' contrib/revenuedot.service \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/revenuedot.service
	install -D -m 0644 contrib/revenuedot.sysusers $(DESTDIR)$(SYSUSERS_DIR)/revenuedot.conf
	install -D -m 0644 contrib/nginx.conf $(DESTDIR)$(PREFIX)/share/revenuedot/nginx.conf
	install -d -m 0750 $(DESTDIR)/etc/revenuedot

## Installs what is missing, builds warning-free, checks formatting, runs every test (beside a
## throwaway PostgreSQL cluster), and fuzzes each of FUZZ_SHORT_TARGETS for a few seconds.
test: deps
	@scripts/install-deps.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) format lint --strict -r Sources Tests Benchmarks/Sources Fuzz/Sources Plugins
	@# Every test is a Swift Testing test: XCTest's runner would only print "Executed 0 tests".
	@# STRICT: suites that need a tool installed above run, and fail if it is missing.
	REVENUEDOT_TEST_STRICT=1 scripts/with-postgres.sh $(SWIFT) test --skip-build --disable-xctest
	SWIFT=$(SWIFT) scripts/fuzz.sh short $(FUZZ_SHORT_TARGETS)
	$(MAKE) --no-print-directory docs-check

## Regenerates the notification reference: docs/notifications and its Swift snippets.
docs: deps
	$(SWIFT) build --product revenuedot
	.build/debug/revenuedot docs --out docs/notifications --snippets docs/snippets/swift

## The reference pages are what the code writes, and every page's example code (JavaScript with
## Node, Swift against RevenueDot's modules) prints the output its page states.
docs-check:
	@scripts/install-deps.sh nodejs
	$(SWIFT) build --product revenuedot
	$(SWIFT) build --product revenuedot-docs-snippets
	.build/debug/revenuedot docs --check docs/notifications --snippets docs/snippets/swift \
		--swift-runner .build/debug/revenuedot-docs-snippets --node "$$(command -v node)"

## Fuzzes each target for FUZZ_SECONDS (default 600), one after another; fails if any crashed.
## What was found is in Fuzz/Output/<target>/crashes.
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh long $(FUZZ_TARGETS)

## Verification throughput against `openssl speed` and Apple's Python library, same run.
bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS) --product revenuedot-bench
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS) --product revenuedot
	Benchmarks/run.sh $(BENCH_DIR)

clean:
	rm -rf .build
