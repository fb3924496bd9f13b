#!/usr/bin/env python3
"""Checks Docs/asyncapi.yaml, and validates captured MQTT payloads against it.

    scripts/check-asyncapi.py                      check the document (structure, $refs, examples)
    scripts/check-asyncapi.py --payloads FILE      also validate JSON lines {"topic": ..., "payload": ...}
    scripts/check-asyncapi.py --mosquitto-sub FILE also validate `mosquitto_sub -v` output ("topic payload")
    scripts/check-asyncapi.py --expect-invalid --payloads FILE
                                                   every line must FAIL (tests of the validator itself)

FILE may be "-" for standard input. A capture from a running stack:

    mosquitto_sub -p 1883 -t 'stepcompass/#' -v -W 30 > capture.txt
    scripts/check-asyncapi.py --mosquitto-sub capture.txt

The document check needs PyYAML; payload validation needs jsonschema (any version from 3.2). When
pydantic-asyncapi is installed, its AsyncAPI 3.0.0 model validates the document as well. Exit status:
0 when everything is valid, 1 when anything is not (each problem is printed), 2 for usage errors.

From Python: `validate_payload(topic, payload_json)` returns a list of problems (empty when the payload
is valid for the channel whose address matches the topic); pass `document=load_spec(path)` for another
document.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT / "Docs" / "asyncapi.yaml"
DEFAULT_PREFIX = "stepcompass"

# Every topic of the contract (v1, as Docs/asyncapi.yaml states it) with the QoS and retain flag of its
# publisher: the document must describe each of them, with these bindings on its send operation.
CONTRACT_TOPICS = {
    "stepcompass/{device}/steps": (1, False),
    "stepcompass/{device}/imu": (0, False),
    "stepcompass/{device}/location": (1, False),
    "stepcompass/{device}/permissions": (1, True),
    "stepcompass/{device}/simulation/truth": (0, False),
    "stepcompass/{device}/heading": (0, True),
    "stepcompass/{device}/calibration": (1, True),
    "stepcompass/{device}/bearing-lock": (1, True),
    "stepcompass/{device}/cmd/bearing-lock": (1, False),
    "stepcompass/{device}/cmd/calibrate": (1, False),
    "stepcompass/{device}/cmd/settings": (1, False),
    "stepcompass/{device}/position": (1, True),
    "stepcompass/{device}/cmd/reset-position": (1, False),
    "stepcompass/markers/status": (1, True),
    "stepcompass/markers/collection": (1, True),
    "stepcompass/markers/cmd/refresh": (1, False),
    "stepcompass/markers/nearest": (1, False),
    "stepcompass/{device}/nearby": (0, False),
    "stepcompass/services/{service}/status": (1, True),
    "stepcompass/errors/{service}": (0, False),
}

# Topics added to the bus after contract v1, by the services that own them (README, Docs/asyncapi.yaml),
# held to their publishers' QoS and retain flag the same way.
SERVICE_TOPICS = {
    # stepcompass-activity
    "stepcompass/{device}/activity": (1, True),
    "stepcompass/activity/history": (1, False),
    # stepcompass-journal (and the dashboard or client that commands it)
    "stepcompass/{device}/cmd/walk": (1, False),
    "stepcompass/{device}/journal": (1, True),
    "stepcompass/{device}/journal/photo": (1, False),
    "stepcompass/journal/walks": (1, False),
}

PARAMETER = re.compile(r"\{([^{}]+)\}")


# ----------------------------------------------------------------------------------------------- loading

def load_spec(path: Path | str = DEFAULT_SPEC) -> dict[str, Any]:
    """Parses the AsyncAPI document (YAML)."""
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    if not isinstance(document, dict):
        raise ValueError(f"{path}: not a YAML mapping")
    return document


def resolve_pointer(document: Any, ref: str) -> Any:
    """The node a local reference such as `#/components/schemas/Timestamp` points to (KeyError if none)."""
    if not ref.startswith("#"):
        raise KeyError(f"only local references are supported: {ref}")
    node = document
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(ref)
    return node


def inline_refs(document: Any, node: Any, seen: tuple[str, ...] = ()) -> Any:
    """A copy of `node` with every local $ref replaced by its target (the document has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node and isinstance(node["$ref"], str):
            ref = node["$ref"]
            if ref in seen:
                raise ValueError(f"circular $ref: {' -> '.join(seen + (ref,))}")
            target = inline_refs(document, resolve_pointer(document, ref), seen + (ref,))
            extra = {key: value for key, value in node.items() if key != "$ref"}
            if extra and isinstance(target, dict):
                target = {**target, **inline_refs(document, extra, seen)}
            return target
        return {key: inline_refs(document, value, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [inline_refs(document, item, seen) for item in node]
    return copy.deepcopy(node)


def all_refs(node: Any, path: str = "#") -> list[tuple[str, str]]:
    """Every ($ref value, where it occurs) in the document."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.append((value, path))
            else:
                found.extend(all_refs(value, f"{path}/{key}"))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(all_refs(item, f"{path}/{index}"))
    return found


def validator_class():
    import jsonschema

    return jsonschema.Draft7Validator


# ------------------------------------------------------------------------------------ document checks

def check_document(document: dict[str, Any]) -> list[str]:
    """Every structural problem of the document (empty when it is sound)."""
    problems: list[str] = []
    if document.get("asyncapi") != "3.0.0":
        problems.append(f"asyncapi must be '3.0.0', found {document.get('asyncapi')!r}")
    info = document.get("info") or {}
    for key in ("title", "version"):
        if not info.get(key):
            problems.append(f"info.{key} is missing")

    for ref, where in all_refs(document):
        try:
            resolve_pointer(document, ref)
        except (KeyError, ValueError, IndexError):
            problems.append(f"{where}: $ref '{ref}' does not resolve")

    channels = document.get("channels") or {}
    operations = document.get("operations") or {}
    if not channels:
        problems.append("the document has no channels")
    for name, channel in channels.items():
        if isinstance(channel, dict):
            try:
                channel = inline_refs(document, channel)
            except (KeyError, ValueError, IndexError):
                pass  # the unresolved $ref is reported above; check what is there
        if not isinstance(channel, dict):
            problems.append(f"channel {name} is not an object")
            continue
        if "address" not in channel:
            problems.append(f"channel {name} has no address")
        address = channel.get("address")
        if address is None and "address" in channel and not channel.get("x-topic-filter"):
            problems.append(f"channel {name} has a null address and no x-topic-filter to match its topics")
        if address is not None and not isinstance(address, str):
            problems.append(f"channel {name}: address must be a string or null")
        messages = channel.get("messages") or {}
        if not messages:
            problems.append(f"channel {name} has no messages")
        for message_name, message in messages.items():
            if not isinstance(message, dict) or "payload" not in message:
                problems.append(f"channel {name}: message {message_name} has no payload schema")
        if isinstance(address, str):
            used = set(PARAMETER.findall(address))
            declared = set((channel.get("parameters") or {}).keys())
            for missing in sorted(used - declared):
                problems.append(f"channel {name}: address parameter {{{missing}}} is not declared")
            for unused in sorted(declared - used):
                problems.append(f"channel {name}: parameter {unused} does not occur in the address")
            if "#" in address or "+" in address:
                problems.append(f"channel {name}: an address is a topic name, not a filter: {address}")

    sent_channels: dict[str, list[dict[str, Any]]] = {}
    for name, operation in operations.items():
        if operation.get("action") not in ("send", "receive"):
            problems.append(f"operation {name}: action must be send or receive, found {operation.get('action')!r}")
        channel_ref = (operation.get("channel") or {}).get("$ref", "")
        channel_name = channel_ref.removeprefix("#/channels/")
        if not channel_ref.startswith("#/channels/") or channel_name not in channels:
            problems.append(f"operation {name}: channel {channel_ref!r} is not a channel of this document")
            continue
        for message in operation.get("messages") or []:
            ref = message.get("$ref", "")
            if not ref.startswith(f"#/channels/{channel_name}/messages/"):
                problems.append(f"operation {name}: message {ref!r} is not a message of channel {channel_name}")
        mqtt = (operation.get("bindings") or {}).get("mqtt") or {}
        if "qos" in mqtt and mqtt["qos"] not in (0, 1, 2):
            problems.append(f"operation {name}: qos {mqtt['qos']!r} is not 0, 1 or 2")
        if operation.get("action") == "send":
            if "qos" not in mqtt or "retain" not in mqtt:
                problems.append(f"operation {name}: a send operation needs MQTT bindings qos and retain")
            sent_channels.setdefault(channel_name, []).append(mqtt)
        reply = operation.get("reply")
        if reply:
            reply_ref = (reply.get("channel") or {}).get("$ref", "")
            reply_channel = reply_ref.removeprefix("#/channels/")
            if reply_channel not in channels:
                problems.append(f"operation {name}: reply channel {reply_ref!r} is not a channel of this document")
            for message in reply.get("messages") or []:
                if not message.get("$ref", "").startswith(f"#/channels/{reply_channel}/messages/"):
                    problems.append(f"operation {name}: reply message {message.get('$ref')!r} is not a message of {reply_channel}")
            if not (reply.get("address") or {}).get("location"):
                problems.append(f"operation {name}: the reply has no address location")
    for name in channels:
        if name not in sent_channels and not any(
            (op.get("reply") or {}).get("channel", {}).get("$ref") == f"#/channels/{name}" for op in operations.values()
        ):
            problems.append(f"channel {name} has no send operation (who publishes it?)")

    # The contract: every topic present, with the publisher's QoS and retain flag.
    addresses = {channel.get("address"): name for name, channel in channels.items() if isinstance(channel, dict)}
    for address, (qos, retain) in {**CONTRACT_TOPICS, **SERVICE_TOPICS}.items():
        name = addresses.get(address)
        if name is None:
            problems.append(f"the contract topic {address} has no channel")
            continue
        for mqtt in sent_channels.get(name, []):
            if mqtt.get("qos") != qos or mqtt.get("retain") != retain:
                problems.append(
                    f"channel {name} ({address}): the contract says QoS {qos}, retain {str(retain).lower()}; "
                    f"a send operation says QoS {mqtt.get('qos')}, retain {str(mqtt.get('retain')).lower()}")

    # Every payload is a valid JSON Schema, and every example message is valid for it.
    try:
        validator = validator_class()
    except ImportError:
        problems.append("jsonschema is not installed: payload schemas and examples not checked")
        return problems
    for name, message in (document.get("components", {}).get("messages") or {}).items():
        try:
            payload = inline_refs(document, message.get("payload"))
        except (KeyError, ValueError, IndexError) as error:
            problems.append(f"message {name}: cannot resolve its payload schema: {error}")
            continue
        try:
            validator.check_schema(payload)
        except Exception as error:  # jsonschema.SchemaError
            problems.append(f"message {name}: the payload is not a valid JSON Schema: {getattr(error, 'message', error)}")
            continue
        examples = message.get("examples") or []
        if not examples:
            problems.append(f"message {name} has no example")
        for example in examples:
            for error in validator(payload).iter_errors(example.get("payload")):
                problems.append(f"message {name}, example {example.get('name')}: {describe(error)}")
    return problems


def check_with_pydantic_asyncapi(document: dict[str, Any]) -> tuple[bool, list[str]]:
    """Validates with pydantic-asyncapi's 3.0.0 model when it is installed: (ran, problems)."""
    try:
        from pydantic_asyncapi.v3 import AsyncAPI  # type: ignore[import-not-found]
    except ImportError:
        return False, []
    # pydantic-asyncapi 0.3.2 models a server's `security` as a map, where AsyncAPI 3.0.0 has a list of
    # Security Scheme or Reference objects (as this document does); its own check skips that field.
    relaxed = copy.deepcopy(document)
    for server in (relaxed.get("servers") or {}).values():
        if isinstance(server, dict) and isinstance(server.get("security"), list):
            del server["security"]
    try:
        AsyncAPI.model_validate(relaxed)
    except Exception as error:  # pydantic.ValidationError
        return True, [f"pydantic-asyncapi: {line}" for line in str(error).splitlines()]
    return True, []


# ------------------------------------------------------------------------------------ payload checks

def describe(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "(payload)"
    return f"{where}: {error.message}"


def mqtt_filter_matches(filter_text: str, topic: str) -> bool:
    levels, parts = filter_text.split("/"), topic.split("/")
    for index, level in enumerate(levels):
        if level == "#":
            return True
        if index >= len(parts) or (level != "+" and level != parts[index]):
            return False
    return len(levels) == len(parts)


class ChannelIndex:
    """Finds the channel of a concrete topic: exact addresses first, then the fewest parameters."""

    def __init__(self, document: dict[str, Any], prefix: str = DEFAULT_PREFIX):
        self.document = document
        self.entries = []
        for name, channel in (document.get("channels") or {}).items():
            channel = inline_refs(document, channel)
            address = channel.get("address")
            messages = channel.get("messages") or {}
            parameters = channel.get("parameters") or {}
            if isinstance(address, str):
                address = self._reprefix(address, prefix)
                pattern = "^" + "/".join(
                    "([^/]+)" if PARAMETER.fullmatch(level) else re.escape(level) for level in address.split("/")
                ) + "$"
                names = PARAMETER.findall(address)
                self.entries.append((len(names), name, re.compile(pattern), names, parameters, None, messages))
            elif channel.get("x-topic-filter"):
                filter_text = self._reprefix(channel["x-topic-filter"], prefix)
                self.entries.append((99, name, None, [], {}, filter_text, messages))
        self.entries.sort(key=lambda entry: entry[0])

    @staticmethod
    def _reprefix(address: str, prefix: str) -> str:
        if prefix != DEFAULT_PREFIX and address.startswith(DEFAULT_PREFIX + "/"):
            return prefix + address[len(DEFAULT_PREFIX):]
        return address

    @staticmethod
    def _parameter_problem(name: str, value: str, parameter: dict[str, Any]) -> str | None:
        if "enum" in parameter and value not in parameter["enum"]:
            return f"{{{name}}} '{value}' is not one of {parameter['enum']}"
        if "x-pattern" in parameter and not re.fullmatch(parameter["x-pattern"], value):
            return f"{{{name}}} '{value}' does not match {parameter['x-pattern']}"
        if value in (parameter.get("x-reserved") or []):
            return f"{{{name}}} '{value}' is a reserved name"
        return None

    def match(self, topic: str) -> tuple[str | None, dict[str, Any], list[str]]:
        """(channel name, its messages, problems with its parameters) for a topic; name None when no channel matches."""
        parameter_problems: list[str] = []
        for _, name, pattern, names, parameters, filter_text, messages in self.entries:
            if pattern is not None:
                found = pattern.match(topic)
                if not found:
                    continue
                problems = [
                    problem for key, value in zip(names, found.groups())
                    if (problem := self._parameter_problem(key, value, parameters.get(key) or {}))
                ]
                if problems:
                    parameter_problems.extend(f"{name}: {problem}" for problem in problems)
                    continue
                return name, messages, []
            if filter_text and mqtt_filter_matches(filter_text, topic):
                return name, messages, []
        return None, {}, parameter_problems


_indexes: dict[tuple[int, str], ChannelIndex] = {}


_default_document: dict[str, Any] | None = None


def validate_payload(topic: str, payload_json: Any, document: dict[str, Any] | None = None,
                     prefix: str = DEFAULT_PREFIX) -> list[str]:
    """Problems with one message (empty when valid).

    `payload_json` is the payload as received: JSON text (str or bytes) or an already decoded value. An
    empty payload clears a retained message and is accepted on any channel of the document.
    `document` defaults to Docs/asyncapi.yaml.
    """
    global _default_document
    if document is None:
        _default_document = _default_document or load_spec()
        document = _default_document
    key = (id(document), prefix)
    index = _indexes.get(key) or _indexes.setdefault(key, ChannelIndex(document, prefix))
    channel, messages, parameter_problems = index.match(topic)
    if channel is None:
        return parameter_problems or [f"no channel of the document has a topic like {topic}"]
    if isinstance(payload_json, bytes):
        payload_json = payload_json.decode("utf-8", errors="replace")
    if payload_json is None or payload_json == "":
        return []
    if isinstance(payload_json, str):
        try:
            payload = json.loads(payload_json)
        except json.JSONDecodeError as error:
            return [f"{channel}: the payload is not JSON: {error}"]
    else:
        payload = payload_json
    validator = validator_class()
    failures = []
    for name, message in messages.items():
        errors = sorted(validator(message["payload"]).iter_errors(payload), key=lambda e: list(e.absolute_path))
        if not errors:
            return []
        failures.append((name, errors))
    if len(failures) == 1:
        name, errors = failures[0]
        return [f"{channel} ({name}): {describe(error)}" for error in errors]
    return [f"{channel}: matches none of its messages: " + "; ".join(
        f"{name}: {describe(errors[0])}" for name, errors in failures)]


def read_captures(path: str, mosquitto_sub: bool) -> list[tuple[int, str, Any]]:
    """(line number, topic, payload) for every non-empty line of a capture file."""
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    captures = []
    with handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if mosquitto_sub:
                topic, _, payload = line.partition(" ")
                captures.append((number, topic, payload))
                continue
            try:
                record = json.loads(line)
                captures.append((number, record["topic"], record["payload"]))
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                captures.append((number, "", ValueError(f"not a {{\"topic\", \"payload\"}} JSON line: {error}")))
    return captures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default=str(DEFAULT_SPEC), help="the AsyncAPI document (default Docs/asyncapi.yaml)")
    parser.add_argument("--payloads", metavar="FILE", help='JSON lines {"topic": ..., "payload": ...} to validate')
    parser.add_argument("--mosquitto-sub", metavar="FILE", help="`mosquitto_sub -v` output to validate")
    parser.add_argument("--prefix", default=DEFAULT_PREFIX, help="the topic root of the capture (default stepcompass)")
    parser.add_argument("--expect-invalid", action="store_true", help="every captured message must be rejected")
    parser.add_argument("--quiet", action="store_true", help="print only problems")
    args = parser.parse_args(argv)

    try:
        document = load_spec(args.spec)
    except (OSError, yaml.YAMLError, ValueError) as error:
        print(f"check-asyncapi: cannot read {args.spec}: {error}", file=sys.stderr)
        return 1
    problems = check_document(document)
    ran, pydantic_problems = check_with_pydantic_asyncapi(document)
    problems += pydantic_problems
    for problem in problems:
        print(f"check-asyncapi: {args.spec}: {problem}", file=sys.stderr)
    if problems:
        return 1
    if not args.quiet:
        channels, operations = len(document["channels"]), len(document["operations"])
        extra = " and pydantic-asyncapi" if ran else ""
        print(f"check-asyncapi: {args.spec} is valid ({channels} channels, {operations} operations, "
              f"every $ref resolves, every example matches its schema; checked by this script{extra})")

    path = args.payloads or args.mosquitto_sub
    if not path:
        return 0
    try:
        captures = read_captures(path, mosquitto_sub=args.mosquitto_sub is not None)
    except OSError as error:
        print(f"check-asyncapi: cannot read {path}: {error}", file=sys.stderr)
        return 2
    if not captures:
        print(f"check-asyncapi: {path} holds no messages", file=sys.stderr)
        return 1
    failed = 0
    for number, topic, payload in captures:
        found = [str(payload)] if isinstance(payload, ValueError) else validate_payload(topic, payload, document, args.prefix)
        if args.expect_invalid:
            if not found:
                failed += 1
                print(f"{path}:{number}: {topic}: accepted, but this line should be rejected", file=sys.stderr)
            continue
        if found:
            failed += 1
            for problem in found:
                print(f"{path}:{number}: {topic}: {problem}", file=sys.stderr)
    if failed:
        what = "accepted although invalid" if args.expect_invalid else "invalid"
        print(f"check-asyncapi: {failed} of {len(captures)} messages {what}", file=sys.stderr)
        return 1
    if not args.quiet:
        what = "rejected as expected" if args.expect_invalid else "valid"
        print(f"check-asyncapi: {len(captures)} messages from {path} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
