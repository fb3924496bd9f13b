#!/bin/sh
# Health check of a StepCompass service container: healthy when the service's retained status on the
# bus says online (the contract: a service says online only once its subscriptions are acknowledged).
#
# Usage: service-healthcheck.sh <service>     (sensors, compass, position, markers, dashboard, bridge, activity, journal)
# Reads the same MQTT_* variables as the service; the password as in service-entrypoint.sh.
set -eu

service="${1:?usage: service-healthcheck.sh <service>}"
prefix="${TOPIC_PREFIX:-stepcompass}"
password="${MQTT_PASSWORD:-}"
if [ -z "$password" ] && [ -r "${MQTT_PASSWORD_FILE:-/run/stepcompass/secrets/password}" ]; then
    password="$(cat "${MQTT_PASSWORD_FILE:-/run/stepcompass/secrets/password}")"
fi

set -- -h "${MQTT_HOST:-localhost}" -p "${MQTT_PORT:-1883}" -t "$prefix/services/$service/status" -C 1 -W 5
[ -n "${MQTT_USERNAME:-}" ] && set -- "$@" -u "$MQTT_USERNAME"
[ -n "$password" ] && set -- "$@" -P "$password"
[ -n "${MQTT_TLS_CA:-}" ] && set -- "$@" --cafile "$MQTT_TLS_CA"

status="$(mosquitto_sub "$@" 2>&1)" || { echo "unhealthy: cannot read $prefix/services/$service/status: $status"; exit 1; }
case "$status" in
    *'"state":"online"'* | *'"state": "online"'*) echo "healthy: $status" ;;
    *) echo "unhealthy: $status"; exit 1 ;;
esac
