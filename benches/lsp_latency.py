#!/usr/bin/env python3
"""Typing latency of `arbiter lsp` (release binary): the time from a
`didChange` to the `publishDiagnostics` of that version, edit after edit
(each edit waits for the previous one's diagnostics, as a typist who reads
them would), on the largest bundled rule file and on a 5,000-line file.

Usage: benches/lsp_latency.py [EDITS]   (default 60; prints median and max)
Build first: cargo build --release
"""
import json, os, subprocess, sys, threading, time, queue

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "arbiter")


class Server:
    def __init__(self):
        self.p = subprocess.Popen([BIN, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.q = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        f = self.p.stdout
        while True:
            line = f.readline()
            if not line:
                return
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":")[1])
                f.readline()
                self.q.put((time.perf_counter(), json.loads(f.read(n))))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def wait(self, pred):
        while True:
            t, m = self.q.get(timeout=60)
            if pred(m):
                return t, m


def measure(name, uri, text, edits):
    s = Server()
    s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    s.wait(lambda m: m.get("id") == 1)
    s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "arbiter", "version": 1, "text": text}}})
    pub = lambda v: lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == v
    s.wait(pub(1))
    lat = []
    lines = text.split("\n")
    i = len(lines) // 2
    orig = lines[i]
    for v in range(2, edits + 2):
        # A comment typed and removed at the end of a line in the middle.
        lines[i] = orig + ("  # x" if v % 2 == 0 else "")
        body = "\n".join(lines)
        t0 = time.perf_counter()
        s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": body}]}})
        t1, _ = s.wait(pub(v))
        lat.append((t1 - t0) * 1000)
    s.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    s.wait(lambda m: m.get("id") == 2)
    s.send({"jsonrpc": "2.0", "method": "exit"})
    s.p.wait(timeout=10)
    lat.sort()
    print(f"{name:40s} {len(text.splitlines()):6d} lines  median {lat[len(lat) // 2]:7.2f} ms  max {lat[-1]:7.2f} ms")


def five_thousand_lines():
    """A covering game with a long commentary and many groups: 5,000 lines."""
    base = open(os.path.join(ROOT, "rules", "snooker_referee.rules")).read()
    out = base.rstrip("\n").split("\n")
    k = 0
    while len(out) < 5000:
        out.append(f"# note {k}: a line of commentary of the kind a long rule file carries")
        k += 1
    return "\n".join(out) + "\n"


def main():
    edits = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    sizes = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "rules")):
        for f in files:
            if f.endswith(".rules"):
                p = os.path.join(dirpath, f)
                sizes.append((os.path.getsize(p), p))
    largest = max(sizes)[1]
    measure(os.path.relpath(largest, ROOT), "file://" + largest, open(largest).read(), edits)
    p = os.path.join(ROOT, "rules", "snooker_referee-5000.rules")
    measure("5,000 lines (snooker_referee + comments)", "file://" + p, five_thousand_lines(), edits)


if __name__ == "__main__":
    main()
