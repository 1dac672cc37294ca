#!/bin/bash
# SPDX-License-Identifier: MIT
# Every way a socket reaches out or listens is decided by the network
# rules (SECURITY.md, *Every way a socket reaches out or listens*):
# listen() on an unbound socket (the kernel would
# bind it to the wildcard address), a packet socket whose address claims
# AF_NETLINK, packet and raw sockets, socket options and control messages
# that route a packet to 127.0.0.1 out to another host.
#
# Judged outside the tree, in two network namespaces of the test's own
# joined by a veth (addresses inside them only): sysgate runs in A; ss(8)
# in A shows a listener or none; a client in B connects or is refused; a
# packet reader on B's end of the veth counts the frames that carry the
# attack's mark.  Each attack first runs natively, to show the test sees
# it when it works.
. "$(dirname "$0")/lib.sh"
sg_init

[ "$(id -u)" = 0 ] ||
	sg_skip_all "needs root to make network namespaces of its own"
command -v ip >/dev/null || sg_harness_error "ip(8) is missing"
command -v ss >/dev/null || sg_harness_error "ss(8) is missing"

NS_A=sg-reach-a.$$
NS_B=sg-reach-b.$$
VA=sgra$$
VB=sgrb$$
IP_A=10.231.7.1
IP_B=10.231.7.2
IP6_B=fd00:231::2
STRICT=$SG_LIB_DIR/../../rules/policies/strict.ini

net_cleanup() {
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
}
trap 'rc=$?; net_cleanup; (exit $rc); sg_cleanup' EXIT

net_setup() {
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
	ip link add "$VA" type veth peer name "$VB" &&
	ip link set "$VA" netns "$NS_A" && ip link set "$VB" netns "$NS_B" &&
	ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
	ip -n "$NS_A" addr add "$IP_A/24" dev "$VA" &&
	ip -n "$NS_B" addr add "$IP_B/24" dev "$VB" &&
	ip -n "$NS_A" addr add fd00:231::1/64 dev "$VA" nodad &&
	ip -n "$NS_B" addr add "$IP6_B/64" dev "$VB" nodad &&
	ip -n "$NS_A" link set "$VA" up && ip -n "$NS_B" link set "$VB" up
}
net_setup || sg_harness_error "cannot make the network namespaces"

