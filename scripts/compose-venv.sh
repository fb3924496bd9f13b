#!/usr/bin/env bash
# Installs docker-compose 1.29.2 from PyPI into .build/venv-compose (once) and prints the venv's folder.
# Shared by scripts/check-compose.sh and scripts/check-compose-services.sh.
#
# Installed with --no-deps and pinned dependencies: docker-compose's own requirements (PyYAML < 6,
# jsonschema < 4, ...) do not build on Python 3.11+, and `config` only imports these.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build/venv-compose"

# Every package `docker-compose config` imports (each was checked to be needed), at versions that
# install as wheels and run on Python 3.11.
packages=(
    docker-compose==1.29.2
    docker==5.0.3 dockerpty==0.4.1 docopt==0.6.2 texttable==1.7.0 distro==1.9.0
    PyYAML==6.0.2 python-dotenv==0.21.1
    jsonschema==3.2.0 attrs==23.2.0 pyrsistent==0.20.0 six==1.16.0
    requests==2.31.0 urllib3==1.26.20 idna==3.7 certifi==2024.8.30 charset-normalizer==3.3.2
    websocket-client==0.59.0
)

if ! "$venv/bin/docker-compose" version >/dev/null 2>&1; then
    mkdir -p "$root/.build"
    # One installer at a time (make test may run both checks, developers may run them by hand).
    exec 9> "$root/.build/venv-compose.lock"
    flock 9
    if ! "$venv/bin/docker-compose" version >/dev/null 2>&1; then
        echo "compose-venv: installing docker-compose 1.29.2 into .build/venv-compose" >&2
        python3 -m venv "$venv" >&2 || { echo "compose-venv: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
        "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${packages[@]}" >&2 \
            || { echo "compose-venv: pip could not install docker-compose and its dependencies from PyPI" >&2; exit 1; }
    fi
fi
echo "$venv"
