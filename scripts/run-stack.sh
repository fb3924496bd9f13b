#!/usr/bin/env bash
# Runs the whole StepCompass stack without Docker: a private mosquitto on MQTT_PORT (and MQTT over
# WebSockets on WS_PORT, for Sensor Logger's MQTT push) and every service from the release build, the
# simulated walker by default, the phone bridge with its HTTP push on BRIDGE_PORT. Ctrl-C or SIGTERM
# stops everything cleanly.
#
# Phones on your network: the broker and the bridge listen on 127.0.0.1 only by default. BRIDGE_TOKEN=...
# makes the bridge's HTTP push listen on every interface (it refuses to without a token); WS_BIND=0.0.0.0
# opens the WebSockets listener (this private broker has no passwords: trusted networks only; the compose
# deployment has users and an ACL).
#
# The walk journal runs with --auto (a walk starts at a device's first steps and stops after 5 minutes of
# rest), its walks in $RUN_DIR/journal and its image cache in $RUN_DIR/journal/photos (which the dashboard
# serves). Its photos come from a local stand-in for Wikimedia Commons and Flickr (`stepcompass-buslab
# photo-server`, generated pictures, no network) on PHOTO_PORT (default: the first free port from 8095);
# PHOTOS=online asks the real Wikimedia Commons instead (or Flickr, with FLICKR_KEY in the environment).
#
# Every service serves its Prometheus metrics on 127.0.0.1, each on its own port from METRICS_BASE (9101:
# sensors 9101, compass 9102, position 9103, markers 9104, dashboard 9105, bridge 9106, activity 9107, journal
# 9108; METRICS=off for none). $RUN_DIR/prometheus.yml scrapes them all; PROMETHEUS=on also runs Debian's
# prometheus with it on PROMETHEUS_PORT (9090).
set -euo pipefail
cd "$(dirname "$0")/.."

MQTT_PORT="${MQTT_PORT:-1883}"
DASHBOARD_PORT="${DASHBOARD_PORT:-8080}"
BRIDGE_PORT="${BRIDGE_PORT:-8090}"
WS_PORT="${WS_PORT:-9001}"
WS_BIND="${WS_BIND:-127.0.0.1}"
BRIDGE="${BRIDGE:-on}"     # off: no stepcompass-bridge (no phone push, no OwnTracks, no step detector)
BRIDGE_TOKEN="${BRIDGE_TOKEN:-${TOKEN:-}}"
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
RUN_DIR="${RUN_DIR:-.build/run}"
MARKERS_SOURCE="${MARKERS_SOURCE:-Config/markers/sample-markers.geojson}"
SENSORS="${SENSORS:-on}"   # off: no simulated walker (your phone or publisher provides the device inputs)
PHOTOS="${PHOTOS:-local}"  # local: the journal's photos from the local photo server; online: Wikimedia Commons (or Flickr)
PHOTO_PORT="${PHOTO_PORT:-}"
JOURNAL_CACHE_DIR="${JOURNAL_CACHE_DIR:-$RUN_DIR/journal/photos}"
METRICS="${METRICS:-on}"   # off: no metrics endpoints
METRICS_BASE="${METRICS_BASE:-9101}"
PROMETHEUS="${PROMETHEUS:-off}"  # on: Debian's prometheus scraping every service, on PROMETHEUS_PORT
PROMETHEUS_PORT="${PROMETHEUS_PORT:-9090}"
# Each service's metrics port: METRICS_BASE plus its place here.
metrics_services=(sensors compass position markers dashboard bridge activity journal)
declare -A metrics_port=()
for i in "${!metrics_services[@]}"; do metrics_port[${metrics_services[$i]}]=$((METRICS_BASE + i)); done

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && { exec 3>&- 3<&-; return 0; }
    return 1
}

if port_in_use "$MQTT_PORT"; then
    echo "error: port $MQTT_PORT is already taken (a system mosquitto often listens on 1883)." >&2
    echo "       pick another port:  MQTT_PORT=18830 make run" >&2
    exit 1
