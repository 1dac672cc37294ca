#!/bin/bash
# SPDX-License-Identifier: MIT
# TOCTOU attackers.  race-open: one thread flips a path buffer between an
# allowed and a denied file while another opens it in a loop; race-symlink:
# one thread swaps a symlink between an allowed and a denied target (atomic
# RENAME_EXCHANGE, or rename(2) of prepared symlinks) while another opens
# it; race-exec: a thread flips the path an execve is given.  The denied
# file (content SECRET) must never be opened, the denied program never
# run (a child killed at the exec stop is fine); race-reopen: a thread
# swaps what fd N holds (a file opened read-only, one opened read-write)
# while another opens /proc/self/fd/N for writing: the read-only file
# must never be opened so; race-bind: a thread
# swaps a directory symlink while another binds unix sockets through it:
# a socket file may only appear in the denied directory if the binder was
# killed for it.  Each run is first made natively to prove the attacker
# does win without sysgate.
. "$(dirname "$0")/lib.sh"
sg_init

SECS=${SG_RACE_SECONDS:-3}

# native_win CMD... SECONDS: the attacker must win natively (exit 1).  On
# a busy machine a short run may not get the CPU time to race: up to four
# tries, each twice as long.
native_win() {
	local t=${*: -1} args=("${@:1:$#-1}") rc=0
	for _ in 1 2 3 4; do
		as_user timeout -k 5 60 "${args[@]}" "$t" >/dev/null 2>&1
		rc=$?
		[ $rc = 1 ] && return 0
		t=$((t * 2))
	done
	sg_harness_error "native run of '${args[*]}' as $U never won (last status $rc)"
}

