#!/usr/bin/env bash
# Checks Docs/asyncapi.yaml and its validator (scripts/check-asyncapi.py), for `make test`:
#   1. the document: AsyncAPI 3.0.0 structure, every $ref, every contract topic with its QoS/retain,
#      every example against its schema (and pydantic-asyncapi's model);
#   2. the validator: every line of scripts/fixtures/asyncapi/valid.jsonl (payloads written from the
#      contract) is accepted, every line of invalid.jsonl is rejected, and broken copies of the
#      document are caught;
#   3. a round trip through a real broker (when mosquitto is installed): the valid payloads are
#      published, captured with `mosquitto_sub -v` and validated in that format.
# Python packages come from PyPI into .build/venv-asyncapi (PyYAML, jsonschema, pydantic-asyncapi).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
venv="$root/.build/venv-asyncapi"
export PYTHONDONTWRITEBYTECODE=1
fixtures="scripts/fixtures/asyncapi"
fail() { echo "check-asyncapi-all: FAILED: $*" >&2; exit 1; }

if ! "$venv/bin/python" -c 'import yaml, jsonschema, pydantic_asyncapi' >/dev/null 2>&1; then
    echo "check-asyncapi-all: installing PyYAML, jsonschema and pydantic-asyncapi into ${venv#"$root"/}"
    python3 -m venv "$venv" || fail "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        PyYAML==6.0.2 jsonschema==4.23.0 pydantic-asyncapi==0.3.2 \
        || fail "pip could not install PyYAML, jsonschema and pydantic-asyncapi from PyPI"
fi
python="$venv/bin/python"

# 1. The document.
"$python" scripts/check-asyncapi.py || fail "Docs/asyncapi.yaml is not valid"

# 2. The validator, on payloads written by hand from the contract.
"$python" scripts/check-asyncapi.py --quiet --payloads "$fixtures/valid.jsonl" \
    || fail "valid payloads were rejected"
"$python" scripts/check-asyncapi.py --quiet --expect-invalid --payloads "$fixtures/invalid.jsonl" \
    || fail "invalid payloads were accepted"
"$python" - <<'PY' || fail "the document check missed a broken document"
import copy, importlib.util, sys
spec = importlib.util.spec_from_file_location("check_asyncapi", "scripts/check-asyncapi.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
good = module.load_spec()
assert module.check_document(good) == [], "the real document must be clean"

def broken(change, expected):
    document = copy.deepcopy(good)
    change(document)
    problems = module.check_document(document)
    if not any(expected in problem for problem in problems):
        sys.exit(f"expected a problem containing {expected!r}, got {problems}")

broken(lambda d: d.update(asyncapi="2.6.0"), "asyncapi must be '3.0.0'")
broken(lambda d: d["channels"]["steps"].pop("address"), "channel steps has no address")
broken(lambda d: d["channels"]["steps"].update(address="stepcompass/{dev}/steps"), "parameter {dev} is not declared")
broken(lambda d: d["channels"]["imu"].update(messages={}), "channel imu has no messages")
broken(lambda d: d["operations"]["sendSteps"].update(channel={"$ref": "#/channels/stepz"}), "is not a channel of this document")
broken(lambda d: d["operations"]["sendSteps"].update(action="publish"), "action must be send or receive")
broken(lambda d: d["operations"]["sendSteps"]["messages"][0].update({"$ref": "#/channels/imu/messages/imu"}), "is not a message of channel steps")
broken(lambda d: d["components"]["messages"]["Steps"]["payload"]["properties"]["steps"].update({"$ref": "#/components/schemas/Nope"}), "does not resolve")
broken(lambda d: d["operations"]["sendHeading"]["bindings"]["mqtt"].update(qos=1), "the contract says QoS 0, retain true")
broken(lambda d: d["channels"].pop("nearby"), "stepcompass/{device}/nearby has no channel")
broken(lambda d: d["components"]["messages"]["Position"]["examples"][0]["payload"].pop("x"), "'x' is a required property")
broken(lambda d: d["operations"]["sendJournal"]["bindings"]["mqtt"].update(retain=False), "QoS 1, retain true")
broken(lambda d: d["channels"].pop("journalPhoto"), "stepcompass/{device}/journal/photo has no channel")
broken(lambda d: d["components"]["messages"]["JournalPhoto"]["examples"][0]["payload"].update(photo=None), "photo: None is not of type 'object'")
print("check-asyncapi-all: the document check catches 14 kinds of broken document")
PY

# 3. A round trip through a broker, in the `mosquitto_sub -v` format.
if command -v mosquitto >/dev/null && command -v mosquitto_pub >/dev/null && command -v mosquitto_sub >/dev/null; then
    work="$(mktemp -d)"
    broker_pid=""
    sub_pid=""
    cleanup() {
        [ -n "$sub_pid" ] && kill "$sub_pid" 2>/dev/null || true
        [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
        rm -rf "$work"
    }
    trap cleanup EXIT
    port="$(python3 scripts/free_port.py)"
    mosquitto -p "$port" > "$work/broker.log" 2>&1 &
    broker_pid=$!
    for _ in $(seq 1 50); do mosquitto_pub -p "$port" -t probe -n 2>/dev/null && break; sleep 0.1; done
    # The phone apps' channels outside the root too (sensor-logger, owntracks/...).
    mosquitto_sub -p "$port" -t 'stepcompass/#' -t sensor-logger -t 'owntracks/#' -v > "$work/capture.txt" 2>/dev/null &
    sub_pid=$!
    sleep 0.3
    # Non-empty payloads only: `mosquitto_sub -v` cannot show an empty one.
    "$python" - "$fixtures/valid.jsonl" > "$work/messages.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    payload = record["payload"]
    if payload in ("", None):
        continue
    print(record["topic"])
    print(payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False))
PY
    expected=0
    while IFS= read -r topic && IFS= read -r payload; do
        mosquitto_pub -p "$port" -q 1 -t "$topic" -m "$payload"
        expected=$((expected + 1))
    done < "$work/messages.txt"
    for _ in $(seq 1 50); do [ "$(wc -l < "$work/capture.txt")" -ge "$expected" ] && break; sleep 0.1; done
    [ "$(wc -l < "$work/capture.txt")" -eq "$expected" ] || fail "captured $(wc -l < "$work/capture.txt") of $expected messages"
    "$python" scripts/check-asyncapi.py --quiet --mosquitto-sub "$work/capture.txt" \
        || fail "payloads captured with mosquitto_sub -v were rejected"
    # A captured message that breaks the contract is caught in that format too.
    echo 'stepcompass/walker-1/position {"x": 1}' > "$work/bad.txt"
    if "$python" scripts/check-asyncapi.py --quiet --mosquitto-sub "$work/bad.txt" 2>/dev/null; then
        fail "an invalid captured position was accepted"
    fi
    echo "check-asyncapi-all: $expected messages captured with mosquitto_sub -v validate"
else
    echo "check-asyncapi-all: mosquitto is not installed: broker round trip skipped"
fi
echo "check-asyncapi-all: ok"
