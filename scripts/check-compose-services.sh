#!/usr/bin/env bash
# Runs every service of compose/docker-compose.yml on this machine, without Docker, the way its
# container would run it, against a private mosquitto configured like the compose broker, and expects
# each to come online, pass its compose health check, and stop cleanly on its stop signal. A wrong
# command, flag, environment variable, password or ACL in the compose file (or in the configuration and
# scripts it mounts) fails here instead of in a user's `docker compose up`.
#
#   1. `docker-compose config` (1.29.2, from scripts/compose-venv.sh) in an empty environment resolves
#      the file: every ${VAR:-default}, YAML anchor and path exactly as Compose would use them.
#   2. scripts/compose_services.py plans each process from that and compose/Dockerfile (ENTRYPOINT
#      service-entrypoint, WORKDIR /app with Config/ copied in, PATH=/app/bin:..., ENV LOG_FORMAT) and
#      prints every substitution. Only what Docker's network and volumes provide is substituted: the
#      broker's host name and port (MQTT_HOST, MQTT_PORT), HTTP_PORT, the volumes (the secrets volume ->
#      the folder the broker's entrypoint generated, through MQTT_PASSWORD_FILE; the marker cache -> a
#      temporary folder) and the internet (the markers' SOURCE -> Config/markers/sample-markers.geojson).
#      The rest (commands, flags, every other variable) runs verbatim. Each service runs in a copy of
#      the image's WORKDIR (/app: Config/<service>.json is found there as in the container) with only
#      the image's and the compose file's environment (env -i).
#   3. The broker: its entrypoint (compose/broker-entrypoint.sh generates the passwords and the secrets
#      folders) and command, with Config/mosquitto/{secure.conf,stepcompass.conf,acl} as compose mounts
#      them, paths and listener rewritten to a temporary root and a free loopback port; then its compose
#      health check, as depends_on: service_healthy waits for it.
#   4. Every service whose command is a stepcompass-* executable (the dashboard too once its block is
#      enabled: nothing here names the services) through the image's entrypoint; each must publish a
#      retained `online` status within ONLINE_TIMEOUT seconds (20) as the read-only viewer sees it, pass
#      its compose health check and serve GET /metrics on its METRICS_PORT; Debian's prometheus (when
#      installed) scrapes them all with compose/prometheus.yml, its targets mapped to the local ports; then
#      each service gets its stop signal and must exit 0 leaving `offline`.
#   5. A self-test proves the check can fail: a wrong command, an unknown flag, a wrong user and another
#      service's user (its ACL) must each be caught, and so must a misspelt variable and a wrong port.
#   6. The `postgres` profile, switched on as the compose file documents it (COMPOSE_PROFILES=postgres,
#      ACTIVITY_DATABASE_URL and JOURNAL_DATABASE_URL postgres://stepcompass@postgres:5432/stepcompass): a
#      fresh broker (its entrypoint writes the database password), then the services whose DATABASE_URL
#      names the postgres service (activity and journal) started first, as compose starts them (no
#      depends_on: they must wait for the database themselves), then the postgres service as its image's
#      entrypoint runs it, with Debian's PostgreSQL of the same major version (initdb as POSTGRES_USER with
#      the password of POSTGRES_PASSWORD_FILE, the server as the postgres user when run as root, on a free
#      loopback port below the ephemeral range, POSTGRES_DB created) and its compose health check
#      (pg_isready). Each must come online and pass its health check; psql over TCP with the generated
#      password must list the activity's and the journal's tables, and a device's step counts published on
#      the bus must be in the activity's table after it stops (no SQLite file anywhere); everything stops
#      with status 0 on its stop signal. Self-test: a wrong database password and the profile left off (with
#      the URLs set) are caught.
#
# Usage: scripts/check-compose-services.sh [BIN_DIR [COMPOSE_FILE]]   (default .build/debug; build first)
# Needs mosquitto, mosquitto-clients and python3 (docker-compose is installed into .build/venv-compose),
# and PostgreSQL (Debian's postgresql) for step 6.
# Takes about 20 s (step 6: about 4 s). KEEP=1 keeps the logs.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
bin="${1:-.build/debug}"
compose_file="${2:-compose/docker-compose.yml}"
online_timeout="${ONLINE_TIMEOUT:-20}"
start_time="$(date +%s.%N)"

