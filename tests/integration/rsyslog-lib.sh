# SPDX-License-Identifier: MIT
# Sourced by the rsyslog tests (syslog.sh, ship-rsyslog.sh) after lib.sh
# and sg_init: the rsyslogd to start, docs/shipping-trails.md and the
# helpers both use.
RSYSLOGD=${RSYSLOGD:-/usr/sbin/rsyslogd}
DOC="${srcdir:-$SG_LIB_DIR/../..}/docs/shipping-trails.md"
[ -f "$DOC" ] || DOC="$SG_LIB_DIR/../../docs/shipping-trails.md"
[ -f "$DOC" ] || sg_harness_error "no docs/shipping-trails.md"
[ -x "$RSYSLOGD" ] ||
	sg_harness_error "no $RSYSLOGD: apt-get install rsyslog (./bootstrap test installs it)"

# doc_block NAME: the block of the page between its rsyslog-NAME markers,
# as it is there.
doc_block() {
	sed -n "/<!-- rsyslog-$1: begin -->/,/<!-- rsyslog-$1: end -->/p" "$DOC" |
		grep -v -e '^<!--' -e '^```'
}

# A free TCP port on 127.0.0.1.
free_port() {
	$PY -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# wait_lines FILE N: wait (up to 10 s) until FILE has N lines; prints how
# many it has.
wait_lines() {
	local got=0
	for _ in $(seq 200); do
		[ -f "$1" ] && got=$(wc -l <"$1")
		[ "$got" -ge "$2" ] && break
		sleep 0.05
	done
	echo "$got"
}
