#!/usr/bin/env python3
"""Plans the run of scripts/check-compose-services.sh: the compose file's services on this machine.

Input: the configuration `docker-compose config` resolved (so every ${VAR:-default}, YAML anchor and
relative path is exactly what Compose would use), compose/Dockerfile (the image: WORKDIR, ENV,
ENTRYPOINT, what COPY puts where) and the build's bin folder. Output: one folder per process under
WORK/plan/ with NUL-separated files the shell script runs as they are (argv, env, health = the
health check's argv) plus small text files (cwd, client_id, status_topic, grace, signal); WORK/plan/services
lists the stepcompass services, WORK/plan/databases the postgres services (whose folder also holds initdb,
create_db and clients, the services whose DATABASE_URL names it). Every change made to the compose values
is printed, one line each.

Only what Docker itself provides is replaced, because that is what differs between a container and
this machine; everything else (the command, its flags, every other variable) is run verbatim, so a
mistake there fails here as it would in the container:
  - the network: MQTT_HOST names the broker service (compose's DNS) -> 127.0.0.1, and its container
    port (MQTT_PORT, the broker's `listener`) -> a free loopback port; HTTP_PORT and METRICS_PORT -> free
    ports, METRICS_HOST (every interface of the container) -> 127.0.0.1; the internet -> the repository's
    sample marker file (SOURCE), so no test needs it;
  - the volumes: a named volume shared with the broker -> the folder the broker's entrypoint wrote
    (e.g. a service's secrets -> its generated password, through MQTT_PASSWORD_FILE); any other
    volume -> a temporary folder;
  - the image: WORKDIR and the files COPY puts in it -> a temporary copy laid out the same way (so
    Config/<service>.json is found exactly as in the container), the stepcompass-* executables the
    image would hold -> the build's bin folder, the entrypoint scripts -> the repository's;
  - a `postgres:` service (only when its profile is on: COMPOSE_PROFILES, as Compose reads it) -> Debian's
    own PostgreSQL of the image's major version, run as its entrypoint would: initdb as POSTGRES_USER with
    the password of POSTGRES_PASSWORD_FILE (through its volume: the file the broker's entrypoint wrote),
    POSTGRES_DB created, the server as the non-root postgres user; its port 5432 -> a free loopback port,
    and a service's DATABASE_URL naming it (postgres://USER@postgres:5432/DB) -> 127.0.0.1 and that port.
The values that cannot be substituted faithfully are checked instead and fail the plan: MQTT_HOST must
name the broker, MQTT_PORT must be the port the broker listens on, HTTP_PORT must be a published
container port, a DATABASE_URL naming the postgres service must use its port and needs its profile on,
and every variable a service gets must be one its executable reads (its --help).

Usage: compose_services.py RESOLVED_YML DOCKERFILE BIN_DIR WORK_DIR   (run with PyYAML available)
"""

from __future__ import annotations

import json
import os
import pwd
import random
import re
import shlex
import shutil
import socket
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
# The debian:bookworm-slim default, which the Dockerfile's ENV PATH="/app/bin:${PATH}" extends.
BASE_IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Where compose/broker-entrypoint.sh writes the read-only viewer's password (inside the broker).
VIEWER_SECRET = "/secrets/clients/viewer"
# Stands in for the internet: the markers' SOURCE, relative to the image's WORKDIR (COPY Config).
SAMPLE_MARKERS = "Config/markers/sample-markers.geojson"
# The official postgres image (Debian-based tags): its PGDATA, the port its server listens on, and the user its
# entrypoint drops to.
POSTGRES_IMAGE_PGDATA = "/var/lib/postgresql/data"
POSTGRES_PORT = "5432"
POSTGRES_RUN_AS = "postgres"


class PlanError(Exception):
    """A compose value that would not work in the containers either."""


def log(message: str) -> None:
    print(f"  {message}", flush=True)


