#!/usr/bin/env bash
# Checks the project's broker configuration against a real mosquitto (the one on PATH, Debian's 2.0.11
# here): Config/mosquitto/stepcompass.conf must load through include_dir exactly as the compose broker
# loads it, and Config/mosquitto/acl must let each user publish what the contract gives it and nothing
# else, and let every user read stepcompass/#. Both listeners of secure.conf are exercised: plain MQTT,
# and MQTT over WebSockets (through scripts/mqtt_ws_pub.py, as Sensor Logger's MQTT push connects),
# which must apply the same users and ACL.
#
# Usage: scripts/check-broker-acl.sh        (exit 0 when every case passes, 1 otherwise)
# Needs: mosquitto, mosquitto_passwd, mosquitto_pub, mosquitto_sub, python3 (to find a free port).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
for tool in mosquitto mosquitto_passwd mosquitto_pub mosquitto_sub python3; do
    command -v "$tool" >/dev/null || { echo "check-broker-acl: $tool is not installed (apt-get install mosquitto mosquitto-clients)" >&2; exit 1; }
done

work="$(mktemp -d)"
broker_pid=""
sub_pid=""
cleanup() {
    [ -n "$sub_pid" ] && kill "$sub_pid" 2>/dev/null || true
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# mosquitto started as root drops to the `mosquitto` user, which must read these files.
chmod 755 "$work"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
users="sensors compass position markers dashboard bridge activity journal device viewer"
ws_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

: > "$work/passwd"
for user in $users; do mosquitto_passwd -b "$work/passwd" "$user" "test-$user"; done
mkdir "$work/conf.d"
cp "$root/Config/mosquitto/stepcompass.conf" "$work/conf.d/stepcompass.conf"
cp "$root/Config/mosquitto/acl" "$work/acl"
# secure.conf with this run's paths and port: the same options the compose broker runs with.
sed -e "s|^listener 1883$|listener $port 127.0.0.1|" \
    -e "s|^listener 9001$|listener $ws_port 127.0.0.1|" \
    -e "s|/mosquitto/auth/passwd|$work/passwd|" \
    -e "s|/mosquitto/auth/acl|$work/acl|" \
    -e "s|/mosquitto/data/|$work/|" \
    -e "s|/mosquitto/config/conf.d|$work/conf.d|" \
    "$root/Config/mosquitto/secure.conf" > "$work/mosquitto.conf"
chmod 644 "$work"/*

mosquitto -c "$work/mosquitto.conf" >"$work/broker.out" 2>&1 &
broker_pid=$!
for _ in $(seq 1 50); do
    mosquitto_sub -p "$port" -u viewer -P test-viewer -t '$SYS/broker/version' -C 1 -W 1 >/dev/null 2>&1 && break
    kill -0 "$broker_pid" 2>/dev/null || { echo "check-broker-acl: mosquitto did not start:" >&2; cat "$work/broker.out" >&2; exit 1; }
    sleep 0.1
done
grep -q "^listener $ws_port 127.0.0.1$" "$work/mosquitto.conf" && grep -q '^protocol websockets$' "$work/mosquitto.conf" \
    || { echo "check-broker-acl: secure.conf lacks the WebSockets listener (listener 9001, protocol websockets)" >&2; exit 1; }
for option in "set_tcp_nodelay" "max_queued_messages" "persistence true"; do
    grep -q "^$option" "$work/conf.d/stepcompass.conf" || { echo "check-broker-acl: stepcompass.conf lacks $option" >&2; exit 1; }
done

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Anonymous clients are refused.
if mosquitto_pub -p "$port" -t stepcompass/d1/steps -m '{}' >/dev/null 2>&1; then fail "an anonymous client could connect"; fi
# A wrong password is refused.
if mosquitto_pub -p "$port" -u sensors -P wrong -t stepcompass/d1/steps -m '{}' >/dev/null 2>&1; then fail "a wrong password was accepted"; fi
# The same over WebSockets (the listener's own authentication would be per_listener_settings true).
ws_pub() { python3 "$root/scripts/mqtt_ws_pub.py" -p "$ws_port" "$@"; }
rc=0; ws_pub -t sensor-logger -m '{}' -q 1 >/dev/null 2>&1 || rc=$?
[ "$rc" = 5 ] || fail "an anonymous WebSockets client was not refused (exit $rc)"
rc=0; ws_pub -u device -P wrong -t sensor-logger -m '{}' -q 1 >/dev/null 2>&1 || rc=$?
[ "$rc" = 5 ] || fail "a wrong password was not refused over WebSockets (exit $rc)"

# Every case: user, topic, allowed (1) or denied (0), and `ws` to publish over the WebSockets listener
# (plain MQTT otherwise). A viewer subscription to everything records what the broker let through; each
# publish carries a unique payload.
cases="
sensors stepcompass/d1/steps 1
sensors stepcompass/d1/imu 1
sensors stepcompass/d1/location 1
sensors stepcompass/d1/permissions 1
sensors stepcompass/d1/simulation/truth 1
sensors stepcompass/services/sensors/status 1
sensors stepcompass/errors/sensors 1
sensors stepcompass/d1/heading 0
sensors stepcompass/services/compass/status 0
sensors stepcompass/d1/cmd/calibrate 0
compass stepcompass/d1/heading 1
compass stepcompass/d1/calibration 1
compass stepcompass/d1/bearing-lock 1
compass stepcompass/services/compass/status 1
compass stepcompass/errors/compass 1
compass stepcompass/d1/steps 0
compass stepcompass/d1/position 0
compass stepcompass/errors/position 0
position stepcompass/d1/position 1
position stepcompass/services/position/status 1
position stepcompass/services/position/sync 1
sensors stepcompass/services/position/sync 0
position stepcompass/errors/position 1
position stepcompass/d1/heading 0
position stepcompass/d1/cmd/reset-position 0
markers stepcompass/markers/status 1
markers stepcompass/markers/collection 1
markers stepcompass/d1/nearby 1
markers stepcompass/replies/client-7/abc 1
markers stepcompass/services/markers/status 1
markers stepcompass/errors/markers 1
markers stepcompass/markers/nearest 0
markers stepcompass/d1/position 0
dashboard stepcompass/d1/cmd/bearing-lock 1
dashboard stepcompass/d1/cmd/calibrate 1
dashboard stepcompass/d1/cmd/settings 1
dashboard stepcompass/d1/cmd/reset-position 1
dashboard stepcompass/markers/cmd/refresh 1
dashboard stepcompass/markers/nearest 1
dashboard stepcompass/activity/history 1
dashboard stepcompass/d1/activity 0
dashboard stepcompass/d1/cmd/walk 1
dashboard stepcompass/journal/walks 1
dashboard stepcompass/d1/journal 0
dashboard stepcompass/d1/journal/photo 0
dashboard stepcompass/services/dashboard/status 1
dashboard stepcompass/errors/dashboard 1
dashboard homeassistant/device/stepcompass_d1/config 1
compass homeassistant/device/stepcompass_d1/config 0
dashboard stepcompass/d1/steps 0
dashboard stepcompass/replies/x 0
dashboard stepcompass/markers/status 0
device stepcompass/phone-1/steps 1
device stepcompass/phone-1/imu 1
device stepcompass/phone-1/location 1
device stepcompass/phone-1/permissions 1
device stepcompass/phone-1/simulation/truth 1
device stepcompass/phone-1/heading 0
device stepcompass/services/sensors/status 0
device sensor-logger 1
device owntracks/alice/phone 1
device sensor-logger 1 ws
device owntracks/alice/phone 1 ws
device stepcompass/phone-1/imu 1 ws
device stepcompass/phone-1/steps 1 ws
device stepcompass/phone-1/heading 0 ws
device sensor-logger/extra 0 ws
device stepcompass/services/bridge/status 0
bridge stepcompass/phone-1/steps 1
bridge stepcompass/phone-1/imu 1
bridge stepcompass/phone-1/location 1
bridge stepcompass/phone-1/permissions 1
bridge stepcompass/services/bridge/status 1
bridge stepcompass/errors/bridge 1
bridge stepcompass/phone-1/simulation/truth 0
bridge stepcompass/phone-1/heading 0
bridge stepcompass/phone-1/position 0
bridge stepcompass/services/sensors/status 0
bridge sensor-logger 0
bridge owntracks/alice/phone 0
activity stepcompass/phone-1/activity 1
activity stepcompass/replies/client-7/history 1
activity stepcompass/services/activity/status 1
activity stepcompass/services/activity/sync 1
activity stepcompass/errors/activity 1
activity stepcompass/phone-1/steps 0
activity stepcompass/phone-1/position 0
activity stepcompass/activity/history 0
activity stepcompass/services/position/sync 0
sensors stepcompass/phone-1/activity 0
device stepcompass/phone-1/activity 0
journal stepcompass/phone-1/journal 1
journal stepcompass/phone-1/journal/photo 1
journal stepcompass/replies/client-7/walks 1
journal stepcompass/services/journal/status 1
journal stepcompass/services/journal/sync 1
journal stepcompass/errors/journal 1
journal stepcompass/phone-1/location 0
journal stepcompass/phone-1/position 0
journal stepcompass/phone-1/permissions 0
journal stepcompass/phone-1/steps 0
journal stepcompass/phone-1/cmd/walk 0
journal stepcompass/journal/walks 0
journal stepcompass/phone-1/activity 0
journal stepcompass/services/activity/status 0
journal stepcompass/services/activity/sync 0
activity stepcompass/services/journal/sync 0
activity stepcompass/phone-1/journal 0
sensors stepcompass/phone-1/journal/photo 0
device stepcompass/phone-1/journal 0
device stepcompass/phone-1/cmd/walk 0
device stepcompass/journal/walks 0
viewer stepcompass/phone-1/cmd/walk 0
viewer stepcompass/journal/walks 0
sensors sensor-logger 0
compass owntracks/alice/phone 0
viewer sensor-logger 0 ws
viewer stepcompass/d1/steps 0
viewer stepcompass/services/viewer/status 0
"

mosquitto_sub -p "$port" -u viewer -P test-viewer -t 'stepcompass/#' -t sensor-logger -t sensor-logger/extra -t 'owntracks/#' -t 'homeassistant/#' \
    -v -W 30 > "$work/received" 2>"$work/sub.err" &
sub_pid=$!
sleep 0.5
n=0
while read -r user topic allowed transport; do
    [ -z "$user" ] && continue
    n=$((n + 1))
    # QoS 1: mosquitto_pub (and mqtt_ws_pub.py) waits for the PUBACK, so the broker has decided before
    # the next case.
    if [ "$transport" = ws ]; then
        ws_pub -u "$user" -P "test-$user" -q 1 -t "$topic" -m "case-$n" >/dev/null 2>&1 \
            || fail "$user could not connect or publish to $topic over WebSockets"
    else
        mosquitto_pub -p "$port" -u "$user" -P "test-$user" -q 1 -t "$topic" -m "case-$n" >/dev/null 2>&1 \
            || fail "$user could not connect or publish to $topic"
    fi
done <<< "$cases"
# Every user may read: a message published by sensors reaches each of them (retained, so no race).
mosquitto_pub -p "$port" -u sensors -P test-sensors -q 1 -r -t stepcompass/d1/permissions -m readable
for user in $users; do
    got="$(mosquitto_sub -p "$port" -u "$user" -P "test-$user" -t 'stepcompass/+/permissions' -C 1 -W 3 2>/dev/null || true)"
    [ "$got" = "readable" ] || fail "$user cannot read stepcompass/# (got '$got')"
done
mosquitto_pub -p "$port" -u sensors -P test-sensors -q 1 -r -t stepcompass/d1/permissions -n
# What phones publish outside the root: the bridge and the viewer read it, the other services do not.
mosquitto_pub -p "$port" -u device -P test-device -q 1 -r -t sensor-logger -m phone-body
mosquitto_pub -p "$port" -u device -P test-device -q 1 -r -t owntracks/alice/phone -m phone-fix
for user in bridge viewer device sensors compass; do
    got="$(mosquitto_sub -p "$port" -u "$user" -P "test-$user" -t sensor-logger -t 'owntracks/#' -C 2 -W 2 2>/dev/null | sort | paste -sd' ' || true)"
    case "$user" in
        bridge | viewer) [ "$got" = "phone-body phone-fix" ] || fail "$user cannot read sensor-logger and owntracks/# (got '$got')" ;;
        device) [ "$got" = "phone-fix" ] || fail "device should read owntracks/# but not sensor-logger (got '$got')" ;;
        *) [ -z "$got" ] || fail "$user can read what phones send the bridge (got '$got')" ;;
    esac
done
mosquitto_pub -p "$port" -u device -P test-device -q 1 -r -t sensor-logger -n
mosquitto_pub -p "$port" -u device -P test-device -q 1 -r -t owntracks/alice/phone -n
sleep 0.5
kill "$sub_pid" 2>/dev/null || true
wait "$sub_pid" 2>/dev/null || true
sub_pid=""

n=0
while read -r user topic allowed transport; do
    [ -z "$user" ] && continue
    n=$((n + 1))
    if grep -qx "$topic case-$n" "$work/received"; then seen=1; else seen=0; fi
    if [ "$seen" != "$allowed" ]; then
        over="${transport:+ over WebSockets}"
        if [ "$allowed" = 1 ]; then fail "$user may not publish to $topic$over, but the ACL should allow it"
        else fail "$user could publish to $topic$over, but the ACL should refuse it"; fi
    fi
done <<< "$cases"

# The compose health checks read $SYS with the viewer's and the services' credentials.
mosquitto_sub -p "$port" -u viewer -P test-viewer -t '$SYS/broker/version' -C 1 -W 3 | grep -q mosquitto \
    || fail "viewer cannot read \$SYS/broker/version"

if [ "$failures" -gt 0 ]; then
    echo "check-broker-acl: $failures failure(s) out of $n publish cases" >&2
    exit 1
fi
echo "check-broker-acl: ok ($n publish cases, $(grep -c ' ws$' <<< "$cases") of them over WebSockets; $(echo "$users" | wc -w) readers; anonymous and bad password refused on both listeners)"
