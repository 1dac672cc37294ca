#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate report: the text report shows the process tree with argv,
# durations and exit codes, programs executed, files by access, network
# attempts, every denial with its rule (and stack), limits; --json gives
# the same as a summary object; --html one self-contained page.  Tracee
# strings never reach the terminal or the page unescaped.  A trail that
# does not verify is reported after a warning; an unreadable one gives 125.
. "$(dirname "$0")/lib.sh"
sg_init
CHECK="$SG_LIB_DIR/audit-check.py"

# sg_report NAME ARGS...: run `sysgate report ARGS`; sets SG_RC, SG_OUT, SG_ERR.
sg_report() {
	SG_OUT=$R/report-$1.out
	SG_ERR=$R/report-$1.err
	shift
	timeout -k 5 60 "$SYSGATE" report "$@" >"$SG_OUT" 2>"$SG_ERR" </dev/null
	SG_RC=$?
}

# expect_rc NAME CODE: the last sg_report exited with CODE.
expect_rc() {
	if [ "$SG_RC" = "$2" ]; then
		SG_ERR= sg_report_pass "$1"
	else
		sg_report_fail "$1" "expected exit $2, got $(sg_status_text "$SG_RC")" \
			"output: $(head -c 600 "$SG_OUT")"
	fi
}

# has NAME PATTERN: the last report's output has a line matching PATTERN (ERE).
has() {
	if grep -Eq -- "$2" "$SG_OUT"; then
		SG_ERR= sg_report_pass "$1"
	else
		SG_ERR= sg_report_fail "$1" "no line matches /$2/ in $SG_OUT:" \
			"$(head -c 3000 "$SG_OUT")"
	fi
}

# lacks NAME FILE HEX: FILE does not hold the bytes HEX (exists, non-empty).
lacks() {
	check "$1" $PY -c 'import sys
data = open(sys.argv[1], "rb").read()
sys.exit(not data or bytes.fromhex(sys.argv[2]) in data)' "$2" "$3"
}

# json NAME PYTHON-EXPR: the --json output, loaded as s, makes EXPR true.
json() {
	local name=$1 expr=$2
	if $PY - "$SG_OUT" "$expr" >"$R/json-$name.out" 2>&1 <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
files = lambda acc: [f["path"] for f in s["files"].get(acc, [])]
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
	then
		SG_ERR= sg_report_pass "$name"
	else
		SG_ERR= sg_report_fail "$name" "not true of the --json summary: $expr" \
			"$(cat "$R/json-$name.out")"
	fi
}