say() { echo "check-compose-services: $*"; }
die() { echo "check-compose-services: FAILED: $*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

[ -d "$bin" ] || die "$bin does not exist (swift build first)"
for tool in mosquitto mosquitto_sub mosquitto_pub mosquitto_passwd python3 flock timeout curl; do
    command -v "$tool" >/dev/null || die "$tool is not installed (scripts/ensure-deps.sh)"
done

work="$(mktemp -d)"
chmod 755 "$work" # the broker drops to the mosquitto user when started as root: it must reach its data
plan="$work/plan"
mkdir -p "$work/logs"
broker_pid=""
sub_pid=""
pg_pid=""
declare -A pid_of=() started_at=() status_from=() failure=()
cleanup() {
    local pid
    for pid in "${pid_of[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for _ in $(seq 1 30); do
        local alive=0
        for pid in "${pid_of[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for pid in "${pid_of[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    [ -n "$sub_pid" ] && kill "$sub_pid" 2>/dev/null
    if [ -n "$broker_pid" ]; then kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null; fi
    # PostgreSQL's fast shutdown (SIGINT), as its compose stop_signal.
    if [ -n "$pg_pid" ]; then kill -INT "$pg_pid" 2>/dev/null && wait "$pg_pid" 2>/dev/null; fi
    if [ -n "${KEEP:-}" ]; then echo "check-compose-services: logs kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The resolved configuration, as Compose sees it in a clean clone with an empty environment.
venv="$(scripts/compose-venv.sh)" || die "could not install docker-compose 1.29.2 (scripts/compose-venv.sh)"
# The project folder is compose/ (relative paths resolve there), also for a variant kept elsewhere.
env -i PATH="$PATH" HOME="$HOME" "$venv/bin/docker-compose" --project-directory compose \
    -f "$compose_file" config > "$work/resolved.yml" 2> "$work/config.err" \
    || die "docker-compose rejects $compose_file: $(cat "$work/config.err")"

# 2. The plan (prints every substitution).
say "plan of $compose_file (each line: a compose value and what stands in for it here)"
"$venv/bin/python" scripts/compose_services.py "$work/resolved.yml" compose/Dockerfile "$bin" "$work" \
    || die "$compose_file cannot run as it is (above)"
mapfile -t services < "$plan/services"
port="$(cat "$plan/broker/port")"

# Runs the health check of a plan (its argv, environment and working folder) within its timeout.
run_health() {
    local dir="$1" health env_vars timeout_s
    mapfile -d '' -t health < "$dir/health"
    mapfile -d '' -t env_vars < "$dir/env"
    timeout_s="$(cat "$dir/health_timeout" 2>/dev/null || echo 5)"
    (cd "$(cat "$dir/cwd")" && exec env -i "${env_vars[@]}" timeout "$timeout_s" "${health[@]}")
}

# 3. The broker of the plan in $plan (log: LOG), then its health check until it passes (depends_on: condition:
# service_healthy); then every status topic of SERVICE..., as the read-only viewer sees it, appended to
# $work/status.txt (statuses are retained: no race with the services).
start_broker() {
    local log="$1" broker_argv broker_env healthy="" status_topics=() service
    shift
    mapfile -d '' -t broker_argv < "$plan/broker/argv"
    mapfile -d '' -t broker_env < "$plan/broker/env"
    (cd "$(cat "$plan/broker/cwd")" && exec env -i "${broker_env[@]}" "${broker_argv[@]}") > "$log" 2>&1 &
    broker_pid=$!
    for _ in $(seq 1 40); do
        kill -0 "$broker_pid" 2>/dev/null || die "the broker exited: $(tail -20 "$log")"
        if [ -f "$plan/broker/health" ]; then
            printf '%s' 5 > "$plan/broker/health_timeout"
            run_health "$plan/broker" >/dev/null 2>&1 && { healthy=1; break; }
        fi
        sleep 0.25
    done
    [ -n "$healthy" ] || die "the broker's compose health check never passed: $(tail -20 "$log")"
    viewer="$(cat "$(cat "$plan/broker/viewer_password_file")")"
    say "broker healthy on 127.0.0.1:$port ($(grep -m1 'broker-entrypoint:' "$log"))"
    for service in "$@"; do status_topics+=(-t "$(cat "$plan/$service/status_topic")"); done
    touch "$work/status.txt"
    mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" "${status_topics[@]}" -v >> "$work/status.txt" 2>> "$work/logs/status-sub.log" &
    sub_pid=$!
}
# Stops what start_broker started.
stop_broker() {
    [ -n "$sub_pid" ] && kill "$sub_pid" 2>/dev/null && wait "$sub_pid" 2>/dev/null
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null
    sub_pid="" broker_pid=""
}
start_broker "$work/logs/broker.log" "${services[@]}"

# launch LABEL SERVICE [--append-arg WORD] [--replace-command WORD] [--set NAME=VALUE]...: starts a service from its plan, with
# the changes the self-test makes (none in the real run), in the background.
launch() {
    local label="$1" service="$2" argv env_vars
    shift 2
    mapfile -d '' -t argv < "$plan/$service/argv"
    mapfile -d '' -t env_vars < "$plan/$service/env"
    while [ "$#" -gt 0 ]; do
        case "$1" in
            --append-arg) argv+=("$2") ;;
            --replace-command)
                local j
                for j in "${!argv[@]}"; do
                    [[ "${argv[$j]}" == stepcompass-* ]] && { argv[$j]="$2"; break; }
                done
                ;;
            --set)
                local name="${2%%=*}" i kept=()
                for i in "${env_vars[@]}"; do [ "${i%%=*}" = "$name" ] || kept+=("$i"); done
                env_vars=("${kept[@]}" "$2")
                ;;
        esac
        shift 2
    done
    status_from[$label]="$(wc -l < "$work/status.txt")"
    started_at[$label]="$(date +%s.%N)"
    (cd "$(cat "$plan/$service/cwd")" && exec env -i "${env_vars[@]}" "${argv[@]}") > "$work/logs/$label.log" 2>&1 &
    pid_of[$label]=$!
}

# The latest state LABEL's service published since it was launched (online, offline or nothing).
state_of() {
    local label="$1" topic="$2"
    tail -n +"$((status_from[$label] + 1))" "$work/status.txt" | grep -F "$topic " | tail -1 \
        | grep -oE '"state" ?: ?"[a-z]+"' | grep -oE '[a-z]+"$' | tr -d '"'
}

# The first refusal by the broker in LABEL's log: a wrong user or password (CONNACK), or a publish its
# ACL does not allow (PUBACK). mosquitto's own log names neither the client of a refused connection
# ("Client <unknown> disconnected, not authorised") nor a refused publish (debug level only); the
# service logs the reason code the broker sent, which libmosquitto spells "Not authorized".
# The database's refusal of a wrong user or password (PostgreSQL's 28P01/28000), as postgres-nio logs it, the same way.
refusal() {
    grep -m1 -iE 'not authori[sz]ed|bad user ?name or password|password authentication failed|sqlState: 28' "$work/logs/$1.log" \
        | sed -E -e 's/.*"message":"([^"]*)".*"mqtt.reason":"([^"]*)".*/\1 (\2)/' \
            -e 's/.*"message":"([^"]*)".*(sqlState: [0-9A-Z]+).*message: ([^,]*),.*/the database: \1 (\2, \3)/' -e 's/\\"/"/g' | cut -c1-160
}

# wait_online LABEL:SERVICE...: waits for each to say online; records why any did not in failure[].
wait_online() {
    local deadline pending=("$@") next item label service topic rc refused
    deadline="$(awk -v t="$(date +%s.%N)" -v d="$online_timeout" 'BEGIN { printf "%.3f", t + d }')"
    while [ "${#pending[@]}" -gt 0 ]; do
        next=()
        for item in "${pending[@]}"; do
            label="${item%%:*}" service="${item#*:}"
            topic="$(cat "$plan/$service/status_topic")"
            if [ "$(state_of "$label" "$topic")" = online ]; then
                say "  $label: online after $(elapsed "${started_at[$label]}") s"
            elif ! kill -0 "${pid_of[$label]}" 2>/dev/null; then
                wait "${pid_of[$label]}"
                rc=$?
                unset "pid_of[$label]"
                failure[$label]="exited with status $rc before saying online"
            elif refused="$(refusal "$label")"; then
                failure[$label]="refused: $refused"
            elif awk -v d="$deadline" -v t="$(date +%s.%N)" 'BEGIN { exit !(t > d) }'; then
                failure[$label]="did not say online within $online_timeout s (last status: '$(state_of "$label" "$topic")')"
            else
                next+=("$item")
            fi
        done
        pending=("${next[@]}")
        [ "${#pending[@]}" -gt 0 ] && sleep 0.1
    done
}

# The failure of LABEL, with the tail of its log.
report() {
    local label="$1"
    echo "check-compose-services:   $label ${failure[$label]}; the end of its log:" >&2
    tail -n 8 "$work/logs/$label.log" | sed 's/^/      | /' >&2
}

# 4. Every service, as its container would run it.
say "starting ${services[*]} through the image's entrypoint (logs: $work/logs)"
items=()
for service in "${services[@]}"; do
    launch "$service" "$service"
    items+=("$service:$service")
done
wait_online "${items[@]}"
failed=()
for service in "${services[@]}"; do
    if [ -n "${failure[$service]:-}" ]; then report "$service"; failed+=("$service"); fi
done
[ "${#failed[@]}" = 0 ] || die "${failed[*]} did not come online as compose runs it (against the compose broker's configuration)"

for service in "${services[@]}"; do
    topic="$(cat "$plan/$service/status_topic")"
    retained="$(mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t "$topic" -C 1 -W 3 --retained-only 2>&1)"
    case "$retained" in *'"state":"online"'* | *'"state": "online"'*) ;; *)
        die "$service: the viewer does not read a retained online status on $topic (got '$retained')" ;;
    esac
    if [ -f "$plan/$service/health" ]; then
        health="$(run_health "$plan/$service" 2>&1)" || die "$service: its compose health check fails: $health"
        say "  $service: retained online; compose health check: ${health:0:60}..."
    fi
    http_port="$(grep -z '^HTTP_PORT=' "$plan/$service/env" | tr -d '\0' | cut -d= -f2-)"
    if [ -n "$http_port" ]; then
        (exec 3<>"/dev/tcp/127.0.0.1/$http_port") 2>/dev/null || die "$service: nothing listens on HTTP_PORT ($http_port)"
        say "  $service: listens on HTTP_PORT ($http_port)"
    fi
    if [ -f "$plan/$service/metrics_port" ]; then
        metrics_port="$(cat "$plan/$service/metrics_port")"
        metrics="$(curl -sf --max-time 5 "http://127.0.0.1:$metrics_port/metrics")" \
            || die "$service: no GET /metrics on METRICS_PORT ($metrics_port)"
        grep -q "^stepcompass_service_info{service=\"$service\"" <<< "$metrics" || die "$service: its /metrics has no stepcompass_service_info{service=\"$service\"}"
        grep -q "^stepcompass_mqtt_connected{service=\"$service\"} 1" <<< "$metrics" || die "$service: its /metrics does not say it is connected"
        say "  $service: GET /metrics on METRICS_PORT ($metrics_port): $(grep -c '^stepcompass_' <<< "$metrics") stepcompass series"
    else
        die "$service: no METRICS_PORT (every service serves its metrics in compose)"
    fi
