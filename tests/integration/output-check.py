#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# output-check.py TRAIL WHAT [ARG...]: checks on the "output" records of
# a trail, for tests/integration/output.sh.  Exit 0 when the check holds,
# 1 (with the reason) when not.
#
#   stream TRAIL NAME FILE   the bytes of stream NAME's records, in seq
#                            order, are exactly FILE's
#   none TRAIL               no output record; run.start says off
#   how TRAIL FD HOW         run.start's output.FD is HOW
#   cap TRAIL FILE CAP       the records hold FILE's first CAP/2 bytes as
#                            they came and its last CAP/2 bytes deferred;
#                            run.end and the first deferred record count
#                            the bytes between as dropped
#   before-exit TRAIL TEXT   the record holding TEXT comes before the
#                            last proc.exit (and so before run.end)
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def data(r):
    if "data_hex" in r:
        return bytes.fromhex(r["data_hex"])
    return r["data"].encode("utf-8")


def fail(msg):
    print(msg)
    sys.exit(1)


def main():
    what, recs = sys.argv[2], load(sys.argv[1])
    outs = [r for r in recs if r["type"] == "output"]
    start = next(r for r in recs if r["type"] == "run.start")
    end = recs[-1]
    if end["type"] != "run.end":
        fail("the trail does not end with run.end")
    for r in outs:
        if r["seq"] > end["seq"] or len(data(r)) != r["bytes"]:
            fail("bad output record %d" % r["seq"])
        if not r.get("time") or r["stream"] not in ("stdout", "stderr",
                                                    "stdout+stderr"):
            fail("output record %d lacks time or stream" % r["seq"])
    if what == "stream":
        name, want = sys.argv[3], open(sys.argv[4], "rb").read()
        got = b"".join(data(r) for r in outs if r["stream"] == name)
        if got != want:
            fail("%s: %d bytes recorded, %d expected (first diff at %d)" % (
                name, len(got), len(want),
                next((i for i in range(min(len(got), len(want)))
                      if got[i] != want[i]), min(len(got), len(want)))))
    elif what == "none":
        if outs:
            fail("%d output records" % len(outs))
        if start["output"] != {"stdout": "off", "stderr": "off", "cap": 0}:
            fail("run.start output: %r" % start["output"])
    elif what == "how":
        if start["output"].get(sys.argv[3]) != sys.argv[4]:
            fail("run.start output: %r" % start["output"])
    elif what == "cap":
        want, cap = open(sys.argv[3], "rb").read(), int(sys.argv[4])
        now = b"".join(data(r) for r in outs if not r.get("deferred"))
        late = [r for r in outs if r.get("deferred")]
        tail = b"".join(data(r) for r in late)
        dropped = len(want) - cap
        if now != want[:cap // 2]:
            fail("head: %d bytes, not the first %d" % (len(now), cap // 2))
        if tail != want[-(cap - cap // 2):]:
            fail("tail: %d bytes, not the last %d" % (len(tail), cap // 2))
        if end["output"]["dropped"] != dropped:
            fail("run.end output: %r, %d dropped" % (end["output"], dropped))
        if late[0].get("dropped_before") != dropped:
            fail("first deferred record: %r" % late[0])
        if any(r.get("time", "") > end["ts"] for r in late):
            fail("a deferred record read after run.end")
    elif what == "before-exit":
        text = sys.argv[3].encode()
        hold = [r for r in outs if text in data(r)]
        exits = [r["seq"] for r in recs if r["type"] == "proc.exit"]
        if not hold:
            fail("no output record holds %r" % text)
        if not exits or hold[0]["seq"] > max(exits):
            fail("record %d after the last proc.exit %s" % (
                hold[0]["seq"], max(exits) if exits else None))
    else:
        fail("unknown check " + what)


main()
