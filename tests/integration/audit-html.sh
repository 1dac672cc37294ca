#!/bin/bash
# SPDX-License-Identifier: MIT
# The HTML report in a real browser.  `sysgate report --html` of a run with
# a few processes, two denials and files named to attack the page
# ("<img src=x onerror=...>", "x</script><script>...", U+2028) is opened
# in headless Chromium (Debian's chromium package), driven over the
# DevTools protocol by html-browser.py: findings first and the very ones
# of --json, one tree node per process, a real click on the process that
# read the secret shows its calls only, in order, with the denied read; a
# finding opens its process at its record;
# typed search text leaves only matching rows; the outcome and kind
# filters; loader noise folded until unfolded; the hostile names show as
# text and run nothing; nothing is fetched; no script error.  Screenshots
# (png-colors.py): the first screen is a real picture, the timeline has
# the blue bars and the red denial marks.  The file itself: no external
# URL, the JSON block cannot be closed by the trail, no raw U+2028; only
# loader paths folded, nothing with --all; a page of a run too large for
# it says how many calls it left out.  A crafted trail where pid 200 is
# reused: two tree nodes, a real click on each shows only its own records,
# its findings open the right one; the page shows DNS names, bound ports,
# paths as passed, final sizes, a would-deny call and the output before a
# finding.  Skips (77)
# without /usr/bin/chromium.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || sg_skip_all "no $CHROMIUM (apt-get install chromium)"

# chromium ARGS...: headless, no network, no profile of ours touched.
chromium() {
	local prof
	prof=$(mktemp -d "$T/chromium.XXXXXX")
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$prof" "$@" </dev/null
}

# shot NAME PNG MIN-RED MIN-BLUE: a screenshot shows what it should.
shot() {
	if $PY "$SG_LIB_DIR/png-colors.py" "$2" "$3" "$4" >"$R/$1.out" 2>&1; then
		SG_ERR='' sg_report_pass "$1"
	else
		SG_ERR='' sg_report_fail "$1" "$(cat "$R/$1.out")" "screenshot: $2"
	fi
	sed 's/^/#   /' "$R/$1.out"
}

# A trail too large for one page: run.start, N openat calls, run.end (not
# chained: the report warns and goes on).
big_trail() {
	$PY - "$1" <<'EOF'
import json, sys
n = int(sys.argv[1])
recs = [{"type": "run.start", "run": "big", "seq": 1,
         "ts": "2026-01-01T00:00:00.000000Z", "command": ["big"], "cwd": "/w"}]
for i in range(n):
    recs.append({"type": "syscall", "run": "big", "seq": i + 2,
                 "ts": "2026-01-01T00:00:01.%06dZ" % i, "pid": 7, "tid": 7,
                 "syscall": "openat", "action": "allow",
                 "args": {"path": "/w/f%d" % i}, "result": 3})
recs.append({"type": "run.end", "run": "big", "seq": n + 2,
             "ts": "2026-01-01T00:00:02.000000Z", "exit": 0,
             "status": "exited"})
for r in recs:
    print(json.dumps(r))
EOF
}