done

# The compose `prometheus` service's scrape configuration, with Debian's prometheus when it is installed: each
# target `SERVICE:PORT` becomes the service's metrics port here (its compose name resolves on the compose network
# only), the interval 1 s; every target must be up.
prometheus_config="compose/prometheus.yml"
if command -v prometheus >/dev/null && [ -f "$prometheus_config" ]; then
    prometheus_port="$(python3 scripts/free_port.py)"
    "$venv/bin/python" - "$prometheus_config" "$plan" "$work/prometheus.yml" <<'EOF_PY' || die "$prometheus_config does not scrape the services compose runs (above)"
import os, sys, yaml
source, plan, target = sys.argv[1:4]
config = yaml.safe_load(open(source))
config.setdefault("global", {}).update(scrape_interval="1s", scrape_timeout="1s")
for job in config["scrape_configs"]:
    job.update(scrape_interval="1s", scrape_timeout="1s")
    for static in job.get("static_configs", []):
        local = []
        for address in static["targets"]:
            service, port = address.rsplit(":", 1)
            folder = os.path.join(plan, service)
            if not os.path.isfile(os.path.join(folder, "metrics_port")):
                sys.exit(f"check-compose-services: {source} scrapes {address}, but compose runs no service {service} with METRICS_PORT")
            if open(os.path.join(folder, "metrics_container_port")).read() != port:
                sys.exit(f"check-compose-services: {source} scrapes {address}, but {service} serves its metrics on METRICS_PORT {open(os.path.join(folder, 'metrics_container_port')).read()}")
            local.append("127.0.0.1:" + open(os.path.join(folder, "metrics_port")).read())
        static["targets"] = local