# Ports already handed out by this plan: nothing binds them until the plan runs, so a second draw could repeat one.
HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A free loopback port below Linux's ephemeral range (32768-60999), like BusTesting's freePort: PostgreSQL's
    initdb takes a moment, during which an outgoing connection could take a port from that range. Never the same
    port twice in one plan."""
    for _ in range(200):
        port = random.randint(12000, 32767)
        if port in HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            HANDED_OUT.add(port)
            return port
    raise PlanError("could not find a free port in 12000-32767")


def active_profiles() -> set[str]:
    """The profiles Compose enables: COMPOSE_PROFILES (the command line's --profile sets the same)."""
    return {p.strip() for p in os.environ.get("COMPOSE_PROFILES", "").split(",") if p.strip()}


def is_active(service: dict) -> bool:
    """Whether `up` starts a service: no profile, or one of its profiles enabled."""
    profiles = service.get("profiles") or []
    return not profiles or bool(set(profiles) & active_profiles())


def argv_of(value: object) -> list[str]:
    """A compose command/entrypoint: a list, or a string split like a shell (Compose does the same)."""
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    return [str(v) for v in value]


def seconds(duration: object, default: float) -> float:
    """A compose duration ("15s", "1m30s", "500ms") in seconds."""
    if duration is None:
        return default
    total = 0.0
    for number, unit in re.findall(r"([0-9.]+)(ms|us|h|m|s)", str(duration)):
        total += float(number) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001, "us": 1e-6}[unit]
    return total or default


def volume_specs(service: dict) -> list[tuple[str, str, bool]]:
    """(source, target, is_bind) of every volume of a service, short or long syntax."""
    specs = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            source, target = str(volume.get("source", "")), str(volume["target"])
            bind = volume.get("type") == "bind"
        else:
            parts = str(volume).split(":")
            if len(parts) == 1:
                source, target = "", parts[0]
            else:
                source, target = parts[0], parts[1]
            bind = source.startswith(("/", "."))
        specs.append((source, target.rstrip("/") or "/", bind))
    return specs


def container_ports(service: dict) -> set[str]:
    ports = set()
    for port in service.get("ports") or []:
        if isinstance(port, dict):
            ports.add(str(port["target"]))
        else:
            ports.add(str(port).split("/")[0].split(":")[-1])
    return ports


def under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def defaults_of_script(script: Path) -> dict[str, str]:
    """The absolute-path defaults `${VAR:-/path}` of an entrypoint or health check script."""
    return dict(re.findall(r"\$\{([A-Z][A-Z0-9_]*):-(/[^}]*)\}", script.read_text()))


def variables_of_script(script: Path) -> set[str]:
    return set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", script.read_text()))


@dataclass
class Image:
    """The final stage of compose/Dockerfile, laid out under `root` the way the image's file system is."""

    root: Path
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] = field(default_factory=list)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (container path, what it is here)
    scripts: dict[str, Path] = field(default_factory=dict)  # container path -> repository file

    def script(self, word: str) -> Path | None:
        """The repository file of a script the image holds, named by its path or (found on PATH) its name."""
        for path, source in self.scripts.items():
            if word == path or ("/" not in word and os.path.basename(path) == word):
                return source
        return None

    def local(self, path: str) -> str | None:
        """The local path of a container path the image provides, or None."""
        for container, _ in sorted(self.copies, key=lambda c: -len(c[0])):
            if under(path, container):
                return str(self.root) + path
        if under(path, self.workdir):
            return str(self.root) + path
        return None


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        result.append((keyword.upper(), rest.strip()))
    return result


