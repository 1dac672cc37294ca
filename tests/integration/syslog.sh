#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate run --audit-syslog against a real rsyslogd (Debian's package),
# started by the test on a private unix socket and a free TCP port of
# 127.0.0.1, writing each message's text (%msg%) to one file and its
# app-name, msgid and hostname to another:
# - unix:SOCK, udp:127.0.0.1:PORT and tcp:127.0.0.1:PORT: what rsyslogd wrote is the trail,
#   byte for byte and in order (it verifies), every message from app-name
#   sysgate with the run id as msgid;
# - a destination where nothing listens (a missing socket, a closed port):
#   125 at start with a message naming it, the command never runs;
# - the TCP receiver killed mid-run: the run stops with 125 and says so;
#   the trail goes on and ends with run.end "failed", and what rsyslogd had
#   written is the trail's beginning;
# - --audit-format ocsf: the messages are `sysgate export`'s events;
# - docs/shipping-trails.md's live configuration: this host's rsyslogd
#   forwards over TCP to a central one; both write the trail unchanged.
. "$(dirname "$0")/lib.sh"
sg_init
. "$(dirname "$0")/rsyslog-lib.sh"

# start_rsyslogd DIR unix|tcp: an rsyslogd (as root, or as the test's
# user otherwise) with its socket DIR/sock or a TCP port (RS_PORT),
# writing DIR/body.jsonl and DIR/meta.txt.  Sets RS_PID.
start_rsyslogd() {
	local d=$1 kind=$2
	mkdir -p "$d/work"
	{
		printf 'global(workDirectory="%s" maxMessageSize="4m")\n' "$d/work"
		if [ "$kind" = unix ]; then
			echo 'module(load="imuxsock" SysSock.Use="off")'
			printf 'input(type="imuxsock" Socket="%s" UseSpecialParser="off" ParseHostname="on" RateLimit.Interval="0" Ruleset="sg")\n' "$d/sock"
		elif [ "$kind" = udp ]; then
			RS_PORT=$(free_port)
			echo 'module(load="imudp")'
			printf 'input(type="imudp" Port="%s" Address="127.0.0.1" Ruleset="sg")\n' "$RS_PORT"
		else
			RS_PORT=$(free_port)
			echo 'module(load="imtcp")'
			printf 'input(type="imtcp" Port="%s" Address="127.0.0.1" Ruleset="sg")\n' "$RS_PORT"
		fi
		echo 'template(name="body" type="string" string="%msg%\n")'
		echo 'template(name="meta" type="string" string="%app-name% %msgid% %hostname% %pri%\n")'
		echo 'ruleset(name="sg") {'
		printf '  action(type="omfile" File="%s" template="body")\n' "$d/body.jsonl"
		printf '  action(type="omfile" File="%s" template="meta")\n' "$d/meta.txt"
		echo '}'
	} >"$d/rsyslog.conf"
	"$RSYSLOGD" -N1 -f "$d/rsyslog.conf" >"$d/check.out" 2>&1 ||
		sg_harness_error "rsyslogd refuses the test's configuration: $(cat "$d/check.out")"
	"$RSYSLOGD" -n -f "$d/rsyslog.conf" -i "$d/rsyslogd.pid" >"$d/rsyslogd.out" 2>&1 &
	RS_PID=$!
	SG_BG_PIDS+=("$RS_PID")
	for _ in $(seq 200); do
		if [ "$kind" = unix ]; then
			[ -S "$d/sock" ] && break
		elif [ "$kind" = udp ]; then
			ss -Hlun "sport = :$RS_PORT" | grep -q . && break
		else
			$PY -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$RS_PORT" 2>/dev/null && break
		fi
		sleep 0.05
	done
}

stop_rsyslogd() {
	kill "$RS_PID" 2>/dev/null
	wait "$RS_PID" 2>/dev/null
}