yaml.safe_dump(config, open(target, "w"))
EOF_PY
    prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prometheus-data" \
        --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn > "$work/logs/prometheus.log" 2>&1 &
    pid_of[prometheus]=$!
    up=""
    for _ in $(seq 1 60); do
        targets="$(curl -sf --max-time 2 "http://127.0.0.1:$prometheus_port/api/v1/targets" 2>/dev/null)" || { sleep 0.5; continue; }
        up="$(python3 -c 'import json, sys; t = json.load(sys.stdin)["data"]["activeTargets"]; print(sum(x["health"] == "up" for x in t), len(t))' <<< "$targets")"
        [ "$up" = "${#services[@]} ${#services[@]}" ] && break
        sleep 0.5
    done
    [ "$up" = "${#services[@]} ${#services[@]}" ] || die "prometheus with $prometheus_config: targets up/listed: ${up:-none} of ${#services[@]} services: $(tail -5 "$work/logs/prometheus.log")"
    say "  prometheus with $prometheus_config: all ${#services[@]} services' targets up"
    kill -TERM "${pid_of[prometheus]}" 2>/dev/null
    wait "${pid_of[prometheus]}" 2>/dev/null
    unset "pid_of[prometheus]"
else
    say "  (prometheus is not installed: $prometheus_config not scraped here; scripts/check-compose.sh checks its targets)"
fi

# A moment of real work, then no publish of any service may have been refused by the ACL.
sleep "${SOAK_SECONDS:-2}"
for service in "${services[@]}"; do
    kill -0 "${pid_of[$service]}" 2>/dev/null || { failure[$service]="exited while running"; report "$service"; die "$service stopped by itself"; }
    if refused="$(refusal "$service")"; then
        failure[$service]="had a publish refused: $refused"
        report "$service"
        die "$service publishes a topic the broker's ACL (Config/mosquitto/acl) does not give its user"
    fi