# The packet reader: frames on B's end of the veth holding MARK.
cat >"$T/cap.py" <<'EOF'
import socket, sys, time
iface, mark, secs, ready = sys.argv[1], sys.argv[2].encode(), float(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((iface, 0))
s.settimeout(0.2)
open(ready, "w").close()
end = time.time() + secs
n = 0
while time.time() < end:
    try:
        if mark in s.recv(65535):
            n += 1
    except socket.timeout:
        pass
print(n)
EOF

# capture_start MARK: read B's veth for 3 s from now.
capture_start() {
	CAP_OUT=$R/cap.$RANDOM
	rm -f "$CAP_OUT.ready"
	ip netns exec "$NS_B" "$PY" "$T/cap.py" "$VB" "$1" 3 \
		"$CAP_OUT.ready" >"$CAP_OUT" 2>&1 &
	CAP_PID=$!
	SG_BG_PIDS+=("$CAP_PID")
	sg_wait_file "$CAP_OUT.ready" ||
		sg_harness_error "packet reader did not start: $(cat "$CAP_OUT")"
}

# captured N: the reader (waited for: capture_wait) saw N frames with
# the mark.
capture_wait() {
	wait "$CAP_PID"
}
captured() {
	[ "$(cat "$CAP_OUT")" = "$1" ] ||
		{ echo "frames with the mark on the veth: $(cat "$CAP_OUT"), expected $1"; return 1; }
}

# A packet attack: natively as a control (seen when root may do it),
# then under POLICY with EXPECT, judged on the veth and the trail.
# pkt NAME POLICY EXPECT NATIVE-FRAMES FRAMES AUDIT MODE ARGS... MARK
pkt() {
	local name=$1 pol=$2 expect=$3 nat=$4 frames=$5 audit=$6
	shift 6
	local mark=${*: -1}
	capture_start "$mark"
	(cd "$W" && ip netns exec "$NS_A" "${SG_USER[@]}" "$W/attack-net" "$@") \
		>/dev/null 2>&1
	capture_wait
	check "$name-native-control" captured "$nat"
	capture_start "$mark"
	c "$name" "$pol" "$expect" "$audit" "$W/attack-net" "$@"
	capture_wait
	check "$name-frames" captured "$frames"
}

# listen NAME POLICY EXPECT AUDIT [6]: listen() on an unbound socket
# under POLICY; while the run lasts (up to 10 s), ss in A must show no
# listener and nothing from B may connect.
listen_case() {
	local name=$1 pol=$2 expect=$3 audit=$4 v6=${5:-}
	rm -f "$W/port"
	c "$name" "$pol" "$expect" "$audit" "$W/attack-net" listen "$W/port" $v6
	check "$name-no-port" test ! -e "$W/port"
}

# The native control of listen: a listener ss sees, which B reaches.
listen_native() {
	local out=$R/listen-native.$RANDOM
	rm -f "$W/port"
	(cd "$W" && ip netns exec "$NS_A" "${SG_USER[@]}" "$W/attack-net" \
		listen "$W/port") >/dev/null 2>&1 &
	local pid=$!
	SG_BG_PIDS+=("$pid")
	sg_wait_file "$W/port" || sg_harness_error "native listener did not start"
	local port
	port=$(cat "$W/port")
	ip netns exec "$NS_A" ss -ltnH >"$out.ss"
	check listen-native-control-ss grep -q "0.0.0.0:$port " "$out.ss"
	check listen-native-control-reached ip netns exec "$NS_B" "$PY" -c \
		'import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)' \
		"$IP_A" "$port"
	wait "$pid"
	check listen-native-control-accepted test $? = 0
}

cases() {
	# sysgate runs in namespace A; the victim in the work directory,
	# where the default and strict policies let it run.
	cp "$B/attack-net" "$W/" && chown --reference="$W" "$W/attack-net" ||
		sg_harness_error "cannot copy attack-net"
	SG_USER=("${SG_AS[@]}")
	SG_AS=(ip netns exec "$NS_A" "${SG_AS[@]}")

	policy sends-loopback <<'EOF'
[policy]
default = allow
audit = all

[rule loopback]
syscalls = sendto, sendmsg, sendmmsg
addr = 127.0.0.0/8, [::1]
action = allow

[rule no-sends]
syscalls = sendto, sendmsg, sendmmsg
action = deny
errno = ENETUNREACH
EOF
	policy net-open <<'EOF'
[policy]
default = allow
audit = all

[rule network]
syscalls = @network
action = allow
EOF
	policy bind-loopback <<'EOF'
[policy]
default = allow
audit = all

[rule loopback]
syscalls = bind
addr = 127.0.0.1
action = allow

[rule no-bind]
syscalls = bind
action = deny
errno = EACCES
EOF

	# 1. listen() on an unbound socket: a bind to 0.0.0.0 (or [::]).
	listen_native
	listen_case listen-unbound-default - ENETUNREACH \
		"--syscall listen --action deny --rule no-network --errno ENETUNREACH --ip 0.0.0.0 --port 0 --family AF_INET"
	listen_case listen6-unbound-default - ENETUNREACH \
		"--syscall listen --action deny --rule no-network --ip :: --family AF_INET6" 6
	listen_case listen-unbound-strict "$STRICT" ENETUNREACH \
		"--syscall listen --action deny --rule strict-no-network --ip 0.0.0.0"
	listen_case listen-unbound-bind-rules bind-loopback EACCES \
		"--syscall listen --action deny --rule no-bind --ip 0.0.0.0"
	# Where the policy allows a bind to 0.0.0.0 the supervisor binds it
	# and B connects (the run waits for one connection).
	rm -f "$W/port"
	SG_RUN_OPTS='' sg_bg_listen
	# A listen on a bound socket is as it was: a server on 127.0.0.1.
	c listen-bound-loopback - 0 \
		"--syscall bind --ip 127.0.0.1 --action allow;--syscall listen --action allow --field result=0" \
		"$PY" -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), timeout=5)