# delivered NAME DIR DEST: a run with --audit-syslog DEST; DIR's rsyslogd
# wrote the trail, unchanged, in order, from sysgate with the run id.
delivered() {
	local name=$1 d=$2 dest=$3
	policy ship <<'EOF'
[policy]
default = allow

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES
EOF
	sg_run -r "$P/ship.ini" --audit-syslog "$dest" -- sh -c \
		'cat readme.txt >/dev/null; cat "$1" 2>/dev/null; printf "\033]0;\\xff\\n" >/dev/null; exit 0' \
		sh "$H/.ssh/id_rsa"
	check "$name-run-status-0" test "$SG_RC" = 0
	local want got run
	want=$(wc -l <"$SG_TRAIL")
	check "$name-trail-has-denial" grep -q '"action":"deny"' "$SG_TRAIL"
	got=$(wait_lines "$d/body.jsonl" "$want")
	stop_rsyslogd
	check "$name-rsyslog-got-every-record" test "$got" = "$want"
	check "$name-rsyslog-wrote-the-trail" cmp "$d/body.jsonl" "$SG_TRAIL"
	check "$name-received-verifies" "$SYSGATE" verify "$d/body.jsonl"
	run=$($PY -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["run"])' "$SG_TRAIL")
	# authpriv.info (86), from sysgate, the run id as msgid, this host.
	check "$name-app-name-and-msgid" sh -c "test \"\$(sort -u '$d/meta.txt')\" = 'sysgate $run $(hostname) 86'"
	check "$name-meta-every-record" test "$(wc -l <"$d/meta.txt")" = "$want"
}

# fleet DIR: the page's live configuration (this host's rsyslogd on a
# socket of its own, forwarding over TCP) and its central one, on a free
# port of 127.0.0.1: both write the trail unchanged.
fleet() {
	local d=$1 port
	port=$(free_port)
	mkdir -p "$d/work" "$d/central/work"
	{
		printf 'global(workDirectory="%s")\n' "$d/central/work"
		doc_block central | sed -e "s|Port=\"514\"|Port=\"$port\" Address=\"127.0.0.1\"|" \
			-e "s|/var/log/sysgate/central.jsonl|$d/central.jsonl|g"
	} >"$d/central.conf"
	{
		printf 'global(workDirectory="%s")\n' "$d/work"
		echo 'module(load="imuxsock" SysSock.Use="off")'
		doc_block live | sed -e "s|/run/sysgate-syslog.sock|$d/sock|" \
			-e "s|/var/log/sysgate/live.jsonl|$d/live.jsonl|" \
			-e "s|logs.example.net|127.0.0.1|" -e "s|Port=\"514\"|Port=\"$port\"|"
	} >"$d/live.conf"
	check fleet-config-from-doc grep -q 'UseSpecialParser="off"' "$d/live.conf"
	check fleet-paths-changed sh -c "! grep -q '/run/sysgate\|/var/log/sysgate\|example.net' '$d/live.conf' '$d/central.conf'"
	"$RSYSLOGD" -n -f "$d/central.conf" -i "$d/central.pid" >"$d/central.out" 2>&1 &
	local cpid=$!
	SG_BG_PIDS+=("$cpid")
	for _ in $(seq 200); do
		$PY -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$port" 2>/dev/null && break
		sleep 0.05
	done
	"$RSYSLOGD" -n -f "$d/live.conf" -i "$d/live.pid" >"$d/live.out" 2>&1 &
	local lpid=$!
	SG_BG_PIDS+=("$lpid")
	for _ in $(seq 200); do
		[ -S "$d/sock" ] && break
		sleep 0.05
	done
	chmod 0755 "$d"
	sg_run --audit-syslog "unix:$d/sock" -- sh -c 'cat readme.txt >/dev/null'
	check fleet-run-status-0 test "$SG_RC" = 0
	local want got cgot
	want=$(wc -l <"$SG_TRAIL")
	got=$(wait_lines "$d/live.jsonl" "$want")
	cgot=$(wait_lines "$d/central.jsonl" "$want")
	kill "$lpid" "$cpid" 2>/dev/null
	wait "$lpid" "$cpid" 2>/dev/null
	check fleet-host-got-every-record test "$got" = "$want"
	check fleet-central-got-every-record test "$cgot" = "$want"
	check fleet-host-wrote-the-trail cmp "$d/live.jsonl" "$SG_TRAIL"
	check fleet-central-wrote-the-trail cmp "$d/central.jsonl" "$SG_TRAIL"
}