done

# Stop as `docker compose stop` does: the stop signal, then up to stop_grace_period.
for service in "${services[@]}"; do kill -s "$(cat "$plan/$service/signal")" "${pid_of[$service]}"; done
for service in "${services[@]}"; do
    grace="$(cat "$plan/$service/grace")"
    stop_start="$(date +%s.%N)"
    while kill -0 "${pid_of[$service]}" 2>/dev/null \
        && awk -v s="$stop_start" -v g="$grace" -v t="$(date +%s.%N)" 'BEGIN { exit !(t - s < g) }'; do sleep 0.1; done
    kill -0 "${pid_of[$service]}" 2>/dev/null && die "$service still runs $grace s (its stop_grace_period) after SIG$(cat "$plan/$service/signal")"
    wait "${pid_of[$service]}"
    rc=$?
    unset "pid_of[$service]"
    [ "$rc" = 0 ] || { failure[$service]="exited with status $rc after SIG$(cat "$plan/$service/signal")"; report "$service"; die "$service did not stop cleanly"; }
done
for service in "${services[@]}"; do
    topic="$(cat "$plan/$service/status_topic")"
    retained="$(mosquitto_sub -h 127.0.0.1 -p "$port" -u viewer -P "$viewer" -t "$topic" -C 1 -W 3 --retained-only 2>&1)"
    case "$retained" in *'"state":"offline"'* | *'"state": "offline"'*) ;; *)
        die "$service: no retained offline status after it stopped (got '$retained')" ;;
    esac
done
say "all ${#services[@]} services came online, passed their health checks and stopped with status 0, leaving offline"
main_time="$(elapsed "$start_time")"

# 5. SELF-TEST: the same check, on services broken on purpose, must fail each time.
say "self-test: each of these must NOT come online (proves the check above can fail)"
pick() { echo "${services[$(($1 % ${#services[@]}))]}"; }
a="$(pick 0)" b="$(pick 1)" c="$(pick 2)" d="$(pick 3)"
user_of() { grep -z '^MQTT_USERNAME=' "$plan/$1/env" | tr -d '\0' | cut -d= -f2-; }
secret_of() { grep -z '^MQTT_PASSWORD_FILE=' "$plan/$1/env" | tr -d '\0' | cut -d= -f2-; }
other=""
for service in "${services[@]}"; do
    [ "$(user_of "$service")" != "$(user_of "$d")" ] && { other="$service"; break; }
done
[ -n "$other" ] || die "self-test: needs two services with different users"
declare -A expectation=(
    [self-test-command]="wrong command: stepcompass-$a-typo for $a"
    [self-test-flag]="unknown flag: $b with --no-such-flag appended"
    [self-test-user]="wrong MQTT_USERNAME: $c as user '$(user_of "$c")-typo'"
    [self-test-acl]="another user's ACL: $d as user '$(user_of "$other")' with that user's password"
)
launch self-test-command "$a" --replace-command "stepcompass-$a-typo"
launch self-test-flag "$b" --append-arg --no-such-flag
launch self-test-user "$c" --set "MQTT_USERNAME=$(user_of "$c")-typo"
launch self-test-acl "$d" --set "MQTT_USERNAME=$(user_of "$other")" --set "MQTT_PASSWORD_FILE=$(secret_of "$other")"
wait_online self-test-command:"$a" self-test-flag:"$b" self-test-user:"$c" self-test-acl:"$d"
for label in self-test-command self-test-flag self-test-user self-test-acl; do
    [ -n "${failure[$label]:-}" ] || die "self-test: the check did not catch a ${expectation[$label]} (it came online)"
    say "  caught ${expectation[$label]}: ${failure[$label]}"
    say "    its log: $({ grep -m1 -iE 'error|not authori|not in this image' "$work/logs/$label.log" || tail -1 "$work/logs/$label.log"; } | cut -c1-150)"
done
# The compose values that cannot run here as they are must be refused by the plan too.
"$venv/bin/python" - "$work/resolved.yml" "$a" "$b" <<'EOF' || die "self-test: could not write the broken configurations"
import sys, yaml
path, a, b = sys.argv[1:4]
for name, change in (("misspelt", lambda s: s[a]["environment"].update(MQTT_USERNAM=a)),
                     ("port", lambda s: s[b]["environment"].update(MQTT_PORT="1884"))):
    config = yaml.safe_load(open(path))
    change(config["services"])
    yaml.safe_dump(config, open(f"{path}.{name}", "w"))
