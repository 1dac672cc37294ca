#!/bin/bash
# SPDX-License-Identifier: MIT
# Exit status of `sysgate run`: the command's; 128+N for a signal; 125 for
# a failure of sysgate itself, including a policy that is not understood
# (then nothing is started and the error names FILE:LINE); 126 cannot
# execute; 127 not found.  SIGTERM, SIGINT, SIGHUP and every other signal
# that would end sysgate (SIGUSR1, SIGALRM, ...) reach the tree, and the
# trail ends with run.end.
. "$(dirname "$0")/lib.sh"
sg_init

# bad NAME LINE: write policy b-NAME from stdin and expect FILE:LINE.
bad() {
	policy "b-$1"
	BAD_NAMES+=("$1")
	BAD_LINES+=("$2")
}

# signal_case NAME SIG: SIG sent to sysgate reaches the whole tree.
signal_case() {
	local name=$1 sig=$2 pidf=$W/pids-$1 pid i n rc p alive
	local trail=$R/sig-$1.jsonl
	rm -f "$pidf"
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -r "$P/good.ini" -a "$trail" -- "$B/sleeper" "$pidf" 2) \
		>"$R/sig-$1.out" 2>"$R/sig-$1.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	for i in $(seq 100); do
		n=$(cat "$pidf" 2>/dev/null | wc -l)
		[ "$n" -ge 3 ] && break
		sleep 0.1
	done
	SG_ERR=$R/sig-$1.err
	if [ "$n" -lt 3 ]; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		sg_report_fail "$name" "the tree did not start under sysgate (pids: $n of 3)"
		return
	fi
	kill -"$sig" "$pid"
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		sg_report_fail "$name" "sysgate still running 10 s after SIG$sig"
		return
	fi
	wait "$pid"
	rc=$?
	local want=$((128 + $(sg_signum "$sig")))
	if [ "$rc" != "$want" ]; then
		sg_report_fail "$name" "kill -$sig sysgate: expected status $want, got $(sg_status_text "$rc")"
		return
	fi
	# Every process of the tree must be gone (or a zombie being reaped).
	sleep 0.3
	alive=
	for p in $(cat "$pidf"); do
		if [ -r "/proc/$p/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$p/stat"; then
			alive="$alive $p"
		fi
	done
	if [ -n "$alive" ]; then
		sg_report_fail "$name" "SIG$sig did not reach the tree: still alive:$alive"
		for p in $alive; do
			kill -KILL "$p" 2>/dev/null
		done
		return
	fi
	# sysgate ended the run itself: the trail is whole.
	if ! "$PY" "$AUDITQ" "$trail" --valid --type run.end --exit "$want" >/dev/null 2>&1; then
		sg_report_fail "$name" "SIG$sig: the trail has no run.end with exit $want (or does not verify)"
		return
	fi
	sg_report_pass "$name"
}

