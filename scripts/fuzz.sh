#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs them.
#
#   scripts/fuzz.sh build [TARGET...]   build with -sanitize=fuzzer,address (.build/fuzz)
#   scripts/fuzz.sh short [TARGET...]   `make test`: a fixed seed, a few seconds each, over the
#                                       seed corpus and the saved reproducers; fails on a crash
#   scripts/fuzz.sh long  [TARGET...]   `make fuzz`: FUZZ_SECONDS each (default 600), one target
#                                       at a time, going on past crashes; fails if any was found
#   scripts/fuzz.sh triage [TARGET...]  each crash a long run found, once per place it stops
#                                       (the first frame in our sources) with its smallest input
#
# TARGET is json, jws, certificate, verifier, response-reader or router (all when none given).
# Seeds are in Fuzz/Corpus/<target>, reproducers of crashes found before in Fuzz/Crashes/<target>,
# token lists for libFuzzer in Fuzz/Dictionaries/<target>.dict.
# A long run keeps what it learns in Fuzz/Output/<target>/corpus and writes what it finds to
# Fuzz/Output/<target>/crashes (git ignores Fuzz/Output). To see a crash again:
#   .build/fuzz/release/fuzz-<target> FILE             (the sanitizer's report and stack)
#   swift build --product fuzz-<target> && .build/debug/fuzz-<target> FILE   (messages, lldb)
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(json jws certificate verifier response-reader router)
SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_SHORT_SECONDS=${FUZZ_SHORT_SECONDS:-5}
BIN=.build/fuzz/release
OUT=Fuzz/Output
# libFuzzer's own report is enough; Swift's backtracer would symbolicate the same crash again.
export SWIFT_BACKTRACE=enable=no
# Swift's Data keeps its storage behind tagged pointers LeakSanitizer cannot follow, so every
# global Data would be reported as a leak.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# The longest input per target: the seeds' size and some room, within what the target reads.
max_len() {
    case $1 in
        jws | verifier) echo 32768 ;;
        json) echo 16384 ;;
        certificate | response-reader) echo 8192 ;;
        router) echo 1024 ;;
    esac
}

# How many inputs a short run tries: about FUZZ_SHORT_SECONDS on a slow CI core, so that the
# run is the same inputs every time (the time limit only stops a slower machine earlier).
short_runs() {
    case $1 in
        response-reader) echo 40000 ;;
        json) echo 30000 ;;
        router) echo 20000 ;;
        certificate) echo 10000 ;;
        jws) echo 8000 ;;
        verifier) echo 3000 ;;
    esac
}

# libFuzzer's -dict for a target that has one: tokens it would take long to guess (JSON syntax, header
# names, boundary integers such as Int64.min).
dict() {
    [ -f "Fuzz/Dictionaries/$1.dict" ] && echo "-dict=Fuzz/Dictionaries/$1.dict" || true
}

check_targets() {
    for target in "$@"; do
        [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || { echo "fuzz: unknown target $target (${ALL_TARGETS[*]})" >&2; exit 2; }
    done
}

build() {
    for target in "$@"; do
        "$SWIFT" build -c release --scratch-path .build/fuzz \
            -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product "fuzz-$target"
    done
}

short() {
    local failed=()
    for target in "$@"; do
        local work
        work=$(mktemp -d)
        mkdir -p "$OUT/$target/crashes"
        local inputs=("Fuzz/Corpus/$target")
        [ -d "Fuzz/Crashes/$target" ] && inputs+=("Fuzz/Crashes/$target")
        echo "fuzz: $target, $(short_runs "$target") runs or ${FUZZ_SHORT_SECONDS}s"
        if ! "$BIN/fuzz-$target" -seed=1 -runs="$(short_runs "$target")" -max_total_time="$FUZZ_SHORT_SECONDS" \
            -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $(dict "$target") \
            -artifact_prefix="$OUT/$target/crashes/" "$work" "${inputs[@]}" >"$work.log" 2>&1; then
            failed+=("$target")
            tail -n 60 "$work.log"
        else
            grep -E '^(Done|stat::number_of_executed_units)' "$work.log" || true
        fi
        rm -rf "$work" "$work.log"
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "fuzz: crashed: ${failed[*]} (inputs in $OUT/<target>/crashes)" >&2
        exit 1
    fi
}

long() {
    local found=()
    for target in "$@"; do
        mkdir -p "$OUT/$target/corpus" "$OUT/$target/crashes"
        echo "fuzz: $target for ${FUZZ_SECONDS}s (log: $OUT/$target/log)"
        "$BIN/fuzz-$target" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
            -max_total_time="$FUZZ_SECONDS" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 $(dict "$target") \
            -artifact_prefix="$OUT/$target/crashes/" "$OUT/$target/corpus" "Fuzz/Corpus/$target" \
            >"$OUT/$target/log" 2>&1 || true
        grep -E '^#[0-9]+: cov' "$OUT/$target/log" | tail -n 1 || true
        local crashes
        crashes=$(find "$OUT/$target/crashes" -type f | wc -l)
        if [ "$crashes" -gt 0 ]; then
            found+=("$target")
            echo "fuzz: $target: $crashes input(s) in $OUT/$target/crashes"
        fi
    done
    if [ ${#found[@]} -gt 0 ]; then
        echo "fuzz: found crashes in: ${found[*]}" >&2
        exit 1
    fi
}

# One line per distinct crash: the first frame in Sources/ or Fuzz/Sources/, the input that shows it
# with the fewest bytes, and how many inputs stop there.
triage() {
    for target in "$@"; do
        local dir="$OUT/$target/crashes"
        [ -d "$dir" ] || continue
        for input in "$dir"/*; do
            [ -f "$input" ] || continue
            local place
            place=$("$BIN/fuzz-$target" -runs=1 -rss_limit_mb=2048 "$input" 2>&1 \
                | grep -oE '(Fuzz/)?Sources/[^ ]+\.swift:[0-9]+' | grep -v 'Fuzz/Sources/FuzzSupport' | head -n 1 || true)
            echo "${place:-?} $(wc -c <"$input") $input"
        done | sort -k1,1 -k2,2n | awk -v target="$target" \
            '{ count[$1]++; if (!($1 in first)) first[$1] = $3 " (" $2 " bytes)" }
             END { for (p in first) printf "%s: %s, %d input(s), e.g. %s\n", target, p, count[p], first[p] }'
    done
}

command=${1:-}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${ALL_TARGETS[@]}")
check_targets "${targets[@]}"
case $command in
    build) build "${targets[@]}" ;;
    short) build "${targets[@]}" && short "${targets[@]}" ;;
    long) build "${targets[@]}" && long "${targets[@]}" ;;
    triage) triage "${targets[@]}" ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
