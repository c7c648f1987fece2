# SPDX-License-Identifier: BSD-3-Clause
"""A guest's warm reset through its QEMU's QMP socket (power.sh reset): the machine
resets and boots again as a platform reset would, its RAM kept. QEMU runs with
-no-reboot (a guest that reboots by itself, or panics, ends), which QEMU applies to a
reset asked over QMP as well, when it takes place, and the firmware resets the machine
once more on its way up: resets stay allowed until the guest is up again (NO_REBOOT)."""
import json
import socket

# the steps of a warm reset, after the capabilities' negotiation: commands, and an
# event to await
WARM_RESET = [
    {"execute": "set-action", "arguments": {"reboot": "reset"}},
    {"execute": "system_reset"},
    {"await": "RESET"},
]
# once the guest is up again: a reset ends QEMU again (-no-reboot)
NO_REBOOT = [{"execute": "set-action", "arguments": {"reboot": "shutdown"}}]


class QmpError(Exception):
    """What QEMU answered, or why nothing was."""


class Channel:
    """One QMP connection: a line of JSON out, the reply to it back (events noted)."""

    def __init__(self, sock):
        self.sock = sock
        self.pending = b""
        self.events = []  # the events read so far, not yet awaited

    def message(self):
        while b"\n" not in self.pending:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise QmpError("QEMU closed the QMP connection")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError as e:
            raise QmpError(f"QEMU sent no JSON ({e})") from e

    def reply(self):
        while True:
            m = self.message()
            if "return" in m:
                return m["return"]
            if "error" in m:
                raise QmpError(m["error"].get("desc", "an error without a description"))
            # {"event": ...} and the like: not an answer
            self.events.append(m.get("event"))

    def await_event(self, name):
        """Until QEMU reports the event NAME (also when it came before a reply)."""
        while name not in self.events:
            self.events.append(self.message().get("event"))
        self.events.remove(name)

    def execute(self, command):
        self.sock.sendall(json.dumps(command).encode() + b"\n")
        return self.reply()


def run(path, steps, timeout=10.0):
    """Send STEPS' commands to the QMP socket at PATH, each after the previous one's
    reply, or its event awaited (at most TIMEOUT seconds each)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            ch = Channel(sock)
            if "QMP" not in ch.message():
                raise QmpError(f"{path} did not greet as QMP")
            ch.execute({"execute": "qmp_capabilities"})
            for step in steps:
                if "await" in step:
                    ch.await_event(step["await"])
                else:
                    ch.execute(step)
    except OSError as e:
        raise QmpError(f"{path}: {e.strerror or e}") from e
