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
TEST_PACKAGES := $(BUILD_PACKAGES) postgresql-15

BENCH_DIR := .build/bench

# Fuzz targets whose short run (a fixed seed, seconds each) is part of `make test`: all of them
# (scripts/fuzz.sh).
FUZZ_SHORT_TARGETS ?= json jws certificate verifier response-reader router
# `make fuzz`: seconds per target, and which targets (all when empty).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
export FUZZ_SECONDS

.PHONY: all deps build run test fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh $(BUILD_PACKAGES)

## Release build; the binary is .build/release/revenuedot.
build: deps
	$(SWIFT) build -c release --product revenuedot

## Installs what is missing, builds, writes a demo config on first run, and serves it (SQLite).
run: build
	@[ -f revenuedot.json ] || .build/release/revenuedot init --config revenuedot.json
	.build/release/revenuedot serve --config revenuedot.json

## Installs what is missing, builds warning-free, checks formatting, runs every test (beside a
## throwaway PostgreSQL cluster), and fuzzes each of FUZZ_SHORT_TARGETS for a few seconds.
test: deps
	@scripts/install-deps.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) format lint --strict -r Sources Tests Benchmarks/Sources Fuzz/Sources
	scripts/with-postgres.sh $(SWIFT) test --skip-build
	SWIFT=$(SWIFT) scripts/fuzz.sh short $(FUZZ_SHORT_TARGETS)

## Fuzzes each target for FUZZ_SECONDS (default 600), one after another; fails if any crashed.
## What was found is in Fuzz/Output/<target>/crashes.
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh long $(FUZZ_TARGETS)

## Verification throughput against `openssl speed` and Apple's Python library, same run.
bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	$(SWIFT) build -c release --product revenuedot-bench
	$(SWIFT) build -c release --product revenuedot
	Benchmarks/run.sh $(BENCH_DIR)

clean:
	rm -rf .build
