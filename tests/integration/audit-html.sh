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
# it says how many calls it left out.  Skips (77)
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

# html-browser.py's lines as cases; every one of its checks must report.
browser() {
	local rc line n=0
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
	check "browser-ran-every-check-($n,rc=$rc)" test "$n" = 18 -a "$rc" = 0
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
	browser "$html" "$R/report.json" "$R/want.json" "$shots"
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
