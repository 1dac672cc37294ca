#!/bin/bash
# SPDX-License-Identifier: MIT
# Guards no policy can lose: under a policy with path or address rules,
# calls that do a mediated call's work without making it (io_uring, the
# mount family, file handles) are refused and recorded unless the policy
# opts in with [policy] unmediated.  The policy is the README's example
# (default = allow, path rules only).  Judged from outside: the file an
# io_uring open would create outside the write area does not exist, and
# a secret bind-mounted over a project file is not read.
. "$(dirname "$0")/lib.sh"
sg_init

cat >"$T/bind.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
src, dst = sys.argv[1].encode(), sys.argv[2].encode()
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
if libc.unshare(CLONE_NEWNS | (CLONE_NEWUSER if os.getuid() else 0)):
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None):
    sys.exit("mount private: " + os.strerror(ctypes.get_errno()))
if libc.mount(src, dst, None, MS_BIND, None):
    sys.exit("mount bind: " + os.strerror(ctypes.get_errno()))
print(open(dst).read(), end="")
PY
chmod 0644 "$T/bind.py"

readme_policy() {
	cat <<EOF
[policy]
default = allow
errno = EPERM
audit = all
$1

[rule no-secrets]
syscalls = @file, @exec
path = \${HOME}/.ssh/**, **/.env
action = deny
errno = EACCES

[rule project]
syscalls = @file
path = \${CWD}, \${CWD}/**, \${TMPDIR}/**
action = allow

[rule read-elsewhere]
syscalls = @file
access = read, stat
action = allow

[rule no-writes-elsewhere]
syscalls = @file
action = deny
errno = EACCES

[rule loopback]
syscalls = connect, bind
addr = 127.0.0.0/8, [::1]
action = allow

[rule no-network]
syscalls = @network
action = deny
errno = ENETUNREACH
EOF
}

cases() {
	readme_policy "" | policy readme
	readme_policy "unmediated = io_uring" | policy readme-uring
	local f=$O/uring-made
	# The built-in policy runs programs of the cwd only.
	cp "$B/attack-uring" "$W/attack-uring"
	[ "$U" = root ] || chown "$U:" "$W/attack-uring"

	# Natively, io_uring creates and writes a file by itself.
	rm -f "$f"
	native 0 "$B/attack-uring" "$f"
	check uring-native-writes test -s "$f"
	rm -f "$f"

	c uring-refused readme EPERM \
		"--type syscall --syscall io_uring_setup --action deny --errno EPERM --rule sysgate:unmediated" \
		"$B/attack-uring" "$f"
	check uring-refused-no-file test ! -e "$f"
	# The policy's own deny stands (and is recorded).
	c uring-default-policy - EPERM \
		"--type syscall --syscall io_uring_setup --action deny --errno EPERM" \
		"$W/attack-uring" "$f"
	check uring-default-no-file test ! -e "$f"
	# Opted in: the policy's path rules do not hold for io_uring.
	c uring-opted-in readme-uring 0 - "$B/attack-uring" "$f"
	check uring-opted-in-file test -s "$f"
	rm -f "$f"
	sg_raw check "$P/readme-uring.ini"
	check check-warns-opt-in grep -q "unmediated = io_uring" "$SG_OUT"
	sg_raw check "$P/readme.ini"
	check check-lists-guard grep -q "unmediated calls (io_uring, mount, handles): refused" "$SG_OUT"

	# The mount family: a secret bind-mounted over a project file, in a
	# mount namespace of the tree's own (and a user namespace for a user
	# but root; mounts made private first, so nothing reaches the host).
	echo "PUBLIC x" >"$W/x"
	[ "$U" = root ] || chown "$U:" "$W/x"
	check mount-native-reads-secret bash -c "cd '$W' && ${SG_AS[*]} $PY '$T/bind.py' '$H/.ssh/id_rsa' '$W/x' | grep -q SECRET"
	c mount-refused readme 1 \
		"--type syscall --syscall mount --action deny --errno EPERM --rule sysgate:unmediated" \
		"$PY" "$T/bind.py" "$H/.ssh/id_rsa" "$W/x"
	check mount-secret-not-read bash -c "! grep -q SECRET '$SG_OUT'"

	# The run's own configuration: the signing key is not read, the
	# policy and its include are not changed, nor their directory moved,
	# and other runs' trails in the state directory are not read.
	mkdir -p "$W/conf" "$H/.local/state/sysgate/runs"
	echo "SECRET other run" >"$H/.local/state/sysgate/runs/old.jsonl"
	printf '[policy]\ndefault = allow\n\n[rule no-etc]\nsyscalls = @file\npath = /etc/**\naccess = write\naction = deny\n' >"$W/conf/inc.ini"
	printf '[policy]\ninclude = inc.ini\n' >"$W/conf/top.ini"
	rm -f "$W/conf/key" "$W/conf/key.pub"
	"$SYSGATE" keygen "$W/conf/key" "$W/conf/key.pub" >/dev/null ||
		sg_harness_error "keygen failed"
	[ "$U" = root ] || chown -R "$U:" "$W/conf" "$H/.local"
	cp "$W/conf/top.ini" "$T/top.ini.orig"; cp "$W/conf/inc.ini" "$T/inc.ini.orig"
	SG_RUN_OPTS="--sign-key $W/conf/key" c config-guarded "$W/conf/top.ini" any \
		"--type syscall --path $W/conf/key --action deny --rule sysgate:sign-key --next --type syscall --path $W/conf/top.ini --rule sysgate:config --next --type syscall --path $W/conf/inc.ini --rule sysgate:config --next --type syscall --rule sysgate:config --path $W/conf --next --type syscall --rule sysgate:state" \
		sh -c "od -c conf/key | head -2; echo '[rule x]' >> conf/top.ini; echo 'default = deny' >> conf/inc.ini; mv conf conf2; cat '$H/.local/state/sysgate/runs/old.jsonl'"
	check config-key-not-read bash -c "! grep -q '[0-9]' '$SG_OUT'"
	check config-policy-unchanged cmp "$W/conf/top.ini" "$T/top.ini.orig"
	check config-include-unchanged cmp "$W/conf/inc.ini" "$T/inc.ini.orig"
	check config-dir-kept test -d "$W/conf"
	check config-state-not-read bash -c "! grep -q SECRET '$SG_OUT'"
	sg_raw check "$W/conf/top.ini"
	check check-lists-config grep -q "the policy's files" "$SG_OUT"

	# Processes outside the tree, of the same user: not traced, their
	# memory not read, their files not taken through a pidfd
	# (rules/filter.c pid_calls, always_notified).
	# The outside process holds a secret at an address it writes down.
	rm -f "$W/outside.addr"
	(cd "$W" && exec "${SG_AS[@]}" "$PY" -c '
import ctypes, sys, time
buf = ctypes.create_string_buffer(b"SECRET outside memory")
open("outside.addr.tmp", "w").write("%d" % ctypes.addressof(buf))
import os; os.rename("outside.addr.tmp", "outside.addr")
time.sleep(20)') &
	local op=$!
	SG_BG_PIDS+=("$op")
	sg_wait_file "$W/outside.addr"
	local addr
	addr=$(cat "$W/outside.addr")
	cat >"$T/reach.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
op, pid, addr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
if op == "ptrace":
    r = libc.ptrace(16, pid, 0, 0)          # PTRACE_ATTACH
elif op == "read":
    buf = ctypes.create_string_buffer(64)
    l, rm = iovec(ctypes.addressof(buf), 21), iovec(addr, 21)
    r = libc.syscall(310, pid, ctypes.byref(l), 1, ctypes.byref(rm), 1, 0)
    if r > 0:
        print(buf.value.decode())
else:
    fd = libc.syscall(434, pid, 0)          # pidfd_open
    r = libc.syscall(438, fd, 1, 0) if fd >= 0 else -1  # pidfd_getfd
sys.exit(0 if r >= 0 else ctypes.get_errno())
PY
	chmod 0644 "$T/reach.py"
	check reach-native-reads bash -c "cd '$W' && ${SG_AS[*]} $PY '$T/reach.py' read $op $addr | grep -q SECRET"
	c reach-ptrace readme EPERM \
		"--type syscall --syscall ptrace --action deny --rule sysgate:outside-tree" \
		"$PY" "$T/reach.py" ptrace "$op" "$addr"
	check reach-ptrace-not-stopped bash -c "! grep -q '^State:.*[tT]' /proc/$op/status"
	c reach-read readme EPERM \
		"--type syscall --syscall process_vm_readv --action deny --rule sysgate:outside-tree" \
		"$PY" "$T/reach.py" read "$op" "$addr"
	check reach-read-no-secret bash -c "! grep -q SECRET '$SG_OUT'"
	check reach-native-getfd bash -c "cd '$W' && ${SG_AS[*]} $PY '$T/reach.py' pidfd $op $addr"
	c reach-getfd readme EPERM \
		"--type syscall --syscall pidfd_getfd --action deny --rule sysgate:outside-tree" \
		"$PY" "$T/reach.py" pidfd "$op" "$addr"
	kill "$op" 2>/dev/null
	wait "$op" 2>/dev/null

	# An unknown family is refused with a suggestion.
	readme_policy "unmediated = io-uring" | policy bad-family
	sg_raw check "$P/bad-family.ini"
	check bad-family-refused grep -q "unknown unmediated family 'io-uring' (did you mean 'io_uring'?)" "$SG_ERR"
}

sg_main cases
