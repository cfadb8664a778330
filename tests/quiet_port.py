"""A loopback port for a test's server, below the kernel's ephemeral range.

A port from binding port 0 is free only until the kernel hands it out again,
to another listener or as the local end of an outgoing connection, which it
may do before the server that was meant to have it binds it. The kernel
never picks a port below its ephemeral range by itself, so one chosen there
stays free unless another test chooses it too: the choice is random over
8,000 ports and skips any that something holds.

Run as a program, it prints one; imported, `quiet_port()` returns one.
"""

import random
import socket

SPAN = 8000


def ephemeral_low():
    """The lowest port the kernel picks by itself (Linux's default when unsaid)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def quiet_port():
    """A loopback port nothing holds now, that the kernel will not hand out."""
    high = ephemeral_low()
    low = max(1024, high - SPAN)
    pick = random.SystemRandom()
    while True:
        port = pick.randrange(low, high)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


if __name__ == "__main__":
    print(quiet_port())
