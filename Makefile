# StepCompass: the two commands of the README.
#   make run   runs the stack (a private broker and every service, the simulated walker by default)
#   make test  runs the tests
# Both install what is missing (see scripts/ensure-deps.sh).

MQTT_PORT ?= 1883
DASHBOARD_PORT ?= 8080
# The phone bridge's HTTP push (Sensor Logger) and the broker's MQTT-over-WebSockets listener.
BRIDGE_PORT ?= 8090
WS_PORT ?= 9001
# SENSORS=off leaves the simulated walker out (a phone or your own publisher provides the device inputs).
SENSORS ?= on
# The walk journal's photos: local (a stand-in for Wikimedia Commons and Flickr on PHOTO_PORT, empty: the
# first free port from 8095; no network) or online (Wikimedia Commons, or Flickr with FLICKR_KEY).
PHOTOS ?= local
PHOTO_PORT ?=
# Every service's Prometheus metrics (scripts/run-stack.sh): METRICS_BASE (9101) and up, one port each (METRICS=off for
# none); PROMETHEUS=on also runs prometheus scraping them on PROMETHEUS_PORT (9090). Set them in the environment.
SWIFT ?= swift

.PHONY: run test deps build release tsan benchmark clean lint format

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build -c release

run: release
	@MQTT_PORT=$(MQTT_PORT) DASHBOARD_PORT=$(DASHBOARD_PORT) BRIDGE_PORT=$(BRIDGE_PORT) WS_PORT=$(WS_PORT) SENSORS=$(SENSORS) \
		PHOTOS=$(PHOTOS) PHOTO_PORT=$(PHOTO_PORT) scripts/run-stack.sh

# The tests run in three groups, one after the other, each in parallel: the pure libraries (CPU-bound: step
# detection over simulated carries, calibration, spatial index brute force, fuzzing), then everything with
# servers and processes, then the pipeline end-to-end test, which drives three services at 15x real time. On a
# 2-core machine a CPU-bound test holds one of Swift's two cooperative threads, and the tests that wait for a
# broker or a child process would wait behind it.
PURE_TESTS = ^(ActivityKitTests|CompassKitTests|DashboardKitTests|GeoMagnetismTests|JournalKitTests|MarkerKitTests|PhoneFormatsTests|PositionKitTests|StepDetectionTests|WalkerSimulationTests)\.

# The code's layout (.swift-format: 4 spaces, 150 columns): `make format` rewrites it in place, `make lint` (run by
# make test, first) fails on any file that `make format` would change.
SWIFT_FORMAT_PATHS = Package.swift Sources Tests Benchmarks

format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_FORMAT_PATHS)

lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_FORMAT_PATHS)

# After the tests: a short chaos run (CHAOS_SHORT_ARGS, below), the compose checks, the browser check, then every
# fuzz target for 20 s (make fuzz-ci; its own build in .build-fuzz, about 1 minute, then 3 minutes of fuzzing).
# The AsyncAPI checks come first: they make .build/venv-asyncapi, whose Python (PyYAML, jsonschema) the server
# group's stack contract test (Tests/StackTests/StackContractTests.swift) validates its capture with.
#
# The temporary files of the tests and the chaos run (the child processes' logs, the brokers' and services' folders,
# the test databases) go to one folder per checkout, TEST_TMPDIR: emptied when make test starts, removed when it
# passes. A failed run leaves them there to read.
TEST_TMPDIR = /tmp/stepcompass-test-$(shell printf '%s' '$(CURDIR)' | cksum | cut -d' ' -f1)
test: lint build
	@rm -rf $(TEST_TMPDIR) && mkdir -m 700 $(TEST_TMPDIR)
	scripts/check-asyncapi-all.sh
	TMPDIR=$(TEST_TMPDIR) $(SWIFT) test --skip-build --filter '$(PURE_TESTS)'
	TMPDIR=$(TEST_TMPDIR) $(SWIFT) test --skip-build --skip '$(PURE_TESTS)' --skip PipelineEndToEndTests
	TMPDIR=$(TEST_TMPDIR) $(SWIFT) test --skip-build --filter PipelineEndToEndTests
	TMPDIR=$(TEST_TMPDIR) "$$($(SWIFT) build --show-bin-path)/stepcompass-buslab" chaos $(CHAOS_SHORT_ARGS)
	scripts/check-compose.sh
	scripts/check-compose-services.sh "$$($(SWIFT) build --show-bin-path)"
	scripts/check-dashboard-browser.sh "$$($(SWIFT) build --show-bin-path)"
	SWIFT=$(SWIFT) scripts/fuzz.sh --seconds 20
	@rm -rf $(TEST_TMPDIR)

# The bus tests under ThreadSanitizer (a separate build folder: it rebuilds everything instrumented).
tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter 'BusTests|MosquittoBusTests'

