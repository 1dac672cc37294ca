#!/bin/bash
# SPDX-License-Identifier: MIT
# TOCTOU attackers per class of system call (SECURITY.md,
# *Time of check and time of use*): a flipper
# rewrites the checked argument in a loop, between an allowed value and a
# denied one, while the caller makes the call in a loop.
#
#   fs-create   mkdir, rmdir, unlink, rename, link, symlink (both paths):
#               a path in $O, which the policy closes to every file call,
#               or the same path in its allowed twin ${O%e}f (one byte
#               apart: the flipper swaps one word, no torn paths);
#   fs-meta     chmod, chown, truncate, utime(s), utimensat, set/remove
#               xattr of a work file or a protected file in $O;
#   net         connect, sendto, sendmsg, sendmmsg to 127.0.0.1:PORT_A
#               (allowed) or 127.0.0.1:PORT_D (denied), two listeners;
#   stat        the stat family, access, readlink, getxattr under a policy
#               that denies @stat on a secret dir ($W/rc/p1; public twin
#               $W/rc/p0);
#   proc-*      the same with the flipper a separate PROCESS sharing the
#               memory: clone(CLONE_VM) without CLONE_THREAD (vm), or a
#               forked child sharing a MAP_SHARED|MAP_ANONYMOUS page (shm).
#
# The forbidden effect is checked from outside, never by the attacker's
# word: a snapshot of $O (type, mode, owner, size, links, inode, mtime,
# ctime, xattrs, link targets) before and after, the lines the denied
# listener received, the secret inodes and strings against every answer
# the attacker got.  Every attacker is first run natively (no sysgate) and
# must produce the forbidden effect there, else the test proves nothing
# (harness error).  The trail must show denials of each system call, so
# the supervisor did see the denied value.
. "$(dirname "$0")/lib.sh"
sg_init

SECS=${SG_RACE_SECONDS:-2}
FULL_SECS=$SECS
NATIVE_SECS=${SG_RACE_NATIVE_SECONDS:-0.5}

FS_CREATE="mkdir mkdirat rmdir unlinkat-dir unlink unlinkat rename-from rename-to renameat2-to link-from link-to symlink-to"
FS_META="chmod fchmodat chown lchown fchownat truncate utime utimes utimensat setxattr lsetxattr removexattr"
STAT_OPS="stat lstat newfstatat statx access faccessat2 readlink readlinkat getxattr lgetxattr"
PROC_OPS="mkdir rmdir unlink rename-from rename-to link-to symlink-to chmod truncate utimensat setxattr"

# The system call each OP of race-path / race-net makes.
op_syscall() {
	case $1 in
	unlinkat-dir) echo unlinkat ;;
	rename-from|rename-to) echo rename ;;
	renameat2-to) echo renameat2 ;;
	link-from|link-to) echo link ;;
	symlink-to) echo symlink ;;
	*) echo "$1" ;;
	esac
}

# Audit queries: at least one denial of each OP's system call.
denials_of() {
	local q='' op s seen=' '
	for op in "$@"; do
		s=$(op_syscall "$op")
		case $seen in *" $s "*) continue ;; esac
		seen="$seen$s "
		q="$q${q:+;}--syscall $s --action deny --min 1"
	done
	echo "$q"
}

# snap DIR: every object under DIR (and DIR) with what a call could change.
snap() {
	"$PY" - "$1" <<'PYEOF'
import os, stat, sys
root = sys.argv[1]
def show(p):
    st = os.lstat(p)
    x = []
    if not stat.S_ISLNK(st.st_mode):
        for n in sorted(os.listxattr(p)):
            x.append("%s=%r" % (n, os.getxattr(p, n)))
    link = os.readlink(p) if stat.S_ISLNK(st.st_mode) else ""
    print("%s\t%o %d:%d size=%d nlink=%d ino=%d mtime=%d ctime=%d link=%s xattr=%s" % (
        p, st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_nlink,
        st.st_ino, st.st_mtime_ns, st.st_ctime_ns, link, ",".join(x)))
show(root)
for d, dirs, files in os.walk(root):
    for n in sorted(dirs + files):
        show(os.path.join(d, n))
PYEOF
}

