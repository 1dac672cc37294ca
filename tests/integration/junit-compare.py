#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""junit-compare: compare two JUnit XML reports of `python3 -m test
--junit-xml` (a native run and a run under sysgate), test by test.

  junit-compare.py NATIVE.xml SYSGATE.xml [--strip TEXT]...

Each test id (test.test_os.FileTests.test_access) has an outcome: pass,
fail, error or skip (with its reason).  The runs agree when they have the
same test ids with the same outcomes and, for skips, the same reasons
(after replacing each --strip TEXT, e.g. the run's temp dir, by <TMP>,
sysgate's private temp dir name sysgate-RUNID by sysgate-RUN, and the
pids in test file and dir names, @test_PID_ and test_python_PID, by N).
Prints one summary line per run, "pass=N fail=N error=N skip=N", then
every difference.  Exit 0 when they agree, 1 when they differ, 99 when a
report cannot be read or holds no test at all (a run that did nothing
must not compare equal to another that did nothing).
"""
import re
import sys
import xml.etree.ElementTree as ET


def outcomes(path, strips):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"junit-compare: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(99)
    res = {}
    for tc in root.iter("testcase"):
        name = tc.get("name")
        if not name:
            continue
        kind, why = "pass", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                kind = "fail" if child.tag == "failure" else "error"
                why = (child.get("message") or child.text or "").strip()
                break
            if child.tag == "skipped":
                kind = "skip"
                why = (child.get("message") or child.text or "").strip()
        for s in strips:
            why = why.replace(s, "<TMP>")
        why = re.sub(r"sysgate-\d{8}T\d{6}Z-[0-9a-f]{12}", "sysgate-RUN", why)
        why = re.sub(r"@test_\d+_", "@test_N_", why)
        why = re.sub(r"test_python_(worker_)?\d+", "test_python_N", why)
        if name in res:
            # The same id twice (a test run again): keep the worse.
            order = ["pass", "skip", "fail", "error"]
            if order.index(kind) <= order.index(res[name][0]):
                continue
        res[name] = (kind, why)
    if not res:
        print(f"junit-compare: {path} holds no test", file=sys.stderr)
        sys.exit(99)
    return res


def summary(res):
    n = {"pass": 0, "fail": 0, "error": 0, "skip": 0}
    for kind, _ in res.values():
        n[kind] += 1
    return " ".join(f"{k}={v}" for k, v in n.items())


def main(argv):
    strips = []
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--strip" and i + 1 < len(argv):
            if argv[i + 1]:
                strips.append(argv[i + 1])
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if len(files) != 2:
        print(__doc__, file=sys.stderr)
        return 99
    a = outcomes(files[0], strips)
    b = outcomes(files[1], strips)
    print(f"native:  {summary(a)}")
    print(f"sysgate: {summary(b)}")
    diffs = 0
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if x == y:
            continue
        diffs += 1
        show = lambda o: "(not run)" if o is None else (  # noqa: E731
            o[0] + (f" [{o[1][:300]}]" if o[1] else ""))
        print(f"DIFF {name}\n  native:  {show(x)}\n  sysgate: {show(y)}")
    if diffs:
        print(f"{diffs} test(s) differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
