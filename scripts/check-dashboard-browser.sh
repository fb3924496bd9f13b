#!/usr/bin/env bash
# The dashboard page in a real browser, for `make test`: a private mosquitto on a free loopback port, the
# real services from the build folder (the simulated walker at 4x speed, the sample markers), the
# dashboard on a free HTTP port, then headless Chromium driven by Selenium (scripts/check_dashboard_browser.py):
# values appear and change as the walker walks, the rose turns, the lock and north buttons reach the bus,
# a marker shows its three nearest, the Activity panel shows a retained activity message (published with
# mosquitto_pub) and the motion-access guidance, the Journal panel shows a walk's retained journal messages with
# its photos (PNGs the check writes into the dashboard's --journal-cache-dir), past walks and GPX (the check
# answers the journal's requests itself), Start and Stop reach the bus, no console errors. The markers and the
# walk on the real map: Leaflet from Debian's libjs-leaflet (and libjs-leaflet.markercluster), served by the
# dashboard, tiles from a tile server the Python check runs (--tile-url at it: no network). Three more dashboards on
# the same bus check the fallback: tiles unreachable (--tile-url at a closed port), no Leaflet (--leaflet-dir an
# empty folder), Leaflet without markercluster. One more, started with an access token (--auth-token-file, a token
# generated here), checks the page's token form: asked once, a wrong token refused, the right one kept across a
# reload. Last, cross-site requests: a page of another origin (served by the Python check on one more port, as
# http://127.0.0.1:PORT, the same site, and http://localhost:PORT, another site) tries every way a page can to reset
# the position, lock the bearing and refresh the markers through the first dashboard (fetch with JSON, fetch no-cors,
# forms into a hidden iframe, sendBeacon): each is refused (the dashboard's --metrics-port counts its 403s) and nothing
# reaches the bus (a mosquitto_sub on the commands and the position), while the dashboard's own page doing the same
# works. Keeps a screenshot in .build/artifacts/dashboard.png.
#
# Usage: scripts/check-dashboard-browser.sh [BIN_DIR]   (default: .build/debug; build first)
# Installs when missing: Debian's chromium, chromium-driver, libjs-leaflet and libjs-leaflet.markercluster (apt-get,
# as root), Selenium from PyPI into .build/venv-browser. Without Leaflet (not root) the map's checks are skipped,
# except in CI (CI=true), where that fails. Takes about a minute.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
bin="${1:-.build/debug}"
venv="$root/.build/venv-browser"
artifacts="$root/.build/artifacts"
screenshot="$artifacts/dashboard.png"
services="compass position markers dashboard sensors"
export PYTHONDONTWRITEBYTECODE=1
say() { echo "check-dashboard-browser: $*"; }
die() { echo "check-dashboard-browser: FAILED: $*" >&2; exit 1; }

for service in $services; do
    [ -x "$bin/stepcompass-$service" ] || { echo "check-dashboard-browser: $bin/stepcompass-$service is missing (swift build first)" >&2; exit 2; }
done

# Chromium and its WebDriver from Debian (the Selenium Manager download is never used).
missing=()
for package in chromium chromium-driver; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        say "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null \
            || die "apt-get could not install ${missing[*]}"
    else
        echo "check-dashboard-browser: missing packages: ${missing[*]}" >&2
        echo "install them with:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi
# Leaflet from Debian, served by the dashboard (--leaflet-dir; LEAFLET_DIR, which the dashboards read too, to try
# another folder): never downloaded from a CDN, never in the repository.
leaflet_dir="${LEAFLET_DIR:-/usr/share/javascript/leaflet}"
leaflet_missing=()
for package in libjs-leaflet libjs-leaflet.markercluster; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || leaflet_missing+=("$package")
done
if [ "${#leaflet_missing[@]}" -gt 0 ] && [ "$(id -u)" -eq 0 ]; then
    say "installing ${leaflet_missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${leaflet_missing[@]}"; } >/dev/null \
        || die "apt-get could not install ${leaflet_missing[*]}"
