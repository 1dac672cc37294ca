#!/bin/bash
# SPDX-License-Identifier: MIT
# The supervisor lends no authority (SECURITY.md, *No lent authority*): a
# differential
# test.  Each probe of lent-probe.py needs a privilege (a route through
# netlink, security.capability and trusted.* xattrs, /dev/kmsg, the real
# /proc/kallsyms, a port below 1024, a chown to root, a device node,
# SCM_CREDENTIALS naming another process or root) and is run twice by the
# same user: natively (setpriv) and under sysgate, which carries most of
# these calls out itself (`--user nobody` when we are root, plain sysgate
# otherwise).  What the user cannot do natively it cannot do under
# sysgate, and what it can do gives the same result.  Each is judged from
# outside the tree too: the route in the namespace's table, the xattrs read
# back by us, what a receiver outside sysgate was sent.
#
# Everything runs in a network namespace of the test's own (ip netns), so
# a route that gets through changes no table of the host.
. "$(dirname "$0")/lib.sh"
sg_init

PROBE=$T/bin/lent-probe.py
cp "$SG_LIB_DIR/lent-probe.py" "$PROBE"
chmod 0644 "$PROBE"
NS=sg-lent-$$
# The receiver of the SCM_CREDENTIALS probes, natively and as root: it
# logs "LABEL PID UID GID" of each message (SO_PASSCRED) until "plain".
RECV=$T/bin/lent-recv.py
cat >"$RECV" <<'EOF'
import os, socket, struct, sys, threading
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.settimeout(20)
# A stream listener beside it: the peer credentials of who connects.
ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
ls.bind(sys.argv[1] + ".s")
os.chmod(sys.argv[1] + ".s", 0o666)
ls.listen(1)
ls.settimeout(20)
lock = threading.Lock()
log = open(sys.argv[2], "w")
def peer():
    try:
        c, _ = ls.accept()
    except socket.timeout:
        return
    cred = struct.unpack("iII", c.getsockopt(socket.SOL_SOCKET,
                                             socket.SO_PEERCRED, 12))
    with lock:
        print("peer", *cred, file=log, flush=True)
pt = threading.Thread(target=peer, daemon=True)
pt.start()
open(sys.argv[2] + ".ready", "w").close()
if True:
    while True:
        try:
            data, anc, _, _ = s.recvmsg(64, 64)
        except socket.timeout:
            break
        creds = (-1, -1, -1)
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                creds = struct.unpack("iII", val[:12])
        with lock:
            print(data.decode(), *creds, file=log, flush=True)
        if data == b"plain":
            break
pt.join(5)
EOF

# The namespace goes, and the test's status stays (sg_cleanup exits with
# the status it is called with).
ns_cleanup() {
	local rc=$?
	ip netns del "$NS" 2>/dev/null
	(exit $rc)
	sg_cleanup
}

if [ "$(id -u)" = 0 ]; then
	command -v ip >/dev/null || sg_harness_error "ip(8) is missing"
	ip netns add "$NS" || sg_harness_error "cannot make a network namespace"
	trap ns_cleanup EXIT
	ip netns exec "$NS" ip link set lo up ||
		sg_harness_error "cannot set lo up in $NS"
fi