EOF
for variant in misspelt port; do
    mkdir -p "$work/self-test-$variant"
    if out="$("$venv/bin/python" scripts/compose_services.py "$work/resolved.yml.$variant" compose/Dockerfile "$bin" "$work/self-test-$variant" 2>&1)"; then
        die "self-test: the plan accepted a compose file with a $variant variable"
    fi
    say "  caught a $([ "$variant" = port ] && echo "wrong MQTT_PORT (1884) on $b" || echo "misspelt variable (MQTT_USERNAM) on $a"): $(tail -1 <<< "$out" | sed 's/^compose_services: //')"
done
default_services=("${services[@]}")
self_tests=6

# 6. The `postgres` profile, switched on as the compose file documents it: the postgres service (Debian's own
#    PostgreSQL, set up as the image's entrypoint does) and the services whose DATABASE_URL names it.
pg_start="$(date +%s.%N)"
for label in "${!pid_of[@]}"; do kill -TERM "${pid_of[$label]}" 2>/dev/null; done # the self-test's leftovers
for label in "${!pid_of[@]}"; do wait "${pid_of[$label]}" 2>/dev/null; unset "pid_of[$label]"; done
stop_broker
database_url="postgres://stepcompass@postgres:5432/stepcompass"
pg_work="$work/profile-postgres"
mkdir -p "$pg_work"
chmod 755 "$pg_work"
say "profile postgres: COMPOSE_PROFILES=postgres ACTIVITY_DATABASE_URL=$database_url JOURNAL_DATABASE_URL=$database_url"
env -i PATH="$PATH" HOME="$HOME" COMPOSE_PROFILES=postgres ACTIVITY_DATABASE_URL="$database_url" JOURNAL_DATABASE_URL="$database_url" \
    "$venv/bin/docker-compose" --project-directory compose -f "$compose_file" config > "$pg_work/resolved.yml" 2> "$pg_work/config.err" \
    || die "docker-compose rejects $compose_file with the postgres profile: $(cat "$pg_work/config.err")"
COMPOSE_PROFILES=postgres "$venv/bin/python" scripts/compose_services.py "$pg_work/resolved.yml" compose/Dockerfile "$bin" "$pg_work" \
    > "$work/logs/plan-postgres.txt" 2>&1 || die "$compose_file cannot run with the postgres profile: $(tail -3 "$work/logs/plan-postgres.txt")"
# The plan's lines about the database and its clients (the rest is the default pass's, above).
sed -n '/^database /,/^service /p' "$work/logs/plan-postgres.txt" | sed '$d'
grep -E '^  DATABASE_URL=' "$work/logs/plan-postgres.txt"
plan="$pg_work/plan"
port="$(cat "$plan/broker/port")"
mapfile -t databases < "$plan/databases"
[ "${databases[*]}" = postgres ] || die "the postgres profile runs the database services '${databases[*]}', not postgres"
pg="$plan/postgres"
mapfile -t clients < "$pg/clients"
[ "${clients[*]}" = "activity journal" ] || die "with the documented DATABASE_URLs, '${clients[*]}' use the postgres service (expected activity and journal)"
start_broker "$work/logs/broker-postgres.log" "${clients[@]}"
database_password_file="$(cat "$pg/password_file")"
[ -s "$database_password_file" ] || die "the broker's entrypoint wrote no database password ($database_password_file)"
for client in "${clients[@]}"; do
    copy="$(grep -z '^DATABASE_PASSWORD_FILE=' "$plan/$client/env" | tr -d '\0' | cut -d= -f2-)"
    cmp -s "$copy" "$database_password_file" || die "$client's database password ($copy) is not the postgres service's"
done

# Compose starts them with the broker, not after the database (no depends_on: see compose/docker-compose.yml):
# they must wait for it themselves.
say "starting ${clients[*]} before the database is up, as compose does (no depends_on on an optional service)"
items=()
for client in "${clients[@]}"; do
    launch "pg-$client" "$client"
    items+=("pg-$client:$client")
done