fi
require_leaflet=()
if [ ! -f "$leaflet_dir/leaflet.js" ]; then
    if [ "${CI:-}" = "true" ]; then
        die "Leaflet is not installed ($leaflet_dir/leaflet.js): sudo apt-get install -y libjs-leaflet libjs-leaflet.markercluster"
    fi
    say "WARNING: Leaflet is not installed, so the map's checks are skipped (sudo apt-get install -y libjs-leaflet libjs-leaflet.markercluster)"
fi
[ "${CI:-}" = "true" ] && require_leaflet=(--require-leaflet)

chromium_bin="$(command -v chromium || echo /usr/bin/chromium)"
chromedriver_bin="$(command -v chromedriver || echo /usr/bin/chromedriver)"

if ! "$venv/bin/python" -c 'import selenium' >/dev/null 2>&1; then
    say "installing Selenium into ${venv#"$root"/}"
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check selenium==4.51.0 \
        || die "pip could not install Selenium from PyPI"
fi

# The broker, the dashboards, the check's tile server, a port nothing listens on (the unreachable tiles), the first
# dashboard's metrics and the check's page of another origin.
mapfile -t ports < <(python3 scripts/free_port.py 10)
[ "${#ports[@]}" -eq 10 ] || { echo "check-dashboard-browser: no free ports" >&2; exit 1; }
mqtt_port="${ports[0]}" http_port="${ports[1]}" fallback_port="${ports[2]}" plain_port="${ports[3]}" grid_port="${ports[4]}"
tile_port="${ports[5]}" closed_port="${ports[6]}" token_port="${ports[7]}" metrics_port="${ports[8]}" hostile_port="${ports[9]}"