# changed BEFORE AFTER: the paths whose line differs, appeared or went.
changed() {
	diff "$1" "$2" | sed -n 's/^[<>] \([^	]*\)	.*/\1/p' | sort -u
}

# fs_prepare ADIR DDIR OP...: fresh dirs, and DDIR/OP as the OP needs it.
fs_prepare() {
	local a=$1 d=$2 op
	shift 2
	rm -rf "$a" "$d"
	mkdir -p "$a" "$d"
	for op in "$@"; do
		case $op in
		mkdir|mkdirat|rename-to|renameat2-to|link-to|symlink-to) ;;
		rmdir|unlinkat-dir) mkdir "$d/$op" ;;
		*) echo "PROTECTED $op" >"$d/$op"
		   chmod 0644 "$d/$op"
		   "$PY" -c 'import os,sys; os.setxattr(sys.argv[1], "user.keep", b"1")' "$d/$op" ;;
		esac
	done
	[ "$U" = root ] || chown -R "$U:" "$a" "$d"
}

# fs_case NAME FLIPPER OP...: native win, then the run under sysgate.
fs_case() {
	local name=$1 fl=$2 a=$OK/rc d=$O/rc op ch left miss
	shift 2
	# Natively each OP must change its object in $O; an OP that lost
	# the race by chance (a flipper not scheduled) gets two more tries.
	left="$*"
	for try in 1 2 3 4 5; do
		# shellcheck disable=SC2086
		fs_prepare "$a" "$d" $left
		snap "$O" >"$R/$name.native0"
		# shellcheck disable=SC2086
		as_user timeout -k 5 60 "$B/race-path" --flipper "$fl" "$(awk "BEGIN { print $NATIVE_SECS * $try }")" \
			"$a" "$d" $left >"$R/$name.native.out" 2>&1 || true
		snap "$O" >"$R/$name.native1"
		ch=$(changed "$R/$name.native0" "$R/$name.native1")
		miss=
		for op in $left; do
			grep -qxF "$d/$op" <<<"$ch" || miss="$miss $op"
		done
		left=$miss
		[ -z "$left" ] && break
	done
	[ -z "$left" ] ||
		sg_harness_error "$name: natively, race-path ($fl flipper) never reached $d/{$left } as $U: the attacker cannot win, the test proves nothing ($(cat "$R/$name.native.out"))"

	fs_prepare "$a" "$d" "$@"
	snap "$O" >"$R/$name.before"
	c "$name" race2-fs 0 "$(denials_of "$@")" \
		"$B/race-path" --flipper "$fl" --until-refused "$SECS" "$a" "$d" "$@"
	snap "$O" >"$R/$name.after"
	ch=$(changed "$R/$name.before" "$R/$name.after")
	if [ -z "$ch" ]; then
		SG_ERR='' sg_report_pass "$name-outside-untouched"
	else
		SG_ERR='' sg_report_fail "$name-outside-untouched" \
			"objects in $O changed under sysgate:" \
			"$(diff "$R/$name.before" "$R/$name.after")"
	fi
}

# stat_prepare: the public and the secret side of every information call.
stat_prepare() {
	local a=$W/rc/p0 d=$W/rc/p1 op
	rm -rf "$W/rc"
	mkdir -p "$a" "$d"
	for op in "$@"; do
		case $op in
		access|faccessat2) echo "SECRET $op" >"$d/$op" ;;
		readlink|readlinkat) ln -s public-target "$a/$op"
			ln -s SECRET-target "$d/$op" ;;
		*) echo "PUBLIC" >"$a/$op"
		   echo "SECRET $op, much longer than the public one" >"$d/$op"
		   "$PY" -c 'import os,sys; os.setxattr(sys.argv[1], "user.x", b"public"); os.setxattr(sys.argv[2], "user.x", b"SECRET")' "$a/$op" "$d/$op" ;;
		esac
	done
	[ "$U" = root ] || chown -R "$U:" "$W/rc"
}