# probe_run KIND OCTET: run the probes as nobody, natively (KIND native)
# or under sysgate (KIND sysgate) in the test's namespace, with their own
# directory $W/KIND and receiver; their lines in $R/KIND.out, the
# receiver's log in $R/KIND.recv.
probe_run() {
	local kind=$1 octet=$2 d=$W/$1 sock=$W/$1.sock rpid i
	local as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	local sg=()
	rm -rf "$d" "$sock" "$sock.s" "$R/$kind.recv" "$R/$kind.recv.ready"
	mkdir -p "$d"
	chown 65534:65534 "$d"
	"$PY" "$RECV" "$sock" "$R/$kind.recv" &
	rpid=$!
	SG_BG_PIDS+=("$rpid")
	for i in $(seq 100); do
		[ -e "$R/$kind.recv.ready" ] && break
		sleep 0.05
	done
	[ -e "$R/$kind.recv.ready" ] || sg_harness_error "the receiver did not start"
	if [ "$kind" = sysgate ]; then
		SG_N=$((SG_N + 1))
		SG_TRAIL=$R/$SG_N.jsonl
		if [ "$U" = root ]; then
			# sysgate is root; the command runs as nobody.
			sg=("$SYSGATE" run -q -a "$SG_TRAIL" --user nobody
			    -r "$P/lent-all.ini" --)
			as=()
		else
			sg=("$SYSGATE" run -q -a "$SG_TRAIL" -r "$P/lent-all.ini" --)
		fi
	fi
	(cd "$d" && exec timeout -k 5 60 ip netns exec "$NS" "${as[@]}" \
		env -i PATH="$SG_PATH" HOME=/ LANG=C.UTF-8 "${sg[@]}" \
		"$PY" "$PROBE" "$d" "$octet" "$sock") \
		>"$R/$kind.out" 2>"$R/$kind.err" </dev/null
	echo $? >"$R/$kind.rc"
	for i in $(seq 200); do
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.05
	done
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
}

# probe_line KIND TAG: the result the probe printed for TAG.
probe_line() {
	awk -v t="$2" '$1 == t { $1 = ""; sub(/^ /, ""); print; exit }' "$R/$1.out"
}

# recv_creds KIND LABEL: "PID UID GID" the receiver saw, or nothing.
recv_creds() {
	awk -v l="$2" '$1 == l { print $2, $3, $4; exit }' "$R/$1.recv"
}