work="$(mktemp -d)"
pids=()
broker_pid=""
status=1
cleanup() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$broker_pid" ]; then kill -TERM "$broker_pid" 2>/dev/null; wait "$broker_pid" 2>/dev/null; fi
    if [ "$status" -ne 0 ]; then
        for log in "$work"/*.log; do
            [ -s "$log" ] || continue
            echo "---- tail of $(basename "$log")" >&2
            tail -n 15 "$log" >&2
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'status=130; exit' INT TERM

cat > "$work/mosquitto.conf" <<CONF
listener $mqtt_port 127.0.0.1
allow_anonymous true
persistence false
log_dest file $work/mosquitto.log
$( [ "$(id -u)" -eq 0 ] && echo "user root" )
CONF
mosquitto -c "$work/mosquitto.conf" 2>>"$work/mosquitto.log" &
broker_pid=$!
for _ in $(seq 1 50); do
    mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t '$SYS/broker/version' -C 1 -W 1 >/dev/null 2>&1 && break
    sleep 0.1
done
kill -0 "$broker_pid" 2>/dev/null || die "mosquitto did not start"

# The journal's image cache as the dashboard serves it (--journal-cache-dir); the Python check writes its photos there.
mkdir -p "$work/cache" "$work/journal-photos" "$artifacts"
export MQTT_HOST=127.0.0.1
for service in $services; do
    case "$service" in
        markers) extra=(--source Config/markers/sample-markers.geojson --cache-dir "$work/cache") ;;
        dashboard) extra=(--http-port "$http_port" --journal-cache-dir "$work/journal-photos" --metrics-port "$metrics_port"
                          --tile-url "http://127.0.0.1:$tile_port/{z}/{x}/{y}.png") ;;
        sensors) extra=(--speed 4) ;;
        *) extra=() ;;
    esac
    "$bin/stepcompass-$service" --mqtt-port "$mqtt_port" --mqtt-client-id "browser-check-$service" "${extra[@]}" \
        > "$work/$service.log" 2>&1 &
    pids+=($!)
done

# The fallback's dashboards: tiles at a closed port; no Leaflet (an empty folder); Leaflet without markercluster
# (links to Debian's files, without Leaflet.markercluster's).
mkdir -p "$work/no-leaflet" "$work/leaflet-plain"
for file in leaflet.js leaflet.min.js leaflet.css images; do
    [ -e "$leaflet_dir/$file" ] && ln -s "$leaflet_dir/$file" "$work/leaflet-plain/$file"
done
for variant in fallback plain grid; do
    case "$variant" in
        fallback) extra=(--http-port "$fallback_port" --tile-url "http://127.0.0.1:$closed_port/{z}/{x}/{y}.png") ;;
        plain) extra=(--http-port "$plain_port" --leaflet-dir "$work/no-leaflet" --tile-url "http://127.0.0.1:$tile_port/{z}/{x}/{y}.png") ;;
        grid) extra=(--http-port "$grid_port" --leaflet-dir "$work/leaflet-plain" --tile-url "http://127.0.0.1:$tile_port/{z}/{x}/{y}.png") ;;
    esac
    "$bin/stepcompass-dashboard" --mqtt-port "$mqtt_port" --mqtt-client-id "browser-check-dashboard-$variant" \
        --journal-cache-dir "$work/journal-photos" "${extra[@]}" > "$work/dashboard-$variant.log" 2>&1 &
    pids+=($!)
done

# The dashboard with an access token, from a file (as in the containers), with spaces and a line end around it.
token="$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
printf '  %s\n' "$token" > "$work/dashboard-token"
"$bin/stepcompass-dashboard" --mqtt-port "$mqtt_port" --mqtt-client-id "browser-check-dashboard-token" \
    --journal-cache-dir "$work/journal-photos" --http-port "$token_port" --auth-token-file "$work/dashboard-token" \
    --tile-url "http://127.0.0.1:$tile_port/{z}/{x}/{y}.png" > "$work/dashboard-token.log" 2>&1 &
pids+=($!)

url="http://127.0.0.1:$http_port/"
# Python rather than curl: one tool fewer to install.
for port in "$http_port" "$fallback_port" "$plain_port" "$grid_port" "$token_port"; do
    python3 - "http://127.0.0.1:$port/healthz" <<'PY' || die "the dashboard did not answer http://127.0.0.1:$port/healthz within 15 s"
import sys, time, urllib.request
deadline = time.monotonic() + 15
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=1) as response:
            if response.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.15)
PY
done
say "stack up (mqtt $mqtt_port, dashboard $url); driving headless Chromium"

started=$SECONDS
"$venv/bin/python" scripts/check_dashboard_browser.py --url "$url" --mqtt-port "$mqtt_port" \
    --screenshot "$screenshot" --chromium "$chromium_bin" --chromedriver "$chromedriver_bin" \
    --journal-cache-dir "$work/journal-photos" --tile-port "$tile_port" \
    --fallback-url "http://127.0.0.1:$fallback_port/" --unreachable-tiles "127.0.0.1:$closed_port" \
    --plain-url "http://127.0.0.1:$plain_port/" --grid-url "http://127.0.0.1:$grid_port/" \
    --token-url "http://127.0.0.1:$token_port/" --token "$token" \
    --hostile-port "$hostile_port" --metrics-url "http://127.0.0.1:$metrics_port/metrics" "${require_leaflet[@]}"
status=$?
for pid in "${pids[@]}"; do
    # An exited child stays a zombie until waited for, so kill -0 would still succeed: read its state.
    grep -qs '^State:[[:space:]]*[^Z]' "/proc/$pid/status" \
        || { echo "check-dashboard-browser: a service exited during the test (pid $pid)" >&2; status=1; }
done
if [ "$status" -eq 0 ]; then
    say "ok in $((SECONDS - started)) s; screenshot: $screenshot"
else
    echo "check-dashboard-browser: FAILED; screenshot: $screenshot" >&2
fi