cases() {
	policy report <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES
stack = yes

[rule no-far-net]
syscalls = connect
addr = 10.0.0.0/8
action = deny
errno = ENETUNREACH

[rule files]
syscalls = @file
action = allow

[rule progs]
syscalls = @exec
action = allow

[rule net]
syscalls = @network
action = allow
EOF
	local S=$H/.ssh/id_rsa
	local esc=$'\e[31mred<b>&\'"\xff'
	sg_listen 127.0.0.1 0
	# The hostile path goes in as $1: quoting it in the script would not do.
	sg_run -r "$P/report.ini" -- sh -c '
		cat readme.txt >/dev/null
		echo data > made.txt
		mkdir sub
		mv made.txt sub/moved.txt
		rm sub/moved.txt
		cat "$2" 2>/dev/null
		"$3/try-open" "$1" 2>/dev/null
		"$3/try-connect" 127.0.0.1 "$4"
		"$3/try-connect" 10.1.2.3 80
		(sleep 0.1; exit 5) & wait
		exit 3' sh "$H/.ssh/$esc" "$S" "$B" "$SG_PORT"
	local trail=$SG_TRAIL
	sg_listen_wait
	check run-status-3 test "$SG_RC" = 3
	check run-trail-verifies "$SYSGATE" verify "$trail"

	# Text.  File entries end with where they were first seen.
	local FIRST='  \(pid [0-9]+, record [0-9]+, (\+[0-9.]+s|\?)\)'
	sg_report text "$trail"
	expect_rc text-exit-0 0
	has text-header-run "^run: "
	has text-verified "hash chain verified"
	has text-result "^result: +exit status 3"
	has text-tree-root "^  [0-9]+ sh -c .*\[.*exit 3\]$"
	has text-tree-child-cat "^  (\||\`)- [0-9]+ cat readme.txt +\[[0-9.]+ (us|ms|s), exit 0\]"
	has text-tree-subshell "^  [|\`]- [0-9]+ \(fork\) sh -c .*exit 5\]"
	has text-tree-grandchild "^  [| ]  \`- [0-9]+ sleep 0.1"
	has text-tree-denied-count "try-open .*exit 13, 1 denied\]"
	has text-execs "^  \+[0-9.]+s  pid [0-9]+  /usr/bin/cat  cat readme.txt$"
	has text-files-read "^    $W/readme.txt$FIRST$"
	has text-files-created-title "^  Created:$"
	has text-files-created "^    $W/made.txt$FIRST$"
	has text-files-created-dir "^    $W/sub$FIRST$"
	has text-files-rename-target "^    $W/sub/moved.txt$FIRST$"
	has text-files-deleted-title "^  Deleted:$"
	has text-files-secret "^    $S  \[denied EACCES, rule no-secrets\]$FIRST$"
	has text-network-loopback "^  connect 127.0.0.1:$SG_PORT  \[ok\]  by $B/try-connect"
	has text-network-denied "^  connect 10.1.2.3:80  \[denied ENETUNREACH, rule no-far-net\]"
	has text-denials-count "^Denials \(3\)$"
	has text-denial-secret "openat $S \(read\) -> deny EACCES by rule no-secrets$"
	has text-denial-connect "connect 10.1.2.3:80 -> deny ENETUNREACH by rule no-far-net$"
	has text-escaped-path "$H/.ssh/\\\\x1b\[31mred<b>&'\"\\\\xff"
	lacks text-no-raw-escape-byte "$SG_OUT" 1b
	check text-valid-utf8 $PY -c "open('$SG_OUT', encoding='utf-8').read()"
	has text-limits "^Limits reached \(0\)$"

	# JSON.
	sg_report json "$trail" --json
	expect_rc json-exit-0 0
	json json-verified "s['verified'] is True and s['verify_error'] is None"
	json json-run "s['run']['exit'] == 3 and s['run']['command'][0] == 'sh' and s['run']['complete']"
	json json-counts "s['counts']['denials'] == 3 and s['counts']['denied'] == 3 and s['counts']['processes'] >= 9"
	json json-tree "s['processes'][0]['parent'] is None and s['processes'][0]['exit'] == {'code': 3} and len(s['processes'][0]['children']) >= 7"
	json json-child-exit "any(p['argv'][:1] == ['sh'] and p['exit'] == {'code': 5} and not p['execed'] for p in s['processes'])"
	json json-files-read "'$W/readme.txt' in files('read')"
	json json-files-first "all(isinstance(f['pid'], int) and f['first_seq'] >= 1 and f['first_ms'] >= 0 for fs in s['files'].values() for f in fs)"
	json json-network-first "all(n['first_seq'] >= 1 and n['first_ms'] >= 0 for n in s['network'])"
	json json-files-create "'$W/made.txt' in files('create') and '$W/sub' in files('create')"
	json json-files-delete "'$W/sub/moved.txt' in files('delete')"
	json json-files-denied "any(f['path'] == '$S' and f['outcome'] == 'denied EACCES' and f['rule'] == 'no-secrets' for f in s['files']['read'])"
	json json-execs "any(e['path'] == '/usr/bin/cat' and e['argv'] == ['cat', 'readme.txt'] for e in s['execs'])"
	json json-network "any(n['syscall'] == 'connect' and n['addr']['ip'] == '127.0.0.1' and n['addr']['port'] == $SG_PORT and n['outcome'] == 'ok' for n in s['network'])"
	json json-denials "[d['rule'] for d in s['denials']] == ['no-secrets', 'no-secrets', 'no-far-net'] and s['denials'][2]['errno'] == 'ENETUNREACH'"
	json json-exact-bytes "any(f.get('path_hex', '').endswith('ff') for f in s['files']['read'])"

	# HTML.
	local html=$R/report.html
	sg_report html "$trail" --html "$html"
	expect_rc html-exit-0 0
	check html-written test -s "$html"
	# The page draws its embedded data (audit-html.sh opens it in a
	# browser); here, the file and the data.
	check html-data $PY -c 'import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r"id=\"report-data\">(.*?)</script>", s, re.S).group(1))
assert d["processes"] and d["calls"], "no processes or calls"
assert [x[7] for x in d["denials"]] == ["no-secrets", "no-secrets", "no-far-net"], d["denials"]
assert d["findings"]["anomalies"], "no findings"
assert any("\\x1b[31mred<b>&\x27\"\\xff" in f[1] for f in d["files"]), "path"' "$html"
	check html-scripts-ours test "$(grep -ci '<script' "$html")" = 2
	check html-no-fetch sh -c "! grep -Eqi '(src|href)=|url\\(|@import' '$html'"
	check html-no-raw-tag sh -c "! grep -q 'red<b>' '$html'"
	check html-well-formed $PY -c 'import html.parser, sys
VOID = ("meta", "br", "rect", "line", "circle")
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.open = []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.open.append(tag)
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.open or self.open.pop() != tag:
            sys.exit("</%s> closes nothing" % tag)
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
sys.exit(1 if p.open else 0)' "$html"

	# Stacks, limits, pending calls and hostile strings (a synthetic trail:
	# the supervisor may not write all of them yet).
	local synth=$R/synth.jsonl
	$PY "$CHECK" synth "$synth" || sg_harness_error "cannot write $synth"
	check synth-verifies "$SYSGATE" verify "$synth"
	sg_report synth "$synth"
	expect_rc synth-exit-0 0
	has synth-stack-0 "^      #0 0x7f0000001234 __open64\+0x1b \(/lib/libc.so.6\)$"
	has synth-stack-1 "^      #1 0x55550000abcd level3\+0x9 \(/bin/victim\)$"
	has synth-stack-2 "^      #2 0x55550000beef \(/bin/victim\)$"
	has synth-limit "^  record 10 .*limit=\"processes\" value=64"
	has synth-limits-count "^Limits reached \(1\)$"
	has synth-pending "^    /w/gone  \[no result recorded\]$FIRST$"
	has synth-signal "victim 'a\\\\xff'  \[5.0 ms, killed by SIGKILL, 2 denied\]"
	has synth-thread "\+1 thread\]$"
	has synth-bidi-escaped '\\u202eevil'
	lacks synth-no-raw-bidi "$SG_OUT" e280ae
	lacks synth-no-raw-escape "$SG_OUT" 1b
	has synth-rule-escaped "connect 10.1.2.3:443 -> deny ENETUNREACH by rule no-net\\\\x1b\[2J$"
	sg_report synth-json "$synth" --json
	json synth-json-stack "s['denials'][0]['stack'][1]['symbol'] == 'level3' and s['limits'][0]['limit'] == 'processes'"
	sg_report synth-html "$synth" --html "$R/synth.html"
	check synth-html-stack grep -q '#0 0x7f0000001234 __open64+0x1b (/lib/libc.so.6)' "$R/synth.html"
	lacks synth-html-no-raw-esc "$R/synth.html" 1b

	# A trail that does not verify still reports, after a warning.
	local bad=$R/edited.jsonl
	sed '5s/"pid":/"pid":1/' "$trail" >"$bad"
	sg_report edited "$bad"
	expect_rc edited-exit-0 0
	check edited-warning-first sh -c "head -n 1 '$SG_OUT' | grep -q '^WARNING: .* does not verify: record 5 (line 5): .*edited'"
	has edited-still-reports "^Process tree"
	sg_report edited-json "$bad" --json
	json edited-json "s['verified'] is False and 'record 5' in s['verify_error']"
	check edited-json-warns grep -q 'WARNING' "$R/report-edited-json.err"
	head -n 20 "$trail" >"$R/cut.jsonl"
	sg_report cut "$R/cut.jsonl"
	expect_rc cut-exit-0 0
	check cut-warning sh -c "head -n 1 '$SG_OUT' | grep -q 'truncated after record 20'"
	has cut-unknown-result "^result: +unknown: the trail has no run.end"

	# Two runs in one file: the last is reported, --run picks another.
	sg_run -r "$P/report.ini" -- sh -c 'exit 7'
	local two=$SG_TRAIL
	cat "$trail" >"$R/two.jsonl"
	cat "$two" >>"$R/two.jsonl"
	sg_report two "$R/two.jsonl"
	expect_rc two-exit-0 0
	has two-says-two "holds 2 runs; this is run 2"
	has two-last-run "^result: +exit status 7"
	sg_report two-first "$R/two.jsonl" --run 1
	has two-first-run "^result: +exit status 3"
	sg_report two-none "$R/two.jsonl" --run 3
	expect_rc two-no-third-run 125

	# The network section's details and the files' final sizes, on a real
	# run: a bind to port 0 (the port the kernel chose), an accept (its
	# peer, the client's port), a DNS query sent (its name), a file
	# written by a relative path (as passed, and its size at the end).
	# The ports are the program's own getsockname, not the trail's.
	cat >"$W/net.py" <<'EOF'
import os, socket, struct
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
c = socket.socket(); c.connect(l.getsockname())
a, peer = l.accept()
q = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0)
q += b"\x05sales\x07example\x04test\x00" + struct.pack(">HH", 1, 1)
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(q, ("127.0.0.1", 53))
os.mkdir("data")
open("data/out.csv", "w").write("a,b\n1,2\n")
open("ports", "w").write("%d %d\n" % (l.getsockname()[1], c.getsockname()[1]))
EOF
	chmod a+r "$W/net.py" || sg_harness_error "cannot write $W/net.py"
	sg_run -r "$P/report.ini" -- "$PY" net.py
	check net-run-ok test "$SG_RC" = 0
	local ports wd
	read -r -a ports <"$W/ports" || sg_harness_error "net.py wrote no ports"
	wd=$(cd "$W" && pwd -P)
	sg_report net-text "$SG_TRAIL"
	has text-net-bound "^  bind 127\.0\.0\.1:0  \[ok\].*  bound 127\.0\.0\.1:${ports[0]}$"
	has text-net-peer "^  accept4? 127\.0\.0\.1:${ports[1]}  \[ok\].*  peers 127\.0\.0\.1:${ports[1]}$"
	has text-net-dns "^  sendto 127\.0\.0\.1:53  \[ok\].*  dns sales\.example\.test A$"
	sg_report net-json "$SG_TRAIL" --json
	json json-net-bound "[n['bound'] for n in s['network'] if n['syscall'] == 'bind'] == [[{'family': 'AF_INET', 'ip': '127.0.0.1', 'port': ${ports[0]}}]]"
	json json-net-peer "[(n['addr'], n['peers']) for n in s['network'] if n['syscall'].startswith('accept')] == [({'family': 'AF_INET', 'ip': '127.0.0.1', 'port': ${ports[1]}}, [{'family': 'AF_INET', 'ip': '127.0.0.1', 'port': ${ports[1]}}])]"
	json json-net-dns "[n['dns'] for n in s['network'] if 'dns' in n] == [[{'name': 'sales.example.test', 'type': 'A'}]]"
	json json-net-entries-first "all(isinstance(n['pid'], int) and n['first_seq'] >= 1 and n['first_ms'] >= 0 for n in s['network']) and len(s['network']) >= 4"
	json json-file-as-passed-and-final "[(f['path_arg'], f['relative_to'], f['final_size']) for fs in s['files'].values() for f in fs if f['path'] == '$wd/data/out.csv'] == [('data/out.csv', '$wd', 8)]"
	json json-written "[(w['size'], w['pid'] == s['processes'][0]['pid'], w['first_seq'] >= 1, w['first_ms'] >= 0) for w in s['written'] if w['path'] == '$wd/data/out.csv'] == [(8, True, True, True)] and s['written_omitted'] == 0"

	# Unreadable trails: 125 and a reason.
	sg_report missing "$R/does-not-exist.jsonl"
	expect_rc missing-125 125
	check missing-says-why grep -q 'No such file' "$SG_ERR"
	sg_report dir "$R"
	expect_rc directory-125 125
	: >"$R/empty.jsonl"
	sg_report empty "$R/empty.jsonl"
	expect_rc empty-125 125
	head -c 3000 /dev/urandom >"$R/garbage.jsonl"
	sg_report garbage "$R/garbage.jsonl"
	expect_rc garbage-125 125
	sg_report usage
	expect_rc no-args-125 125
	sg_report bad-out "$trail" --html "$R/no/such/dir/r.html"
	expect_rc unwritable-html-125 125
}

sg_main cases