fi
if port_in_use "$DASHBOARD_PORT"; then
    echo "error: port $DASHBOARD_PORT is already taken; pick another:  DASHBOARD_PORT=8081 make run" >&2
    exit 1
fi
if port_in_use "$WS_PORT"; then
    echo "error: port $WS_PORT (the broker's WebSockets listener) is already taken; pick another:  WS_PORT=9002 make run" >&2
    exit 1
fi
if [ "$PHOTOS" = local ] && [ -x "$BIN/stepcompass-journal" ] && [ -x "$BIN/stepcompass-buslab" ]; then
    if [ -z "$PHOTO_PORT" ]; then
        PHOTO_PORT=8095
        while port_in_use "$PHOTO_PORT" && [ "$PHOTO_PORT" -lt 8195 ]; do PHOTO_PORT=$((PHOTO_PORT + 1)); done
    fi
    if port_in_use "$PHOTO_PORT"; then
        echo "error: port $PHOTO_PORT (the journal's local photo server) is already taken; pick another:  PHOTO_PORT=8196 make run" >&2
        echo "       (or use the real Wikimedia Commons:  PHOTOS=online make run)" >&2
        exit 1
    fi
fi
if [ "$METRICS" != off ]; then
    for service in "${metrics_services[@]}"; do
        if port_in_use "${metrics_port[$service]}"; then
            echo "error: port ${metrics_port[$service]} (the $service service's metrics) is already taken; pick other ports:" >&2
            echo "       METRICS_BASE=9201 make run   (or no metrics: METRICS=off make run)" >&2
            exit 1
        fi
    done
fi
if [ "$PROMETHEUS" = on ]; then
    command -v prometheus >/dev/null || { echo "error: PROMETHEUS=on but prometheus is not installed (apt-get install prometheus)" >&2; exit 1; }
    [ "$METRICS" != off ] || { echo "error: PROMETHEUS=on needs the services' metrics (METRICS=on)" >&2; exit 1; }
    if port_in_use "$PROMETHEUS_PORT"; then
        echo "error: port $PROMETHEUS_PORT (prometheus) is already taken; pick another:  PROMETHEUS_PORT=9091 PROMETHEUS=on make run" >&2
        exit 1
    fi
fi
if [ "$BRIDGE" != off ] && port_in_use "$BRIDGE_PORT"; then
    echo "error: port $BRIDGE_PORT (the phone bridge's HTTP push) is already taken; pick another:  BRIDGE_PORT=8091 make run" >&2
    echo "       (or leave the bridge out:  BRIDGE=off make run)" >&2
    exit 1
fi

mkdir -p "$RUN_DIR/mosquitto" "$RUN_DIR/logs" "$RUN_DIR/cache" "$JOURNAL_CACHE_DIR"
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
JOURNAL_CACHE_DIR="$(cd "$JOURNAL_CACHE_DIR" && pwd)"
cat > "$RUN_DIR/mosquitto/mosquitto.conf" <<CONF
# Generated by scripts/run-stack.sh: a private broker on loopback, no authentication.
listener $MQTT_PORT 127.0.0.1
# MQTT over WebSockets (Sensor Logger's MQTT push); WS_BIND chooses the address.
listener $WS_PORT $WS_BIND
protocol websockets
allow_anonymous true
$( [ "$(id -u)" -eq 0 ] && echo "user root" )
persistence true
persistence_location $RUN_DIR/mosquitto/
log_dest file $RUN_DIR/logs/mosquitto.log
$(grep -v -E '^\s*(persistence|persistence_location|listener|log_dest)\b' Config/mosquitto/stepcompass.conf 2>/dev/null || true)
CONF

pids=()
stopping=""
stop() {
    stopping=1
    trap - INT TERM EXIT
    echo
    echo "==> stopping the stack"
    for pid in "${pids[@]:1}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]:1}"; do wait "$pid" 2>/dev/null || true; done
    [ "${#pids[@]}" -gt 0 ] && kill -TERM "${pids[0]}" 2>/dev/null && wait "${pids[0]}" 2>/dev/null || true
    echo "==> stopped"
}
trap stop INT TERM EXIT