# The image's entrypoint: initdb with POSTGRES_USER and the password of POSTGRES_PASSWORD_FILE (read as root,
# handed to initdb in a file only the server's user reads, deleted after); a temporary server on its socket only
# (no TCP yet; fsync off here, it is thrown away at once) creates POSTGRES_DB; then the server.
run_as="$(cat "$pg/run_as" 2>/dev/null)"
pg_port="$(cat "$pg/port")"
pg_user="$(cat "$pg/user")"
pg_database="$(cat "$pg/database")"
mapfile -d '' -t pg_env < "$pg/env"
pwfile="$(cat "$pg/pwfile")"
install -m 600 ${run_as:+-o "$run_as"} /dev/null "$pwfile"
{ cat "$database_password_file"; echo; } > "$pwfile"
mapfile -d '' -t initdb_argv < "$pg/initdb"
initdb_start="$(date +%s.%N)"
(cd "$(cat "$pg/cwd")" && exec env -i "${pg_env[@]}" "${initdb_argv[@]}") > "$work/logs/postgres-initdb.log" 2>&1
initdb_rc=$?
rm -f "$pwfile"
[ "$initdb_rc" = 0 ] || die "initdb failed: $(tail -5 "$work/logs/postgres-initdb.log")"
initdb_time="$(elapsed "$initdb_start")"
mapfile -d '' -t pg_argv < "$pg/argv"
# start_postgres LOG [ARG...]: the server with ARGs appended, until it accepts connections on its socket.
start_postgres() {
    local log="$1" ready=""
    shift
    (cd "$(cat "$pg/cwd")" && exec env -i "${pg_env[@]}" "${pg_argv[@]}" "$@") >> "$log" 2>&1 &
    pg_pid=$!
    for _ in $(seq 1 100); do
        kill -0 "$pg_pid" 2>/dev/null || die "postgres exited: $(tail -5 "$log")"
        (cd "$(cat "$pg/cwd")" && exec env -i "${pg_env[@]}" pg_isready -q -U "$pg_user" -d postgres) && { ready=1; break; }
        sleep 0.1
    done
    [ -n "$ready" ] || die "postgres did not accept connections on its socket within 10 s: $(tail -5 "$log")"
}
# stop_postgres: its compose stop signal, at most its stop_grace_period; it must exit 0.
stop_postgres() {
    local grace rc stop_start
    kill -s "$(cat "$pg/signal")" "$pg_pid"
    grace="$(cat "$pg/grace")"
    stop_start="$(date +%s.%N)"
    while kill -0 "$pg_pid" 2>/dev/null \
        && awk -v s="$stop_start" -v g="$grace" -v t="$(date +%s.%N)" 'BEGIN { exit !(t - s < g) }'; do sleep 0.1; done
    kill -0 "$pg_pid" 2>/dev/null && die "postgres still runs $grace s (its stop_grace_period) after SIG$(cat "$pg/signal")"
    wait "$pg_pid"
    rc=$?
    pg_pid=""
    [ "$rc" = 0 ] || die "postgres exited with status $rc after SIG$(cat "$pg/signal"): $(tail -3 "$work/logs/postgres.log")"
    pg_stop_time="$(elapsed "$stop_start")"
}
if [ -f "$pg/create_db" ]; then
    start_postgres "$work/logs/postgres-init.log" -c listen_addresses= -c fsync=off
    mapfile -d '' -t create_argv < "$pg/create_db"
    (cd "$(cat "$pg/cwd")" && exec env -i "${pg_env[@]}" "${create_argv[@]}") > "$work/logs/postgres-createdb.log" 2>&1 \
        || die "POSTGRES_DB could not be created: $(cat "$work/logs/postgres-createdb.log")"
    stop_postgres
fi
start_postgres "$work/logs/postgres.log"
health="$(run_health "$pg" 2>&1)" || die "postgres: its compose health check fails: $health"
say "postgres healthy on 127.0.0.1:$pg_port ($(head -1 "$work/logs/postgres.log" | grep -oE 'PostgreSQL [0-9.]+' || echo PostgreSQL); initdb as '$pg_user' with the generated password in $initdb_time s; database '$pg_database'; compose health check: pg_isready)"

# The clients: online, healthy, and their data in PostgreSQL.
wait_online "${items[@]}"
failed=()
for client in "${clients[@]}"; do
    if [ -n "${failure[pg-$client]:-}" ]; then report "pg-$client"; failed+=("$client"); fi
