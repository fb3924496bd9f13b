#!/bin/sh
# Entrypoint of the compose broker (eclipse-mosquitto:2.0.x, Alpine, BusyBox sh).
#
# Before mosquitto starts it builds the password file and the ACL under /mosquitto/auth/ from:
#   - STEPCOMPASS_<USER>_PASSWORD when set in the environment (compose passes them through, empty by
#     default), otherwise
#   - the password this script generated on an earlier start (kept in the secrets volumes), otherwise
#   - a new random password.
# Each service's password is written to /secrets/<service>/password, a volume that only that service's
# container also mounts (read-only); the device and viewer passwords go to /secrets/clients/, which only
# the broker mounts: read them with
#   docker-compose exec broker cat /secrets/clients/viewer
# The phone bridge's HTTP push token (the password phones put in their push URL) comes the same way from
# STEPCOMPASS_BRIDGE_TOKEN, the stored one, or a new one, into /secrets/bridge/token:
#   docker-compose exec broker cat /secrets/bridge/token
# The dashboard's access token (it listens on every interface of its container, so it requires one) comes the
# same way from STEPCOMPASS_DASHBOARD_TOKEN, the stored one, or a new one, into /secrets/dashboard/auth-token, which
# the dashboard reads with AUTH_TOKEN_FILE; the page asks for it once:
#   docker-compose exec broker cat /secrets/dashboard/auth-token
# The database password of the optional `postgres` service (profile postgres) comes the same way from
# STEPCOMPASS_POSTGRES_PASSWORD, the stored one, or a new one, into /secrets/postgres/password (the
# postgres container reads it as root through POSTGRES_PASSWORD_FILE) and, for the services that keep data
# in it, /secrets/<service>/database-password (service-entrypoint.sh puts it into their DATABASE_URL):
#   docker-compose exec broker cat /secrets/postgres/password
# Nothing secret is ever written to the repository or the image.
set -eu

service_users="sensors compass position markers dashboard bridge activity journal"
client_users="device viewer"
# The services whose DATABASE_URL may point at the compose `postgres` service.
database_users="activity journal"
# The uid of the services' non-root user (compose/Dockerfile, ARG APP_UID): it must read its password.
app_uid="${STEPCOMPASS_APP_UID:-10001}"
# Paths are the container's; the variables exist so that scripts/check-compose.sh can run this script
# outside a container.
auth_dir="${MOSQUITTO_AUTH_DIR:-/mosquitto/auth}"
secrets_dir="${STEPCOMPASS_SECRETS_DIR:-/secrets}"
acl_source="${MOSQUITTO_ACL_SOURCE:-/mosquitto/config/acl}"
data_dir="${MOSQUITTO_DATA_DIR:-/mosquitto/data}"

random_password() {
    # 24 random bytes as 48 hex digits: no character that needs quoting anywhere.
    od -An -tx1 -N24 /dev/urandom | tr -d ' \n'
}

# The password of a user: the environment wins, then the stored one, then a new one.
# (A third argument names another secret than PASSWORD: STEPCOMPASS_<USER>_<WHAT>.)
password_for() {
    user="$1"
    file="$2"
    variable="STEPCOMPASS_$(echo "$user" | tr 'a-z' 'A-Z')_${3:-PASSWORD}"
    eval "value=\${$variable:-}"
    if [ -n "$value" ]; then
        printf '%s' "$value"
    elif [ -s "$file" ]; then
        cat "$file"
    else
        random_password
    fi
}

mkdir -p "$auth_dir" "$secrets_dir/clients" "$secrets_dir/postgres"
umask 077
: > "$auth_dir/passwd.new"

# The database password: for the postgres container (root reads it; the folder is root's) and, below, for
# the services in database_users.
database_file="$secrets_dir/postgres/password"
database_password="$(password_for postgres "$database_file")"
printf '%s' "$database_password" > "$database_file.new" && mv "$database_file.new" "$database_file"
chmod 0400 "$database_file"
chmod 0500 "$secrets_dir/postgres"

for user in $service_users; do
    mkdir -p "$secrets_dir/$user"
    file="$secrets_dir/$user/password"
    password="$(password_for "$user" "$file")"
    printf '%s' "$password" > "$file.new" && mv "$file.new" "$file"
    chown "$app_uid:$app_uid" "$file"
    chmod 0400 "$file"
    # The bridge's HTTP push token and the dashboard's access token, next to the MQTT password (the service's
    # container reads both, read-only).
    case "$user" in
        bridge) token_file="$secrets_dir/$user/token" ;;
        dashboard) token_file="$secrets_dir/$user/auth-token" ;;
        *) token_file="" ;;
    esac
    if [ -n "$token_file" ]; then
        token="$(password_for "$user" "$token_file" TOKEN)"
        printf '%s' "$token" > "$token_file.new" && mv "$token_file.new" "$token_file"
        chown "$app_uid:$app_uid" "$token_file"
        chmod 0400 "$token_file"
    fi
    case " $database_users " in *" $user "*)
        database_copy="$secrets_dir/$user/database-password"
        printf '%s' "$database_password" > "$database_copy.new" && mv "$database_copy.new" "$database_copy"
        chown "$app_uid:$app_uid" "$database_copy"
        chmod 0400 "$database_copy"
        ;;
    esac
    chown "$app_uid:$app_uid" "$secrets_dir/$user"
    chmod 0500 "$secrets_dir/$user"
    mosquitto_passwd -b "$auth_dir/passwd.new" "$user" "$password"
done
for user in $client_users; do
    file="$secrets_dir/clients/$user"
    password="$(password_for "$user" "$file")"
    printf '%s' "$password" > "$file.new" && mv "$file.new" "$file"
    chmod 0400 "$file"
    mosquitto_passwd -b "$auth_dir/passwd.new" "$user" "$password"
done
mv "$auth_dir/passwd.new" "$auth_dir/passwd"
cp "$acl_source" "$auth_dir/acl"

# Owned by root and readable by the mosquitto group only: mosquitto reads them as root at start and as
# the mosquitto user on a reload (SIGHUP); 2.0.16+ warns about world-readable or non-root files.
chown root:mosquitto "$auth_dir" "$auth_dir/passwd" "$auth_dir/acl" 2>/dev/null || true
chmod 0750 "$auth_dir"
chmod 0640 "$auth_dir/passwd" "$auth_dir/acl"

# The image's own entrypoint would chown all of /mosquitto, including the read-only configuration mount;
# only the database folder needs to belong to the mosquitto user.
mkdir -p "$data_dir"
chown -R mosquitto:mosquitto "$data_dir" 2>/dev/null || true

echo "broker-entrypoint: $(echo "$service_users $client_users" | wc -w) users, the bridge's push token, the dashboard's access token and the database password ready (in the secrets volumes)"
exec "$@"