def build_image(dockerfile: Path, bin_dir: Path, root: Path) -> Image:
    steps = instructions(dockerfile)
    last_from = max(i for i, (k, _) in enumerate(steps) if k == "FROM")
    image = Image(root=root)
    # The executables the build stage stages: stepcompass-* minus the Dockerfile's `! -name` exclusions.
    excluded = set()
    for keyword, rest in steps[:last_from]:
        if keyword == "RUN":
            excluded |= set(re.findall(r"! -name '([^']+)'", rest))
    chmods: list[tuple[str, list[str]]] = []
    for keyword, rest in steps[last_from + 1 :]:
        if keyword == "WORKDIR":
            image.workdir = rest
        elif keyword == "ENV":
            for token in shlex.split(rest):
                key, _, value = token.partition("=")
                image.env[key] = value.replace("${PATH}", BASE_IMAGE_PATH).replace("$PATH", BASE_IMAGE_PATH)
        elif keyword == "ENTRYPOINT":
            image.entrypoint = json.loads(rest) if rest.startswith("[") else ["/bin/sh", "-c", rest]
        elif keyword == "COPY":
            words = shlex.split(rest)
            stage = next((w.split("=", 1)[1] for w in words if w.startswith("--from=")), None)
            paths = [w for w in words if not w.startswith("--")]
            *sources, target = paths
            target_dir = target.endswith("/")
            target = target.rstrip("/")
            for source in sources:
                if stage is not None:
                    # The build stage's staging folder: here, the build's bin folder.
                    local = root / target.lstrip("/")
                    local.mkdir(parents=True, exist_ok=True)
                    for entry in sorted(bin_dir.iterdir()):
                        wanted = (
                            entry.name.startswith("stepcompass-")
                            and entry.name not in excluded
                            and entry.is_file()
                            and os.access(entry, os.X_OK)
                        ) or (entry.is_dir() and entry.name.endswith(".resources"))
                        if wanted:
                            (local / entry.name).symlink_to(entry)
                    image.copies.append((target, f"the build's {bin_dir}"))
                    continue
                src = REPO / source
                dest = target + "/" + src.name if target_dir else target
                local = root / dest.lstrip("/")
                local.parent.mkdir(parents=True, exist_ok=True)
                if src.is_dir():
                    shutil.copytree(src, local, dirs_exist_ok=True)
                else:
                    shutil.copy2(src, local)
                    image.scripts[dest] = src
                image.copies.append((dest, str(src.relative_to(REPO))))
        elif keyword == "RUN":
            chmods += [(m, p.split()) for m, p in re.findall(r"chmod (0?[0-7]{3,4}) ([^&;]+)", rest)]
    for mode, paths in chmods:
        for path in paths:
            local = root / path.lstrip("/")
            if local.exists():
                local.chmod(int(mode, 8))
    (root / image.workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
    return image


def image_path_variable(image: Image) -> str:
    """The image's PATH, each entry the image provides first as its local copy, then the host's own."""
    entries = []
    for entry in image.env.get("PATH", BASE_IMAGE_PATH).split(":"):
        local = str(image.root) + entry
        if os.path.isdir(local):
            entries.append(local)
        if os.path.isdir(entry):
            entries.append(entry)
    return ":".join(dict.fromkeys(entries))


def write_nul(path: Path, items: list[str]) -> None:
    path.write_bytes(b"".join(item.encode() + b"\0" for item in items))


def write_env(path: Path, env: dict[str, str]) -> None:
    write_nul(path, [f"{key}={value}" for key, value in env.items()])


@dataclass
class Broker:
    name: str
    aliases: set[str]
    port: str  # the port it listens on inside its container
    local_port: int
    volumes: dict[str, str]  # named volume -> local folder
    root: Path


def plan_broker(config: dict, work: Path) -> Broker:
    services = config["services"]
    candidates = [
        name
        for name, service in services.items()
        if any("broker-entrypoint" in word for word in argv_of(service.get("entrypoint")))
    ]
    if len(candidates) != 1:
        raise PlanError(f"expected one service whose entrypoint is broker-entrypoint.sh, found {candidates}")
    name = candidates[0]
    broker = services[name]
    root = work / "broker-root"
    out = work / "plan" / "broker"
    out.mkdir(parents=True)
    print(f"broker '{name}' ({broker.get('image')}): its configuration, files and volumes under {root}")

    # Its volumes: bind-mounted files copied in place, named volumes as empty folders.
    named: dict[str, str] = {}
    config_files: list[Path] = []
    for source, target, bind in volume_specs(broker):
        local = root / target.lstrip("/")
        if bind:
            local.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, local)
            if local.suffix == ".conf":
                config_files.append(local)
        else:
            local.mkdir(parents=True, exist_ok=True)
            if source:
                named[source] = str(local)
    roots = {"/" + target.strip("/").split("/")[0] for _, target, _ in volume_specs(broker)}

    def map_path(match: re.Match[str]) -> str:
        path = match.group(0)
        return str(root) + path if any(under(path, r) for r in roots) else path

    path_pattern = re.compile(r"(?<![\w$./-])/[\w./-]+")

    # The listeners: one plain MQTT listener (the services' MQTT_PORT) and any number of others (a
    # `protocol websockets` line after a `listener` makes that one WebSockets); each moves to a free
    # loopback port, and each must be a port compose publishes.
    published = container_ports(broker)
    listeners: list[tuple[str, str]] = []  # (container port, protocol), in file order
    for conf in config_files:
        for line in conf.read_text().splitlines():
            if line.lstrip().startswith("#"):
                continue
            listener = re.match(r"^\s*listener\s+(\d+)(\s+\S+)?\s*$", line)
            protocol = re.match(r"^\s*protocol\s+(\S+)\s*$", line)
            if listener:
                listeners.append((listener.group(1), "mqtt"))
            elif protocol and listeners:
                listeners[-1] = (listeners[-1][0], protocol.group(1))
    mqtt_ports = sorted({port for port, protocol in listeners if protocol == "mqtt"})
    if len(mqtt_ports) != 1:
        raise PlanError(f"the broker's configuration has MQTT listeners {mqtt_ports}; expected exactly one")
    port = mqtt_ports[0]
    local_port = free_port()
    local_ports = {port: local_port}
    for container_port, _ in listeners:
        local_ports.setdefault(container_port, free_port())
    for container_port, protocol in listeners:
        if published and container_port not in published:
            raise PlanError(f"the broker listens on {container_port} ({protocol}) but compose publishes container port(s) {sorted(published)}")
    for conf in config_files:
        lines = []
        for line in conf.read_text().splitlines():
            if not line.lstrip().startswith("#"):
                listener = re.match(r"^\s*listener\s+(\d+)(\s+\S+)?\s*$", line)
                if listener:
                    line = f"listener {local_ports[listener.group(1)]} 127.0.0.1"
                    log(f"{conf.name}: listener {listener.group(1)} -> {line} (the published port -> a free loopback port)")
                else:
                    line = path_pattern.sub(map_path, line)
            lines.append(line)
        conf.write_text("\n".join(lines) + "\n")
    for container_port, protocol in listeners:
        if protocol != "mqtt":
            (out / f"{protocol}_port").write_text(str(local_ports[container_port]))
    log(f"container paths {sorted(roots)} -> under {root}")

    # Entrypoint + command, paths mapped; executables that are not where the image has them -> PATH.
    argv = argv_of(broker.get("entrypoint")) + argv_of(broker.get("command"))
    mapped = []
    for i, word in enumerate(argv):
        local = path_pattern.sub(map_path, word)
        if local == word and word.startswith("/") and not os.path.exists(word):
            found = shutil.which(os.path.basename(word))
            if not found:
                raise PlanError(f"'{os.path.basename(word)}' (the broker's {word}) is not installed here")
            log(f"{word} -> {found}")
            local = found
        mapped.append(local)
    write_nul(out / "argv", mapped)

    # Its environment, plus the entrypoint's own path variables pointing into the local root.
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(root)}
    env.update({k: "" if v is None else str(v) for k, v in (broker.get("environment") or {}).items()})
    script = next((Path(mapped[i]) for i, w in enumerate(argv) if "broker-entrypoint" in w), None)
    for variable, default in defaults_of_script(script).items():
        if variable not in env:
            env[variable] = str(root) + default
            log(f"{variable}={env[variable]} (the entrypoint's default {default}, in the local root)")
    if "STEPCOMPASS_APP_UID" in env:
        log(f"STEPCOMPASS_APP_UID={env['STEPCOMPASS_APP_UID']} -> {os.getuid()} (the image's user is this user here)")
        env["STEPCOMPASS_APP_UID"] = str(os.getuid())
    write_env(out / "env", env)

    # Its health check (what depends_on: service_healthy waits for), with the same substitutions.
    test = argv_of((broker.get("healthcheck") or {}).get("test"))
    if test and test[0] == "CMD-SHELL":
        command = test[1].replace("$$", "$")
        local = re.sub(rf"(-p\s+){port}\b", rf"\g<1>{local_port}", path_pattern.sub(map_path, command))
        write_nul(out / "health", ["sh", "-c", local])
        log(f"health check: {local}")
    elif test and test[0] == "CMD":
        write_nul(out / "health", [path_pattern.sub(map_path, w) for w in test[1:]])
    (out / "cwd").write_text(str(root))
    (out / "viewer_password_file").write_text(str(root) + VIEWER_SECRET)
    (out / "port").write_text(str(local_port))
    aliases = {name, str(broker.get("container_name", name)), str(broker.get("hostname", name))}
    return Broker(name, aliases, port, local_port, named, root)


