#!/usr/bin/env bash
# Validates the container deployment without Docker:
#   1. compose/docker-compose.yml with docker-compose 1.29.2 (`config -q`, in a clean environment, so
#      every ${VAR:-default} must have a default), and every service has the contract's variables and
#      serves its metrics, which the optional prometheus service scrapes (compose/prometheus.yml); the
#      optional postgres service (profile postgres): Debian-based image, password only through
#      POSTGRES_PASSWORD_FILE in its secrets volume, data volume, pg_isready, nothing beyond loopback;
#   2. compose/broker-entrypoint.sh, service-entrypoint.sh and service-healthcheck.sh against a real
#      mosquitto (skipped with a note when mosquitto is not installed): generated passwords work, are
#      kept across restarts, an environment password wins, and a service's health check sees `online`;
#      the database password reaches the postgres, activity and journal secrets only, and
#      service-entrypoint.sh puts it into a DATABASE_URL without one (percent-encoded);
# The broker's ACL and tuning are checked by `swift test` (Tests/StackTests/BrokerACLTests.swift).
#
# docker-compose 1.29.2 is installed from PyPI into .build/venv-compose by scripts/compose-venv.sh.
# Exit status 0 when everything passes.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
compose_file="compose/docker-compose.yml"

fail() { echo "check-compose: FAILED: $*" >&2; exit 1; }

venv="$("$root/scripts/compose-venv.sh")" || fail "could not install docker-compose 1.29.2 (scripts/compose-venv.sh)"

# 1. The compose file, in a clean environment: no variable may be required.
output="$(env -i PATH="$PATH" HOME="$HOME" "$venv/bin/docker-compose" -f "$compose_file" config -q 2>&1)" \
    || fail "$compose_file is invalid:"$'\n'"$output"
[ -z "$output" ] || fail "docker-compose warned about $compose_file:"$'\n'"$output"