# Benchmarks: bus throughput against mosquitto's own C clients (same broker, same run); the position service beside
# a minimal C relay over libmosquitto (step → position latency and CPU per message, three runs, the relay built from
# Benchmarks/PositionRelay); the simulator with 1,000 walkers at real time (sensors-load, three runs, within one
# core); every service's idle memory beside mosquitto and mosquitto_sub (memory-idle, under 20 MiB each); the real
# compass service under 1000 devices at 50 Hz (compass-load, three runs: kept up in each, and the median CPU per
# sample within 1.5x mosquitto_sub's on the same stream); the bridge's step detector under 700 devices at 100 Hz (detector-load: kept up, and its CPU per
# sample low enough for 200,000 samples a second on one core, beside mosquitto_sub on the same stream); its HTTP push, the
# activity service (10,000 devices at 1 Hz; a year of minute rows queried by day), the walk journal (500 walking
# devices, a photo point each every 70 s, against the local photo server at 50 ms) and the hand-written codecs
# against Foundation (codec-bench), reported only; the marker service on a generated 1,000,000-feature GeoJSON file
# (start to ready and peak memory, beside Python's json.load of the same file) and the k-d tree on 1,000,000 points
# (beside scipy's cKDTree on the same points), against the thresholds committed in Benchmarks/markers-thresholds.json;
# then the package-benchmark suites (k-d tree, GeoJSON ingest, compass pipeline) in their own build folder. Every
# benchmark with a goal runs even when an earlier one missed its goal; the target fails at the end if any did. On a
# 2-core machine four goals are missed today (position CPU per message, compass CPU per sample against its anchor,
# idle memory, the detector's 200,000 samples a second on one core, which mosquitto_sub itself cannot receive here:
# figures in Docs/architecture.md), so the target fails, naming them.
benchmark: release
	@rm -f $(BENCHMARK_MISSED)
	scripts/bus-benchmark.sh
	cc -O2 -o .build/release/position_relay Benchmarks/PositionRelay/position_relay.c -lmosquitto -lm
	$(call goal,.build/release/stepcompass-buslab position-load --runs 3,position-load)
	$(call goal,.build/release/stepcompass-buslab sensors-load --walkers 1000 --duration 20 --runs 3,sensors-load)
	$(call goal,.build/release/stepcompass-buslab memory-idle,memory-idle)
	$(call goal,.build/release/stepcompass-buslab compass-load --devices 1000 --rate 50 --duration 20 --runs 3,compass-load)
	$(call goal,.build/release/stepcompass-buslab detector-load --devices 700 --rate 100 --duration 20,detector-load)
	-.build/release/stepcompass-buslab bridge-load --phones 200 --rate 100 --batch 100 --duration 20
	-.build/release/stepcompass-buslab activity-load --devices 10000 --rate 1 --duration 60
	-.build/release/stepcompass-buslab history-query-bench
	-.build/release/stepcompass-buslab journal-load --devices 500 --interval 70 --duration 150
	-.build/release/stepcompass-buslab codec-bench
	$(call goal,.build/release/stepcompass-buslab markers-load --features 1000000 --runs 3,markers-load)
	$(call goal,.build/release/stepcompass-buslab markers-bench,markers-bench)
	$(call goal,STEPCOMPASS_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-benchmarks benchmark,package-benchmark)
	@if [ -s $(BENCHMARK_MISSED) ]; then echo "make benchmark: goals missed by: $$(tr '\n' ' ' < $(BENCHMARK_MISSED))"; exit 1; fi
	@echo "make benchmark: every goal held"

# A benchmark with a goal runs with $(call goal,COMMAND,NAME): a miss (a non-zero exit) is noted in
# $(BENCHMARK_MISSED) and the next benchmark still runs; the target fails at the end, naming every miss.
BENCHMARK_MISSED = .build/benchmark-missed
goal = $(1) || echo '$(2)' >> $(BENCHMARK_MISSED)

# The chaos run (stepcompass-buslab chaos; see the README): a fleet of 20 walkers at 10x, walked once clean and once
# while services are SIGKILLed and the broker restarted, compared exactly. CHAOS_ARGS adds options (--seed N to replay).
# make test runs a short one (CHAOS_SHORT_ARGS: 400 simulated seconds, 5 service kills, 5 broker restarts, a fixed
# seed so that every run plans the same faults; about 80 s on 2 cores). `make chaos` picks a new seed each time.
CHAOS_SHORT_ARGS ?= --duration 400 --service-kills 5 --broker-restarts 5 --seed 12
.PHONY: chaos
chaos: build
	.build/debug/stepcompass-buslab chaos $(CHAOS_ARGS)

# libFuzzer on every decoder of outside bytes (Sources/Fuzz*, with AddressSanitizer, in .build-fuzz; see
# scripts/fuzz.sh): `make fuzz` runs each target for 1,000,000 executions, `make fuzz-ci` for 20 s each. Either fails
# on a crash, a broken property, a leak, a hang or an input slower than 100 ms, naming the input it saved.
.PHONY: fuzz fuzz-ci
fuzz:
	SWIFT=$(SWIFT) scripts/fuzz.sh --runs 1000000

fuzz-ci:
	SWIFT=$(SWIFT) scripts/fuzz.sh --seconds 20

# Shell completion scripts of the client, generated by swift-argument-parser (see the README's client section):
# .build/completions/stepcompass.bash, _stepcompass (zsh) and stepcompass.fish.
.PHONY: completions
completions: deps
	$(SWIFT) build -c release --product stepcompass
	@mkdir -p .build/completions
	.build/release/stepcompass --generate-completion-script bash > .build/completions/stepcompass.bash
	.build/release/stepcompass --generate-completion-script zsh > .build/completions/_stepcompass
	.build/release/stepcompass --generate-completion-script fish > .build/completions/stepcompass.fish

clean:
	rm -rf .build .build-tsan .build-benchmarks .build-fuzz
