# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of the warm reset's QMP client (scripts/softroce-vm.d/softroce_vm/qmp.py):
a stand-in QEMU on a Unix socket that records what it was sent and answers as told."""

import json
import os
import socket
import sys
import tempfile
import threading
import unittest

PARTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "softroce-vm.d")
sys.path.insert(0, PARTS)

from softroce_vm import qmp  # noqa: E402

GREETING = {"QMP": {"version": {}, "capabilities": []}}


class FakeQemu:
    """Greets (or not), then answers each command with ANSWER(command): a list of
    messages, sent in one write, split across writes by SPLIT bytes when given."""

    def __init__(self, path, answer, greeting=GREETING, split=0):
        self.received = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.answer, self.greeting, self.split = answer, greeting, split
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def send(self, conn, messages):
        data = b"".join(json.dumps(m).encode() + b"\r\n" for m in messages)
        step = self.split or len(data)
        for i in range(0, len(data), step):
            conn.sendall(data[i:i + step])

    def serve(self):
        conn, _ = self.server.accept()
        with conn:
            self.send(conn, [self.greeting])
            f = conn.makefile("rb")
            for line in f:
                command = json.loads(line)
                self.received.append(command)
                messages = self.answer(command)
                if messages is None:
                    return
                self.send(conn, messages)

    def close(self):
        self.thread.join(5)
        self.server.close()


def ok(command):
    """As QEMU: a reply, and after a system_reset the RESET event."""
    if command["execute"] == "system_reset":
        return [{"return": {}}, {"event": "RESET", "data": {"guest": False}}]
    return [{"return": {}}]


class WarmResetTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "qmp.sock")

    def tearDown(self):
        self.dir.cleanup()

    def test_allows_resets_then_resets(self):
        fake = FakeQemu(self.path, ok)
        qmp.run(self.path, qmp.WARM_RESET)
        fake.close()
        self.assertEqual([c["execute"] for c in fake.received], ["qmp_capabilities", "set-action", "system_reset"])
        self.assertEqual(fake.received[1]["arguments"], {"reboot": "reset"})

    def test_no_reboot_ends_qemu_on_a_reset_again(self):
        fake = FakeQemu(self.path, ok)
        qmp.run(self.path, qmp.NO_REBOOT)
        fake.close()
        self.assertEqual([c["execute"] for c in fake.received], ["qmp_capabilities", "set-action"])
        self.assertEqual(fake.received[1]["arguments"], {"reboot": "shutdown"})

    def test_events_before_a_reply_are_kept_and_split_lines_joined(self):
        def event_first(command):
            # the reset's event before system_reset's reply; others before every reply
            event = "RESET" if command["execute"] == "system_reset" else "STOP"
            return [{"event": event, "data": {}}, {"return": {}}]
        fake = FakeQemu(self.path, event_first, split=7)
        qmp.run(self.path, qmp.WARM_RESET)
        fake.close()
        self.assertEqual(len(fake.received), 3)

    def test_the_reset_is_allowed_until_it_took_place(self):
        """A warm reset ends when QEMU reports the reset done; one that never does
        times out."""
        fake = FakeQemu(self.path, lambda c: [{"return": {}}])
        with self.assertRaisesRegex(qmp.QmpError, "timed out"):
            qmp.run(self.path, qmp.WARM_RESET, timeout=0.3)
        fake.close()
        self.assertEqual([c["execute"] for c in fake.received], ["qmp_capabilities", "set-action", "system_reset"])

    def test_an_error_stops_with_its_description(self):
        def refuse_reset(command):
            if command["execute"] == "system_reset":
                return [{"error": {"class": "GenericError", "desc": "no reset today"}}]
            return [{"return": {}}]
        fake = FakeQemu(self.path, refuse_reset)
        with self.assertRaisesRegex(qmp.QmpError, "no reset today"):
            qmp.run(self.path, qmp.WARM_RESET)
        fake.close()
        # nothing after the refused command
        self.assertEqual(fake.received[-1]["execute"], "system_reset")

    def test_a_closed_connection_is_an_error(self):
        fake = FakeQemu(self.path, lambda c: None)
        with self.assertRaisesRegex(qmp.QmpError, "closed"):
            qmp.run(self.path, qmp.WARM_RESET)
        fake.close()

    def test_no_greeting_is_an_error(self):
        fake = FakeQemu(self.path, ok, greeting={"hello": 1})
        with self.assertRaisesRegex(qmp.QmpError, "did not greet"):
            qmp.run(self.path, qmp.WARM_RESET)
        fake.close()

    def test_no_socket_is_an_error_naming_it(self):
        with self.assertRaisesRegex(qmp.QmpError, "qmp.sock"):
            qmp.run(self.path, qmp.WARM_RESET)


if __name__ == "__main__":
    unittest.main()