mosquitto -c "$RUN_DIR/mosquitto/mosquitto.conf" &
pids+=($!)
for _ in $(seq 1 100); do port_in_use "$MQTT_PORT" && break; sleep 0.05; done
port_in_use "$MQTT_PORT" || { echo "error: mosquitto did not start; see $RUN_DIR/logs/mosquitto.log" >&2; exit 1; }

export MQTT_HOST=127.0.0.1 MQTT_PORT
# start_as LOG EXECUTABLE ARGS...: runs $BIN/EXECUTABLE in the background, its output in logs/LOG.log.
start_as() {
    local log="$1" executable="$2"; shift 2
    "$BIN/$executable" "$@" >"$RUN_DIR/logs/$log.log" 2>&1 &
    pids+=($!)
    echo "    $executable$([ "$executable" = stepcompass-buslab ] && echo " $1") (pid $!, log $RUN_DIR/logs/$log.log)"
}
# start SERVICE ARGS...: stepcompass-SERVICE with its metrics port (unless METRICS=off).
started_metrics=()
start() {
    local name="$1"; shift
    if [ "$METRICS" != off ] && [ -n "${metrics_port[$name]:-}" ]; then
        set -- --metrics-port "${metrics_port[$name]}" "$@"
        started_metrics+=("$name")
    fi
    start_as "$name" "stepcompass-$name" "$@"
}
echo "==> starting services against mqtt://127.0.0.1:$MQTT_PORT"
start position
start compass
start markers --source "$MARKERS_SOURCE" --cache-dir "$RUN_DIR/cache"
if [ -x "$BIN/stepcompass-activity" ]; then start activity --data-dir "$RUN_DIR/activity"; fi
if [ -x "$BIN/stepcompass-journal" ]; then
    journal_photos=()
    if [ "$PHOTOS" = local ] && [ -x "$BIN/stepcompass-buslab" ]; then
        # The local stand-in for Wikimedia Commons and Flickr: the journal finds a photo every 100 m offline.
        start_as photo-server stepcompass-buslab photo-server --port "$PHOTO_PORT"
        for _ in $(seq 1 100); do port_in_use "$PHOTO_PORT" && break; sleep 0.05; done
        port_in_use "$PHOTO_PORT" || { echo "error: the photo server did not start; see $RUN_DIR/logs/photo-server.log" >&2; exit 1; }
        journal_photos=(--wikimedia-url "http://127.0.0.1:$PHOTO_PORT/w/api.php" --flickr-url "http://127.0.0.1:$PHOTO_PORT/services/rest/")
    fi
    start journal --auto --data-dir "$RUN_DIR/journal" --cache-dir "$JOURNAL_CACHE_DIR" "${journal_photos[@]}"
fi
# The dashboard serves the journal's cached images at /journal/photos/FILE.
if [ -x "$BIN/stepcompass-dashboard" ]; then start dashboard --http-port "$DASHBOARD_PORT" --journal-cache-dir "$JOURNAL_CACHE_DIR"; fi
if [ "$BRIDGE" != off ] && [ -x "$BIN/stepcompass-bridge" ]; then
    # The token goes through the environment, never the command line (where `ps` would show it).
    # With a token it listens on every interface (BRIDGE_HOST chooses), without one on 127.0.0.1 only.
    TOKEN="$BRIDGE_TOKEN" start bridge --http-port "$BRIDGE_PORT" ${BRIDGE_HOST:+--http-host "$BRIDGE_HOST"}
fi
if [ "$SENSORS" != off ]; then start sensors; else echo "    (no stepcompass-sensors: SENSORS=off; publish device inputs yourself)"; fi