# leaks OUTFILE: what in the attacker's answers could only come from the
# secret side (secret inodes, secret strings, a successful access check).
leaks() {
	local f
	grep -E 'SECRET|^access ok|^DROPPED' "$1"
	for f in "$W"/rc/p1/*; do
		grep -E "^ino $(stat -c %i "$f") " "$1"
	done
	return 0
}

# secret_line OP: what only the secret side of OP answers.
secret_line() {
	case $1 in
	access|faccessat2) echo '^access ok' ;;
	readlink|readlinkat) echo '^link SECRET-target' ;;
	getxattr|lgetxattr) echo '^xattr user.x=SECRET' ;;
	*) echo "^ino $(stat -c %i "$W/rc/p1/$1") " ;;
	esac
}

stat_case() {
	local name=$1 fl=$2 op left miss
	shift 2
	# Natively every call must have leaked the secret side (three tries).
	left="$*"
	for try in 1 2 3 4 5; do
		# shellcheck disable=SC2086
		stat_prepare $left
		# shellcheck disable=SC2086
		as_user timeout -k 5 60 "$B/race-path" --flipper "$fl" --out "$W/seen-native" \
			"$(awk "BEGIN { print $NATIVE_SECS * $try }")" "$W/rc/p0" "$W/rc/p1" $left >"$R/$name.native.out" 2>&1 || true
		miss=
		for op in $left; do
			grep -qE "$(secret_line "$op")" "$W/seen-native" || miss="$miss $op"
		done
		left=$miss
		[ -z "$left" ] && break
	done
	[ -z "$left" ] ||
		sg_harness_error "$name: natively, {$left } never answered for the secret side as $U: the test proves nothing ($(cat "$R/$name.native.out"))"

	stat_prepare "$@"
	rm -f "$W/seen"
	c "$name" race2-stat 0 "$(denials_of "$@")" \
		"$B/race-path" --flipper "$fl" --until-refused --out "$W/seen" "$SECS" "$W/rc/p0" "$W/rc/p1" "$@"
	if [ ! -s "$W/seen" ]; then
		SG_ERR='' sg_report_fail "$name-nothing-learnt" "the attacker wrote no answers to $W/seen"
	elif [ -n "$(leaks "$W/seen")" ]; then
		SG_ERR='' sg_report_fail "$name-nothing-learnt" \
			"the attacker learnt about the secret side:" "$(leaks "$W/seen")"
	else
		SG_ERR='' sg_report_pass "$name-nothing-learnt"
	fi
}

# sink NAME: a TCP listener and a UDP socket on one 127.0.0.1 port, run
# natively as U, writing a line per connection ("tcp") and per datagram
# (its payload) to $R/NAME.got; the port in $R/NAME.port.
sink() {
	local pf=$R/$1.port
	rm -f "$pf" "$R/$1.got"
	"${SG_AS[@]}" "$PY" - "$pf" "$R/$1.got" <<'PYEOF' >/dev/null 2>&1 &
import os, selectors, socket, sys, time
for _ in range(50):
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.bind(("127.0.0.1", 0))
    port = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", port))
        break
    except OSError:
        t.close(); u.close()
t.listen(4096)
t.setblocking(False); u.setblocking(False)
out = open(sys.argv[2], "ab", buffering=0)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(port))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
sel = selectors.DefaultSelector()
sel.register(t, selectors.EVENT_READ)
sel.register(u, selectors.EVENT_READ)
end = time.time() + 300
while time.time() < end:
    for key, _ in sel.select(1):
        try:
            if key.fileobj is t:
                while True:
                    c, _a = t.accept()
                    c.close()
                    out.write(b"tcp\n")
            else:
                while True:
                    out.write(u.recv(100).strip() + b"\n")
        except (BlockingIOError, InterruptedError, ConnectionError):
            pass
PYEOF
	SG_BG_PIDS+=($!)
	for _ in $(seq 100); do
		[ -f "$pf" ] && break
		sleep 0.05
	done
	[ -f "$pf" ] || sg_harness_error "sink $1 did not start"
}

# What each OP shows at the sink: "tcp" per connection, else the payload.
net_line() {
	case $1 in
	connect) echo tcp ;;
	*) echo "$1" ;;
	esac
}

net_case() {
	local name=$1 fl=$2 op n0 n1 a0 a1 left miss
	shift 2
	# Natively the denied listener must get something of every OP.
	left="$*"
	for try in 1 2 3 4 5; do
		n0=$(wc -l <"$R/deny.got")
		# shellcheck disable=SC2086
		as_user timeout -k 5 60 "$B/race-net" --flipper "$fl" "$(awk "BEGIN { print $NATIVE_SECS * $try }")" \
			"$PA" "$PD" $left >"$R/$name.native.out" 2>&1 || true
		sleep 0.3
		miss=
		for op in $left; do
			tail -n +"$((n0 + 1))" "$R/deny.got" | grep -qxF "$(net_line "$op")" ||
				miss="$miss $op"
		done
		left=$miss
		[ -z "$left" ] && break
	done
	[ -z "$left" ] ||
		sg_harness_error "$name: natively, race-net ($fl flipper) never reached the denied listener with {$left } as $U: the test proves nothing ($(cat "$R/$name.native.out"))"

	n0=$(wc -l <"$R/deny.got")
	a0=$(wc -l <"$R/allow.got")
	c "$name" race2-net 0 "$(denials_of "$@")" \
		"$B/race-net" --flipper "$fl" "$SECS" "$PA" "$PD" "$@"
	sleep 0.3
	n1=$(wc -l <"$R/deny.got")
	a1=$(wc -l <"$R/allow.got")
	if [ "$n1" != "$n0" ]; then
		SG_ERR='' sg_report_fail "$name-denied-listener-untouched" \
			"the denied listener on 127.0.0.1:$PD received $((n1 - n0)) connections/datagrams under sysgate:" \
			"$(tail -n +"$((n0 + 1))" "$R/deny.got" | sort | uniq -c)"
	elif [ "$a1" -le "$a0" ]; then
		SG_ERR='' sg_report_fail "$name-denied-listener-untouched" \
			"the allowed listener got nothing either: the run proves nothing"
	else
		SG_ERR='' sg_report_pass "$name-denied-listener-untouched"
	fi
}

cases() {
	# The allowed twin of $O: its name is one byte apart, so that the
	# flipper swaps one aligned word and every read sees a whole path.
	OK=${O%e}f
	policy race2-fs <<EOF
[policy]
default = allow
audit = denied

[rule no-outside]
syscalls = @file
path = $O, $O/**
action = deny
errno = EACCES
EOF
	policy race2-stat <<EOF
[policy]
default = allow
audit = denied

[rule no-secret-stat]
syscalls = @stat
path = $W/rc/p1, $W/rc/p1/**
action = deny
errno = EACCES
EOF
	sink allow
	sink deny
	PA=$(cat "$R/allow.port")
	PD=$(cat "$R/deny.port")
	policy race2-net <<EOF
[policy]
default = allow
audit = denied

[rule port-a]
syscalls = @network
addr = 127.0.0.1:$PA
action = allow

[rule no-other]
syscalls = @network
action = deny
errno = ECONNREFUSED
EOF

	# shellcheck disable=SC2086
	{
	fs_case   race2-fs-create      thread $FS_CREATE
	fs_case   race2-fs-meta        thread $FS_META
	net_case  race2-net            thread connect sendto sendmsg sendmmsg
	stat_case race2-stat           thread $STAT_OPS
	fs_case   race2-proc-vm        vm     $PROC_OPS
	fs_case   race2-proc-shm       shm    $PROC_OPS
	# Short op lists: half the time keeps the whole test under a minute.
	SECS=$(awk -v s="$SECS" 'BEGIN { print s / 2 }')
	net_case  race2-proc-net-shm   shm    connect sendto
	stat_case race2-proc-stat-vm   vm     stat statx readlink getxattr
	SECS=$FULL_SECS
	}
}

sg_main cases
