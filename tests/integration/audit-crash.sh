#!/bin/bash
# SPDX-License-Identifier: MIT
# Crash: 16 threads create files as fast as they can under sysgate; the
# supervisor gets SIGKILL after a while.  Then every complete line of the
# trail parses, `sysgate verify` reports the trail truncated after the
# last whole record, the tree is gone (PTRACE_O_EXITKILL), and every file
# that exists has an allowed create record: nothing allowed went
# unrecorded.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHECK="$SG_LIB_DIR/audit-check.py"

# crash_round NAME DELAY: one run killed DELAY seconds after the 200th
# file appeared.
crash_round() {
	local name=$1 delay=$2
	local d=$W/$name trail=$R/$name.jsonl pid i helper
	mkdir -p "$d"
	[ "$U" = root ] || chown "$U" "$d"
	helper=("$B/audit-threads" create "$d" 16 0)
	# exec all the way down: $! is the sysgate process itself.
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -q -r "$P/crash.ini" -a "$trail" -- "${helper[@]}") \
		>"$R/$name.out" 2>"$R/$name.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	# Under way: some hundreds of files (a busy machine may take a while).
	for i in $(seq 200); do
		[ "$(ls -A "$d" 2>/dev/null | wc -l)" -ge 200 ] && break
		sleep 0.05
	done
	sleep "$delay"
	if [ "$(readlink "/proc/$pid/exe")" != "$(readlink -f "$SYSGATE")" ]; then
		SG_ERR=$R/$name.err sg_report_fail "$name-sysgate-running" \
			"pid $pid is not $SYSGATE (the run ended early?)"
		wait "$pid" 2>/dev/null
		return
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	sg_reap_tmpdir "$trail"

	# The tree dies with its tracer; give the kernel a moment.
	local alive=
	for i in $(seq 100); do
		alive=$(pgrep -f -x -- "${helper[*]}")
		[ -z "$alive" ] && break
		sleep 0.1
	done
	check "$name-tree-died" test -z "$alive"
	for i in $alive; do
		kill -KILL "$i" 2>/dev/null
	done

	local files
	files=$(ls -A "$d" | wc -l)
	echo "# $name: $files files after SIGKILL at ${delay}s"
	check "$name-files-were-made" test "$files" -ge 200
	check "$name-complete-lines-parse" $PY "$CHECK" lines "$trail"
	local last out rc
	last=$($PY -c 'import sys, json
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
print(json.loads(lines[-1])["seq"])' "$trail")
	out=$("$SYSGATE" verify "$trail" 2>&1)
	rc=$?
	check "$name-verify-exit-1" test "$rc" = 1
	if grep -Eq "BAD: truncated after record $last( |$|:)" <<<"$out"; then
		SG_ERR= sg_report_pass "$name-verify-truncated-after-$last"
	else
		SG_ERR= sg_report_fail "$name-verify-truncated" \
			"expected 'truncated after record $last', got: $out"
	fi
	if $PY "$CHECK" creates "$trail" "$d" >"$R/$name.creates" 2>&1; then
		SG_ERR= sg_report_pass "$name-every-file-recorded"
	else
		SG_ERR= sg_report_fail "$name-every-file-recorded" \
			"$(cat "$R/$name.creates")" "trail: $trail"
	fi
	sed 's/^/#   /' "$R/$name.creates"
}

cases() {
	policy crash <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file
action = allow
EOF
	crash_round early 0.3
	crash_round late 1
}

sg_main cases
