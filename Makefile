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
SWIFT ?= swift

.PHONY: run test deps build release tsan benchmark clean

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build -c release

run: release
	@MQTT_PORT=$(MQTT_PORT) DASHBOARD_PORT=$(DASHBOARD_PORT) BRIDGE_PORT=$(BRIDGE_PORT) WS_PORT=$(WS_PORT) SENSORS=$(SENSORS) \
		PHOTOS=$(PHOTOS) PHOTO_PORT=$(PHOTO_PORT) scripts/run-stack.sh

# The pipeline end-to-end test runs on its own after the others: it drives three services at 15x real time
# and would otherwise load the machine under the timing of the rest.
test: build
	$(SWIFT) test --skip-build --skip PipelineEndToEndTests
	$(SWIFT) test --skip-build --filter PipelineEndToEndTests
	scripts/check-compose.sh
	scripts/check-compose-services.sh "$$($(SWIFT) build --show-bin-path)"
	scripts/check-asyncapi-all.sh
	scripts/check-stack-contract.sh "$$($(SWIFT) build --show-bin-path)"
	scripts/check-dashboard-browser.sh "$$($(SWIFT) build --show-bin-path)"

# The bus tests under ThreadSanitizer (a separate build folder: it rebuilds everything instrumented).
tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter 'BusTests|MosquittoBusTests'

# Benchmarks: bus throughput against mosquitto's own C clients (same broker, same run), the real compass
# service under 1000 devices at 50 Hz, the bridge's step detector and HTTP push, the activity service
# (10,000 devices at 1 Hz; a year of minute rows queried by day), the walk journal (500 walking devices, a
# photo point each every 70 s, against the local photo server at 50 ms), each load printing KEPT UP or exiting 3
# (reported, not fatal here), the hand-written codecs against Foundation (codec-bench), then the
# package-benchmark suites (k-d tree, GeoJSON ingest, compass pipeline) in their own build folder.
benchmark: release
	scripts/bus-benchmark.sh
	-.build/release/stepcompass-buslab compass-load --devices 1000 --rate 50 --duration 20
	-.build/release/stepcompass-buslab detector-load --devices 2000 --rate 100 --duration 20
	-.build/release/stepcompass-buslab bridge-load --phones 200 --rate 100 --batch 100 --duration 20
	-.build/release/stepcompass-buslab activity-load --devices 10000 --rate 1 --duration 60
	-.build/release/stepcompass-buslab history-query-bench
	-.build/release/stepcompass-buslab journal-load --devices 500 --interval 70 --duration 150
	-.build/release/stepcompass-buslab codec-bench
	STEPCOMPASS_BENCHMARKS=1 $(SWIFT) package --scratch-path .build-benchmarks benchmark

clean:
	rm -rf .build .build-tsan .build-benchmarks
