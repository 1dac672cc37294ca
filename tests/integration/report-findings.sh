#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate report opens with what went wrong, on real runs that fail: a
# denied write then exit 1, a SIGSEGV, a child that exits 0 after a
# denial, a missing file under the working directory.  Each finding names
# the record the trail holds for it (its seq is read from the trail here,
# not assumed).  A run that succeeded says so in one line.  The views
# --pid, --around and --denied show only what they are asked for; loader
# and locale probes are folded unless --all; kill-family calls are
# recorded with their pid and signal name, not raw words.
. "$(dirname "$0")/lib.sh"
sg_init

# rep NAME ARGS...: `sysgate report ARGS` into $RO; sets RC.
rep() {
	RO=$R/rep-$1.out
	shift
	timeout -k 5 60 "$SYSGATE" report "$@" >"$RO" 2>"$R/rep.err" </dev/null
	RC=$?
}

# head_has NAME N ERE: one of the first N lines of $RO matches ERE, not
# counting the lines of output a finding shows (sysgate report shows the
# command's last lines before each finding under it).
head_has() {
	local top
	top=$(grep -Ev '^     output before it:$|^       (out|err)\| ' "$RO" | head -n "$2")
	if printf '%s\n' "$top" | grep -Eq -- "$3"; then
		SG_ERR= sg_report_pass "$1"
	else
		SG_ERR= sg_report_fail "$1" "no line of the first $2 matches /$3/:" \
			"$top"
	fi
}

# out_has NAME ERE / out_lacks NAME ERE: about the whole of $RO.
out_has() {
	check "$1" grep -Eq -- "$2" "$RO"
}
out_lacks() {
	check "$1" sh -c '! grep -Eq -- "$1" "$2"' sh "$2" "$RO"
}

# seq_of TRAIL PYTHON-EXPR: the seq of the first record r making EXPR true.
seq_of() {
	$PY - "$1" "$2" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if eval(sys.argv[2]):
        print(r["seq"])
        break
EOF
}

# need NAME VALUE: a seq was found in the trail (else the run did not do
# what the case needs: a harness error, not a pass).
need() {
	[ -n "$2" ] || sg_harness_error "$1: the trail has no such record"
}

