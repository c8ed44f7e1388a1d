# SPDX-License-Identifier: MIT
"""rocelab explain on a live source, as tcpdump -U -w - feeds it.

Usage: live.py ROCELAB CAPTURE.pcap

- a FIFO and a writer that stops after the first frame: explain prints that
  frame while the writer still holds the FIFO open;
- standard input that is a pipe: the same;
- SIGINT and SIGTERM mid-stream: what was read is printed, then the summary, and
  the exit status is 0 (tcpdump's after a live capture).

Every wait is bounded (TIMEOUT seconds) and none is a sleep: the test waits for
explain's output, never for time to pass, so a slow machine only makes it slower.
"""
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally  # noqa: E402

TIMEOUT = 30.0


def frames(path):
    """The pcap's global header and its records, as bytes."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    head, off, recs = data[:24], 24, []
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        recs.append(data[off:off + 16 + incl])
        off += 16 + incl
    return head, recs


class Reader:
    """explain's standard output, read line by line without ever blocking past a deadline."""

    def __init__(self, proc):
        self.proc, self.buf, self.lines = proc, b"", []

    def until(self, pred):
        """Read until a line satisfies @pred; that line, or None at the deadline or the end."""
        end = time.monotonic() + TIMEOUT
        while True:
            for ln in self.lines:
                if pred(ln):
                    return ln
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
            *done, self.buf = self.buf.split(b"\n")
            self.lines += [d.decode("utf-8", "replace") for d in done]

    def rest(self):
        """Everything up to the end of the output (bounded)."""
        self.until(lambda ln: False)
        return self.lines


def first_frame_before_close(rocelab, head, recs, how):
    """Write the header and one frame, then wait for explain to print it with the writer still open."""
    tmp = tempfile.mkdtemp()
    fifo = os.path.join(tmp, "live.fifo")
    if how == "fifo":
        os.mkfifo(fifo)
        proc = subprocess.Popen([rocelab, "explain", fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        w = open(fifo, "wb", buffering=0)   # blocks until explain opens it: explain is running
    else:
        proc = subprocess.Popen([rocelab, "explain", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        w = proc.stdin
    rd = Reader(proc)
    w.write(head + recs[0])
    w.flush()
    got = rd.until(lambda ln: ln.startswith("1 "))
    tally.check(got is not None and proc.poll() is None,
                "%s: frame 1 is printed while the writer still holds the %s open" % (how, how))
    w.write(b"".join(recs[1:]))
    w.close()
    lines = rd.rest()
    rc = proc.wait(timeout=TIMEOUT)
    tally.check(rc == 0 and any(ln.startswith("--- %d frames" % len(recs)) for ln in lines),
                "%s: then the rest and the summary, exit 0 (got %s)" % (how, rc))
    if how == "fifo":
        os.unlink(fifo)
    os.rmdir(tmp)


def stopped_by(rocelab, head, recs, sig):
    """Three frames, then a signal while explain waits for more: they and the summary are printed."""
    proc = subprocess.Popen([rocelab, "explain", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    rd = Reader(proc)
    proc.stdin.write(head + b"".join(recs[:3]))
    proc.stdin.flush()
    seen = rd.until(lambda ln: ln.startswith("3 "))
    proc.send_signal(sig)
    lines = rd.rest()
    try:
        rc = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "still running"
    proc.stdin.close()
    name = signal.Signals(sig).name
    tally.check(seen is not None, "%s: frames 1..3 printed before the signal" % name)
    tally.check(any(ln.startswith("--- 3 frames: 3 RoCE") for ln in lines),
                "%s mid-stream prints the summary of the 3 frames read" % name)
    tally.check(rc == 0, "%s: exit status 0, as tcpdump's after a live capture (got %s)" % (name, rc))
    err = proc.stderr.read().decode()
    tally.check("damaged" not in err, "%s: the file is not called damaged" % name)


def main():
    rocelab, capture = sys.argv[1], sys.argv[2]
    head, recs = frames(capture)
    first_frame_before_close(rocelab, head, recs, "fifo")
    first_frame_before_close(rocelab, head, recs, "pipe")
    stopped_by(rocelab, head, recs, signal.SIGINT)
    stopped_by(rocelab, head, recs, signal.SIGTERM)
    print("live: %d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
