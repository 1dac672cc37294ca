#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""audit-compare: is every call strace saw in the sysgate trail?

  audit-compare.py SYSCALLS_C STRACE_PREFIX TRAIL [--expect NAME,...]

SYSCALLS_C is rules/syscalls.c: the syscalls sysgate mediates by pointer
argument (PATH, EXEC and NET kinds) and which arguments are their paths
or socket addresses are read from its table, so the comparison follows
the supervisor's own list.  STRACE_PREFIX is the -o file of
`strace -f -ff -xx -s 4096 -e trace=%file,%process,%network`; every
STRACE_PREFIX.<pid> file is read.

Each call becomes (syscall, paths as the program passed them, result)
where result is "ok" or the errno name; a socket address is its family
and address, with ports from 1024 up (ephemeral, different in each run)
written as "*".  A send without a destination (to the connected peer) is
not mediated by address and not compared.  Exit 0 when the two multisets are equal, 1 when a call
strace saw is missing from the trail, or the trail holds a call strace
did not see (a call recorded twice, or one that did not happen), 99 on
a harness error.  --expect lists syscalls that must occur at least once
(so the workload really exercised them).
"""

import collections
import glob
import json
import re
import sys

HARNESS = 99


def die(msg):
    print("audit-compare: " + msg, file=sys.stderr)
    sys.exit(HARNESS)


def mediated(path):
    """{name: ("path", [arg indexes]) or ("addr", [arg index])}"""
    try:
        src = open(path).read()
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    out = {}
    for m in re.finditer(r"PATH1\((\w+),\s*(\d+),", src):
        out[m.group(1)] = ("path", [int(m.group(2))])
    for m in re.finditer(r"PATH2\((\w+),\s*(\d+),\s*-?\d+,\s*(\d+),", src):
        out[m.group(1)] = ("path", [int(m.group(2)), int(m.group(3))])
    for m in re.finditer(r'\.name\s*=\s*"(\w+)",\s*\.nr\s*=\s*__NR_\w+,\s*'
                         r'\.kind\s*=\s*RULES_KIND_(EXEC|NET),(.*?)\.addrlen_arg',
                         src, re.S):
        body = m.group(3)
        if m.group(2) == "EXEC":
            p = re.search(r"\.path_arg\s*=\s*\{\s*(\d+)", body)
            out[m.group(1)] = ("path", [int(p.group(1))])
        else:
            a = int(re.search(r"\.addr_arg\s*=\s*(-?\d+)", body).group(1))
            # -1: the address is msg_name inside a struct msghdr (arg 1).
            out[m.group(1)] = ("addr", [a]) if a >= 0 else ("msg", [1])
    for need in ("openat", "execve", "connect", "rename", "unlink"):
        if need not in out:
            die("%s: no %s in the table (format changed?)" % (path, need))
    return out


def split_args(s):
    """Top-level comma-separated arguments of a strace call."""
    args, depth, cur, i, q = [], 0, [], 0, False
    while i < len(s):
        c = s[i]
        if q:
            cur.append(c)
            if c == "\\":
                cur.append(s[i + 1])
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur or args:
        args.append("".join(cur).strip())
    return args


def unquote(s):
    """Bytes of a -xx string: "\\x2f\\x74..." (maybe followed by ...)."""
    m = re.match(r'^@?"((?:\\x[0-9a-f]{2}|\\.|[^"\\])*)"', s)
    if not m:
        return None
    raw = m.group(1)
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw.startswith("\\x", i):
            out.append(int(raw[i + 2:i + 4], 16))
            i += 4
        elif raw[i] == "\\":
            out += {"n": b"\n", "t": b"\t", '"': b'"',
                    "\\": b"\\"}.get(raw[i + 1], raw[i + 1].encode())
            i += 2
        else:
            out += raw[i].encode()
            i += 1
    return bytes(out)


def port_key(port):
    return "*" if int(port) >= 1024 else str(int(port))


def strace_addr(a):
    fam = re.search(r"sa_family=(AF_\w+)", a)
    fam = fam.group(1) if fam else "?"
    if fam == "AF_INET":
        ip = re.search(r'inet_addr\(("[^"]*")\)', a)
        port = re.search(r"sin_port=htons\((\d+)\)", a)
        return (fam, unquote(ip.group(1)).decode(), port_key(port.group(1)))
    if fam == "AF_INET6":
        ip = re.search(r'inet_pton\(AF_INET6, ("[^"]*")', a)
        port = re.search(r"sin6_port=htons\((\d+)\)", a)
        return (fam, unquote(ip.group(1)).decode(), port_key(port.group(1)))
    if fam == "AF_UNIX":
        p = re.search(r'sun_path=(@?"[^"]*")', a)
        if not p:
            return (fam, "")
        kind = "abstract" if p.group(1).startswith("@") else "path"
        return (fam, kind, unquote(p.group(1)))
    return (fam,)


LINE = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(?:\s+(E[A-Z0-9]+))?")


def strace_calls(prefix, table):
    files = sorted(glob.glob(glob.escape(prefix) + ".*"))
    if not files:
        die("no strace output %s.*" % prefix)
    calls = collections.Counter()
    for name in files:
        for line in open(name, errors="replace"):
            m = LINE.match(line)
            if not m or m.group(1) not in table:
                continue
            sc, argtext, ret, err = m.groups()
            if ret == "?":
                continue  # interrupted and restarted: seen again later
            kind, idx = table[sc]
            args = split_args(argtext)
            if kind == "path":
                key = tuple(unquote(args[i]) if i < len(args) else None
                            for i in idx)
            else:
                a = args[idx[0]] if idx[0] < len(args) else ""
                if kind == "msg":
                    # The first destination (sendmmsg may have several).
                    m2 = re.search(r"msg_name=(NULL|\{[^}]*\})", a)
                    a = m2.group(1) if m2 else "NULL"
                if a == "NULL" and sc != "connect" and sc != "bind":
                    # A send without a destination goes to the connected
                    # peer: not mediated by address.
                    continue
                key = strace_addr(a)
            res = err if ret.startswith("-") else "ok"
            calls[(sc, key, res)] += 1
    return calls


def jbytes(obj, key):
    if key + "_hex" in obj:
        return bytes.fromhex(obj[key + "_hex"])
    v = obj.get(key)
    return v.encode("utf-8") if isinstance(v, str) else None


def trail_addr(a):
    if not isinstance(a, dict):
        return ()
    fam = a.get("family")
    if fam in ("AF_INET", "AF_INET6"):
        return (fam, a.get("ip"), port_key(a.get("port", 0)))
    if fam == "AF_UNIX":
        if "abstract" in a or "abstract_hex" in a:
            return (fam, "abstract", jbytes(a, "abstract"))
        p = jbytes(a, "path")
        return (fam, "path", p) if p else (fam, "")
    return (fam,)


def trail_calls(trail, table):
    recs = []
    by_seq = {}
    try:
        f = open(trail, "rb")
    except OSError as e:
        die("cannot read %s: %s" % (trail, e))
    # An allowed execve goes on to the kernel, so its record has no
    # result: it succeeded when the process's proc.exec follows, before
    # that thread makes another call.
    execing = {}
    with f:
        for raw in f:
            r = json.loads(raw)
            if r.get("type") == "syscall":
                prev = execing.pop(r.get("tid"), None)
                if prev is not None:
                    prev["errno"] = "no result recorded"
                by_seq[r["seq"]] = r
                recs.append(r)
                if (r.get("syscall") in ("execve", "execveat") and
                        "errno" not in r and "result" not in r):
                    execing[r.get("tid")] = r
            elif r.get("type") == "proc.exec":
                for tid, c in list(execing.items()):
                    if c.get("pid") == r.get("pid"):
                        c["result"] = 0
                        del execing[tid]
            elif r.get("type") == "syscall.result":
                c = by_seq.get(r.get("ref"))
                if c is not None:
                    c.update({k: r[k] for k in ("result", "errno") if k in r})
                    c.pop("pending", None)
    calls = collections.Counter()
    for r in recs:
        sc = r.get("syscall")
        if sc not in table:
            continue
        kind, idx = table[sc]
        args = r.get("args", {})
        if kind == "path":
            # The raw paths (what the program passed), present even when
            # the path could not be resolved; "target" of a symlink is not
            # one of them.
            names = ["oldpath", "newpath"] if len(idx) == 2 else ["path"]
            key = tuple(jbytes(args, n) for n in names)
        else:
            key = trail_addr(args.get("addr"))
        if "errno" in r:
            res = r["errno"]
        elif "result" in r:
            res = "ok"
        else:
            res = "no result recorded"
        calls[(sc, key, res)] += 1
    return calls


def show(k):
    sc, key, res = k
    parts = []
    for p in key:
        parts.append(p.decode("utf-8", "backslashreplace")
                     if isinstance(p, bytes) else str(p))
    return "%s(%s) = %s" % (sc, ", ".join(parts), res)


def main(argv):
    if len(argv) < 4:
        die("usage: audit-compare.py SYSCALLS_C STRACE_PREFIX TRAIL "
            "[--expect NAME,...]")
    table = mediated(argv[1])
    expect = []
    if len(argv) == 6 and argv[4] == "--expect":
        expect = argv[5].split(",")
    st = strace_calls(argv[2], table)
    tr = trail_calls(argv[3], table)
    missing = st - tr
    extra = tr - st
    per = collections.Counter()
    for (sc, _, _), n in st.items():
        per[sc] += n
    print("strace saw %d mediated calls (%s); the trail has %d" % (
        sum(st.values()),
        ", ".join("%s %d" % kv for kv in sorted(per.items())),
        sum(tr.values())))
    rc = 0
    for sc in expect:
        if per[sc] == 0:
            print("the workload made no %s call (strace saw none)" % sc)
            rc = 1
    if missing:
        rc = 1
        print("%d calls strace saw are NOT in the trail:" %
              sum(missing.values()))
        for k, n in sorted(missing.items(), key=repr)[:40]:
            print("  %dx %s" % (n, show(k)))
    if extra:
        rc = 1
        print("%d calls in the trail that strace did not see:" %
              sum(extra.values()))
        for k, n in sorted(extra.items(), key=repr)[:40]:
            print("  %dx %s" % (n, show(k)))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
