#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""auditq: ask a sysgate audit trail (JSON Lines) a question; exit 0 if the
answer is yes, 1 if no, 99 if the question or the trail cannot be read.

  auditq.py TRAIL [--valid|--chain] [QUERY [--next QUERY]...]
  auditq.py TRAIL --dump QUERY

QUERY: FILTERS [--count N | --min N | --max N] [--after-type T]
All queries (and --valid) must hold for exit 0.

FILTERS (all must hold for a record to match):
  --type T          record type (run.start, proc.exec, syscall, ...)
  --syscall NAME    syscall name
  --path P          P is one of the record's paths: paths[].path, a string
                    in args, proc.exec's path, addr.path (bytes compared,
                    so invalid UTF-8 escaped as \\u00XX matches too)
  --path-prefix P   some path starts with P
  --access A        some paths[] entry has access A
  --action A        action (allow, deny, kill)
  --rule R          deciding rule name; "null" for the default
  --errno E         errno name (EACCES)
  --pid N, --ppid N, --not-pid N
  --thread yes|no   the caller is (not) a secondary thread (tid != pid)
  --exe P           the caller's exe
  --argv JSON       proc.exec argv equals this JSON list
  --argv0 S         proc.exec argv[0]
  --ip IP, --port N, --family F   the syscall's addr (in the record or
                    in its args)
  --exit N          run.end exit
  --code N, --signal S            proc.exit code / signal (number or name)
  --field K=JSON    dotted key K (a.b.0.c) equals the JSON value
  --has K           dotted key K is present
  --after-type T    only records after the first record of type T
Default when nothing is counted: at least one record matches (--min 1).