done
[ "${#failed[@]}" = 0 ] || die "${failed[*]} did not come online with the postgres profile"
for client in "${clients[@]}"; do
    health="$(run_health "$plan/$client" 2>&1)" || die "$client: its compose health check fails with the postgres profile: $health"
    grep -q 'in PostgreSQL' "$work/logs/pg-$client.log" || die "$client does not say it keeps its data in PostgreSQL: $(grep -m1 -E 'in (SQLite|PostgreSQL)' "$work/logs/pg-$client.log")"
    retries="$(grep -c 'Connection creation failed' "$work/logs/pg-$client.log")"
    say "  pg-$client: its data in PostgreSQL ('$(grep -m1 -oE '"message":"[^"]* in PostgreSQL"' "$work/logs/pg-$client.log" | cut -d'"' -f4)'), $retries connection attempt(s) refused while the database was starting; compose health check passes"
done
# As another container would: over TCP, as POSTGRES_USER, with the password the broker's entrypoint generated.
pg_psql() {
    env -i PATH="$PATH" PGPASSWORD="$(cat "$database_password_file")" PGCONNECT_TIMEOUT=5 \
        "$(cat "$pg/bin_dir")/psql" -X -h 127.0.0.1 -p "$pg_port" -U "$pg_user" -d "$pg_database" -v ON_ERROR_STOP=1 -At "$@"
}
tables="$(pg_psql -c "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'" 2>&1)" \
    || die "psql as '$pg_user' with the generated password over TCP: $tables"
for table in device_tally step_days journal_walks journal_route; do
    [[ " $tables " == *" $table "* ]] || die "no table $table in the database '$pg_database' (its tables: $tables)"
done
say "  psql -h 127.0.0.1 -U $pg_user $pg_database (the generated password): tables $tables"
# A device's step counts on the bus: the activity's tally and the journal's walk (--auto starts one at a device's
# first steps) must appear in PostgreSQL.
device_password="$(cat "$(dirname "$(cat "$plan/broker/viewer_password_file")")/device")"
for count in 100 130; do
    mosquitto_pub -h 127.0.0.1 -p "$port" -u device -P "$device_password" -q 1 -t "$(sed 's|/services/activity/status$||' "$plan/activity/status_topic")/check-walker/steps" \
        -m "{\"steps\":$count,\"timestamp\":\"$(date -u +%Y-%m-%dT%H:%M:%S.000Z)\"}" || die "could not publish a step count as the device user"
done
rows=""
for _ in $(seq 1 50); do
    rows="$(pg_psql -F ' ' -c "SELECT (SELECT string_agg(device || '=' || total, ' ') FROM device_tally WHERE device = 'check-walker'), (SELECT count(*) FROM journal_walks WHERE device = 'check-walker')" 2>&1)"
    [[ "$rows" == check-walker=*' '[1-9]* ]] && break
    sleep 0.2
done
[[ "$rows" == check-walker=*' '[1-9]* ]] || die "the activity's tally and the journal's walk of check-walker are not both in PostgreSQL within 10 s (device_tally, journal_walks: '$rows')"
say "  a device's steps on the bus -> PostgreSQL: the activity's device_tally ${rows%% *}, the journal's journal_walks ${rows##* } walk(s) of check-walker"

# Stop the clients as `docker compose stop` does, then the database with its stop signal.
for client in "${clients[@]}"; do kill -s "$(cat "$plan/$client/signal")" "${pid_of[pg-$client]}"; done
for client in "${clients[@]}"; do
    grace="$(cat "$plan/$client/grace")"
    stop_start="$(date +%s.%N)"
    while kill -0 "${pid_of[pg-$client]}" 2>/dev/null \
        && awk -v s="$stop_start" -v g="$grace" -v t="$(date +%s.%N)" 'BEGIN { exit !(t - s < g) }'; do sleep 0.1; done
    kill -0 "${pid_of[pg-$client]}" 2>/dev/null && die "$client still runs $grace s after its stop signal (postgres profile)"
    wait "${pid_of[pg-$client]}"
    rc=$?
    unset "pid_of[pg-$client]"
    [ "$rc" = 0 ] || { failure[pg-$client]="exited with status $rc after its stop signal"; report "pg-$client"; die "$client did not stop cleanly with the postgres profile"; }
done
sqlite="$(find "$pg_work/volumes" -name '*.sqlite' 2>/dev/null | sed "s|$pg_work/volumes/||" | tr '\n' ' ')"
[ -z "$sqlite" ] || die "with a DATABASE_URL, SQLite files were written anyway: $sqlite"

# SELF-TEST, cheap: a wrong database password is refused (the check above can fail), and so is a DATABASE_URL
# naming the postgres service while its profile is off.
printf 'not-the-password' > "$pg_work/wrong-password"
launch self-test-database activity --set "DATABASE_PASSWORD_FILE=$pg_work/wrong-password"
wait_online self-test-database:activity
[ -n "${failure[self-test-database]:-}" ] || die "self-test: the check did not catch a wrong database password (it came online)"
say "  self-test: caught a wrong database password for activity: ${failure[self-test-database]}"
# (SIGKILL: while its database refuses it, the activity acts on SIGTERM only once postgres-nio gives up, ~60 s.)
{ kill -KILL "${pid_of[self-test-database]}"; wait "${pid_of[self-test-database]}"; } 2>/dev/null
unset "pid_of[self-test-database]"
mkdir -p "$work/self-test-profile"
if out="$(env -u COMPOSE_PROFILES "$venv/bin/python" scripts/compose_services.py "$pg_work/resolved.yml" compose/Dockerfile "$bin" "$work/self-test-profile" 2>&1)"; then
    die "self-test: the plan accepted a DATABASE_URL naming the postgres service with its profile off"
fi
say "  self-test: caught the profile left off: $(tail -1 <<< "$out" | sed 's/^compose_services: //')"
self_tests=$((self_tests + 2))

stop_postgres
stop_broker
say "profile postgres: ${clients[*]} kept their data in the postgres service's database and stopped with status 0, postgres stopped on SIG$(cat "$pg/signal") in $pg_stop_time s; $(elapsed "$pg_start") s"

say "ok: ${#default_services[@]} compose services (${default_services[*]}) ran as in their containers in ${main_time} s, ${clients[*]} with the postgres profile too; self-test caught $self_tests broken variants; total $(elapsed "$start_time") s"
