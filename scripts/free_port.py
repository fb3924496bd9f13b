#!/usr/bin/env python3
"""Prints COUNT (default 1) distinct free TCP ports on 127.0.0.1, one a line, below Linux's ephemeral range
(32768-60999), as BusTesting's freePort picks them.

Port 0 would give a port from the ephemeral range, which the kernel also hands out as the source port of outgoing
connections: a client connecting elsewhere could take it before the server the port is for binds it.

Usage: scripts/free_port.py [COUNT]
"""

import random
import socket
import sys


def free_ports(count: int) -> list[int]:
    ports: list[int] = []
    for _ in range(count * 200):
        if len(ports) == count:
            break
        port = random.randint(12000, 32767)
        if port in ports:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports.append(port)
    if len(ports) < count:
        sys.exit(f"free_port.py: found only {len(ports)} of {count} free ports in 12000-32767")
    return ports


if __name__ == "__main__":
    print("\n".join(str(port) for port in free_ports(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