work="$(mktemp -d)"
broker_pid=""
cleanup() {
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Every service container gets the contract's variables and its own user.
config="$(env -i PATH="$PATH" HOME="$HOME" "$venv/bin/docker-compose" -f "$compose_file" config)"
for service in sensors compass position markers dashboard bridge activity journal; do
    block="$(awk -v s="  $service:" '$0 == s { on = 1; next } on && /^  [a-z]/ { on = 0 } on' <<< "$config")"
    for variable in MQTT_HOST MQTT_PORT MQTT_USERNAME MQTT_PASSWORD MQTT_PROTOCOL MQTT_CLIENT_ID TOPIC_PREFIX LOG_LEVEL LOG_FORMAT; do
        grep -q "^      $variable:" <<< "$block" || fail "service $service lacks $variable"
    done
    grep -q "^      MQTT_USERNAME: $service$" <<< "$block" || fail "service $service does not connect as user $service"
    grep -q "condition: service_healthy" <<< "$block" || fail "service $service does not wait for a healthy broker"
done
grep -q '127.0.0.1:8080:8080' <<< "$config" || grep -q 'published: 8080' <<< "$config" || fail "the dashboard does not publish port 8080"
# The bridge's HTTP push and the broker's WebSockets listener, on loopback by default.
grep -q '127.0.0.1:8090:8090' <<< "$config" || fail "the bridge does not publish port 8090 on 127.0.0.1"
grep -q '127.0.0.1:9001:9001' <<< "$config" || fail "the broker does not publish its WebSockets port 9001 on 127.0.0.1"
bridge_block="$(awk '$0 == "  bridge:" { on = 1; next } on && /^  [a-z]/ { on = 0 } on' <<< "$config")"
grep -q "^      HTTP_HOST: 0.0.0.0$" <<< "$bridge_block" || fail "the bridge does not listen on every interface of its container"
grep -q "^      TOKEN:" <<< "$bridge_block" || fail "the bridge gets no TOKEN"
# The walk journal: --auto, its SQLite and photo cache in volumes, the photo cache also in the dashboard
# (read-only: the dashboard serves the images and never writes them), and no Flickr key in the file.
journal_block="$(awk '$0 == "  journal:" { on = 1; next } on && /^  [a-z]/ { on = 0 } on' <<< "$config")"
grep -q -- "- --auto$" <<< "$journal_block" || fail "the journal does not run with --auto"
cache_dir="$(sed -nE 's/^      CACHE_DIR: (.+)$/\1/p' <<< "$journal_block")"
[ -n "$cache_dir" ] || fail "the journal gets no CACHE_DIR"
grep -qE "^ *- journal-photos:$cache_dir(:rw)?$" <<< "$journal_block" \
    || fail "the journal's CACHE_DIR ($cache_dir) is not its journal-photos volume"
grep -qE "^ *- journal-data:$(sed -nE 's/^      DATA_DIR: (.+)$/\1/p' <<< "$journal_block")(:rw)?$" <<< "$journal_block" \
    || fail "the journal's DATA_DIR is not its journal-data volume"
grep -qE "^      WIKIMEDIA_URL: https?://" <<< "$journal_block" || fail "the journal gets no WIKIMEDIA_URL"
grep -qE "^      FLICKR_KEY: ''$|^      FLICKR_KEY: \"\"$|^      FLICKR_KEY: *$" <<< "$journal_block" \
    || fail "the journal's FLICKR_KEY must be empty unless the environment sets it (a secret never goes in the file)"
dashboard_block="$(awk '$0 == "  dashboard:" { on = 1; next } on && /^  [a-z]/ { on = 0 } on' <<< "$config")"
grep -qE "^ *- journal-photos:$cache_dir:ro$" <<< "$dashboard_block" || fail "the dashboard does not mount the journal's photos ($cache_dir) read-only"
grep -q "^      JOURNAL_CACHE_DIR: $cache_dir$" <<< "$dashboard_block" || fail "the dashboard's JOURNAL_CACHE_DIR is not the journal's CACHE_DIR ($cache_dir)"
# Metrics: every service serves GET /metrics on METRICS_PORT on every interface of its container, published to
# no host port; the optional `prometheus` service (profile monitoring) scrapes each by its compose name with
# compose/prometheus.yml, which Prometheus's own promtool accepts.
"$venv/bin/python" - <(printf '%s\n' "$config") compose/prometheus.yml <<'EOF_PY' || fail "the metrics setup is incomplete (above)"
import sys, yaml
resolved, scrape_file = sys.argv[1:3]
config = yaml.safe_load(open(resolved))
services = config["services"]
def fail(message):
    sys.exit(f"check-compose: FAILED: {message}")
def command(service):
    value = service.get("command") or []
    return value.split() if isinstance(value, str) else [str(v) for v in value]
stepcompass = {name: s for name, s in services.items() if command(s)[:1] and command(s)[0].startswith("stepcompass-")}
ports = {}
for name, service in stepcompass.items():
    environment = service.get("environment") or {}
    port = str(environment.get("METRICS_PORT") or "")
    if not port.isdigit():
        fail(f"service {name} serves no metrics (METRICS_PORT)")
    if environment.get("METRICS_HOST") != "0.0.0.0":
        fail(f"service {name}'s metrics are not reachable on the compose network (METRICS_HOST must be 0.0.0.0)")
    published = [str(p.get("target") if isinstance(p, dict) else str(p).split("/")[0].split(":")[-1]) for p in service.get("ports") or []]
    if port in published:
        fail(f"service {name} publishes its metrics port {port} to the host")
    ports[name] = port
prometheus = services.get("prometheus")
if prometheus is None:
    fail("there is no prometheus service")
if prometheus.get("profiles") != ["monitoring"]:
    fail(f"the prometheus service is not in the monitoring profile only (profiles: {prometheus.get('profiles')})")
mounts = [str(v) for v in prometheus.get("volumes") or []]
if not any(v.endswith("compose/prometheus.yml:/etc/prometheus/prometheus.yml:ro") for v in mounts):
    fail(f"the prometheus service does not mount compose/prometheus.yml read-only at /etc/prometheus/prometheus.yml ({mounts})")
if "--config.file=/etc/prometheus/prometheus.yml" not in command(prometheus):
    fail("the prometheus service does not read /etc/prometheus/prometheus.yml")
for port in prometheus.get("ports") or []:
    if not str(port).startswith("127.0.0.1:"):
        fail(f"prometheus publishes {port} beyond loopback by default")
scrape = yaml.safe_load(open(scrape_file))
targets = [t for job in scrape["scrape_configs"] for static in job.get("static_configs", []) for t in static["targets"]]
expected = sorted(f"{name}:{port}" for name, port in ports.items())
if sorted(targets) != expected:
    fail(f"{scrape_file} scrapes {sorted(targets)}; the compose services serve {expected}")
print(f"check-compose: metrics on {len(ports)} services, scraped by the prometheus service (profile monitoring)")
EOF_PY
if command -v promtool >/dev/null; then
    promtool check config compose/prometheus.yml >/dev/null 2>&1 || fail "promtool rejects compose/prometheus.yml: $(promtool check config compose/prometheus.yml 2>&1 | tail -3)"
else
    echo "check-compose: promtool is not installed: compose/prometheus.yml checked for its targets only"
fi
# The optional database (profile postgres): the official Debian-based image, its password only in the secrets volume
# the broker's entrypoint fills (POSTGRES_PASSWORD_FILE), its data in a named volume, a pg_isready health check, no
# host port beyond loopback; the default stack keeps SQLite (empty DATABASE_URLs).
"$venv/bin/python" - <(printf '%s\n' "$config") "$compose_file" <<'EOF_PY' || fail "the postgres service is incomplete (above)"
import re, sys, yaml
resolved, raw_file = sys.argv[1:3]
services = yaml.safe_load(open(resolved))["services"]
def fail(message):
    sys.exit(f"check-compose: FAILED: {message}")
def mounts(service):
    result = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            result.append((str(volume.get("source", "")), str(volume["target"]), bool(volume.get("read_only"))))
        else:
            parts = str(volume).split(":")
            result.append((parts[0], parts[1] if len(parts) > 1 else parts[0], parts[-1] == "ro" and len(parts) > 2))
    return result
postgres = services.get("postgres")
if postgres is None:
    fail("there is no postgres service")
if postgres.get("profiles") != ["postgres"]:
    fail(f"the postgres service is not in the postgres profile only (profiles: {postgres.get('profiles')}): the default stack must not change")
image = str(postgres.get("image", ""))
if not re.fullmatch(r"postgres:\d+(\.\d+)*-bookworm", image):
    fail(f"the postgres service runs {image}, not the official Debian 12 based image (postgres:15-bookworm)")
environment = postgres.get("environment") or {}
if "POSTGRES_PASSWORD" in environment:
    fail("the postgres service gets POSTGRES_PASSWORD: the password belongs in its secrets volume (POSTGRES_PASSWORD_FILE)")
password_file = str(environment.get("POSTGRES_PASSWORD_FILE") or "")
secrets = [(s, t, ro) for s, t, ro in mounts(postgres) if password_file.startswith(t.rstrip("/") + "/")]
if not secrets or secrets[0][0] != "secrets-postgres" or not secrets[0][2]:
    fail(f"POSTGRES_PASSWORD_FILE ({password_file or 'unset'}) is not in the secrets-postgres volume mounted read-only ({mounts(postgres)})")
if not any(s == "secrets-postgres" for s, _, _ in mounts(services["broker"])):
    fail("the broker does not mount secrets-postgres: its entrypoint cannot write the database password")
if not any(s == "postgres-data" and t == environment.get("PGDATA", "/var/lib/postgresql/data") for s, t, _ in mounts(postgres)):
    fail(f"the postgres service's data (PGDATA) is not in the named volume postgres-data ({mounts(postgres)})")
test = postgres.get("healthcheck", {}).get("test") or []
if "pg_isready" not in " ".join(map(str, test)):
    fail(f"the postgres service's health check does not run pg_isready ({test})")
for port in postgres.get("ports") or []:
    host_ip = port.get("host_ip", "") if isinstance(port, dict) else (str(port).rsplit(":", 2)[0] if str(port).count(":") >= 2 else "")
    if host_ip != "127.0.0.1":
        fail(f"the postgres service publishes {port} beyond loopback")
if (postgres.get("depends_on") or {}).get("broker", {}).get("condition") != "service_healthy":
    fail("the postgres service does not wait for a healthy broker (whose entrypoint writes its password)")
grace = re.fullmatch(r"(\d+)s|(\d+)m", str(postgres.get("stop_grace_period", "")))
if postgres.get("stop_signal") not in ("SIGINT", "SIGTERM") or not grace or int(grace.group(1) or 0) + 60 * int(grace.group(2) or 0) < 30:
    fail(f"the postgres service stops with {postgres.get('stop_signal')} within {postgres.get('stop_grace_period')}: give it SIGINT (fast shutdown) and 30 s or more")
for name in ("activity", "journal"):
    if (services[name].get("environment") or {}).get("DATABASE_URL", "") not in ("", None):
        fail(f"the {name} service has a DATABASE_URL by default: the default stack keeps SQLite")
raw = open(raw_file).read()
# (postgres://USER:PASSWORD@HOST:PORT/DATABASE, the documentation's placeholder, is no password.)
if any(m.group(2) != "PASSWORD" for m in re.finditer(r"postgres(ql)?://[^@\s/:]*:([^@\s/]*)@", raw)) \
        or re.search(r"^\s*POSTGRES_PASSWORD\s*:", raw, re.M):
    fail(f"{raw_file} holds a database password")
print(f"check-compose: postgres service ({image}, profile postgres): password from secrets-postgres ({password_file}), data in postgres-data, pg_isready, no host port beyond loopback")
EOF_PY
echo "check-compose: $compose_file is valid for docker-compose 1.29.2"

# 2. The entrypoint scripts against a real broker.
if ! command -v mosquitto >/dev/null || ! command -v mosquitto_sub >/dev/null || ! command -v mosquitto_passwd >/dev/null; then
    echo "check-compose: mosquitto is not installed: entrypoint scripts and ACL not exercised"
    exit 0
fi
chmod 755 "$work"
mkdir -p "$work/config"
cp Config/mosquitto/acl "$work/config/acl"
run_broker_entrypoint() {
    env STEPCOMPASS_APP_UID="$(id -u)" MOSQUITTO_AUTH_DIR="$work/auth" STEPCOMPASS_SECRETS_DIR="$work/secrets" \
        MOSQUITTO_ACL_SOURCE="$work/config/acl" MOSQUITTO_DATA_DIR="$work/data" "$@" \
        sh compose/broker-entrypoint.sh true >/dev/null || fail "broker-entrypoint.sh failed"
}
run_broker_entrypoint STEPCOMPASS_POSITION_PASSWORD=chosen-by-env
for user in sensors compass position markers dashboard bridge activity journal; do
    [ -s "$work/secrets/$user/password" ] || fail "no password generated for $user"
done
first_token="$(cat "$work/secrets/bridge/token" 2>/dev/null)"
[ "${#first_token}" -ge 32 ] || fail "no bridge push token generated (secrets/bridge/token)"
[ "$first_token" != "$(cat "$work/secrets/bridge/password")" ] || fail "the bridge's token is its MQTT password"
[ "$(cat "$work/secrets/position/password")" = "chosen-by-env" ] || fail "STEPCOMPASS_POSITION_PASSWORD was not used"
first_sensors="$(cat "$work/secrets/sensors/password")"
first_database="$(cat "$work/secrets/postgres/password" 2>/dev/null)"
[ "${#first_database}" -ge 32 ] || fail "no database password generated (secrets/postgres/password)"
[ "${#first_sensors}" -ge 32 ] || fail "the generated password is too short"
[ "$(cat "$work/secrets/compass/password")" != "$first_sensors" ] || fail "two users got the same password"
run_broker_entrypoint
[ "$(cat "$work/secrets/sensors/password")" = "$first_sensors" ] || fail "a restart changed a generated password"
[ "$(cat "$work/secrets/position/password")" = "chosen-by-env" ] || fail "a restart lost the password chosen by the environment"
[ "$(stat -c %a "$work/secrets/sensors/password")" = 400 ] || fail "a service password file is not mode 0400"
[ "$(cat "$work/secrets/bridge/token")" = "$first_token" ] || fail "a restart changed the bridge's generated token"
[ "$(stat -c %a "$work/secrets/bridge/token")" = 400 ] || fail "the bridge's token file is not mode 0400"
run_broker_entrypoint STEPCOMPASS_BRIDGE_TOKEN=token-by-env
[ "$(cat "$work/secrets/bridge/token")" = token-by-env ] || fail "STEPCOMPASS_BRIDGE_TOKEN was not used"
cmp -s Config/mosquitto/acl "$work/auth/acl" || fail "the ACL was not installed"
# The database password (the postgres profile): kept across restarts, the same in the postgres container's volume
# and the activity's and the journal's (only theirs), STEPCOMPASS_POSTGRES_PASSWORD wins.
[ "$(cat "$work/secrets/postgres/password")" = "$first_database" ] || fail "a restart changed the generated database password"
[ "$(stat -c %a "$work/secrets/postgres/password")" = 400 ] || fail "the database password file is not mode 0400"
for user in activity journal; do
    cmp -s "$work/secrets/postgres/password" "$work/secrets/$user/database-password" || fail "$user's database-password is not the postgres service's"
    [ "$(stat -c %a "$work/secrets/$user/database-password")" = 400 ] || fail "$user's database-password is not mode 0400"
done
for user in sensors compass position markers dashboard bridge; do
    [ ! -e "$work/secrets/$user/database-password" ] || fail "$user got the database password"
done
run_broker_entrypoint STEPCOMPASS_POSTGRES_PASSWORD='db p@ss/w:rd%'
[ "$(cat "$work/secrets/postgres/password")" = 'db p@ss/w:rd%' ] || fail "STEPCOMPASS_POSTGRES_PASSWORD was not used"
[ "$(cat "$work/secrets/journal/database-password")" = 'db p@ss/w:rd%' ] || fail "STEPCOMPASS_POSTGRES_PASSWORD did not reach the journal's secrets"

{ read -r port; read -r ws_port; } < <(python3 scripts/free_port.py 2)
mkdir -p "$work/conf.d"
cp Config/mosquitto/stepcompass.conf "$work/conf.d/"
sed -e "s|^listener 1883$|listener $port 127.0.0.1|" -e "s|^listener 9001$|listener $ws_port 127.0.0.1|" -e "s|/mosquitto/auth/|$work/auth/|g" \
    -e "s|/mosquitto/data/|$work/data/|" -e "s|/mosquitto/config/conf.d|$work/conf.d|" Config/mosquitto/secure.conf > "$work/mosquitto.conf"
chmod -R a+rX "$work"
mosquitto -c "$work/mosquitto.conf" > "$work/broker.out" 2>&1 &
broker_pid=$!
viewer="$(cat "$work/secrets/clients/viewer")"
for _ in $(seq 1 50); do
    mosquitto_sub -p "$port" -u viewer -P "$viewer" -t '$SYS/broker/version' -C 1 -W 1 >/dev/null 2>&1 && break
    sleep 0.1
done
# The broker's compose health check command, with the generated viewer password.
mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t '$SYS/broker/version' -C 1 -W 3 >/dev/null \
    || fail "the broker health check fails with the generated viewer password: $(cat "$work/broker.out")"

# A service started through service-entrypoint.sh gets its password from its secret file: here the
# "service" is mosquitto_pub publishing the retained online status, as the real service does.
export MQTT_HOST=127.0.0.1 MQTT_PORT="$port" MQTT_USERNAME=markers MQTT_PASSWORD_FILE="$work/secrets/markers/password"
unset MQTT_PASSWORD
sh compose/service-entrypoint.sh sh -c 'mosquitto_pub -h "$MQTT_HOST" -p "$MQTT_PORT" -u "$MQTT_USERNAME" -P "$MQTT_PASSWORD" -q 1 -r -t stepcompass/services/markers/status -m "{\"service\":\"markers\",\"startedAt\":\"2026-11-22T10:15:30.250Z\",\"state\":\"online\",\"version\":\"0.1.0\"}"' \
    || fail "a service could not connect with the password service-entrypoint.sh exported"
sh compose/service-healthcheck.sh markers >/dev/null || fail "the health check does not see the online status"
mosquitto_pub -h 127.0.0.1 -p "$port" -u markers -P "$(cat "$work/secrets/markers/password")" -q 1 -r \
    -t stepcompass/services/markers/status -m '{"service":"markers","state":"offline","version":"0.1.0","startedAt":"2026-11-22T10:15:30.250Z"}'
if sh compose/service-healthcheck.sh markers >/dev/null; then fail "the health check calls an offline service healthy"; fi
if MQTT_PASSWORD=wrong sh compose/service-healthcheck.sh markers >/dev/null 2>&1; then fail "the health check passed with a wrong password"; fi
if sh compose/service-entrypoint.sh stepcompass-no-such-binary >/dev/null 2>&1; then fail "service-entrypoint.sh ran a missing command"; fi
# The bridge's container: service-entrypoint.sh exports its token from the secrets volume, unless
# compose passes one.
got="$(env -u TOKEN TOKEN_FILE="$work/secrets/bridge/token" sh compose/service-entrypoint.sh sh -c 'printf %s "$TOKEN"')"
[ "$got" = token-by-env ] || fail "service-entrypoint.sh did not export the bridge's token from its file (got '$got')"
got="$(env TOKEN=from-compose TOKEN_FILE="$work/secrets/bridge/token" sh compose/service-entrypoint.sh sh -c 'printf %s "$TOKEN"')"
[ "$got" = from-compose ] || fail "service-entrypoint.sh replaced a TOKEN compose passed (got '$got')"
# DATABASE_URL without a password gets the one in the secrets volume, percent-encoded, and nothing on stderr;
# a URL with a password, or without a user, is left alone.
got="$(env DATABASE_URL=postgres://stepcompass@postgres:5432/stepcompass DATABASE_PASSWORD_FILE="$work/secrets/journal/database-password" \
    sh compose/service-entrypoint.sh sh -c 'printf %s "$DATABASE_URL"' 2> "$work/entrypoint.err")"
[ "$got" = 'postgres://stepcompass:db%20p%40ss%2Fw%3Ard%25@postgres:5432/stepcompass' ] || fail "service-entrypoint.sh did not put the database password into DATABASE_URL (got '${got%%:*}:...')"
[ ! -s "$work/entrypoint.err" ] || fail "service-entrypoint.sh wrote to stderr while adding the database password: $(cat "$work/entrypoint.err")"
for url in postgres://stepcompass:given@postgres:5432/stepcompass postgres://postgres:5432/stepcompass ''; do
    got="$(env DATABASE_URL="$url" DATABASE_PASSWORD_FILE="$work/secrets/journal/database-password" sh compose/service-entrypoint.sh sh -c 'printf %s "$DATABASE_URL"')"
    [ "$got" = "$url" ] || fail "service-entrypoint.sh changed DATABASE_URL '$url'"
done
echo "check-compose: broker and service entrypoints work against mosquitto $(mosquitto -h 2>/dev/null | awk 'NR==1 {print $3}')"

# Persistence (the broker-data volume): a retained message and a persistent session's queued QoS 1 message
# survive a restart of the compose broker (SIGTERM, as `docker compose restart broker` sends), with secure.conf's
# persistence_location and stepcompass.conf's `persistence true` as compose mounts them.
markers_password="$(cat "$work/secrets/markers/password")"
mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -i persistence-check -c -q 1 -t stepcompass/services/markers/status \
    -C 1 -W 5 >/dev/null || fail "the viewer could not open a persistent session"
mosquitto_pub -h 127.0.0.1 -p "$port" -u markers -P "$markers_password" -q 1 -r \
    -t stepcompass/services/markers/status -m '{"service":"markers","state":"online","version":"0.1.0","startedAt":"2026-11-22T10:15:30.250Z"}'
# Not retained: only the persistent session keeps this one.
mosquitto_pub -h 127.0.0.1 -p "$port" -u markers -P "$markers_password" -q 1 -t stepcompass/services/markers/status -m queued-while-away
kill -TERM "$broker_pid"
wait "$broker_pid" || fail "the broker did not stop cleanly on SIGTERM: $(tail -3 "$work/broker.out")"
[ -s "$work/data/mosquitto.db" ] || fail "the broker wrote no persistence file in its data volume (persistence_location)"
mosquitto -c "$work/mosquitto.conf" >> "$work/broker.out" 2>&1 &
broker_pid=$!
for _ in $(seq 1 50); do
    mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t '$SYS/broker/version' -C 1 -W 1 >/dev/null 2>&1 && break
    sleep 0.1
done
mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t '$SYS/broker/version' -C 1 -W 3 >/dev/null 2>&1 \
    || fail "the broker did not come back after its restart: $(tail -3 "$work/broker.out")"
retained="$(mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t stepcompass/services/markers/status -C 1 -W 5 2>/dev/null)"
case "$retained" in *'"online"'*) ;; *) fail "the retained status did not survive a broker restart (got '$retained')" ;; esac
queued="$(mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -i persistence-check -c -q 1 -t stepcompass/services/markers/status \
    -C 3 -W 5 2>/dev/null)"
case "$queued" in *queued-while-away*) ;; *) fail "the persistent session's queued message did not survive a broker restart (got '$queued')" ;; esac
echo "check-compose: the broker keeps retained messages and persistent sessions across a restart ($(stat -c %s "$work/data/mosquitto.db") bytes in its data volume)"