cases() {
	local d=$R/syslog-$U
	rm -rf "$d"
	mkdir -p "$d"

	start_rsyslogd "$d/unix" unix
	chmod 0755 "$d/unix"
	delivered unix "$d/unix" "unix:$d/unix/sock"

	start_rsyslogd "$d/udp" udp
	delivered udp "$d/udp" "udp:127.0.0.1:$RS_PORT"

	start_rsyslogd "$d/tcp" tcp
	delivered tcp "$d/tcp" "tcp:127.0.0.1:$RS_PORT"

	fleet "$d/fleet"

	# --audit-format ocsf: the messages are the events of sysgate export,
	# byte for byte.
	start_rsyslogd "$d/ocsf" unix
	chmod 0755 "$d/ocsf"
	sg_run -r "$P/ship.ini" --audit-syslog "unix:$d/ocsf/sock" --audit-format ocsf -- \
		sh -c 'cat readme.txt >/dev/null; cat "$1" 2>/dev/null; exit 0' sh "$H/.ssh/id_rsa"
	check ocsf-run-status-0 test "$SG_RC" = 0
	"$SYSGATE" export --format ocsf "$SG_TRAIL" >"$d/ocsf/export.jsonl" ||
		sg_harness_error "export failed"
	local got
	got=$(wait_lines "$d/ocsf/body.jsonl" "$(wc -l <"$SG_TRAIL")")
	stop_rsyslogd
	check ocsf-every-record test "$got" = "$(wc -l <"$SG_TRAIL")"
	check ocsf-is-the-export cmp "$d/ocsf/body.jsonl" "$d/ocsf/export.jsonl"
	check ocsf-has-finding grep -q '"class_uid":2004,.*"analytic":{"name":"no-secrets"' "$d/ocsf/body.jsonl"
	sg_run --audit-format ocsf -- true
	check ocsf-without-syslog-125 test "$SG_RC" = 125
	sg_run --audit-syslog "unix:$d/ocsf/sock" --audit-format xml -- true
	check format-unknown-125 test "$SG_RC" = 125

	# Nothing listens: 125 before anything runs.  (The control: without
	# the option the same command writes its flag.)
	local flag port
	sg_run -- sh -c "echo >$W/ran.control"
	check control-flag-written test -e "$W/ran.control"
	for dest in "unix:$d/unix/sock" "unix:$d/none" "tcp:127.0.0.1:$RS_PORT" \
		    "tcp:[::1]:$RS_PORT" "tcp:localhost:$RS_PORT" "smtp:127.0.0.1:25"; do
		flag=$W/ran.$RANDOM
		sg_run --audit-syslog "$dest" -- sh -c "echo >$flag"
		check "refused-$dest-125" test "$SG_RC" = 125
		check "refused-$dest-says-so" grep -qF -- "--audit-syslog $dest" "$SG_ERR"
		check "refused-$dest-nothing-ran" test ! -e "$flag"
	done

	# The receiver goes away mid-run: the tree waits for go, the test
	# kills rsyslogd, then the tree runs more (recorded) commands.
	start_rsyslogd "$d/gone" tcp
	port=$RS_PORT
	local go=$W/go.$U started=$W/started.$U end=$W/end.$U
	rm -f "$go" "$started" "$end"
	(sg_run --audit-syslog "tcp:127.0.0.1:$port" -- sh -c \
		'touch "$1"; i=0; while [ ! -e "$2" ] && [ $i -lt 200 ]; do i=$((i+1)); sleep 0.05; done
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done; echo >"$3"' \
		sh "$started" "$go" "$end"
	exit "$SG_RC") &
	local run_pid=$!
	# sg_run ran in a subshell: its files are those of the next run.
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_ERR=$R/$SG_N.err
	sg_wait_file "$started" || sg_harness_error "the run did not start"
	stop_rsyslogd
	touch "$go"
	wait "$run_pid"
	SG_RC=$?
	check gone-run-125 test "$SG_RC" = 125
	check gone-says-so grep -qF -- "--audit-syslog tcp:127.0.0.1:$port: a record was not handed over" "$SG_ERR"
	check gone-no-false-end-message sh -c "! grep -q 'cannot write the end' '$SG_ERR'"
	check gone-tree-stopped test ! -e "$end"
	check gone-trail-ends-failed sh -c "tail -1 '$SG_TRAIL' | grep -q '\"type\":\"run.end\".*\"status\":\"failed\"'"
	check gone-trail-verifies "$SYSGATE" verify "$SG_TRAIL"
	local n
	n=$(wc -l <"$d/gone/body.jsonl")
	check gone-received-is-trail-start sh -c "test '$n' -gt 0 && head -n '$n' '$SG_TRAIL' | cmp - '$d/gone/body.jsonl'"
	check gone-not-all-received test "$n" -lt "$(wc -l <"$SG_TRAIL")"
}

sg_main cases
