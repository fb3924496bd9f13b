#!/bin/sh
# Entrypoint of every StepCompass service container.
#
# The MQTT password comes from MQTT_PASSWORD when compose passes a non-empty one
# (STEPCOMPASS_<SERVICE>_PASSWORD on the host), otherwise from the file the broker's entrypoint
# generated in this service's secrets volume (MQTT_PASSWORD_FILE, default
# /run/stepcompass/secrets/password). It is exported, never put on the command line (where `ps` would
# show it), and the service is exec'ed so it receives SIGTERM from `docker-compose stop` directly and
# publishes its offline status.
set -eu

password_file="${MQTT_PASSWORD_FILE:-/run/stepcompass/secrets/password}"
if [ -z "${MQTT_PASSWORD:-}" ] && [ -n "${MQTT_USERNAME:-}" ]; then
    if [ -r "$password_file" ]; then
        MQTT_PASSWORD="$(cat "$password_file")"
        export MQTT_PASSWORD
    else
        echo "service-entrypoint: no MQTT_PASSWORD and $password_file is not readable; connecting as '$MQTT_USERNAME' without a password" >&2
    fi
fi
unset MQTT_PASSWORD_FILE

# The phone bridge's HTTP push token, the same way: TOKEN when compose passes a non-empty one
# (STEPCOMPASS_BRIDGE_TOKEN on the host), otherwise the file the broker's entrypoint generated next to
# the password (TOKEN_FILE, default /run/stepcompass/secrets/token; only the bridge's volume has one).
token_file="${TOKEN_FILE:-/run/stepcompass/secrets/token}"
if [ -z "${TOKEN:-}" ] && [ -r "$token_file" ]; then
    TOKEN="$(cat "$token_file")"
    export TOKEN
fi
unset TOKEN_FILE

if [ "$#" -eq 0 ]; then
    echo "service-entrypoint: no command; give one of: $(ls /app/bin | tr '\n' ' ')" >&2
    exit 64
fi
if ! command -v "$1" >/dev/null 2>&1; then
    echo "service-entrypoint: '$1' is not in this image; it has: $(ls /app/bin | tr '\n' ' ')" >&2
    exit 127
fi
exec "$@"