# A crafted trail where the kernel reused a pid: pid 200 runs "first",
# exits, and a new process 200 runs "second" (a real run cannot choose
# its pids).  Its calls carry what the page must show: a path as passed,
# a call the policy would deny (permissive), a DNS query, a bind's port,
# the command's stderr, the files' final sizes (one empty).
reuse_trail() {
	$PY - <<'EOF'
import json
T = "2026-01-01T00:00:%02d.000000Z"
recs = [
    {"type": "run.start", "command": ["sh", "-c", "x"], "cwd": "/w",
     "home": "/h", "mode": "permissive"},
    {"type": "proc.fork", "pid": 100, "tid": 100, "ppid": 1, "kind": "fork"},
    {"type": "proc.exec", "pid": 100, "tid": 100, "path": "/bin/sh",
     "argv": ["sh", "-c", "x"]},
    {"type": "proc.fork", "pid": 200, "tid": 200, "ppid": 100, "kind": "fork"},
    {"type": "proc.exec", "pid": 200, "tid": 200, "path": "/usr/bin/first",
     "argv": ["first"]},
    {"type": "syscall", "pid": 200, "tid": 200, "exe": "/usr/bin/first",
     "syscall": "openat", "action": "allow", "rule": "w",
     "args": {"dirfd": "AT_FDCWD", "path": "one.txt", "flags": "O_WRONLY|O_CREAT"},
     "paths": [{"arg": "path", "path": "/w/one.txt", "path_arg": "one.txt",
                "relative_to": "/w", "access": "create"}], "result": 3},
    {"type": "output", "stream": "stderr", "time": T % 6, "bytes": 17,
     "data": "first: wrote one\n"},
    {"type": "proc.exit", "pid": 200, "tid": 200, "code": 0},
    {"type": "proc.fork", "pid": 200, "tid": 200, "ppid": 100, "kind": "fork"},
    {"type": "proc.exec", "pid": 200, "tid": 200, "path": "/usr/bin/second",
     "argv": ["second"]},
    {"type": "syscall", "pid": 200, "tid": 200, "exe": "/usr/bin/second",
     "syscall": "openat", "action": "allow", "rule": "no-two",
     "would_deny": True, "would": "deny",
     "args": {"dirfd": "AT_FDCWD", "path": "two.txt", "flags": "O_WRONLY|O_CREAT"},
     "paths": [{"arg": "path", "path": "/w/two.txt", "path_arg": "two.txt",
                "relative_to": "/w", "access": "create"}], "result": 3},
    {"type": "syscall", "pid": 200, "tid": 200, "exe": "/usr/bin/second",
     "syscall": "sendto", "action": "allow", "rule": "net",
     "args": {"fd": 4, "addr": {"family": "AF_INET", "ip": "127.0.0.1", "port": 53}},
     "dns": {"name": "sales.example.test", "type": "A", "class": "IN", "id": 7},
     "result": 36},
    {"type": "syscall", "pid": 200, "tid": 200, "exe": "/usr/bin/second",
     "syscall": "bind", "action": "allow", "rule": "net", "pending": True,
     "args": {"fd": 5, "addr": {"family": "AF_INET", "ip": "127.0.0.1", "port": 0}}},
    {"type": "syscall.result", "ref": 13, "result": 0,
     "bound": {"family": "AF_INET", "ip": "127.0.0.1", "port": 40123}},
    {"type": "output", "stream": "stderr", "time": T % 15, "bytes": 18,
     "data": "second: giving up\n"},
    {"type": "proc.exit", "pid": 200, "tid": 200, "code": 2},
    {"type": "proc.exit", "pid": 100, "tid": 100, "code": 2},
    {"type": "file.final", "path": "/w/one.txt", "first_seq": 6, "size": 0},
    {"type": "file.final", "path": "/w/two.txt", "first_seq": 11, "size": 42},
    {"type": "run.end", "exit": 2, "status": "exited"},
]
for i, r in enumerate(recs):
    r.update(seq=i + 1, run="reuse")
    r.setdefault("ts", T % (i + 1))
    print(json.dumps(r))
EOF
}

