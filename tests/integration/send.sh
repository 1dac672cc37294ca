#!/bin/bash
# SPDX-License-Identifier: MIT
# Sends with a destination (sendto, sendmsg, sendmmsg on unconnected UDP
# sockets) are network calls: decided on the copied address like connect,
# sent by the supervisor from a copy of the data; whether a datagram
# arrived is checked from outside, by a receiver that is not traced.
. "$(dirname "$0")/lib.sh"
sg_init

PY=/usr/bin/python3

# A UDP receiver on 127.0.0.1: writes its port to $1 and every datagram it
# gets to $1.out, for 20 s at most.
udp_receiver() {
	"${SG_AS[@]}" "$PY" - "$1" <<'PYEOF' >/dev/null 2>&1 &
import socket, sys, os
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.settimeout(20)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
with open(sys.argv[1] + ".out", "ab", buffering=0) as out:
    try:
        while True:
            out.write(s.recv(100))
    except OSError:
        pass
PYEOF
	SG_BG_PIDS+=($!)
	for _ in $(seq 100); do
		[ -f "$1" ] && break
		sleep 0.05
	done
	[ -f "$1" ] || sg_harness_error "UDP receiver did not start"
	UDP_PORT=$(cat "$1")
}

# At least $2 datagrams "hello" arrived at receiver $1.
got_datagrams() {
	local n
	for _ in $(seq 40); do
		n=$(grep -c hello "$1.out" 2>/dev/null)
		[ "${n:-0}" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

cases() {
	policy send <<'EOF'
[policy]
default = allow
audit = all

[rule loopback]
syscalls = @network
addr = 127.0.0.0/8, [::1], unix:**
action = allow

[rule no-network]
syscalls = @network
action = deny
errno = ENETUNREACH
EOF
	local pf=$R/udp.$RANDOM.$$
	udp_receiver "$pf"
	c sendto-loopback   send 0 "--type syscall --syscall sendto --ip 127.0.0.1 --port $UDP_PORT --action allow --rule loopback" \
		"$B/try-send" 127.0.0.1 "$UDP_PORT"
	c sendmsg-loopback  send 0 "--type syscall --syscall sendmsg --ip 127.0.0.1 --port $UDP_PORT --action allow --rule loopback" \
		"$B/try-send" --msg 127.0.0.1 "$UDP_PORT"
	c sendmmsg-loopback send 0 "--type syscall --syscall sendmmsg --ip 127.0.0.1 --port $UDP_PORT --action allow --rule loopback" \
		"$B/try-send" --mmsg 127.0.0.1 "$UDP_PORT"
	check datagrams-arrived got_datagrams "$pf" 3
	c sendto-remote     send ENETUNREACH "--type syscall --syscall sendto --ip 10.1.2.3 --port 53 --action deny --rule no-network --errno ENETUNREACH" \
		"$B/try-send" 10.1.2.3 53
	c sendmsg-remote    send ENETUNREACH "--syscall sendmsg --ip 10.1.2.3 --action deny --rule no-network" \
		"$B/try-send" --msg 10.1.2.3 53
	c sendmmsg-remote   send ENETUNREACH "--syscall sendmmsg --ip 10.1.2.3 --action deny --rule no-network" \
		"$B/try-send" --mmsg 10.1.2.3 53
	c sendto-remote6    send ENETUNREACH "--syscall sendto --family AF_INET6 --action deny --rule no-network" \
		"$B/try-send" 2001:db8::1 53
	c sendto-mapped     send ENETUNREACH "--syscall sendto --action deny --rule no-network" \
		"$B/try-send" ::ffff:10.1.2.3 53
	# fds passed with SCM_RIGHTS over a datagram socket arrive, and a
	# connected stream socket sends large data without a decision.
	c scm-rights        send 0 "--type syscall --syscall sendmsg --count 0" \
		"$PY" -c '
import socket, os
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
fd = os.open("/etc/hostname", os.O_RDONLY)
socket.send_fds(a, [b"m"], [fd])
msg, fds, _, _ = socket.recv_fds(b, 10, 1)
assert msg == b"m" and os.read(fds[0], 100) == open("/etc/hostname", "rb").read()
s, t = socket.socketpair()
s.sendall(b"x" * 100000)
n = 0
while n < 100000:
    n += len(t.recv(200000))
'
	sg_kill_bg
}

sg_main cases