# tmpdir_killed_case NAME [--user USER]: the private TMPDIR of a run whose
# sysgate was killed with SIGKILL (which cannot remove it) is removed by
# the next run with the same TMPDIR; a live run's is not, nor a directory
# of that name without a lock file (an older sysgate's, or anyone's).
tmpdir_killed_case() {
	local name=$1 td=$W/tmpd-$1 rd=$W/ready-$1 killed live
	local foreign=sysgate-20260101T000000Z-000000000000
	shift
	rm -rf "$td" "$rd"
	# Both writable by the command's user (--user).
	mkdir -m 1777 "$td" "$rd"
	# A run with a tree in its TMPDIR, killed.
	sg_bg_run "$name-killed" "$td" -r "$P/good.ini" -a "$R/$name-killed.jsonl" "$@" -- \
		sh -c 'mkdir "$TMPDIR/sub" && echo x > "$TMPDIR/sub/f" && echo "$TMPDIR" > "$1" && exec sleep 60' \
		- "$rd/killed"
	if ! sg_wait_file "$rd/killed"; then
		kill -KILL "$BG_PID" 2>/dev/null
		sg_report_fail "$name" "the command did not start under sysgate"
		return
	fi
	killed=$(cat "$rd/killed")
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	check "$name-left-by-sigkill" test -f "$killed/sub/f" -a -f "$killed.lock"
	# A live run, and a directory without a lock.
	sg_bg_run "$name-live" "$td" -q -r "$P/good.ini" -a "$R/$name-live.jsonl" -- \
		sh -c 'echo "$TMPDIR" > "$1" && exec sleep 60' - "$rd/live"
	if ! sg_wait_file "$rd/live"; then
		kill -KILL "$BG_PID" 2>/dev/null
		sg_report_fail "$name" "the live run did not start"
		return
	fi
	live=$(cat "$rd/live")
	mkdir "$td/$foreign" && touch "$td/$foreign/keep"
	# The next run.
	SG_ERR=$R/$name-next.err
	(cd "$W" && exec timeout -k 5 60 "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		TMPDIR="$td" "$SYSGATE" run -v -r "$P/good.ini" -a "$R/$name-next.jsonl" -- true) \
		>"$R/$name-next.out" 2>"$SG_ERR" </dev/null
	check "$name-next-run-ok" test "$?" = 0
	check "$name-killed-removed" test ! -e "$killed" -a ! -e "$killed.lock"
	check "$name-killed-says-so" grep -qF "sysgate: removed $killed, the private temp dir of a run whose sysgate was killed" "$SG_ERR"
	check "$name-live-kept" test -d "$live" -a -f "$live.lock"
	check "$name-no-lock-kept" test -f "$td/$foreign/keep"
	kill -TERM "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	check "$name-live-removed-at-its-end" test ! -e "$live" -a ! -e "$live.lock"
	# Nothing but the foreign directory and the trails is left.
	check "$name-nothing-else-left" sh -c 'test "$(ls -A "$1")" = "$2"' - "$td" "$foreign"
}

# Misspellings that must come with a suggestion.
declare -A SUGGEST=([syscall]=open [key]=access [errno]=EACCES
	[policy-key]=default [group]=@file)

cases() {
	BAD_NAMES=()
	BAD_LINES=()
	policy good <<'EOF'
[policy]
default = allow
errno = EPERM
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
access = read
action = deny
errno = EACCES
EOF
	bad syscall 5 <<'EOF'
[policy]
default = allow

[rule r]
syscalls = opne
action = deny
EOF
	bad key 6 <<'EOF'
[policy]
default = allow

[rule r]
syscalls = openat
acess = read
action = deny
EOF
	bad action 5 <<'EOF'
[policy]
default = allow
[rule r]
syscalls = openat
action = alow
EOF
	bad errno 6 <<'EOF'
[policy]
default = allow
[rule r]
syscalls = openat
action = deny
errno = EACCESS
EOF
	bad section 4 <<'EOF'
[policy]
default = allow

[rulez r]
syscalls = openat
action = deny
EOF
	bad indented 6 <<'EOF'
[policy]
default = allow

[rule r]
syscalls = openat
  action = allow
EOF
	{
		printf '[policy]\ndefault = allow\n\n[rule r]\nsyscalls = openat\npath = /'
		printf 'a%.0s' $(seq 300)
		printf '\naction = deny\n'
	} | bad long 6
	bad no-equals 5 <<'EOF'
[policy]
default = allow

[rule r]
syscalls openat
action = deny
EOF
	bad addr 6 <<'EOF'
[policy]
default = allow

[rule r]
syscalls = connect
addr = 300.1.1.1
action = deny
EOF
	bad default 2 <<'EOF'
[policy]
default = maybe
EOF
	bad policy-key 3 <<'EOF'
[policy]
default = allow
defualt = deny
EOF
	bad variable 5 <<'EOF'
[policy]
default = allow
[rule r]
syscalls = openat
path = ${NOPE}/x
action = deny
EOF
	bad access 5 <<'EOF'
[policy]
default = allow
[rule r]
syscalls = openat
access = reed
action = deny
EOF
	bad group 4 <<'EOF'
[policy]
default = allow
[rule r]
syscalls = @fiel
action = deny
EOF
	cp "$B/exit-with" "$W/notexec"
	chmod 0644 "$W/notexec"
	printf '\177ELF garbage\n' >"$W/garbage"
	chmod 0755 "$W/garbage"
	[ "$U" = root ] || chown -R "$U:" "$W"

	# --- the command's status
	c exit-0                good 0        "--type run.end --exit 0"   "$B/exit-with" 0
	c exit-3                good 3        "--type run.end --exit 3"   "$B/exit-with" 3
	c exit-255              good 255      - "$B/exit-with" 255
	c exit-sh               good 7        - sh -c 'exit 7'
	c exit-default-policy   -    3        - sh -c 'exit 3'
	c signal-term           good sig:TERM "--type run.end --exit 143" "$B/kill-self" TERM
	c signal-kill           good sig:KILL - "$B/kill-self" KILL
	c signal-segv           good sig:SEGV - "$B/kill-self" SEGV
	c signal-abrt           good sig:ABRT - "$B/kill-self" ABRT
	c signal-usr1           good sig:USR1 - "$B/kill-self" USR1
	c signal-sh-kill-self   good sig:KILL - sh -c 'kill -9 $$'
	c not-executable        good 126      - "$W/notexec"
	c not-executable-dir    good 126      - "$W"
	c not-executable-enoexec good 126     - "$W/garbage"
	c not-found-abs         good 127      - /nonexistent/program
	c not-found-path        good 127      - sysgate-no-such-command
	c not-found-relative    good 127      - ./missing

	# --- sysgate's own failures: 125, and nothing started
	local i b line
	for i in "${!BAD_NAMES[@]}"; do
		b=${BAD_NAMES[$i]}
		line=${BAD_LINES[$i]}
		c "broken-policy-$b"  "b-$b" 125 - \
			sh -c "touch '$W/marker-$b'"
		check "broken-policy-$b-started-nothing" test ! -e "$W/marker-$b"
		check "broken-policy-$b-says-file-line" grep -q "b-$b\.ini:$line:" "$SG_ERR"
		if [ -n "${SUGGEST[$b]:-}" ]; then
			check "broken-policy-$b-suggests-${SUGGEST[$b]}" \
				grep -q "'${SUGGEST[$b]}'" "$SG_ERR"
		fi
		sg_raw check "$P/b-$b.ini"
		check "check-broken-$b-fails" test "$SG_RC" != 0
		check "check-broken-$b-says-file-line" grep -q "b-$b\.ini:$line:" "$SG_ERR"
	done
	c missing-policy        "$P/no-such.ini" 125 - sh -c "touch '$W/marker-missing'"
	check missing-policy-started-nothing test ! -e "$W/marker-missing"
	check missing-policy-named grep -q "no-such.ini" "$SG_ERR"
	sg_raw run -a /nonexistent-dir/trail.jsonl -- sh -c "touch '$W/marker-audit'"
	check unwritable-audit-125 test "$SG_RC" = 125
	check unwritable-audit-started-nothing test ! -e "$W/marker-audit"
	sg_raw run
	check usage-no-command-125 test "$SG_RC" = 125
	sg_raw run --no-such-option -- sh -c "touch '$W/marker-usage'"
	check usage-bad-option-125 test "$SG_RC" = 125
	check usage-bad-option-started-nothing test ! -e "$W/marker-usage"
	sg_raw check "$P/good.ini"
	check check-good-policy test "$SG_RC" = 0
	check check-shows-mechanism grep -Eqi 'notif' "$SG_OUT" "$SG_ERR"

	# --- the command starts with every signal at its default disposition:
	# ignored ones (inherited by sysgate, or its own SIGPIPE and SIGXFSZ)
	# would stay ignored across the exec if sysgate did not reset them,
	# 32 and 33 included (which glibc's sigaction() refuses to touch, and
	# which some parents leave ignored).  Natively, the same shell passes
	# them on (the check can fail).
	local ign='trap "" INT QUIT HUP USR1 PIPE TERM;'
	as_user bash -c "$ign"' exec cat /proc/self/status' >"$R/sigign-native.out"
	check sigign-native-inherits grep -Eq '^SigIgn:[[:space:]]*0*[1-9a-f]' "$R/sigign-native.out"
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_ERR=$R/$SG_N.err
	as_user bash -c "$ign"' exec "$0" run -q -r "$1" -a "$2" -- cat /proc/self/status' \
		"$SYSGATE" "$P/good.ini" "$SG_TRAIL" >"$R/sigign.out" 2>"$SG_ERR"
	check sigign-reset-for-command sh -c 'grep ^Sig "$1"; grep -Eq "^SigIgn:[[:space:]]*0{16}$" "$1"' - "$R/sigign.out"
	check sigign-none-caught grep -Eq '^SigCgt:[[:space:]]*0{16}$' "$R/sigign.out"

	# --- signals sent to sysgate reach the tree
	signal_case sigterm-reaches-tree TERM
	signal_case sigint-reaches-tree INT
	signal_case sighup-reaches-tree HUP
	# Signals whose default action ends a process: passed on too, never
	# the end of sysgate without run.end.
	signal_case sigusr1-reaches-tree USR1
	signal_case sigusr2-reaches-tree USR2
	signal_case sigalrm-reaches-tree ALRM
	signal_case sigrtmin-reaches-tree RTMIN

	# --- a killed sysgate's private TMPDIR is removed by the next run
	tmpdir_killed_case tmpdir-killed
	if [ "$U" = root ] && id nobody >/dev/null 2>&1; then
		tmpdir_killed_case tmpdir-killed-user --user nobody
	fi
}

sg_main cases