cases() {
	if [ "$(id -u)" != 0 ]; then
		# Neither setpriv nor a namespace: nothing here can be compared.
		check lent-needs-root false
		return
	fi
	policy lent-all <<'EOF'
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
	local o1=1 o2=2
	[ "$U" = root ] || { o1=3; o2=4; }
	probe_run native $o1
	probe_run sysgate $o2
	check native-probes-ran test "$(cat "$R/native.rc")" = 0
	check sysgate-probes-ran test "$(cat "$R/sysgate.rc")" = 0
	local tag n s
	for tag in route xattr-security xattr-trusted kmsg kallsyms bind-999 \
		chown-root mknod-null peercred scm-forged scm-own scm-plain fifo \
		bind-unix userns \
		nodump-open; do
		n=$(probe_line native "$tag")
		s=$(probe_line sysgate "$tag")
		# Known: an unprivileged supervisor cannot reach a task that
		# made itself not dumpable (it lacks CAP_SYS_PTRACE): the call
		# fails, closed (EFAULT or EBADF, by where it is first
		# refused: the memory through a /proc/TID/mem fd kept from
		# before, then the caller's cwd).  With --user it can.
		if [ "$tag" = nodump-open ] && [ "$U" != root ]; then
			check "$tag-fails-closed" test "$s" = EFAULT -o "$s" = EBADF
			continue
		fi
		check "$tag-native-result-known" test -n "$n"
		check "$tag-same-as-native" test "$s" = "$n"
	done
	# nobody has none of these privileges natively.
	check route-refused-natively test "$(probe_line native route)" = EPERM
	check xattr-security-refused-natively test "$(probe_line native xattr-security)" = EPERM
	check kallsyms-zeros-natively test "$(probe_line native kallsyms)" = "ok zeros"
	check scm-forged-refused-natively test "$(probe_line native scm-forged)" = EPERM
	# From outside: no route, no xattr, no file owned by root, no node.
	local routes
	routes=$(ip netns exec "$NS" ip -4 route show)
	check route-table-native sh -c "! printf '%s' '$routes' | grep -q '10.99.$o1.0/24'"
	check route-table-sysgate sh -c "! printf '%s' '$routes' | grep -q '10.99.$o2.0/24'"
	check route-table-userns sh -c "! printf '%s' '$routes' | grep -q '10.99.1[0-9][0-9].0/24'"
	check userns-refused-natively test "$(probe_line native userns)" = "ok EPERM/EPERM"
	for d in native sysgate; do
		check "$d-no-security-capability" "$PY" -c 'import os, sys
sys.exit("security.capability" in os.listxattr(sys.argv[1]))' "$W/$d/mine"
		check "$d-no-trusted-xattr" "$PY" -c 'import os, sys
sys.exit("trusted.lent" in os.listxattr(sys.argv[1]))' "$W/$d/mine"
		check "$d-userns-no-trusted-xattr" "$PY" -c 'import os, sys
sys.exit("trusted.lent" in os.listxattr(sys.argv[1]))' "$W/$d/mine-userns"
		check "$d-mine-still-nobodys" test "$(stat -c %u "$W/$d/mine")" = 65534
		check "$d-no-device-node" test ! -e "$W/$d/null"
		check "$d-fifo-nobodys" test "$(stat -c %u "$W/$d/fifo")" = 65534
		check "$d-socket-nobodys" test "$(stat -c %u "$W/$d/bound.sock")" = 65534
		[ "$d" = native ] || [ "$U" = root ] &&
			check "$d-nodump-wrote" test -s "$W/$d/mine.nodump"
		# The receiver never saw root or pid 1; what it saw of the
		# legitimate sends is nobody's uid and gid.
		check "$d-forged-not-received" test -z "$(recv_creds "$d" forged)"
		check "$d-own-ids-received" sh -c "recv() { awk -v l=\$1 '\$1 == l { print \$3, \$4 }' '$R/$d.recv'; }; test \"\$(recv own)\" = '65534 65534'"
		check "$d-peer-ids-received" sh -c "recv() { awk -v l=\$1 '\$1 == l { print \$3, \$4 }' '$R/$d.recv'; }; test \"\$(recv peer)\" = '65534 65534'"
		check "$d-plain-ids-received" sh -c "recv() { awk -v l=\$1 '\$1 == l { print \$3, \$4 }' '$R/$d.recv'; }; test \"\$(recv plain)\" = '65534 65534'"
	done
	# The pid a receiver sees natively is the sender's own.
	local ppid
	ppid=$(awk '$1 == "pid" { print $2 }' "$R/native.out")
	check native-own-pid-received test "$(recv_creds native own | cut -d' ' -f1)" = "$ppid"
	# Open (SECURITY.md): under sysgate a receiver sees the supervisor's
	# pid for a send it carries out, with credentials or without, never
	# one the caller could not claim.
	local own plain
	own=$(recv_creds sysgate own | cut -d' ' -f1)
	plain=$(recv_creds sysgate plain | cut -d' ' -f1)
	check sysgate-own-pid-is-the-supervisors test -n "$own" -a "$own" = "$plain" -a "$own" != 1
	check sysgate-peer-pid-is-the-supervisors test "$(recv_creds sysgate peer | cut -d' ' -f1)" = "$plain"
	check native-peer-pid-is-the-callers test "$(recv_creds native peer | cut -d' ' -f1)" = "$ppid"
	check sysgate-trail-records-route grep -q '"syscall":"sendto"' "$SG_TRAIL"
	[ "$U" = root ] && switch_fails
}

# A switch that fails half-way (its last step, the capset that gives the
# thread the caller's capabilities, made to fail by strace in sysgate's
# event loop): that call is refused and recorded (sysgate:credentials,
# EPERM), and the next ones are carried out as the caller again.
switch_fails() {
	command -v strace >/dev/null || sg_harness_error "strace(1) is missing"
	local t=$R/switch.jsonl
	(cd "$W" && timeout -k 5 60 env -i PATH="$SG_PATH" HOME=/ \
		ASAN_OPTIONS=detect_leaks=0 strace -o /dev/null \
		-e trace=capset -e inject=capset:error=EPERM:when=2 \
		"$SYSGATE" run -q -a "$t" --user nobody -r "$P/lent-all.ini" -- \
		"$PY" -c 'open("/etc/hostname").read()') \
		>"$R/switch.out" 2>"$R/switch.err" </dev/null
	check switch-fails-run-ok test $? = 0
	check switch-fails-denied-and-recorded "$PY" "$AUDITQ" "$t" \
		--type syscall --rule sysgate:credentials --action deny --errno EPERM
	check switch-fails-then-carried-out "$PY" "$AUDITQ" "$t" \
		--type syscall --syscall openat --path /etc/hostname --action allow
}

sg_main cases
