#!/bin/bash
# SPDX-License-Identifier: MIT
# The rsyslog configurations of docs/shipping-trails.md, run by real
# rsyslogds (Debian's package): a finished trail with a denial and long
# lines, and its OCSF events, are moved into the spool directory as the
# page says; one rsyslogd (this host) writes them to its file and forwards
# them over TCP to another (the central host, on a free port of
# 127.0.0.1), which writes them to its own.  Both files hold every line of
# both, unchanged: the trail's lines verify with `sysgate verify` and equal
# the trail, the events are byte for byte those of `sysgate export`.  The
# configurations are taken from the page itself (between its rsyslog-*
# markers), with the paths, host and port changed to this test's and a
# work directory for each, which the main rsyslog.conf gives on a real
# machine.
. "$(dirname "$0")/lib.sh"
sg_init
. "$(dirname "$0")/rsyslog-lib.sh"

cases() {
	policy ship <<'EOF'
[policy]
default = allow

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES
EOF
	local S=$H/.ssh/id_rsa
	# Long lines too: rsyslog's default message size (8 KiB) would cut
	# the exec record of five 4000-byte arguments, and its event more.
	local long
	long=$(printf 'a%.0s' $(seq 4000))
	sg_run -r "$P/ship.ini" -- sh -c 'cat readme.txt >/dev/null; cat "$1" 2>/dev/null
		/bin/true "$2" "$2" "$2" "$2" "$2"; exit 0' sh "$S" "$long"
	check run-status-0 test "$SG_RC" = 0
	local trail=$SG_TRAIL
	check trail-has-denial grep -q '"action":"deny"' "$trail"
	check trail-has-long-line sh -c "awk 'length > 16384 { n++ } END { exit !n }' '$trail'"

	local d=$R/ship-$U spool out
	spool=$d/spool
	out=$d/log/all.jsonl
	mkdir -p "$spool" "$d/log" "$d/work"
	# The central host: the page's central configuration on a free port.
	local port central=$d/central/central.jsonl
	port=$(free_port)
	mkdir -p "$d/central/work"
	{
		printf 'global(workDirectory="%s")\n' "$d/central/work"
		doc_block central | sed -e "s|Port=\"514\"|Port=\"$port\" Address=\"127.0.0.1\"|" \
			-e "s|/var/log/sysgate/central.jsonl|$central|g"
	} >"$d/central.conf"
	# This host: the page's configuration, the forward action added to
	# its ruleset (before the ruleset's closing brace), sent to the
	# central one.
	{
		printf 'global(workDirectory="%s")\n' "$d/work"
		doc_block config | sed -e "s|/var/spool/sysgate|$spool|g" \
			-e "s|/var/log/sysgate/all.jsonl|$out|g" | sed -e '$d'
		doc_block forward | sed -e "s|logs.example.net|127.0.0.1|" \
			-e "s|Port=\"514\"|Port=\"$port\"|"
		echo '}'
	} >"$d/rsyslog.conf"
	check config-from-doc grep -q 'module(load="imfile")' "$d/rsyslog.conf"
	check config-forward-from-doc grep -q 'TCP_Framing="octet-counted"' "$d/rsyslog.conf"
	check config-central-from-doc grep -q 'module(load="imtcp")' "$d/central.conf"
	check config-paths-changed sh -c "! grep -q '/var/spool/sysgate\|/var/log/sysgate\|example.net' '$d/rsyslog.conf' '$d/central.conf'"
	check config-valid "$RSYSLOGD" -N1 -f "$d/rsyslog.conf"
	check central-config-valid "$RSYSLOGD" -N1 -f "$d/central.conf"

	# Hand over finished files as the page says: write privately, then
	# rename into the spool directory.
	local id=run1
	mkdir "$spool/.$id"
	cp "$trail" "$spool/.$id/trail.jsonl"
	"$SYSGATE" export --format ocsf "$spool/.$id/trail.jsonl" >"$spool/.$id/ocsf.jsonl" ||
		sg_harness_error "export failed"
	mv "$spool/.$id/ocsf.jsonl" "$spool/$id.ocsf.jsonl"
	mv "$spool/.$id/trail.jsonl" "$spool/$id.jsonl"

	"$RSYSLOGD" -n -f "$d/central.conf" -i "$d/central.pid" >"$d/central.out" 2>&1 &
	local cpid=$!
	SG_BG_PIDS+=("$cpid")
	for _ in $(seq 200); do
		$PY -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$port" 2>/dev/null && break
		sleep 0.05
	done
	"$RSYSLOGD" -n -f "$d/rsyslog.conf" -i "$d/rsyslogd.pid" >"$d/rsyslogd.out" 2>&1 &
	local pid=$!
	SG_BG_PIDS+=("$pid")
	local want got cgot
	want=$(($(wc -l <"$spool/$id.jsonl") + $(wc -l <"$spool/$id.ocsf.jsonl")))
	got=$(wait_lines "$out" "$want")
	cgot=$(wait_lines "$central" "$want")
	kill "$pid" "$cpid" 2>/dev/null
	wait "$pid" "$cpid" 2>/dev/null
	check rsyslog-wrote-every-line test "$got" = "$want"
	check central-got-every-line test "$cgot" = "$want"

	# The trail's lines, in the order imfile read them, verify; the
	# events are exactly the exported ones.
	grep -v '"class_uid":' "$out" >"$d/got-trail.jsonl"
	grep '"class_uid":' "$out" >"$d/got-ocsf.jsonl"
	check received-trail-verifies "$SYSGATE" verify "$d/got-trail.jsonl"
	check received-trail-is-the-trail cmp "$d/got-trail.jsonl" "$spool/$id.jsonl"
	check received-events-are-the-export cmp "$d/got-ocsf.jsonl" "$spool/$id.ocsf.jsonl"
	check received-denial-finding grep -q '"class_uid":2004,.*"analytic":{"name":"no-secrets"' "$d/got-ocsf.jsonl"
	# The same at the central host, after the trip through TCP.
	grep -v '"class_uid":' "$central" >"$d/central-trail.jsonl"
	grep '"class_uid":' "$central" >"$d/central-ocsf.jsonl"
	check central-trail-verifies "$SYSGATE" verify "$d/central-trail.jsonl"
	check central-trail-is-the-trail cmp "$d/central-trail.jsonl" "$spool/$id.jsonl"
	check central-events-are-the-export cmp "$d/central-ocsf.jsonl" "$spool/$id.ocsf.jsonl"
}

sg_main cases
