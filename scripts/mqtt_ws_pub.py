#!/usr/bin/env python3
"""Publishes one MQTT message over WebSockets, as Sensor Logger's MQTT push does (standard library only).

    scripts/mqtt_ws_pub.py -p 9001 -u device -P PASSWORD -t sensor-logger -m '{"payload": []}' [-q 1]

MQTT 3.1.1 over a WebSocket with the `mqtt` subprotocol on path /mqtt (mosquitto's websockets listener
takes any path). With -q 1 it waits for the PUBACK, so the broker has decided before it returns.
Exit status: 0 published, 5 the broker refused the connection (bad user or password), 1 anything else.
The checks use it for the broker's WebSockets listener, where mosquitto_pub cannot go.
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import struct
import sys


def remaining_length(length: int) -> bytes:
    out = bytearray()
    while True:
        byte, length = length % 128, length // 128
        out.append(byte | (0x80 if length else 0))
        if not length:
            return bytes(out)


def utf8(text: str) -> bytes:
    data = text.encode()
    return struct.pack("!H", len(data)) + data


class WebSocket:
    def __init__(self, host: str, port: int, path: str, timeout: float):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the WebSocket handshake")
            response += chunk
        head, _, self.pending = response.partition(b"\r\n\r\n")
        status = head.split(b"\r\n")[0].decode(errors="replace")
        if " 101 " not in status:
            raise ConnectionError(f"no WebSocket upgrade: {status}")
        self.stream = b""

    def send(self, data: bytes) -> None:
        mask = os.urandom(4)
        header = bytearray([0x82])  # FIN, binary
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes(header) + mask + masked)

    def _read(self, count: int) -> bytes:
        while len(self.pending) < count:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            self.pending += chunk
        data, self.pending = self.pending[:count], self.pending[count:]
        return data

    def _frame(self) -> bytes:
        first, second = self._read(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._read(8))[0]
        mask = self._read(4) if second & 0x80 else None
        data = self._read(length)
        if mask:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        if first & 0x0F == 0x8:
            raise ConnectionError("the broker closed the WebSocket")
        return data

    def packet(self) -> tuple[int, bytes]:
        """The next MQTT packet: (first byte, body)."""
        while True:
            if len(self.stream) >= 2:
                multiplier, length, index = 1, 0, 1
                while index < len(self.stream):
                    byte = self.stream[index]
                    length += (byte & 0x7F) * multiplier
                    multiplier *= 128
                    index += 1
                    if not byte & 0x80:
                        if len(self.stream) >= index + length:
                            packet = self.stream[0], self.stream[index:index + length]
                            self.stream = self.stream[index + length:]
                            return packet
                        break
            self.stream += self._frame()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=9001)
    parser.add_argument("--path", default="/mqtt")
    parser.add_argument("-u", "--username")
    parser.add_argument("-P", "--password")
    parser.add_argument("-i", "--client-id", default=f"ws-pub-{os.getpid()}")
    parser.add_argument("-t", "--topic", required=True)
    parser.add_argument("-m", "--message", default="")
    parser.add_argument("-q", "--qos", type=int, choices=(0, 1), default=0)
    parser.add_argument("-r", "--retain", action="store_true")
    parser.add_argument("-W", "--timeout", type=float, default=5)
    args = parser.parse_args()

    try:
        ws = WebSocket(args.host, args.port, args.path, args.timeout)
        flags = 0x02  # clean session
        payload = utf8(args.client_id)
        if args.username is not None:
            flags |= 0x80
            payload += utf8(args.username)
            if args.password is not None:
                flags |= 0x40
                payload += utf8(args.password)
        body = utf8("MQTT") + bytes([4, flags]) + struct.pack("!H", 30) + payload
        ws.send(bytes([0x10]) + remaining_length(len(body)) + body)
        kind, connack = ws.packet()
        if kind >> 4 != 2 or len(connack) < 2:
            print("mqtt_ws_pub: no CONNACK", file=sys.stderr)
            return 1
        if connack[1] != 0:
            print(f"mqtt_ws_pub: the broker refused the connection (CONNACK code {connack[1]})", file=sys.stderr)
            return 5
        body = utf8(args.topic) + (struct.pack("!H", 1) if args.qos else b"") + args.message.encode()
        ws.send(bytes([0x30 | (args.qos << 1) | (1 if args.retain else 0)]) + remaining_length(len(body)) + body)
        if args.qos:
            kind, _ = ws.packet()
            if kind >> 4 != 4:
                print(f"mqtt_ws_pub: expected a PUBACK, got packet type {kind >> 4}", file=sys.stderr)
                return 1
        ws.send(bytes([0xE0, 0]))
        ws.sock.close()
    except (OSError, ConnectionError) as error:
        print(f"mqtt_ws_pub: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