a, _ = s.accept(); c.sendall(b"x"); assert a.recv(1) == b"x"'

	# 5. Inbound connections on inet listeners are recorded with their
	# peer (the supervisor accepts them on the caller's socket): a
	# blocking accept, a non-blocking one with nothing pending (EAGAIN),
	# and a blocking one a signal handler interrupts (it must run, not
	# wait for a connection that never comes).
	c accept-loopback-recorded - 0 \
		"--syscall accept4 --action allow --field args.peer.ip=\"127.0.0.1\" --has result --has note" \
		"$PY" -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), timeout=5)
a, peer = s.accept(); c.sendall(b"x"); assert a.recv(1) == b"x"
assert peer == c.getsockname(), (peer, c.getsockname())'
	# A unix listener (one thread, nothing can swap its fd) listens
	# itself: a client's SO_PEERCRED names the server, not sysgate.
	c listen-unix-peercred - 0 "--syscall listen --field args.domain=\"AF_UNIX\"" \
		"$PY" -c '
import os, socket, struct
s = socket.socket(socket.AF_UNIX); s.bind("srv.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("srv.sock")
pid, uid, gid = struct.unpack("3i", c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
os.unlink("srv.sock")
assert pid == os.getpid(), (pid, os.getpid())'
	c accept-nonblocking-empty - 0 \
		"--syscall accept4 --errno EAGAIN" \
		"$PY" -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); s.setblocking(False)
try:
    s.accept()
except BlockingIOError:
    pass
else:
    raise SystemExit(1)'
	# accept on a socket that does not listen fails at once.
	SG_TIMEOUT=20 c accept-not-listening - 0 "--syscall accept4 --errno EOPNOTSUPP" \
		"$PY" -c '
import errno, socket
s = socket.socket(type=socket.SOCK_DGRAM)
try:
    s.accept()
except OSError as e:
    assert e.errno == errno.EOPNOTSUPP, e
else:
    raise SystemExit(1)'
	SG_TIMEOUT=20 c accept-signal-handled - 0 - \
		"$PY" -c '
import signal, socket
class Alarm(Exception): pass
def on_alarm(*_): raise Alarm()
signal.signal(signal.SIGALRM, on_alarm)
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
signal.alarm(1)
try:
    s.accept()
except Alarm:
    pass
else:
    raise SystemExit(1)'

	# 2. The family a rule sees is the socket's: a packet socket whose
	# address claims AF_NETLINK is no netlink send.  (nobody may not
	# make a packet socket: the kernel's EPERM.)
	local own=ENETUNREACH nat=1
	[ "$U" = root ] || { own=EPERM; nat=0; }
	pkt packet-claims-netlink sends-loopback "$own" "$nat" 0 \
		"$([ "$U" = root ] && echo "--syscall sendto --action deny --rule no-sends --family AF_NETLINK --field args.domain=\"AF_PACKET\"" || echo -)" \
		packet "$VA" MARKPKT1

	# AF_UNSPEC on an inet socket binds as AF_INET: decided so.
	policy no-wildcard <<'EOF'
[policy]
default = allow
audit = all

