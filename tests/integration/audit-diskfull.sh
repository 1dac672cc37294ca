#!/bin/bash
# SPDX-License-Identifier: MIT
# Disk full: the trail cannot be written (a 64 KiB tmpfs, when we may mount
# one; and RLIMIT_FSIZE) while threads create files as fast as they can.
# sysgate fails closed: it exits 125 saying why, the tree is stopped, and
# every file the workload created has its record (nothing allowed went
# unrecorded); the trail's whole lines parse and it reads as truncated.
# Also: the trail truncated under the supervisor (by the tree, under a
# policy that mediates no file call), which makes the copy into the mapped
# trail fault: sysgate fails closed the same way instead of dying of
# SIGBUS.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHECK="$SG_LIB_DIR/audit-check.py"

MNT=
unmount() {
	local rc=$?
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	(exit $rc)
	sg_cleanup
}
trap unmount EXIT

# failed_closed NAME STATUS STDERR WHY: sysgate exited 125 and its stderr
# names the audit trail and WHY (an extended regex).
failed_closed() {
	local name=$1 rc=$2 err=$3 why=$4
	SG_ERR=$err
	if [ "$rc" = 125 ]; then
		sg_report_pass "$name-exit-125"
	else
		sg_report_fail "$name-exit-125" "got $(sg_status_text "$rc")"
	fi
	if grep -Eq "audit trail.*($why)" "$err"; then
		sg_report_pass "$name-says-why"
	else
		sg_report_fail "$name-says-why" "no 'audit trail ... $why' on stderr"
	fi
	SG_ERR=
}

# full_round NAME TRAIL PREFIX...: run the workload with its trail at
# TRAIL, sysgate started through PREFIX (e.g. prlimit); check the outcome.
full_round() {
	local name=$1 trail=$2
	shift 2
	local d=$W/$name i helper
	mkdir -p "$d"
	[ "$U" = root ] || chown "$U" "$d"
	helper=("$B/audit-threads" create "$d" 4 0)
	(cd "$W" && exec timeout -k 5 60 "${SG_AS[@]}" "$@" env -i \
		PATH="$SG_PATH" HOME="$H" "$SYSGATE" run -r "$P/full.ini" \
		-a "$trail" -- "${helper[@]}") \
		>"$R/$name.out" 2>"$R/$name.err" </dev/null
	failed_closed "$name" $? "$R/$name.err" "No space left on device|File too large"

	# Stopped: no victim left, and no file appears any more.
	local alive= n1 n2
	for i in $(seq 50); do
		alive=$(pgrep -f -x -- "${helper[*]}")
		[ -z "$alive" ] && break
		sleep 0.1
	done
	check "$name-tree-stopped" test -z "$alive"
	for i in $alive; do
		kill -KILL "$i" 2>/dev/null
	done
	n1=$(ls -A "$d" | wc -l)
	sleep 0.3
	n2=$(ls -A "$d" | wc -l)
	echo "# $name: $n1 files created, trail $(wc -c <"$trail") bytes"
	check "$name-no-file-after-exit" test "$n1" = "$n2"
	check "$name-files-were-made" test "$n1" -gt 0
	check "$name-complete-lines-parse" $PY "$CHECK" lines "$trail"
	if $PY "$CHECK" creates "$trail" "$d" >"$R/$name.creates" 2>&1; then
		SG_ERR= sg_report_pass "$name-every-file-recorded"
	else
		SG_ERR= sg_report_fail "$name-every-file-recorded" \
			"$(cat "$R/$name.creates")" "trail: $trail"
	fi
	local out
	out=$("$SYSGATE" verify "$trail" 2>&1)
	if grep -q "BAD: truncated after record" <<<"$out"; then
		SG_ERR= sg_report_pass "$name-verify-truncated"
	else
		SG_ERR= sg_report_fail "$name-verify-truncated" "got: $out"
	fi
}

# The tree truncates the trail (the policy mediates no file call, so the
# kernel lets it), then goes on making calls that are recorded.
truncated_round() {
	local trail=$R/cut.jsonl marker=$W/cut-after-$U
	rm -f "$trail" "$marker"
	(cd "$W" && exec timeout -k 5 60 "${SG_AS[@]}" env -i \
		PATH="$SG_PATH" HOME="$H" "$SYSGATE" run -r "$P/nofiles.ini" \
		-a "$trail" -- sh -c ": > '$trail'; /bin/true; /bin/true; : > '$marker'") \
		>"$R/cut.out" 2>"$R/cut.err" </dev/null
	failed_closed truncated $? "$R/cut.err" "Input/output error"
	# Stopped at its first exec after the cut: the last command never ran.
	check "truncated-tree-stopped" test ! -e "$marker"
	check "truncated-verify-fails" sh -c "! '$SYSGATE' verify '$trail' >/dev/null 2>&1"
}

cases() {
	policy nofiles <<'EOF'
[policy]
default = allow
audit = all

[rule net]
syscalls = connect
action = allow
EOF
	truncated_round
	policy full <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file
action = allow
EOF
	local ran=0
	command -v prlimit >/dev/null || sg_harness_error "prlimit(1) is missing"
	full_round fsize "$R/fsize.jsonl" prlimit --fsize=65536 --
	ran=1
	if [ "$(id -u)" = 0 ]; then
		MNT=$T/full-$U
		mkdir -p "$MNT"
		if mount -t tmpfs -o size=64k,mode=0777 tmpfs "$MNT" 2>"$R/mount.err"; then
			full_round tmpfs "$MNT/trail.jsonl" env
			cp "$MNT/trail.jsonl" "$R/tmpfs.jsonl" 2>/dev/null
			umount "$MNT"
			MNT=
		else
			echo "# no tmpfs round: $(cat "$R/mount.err")"
		fi
	else
		echo "# no tmpfs round: not root"
	fi
	[ $ran = 1 ]
}

sg_main cases