cases() {
	policy race <<'EOF'
[policy]
default = allow
audit = denied

[rule no-exec-xd]
syscalls = @exec
path = ${CWD}/xd/**
action = deny
errno = EACCES

[rule no-secret]
syscalls = @file
path = ${CWD}/race/s
path = ${CWD}/race/s-dir/**
access = read, write
action = deny
errno = EACCES
[rule no-write-ro]
syscalls = @file
path = ${CWD}/race/ro
access = write
action = deny
errno = EACCES
EOF
	mkdir -p "$W/race/s-dir" "$W/race/a-dir"
	echo "PUBLIC" >"$W/race/a"
	echo "SECRET" >"$W/race/s"
	echo "PUBLIC" >"$W/race/a-dir/f"
	echo "SECRET" >"$W/race/s-dir/f"
	# Symlink sets for race-symlink: link/spare (exchange), link/bad (rename).
	local d
	for d in xn-native xn rn-native rn; do
		mkdir -p "$W/$d"
		ln -s "$W/race/a" "$W/$d/link"
	done
	ln -s "$W/race/s" "$W/xn-native/spare"
	ln -s "$W/race/s" "$W/xn/spare"
	ln -s "$W/race/s" "$W/rn-native/bad"
	ln -s "$W/race/s" "$W/rn/bad"
	# race-exec: same-length paths, allowed exits 10, denied dies of SIGUSR1.
	mkdir -p "$W/xa" "$W/xd"
	cp "$B/exit-with" "$W/xa/prog"
	cp "$B/kill-self" "$W/xd/prog"
	# race-reopen: ro may be read, not written; rw both.
	echo "READ ONLY" >"$W/race/ro"
	echo "WRITABLE" >"$W/race/rw"
	[ "$U" = root ] || chown -R "$U:" "$W"

	# The attackers win natively (exit 1), else the test proves nothing.
	native_win "$B/race-open" "$W/race/a" "$W/race/s" 1
	native_win "$B/race-symlink" --prepared "$W/xn-native" "$W/race/a" "$W/race/s" 1
	native_win "$B/race-symlink" --prepared --mode rename "$W/rn-native" "$W/race/a" "$W/race/s" 1
	native_win "$B/race-exec" "$W/xa/prog" "$W/xd/prog" 2
	native_win "$B/race-reopen" "$W/race/ro" "$W/race/rw" 1

	c race-open-buffer      race 0 "--type syscall --path $W/race/s --action deny --rule no-secret --min 1" \
		"$B/race-open" "$W/race/a" "$W/race/s" "$SECS"
	c race-open-dir-component race 0 "--type syscall --path $W/race/s-dir/f --action deny --min 1" \
		"$B/race-open" "$W/race/a-dir/f" "$W/race/s-dir/f" "$SECS"
	c race-symlink-exchange race 0 "--type syscall --path $W/race/s --action deny --rule no-secret --min 1" \
		"$B/race-symlink" --prepared "$W/xn" "$W/race/a" "$W/race/s" "$SECS"
	c race-symlink-rename   race 0 "--type syscall --path $W/race/s --action deny --rule no-secret --min 1" \
		"$B/race-symlink" --prepared --mode rename "$W/rn" "$W/race/a" "$W/race/s" "$SECS"
	c race-exec             race 0 "--type syscall --syscall execve --path $W/xd/prog --action deny --rule no-exec-xd --min 1" \
		"$B/race-exec" "$W/xa/prog" "$W/xd/prog" "$SECS"
	# A reopen of /proc/self/fd/N is judged on the file it reopens (the
	# access the caller holds it with), not on what fd N holds later.
	c race-reopen-fd        race 0 "--type syscall --path $W/race/ro --action deny --rule no-write-ro --min 1" \
		"$B/race-reopen" "$W/race/ro" "$W/race/rw" "$SECS"
	check race-secret-untouched grep -qx SECRET "$W/race/s"

	# bind(2) of a unix path is done with the caller's own address, and
	# the kernel walks it again (SECURITY.md): a swap of bd/link between
	# bd/ok and bd/no must end with no socket file in bd/no, or with the
	# binder killed and the trail saying why.
	cat >"$W/race-bind.py" <<'PYEOF2'
import ctypes, os, socket, sys, threading, time
d, secs = sys.argv[1], float(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
stop = False
def flip():
    while not stop:
        libc.renameat2(-100, f"{d}/link".encode(), -100, f"{d}/spare".encode(), 2)
threading.Thread(target=flip, daemon=True).start()
end, i = time.time() + secs, 0
while time.time() < end:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(f"{d}/link/s{i}")
    except OSError:
        pass
    s.close()
    i += 1
stop = True
sys.exit(1 if os.listdir(f"{d}/no") else 0)
PYEOF2
	for n in bn bd; do
		as_user mkdir -p "$W/$n/ok" "$W/$n/no"
		as_user ln -s ok "$W/$n/link"
		as_user ln -s no "$W/$n/spare"
	done
	native_win $PY "$W/race-bind.py" "$W/bn" 1
	policy race-bind <<EOF
[policy]
default = allow
audit = all

[rule no-bind-no]
syscalls = bind
addr = unix:$W/bd/no/**
action = deny
errno = EACCES
EOF
	c race-bind race-bind "0|1|sig:KILL" - \
		$PY "$W/race-bind.py" "$W/bd" "$SECS"
	if [ -n "$(ls -A "$W/bd/no")" ]; then
		check race-bind-stray-socket-killed test "$SG_RC" = 137
		check race-bind-stray-socket-recorded $PY "$AUDITQ" "$SG_TRAIL" --type syscall.result --syscall bind --has note
	else
		check race-bind-no-stray-socket test "$SG_RC" = 0
	fi
	# A binder that was not killed early ran the whole time, with the
	# link flipping: some of its binds were decided in bd/no, and denied.
	if [ "$SG_RC" != 137 ]; then
		check race-bind-denied-in-no $PY "$AUDITQ" "$SG_TRAIL" --type syscall --syscall bind \
			--path-prefix "$W/bd/no/" --action deny --rule no-bind-no --min 1
	fi
}

sg_main cases
