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

# The database password (the compose `postgres` service): when DATABASE_URL names a user but no password
# (postgres://USER@HOST:PORT/DATABASE), the one the broker's entrypoint generated in this service's secrets
# volume (DATABASE_PASSWORD_FILE, default /run/stepcompass/secrets/database-password) goes into the URL,
# percent-encoded. Only the exported variable carries it: never the command line, never the log.
percent_encode() {
    # Every byte but the URL's unreserved characters (A-Z a-z 0-9 - . _ ~) as %XX; od reads the value on
    # its standard input, printf is the shell's builtin.
    printf '%s' "$1" | od -An -v -tx1 | tr -s ' \n' '\n\n' | while read -r byte; do
        case "$byte" in
            '') ;;
            3[0-9] | 4[1-9a-f] | 5[0-9a] | 6[1-9a-f] | 7[0-9a] | 2d | 2e | 5f | 7e) printf "\\$(printf '%03o' "0x$byte")" ;;
            *) printf '%%%s' "$(printf '%s' "$byte" | tr 'a-f' 'A-F')" ;;
        esac
    done
}
database_password_file="${DATABASE_PASSWORD_FILE:-/run/stepcompass/secrets/database-password}"
case "${DATABASE_URL:-}" in
    *://*)
        database_scheme="${DATABASE_URL%%://*}"
        database_rest="${DATABASE_URL#*://}"
        database_authority="${database_rest%%/*}"
        database_authority="${database_authority%%\?*}"
        case "$database_authority" in
            ?*@*)
                database_user="${database_authority%@*}"
                case "$database_user" in
                    *:*) ;; # the URL has a password already
                    *)
                        if [ -r "$database_password_file" ]; then
                            DATABASE_URL="$database_scheme://$database_user:$(percent_encode "$(cat "$database_password_file")")@${database_rest#"$database_user"@}"
                            export DATABASE_URL
                        else
                            echo "service-entrypoint: DATABASE_URL has no password and $database_password_file is not readable; connecting to the database as '$database_user' without one" >&2
                        fi
                        ;;
                esac
                ;;
        esac
        unset database_scheme database_rest database_authority database_user
        ;;
esac
unset DATABASE_PASSWORD_FILE

if [ "$#" -eq 0 ]; then
    echo "service-entrypoint: no command; give one of: $(ls /app/bin | tr '\n' ' ')" >&2
    exit 64
fi
if ! command -v "$1" >/dev/null 2>&1; then
    echo "service-entrypoint: '$1' is not in this image; it has: $(ls /app/bin | tr '\n' ' ')" >&2
    exit 127
fi
exec "$@"
