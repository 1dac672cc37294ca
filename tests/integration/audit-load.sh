#!/bin/bash
# SPDX-License-Identifier: MIT
# Load: 16 threads make 20,000 mediated calls each (open of DIR/tT-I, in
# order of I per thread).  The trail holds exactly those records, each
# thread's in its order, and verifies.  AUDIT_LOAD_THREADS and
# AUDIT_LOAD_COUNT change the load (e.g. for a sanitizer build).
# Scale: 64 threads of one process, 500 calls each, all
# waiting on the supervisor at once, the same way.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHECK="$SG_LIB_DIR/audit-check.py"
NTHREADS=${AUDIT_LOAD_THREADS:-16}
COUNT=${AUDIT_LOAD_COUNT:-20000}

# load NAME NTHREADS COUNT: audit-threads opens W/NAME/tT-I under the load
# policy; the checks that every record is there, in each thread's order,
# and that the trail verifies are named with NAME (none for "load").  The
# trail is left in SG_TRAIL, the wall time in LOAD_SECS.
load() {
	local name=$1 n=$2 count=$3 pre='' t0 t1
	[ "$name" = load ] || pre="$name-"
	# The paths do not exist: each open is notified, decided, carried
	# out by the supervisor (ENOENT) and recorded, with no disk traffic.
	t0=$(date +%s.%N)
	SG_TIMEOUT=300 sg_run -q -r "$P/load.ini" -- "$B/audit-threads" open "$W/$name" "$n" "$count"
	t1=$(date +%s.%N)
	LOAD_SECS=$($PY -c "print('%.1f' % ($t1 - $t0))")
	echo "# $n x $count mediated calls in ${LOAD_SECS} s ($(wc -c <"$SG_TRAIL") bytes of trail)"
	check "${pre}run-exit-0" test "$SG_RC" = 0
	check "${pre}all-threads-ran" test "$(grep -c '^t[0-9]* 0$' "$SG_OUT")" = "$n"
	if $PY "$CHECK" load "$SG_TRAIL" "$W/$name" "$n" "$count" >"$R/$name.check" 2>&1; then
		SG_ERR= sg_report_pass "${pre}exact-records-in-thread-order"
	else
		SG_ERR= sg_report_fail "${pre}exact-records-in-thread-order" "$(cat "$R/$name.check")"
	fi
	sed 's/^/#   /' "$R/$name.check"
	check "${pre}trail-verifies" "$SYSGATE" verify "$SG_TRAIL"
}

cases() {
	policy load <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file
action = allow
EOF
	load load "$NTHREADS" "$COUNT"
	# The timing is reported, not judged: the machine may be busy.
	check "under-120s-(took-${LOAD_SECS}s)" $PY -c "import sys; sys.exit($LOAD_SECS >= 120)"
	rm -f "$SG_TRAIL"

	load 64-threads 64 500
	check 64-threads-distinct-tids $PY -c 'import json, sys
tids = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "syscall" and "/64-threads/t" in r.get("args", {}).get("path", ""):
        tids.add(r["tid"])
sys.exit(len(tids) != 64)' "$SG_TRAIL"
	rm -f "$SG_TRAIL"
}

sg_main cases
