#!/usr/bin/env bash
# Installs what `make run` and `make test` need on Debian/Ubuntu when it is missing:
# libmosquitto-dev (the C library and its pkg-config file), the mosquitto broker, its clients, pkg-config,
# Python's venv (for the compose and AsyncAPI checks), and SQLite's headers and the PostgreSQL server (the activity
# service's two stores; its tests start a throwaway server), and xmllint (libxml2-utils: the journal's GPX export is
# validated against the GPX 1.1 schema), and Prometheus (a test scrapes every service's /metrics with it), and
# Leaflet with Leaflet.markercluster (libjs-leaflet, libjs-leaflet.markercluster: the dashboard serves them for its
# map; the browser check needs them). As root it runs apt-get; otherwise it prints the exact command to run and
# fails.
set -euo pipefail

packages=(libmosquitto-dev mosquitto mosquitto-clients pkg-config python3 python3-venv gpsd gpsd-clients libsqlite3-dev postgresql libxml2-utils prometheus libjs-leaflet libjs-leaflet.markercluster)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
# Some machines have Python outside dpkg (pyenv): accept a python3 that can make a venv.
if command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null; then
    missing=("${missing[@]/python3-venv/}")
    missing=("${missing[@]/python3/}")
fi
filtered=()
for package in "${missing[@]}"; do [ -n "$package" ] && filtered+=("$package"); done

if [ "${#filtered[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "==> installing ${filtered[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${filtered[@]}"
    else
        echo "error: missing packages: ${filtered[*]}" >&2
        echo "install them with:  sudo apt-get update && sudo apt-get install -y ${filtered[*]}" >&2
        exit 1
    fi
fi

if ! command -v swift >/dev/null; then
    echo "error: the Swift toolchain (6.2 or later) is not on PATH; see https://www.swift.org/install/linux/" >&2
    exit 1
fi
