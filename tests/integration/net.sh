#!/bin/bash
# SPDX-License-Identifier: MIT
# Network rules: connect and bind decided on the address (IPv4, IPv6,
# IPv4-mapped, 0.0.0.0, unix paths, abstract), carried out on the caller's
# socket, and recorded with the decoded address.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy net <<'EOF'
[policy]
default = allow
audit = all

[rule loopback]
syscalls = connect
addr = 127.0.0.0/8, [::1]
action = allow

[rule unix-cwd]
syscalls = connect, bind
addr = unix:${CWD}/**
action = allow

[rule bind-loopback]
syscalls = bind
addr = 127.0.0.1, [::1]
action = allow

[rule no-network]
syscalls = @network
action = deny
errno = ENETUNREACH
EOF
	policy net-observe <<'EOF'
[policy]
default = allow
audit = all

[rule observe]
syscalls = @network
action = allow
EOF
	policy no-local <<'EOF'
[policy]
default = allow

[rule no-local]
syscalls = connect
addr = 127.0.0.0/8, [::1]
action = deny
errno = ECONNREFUSED
EOF
	policy unix-deny <<EOF
[policy]
default = allow

[rule deny-outside]
syscalls = connect, sendto
addr = unix:$O/**
action = deny
errno = EACCES
EOF
	policy jobs <<'EOF'
[policy]
default = allow
audit = all

[rule work]
syscalls = @file
path = ${CWD}/**
action = allow

[rule loopback]
syscalls = connect, bind
addr = 127.0.0.1
action = allow
EOF
	policy ports <<'EOF'
[policy]
default = allow

[rule web-only]
syscalls = connect
addr = 10.0.0.0/8:443-444
action = allow

[rule no-network]
syscalls = connect
action = deny
errno = ENETUNREACH
EOF

	sg_listen 127.0.0.1 0
	c connect-loopback      net 0        "--type syscall --syscall connect --ip 127.0.0.1 --port $SG_PORT --family AF_INET --action allow --rule loopback" \
		"$B/try-connect" 127.0.0.1 "$SG_PORT"
	sg_listen_wait
	check connect-loopback-really-connected grep -q hello "$SG_LISTEN_OUT"
	sg_listen 127.0.0.1 0
	c connect-loopback-tail net 0        "--syscall connect --port $SG_PORT --action allow --rule loopback" \
		"$B/try-connect" --tail 127.0.0.1 "$SG_PORT"
	sg_listen_wait
	sg_listen ::1 0
	c connect-loopback6     net 0        "--syscall connect --port $SG_PORT --family AF_INET6 --action allow --rule loopback" \
		"$B/try-connect" ::1 "$SG_PORT"
	sg_listen_wait
	check connect-loopback6-really-connected grep -q hello "$SG_LISTEN_OUT"
	sg_listen 127.0.0.1 0
	c connect-mapped-loopback net 0      "--syscall connect --port $SG_PORT --action allow --rule loopback" \
		"$B/try-connect" ::ffff:127.0.0.1 "$SG_PORT"
	sg_listen_wait
	sg_listen 127.0.0.1 0
	c connect-python-loopback net 0      "--syscall connect --port $SG_PORT --action allow" \
		$PY -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).sendall(b"hello\n")' "$SG_PORT"
	sg_listen_wait
	check connect-python-really-connected grep -q hello "$SG_LISTEN_OUT"
	c connect-remote        net ENETUNREACH "--type syscall --syscall connect --ip 10.1.2.3 --port 80 --family AF_INET --action deny --rule no-network --errno ENETUNREACH" \
		"$B/try-connect" 10.1.2.3 80
	c connect-remote-nonblock net ENETUNREACH "--syscall connect --ip 10.1.2.3 --action deny --rule no-network" \
		"$B/try-connect" --nonblock 10.1.2.3 80
	c connect-remote-udp    net ENETUNREACH "--syscall connect --ip 10.1.2.3 --port 53 --action deny --rule no-network" \
		"$B/try-connect" --udp 10.1.2.3 53
	c connect-remote6       net ENETUNREACH "--syscall connect --port 443 --family AF_INET6 --action deny --rule no-network" \
		"$B/try-connect" 2001:db8::1 443
	c connect-mapped-remote net ENETUNREACH "--syscall connect --port 443 --action deny --rule no-network" \
		"$B/try-connect" ::ffff:10.1.2.3 443
	c connect-remote-tail   net ENETUNREACH "--syscall connect --ip 10.1.2.3 --action deny" \
		"$B/try-connect" --tail 10.1.2.3 80
	c connect-python-remote net 1        "--syscall connect --ip 10.1.2.3 --action deny --rule no-network" \
		$PY -c 'import socket,sys
try:
    socket.create_connection(("10.1.2.3", 80), timeout=3)
except OSError as e:
    sys.exit(1 if e.errno == 101 else 2)'

	# Calls that may block (connect on a blocking socket, a FIFO open)
	# are carried out on worker threads that are kept and reused
	# (notify.c, call_job_start): six FIFO opens blocked at once (more
	# workers than are kept idle), then 40 connects one after another,
	# then the FIFOs again, each answered right and recorded.
	rm -f "$W"/fifo-*
	c jobs-reused           jobs 0       "--syscall connect --ip 127.0.0.1 --action allow --rule loopback --field pending=true --count 40;--type syscall.result --syscall connect --field result=0 --count 40;--syscall openat --path-prefix $W/fifo- --action allow --rule work --has result --count 24" \
		$PY -c '
import os, socket, sys, threading
names = ["fifo-%d" % i for i in range(6)]
for n in names:
    os.mkfifo(n)
def fifo_round():
    got = {}
    def reader(n):
        with open(n) as f:
            got[n] = f.read()
    ts = [threading.Thread(target=reader, args=(n,)) for n in names]
    for t in ts:
        t.start()
    for n in names:
        with open(n, "w") as f:
            f.write("to " + n)
    for t in ts:
        t.join()
    return all(got.get(n) == "to " + n for n in names)
ok = fifo_round()
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(64)
conns = []
for i in range(40):
    c = socket.socket()
    c.connect(srv.getsockname())
    conns.append(c)
ok = ok and fifo_round()
sys.exit(0 if ok else 1)'
	rm -f "$W"/fifo-*

	sg_listen unix "$W/sock"
	c connect-unix-allowed  net 0        "--syscall connect --path $W/sock --family AF_UNIX --action allow --rule unix-cwd" \
		"$B/try-connect" unix "$W/sock"
	sg_listen_wait
	check connect-unix-really-connected grep -q hello "$SG_LISTEN_OUT"
	sg_listen unix "$O/sock"
	c connect-unix-denied   net ENETUNREACH "--syscall connect --path $O/sock --action deny --rule no-network" \
		"$B/try-connect" unix "$O/sock"
	c connect-unix-denied-relative net ENETUNREACH "--syscall connect --path $O/sock --action deny" \
		"$B/try-connect" unix ../outside/sock
	sg_kill_bg
	c connect-abstract-denied net ENETUNREACH "--syscall connect --action deny --rule no-network" \
		"$B/try-connect" abstract "sysgate-test-$$"

	c bind-loopback         net 0        "--type syscall --syscall bind --ip 127.0.0.1 --action allow --rule bind-loopback" \
		"$B/try-bind" 127.0.0.1 0
	c bind-loopback6        net 0        "--syscall bind --action allow --rule bind-loopback" \
		"$B/try-bind" ::1 0
	c bind-any              net ENETUNREACH "--syscall bind --ip 0.0.0.0 --action deny --rule no-network" \
		"$B/try-bind" 0.0.0.0 0
	c bind-unix-cwd         net 0        "--syscall bind --path $W/b.sock --action allow --rule unix-cwd" \
		"$B/try-bind" unix "$W/b.sock"
	check bind-unix-cwd-made test -S "$W/b.sock"
	# bind stores the address it is given: getsockname() must give back
	# the caller's path, not the supervisor's /proc/self/fd/N/NAME.
	c bind-unix-keeps-name  net 0        "--syscall bind --path $W/n.sock --action allow --rule unix-cwd" \
		"$B/try-bind" --name unix "$W/n.sock"
	c bind-unix-keeps-relative-name net 0 "--syscall bind --path $W/r.sock --action allow --rule unix-cwd" \
		"$B/try-bind" --name unix r.sock
	# 100 bytes: fits in sun_path as given, not after /proc/self/fd/N/.
	local long
	long=$(printf 'l%.0s' $(seq 100))
	c bind-unix-long-relative-name net-observe 0 "--syscall bind --path $W/$long --action allow --rule observe" \
		"$B/try-bind" --name unix "$long"
	# The socket file gets the caller's umask.
	c bind-unix-umask       net 0        "--syscall bind --path $W/u.sock --action allow --rule unix-cwd" \
		sh -c "umask 077 && exec $B/try-bind unix u.sock"
	check bind-unix-umask-mode test "$(stat -c %a "$W/u.sock" 2>/dev/null)" = 700
	c bind-unix-outside     net ENETUNREACH "--syscall bind --path $O/b.sock --action deny --rule no-network" \
		"$B/try-bind" unix "$O/b.sock"
	check bind-unix-outside-not-made test ! -e "$O/b.sock"
	# A relative name under a deep cwd: its canonical path is longer than
	# sun_path holds, and unix: globs must still see it (connect and send;
	# without that the deny rule would not match and the call would be
	# allowed: ECONNREFUSED, nobody reads the socket).
	local deep
	deep=$O/$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 60))
	mkdir -p "$deep"
	(cd "$deep" && rm -f sock && $PY -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind("sock")') ||
		sg_harness_error "cannot make $deep/sock"
	[ "$U" = root ] || chown -R "$U" "$O"
	printf '%s\n' 'import socket, sys' 'try:' \
		'    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", sys.argv[1])' \
		'except OSError as e:' '    sys.exit(e.errno)' >"$W/send-unix.py"
	c connect-unix-deep-relative-denied unix-deny EACCES "--syscall connect --path $deep/sock --action deny --rule deny-outside" \
		sh -c "cd $deep && exec $B/try-connect unix sock"
	c send-unix-deep-relative-denied unix-deny EACCES "--syscall sendto --path $deep/sock --action deny --rule deny-outside" \
		sh -c "cd $deep && exec $PY $W/send-unix.py sock"

	# 0.0.0.0 and [::] reach the local host: a rule on loopback covers them.
	sg_listen 127.0.0.1 0
	c connect-zero-denied   no-local ECONNREFUSED "--syscall connect --port $SG_PORT --action deny --rule no-local" \
		"$B/try-connect" 0.0.0.0 "$SG_PORT"
	c connect-loopback-denied no-local ECONNREFUSED "--syscall connect --ip 127.0.0.1 --action deny --rule no-local" \
		"$B/try-connect" 127.0.0.1 "$SG_PORT"
	c connect-127-x-denied  no-local ECONNREFUSED "--syscall connect --action deny --rule no-local" \
		"$B/try-connect" 127.0.0.2 "$SG_PORT"
	sg_kill_bg
	sg_listen ::1 0
	c connect-any6-denied   no-local ECONNREFUSED "--syscall connect --port $SG_PORT --action deny --rule no-local" \
		"$B/try-connect" :: "$SG_PORT"
	sg_kill_bg

	# Port ranges.
	c connect-port-443      ports "0|EINPROGRESS|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH" "--syscall connect --port 443 --action allow --rule web-only" \
		"$B/try-connect" --nonblock 10.1.2.3 443
	c connect-port-445      ports ENETUNREACH "--syscall connect --port 445 --action deny --rule no-network" \
		"$B/try-connect" --nonblock 10.1.2.3 445
	c connect-port-80       ports ENETUNREACH "--syscall connect --port 80 --action deny --rule no-network" \
		"$B/try-connect" --nonblock 10.1.2.3 80
	c connect-other-net-443 ports ENETUNREACH "--syscall connect --port 443 --action deny --rule no-network" \
		"$B/try-connect" --nonblock 192.0.2.77 443
}

sg_main cases
