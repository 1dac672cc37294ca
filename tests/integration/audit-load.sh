#!/bin/bash
# SPDX-License-Identifier: MIT
# Load: 16 threads make 20,000 mediated calls each (open of DIR/tT-I, in
# order of I per thread).  The trail holds exactly those records, each
# thread's in its order, and verifies.  AUDIT_LOAD_THREADS and
# AUDIT_LOAD_COUNT change the load (e.g. for a sanitizer build).
# Scale (issue 5): 64 threads of one process, 500 calls each, all
# waiting on the supervisor at once, the same way.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHECK="$SG_LIB_DIR/audit-check.py"
NTHREADS=${AUDIT_LOAD_THREADS:-16}
COUNT=${AUDIT_LOAD_COUNT:-20000}

cases() {
	policy load <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file
action = allow
EOF
	local d=$W/load t0 t1
	# The paths do not exist: each open is notified, decided, carried
	# out by the supervisor (ENOENT) and recorded, with no disk traffic.
	t0=$(date +%s.%N)
	SG_TIMEOUT=300 sg_run -q -r "$P/load.ini" -- "$B/audit-threads" open "$d" "$NTHREADS" "$COUNT"
	t1=$(date +%s.%N)
	local secs
	secs=$($PY -c "print('%.1f' % ($t1 - $t0))")
	echo "# $NTHREADS x $COUNT mediated calls in ${secs} s ($(wc -c <"$SG_TRAIL") bytes of trail)"
	check run-exit-0 test "$SG_RC" = 0
	check all-threads-ran test "$(grep -c '^t[0-9]* 0$' "$SG_OUT")" = "$NTHREADS"
	if $PY "$CHECK" load "$SG_TRAIL" "$d" "$NTHREADS" "$COUNT" >"$R/load.check" 2>&1; then
		SG_ERR= sg_report_pass "exact-records-in-thread-order"
	else
		SG_ERR= sg_report_fail "exact-records-in-thread-order" "$(cat "$R/load.check")"
	fi
	sed 's/^/#   /' "$R/load.check"
	check trail-verifies "$SYSGATE" verify "$SG_TRAIL"
	# The timing is reported, not judged: the machine may be busy.
	check "under-120s-(took-${secs}s)" $PY -c "import sys; sys.exit($secs >= 120)"
	rm -f "$SG_TRAIL"

	d=$W/load64
	SG_TIMEOUT=300 sg_run -q -r "$P/load.ini" -- "$B/audit-threads" open "$d" 64 500
	check 64-threads-exit-0 test "$SG_RC" = 0
	check 64-threads-all-ran test "$(grep -c '^t[0-9]* 0$' "$SG_OUT")" = 64
	if $PY "$CHECK" load "$SG_TRAIL" "$d" 64 500 >"$R/load64.check" 2>&1; then
		SG_ERR= sg_report_pass "64-threads-exact-records-in-thread-order"
	else
		SG_ERR= sg_report_fail "64-threads-exact-records-in-thread-order" "$(cat "$R/load64.check")"
	fi
	sed 's/^/#   /' "$R/load64.check"
	check 64-threads-distinct-tids $PY -c 'import json, sys
tids = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "syscall" and "/load64/t" in r.get("args", {}).get("path", ""):
        tids.add(r["tid"])
sys.exit(len(tids) != 64)' "$SG_TRAIL"
	check 64-threads-trail-verifies "$SYSGATE" verify "$SG_TRAIL"
	rm -f "$SG_TRAIL"
}

sg_main cases
