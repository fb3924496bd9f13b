#!/usr/bin/env bash
# Builds the libFuzzer targets (Sources/Fuzz*: every decoder of outside bytes; see Package.swift) with AddressSanitizer
# in .build-fuzz, and runs each on a scratch copy of its seed corpus (Tests/FuzzCorpus/<target>) with the JSON
# dictionary (Tests/FuzzCorpus/json.dict). Prints per target the executions, the coverage reached (cov: edges, ft:
# features) and the executions per second, and fails when any target crashed, broke one of its properties, leaked,
# hung (-timeout, 1 s) or took more than FUZZ_SLOW_MS (100) ms of CPU time on one input, naming the input it saved.
#
#   scripts/fuzz.sh [--seconds N | --runs N] [--build-only] [TARGET...]
#
# --seconds N runs each target for N seconds (default 20; `make fuzz-ci`), --runs N for N executions (`make fuzz`:
# 1,000,000); TARGET... picks targets (default: all). The committed corpus is never written: each run starts from a
# fresh copy in .build-fuzz/runs/<target>/corpus, and what libFuzzer adds stays there; crashing inputs are written
# to .build-fuzz/runs/<target>/artifacts/ (replay one with `.build-fuzz/release/<target> FILE`).
#
# Environment: SWIFT (swift), SWIFT_BUILD_LOCK (/tmp/swift-build.lock, taken around each build with flock when it
# exists; empty for none), FUZZ_RSS_MB (2048), FUZZ_SLOW_MS (100).
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
LOCK=${SWIFT_BUILD_LOCK-/tmp/swift-build.lock}
RSS_MB=${FUZZ_RSS_MB:-2048}
SCRATCH=.build-fuzz
CORPUS=Tests/FuzzCorpus
ALL_TARGETS=(FuzzFastReaders FuzzTimestamp FuzzGeoJSON FuzzCommands FuzzDeviceMessages FuzzDashboard FuzzPhoneBridge FuzzPhoneExports
    FuzzPhotoAnswers)

limit=(-max_total_time=20)
build_only=false
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) limit=("-max_total_time=$2"); shift 2 ;;
    --runs) limit=("-runs=$2"); shift 2 ;;
    --build-only) build_only=true; shift ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    Fuzz*) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")

# Builds share the machine: one at a time, under the lock the other builds take.
locked() {
    if [ -n "$LOCK" ] && command -v flock >/dev/null; then flock "$LOCK" "$@"; else "$@"; fi
}

# The sanitizers go to swiftc as one flag, last: swift-driver keeps only the last `-sanitize=` it is given, and SwiftPM
# writes `--sanitize=fuzzer --sanitize=address` as two, in an order that changes from run to run (a Set), so a module
# came out with AddressSanitizer and no coverage, or the reverse (the run then fails as NO-COV, below).
# `--sanitize=fuzzer` stays for SwiftPM itself: with it, the executables get libFuzzer's `main`.
swift_fuzz() {
    STEPCOMPASS_FUZZ=1 locked "$SWIFT" build -c release --scratch-path "$SCRATCH" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address "$@"
}

build() {
    # gold warns about every ASan helper symbol it cannot export; the warnings say nothing about the build.
    swift_fuzz "$@" 2>&1 | { grep -v "warning: Cannot export local symbol" || true; }
    return "${PIPESTATUS[0]}"
}

started=$(date +%s)
for target in "${targets[@]}"; do
    [ -d "Sources/$target" ] || { echo "fuzz.sh: no target $target" >&2; exit 2; }
    echo "==> building $target"
    if ! build --product "$target"; then
        echo "fuzz.sh: the build of $target failed" >&2
        exit 1
    fi
done
bin=$(swift_fuzz --show-bin-path)
echo "==> built ${#targets[@]} target(s) in $(($(date +%s) - started)) s ($bin)"
$build_only && exit 0

# The value of `key: N` on a libFuzzer status line.
field() { sed -n "s/.* $1: \([0-9][0-9]*\).*/\1/p" <<<"$2"; }

summary=()
failed=0
for target in "${targets[@]}"; do
    work="$SCRATCH/runs/$target"
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp "$CORPUS/$target"/* "$work/corpus/"
    log="$work/fuzz.log"
    echo "==> fuzzing $target (${limit[*]}; log $log)"
    status=0
    # The Swift runtime's backtracer would hold the output open after a crash; libFuzzer and ASan report it.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$bin/$target" "${limit[@]}" -timeout=1 \
        -rss_limit_mb="$RSS_MB" -dict="$CORPUS/json.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
        "$work/corpus" >"$log" 2>&1 || status=$?
    grep -E "^#[0-9]+[[:space:]]+(INITED|pulse|DONE)|FUZZ PROPERTY FAILED|ERROR: |SUMMARY: |Test unit written|Slowest unit" "$log" || true

    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E "^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)" "$log" | tail -n 1 || true)
    cov=$(field cov "$last")
    ft=$(field ft "$last")
    corpus=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    result=ok
    if [ "$status" -eq 0 ] && ! grep -qE "INITED cov: [1-9]" "$log"; then
        # Without coverage libFuzzer only mutates its seeds at random: a build problem, not a pass.
        failed=1
        result=NO-COV
        echo "--- $target: no coverage; is it built with -sanitize=fuzzer? ($log)"
    elif [ "$status" -ne 0 ] || [ -n "$artifact" ]; then
        failed=1
        if grep -q "slow input" "$log"; then
            result=SLOW
        elif grep -q "FUZZ PROPERTY FAILED" "$log"; then
            result=PROPERTY
        elif grep -q "ERROR: libFuzzer: timeout" "$log"; then
            result=TIMEOUT
        elif grep -q "ERROR: LeakSanitizer" "$log"; then
            result=LEAK
        elif grep -q "out-of-memory" "$log"; then
            result=OOM
        elif grep -q "libFuzzer: run interrupted" "$log"; then
            # Stopped from outside (SIGTERM or SIGINT, exit 72): nothing was found, but the run is not complete.
            result=STOPPED
        else
            result=CRASH
        fi
        echo "--- $target: $result (exit $status); the last lines of $log:"
        tail -n 40 "$log"
    fi
    summary+=("$(printf '%-20s %-9s %12s %8s %8s %14s %8s  %s' "$target" "$result" "${executions:-?}" "${cov:-?}" "${ft:-?}" \
        "${corpus:-?}" "${per_second:-?}" "${artifact:-}")")
done

echo
printf '%-20s %-9s %12s %8s %8s %14s %8s  %s\n' target result executions cov ft corpus exec/s input
printf '%s\n' "${summary[@]}" | tee "$SCRATCH/summary.txt"
echo "==> $(($(date +%s) - started)) s in all"
exit "$failed"