@dataclass
class Database:
    name: str
    aliases: set[str]
    port: str  # the port it listens on inside its container
    local_port: int | None  # None: its profile is off, it does not run
    profiles: list[str]
    clients: list[str] = field(default_factory=list)


def postgres_services(config: dict) -> dict[str, dict]:
    """The services that run the official postgres image."""
    return {
        name: service
        for name, service in config["services"].items()
        if str(service.get("image", "")).split("/")[-1].startswith("postgres:")
    }


def postgres_bin_dir(image: str) -> str:
    """Debian's PostgreSQL binaries of the image tag's major version (15-bookworm -> /usr/lib/postgresql/15/bin)."""
    major = re.match(r"(\d+)", image.split(":", 1)[1] if ":" in image else "")
    installed = sorted(
        (p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/postgres") if p.parent.parent.name.isdigit()),
        key=lambda folder: -int(folder.parent.name),
    )
    if major:
        wanted = Path(f"/usr/lib/postgresql/{major.group(1)}/bin")
        if (wanted / "postgres").is_file():
            return str(wanted)
        if installed:
            log(f"PostgreSQL {major.group(1)} (the image's) is not installed here: {installed[0]} stands in")
    if not installed:
        raise PlanError(f"the compose file runs {image}, but PostgreSQL is not installed here (apt-get install postgresql)")
    return str(installed[0])


def plan_postgres(name: str, service: dict, broker: Broker, work: Path) -> Database:
    """The official image's first start, with Debian's PostgreSQL: initdb (POSTGRES_USER, the password of
    POSTGRES_PASSWORD_FILE), the server, POSTGRES_DB created over its socket; then its health check."""
    out = work / "plan" / name
    out.mkdir(parents=True)
    image = str(service.get("image"))
    print(f"database '{name}' ({image}): the image's entrypoint, with this machine's PostgreSQL")
    bin_dir = postgres_bin_dir(image)
    log(f"{image} -> {bin_dir} (Debian's PostgreSQL)")
    if "entrypoint" in service:
        raise PlanError(f"{name}: a compose entrypoint replaces the postgres image's, which creates the database")
    command = argv_of(service.get("command")) or ["postgres"]
    if command[0] != "postgres":
        raise PlanError(f"{name}: the command {command} does not start the server (the image's CMD is postgres)")

    volumes: list[tuple[str, str]] = []
    for source, target, bind in volume_specs(service):
        if bind:
            local = source
        elif source in broker.volumes:
            local = broker.volumes[source]
        else:
            local = str(work / "volumes" / (source or f"{name}-anonymous{len(volumes)}"))
            os.makedirs(local, exist_ok=True)
        volumes.append((target, local))
        log(f"volume {source or '(anonymous)'}:{target} -> {local}")

    def local_path(path: str) -> str | None:
        for target, local in sorted(volumes, key=lambda v: -len(v[0])):
            if under(path, target):
                return local + path[len(target) :]
        return None

    environment = {k: "" if v is None else str(v) for k, v in (service.get("environment") or {}).items()}
    if environment.get("POSTGRES_PASSWORD"):
        raise PlanError(f"{name}: POSTGRES_PASSWORD is in the compose file; the password belongs in POSTGRES_PASSWORD_FILE")
    user = environment.get("POSTGRES_USER") or "postgres"
    database = environment.get("POSTGRES_DB") or user
    password_file = environment.get("POSTGRES_PASSWORD_FILE", "")
    local_password = local_path(password_file) if password_file else None
    if local_password is None:
        raise PlanError(f"{name}: POSTGRES_PASSWORD_FILE ({password_file or 'unset'}) is not in one of its volumes")
    log(f"POSTGRES_PASSWORD_FILE={password_file} -> {local_password} (read as root, as the image's entrypoint does)")
    pgdata = environment.get("PGDATA", POSTGRES_IMAGE_PGDATA)
    data = local_path(pgdata) or str(work / "volumes" / f"{name}-pgdata")
    log(f"PGDATA {pgdata} -> {data}")
    root = work / f"{name}-root"
    sockets = root / "run"
    sockets.mkdir(parents=True)
    os.makedirs(data, exist_ok=True)
    prefix: list[str] = []
    if os.geteuid() == 0:
        # The image's entrypoint chowns its folders and drops to the postgres user (gosu); PostgreSQL refuses root.
        try:
            account = pwd.getpwnam(POSTGRES_RUN_AS)
        except KeyError:
            raise PlanError(f"running as root needs the user '{POSTGRES_RUN_AS}' (Debian's postgresql package creates it)") from None
        for folder in (root, sockets, Path(data)):
            os.chown(folder, account.pw_uid, account.pw_gid)
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise PlanError("running as root needs setpriv (util-linux) to start PostgreSQL as the postgres user")
        # setpriv execs (no parent in between): the server gets the stop signal itself, as in the container.
        prefix = [setpriv, f"--reuid={POSTGRES_RUN_AS}", f"--regid={POSTGRES_RUN_AS}", "--init-groups"]
        log(f"root: initdb and postgres run as the user {POSTGRES_RUN_AS} (the image's gosu -> setpriv)")
        (out / "run_as").write_text(POSTGRES_RUN_AS)
    Path(data).chmod(0o700)
    pwfile = root / "pwfile"
    port = POSTGRES_PORT
    local_port = free_port()
    log(f"port {port} -> {local_port} (a free loopback port below the ephemeral range)")
    # The image's initdb, except that its pg_hba line for other containers (host all all all scram-sha-256)
    # covers every TCP connection here: 127.0.0.1 stands for the compose network, so the password is checked.
    write_nul(out / "initdb", prefix + [
        f"{bin_dir}/initdb", "-D", data, f"--username={user}", f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C",
        "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
    ])
    log(f"initdb --username={user} --pwfile=(the password of POSTGRES_PASSWORD_FILE) --auth-host=scram-sha-256 "
        "(the image's `host all all all scram-sha-256`: TCP from 127.0.0.1 stands for the other containers); "
        "--no-sync (a throwaway cluster)")
    write_nul(out / "argv", prefix + [f"{bin_dir}/postgres"] + command[1:] + [
        "-D", data, "-p", str(local_port), "-k", str(sockets), "-c", "listen_addresses=127.0.0.1",
    ])
    log(f"listen_addresses='*' (every interface of the container) -> 127.0.0.1; its socket folder -> {sockets}")
    if database != "postgres":
        identifier = '"' + database.replace('"', '""') + '"'
        write_nul(out / "create_db", prefix + [
            f"{bin_dir}/psql", "-v", "ON_ERROR_STOP=1", "--no-psqlrc", "--no-password", "-h", str(sockets),
            "-p", str(local_port), "-U", user, "-d", "postgres", "-q", "-c", f"CREATE DATABASE {identifier}",
        ])
        log(f"POSTGRES_DB={database}: CREATE DATABASE over the socket, as the image's entrypoint does")
    env = {"PATH": f"{bin_dir}:{BASE_IMAGE_PATH}", "HOME": str(root), "PGDATA": data}
    env.update({k: v for k, v in environment.items() if k != "POSTGRES_PASSWORD_FILE"})
    # The health check's client: the container's socket folder and port.
    env.update(PGHOST=str(sockets), PGPORT=str(local_port))
    write_env(out / "env", env)
    test = argv_of((service.get("healthcheck") or {}).get("test"))
    if not test or test[0] not in ("CMD", "CMD-SHELL"):
        raise PlanError(f"{name}: no health check (what `docker compose ps` shows, and what depends_on can wait for)")
    if test[0] == "CMD-SHELL":
        health = ["sh", "-c", re.sub(rf"(-p\s*){port}\b", rf"\g<1>{local_port}", test[1].replace("$$", "$"))]
    else:
        health = [str(local_port) if w == port else w for w in test[1:]]
    write_nul(out / "health", health)
    log(f"health check: {' '.join(health)}")
    timeout = seconds((service.get("healthcheck") or {}).get("timeout"), 30)
    (out / "health_timeout").write_text(f"{timeout:g}")
    (out / "cwd").write_text(str(root))
    (out / "password_file").write_text(local_password)
    (out / "pwfile").write_text(str(pwfile))
    (out / "user").write_text(user)
    (out / "database").write_text(database)
    (out / "bin_dir").write_text(bin_dir)
    (out / "port").write_text(str(local_port))
    (out / "grace").write_text(f"{seconds(service.get('stop_grace_period'), 10):g}")
    (out / "signal").write_text(str(service.get("stop_signal", "SIGINT")).removeprefix("SIG"))
    aliases = {name, str(service.get("container_name", name)), str(service.get("hostname", name))}
    return Database(name, aliases, port, local_port, list(service.get("profiles") or []))


def help_variables(executable: str) -> set[str]:
    """The variables an executable reads: --some-option is SOME_OPTION, plus every `env NAME` in --help."""
    result = subprocess.run([executable, "--help"], capture_output=True, text=True, timeout=20)
    text = " ".join((result.stdout + result.stderr).split())
    names = {o.upper().replace("-", "_") for o in re.findall(r"--([a-z][a-z0-9-]*)", text)}
    return names | set(re.findall(r"\benv ([A-Z][A-Z0-9_]*)", text))


def plan_service(
    name: str, service: dict, broker: Broker, image: Image, work: Path, bin_dir: Path, databases: list[Database]
) -> None:
    out = work / "plan" / name
    out.mkdir(parents=True)
    command = argv_of(service.get("command"))
    entrypoint = argv_of(service["entrypoint"]) if "entrypoint" in service else image.entrypoint
    print(f"service '{name}': {shlex.join(entrypoint + command)}")

    # Its volumes: shared with the broker -> the broker's folder; otherwise a temporary folder.
    volumes: list[tuple[str, str]] = []
    for source, target, bind in volume_specs(service):
        if bind:
            local = source
        elif source in broker.volumes:
            local = broker.volumes[source]
        else:
            local = str(work / "volumes" / (source or f"{name}-anonymous{len(volumes)}"))
            os.makedirs(local, exist_ok=True)
        volumes.append((target, local))
        log(f"volume {source or '(anonymous)'}:{target} -> {local}")

    def local_path(path: str) -> str | None:
        for target, local in sorted(volumes, key=lambda v: -len(v[0])):
            if under(path, target):
                return local + path[len(target) :]
        return image.local(path)

    env = dict(image.env)
    env["PATH"] = image_path_variable(image)
    env["HOME"] = image.local(image.workdir) or str(work)
    for key, value in (service.get("environment") or {}).items():
        if value is None:
            log(f"{key} has no value and the environment is clean: unset, as in the container")
            continue
        env[key] = str(value)

    # The substitutions: only what Docker's network and volumes provide.
    if "MQTT_HOST" in env:
        if env["MQTT_HOST"] not in broker.aliases:
            raise PlanError(f"{name}: MQTT_HOST={env['MQTT_HOST']} is not the broker service ({sorted(broker.aliases)})")
        log(f"MQTT_HOST={env['MQTT_HOST']} -> 127.0.0.1 (the compose network's name of the broker)")
        env["MQTT_HOST"] = "127.0.0.1"
    if "MQTT_PORT" in env:
        if env["MQTT_PORT"] != broker.port:
            raise PlanError(f"{name}: MQTT_PORT={env['MQTT_PORT']} but the broker listens on {broker.port}")
        log(f"MQTT_PORT={env['MQTT_PORT']} -> {broker.local_port} (the broker's port on this machine)")
        env["MQTT_PORT"] = str(broker.local_port)
    if "HTTP_PORT" in env:
        published = container_ports(service)
        if published and env["HTTP_PORT"] not in published:
            raise PlanError(f"{name}: HTTP_PORT={env['HTTP_PORT']} is not a published container port {sorted(published)}")
        port = free_port()
        log(f"HTTP_PORT={env['HTTP_PORT']} -> {port} (a free port; the container's is published by Docker)")
        env["HTTP_PORT"] = str(port)
    if "METRICS_PORT" in env:
        published = container_ports(service)
        if env["METRICS_PORT"] in published:
            raise PlanError(f"{name}: METRICS_PORT={env['METRICS_PORT']} is published to the host; metrics are for the compose network")
        port = free_port()
        log(f"METRICS_PORT={env['METRICS_PORT']} -> {port} (a free port; each container has its own)")
        (out / "metrics_container_port").write_text(env["METRICS_PORT"])
        env["METRICS_PORT"] = str(port)
        (out / "metrics_port").write_text(str(port))
    if env.get("METRICS_HOST") == "0.0.0.0":
        log("METRICS_HOST=0.0.0.0 -> 127.0.0.1 (every interface of the container: the compose network)")
        env["METRICS_HOST"] = "127.0.0.1"
    if env.get("DATABASE_URL"):
        url = urllib.parse.urlsplit(env["DATABASE_URL"])
        database = next((d for d in databases if url.hostname in d.aliases), None)
        if database is not None:
            if database.local_port is None:
                raise PlanError(
                    f"{name}: DATABASE_URL names the service {url.hostname}, which runs only with the profile "
                    f"{', '.join(database.profiles)} (COMPOSE_PROFILES / --profile)"
                )
            if str(url.port or 5432) != database.port:
                raise PlanError(f"{name}: DATABASE_URL uses port {url.port or 5432}, but {database.name} listens on {database.port}")
            userinfo = url.netloc.rpartition("@")[0]
            netloc = (userinfo + "@" if userinfo else "") + f"127.0.0.1:{database.local_port}"
            local = urllib.parse.urlunsplit(url._replace(netloc=netloc))
            log(f"DATABASE_URL={env['DATABASE_URL']} -> {local} (the compose network's name of {database.name}, its port)")
            env["DATABASE_URL"] = local
            database.clients.append(name)
    if re.match(r"https?://", env.get("SOURCE", "")):
        log(f"SOURCE={env['SOURCE']} -> {SAMPLE_MARKERS} (the repository's sample, in the image: no internet)")
        env["SOURCE"] = SAMPLE_MARKERS
    for key, value in list(env.items()):
        if key != "PATH" and value.startswith("/"):
            local = local_path(value)
            if local is not None and local != value:
                log(f"{key}={value} -> {local} (its volume or image path here)")
                env[key] = local
    # The image's scripts that run with this environment (the entrypoint, the health check): their
    # path defaults (the password file in the secrets volume) point into the volumes here.
    health = argv_of((service.get("healthcheck") or {}).get("test"))
    scripts = [image.script(word) for word in entrypoint[:1] + (health[1:2] if health[:1] == ["CMD"] else [])]
    for script in dict.fromkeys(s for s in scripts if s is not None):
        for variable, default in defaults_of_script(script).items():
            local = local_path(default)
            if variable not in env and local is not None and local != default:
                log(f"{variable}={local} ({script.name}'s default {default}, through its volume)")
                env[variable] = local

    # Every variable must be one the executable (or the image's scripts) reads: a misspelt name would
    # otherwise be ignored silently, in the container as here.
    executable = bin_dir / command[0] if command else None
    if executable is not None and executable.is_file():
        known = help_variables(str(executable)) | {"PATH", "HOME"} | set(image.env)
        for script in image.scripts.values():
            known |= variables_of_script(script)
        unknown = sorted(set(service.get("environment") or {}) - known)
        if unknown:
            raise PlanError(f"{name}: {', '.join(unknown)} set in compose but not read by {command[0]} (see its --help)")

    write_nul(out / "argv", entrypoint + command)
    write_env(out / "env", env)
    (out / "cwd").write_text(image.local(image.workdir) or str(REPO))
    if health and health[0] == "CMD":
        write_nul(out / "health", health[1:])
    elif health and health[0] == "CMD-SHELL":
        write_nul(out / "health", ["sh", "-c", health[1].replace("$$", "$")])
    timeout = seconds((service.get("healthcheck") or {}).get("timeout"), 30)
    (out / "health_timeout").write_text(f"{timeout:g}")
    (out / "client_id").write_text(env.get("MQTT_CLIENT_ID", f"stepcompass-{name}"))
    prefix = env.get("TOPIC_PREFIX", "stepcompass")
    (out / "status_topic").write_text(f"{prefix}/services/{name}/status")
    (out / "grace").write_text(f"{seconds(service.get('stop_grace_period'), 10):g}")
    (out / "signal").write_text(str(service.get("stop_signal", "SIGTERM")).removeprefix("SIG"))


def main() -> int:
    resolved, dockerfile, bin_dir, work = sys.argv[1:5]
    work_dir = Path(work)
    bin_path = Path(bin_dir).resolve()
    config = yaml.safe_load(Path(resolved).read_text())
    try:
        broker = plan_broker(config, work_dir)
        image = build_image(Path(dockerfile), bin_path, work_dir / "image")
        print(f"image: WORKDIR {image.workdir} -> {image.local(image.workdir)}; ENTRYPOINT {image.entrypoint}; "
              + "; ".join(f"{c} <- {s}" for c, s in image.copies))
        # Every service whose command runs a stepcompass-* executable (the dashboard too, once enabled).
        names = [
            name
            for name, service in config["services"].items()
            if argv_of(service.get("command"))[:1] and argv_of(service.get("command"))[0].startswith("stepcompass-")
            and is_active(service)
        ]
        if not names:
            raise PlanError("no service runs a stepcompass-* command")
        databases = []
        for name, service in postgres_services(config).items():
            if is_active(service):
                databases.append(plan_postgres(name, service, broker, work_dir))
            else:
                aliases = {name, str(service.get("container_name", name)), str(service.get("hostname", name))}
                databases.append(Database(name, aliases, POSTGRES_PORT, None, list(service.get("profiles") or [])))
        for name in names:
            plan_service(name, config["services"][name], broker, image, work_dir, bin_path, databases)
    except PlanError as error:
        print(f"compose_services: {error}", file=sys.stderr)
        return 1
    (work_dir / "plan" / "services").write_text("\n".join(names) + "\n")
    running = [d for d in databases if d.local_port is not None]
    (work_dir / "plan" / "databases").write_text("".join(f"{d.name}\n" for d in running))
    for database in running:
        (work_dir / "plan" / database.name / "clients").write_text("".join(f"{c}\n" for c in database.clients))
    return 0


if __name__ == "__main__":
    sys.exit(main())