# The same with a pid the kernel really reused: sysgate runs in a user and
# pid namespace of its own (unshare), the tree's first child exits, and
# from outside the tree the wrapper sets ns_last_pid so that the kernel
# gives the next child that pid again (neither side forks meanwhile: the
# waits are shell loops).  The page, clicked, keeps the two apart.
real_reuse() {
	cat >"$W/pidwrap.sh" <<EOF
#!/bin/bash
exec unshare -Urpf --mount-proc bash -c '
	$SYSGATE "\$@" &
	s=\$!
	i=0
	while [ ! -s one ] && [ \$i -lt 3000000 ]; do i=\$((i + 1)); done
	read -r p <one && echo \$((p - 1)) >/proc/sys/kernel/ns_last_pid
	: >go
	wait \$s' sh "\$@"
EOF
	chmod a+rx "$W/pidwrap.sh" && rm -f "$W/one" "$W/two" "$W/go" ||
		sg_harness_error "cannot write $W/pidwrap.sh"
	local real=$SYSGATE
	SYSGATE=$W/pidwrap.sh
	sg_run -- sh -c '/bin/true & p=$!; wait; echo $p >one
		i=0; while [ ! -e go ] && [ $i -lt 3000000 ]; do i=$((i + 1)); done
		/bin/true & q=$!; wait; echo $q >two'
	SYSGATE=$real
	check real-reuse-run-ok test "$SG_RC" = 0
	if [ "$(cat "$W/one" 2>/dev/null)" != "$(cat "$W/two" 2>/dev/null)" ]; then
		sg_harness_error "the kernel did not reuse the pid ($(cat "$W/one" "$W/two" 2>&1 | tr '\n' ' '))"
	fi
	"$SYSGATE" report "$SG_TRAIL" --json >"$R/real-reuse.json" 2>/dev/null
	"$SYSGATE" report "$SG_TRAIL" --html "$R/real-reuse.html" 2>/dev/null
	# The records of each process: from its proc.fork to the next one of
	# its pid, read from the trail here.
	$PY - "$SG_TRAIL" "$(cat "$W/one")" >"$R/real-reuse-want.json" <<'EOF'
import json, sys
pid = int(sys.argv[2])
parts = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("pid") != pid or r["type"] == "syscall.result":
        continue
    if r["type"] == "proc.fork":
        parts.append([])
    if parts:
        parts[-1].append(r["seq"])
assert len(parts) == 2, parts
print(json.dumps({"mode": "reuse", "pid": pid, "first": parts[0],
                  "second": parts[1], "checks": [], "prefix": "real-"}))
EOF
	check real-reuse-json "$PY" -c 'import json, sys
s = json.load(open(sys.argv[1]))
w = json.load(open(sys.argv[2]))
p = [x for x in s["processes"] if x["pid"] == w["pid"]]
assert len(p) == 2 and p[0]["node"] != p[1]["node"], p
assert all(x["argv"] == ["/bin/true"] and x["exit"] == {"code": 0} for x in p), p' \
		"$R/real-reuse.json" "$R/real-reuse-want.json"
	# The text's --pid view: the two processes, each with its records.
	"$SYSGATE" report "$SG_TRAIL" --pid "$(cat "$W/one")" >"$R/real-reuse.txt" 2>/dev/null
	check real-reuse-text-pid-view "$PY" -c 'import json, re, sys
w = json.load(open(sys.argv[2]))
parts = []
for l in open(sys.argv[1]):
    if l.startswith("Process %d " % w["pid"]):
        assert "(pid reused: process %d of 2 with this pid)" % (len(parts) + 1) in l, l
        parts.append([])
    elif l.startswith("  record "):
        parts[-1].append(int(l.split()[1]))
assert parts == [w["first"], w["second"]], parts' "$R/real-reuse.txt" "$R/real-reuse-want.json"
	browser 6 "$R/real-reuse.html" "$R/real-reuse.json" \
		"$R/real-reuse-want.json" "$R"
}

# html-browser.py's lines as cases; every one of its checks must report:
# browser N ARGS... (N checks).
browser() {
	local rc line n=0 want=$1
	shift
	timeout -k 5 100 $PY "$SG_LIB_DIR/html-browser.py" "$CHROMIUM" "$@" \
		>"$R/browser.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"PASS "*)
			n=$((n + 1))
			SG_ERR='' sg_report_pass "browser-${line#PASS }" ;;
		"FAIL "*)
			line=${line#FAIL }
			SG_ERR='' sg_report_fail "browser-${line%%:*}" "$line" ;;
		esac
	done <"$R/browser.out"
	check "browser-ran-every-check-($n/$want,rc=$rc)" test "$n" = "$want" -a "$rc" = 0
}

