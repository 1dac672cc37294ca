#!/bin/bash
# SPDX-License-Identifier: MIT
# --user NAME (sysgate started as root): the command runs as NAME, and every
# call the supervisor carries out for it is done with the caller's
# credentials: the supervisor lends none of root's rights.  Checked from
# outside: file owners, what was read, what was bound.  Started as
# another user, --user is refused.
. "$(dirname "$0")/lib.sh"
sg_init

# The file-system uid of sysgate's event loop (its main thread), from
# outside: the fourth field of Uid: in /proc/PID/status.
loop_fsuid() {
	awk '/^Uid:/ { print $5 }' "/proc/$1/status"
}

# The event loop keeps a caller's credentials from one of its calls to the
# next (a switch costs ~9 us), and takes its own back before any work of
# its own: here a fork and an exit (ptrace stops, SIGCHLD).  The command
# says where it is on stdout, with writes no rule names (nothing notified
# after its last open), and waits on stdin.
loop_creds() {
	local held=- own=- line st
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_ERR=$R/$SG_N.err
	coproc LC { cd "$W" && exec timeout -k 5 60 env -i PATH="$SG_PATH" HOME="$H" \
		LANG=C.UTF-8 "$SYSGATE" run -q --user nobody -r "$P/open.ini" -a "$SG_TRAIL" -- \
		/usr/bin/python3 -c 'import os, sys
open("/etc/hostname").read()
os.write(1, b"held\n")
os.read(0, 1)
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
os.write(1, b"forked\n")
os.read(0, 1)' 2>"$SG_ERR"; }
	# timeout execs sysgate: its pid is the one found under it.
	local tpid=$LC_PID sgpid=
	if read -r -t 20 -u "${LC[0]}" line && [ "$line" = held ]; then
		sgpid=$(pgrep -P "$tpid" -x sysgate)
		[ -n "$sgpid" ] && held=$(loop_fsuid "$sgpid")
		echo >&"${LC[1]}"
		if read -r -t 20 -u "${LC[0]}" line && [ "$line" = forked ]; then
			own=$(loop_fsuid "$sgpid")
		fi
		echo >&"${LC[1]}"
	fi
	exec {LC[1]}>&-
	wait "$tpid"
	st=$?
	check loop-creds-kept-after-a-call test "$held" = 65534
	check loop-creds-own-after-fork-and-exit test "$own" = 0
	check loop-creds-run-ok test "$st" = 0
}

cases() {
	policy open <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file, @stat
action = allow

[rule net]
syscalls = @network
action = allow
EOF
	if [ "$U" != root ]; then
		SG_RUN_OPTS="--user root"
		c user-needs-root open 125 - id -u
		SG_RUN_OPTS=
		check user-needs-root-says-why grep -q -- "--user needs root" "$SG_ERR"
		return
	fi
	# A name or uid the password database lacks: a clear error (a
	# static sysgate crashed in glibc's NSS modules).
	local who
	for who in sg-no-such-user 4242424; do
		sg_raw run --user "$who" -- true
		check "unknown-user-$who-status" test "$SG_RC" = 125
		check "unknown-user-$who-says-why" grep -q -- "--user $who: no such user" "$SG_ERR"
	done
	# A file only root may read, in a directory nobody may enter.
	local sec=$W/rootonly
	mkdir -p "$sec"
	echo TOPSECRET >"$sec/f"
	chmod 600 "$sec/f"
	chmod 711 "$sec"
	chmod 777 "$W"
	SG_RUN_OPTS="--user nobody"
	c runs-as-user open 0 "--type proc.exec" sh -c 'test "$(id -u)" = 65534'
	c read-root-file open EACCES "--type syscall --syscall openat --path $sec/f --action allow --errno EACCES" \
		"$B/try-open" --cat "$sec/f"
	check nothing-read sh -c "! grep -q TOPSECRET '$SG_OUT'"
	c create-owned-by-user open 0 "" sh -c 'echo x > made-by-nobody'
	check created-owner sh -c "test \"\$(stat -c %u '$W/made-by-nobody')\" = 65534"
	# The caller's umask, read with its credentials, shapes what is made.
	c create-with-umask open 0 "" sh -c 'umask 027; echo x > um-file; mkdir um-dir; umask 002; echo y > um-file2'
	check create-with-umask-modes test "$(stat -c %a "$W/um-file") $(stat -c %a "$W/um-dir") $(stat -c %a "$W/um-file2")" = "640 750 664"
	c chown-to-root-refused open EPERM "--type syscall.result --syscall chown --errno EPERM" \
		"/usr/bin/python3" -c 'import os, sys
try:
    os.chown("made-by-nobody", 0, 0)
except PermissionError:
    sys.exit(1)'
	c stat-root-only-dir open 0 "" "/usr/bin/python3" -c 'import os; os.stat("rootonly")'
	c bind-low-port open EACCES "--type syscall --syscall bind --errno EACCES" \
		"$B/try-bind" 127.0.0.1 80
	c bind-high-port open 0 "--type syscall.result --syscall bind --field result=0" \
		"$B/try-bind" 127.0.0.1 0
	# File attributes: the caller's own file, continued, works as for
	# nobody natively; root's file is refused by the kernel (not its
	# owner); with a second thread sysgate would carry it out with root's
	# CAP_LINUX_IMMUTABLE: refused.
	echo attr >"$W/attr-root"
	c chattr-own-file open 0 "--type syscall --syscall ioctl --path $W/made-by-nobody --action allow" \
		"$B/try-fdmeta" "$W/made-by-nobody" chattr 80
	check chattr-own-file-done sh -c "lsattr '$W/made-by-nobody' | grep -q '^[^ ]*A'"
	c chattr-root-file open EPERM "--type syscall --syscall ioctl --path $W/attr-root --action allow" \
		"$B/try-fdmeta" "$W/attr-root" chattr 80
	c chattr-shared-fds open EPERM "--type syscall --syscall ioctl --path $W/made-by-nobody --rule sysgate:shared-fds --errno EPERM" \
		"$B/try-fdmeta" --thread "$W/made-by-nobody" chattr 10
	check chattr-shared-fds-kept sh -c "lsattr '$W/made-by-nobody' | grep -qv '^[^ ]*a'"
	chattr -a -A "$W/made-by-nobody"
	# The caller's credentials are kept per task between calls: each
	# change (setfsuid in one thread, an exec) shows in the next open.
	SG_RUN_OPTS="--user root"
	c fscreds-followed open 0 "" "$B/try-fscreds" "$sec/f"
	SG_RUN_OPTS=
	check fscreds-followed-says-nothing sh -c "! grep -q 'try-fscreds:' '$SG_ERR'"
	check root-file-intact grep -q TOPSECRET "$sec/f"
	loop_creds
	# An ask hook is sysgate's program: it runs with sysgate's rights in
	# sysgate's directory, even one the caller may not enter, and even
	# when the question comes while the loop holds the caller's.
	printf '%s\n' '#!/bin/sh' 'read line' 'echo allow' >"$R/ask-allow"
	chmod 755 "$R/ask-allow"
	policy ask-user <<EOF
[policy]
default = allow
audit = all

[rule ask-hostname]
syscalls = @file
path = /etc/hostname
action = ask
ask = $R/ask-allow
EOF
	chmod 700 "$W"
	SG_RUN_OPTS="--user nobody"
	c ask-hook-as-sysgate ask-user 0 "--type syscall --path /etc/hostname --action allow --field decided_by=\"hook\"" \
		"$B/try-open" /etc/hostname
	SG_RUN_OPTS=
	chmod 777 "$W"
	# What the command leaves in its private TMPDIR is removed with its
	# user's rights, not root's: a directory of root's that it moved in
	# there (inside one of its own) stays, and sysgate says so.
	local mv=$W/movable where
	rm -rf "$mv" "$W/tmpdir.where"
	mkdir -p "$mv/rootsub"
	echo KEEP >"$mv/rootsub/keep"
	chmod 755 "$mv/rootsub"
	chown nobody "$mv"
	SG_RUN_OPTS="--user nobody"
	c tmpdir-removed-as-user open 0 "" "/usr/bin/python3" -c 'import os, sys
os.rename(sys.argv[1], os.path.join(os.environ["TMPDIR"], "movable"))
open("tmpdir.where", "w").write(os.environ["TMPDIR"])' "$mv"
	SG_RUN_OPTS=
	where=$(cat "$W/tmpdir.where" 2>/dev/null)
	check tmpdir-root-file-kept test -n "$where" -a -f "$where/movable/rootsub/keep"
	check tmpdir-not-removed-says-why grep -q "cannot remove the private temp dir $where: Permission denied" "$SG_ERR"
	case $where in
	/tmp/sysgate-*) rm -rf "$where" ;;
	esac
	# Without -a the trail goes to the home of whoever started sysgate
	# (it stays root's), never to NAME's: nobody's, often /nonexistent,
	# is not made.
	local nhome had=0
	nhome=$(getent passwd nobody | cut -d: -f6)
	[ -n "$nhome" ] && [ -e "$nhome" ] && had=1
	sg_raw run --user nobody -- true
	check default-trail-status test "$SG_RC" = 0
	check default-trail-in-our-home grep -q "audit trail: $H/.local/state/sysgate/runs/" "$SG_ERR"
	check default-trail-not-in-users-home sh -c "[ $had = 1 ] || [ -z '$nhome' ] || [ ! -e '$nhome' ]"
}

sg_main cases
