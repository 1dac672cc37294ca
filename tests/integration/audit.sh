#!/bin/bash
# SPDX-License-Identifier: MIT
# The audit trail: every line valid JSON, seq 1..N, one run id, run.start
# first and run.end last, the hash chain as documented in audit/audit.h;
# decisions carry pid, tid, exe, syscall, args, paths, rule, action, errno;
# tracee bytes (newlines, quotes, invalid UTF-8) are escaped; the audit
# level is honoured; a record is written before the reply, so a SIGKILL of
# sysgate loses nothing that ran.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy audit <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
access = read, write
action = deny
errno = EACCES

[rule work]
syscalls = @file
path = ${CWD}/**
action = allow

[rule devices]
syscalls = @file
path = /dev/null
path = /dev/tty
action = allow

[rule no-writes]
syscalls = @file
path = /**
access = write, create, delete
action = deny
errno = EROFS
EOF
	sed 's/^audit = all/audit = denied/' "$P/audit.ini" | policy audit-denied
	sed 's/^audit = all/audit = none/' "$P/audit.ini" | policy audit-none
	local S=$H/.ssh/id_rsa
	local nl=$'new\nline' q="q\"u\\o'te" bad=$'bad\xff\xfe\xc3(' ctl=$'ctl\x01\x1b[31m\t' uni='uni-é中'

	c valid-true            audit 0 "--valid --chain; --type run.start --has version --has argv --has cwd --has run; --type run.end --exit 0" \
		/bin/true
	c valid-default-policy  -     0 "--valid --chain" /bin/true
	c valid-mixed           audit 4 "--valid --chain; --type run.end --exit 4; --type proc.exec --argv0 cat --min 2; --type proc.exit --min 3" \
		sh -c "cat readme.txt >/dev/null; cat '$S'; ls / >/dev/null; exit 4"
	c deny-record-fields    audit EACCES "--type syscall --path $S --has pid --has tid --has exe --has syscall --has args --has paths.0.path --has paths.0.access --has paths.0.rule --has paths.0.action --has rule --has action --has errno" \
		"$B/try-open" "$S"
	c deny-record-values    audit EACCES "--type syscall --syscall openat --exe $B/try-open --field paths.0.path=\"$S\" --field paths.0.access=\"read\" --field paths.0.rule=\"no-secrets\" --field paths.0.action=\"deny\" --rule no-secrets --action deny --errno EACCES" \
		"$B/try-open" "$S"
	c allow-record-result   audit 0 "--type syscall --syscall openat --path $W/readme.txt --action allow --rule work --has result" \
		"$B/try-open" "$W/readme.txt"
	c rename-two-paths      audit EROFS "--type syscall --syscall rename --path $W/readme.txt --path $O/r --action deny --rule no-writes; --type syscall --syscall rename --field paths.1.path=\"$O/r\"" \
		"$B/try-rename" "$W/readme.txt" "$O/r"
	c records-in-order      audit 0 "--valid; --type proc.exec --argv0 sh" \
		sh -c "for i in 1 2 3 4 5 6; do cat readme.txt '$S' >/dev/null 2>&1 & done; wait; exit 0"

	# Tracee bytes that JSON must escape.
	c weird-newline         audit 0 "--valid --chain; --type syscall --path $W/$nl --action allow" \
		"$B/try-open" "$W/$nl" wc
	c weird-quotes          audit 0 "--valid --chain; --type syscall --path $W/$q --action allow" \
		"$B/try-open" "$W/$q" wc
	c weird-invalid-utf8    audit 0 "--valid --chain; --type syscall --path $W/$bad --action allow" \
		"$B/try-open" "$W/$bad" wc
	c weird-control         audit 0 "--valid --chain; --type syscall --path $W/$ctl --action allow" \
		"$B/try-open" "$W/$ctl" wc
	c weird-unicode         audit 0 "--valid --chain; --type syscall --path $W/$uni --action allow" \
		"$B/try-open" "$W/$uni" wc
	c weird-denied          audit EROFS "--valid --chain; --type syscall --path $O/$nl$bad$q --action deny" \
		"$B/try-open" "$O/$nl$bad$q" wc
	c weird-argv            audit 0 "--valid --chain; --type proc.exec --argv0 sh" \
		sh -c 'exit 0' "$nl$bad$q$ctl"
	c weird-exec-path       audit 0 "--valid --chain" \
		sh -c "cp '$B/exit-with' './$nl$bad' && './$nl$bad' 0"
	c huge-argv             audit 0 "--valid --chain" \
		sh -c 'exit 0' "$(head -c 100000 /dev/zero | tr '\0' 'x')"

	# Audit levels.
	c level-denied          audit-denied EACCES "--valid; --type syscall --action allow --count 0; --type syscall --path $S --action deny; --type proc.exec --min 1" \
		sh -c "cat readme.txt >/dev/null; '$B/try-open' '$S'"
	c level-none            audit-none EACCES "--valid; --type syscall --count 0; --type proc.exec --min 1; --type run.end" \
		sh -c "cat readme.txt >/dev/null; '$B/try-open' '$S'"

	# A trail without -a: sysgate says where it is.
	sg_raw run -- /bin/true
	local found
	found=$($PY - "$W" "$SG_ERR" "$SG_OUT" <<'EOF'
import os, re, sys
cwd = sys.argv[1]
for name in sys.argv[2:]:
    for tok in re.split(r"[\s'\"`]+", open(name, errors="replace").read()):
        tok = tok.strip(".,:;()[]<>")
        for p in (tok, os.path.join(cwd, tok)):
            try:
                with open(p, errors="replace") as f:
                    if '"run.start"' in f.readline():
                        print(p)
                        sys.exit(0)
            except OSError:
                pass
EOF
)
	check default-trail-path-printed test -n "$found"
	[ -n "$found" ] && check default-trail-valid $PY "$AUDITQ" "$found" --valid

	# Records reach the file before the reply: kill -9 sysgate mid-run.
	local trail=$R/killed.jsonl pid i
	rm -f "$W/ready"
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -r "$P/audit.ini" -a "$trail" -- \
		sh -c "cat readme.txt >/dev/null; '$B/try-open' '$S'; '$B/try-open' '$W/made-before-kill' wc; touch '$W/ready'; exec sleep 30") \
		>"$R/killed.out" 2>"$R/killed.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	for i in $(seq 100); do
		[ -e "$W/ready" ] && break
		sleep 0.1
	done
	sleep 0.2
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	check killed-ready-reached test -e "$W/ready"
	check killed-trail-lines-valid $PY "$AUDITQ" "$trail" --partial
	check killed-trail-has-deny $PY "$AUDITQ" "$trail" --type syscall --path "$S" --action deny
	check killed-trail-has-create $PY "$AUDITQ" "$trail" --type syscall --path "$W/made-before-kill" --action allow
	check killed-trail-has-touch $PY "$AUDITQ" "$trail" --type syscall --path "$W/ready" --action allow
	# The tree dies with its supervisor (PTRACE_O_EXITKILL).
	local spid gone=1
	spid=$($PY "$AUDITQ" "$trail" --dump --type proc.exec --argv0 sleep |
		$PY -c 'import json,sys; print(" ".join(str(json.loads(l)["pid"]) for l in sys.stdin))')
	sleep 0.5
	for i in $spid; do
		if [ -r "/proc/$i/cmdline" ] && tr '\0' ' ' <"/proc/$i/cmdline" | grep -q '^sleep 30'; then
			gone=0
			kill -KILL "$i"
		fi
	done
	check killed-tree-died test "$gone" = 1
	sg_reap_tmpdir "$trail"
	check killed-sleep-was-recorded test -n "$spid"

	# --audit-fd N: the trail written to an fd the caller opened.  Neither
	# it nor --denials-fd's reaches the tree (the child is forked before
	# the trail is opened: the fds must be close-on-exec by then), or the
	# command could write into its own trail.
	local fdtrail=$R/fd-trail.$U.jsonl fddenials=$R/fd-denials.$U.jsonl
	rm -f "$fdtrail" "$fddenials"
	exec 3>"$fdtrail" 4>"$fddenials"
	sg_raw run --audit-fd 3 --denials-fd 4 -- sh -c \
		'for f in 3 4; do [ -e /proc/self/fd/$f ] && echo "inherited fd $f"; done; cat /etc/shadow; exit 0'
	exec 3>&- 4>&-
	check audit-fd-run test "$SG_RC" = 0
	check audit-fd-not-inherited test ! -s "$SG_OUT"
	check audit-fd-trail-verifies "$SYSGATE" verify "$fdtrail"
	check audit-fd-trail-has-exec $PY "$AUDITQ" "$fdtrail" --type proc.exec --argv0 sh
	check audit-fd-denial-written test -s "$fddenials"
}

sg_main cases