cases() {
	policy html <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES

[rule files]
syscalls = @file
action = allow
EOF
	local S=$H/.ssh/id_rsa
	local IMG='<img src=x onerror=window.sgPwned=1;document.title=1>'
	local SCR='x</script><script>window.sgPwned=2;</script>'
	local LS
	LS=$(printf 'ls\342\200\250sep')
	sg_run -r "$P/html.ini" -- sh -c "
		cat readme.txt >/dev/null
		cat '$IMG' '$SCR' '$LS' 2>/dev/null
		(sleep 0.2; cat '$S' 2>/dev/null) &
		sleep 0.1
		cat '$S' 2>/dev/null
		wait
		exit 1"
	check run-status-1 test "$SG_RC" = 1
	local html=$R/report.html shots=$R/shots
	mkdir -p "$shots"
	"$SYSGATE" report "$SG_TRAIL" --html "$html" 2>"$R/report.err"
	check report-written test -s "$html"
	"$SYSGATE" report "$SG_TRAIL" --json >"$R/report.json"

	# The file: one, with nothing to fetch, its JSON block intact.
	check no-external-url sh -c "! grep -Eiq '(src|href|action|url)[[:space:]]*[=(][[:space:]]*[\"'\'']?(https?:|//)' '$html'"
	check only-url-is-the-svg-namespace test \
		"$(grep -Eo 'https?://[^"'\'' )]*' "$html" | sort -u)" = \
		http://www.w3.org/2000/svg
	check two-scripts-two-ends test \
		"$(grep -o '<script' "$html" | wc -l)/$(grep -o '</script' "$html" | wc -l)" = 2/2
	check trail-cannot-close-the-script sh -c "! grep -qF '$SCR' '$html'"
	check no-raw-line-separator sh -c "! grep -qF '$LS' '$html'"

	# The browser, for real: clicks, typing, what the page shows.
	$PY - "$R/report.json" "$IMG" >"$R/want.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps({"child": r["denials"][0]["pid"], "secret": ".ssh/id_rsa",
                  "own": "readme.txt", "hostile": sys.argv[2],
                  "pwned": "sgPwned"}))
