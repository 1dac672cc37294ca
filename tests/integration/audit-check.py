#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""audit-check: checks of a sysgate audit trail for the audit-* tests.
Exit 0 when the check holds, 1 when it does not (with details on stdout),
99 on a harness error (bad usage, unreadable file).

  audit-check.py lines TRAIL
      Every complete line (ended by a newline) is a JSON object with seq,
      ts, run, type and hash, and seq runs 1..N.  Prints "N complete, last
      line partial|whole".

  audit-check.py creates TRAIL DIR
      Every file now in DIR has a syscall record whose paths[] names it
      (resolved path) with access "create" and action "allow": nothing
      created was left unrecorded.  Prints how many files and records.

  audit-check.py load TRAIL DIR NTHREADS COUNT
      The trail holds exactly one open/openat record for each DIR/tT-I
      (T < NTHREADS, I < COUNT), and for each thread T they come in the
      order I = 0, 1, ..., COUNT-1, all from one tid per T.

  audit-check.py synth OUT
      Write a synthetic, correctly chained trail with records the
      supervisor may not produce today (stacks, limits, a pending call
      without its result, hostile strings), for the report tests.
"""

import hashlib
import json
import os
import re
import sys

HARNESS = 99


def die(msg):
    print("audit-check: " + msg, file=sys.stderr)
    sys.exit(HARNESS)


def read_lines(trail):
    try:
        with open(trail, "rb") as f:
            data = f.read()
    except OSError as e:
        die("cannot read %s: %s" % (trail, e))
    partial = bool(data) and not data.endswith(b"\n")
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    return lines, (tail if partial else None)


def records(trail):
    """The parsed complete lines, one at a time (fails the check on a bad
    one); a partial last line is left out."""
    try:
        f = open(trail, "rb")
    except OSError as e:
        die("cannot read %s: %s" % (trail, e))
    with f:
        for n, raw in enumerate(f, 1):
            if not raw.endswith(b"\n"):
                break
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                print("line %d does not parse: %s: %r" % (n, e, raw[:200]))
                sys.exit(1)
            yield obj


def calls(trail):
    """The syscall records (a call recorded before it was carried out has
    "pending": true and its result in a later syscall.result record; the
    checks here need the decision, not the result)."""
    for r in records(trail):
        if r.get("type") == "syscall":
            yield r


def jbytes(obj, key):
    """Exact bytes of an audit_bytes member (key_hex preferred)."""
    if key + "_hex" in obj:
        return bytes.fromhex(obj[key + "_hex"])
    v = obj.get(key)
    return v.encode("utf-8") if isinstance(v, str) else None


def cmd_lines(trail):
    lines, tail = read_lines(trail)
    seq = 0
    for n, raw in enumerate(lines, 1):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            print("line %d does not parse: %s" % (n, e))
            return 1
        if not isinstance(obj, dict):
            print("line %d is not an object" % n)
            return 1
        for k in ("seq", "ts", "run", "type", "hash"):
            if k not in obj:
                print("line %d has no %s" % (n, k))
                return 1
        if obj["seq"] == 1:
            seq = 0
        if obj["seq"] != seq + 1:
            print("line %d: seq %s after %d" % (n, obj["seq"], seq))
            return 1
        seq = obj["seq"]
    print("%d complete, last line %s" % (len(lines),
                                         "partial" if tail else "whole"))
    return 0


def cmd_creates(trail, d):
    d = os.path.realpath(d)
    created = set()
    nrec = 0
    for c in calls(trail):
        nrec += 1
        if c.get("action") != "allow":
            continue
        for p in c.get("paths", []):
            if p.get("access") == "create" and p.get("action") == "allow":
                created.add(jbytes(p, "path"))
    files = sorted(os.listdir(d))
    missing = [f for f in files
               if os.path.join(d, f).encode() not in created]
    print("%d files in %s, %d create records in %d syscall records" %
          (len(files), d, len(created), nrec))
    if missing:
        print("%d files exist WITHOUT an allowed create record, e.g.:" %
              len(missing))
        for f in missing[:10]:
            print("  " + os.path.join(d, f))
        return 1
    return 0


def cmd_load(trail, d, nthreads, count):
    d = os.path.realpath(d)
    pat = re.compile(r"^" + re.escape(d) + r"/t(\d+)-(\d+)$")
    nxt = [0] * nthreads
    tids = [None] * nthreads
    errors = []
    n = 0
    nrec = 0
    for c in calls(trail):
        nrec += 1
        if c.get("syscall") not in ("open", "openat", "openat2", "creat"):
            continue
        raw = c.get("args", {}).get("path")
        m = pat.match(raw) if isinstance(raw, str) else None
        if not m:
            continue
        n += 1
        t, i = int(m.group(1)), int(m.group(2))
        if t >= nthreads:
            errors.append("record %s: thread %d out of range" %
                          (c.get("seq"), t))
            continue
        if tids[t] is None:
            tids[t] = c.get("tid")
        elif tids[t] != c.get("tid"):
            errors.append("record %s: t%d-%d from tid %s, not %s" %
                          (c.get("seq"), t, i, c.get("tid"), tids[t]))
        if i != nxt[t]:
            errors.append("record %s: t%d-%d where t%d-%d was due "
                          "(%s)" % (c.get("seq"), t, i, t, nxt[t],
                                    "missing" if i > nxt[t]
                                    else "repeated or out of order"))
        nxt[t] = max(nxt[t], i + 1)
    for t in range(nthreads):
        if nxt[t] != count:
            errors.append("thread %d: last record t%d-%d, expected "
                          "t%d-%d" % (t, t, nxt[t] - 1, t, count - 1))
    print("%d matching records of %d expected, %d syscall records" %
          (n, nthreads * count, nrec))
    if n != nthreads * count:
        errors.append("%d records, expected exactly %d" %
                      (n, nthreads * count))
    for e in errors[:20]:
        print("  " + e)
    return 1 if errors else 0


def blake(prev, body):
    return hashlib.blake2b(prev + body, digest_size=32).digest()


def cmd_synth(out):
    run = "synthetic-run"
    t = "2026-01-02T03:04:%02d.%06dZ"
    esc = "\x1b[31mred\x1b[0m<b>bold</b>&\u202eevil"
    recs = [
        ("run.start", {"version": "0", "command": ["sh", "-c", esc],
                       "cwd": "/w", "host": "h", "policy": "p.ini",
                       "audit_level": "all"}),
        ("proc.fork", {"pid": 10, "tid": 10, "ppid": 1, "kind": "fork"}),
        ("proc.exec", {"pid": 10, "tid": 10, "path": "/bin/sh",
                       "argv": ["sh", "-c", esc]}),
        ("proc.fork", {"pid": 10, "tid": 11, "ppid": 10,
                       "kind": "thread"}),
        ("proc.fork", {"pid": 12, "tid": 12, "ppid": 10, "kind": "fork"}),
        ("proc.exec", {"pid": 12, "tid": 12, "path": "/bin/victim",
                       "argv": ["victim", {"text": "a\ufffd",
                                           "hex": "61ff"}]}),
        ("syscall", {"pid": 12, "tid": 12, "exe": "/bin/victim",
                     "syscall": "openat",
                     "args": {"dirfd": "AT_FDCWD", "path": esc,
                              "flags": "O_RDONLY"},
                     "paths": [{"arg": "path", "path": "/w/" + esc,
                                "access": "read", "rule": "no-secrets",
                                "action": "deny"}],
                     "rule": "no-secrets", "action": "deny",
                     "errno": "EACCES",
                     "stack": [
                         {"ip": "0x7f0000001234", "module": "/lib/libc.so.6",
                          "symbol": "__open64", "offset": 27},
                         {"ip": "0x55550000abcd", "module": "/bin/victim",
                          "symbol": "level3", "offset": 9},
                         {"ip": "0x55550000beef", "module": "/bin/victim"}]}),
        ("syscall", {"pid": 12, "tid": 12, "exe": "/bin/victim",
                     "syscall": "connect",
                     "args": {"fd": 3, "addr": {"family": "AF_INET",
                                                "ip": "10.1.2.3",
                                                "port": 443}},
                     "rule": "no-net\x1b[2J", "action": "deny",
                     "errno": "ENETUNREACH"}),
        ("syscall", {"pid": 12, "tid": 12, "exe": "/bin/victim",
                     "syscall": "unlinkat",
                     "args": {"dirfd": "AT_FDCWD", "path": "gone"},
                     "paths": [{"arg": "path", "path": "/w/gone",
                                "access": "delete", "rule": "w",
                                "action": "allow"}],
                     "rule": "w", "action": "allow", "pending": True}),
        ("limit", {"pid": 12, "limit": "processes", "value": 64,
                   "action": "fork failed with EAGAIN"}),
        ("proc.exit", {"pid": 12, "tid": 12, "signal": "SIGKILL",
                       "duration_ms": 5}),
        ("proc.exit", {"pid": 10, "tid": 11, "thread": True, "code": 0}),
        ("proc.exit", {"pid": 10, "tid": 10, "code": 2, "duration_ms": 9}),
    ]
    prev = bytes(32)
    lines = []
    seq = 0
    for seq, (typ, members) in enumerate(recs, 1):
        obj = {"seq": seq, "ts": t % (seq, seq * 1000), "run": run,
               "type": typ}
        obj.update(members)
        body = json.dumps(obj, ensure_ascii=False,
                          separators=(",", ":"))[:-1].encode()
        h = blake(prev, body)
        lines.append(body + b',"hash":"' + h.hex().encode() + b'"}')
        prev = h
    seq += 1
    obj = {"seq": seq, "ts": t % (seq, 0), "run": run, "type": "run.end",
           "exit": 2, "status": "exited", "final_hash": prev.hex()}
    body = json.dumps(obj, separators=(",", ":"))[:-1].encode()
    h = blake(prev, body)
    lines.append(body + b',"hash":"' + h.hex().encode() + b'"}')
    with open(out, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "lines":
        return cmd_lines(argv[2])
    if len(argv) == 4 and argv[1] == "creates":
        return cmd_creates(argv[2], argv[3])
    if len(argv) == 6 and argv[1] == "load":
        return cmd_load(argv[2], argv[3], int(argv[4]), int(argv[5]))
    if len(argv) == 3 and argv[1] == "synth":
        return cmd_synth(argv[2])
    die("usage: see the top of " + argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