[rule no-wildcard]
syscalls = bind
addr = 0.0.0.0
action = deny
errno = EACCES
EOF
	rm -f "$W/port"
	c bind-unspec-as-inet no-wildcard EACCES \
		"--syscall bind --action deny --rule no-wildcard --field args.domain=\"AF_INET\"" \
		"$W/attack-net" bind-unspec "$W/port" 0
	check bind-unspec-as-inet-no-port test ! -e "$W/port"
	# --user: a port below 1024 bound as AF_UNSPEC takes the caller's
	# CAP_NET_BIND_SERVICE, not the supervisor's.
	if [ "$U" = root ]; then
		mkdir -p "$W/pub" && chmod 0777 "$W/pub" && rm -f "$W/pub/port"
		SG_RUN_OPTS="--user nobody" c bind-unspec-low-port-user net-open EACCES \
			"--syscall bind --errno EACCES" \
			"$W/attack-net" bind-unspec "$W/pub/port" 81
		check bind-unspec-low-port-user-no-port test ! -e "$W/pub/port"
	fi

	# 3. Packet and raw sockets: refused by the default and strict
	# policies when made, for root and nobody alike.
	pkt packet-default - ENETUNREACH "$nat" 0 \
		"--syscall socket --action deny --rule no-network --field args.domain=\"AF_PACKET\"" \
		packet "$VA" MARKPKT2
	pkt packet-strict "$STRICT" ENETUNREACH "$nat" 0 \
		"--syscall socket --action deny --rule strict-no-network" \
		packet "$VA" MARKPKT3
	c raw-default - ENETUNREACH \
		"--syscall socket --action deny --rule no-network --field args.type=\"SOCK_RAW\"" \
		"$W/attack-net" raw

	# 4. Options that change where packets go.  IP_OPTIONS (source
	# route) needs CAP_NET_RAW; a segment routing header does not.
	pkt ipopt-default - ENETUNREACH "$nat" 0 \
		"--syscall setsockopt --action deny --rule no-network --field args.option=\"IP_OPTIONS\"" \
		ipopt "$IP_B" MARKIPO1
	pkt rthdr-default - ENETUNREACH 1 0 \
		"--syscall setsockopt --action deny --rule no-network --field args.option=\"IPV6_RTHDR\"" \
		rthdr "$IP6_B" MARKRTH1
	pkt rthdr-strict "$STRICT" ENETUNREACH 1 0 \
		"--syscall setsockopt --action deny --rule strict-no-network" \
		rthdr "$IP6_B" MARKRTH2
	c bindtodevice-default - ENETUNREACH \
		"--syscall setsockopt --action deny --rule no-network --field args.option=\"SO_BINDTODEVICE\"" \
		"$W/attack-net" bindtodev "$VA" MARKBTD
	# The same route in a control message of one send.
	local own_ro=ENETUNREACH
	[ "$U" = root ] || own_ro=EPERM
	pkt retopts-default - ENETUNREACH "$nat" 0 \
		"--syscall sendmsg --action deny --rule no-network" \
		retopts "$IP_B" MARKRO1
	# A policy that allows the whole network allows them, recorded.
	pkt rthdr-allowed net-open 0 1 1 \
		"--syscall setsockopt --action allow --rule network --field args.option=\"IPV6_RTHDR\"" \
		rthdr "$IP6_B" MARKRTH3
	: "$own_ro"
}

# Under bind-rules that allow 0.0.0.0: listen binds it, B connects.
sg_bg_listen() {
	policy bind-any <<'EOF'
[policy]
default = allow
audit = all

[rule any]
syscalls = bind
addr = 0.0.0.0
action = allow
EOF
	local trail=$R/bg-listen.jsonl
	sg_envs
	(cd "$W" && exec timeout -k 5 30 "${SG_AS[@]}" env -i "${SG_ENVS[@]}" \
		"$SYSGATE" run -a "$trail" -r "$P/bind-any.ini" -- \
		"$W/attack-net" listen "$W/port") >"$R/bg-listen.out" 2>&1 </dev/null &
	local pid=$!
	SG_BG_PIDS+=("$pid")
	if ! sg_wait_file "$W/port"; then
		check listen-allowed-started false
		return
	fi
	local port
	port=$(cat "$W/port")
	check listen-allowed-ss sh -c "ip netns exec $NS_A ss -ltnH | grep -q '0.0.0.0:$port '"
	check listen-allowed-reached ip netns exec "$NS_B" "$PY" -c \
		'import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)' \
		"$IP_A" "$port"
	wait "$pid"
	check listen-allowed-accepted test $? = 0
	check listen-allowed-recorded "$PY" "$AUDITQ" "$trail" --syscall listen \
		--action allow --rule any --ip 0.0.0.0 --field emulated=true
	# 5. The connection from B, recorded with its peer.
	check accept-peer-recorded "$PY" "$AUDITQ" "$trail" --syscall accept \
		--field "args.peer.ip=\"$IP_B\"" --has args.peer.port --has result
}

sg_main cases