--valid: every line is a JSON object with seq, ts, run, type, hash; seq runs
1..N; ts is RFC 3339 UTC; one run id; run.start first, run.end last.
--partial: --valid for a trail cut short (supervisor killed): no run.end needed.
--chain: also check hash = hex(BLAKE2b-256(prev_raw || line before ',"hash"')).
"""

import hashlib
import json
import os
import re
import signal
import sys

HARNESS_ERROR = 99


def die(msg):
    print("auditq: " + msg, file=sys.stderr)
    sys.exit(HARNESS_ERROR)


def load(trail):
    """Return [(raw_line_bytes, obj_or_None, error)]."""
    try:
        with open(trail, "rb") as f:
            data = f.read()
    except OSError as e:
        die("cannot read %s: %s" % (trail, e))
    out = []
    # A last line made only of zero bytes is space the writer reserved and
    # had not written yet (sysgate-audit(5)): the trail ends before it.
    tail = data[data.rfind(b"\n") + 1:]
    if tail and tail.count(0) == len(tail):
        data = data[: len(data) - len(tail)]
    if data and not data.endswith(b"\n"):
        out_tail_error = "last line is not terminated by a newline"
    else:
        out_tail_error = None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for raw in lines:
        try:
            obj = json.loads(raw.decode("utf-8"))
            err = None if isinstance(obj, dict) else "not a JSON object"
        except (UnicodeDecodeError, ValueError) as e:
            obj, err = None, str(e)
        out.append((raw, obj, err))
    if out_tail_error and out:
        raw, obj, err = out[-1]
        out[-1] = (raw, obj, err or out_tail_error)
    return out


def exact(v):
    """Undo the trail's encoding of tracee bytes that are not UTF-8
    (audit/FORMAT.txt, STRINGS): "KEY_hex" next to "KEY", {"text","hex"}
    inside arrays.  The exact bytes come back as a str holding them
    through surrogateescape, so os.fsencode() gives the bytes again."""
    if isinstance(v, list):
        return [exact(x) for x in v]
    if not isinstance(v, dict):
        return v
    if set(v) == {"text", "hex"} or set(v) == {"text", "hex", "truncated"}:
        try:
            return os.fsdecode(bytes.fromhex(v["hex"]))
        except (TypeError, ValueError):
            return v
    out = {}
    for k, x in v.items():
        h = v.get(k + "_hex")
        if isinstance(x, str) and isinstance(h, str):
            try:
                out[k] = os.fsdecode(bytes.fromhex(h))
                continue
            except ValueError:
                pass
        out[k] = exact(x)
    return out


def to_bytes(s):
    """The bytes a JSON string stands for: UTF-8, or, for a string that
    only holds code points < 256 (invalid bytes escaped as \\u00XX), the
    bytes themselves.  Returns a set of candidates."""
    c = {s.encode("utf-8", "surrogateescape")}
    try:
        c.add(s.encode("latin-1"))
    except UnicodeEncodeError:
        pass
    return c


def addr_of(rec):
    """The socket address of a connect/bind record: "addr" in the record
    or in its args."""
    a = rec.get("addr")
    if not isinstance(a, dict) and isinstance(rec.get("args"), dict):
        a = rec["args"].get("addr")
    return a if isinstance(a, dict) else {}


def paths_of(rec):
    ps = []
    for p in rec.get("paths") or []:
        if isinstance(p, dict) and isinstance(p.get("path"), str):
            ps.append(p["path"])
    args = rec.get("args")
    if isinstance(args, dict):
        for v in args.values():
            if isinstance(v, str):
                ps.append(v)
            elif isinstance(v, dict) and isinstance(v.get("path"), str):
                ps.append(v["path"])
    for k in ("path", "exe"):
        if rec.get("type") != "syscall" and isinstance(rec.get(k), str):
            ps.append(rec[k])
    addr = addr_of(rec)
    if isinstance(addr.get("path"), str):
        ps.append(addr["path"])
    return ps


def dotted(rec, key):
    cur = rec
    for part in key.split("."):
        if isinstance(cur, list):
            try:
                cur = cur[int(part)]
            except (ValueError, IndexError):
                raise KeyError(key)
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise KeyError(key)
    return cur


def signum(s):
    if isinstance(s, int):
        return s
    s = str(s)
    if s.isdigit():
        return int(s)
    name = s if s.startswith("SIG") else "SIG" + s
    try:
        return int(getattr(signal, name))
    except AttributeError:
        return None


def make_filter(opts):
    tests = []

    def eq(key, val, conv=str):
        tests.append(lambda r, k=key, v=val: k in r and r[k] is not None
                     and conv(r[k]) == v)

    for name, val in opts:
        if name == "type":
            eq("type", val)
        elif name == "syscall":
            eq("syscall", val)
        elif name == "action":
            eq("action", val)
        elif name == "errno":
            eq("errno", val)
        elif name == "pid":
            eq("pid", int(val), int)
        elif name == "ppid":
            eq("ppid", int(val), int)
        elif name == "not-pid":
            tests.append(lambda r, v=int(val): "pid" in r and r["pid"] != v)
        elif name == "thread":
            if val not in ("yes", "no"):
                die("--thread yes|no")
            tests.append(lambda r, v=(val == "yes"): "pid" in r and "tid" in r
                         and (r["pid"] != r["tid"]) == v)
        elif name == "exe":
            eq("exe", val)
        elif name == "exit":
            eq("exit", int(val), int)
        elif name == "code":
            eq("code", int(val), int)
        elif name == "signal":
            tests.append(lambda r, v=signum(val): "signal" in r
                         and signum(r["signal"]) == v)
        elif name == "rule":
            if val == "null":
                tests.append(lambda r: "rule" in r and r["rule"] is None)
            else:
                eq("rule", val)
        elif name == "path":
            want = os.fsencode(val)
            tests.append(lambda r, w=want: any(w in to_bytes(p)
                                               for p in paths_of(r)))
        elif name == "path-prefix":
            want = os.fsencode(val)
            tests.append(lambda r, w=want: any(
                any(b.startswith(w) for b in to_bytes(p))
                for p in paths_of(r)))
        elif name == "access":
            tests.append(lambda r, v=val: any(
                isinstance(p, dict) and p.get("access") == v
                for p in r.get("paths") or []))
        elif name == "argv":
            want = json.loads(val)
            tests.append(lambda r, w=want: r.get("argv") == w)
        elif name == "argv0":
            tests.append(lambda r, v=val: isinstance(r.get("argv"), list)
                         and r["argv"][:1] == [v])
        elif name in ("ip", "family"):
            tests.append(lambda r, k=name, v=val: str(addr_of(r).get(k)) == v)
        elif name == "port":
            tests.append(lambda r, v=int(val): addr_of(r).get("port") == v)
        elif name == "field":
            if "=" not in val:
                die("--field wants KEY=JSON")
            k, j = val.split("=", 1)
            try:
                want = json.loads(j)
            except ValueError:
                die("--field %s: bad JSON %r" % (k, j))

            def t(r, k=k, w=want):
                try:
                    return dotted(r, k) == w
                except KeyError:
                    return False
            tests.append(t)
        elif name == "has":
            def h(r, k=val):
                try:
                    dotted(r, k)
                    return True
                except KeyError:
                    return False
            tests.append(h)
        else:
            die("unknown filter --" + name)
    return lambda r: all(t(r) for t in tests)


RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]00:00)$")


def check_valid(recs, chain, partial=False):
    bad = []
    if not recs:
        return ["the trail is empty"]
    run = None
    prev = bytes(32)
    for i, (raw, obj, err) in enumerate(recs, 1):
        where = "line %d" % i
        if err:
            bad.append("%s: not valid JSON (%s): %r" % (where, err, raw[:200]))
            continue
        for k in ("seq", "ts", "run", "type", "hash"):
            if k not in obj:
                bad.append("%s: no %r" % (where, k))
        if obj.get("seq") != i:
            bad.append("%s: seq is %r, expected %d" % (where, obj.get("seq"), i))
        if not isinstance(obj.get("ts"), str) or not RFC3339.match(obj["ts"]):
            bad.append("%s: ts %r is not RFC 3339 UTC" % (where, obj.get("ts")))
        if run is None:
            run = obj.get("run")
        elif obj.get("run") != run:
            bad.append("%s: run %r differs from %r" % (where, obj.get("run"), run))
        if list(obj.keys())[-1:] != ["hash"]:
            bad.append("%s: hash is not the last key" % where)
        if chain:
            cut = raw.rfind(b',"hash"')
            if cut < 0:
                bad.append("%s: no ,\"hash\" to cut at" % where)
                continue
            h = hashlib.blake2b(prev + raw[:cut], digest_size=32).digest()
            if obj.get("hash") != h.hex():
                bad.append("%s: hash %s, expected %s"
                           % (where, obj.get("hash"), h.hex()))
                break
            prev = h
    objs = [o for _, o, e in recs if not e]
    if objs and objs[0].get("type") != "run.start":
        bad.append("first record is %r, not run.start" % objs[0].get("type"))
    if sum(1 for o in objs if o.get("type") == "run.start") != 1:
        bad.append("not exactly one run.start")
    if partial:
        return bad
    if objs and objs[-1].get("type") != "run.end":
        bad.append("last record is %r, not run.end" % objs[-1].get("type"))
    if sum(1 for o in objs if o.get("type") == "run.end") != 1:
        bad.append("not exactly one run.end")
    return bad


def short(rec):
    keep = {k: v for k, v in rec.items() if k not in ("ts", "run", "hash")}
    s = json.dumps(keep, ensure_ascii=True)
    return s if len(s) < 400 else s[:400] + "..."


def parse_group(args):
    """One query: filters plus a count condition."""
    q = {"opts": [], "count": None, "min": None, "max": None, "after": None}
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("--") or i + 1 >= len(args):
            die("bad query argument %r (filters are --NAME VALUE)" % a)
        name, val = a[2:], args[i + 1]
        i += 2
        if name in ("count", "min", "max"):
            try:
                q[name] = int(val)
            except ValueError:
                die("--%s wants a number, not %r" % (name, val))
        elif name == "after-type":
            q["after"] = val
        else:
            q["opts"].append((name, val))
    return q


def run_query(trail, objs, q, dump):
    if q["after"] is not None:
        idx = next((n for n, o in enumerate(objs)
                    if o.get("type") == q["after"]), None)
        objs = [] if idx is None else objs[idx + 1:]
    try:
        match = make_filter(q["opts"])
    except ValueError as e:
        die(str(e))
    hits = [o for o in objs if match(o)]
    if dump:
        for o in hits:
            print(json.dumps(o, ensure_ascii=True))
        return True
    n = len(hits)
    count, cmin, cmax = q["count"], q["min"], q["max"]
    if count is not None:
        ok = n == count
        want = "exactly %d" % count
    else:
        lo = 1 if cmin is None and cmax is None else (cmin or 0)
        ok = n >= lo and (cmax is None or n <= cmax)
        want = "at least %d" % lo + ("" if cmax is None else ", at most %d" % cmax)
    if ok:
        return True
    desc = " ".join("--%s %s" % (k, v) for k, v in q["opts"])
    print("auditq: %s: %d record(s) match [%s], expected %s"
          % (trail, n, desc, want), file=sys.stderr)
    shown = hits if hits else [o for o in objs if o.get("type") == "syscall"
                               or o.get("type", "").startswith("proc.")]
    label = "matching" if hits else "syscall/proc records in the trail"
    print("auditq: %s (up to 25):" % label, file=sys.stderr)
    for o in shown[:25]:
        print("  " + short(o), file=sys.stderr)
    if len(shown) > 25:
        print("  ... %d more" % (len(shown) - 25), file=sys.stderr)
    return False


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return HARNESS_ERROR
    trail = argv[1]
    valid = chain = dump = partial = False
    groups, cur = [], []
    for a in argv[2:]:
        if a == "--valid":
            valid = True
        elif a == "--chain":
            valid = chain = True
        elif a == "--partial":
            valid = partial = True
        elif a == "--dump":
            dump = True
        elif a == "--next":
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    groups.append(cur)
    queries = [parse_group(g) for g in groups if g]
    if not queries and not valid:
        queries = [parse_group([])]

    recs = load(trail)
    ok = True
    if valid:
        bad = check_valid(recs, chain, partial)
        if bad:
            print("auditq: %s is not a valid trail:" % trail, file=sys.stderr)
            for b in bad[:20]:
                print("  " + b, file=sys.stderr)
            ok = False
    objs = [exact(o) for _, o, e in recs if not e]
    for q in queries:
        ok = run_query(trail, objs, q, dump) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