# The scrape configuration of every service started with metrics, and prometheus with it when asked for.
if [ "${#started_metrics[@]}" -gt 0 ]; then
    {
        echo "# Generated by scripts/run-stack.sh: every StepCompass service of this run."
        echo "global:"
        echo "  scrape_interval: 5s"
        echo "scrape_configs:"
        for service in "${started_metrics[@]}"; do
            echo "  - job_name: $service"
            echo "    static_configs:"
            echo "      - targets: ['127.0.0.1:${metrics_port[$service]}']"
        done
    } > "$RUN_DIR/prometheus.yml"
    if [ "$PROMETHEUS" = on ]; then
        prometheus --config.file="$RUN_DIR/prometheus.yml" --storage.tsdb.path="$RUN_DIR/prometheus" \
            --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >"$RUN_DIR/logs/prometheus.log" 2>&1 &
        pids+=($!)
        echo "    prometheus (pid $!, log $RUN_DIR/logs/prometheus.log)"
    fi
fi

cat <<INFO

StepCompass is running. Watch the bus:
    mosquitto_sub -p $MQTT_PORT -t 'stepcompass/#' -v
INFO
if [ -x "$BIN/stepcompass-dashboard" ]; then echo "Dashboard: http://127.0.0.1:$DASHBOARD_PORT/"; fi
if [ -x "$BIN/stepcompass" ]; then echo "In the terminal: $BIN/stepcompass watch --mqtt-port $MQTT_PORT"; fi
if [ -x "$BIN/stepcompass-journal" ]; then
    if [ "$PHOTOS" = local ] && [ -x "$BIN/stepcompass-buslab" ]; then
        where="the local photo server on http://127.0.0.1:$PHOTO_PORT (generated pictures, offline)"
    elif [ -n "${FLICKR_KEY:-}" ]; then
        where="Flickr (FLICKR_KEY)"
    else
        where="Wikimedia Commons"
    fi
    echo "Walk journal (photos from $where, images in $JOURNAL_CACHE_DIR):"
    echo "    mosquitto_sub -p $MQTT_PORT -t 'stepcompass/+/journal/#' -v"
fi
if [ "$BRIDGE" != off ] && [ -x "$BIN/stepcompass-bridge" ]; then
    address="$(hostname -I 2>/dev/null | awk '{print $1}')"
    [ -n "$address" ] || address="<this computer's address>"
    echo
    echo "Your phone (Sensor Logger > Settings > Data Streaming; see README \"Your phone\"):"
    if [ -n "$BRIDGE_TOKEN" ]; then
        echo "    HTTP Push URL:  http://$address:$BRIDGE_PORT/sensor-logger?device=my-phone&token=<your BRIDGE_TOKEN>"
    else
        echo "    HTTP Push URL:  http://127.0.0.1:$BRIDGE_PORT/sensor-logger?device=my-phone  (this computer only;"
        echo "                    for a phone, restart with a token:  BRIDGE_TOKEN=<a secret> make run)"
    fi
    case "$WS_BIND" in
        127.* | localhost | ::1)
            echo "    MQTT Push:      host 127.0.0.1, port $WS_PORT (WebSockets), topic sensor-logger  (this computer only;"
            echo "                    for a phone on a trusted network: WS_BIND=0.0.0.0 make run)" ;;
        *)
            echo "    MQTT Push:      host $address, port $WS_PORT (WebSockets), topic sensor-logger, no user or password"
            echo "                    (this broker accepts anyone who reaches port $WS_PORT: trusted networks only)" ;;
    esac
fi
if [ "${#started_metrics[@]}" -gt 0 ]; then
    echo
    echo "Metrics (Prometheus text format; README \"Monitoring\"):"
    for service in "${started_metrics[@]}"; do
        printf '    %-10s http://127.0.0.1:%s/metrics\n' "$service" "${metrics_port[$service]}"
    done
    if [ "$PROMETHEUS" = on ]; then
        echo "    Prometheus: http://127.0.0.1:$PROMETHEUS_PORT/ (scraping all of them: $RUN_DIR/prometheus.yml)"
    else
        echo "    scrape them all: prometheus --config.file=$RUN_DIR/prometheus.yml   (or PROMETHEUS=on make run)"
    fi
fi
echo "Logs in $RUN_DIR/logs. Press Ctrl-C to stop."
wait -n "${pids[@]}" || true
if [ -z "$stopping" ]; then
    echo "a process of the stack exited; see $RUN_DIR/logs" >&2
    stop
    exit 1
fi