EOF
	browser 18 "$html" "$R/report.json" "$R/want.json" "$shots"
	shot screenshot-first-screen-drawn "$shots/page.png" 0 0
	shot screenshot-timeline-bars-and-denials "$shots/timeline.png" 20 200

	# Another way in: the DOM after the script ran (--dump-dom).
	chromium --dump-dom "file://$html" >"$R/dom.html" 2>"$R/dom.log"
	local procs lanes
	procs=$($PY -c 'import json, sys
print(len(json.load(sys.stdin)["processes"]))' <"$R/report.json")
	lanes=$(grep -o 'class="lane"' "$R/dom.html" | wc -l)
	check dom-rendered grep -q 'data-ready="1"' "$R/dom.html"
	check "dom-one-lane-per-process-($lanes/$procs)" test "$lanes" = "$procs" -a "$procs" -ge 5
	check dom-tree-items test "$(grep -o 'class="proc"' "$R/dom.html" | wc -l)" = "$procs"
	check dom-denial-marks test "$(grep -o '<rect class="denial"' "$R/dom.html" | wc -l)" = 2
	check dom-denial-rows test "$(grep -o '<tr class="denial"' "$R/dom.html" | wc -l)" = 2
	check dom-no-injected-element sh -c "! grep -qi '<img' '$R/dom.html'"

	# --all: nothing folded, the box starts ticked; without it, folded
	# calls are the loader's (the text report's rule).
	"$SYSGATE" report "$SG_TRAIL" --all --html "$R/all.html" 2>/dev/null
	check all-unfolds "$PY" -c 'import json, re, sys
def data(p):
    s = open(p).read()
    return json.loads(re.search(r"id=\"report-data\">(.*?)</script>", s, re.S).group(1))
a, d = data(sys.argv[1]), data(sys.argv[2])
folded = [c for c in d["calls"] if c[9]]
assert a["all"] and not any(c[9] for c in a["calls"]), "--all folds"
assert folded and all(".so" in c[5] or "/usr/" in c[5] or "/etc/" in c[5]
                      for c in folded), folded[:3]
assert not any("readme.txt" in c[5] for c in folded), "own file folded"' \
		"$R/all.html" "$html"

	# A pid reused within the run: two processes, each with only its own
	# calls, in --json (node) and on the page (clicked in the browser);
	# and the page shows the DNS name, the bound port, the path as passed,
	# the final sizes, the would-deny call and the output before a finding.
	reuse_trail >"$R/reuse.jsonl"
	"$SYSGATE" report "$R/reuse.jsonl" --json >"$R/reuse.json" 2>/dev/null
	check reuse-json-two-processes "$PY" -c 'import json, sys
s = json.load(open(sys.argv[1]))
p = [(x["node"], x["parent_node"], x["argv"], x["exit"]) for x in s["processes"] if x["pid"] == 200]
root = s["processes"][0]
assert len(p) == 2 and p[0][0] != p[1][0], p
assert p[0][2:] == (["first"], {"code": 0}) and p[1][2:] == (["second"], {"code": 2}), p
assert p[0][1] == p[1][1] == root["node"] and root["children_nodes"] == [p[0][0], p[1][0]], root
assert root["children"] == [200, 200]
f = [a for a in s["findings"]["anomalies"] if a["pid"] == 200 and a["kind"] == "non-zero exit"]
assert len(f) == 1 and f[0]["node"] == p[1][0] and f[0]["seq"] == 16, f
assert [l["text"] for l in f[0]["output"]] == ["first: wrote one", "second: giving up"], f
assert s["findings"]["chain_nodes"] == [root["node"], p[1][0]], s["findings"]
assert [e["node"] for e in s["execs"] if e["pid"] == 200] == [p[0][0], p[1][0]], s["execs"]
f = {f["path"]: f["node"] for fs in s["files"].values() for f in fs}
assert f == {"/w/one.txt": p[0][0], "/w/two.txt": p[1][0]}, f
assert [n["node"] for n in s["network"]] == [p[1][0], p[1][0]], s["network"]' "$R/reuse.json"
	"$SYSGATE" report "$R/reuse.jsonl" --html "$R/reuse.html" 2>/dev/null
	check reuse-page-written test -s "$R/reuse.html"
	$PY - >"$R/reuse-want.json" <<'EOF'
import json
print(json.dumps({"mode": "reuse", "pid": 200, "first": [4, 5, 6, 8],
                  "second": [9, 10, 11, 12, 13, 16], "checks": [
    ["page-network-dns", "#network td", "dns sales.example.test A"],
    ["page-network-bound", "#network td", "bound 127.0.0.1:40123"],
    ["page-call-dns", "#calls tr[data-seq='12'] td", "dns sales.example.test A"],
    ["page-call-bound", "#calls tr[data-seq='13'] td", "bound 127.0.0.1:40123"],
    ["page-call-would-deny", "#calls tr.would-deny td", "rule no-two would deny"],
    ["page-finding-would-deny", "#findings li .kind", "would deny:"],
    ["page-finding-output", "#findings li .oline.err", "err| second: giving up"],
    ["page-file-as-passed", "#files td", "two.txt (in /w)"],
    ["page-file-final-size", "#files td", "42 bytes"],
    ["page-written-empty", "#written tr.bad td", "0 bytes"],
    ["page-finding-empty", "#findings li .ftext", "/w/one.txt (0 bytes)"],
]}))
EOF
	browser 18 "$R/reuse.html" "$R/reuse.json" "$R/reuse-want.json" "$R"
	real_reuse

	# A run too large for the page: capped, and the page says so.
	big_trail 20500 >"$R/big.jsonl"
	"$SYSGATE" report "$R/big.jsonl" --html "$R/big.html" 2>"$R/big.err"
	check big-page-written test -s "$R/big.html"
	check big-page-capped "$PY" -c 'import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r"id=\"report-data\">(.*?)</script>", s, re.S).group(1))
assert len(d["calls"]) == 20000 and d["calls_total"] == 20500, \
    (len(d["calls"]), d["calls_total"])' "$R/big.html"
	chromium --dump-dom "file://$R/big.html" >"$R/big-dom.html" 2>/dev/null
	check big-page-says-so grep -q 'id="calls-cap">This page holds 20000 of the run.s 20500 calls' "$R/big-dom.html"
}

sg_main cases
