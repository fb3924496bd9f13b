#!/usr/bin/env bash
# Publish → receive throughput of the Swift bus (stepcompass-buslab) against mosquitto's own C clients
# (mosquitto_pub -l into mosquitto_sub), through the same private broker with the project's tuning, in
# the same run. 100-byte payloads, QoS 0 and QoS 1. Prints msg/s, losses and the Swift/C ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
# 60,000 stays below the 65,535 packet ids: with more, mosquitto_pub -l loses QoS 1 messages at the
# wrap (MQTT packet identifiers are 16 bits) and the C baseline is meaningless; the Swift bus moves any count without loss.
COUNT="${COUNT:-60000}"
SIZE="${SIZE:-100}"
RUNS="${RUNS:-3}"
BIN="${BIN:-$(swift build -c release --show-bin-path)}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

port=$(python3 scripts/free_port.py)
{ echo "listener $port 127.0.0.1"; echo "allow_anonymous true"; grep -v -E '^\s*(persistence|persistence_location|listener|log_dest|allow_anonymous|password_file|acl_file)\b' Config/mosquitto/stepcompass.conf; } > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/broker.log" 2>&1 &
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

python3 -c "import sys; sys.stdout.write(('x' * $SIZE + '\\n') * $COUNT)" > "$work/lines"

c_run() {  # qos → prints rate
    local qos="$1" topic="bench/c/$RANDOM"
    mosquitto_sub -p "$port" -t "$topic" -q "$qos" -C "$COUNT" -W 120 > "$work/sub.out" &
    local sub=$!
    sleep 0.3
    local start end
    start=$(date +%s.%N)
    # The trailing sleep keeps stdin open until everything is sent: at EOF mosquitto_pub stops waiting
    # once the message id it last sent is acknowledged, and ids wrap at 65,535 (MQTT packet identifiers are 16 bits).
    { cat "$work/lines"; sleep 3; } | mosquitto_pub -p "$port" -t "$topic" -q "$qos" -l -M 1000 &
    local pub=$!
    wait "$sub" || true
    end=$(date +%s.%N)
    kill "$pub" 2>/dev/null || true; wait "$pub" 2>/dev/null || true
    local received; received=$(wc -l < "$work/sub.out")
    python3 -c "r=$received; s=$end-$start; print(f'{r} {s:.3f} {int(r/s)}')"
}

echo "broker: mosquitto $(mosquitto -h | head -1 | awk '{print $3}') on port $port; $COUNT messages of $SIZE bytes; best of $RUNS"
for qos in 0 1; do
    best_c=0; best_s=0; lost_c=0; lost_s=0
    for _ in $(seq 1 "$RUNS"); do
        read -r rc sc ratec < <(c_run "$qos")
        [ "$rc" -ne "$COUNT" ] && lost_c=$((lost_c + COUNT - rc))
        [ "$ratec" -gt "$best_c" ] && best_c=$ratec
        line=$("$BIN/stepcompass-buslab" throughput --port "$port" --qos "$qos" --count "$COUNT" --size "$SIZE" --json || true)
        rs=$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['received'], d['rate'])" "$line")
        read -r recv rates <<< "$rs"
        [ "$recv" -ne "$COUNT" ] && lost_s=$((lost_s + COUNT - recv))
        [ "$rates" -gt "$best_s" ] && best_s=$rates
    done
    ratio=$(python3 -c "print(f'{$best_s/$best_c:.2f}' if $best_c else 'n/a')")
    echo "QoS $qos: C clients $best_c msg/s (lost $lost_c), Swift bus $best_s msg/s (lost $lost_s), ratio Swift/C $ratio"
done