cases() {
	policy findings <<'EOF'
[policy]
default = allow
audit = all

[rule no-blocked]
syscalls = @file
path = ${CWD}/blocked*
action = deny
errno = EACCES
EOF
	local pol=$P/findings.ini s e

	# A denied write, then exit 1.
	sg_run -r "$pol" -- sh -c 'echo x > blocked.txt || exit 1'
	check deny-run-status-1 test "$SG_RC" = 1
	s=$(seq_of "$SG_TRAIL" 'r.get("action") == "deny"')
	need deny-seq "$s"
	rep deny "$SG_TRAIL"
	head_has deny-first-line 1 "^Findings: the run failed \(exit status 1\)$"
	head_has deny-chain 3 "^  failed in: [0-9]+ sh -c .*\[exit 1\]$"
	head_has deny-finding 5 "^  1\. denied: record $s, \+[0-9.]+s, pid [0-9]+ .*: openat $W/blocked.txt \(create\) -> denied EACCES by rule no-blocked$"
	out_has deny-exit-finding "^  [0-9]+\. non-zero exit: record [0-9]+, .*sh -c .*\[exit 1\]$"
	rep deny-json "$SG_TRAIL" --json
	check deny-json-findings $PY -c '
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
a = f["anomalies"]
sys.exit(not (f["failed"] is True and len(f["chain"]) >= 1 and a[0]["kind"] == "denied"
              and a[0]["seq"] == int(sys.argv[2]) and a[0]["ms"] >= 0 and "blocked.txt" in a[0]["text"]))' "$RO" "$s"
	rep deny-denied "$SG_TRAIL" --denied
	head_has denied-view-header 1 "^Denials \(1, in trail order\)$"
	head_has denied-view-line 2 "^  record $s  \+[0-9.]+s  pid [0-9]+  openat dirfd=AT_FDCWD path=blocked.txt flags=O_WRONLY\|O_CREAT\|O_TRUNC mode=0666  \[$W/blocked.txt create\] -> denied EACCES by rule no-blocked$"
	check denied-view-only-denials test "$(wc -l <"$RO")" = 2
	rep around "$SG_TRAIL" --around "$s"
	head_has around-header 1 "^Records [0-9]+-$((s + 10)) around record $s"
	out_has around-marked "^> record $s  .* -> denied EACCES"
	check around-bounded $PY -c '
import re, sys
seqs = [int(m.group(1)) for m in re.finditer(r"^[> ] record (\d+) ", open(sys.argv[1]).read(), re.M)]
s = int(sys.argv[2])
sys.exit(not (seqs and all(abs(q - s) <= 10 for q in seqs) and s in seqs and seqs == sorted(seqs)))' "$RO" "$s"

	# A missing file under the working directory: the finding, and the
	# loader's and locale's misses are not findings, folded in the files.
	sg_run -r "$pol" -- cat data.csv
	check missing-run-status-1 test "$SG_RC" = 1
	s=$(seq_of "$SG_TRAIL" 'r.get("errno") == "ENOENT" and r.get("args", {}).get("path") == "data.csv"')
	need missing-seq "$s"
	rep missing "$SG_TRAIL"
	head_has missing-failed 1 "^Findings: the run failed \(exit status 1\)$"
	head_has missing-finding 6 "^  [0-9]+\. missing file: record $s, \+[0-9.]+s, pid [0-9]+: openat $W/data.csv = -1 ENOENT$"
	out_lacks missing-no-noise-finding "missing file: .* /(usr|lib|etc)/"
	out_has files-ours-first "^    $W/data.csv  \[ENOENT\]  \(pid [0-9]+, record $s, \+[0-9.]+s\)$"
	out_has files-folded "^  \([0-9]+ loader, locale and runtime paths read or probed, [0-9]+ calls, folded: --all shows them\)$"
	out_lacks files-no-loader-line "^    /(usr/)?lib"
	rep missing-all "$SG_TRAIL" --all
	out_has all-unfolds "^    (/usr)?/lib.*\(pid [0-9]+, record [0-9]+, "
	out_lacks all-no-fold-line "folded: --all"

	# A search-path probe (the name is found in the next directory by the
	# same process, as gcc's -I and loaders do) is no finding; a name that
	# is never found is.
	mkdir -p "$W/inc" && echo 'int x;' >"$W/x.h" && chmod -R a+rX "$W/inc" "$W/x.h" ||
		sg_harness_error "cannot write $W/x.h"
	sg_run -r "$pol" -- sh -c 'read l < inc/x.h; read l < x.h; read l < gone.h; exit 2'
	check probe-run-status-2 test "$SG_RC" = 2
	s=$(seq_of "$SG_TRAIL" 'r.get("errno") == "ENOENT" and r.get("args", {}).get("path") == "gone.h"')
	need probe-gone-seq "$s"
	e=$(seq_of "$SG_TRAIL" 'r.get("errno") == "ENOENT" and r.get("args", {}).get("path") == "inc/x.h"')
	need probe-seq "$e"
	rep probe "$SG_TRAIL"
	head_has probe-gone-finding 6 "^  [0-9]+\. missing file: record $s, .*: openat $W/gone.h = -1 ENOENT$"
	out_lacks probe-not-a-finding "missing file: .*/inc/x.h"
	out_has probe-still-in-files "^    $W/inc/x.h  \[ENOENT\]  \(pid [0-9]+, record $e, "

	# Failures handled on the way are folded into counts: a child that
	# exits 1 while its parent goes on to exit 0 (a shim's probe), and a
	# miss by a process that then exits 0.  The cause stays a finding.
	sg_run -r "$pol" -- sh -c 'sh -c "sh -c \"exit 1\" || :; cat probe.txt 2>/dev/null; exit 0"; cat data.csv; exit 3'
	check handled-run-status-3 test "$SG_RC" = 3
	s=$(seq_of "$SG_TRAIL" 'r.get("errno") == "ENOENT" and r.get("args", {}).get("path") == "data.csv"')
	need handled-seq "$s"
	rep handled "$SG_TRAIL"
	head_has handled-cause-finding 8 "^  [0-9]+\. missing file: record $s, .*: openat $W/data.csv = -1 ENOENT$"
	out_lacks handled-probe-not-listed "missing file: .*/probe.txt"
	out_has handled-probe-counted "^     \([0-9]+ failed opens handled by their process or its parent, not listed: --all lists them\)$"
	out_has handled-exit-counted "^     \(2 non-zero exits whose parent went on to exit 0, not listed: --all lists them\)$"
	rep handled-all "$SG_TRAIL" --all
	out_has handled-all-lists-probe "missing file: .*: openat $W/probe.txt = -1 ENOENT$"
	out_lacks handled-all-no-count "not listed: --all lists them"

	# A child exits 0 after a denial; the failure surfaces later.
	sg_run -r "$pol" -- sh -c 'sh -c "echo int x; > blocked.c; exit 0"; test -s blocked.c'
	check swallowed-run-status-1 test "$SG_RC" = 1
	s=$(seq_of "$SG_TRAIL" 'r.get("action") == "deny"')
	need swallowed-denial-seq "$s"
	local cpid
	cpid=$($PY -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["seq"] == int(sys.argv[2]):
        print(r["pid"])' "$SG_TRAIL" "$s")
	e=$(seq_of "$SG_TRAIL" "r['type'] == 'proc.exit' and r['pid'] == $cpid")
	need swallowed-exit-seq "$e"
	rep swallowed "$SG_TRAIL"
	out_has swallowed-finding "^  [0-9]+\. exited 0 after a denial: pid $cpid sh -c .*\[exit 0\]: denied at record $s \(\+[0-9.]+s\), exited 0 at record $e \(\+[0-9.]+s\)$"
	head_has swallowed-denial-first 4 "^  1\. denied: record $s, "

	# A SIGSEGV from the kernel (a null pointer read).
	sg_run -r "$pol" -- "$PY" -c 'import ctypes; ctypes.string_at(0)'
	check segv-run-signaled test "$SG_RC" = 139
	e=$(seq_of "$SG_TRAIL" 'r["type"] == "proc.exit" and r.get("signal") == "SIGSEGV"')
	need segv-exit-seq "$e"
	local spid
	spid=$($PY -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["seq"] == int(sys.argv[2]):
        print(r["pid"])' "$SG_TRAIL" "$e")
	rep segv "$SG_TRAIL"
	head_has segv-failed 1 "^Findings: the run failed \(exit status 139 \(killed by SIGSEGV\)\)$"
	head_has segv-chain 3 "^  failed in: $spid .*\[killed by SIGSEGV\]$"
	head_has segv-finding 5 "^  1\. died by signal: record $e, \+[0-9.]+s, pid $spid .*\[killed by SIGSEGV\], delivered at record [0-9]+"
	head_has segv-last-calls 6 "^     its last calls:$"
	head_has segv-last-call-line 7 "^       record [0-9]+  \+[0-9.]+s  pid $spid "
	rep segv-json "$SG_TRAIL" --json
	check segv-json-siginfo $PY -c '
import json, sys
s = json.load(open(sys.argv[1]))
d = [a for a in s["findings"]["anomalies"] if a["kind"] == "died by signal"]
p = [p for p in s["processes"] if p["pid"] == int(sys.argv[2])]
ok = len(d) == 1 and d[0]["signal"] == "SIGSEGV" and d[0]["si_code"] == "SEGV_MAPERR"
ok = ok and d[0]["fault_addr"] == "0x0" and d[0]["delivered_seq"] < d[0]["seq"]
ok = ok and d[0]["node"] == p[0]["node"] and len(d[0]["last_calls"]) >= 1
ok = ok and p[0]["exit"]["si_code"] == "SEGV_MAPERR" and p[0]["exit"]["fault_addr"] == "0x0"
sys.exit(not ok)' "$RO" "$spid"
	rep segv-pid "$SG_TRAIL" --pid "$spid"
	head_has pid-view-header 1 "^Process $spid .*\[killed by SIGSEGV\]$"
	out_has pid-view-exec "^  record [0-9]+  \+[0-9.]+s  pid $spid  proc.exec path="
	out_has pid-view-call "^  record [0-9]+  \+[0-9.]+s  pid $spid  openat dirfd=AT_FDCWD path=.* = [0-9]+$"
	out_has pid-view-exit "^  record $e  \+[0-9.]+s  pid $spid  proc.exit signal=SIGSEGV"
	check pid-view-only-its-records $PY -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()[1:-1]
sys.exit(not lines or not all(re.match(r"  record \d+  \S+  pid %s( tid \d+)?  " % sys.argv[2], l) for l in lines))' "$RO" "$spid"
	rep bad-pid "$SG_TRAIL" --pid x
	check bad-pid-125 test "$RC" = 125
	rep view-json "$SG_TRAIL" --pid "$spid" --json
	check view-json-refused test "$RC" = 125

	# kill-family calls carry the pid and the signal's name.
	sg_run -r "$pol" -- "$B/kill-self" TERM
	check kill-run-signaled test "$SG_RC" = 143
	check kill-decoded $PY -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
k = [r for r in recs if r.get("syscall") == "tgkill"]
sys.exit(not k or any("raw" in r["args"] or r["args"].get("signal") != "SIGTERM"
                      or r["args"].get("tgid") != r["pid"] or r["args"].get("tid") != r["tid"] for r in k))' "$SG_TRAIL"

	rep kill-json "$SG_TRAIL" --json
	check kill-json-sender $PY -c '
import json, sys
s = json.load(open(sys.argv[1]))
d = [a for a in s["findings"]["anomalies"] if a["kind"] == "died by signal"]
sys.exit(not (len(d) == 1 and d[0]["signal"] == "SIGTERM" and d[0]["si_code"] == "SI_TKILL"
              and d[0]["sender_pid"] == d[0]["pid"] and "fault_addr" not in d[0]))' "$RO"

	# A limit reached: the wall time, then the tree killed.
	policy wall <<'EOF'
[policy]
default = allow

[limits]
wall = 1s
EOF
	sg_run -r "$P/wall.ini" -- sh -c 'sleep 10'
	check wall-run-killed test "$SG_RC" = 137
	s=$(seq_of "$SG_TRAIL" 'r["type"] == "limit" and r.get("limit") == "wall"')
	need wall-limit-seq "$s"
	rep wall "$SG_TRAIL"
	head_has wall-failed 1 "^Findings: the run failed \(exit status 137 \(killed by SIGKILL\)\)$"
	head_has wall-finding 5 "^  1\. limit reached: wall, record $s, \+[0-9.]+s: .*action="

	# Success in one line.
	sg_run -r "$pol" -- true
	check ok-run-status-0 test "$SG_RC" = 0
	rep ok "$SG_TRAIL"
	head_has ok-one-line 1 "^Findings: the run succeeded \(exit status 0\) with no denials\.$"
	check ok-then-header sh -c 'sed -n 2p "$1" | grep -q "^$" && sed -n 3p "$1" | grep -q "^sysgate report: "' sh "$RO"
}

sg_main cases
