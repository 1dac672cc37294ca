#!/bin/bash
# SPDX-License-Identifier: MIT
# The rsyslog configuration of docs/shipping-trails.md, run by a real
# rsyslogd (Debian's package): a finished trail with a denial and its OCSF
# events are moved into the spool directory as the page says, and what
# rsyslogd writes holds every line of both, unchanged: the trail's lines
# verify with `sysgate verify`, the events are byte for byte those of
# `sysgate export`.  The configuration is taken from the page itself
# (between its rsyslog-config markers), with the paths changed to this
# test's directories and a work directory for imfile's state, which the
# main rsyslog.conf gives on a real machine.
. "$(dirname "$0")/lib.sh"
sg_init
RSYSLOGD=${RSYSLOGD:-/usr/sbin/rsyslogd}
DOC="${srcdir:-$SG_LIB_DIR/../..}/docs/shipping-trails.md"
[ -f "$DOC" ] || DOC="$SG_LIB_DIR/../../docs/shipping-trails.md"
[ -f "$DOC" ] || sg_harness_error "no docs/shipping-trails.md"
[ -x "$RSYSLOGD" ] ||
	sg_harness_error "no $RSYSLOGD: apt-get install rsyslog (./bootstrap test installs it)"

# The configuration block of the page, as it is there.
doc_config() {
	sed -n '/<!-- rsyslog-config: begin -->/,/<!-- rsyslog-config: end -->/p' "$DOC" |
		grep -v -e '^<!--' -e '^```'
}

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
	{
		printf 'global(workDirectory="%s")\n' "$d/work"
		doc_config | sed -e "s|/var/spool/sysgate|$spool|g" \
			-e "s|/var/log/sysgate/all.jsonl|$out|g"
	} >"$d/rsyslog.conf"
	check config-from-doc grep -q 'module(load="imfile")' "$d/rsyslog.conf"
	check config-paths-changed sh -c "! grep -q '/var/spool/sysgate\|/var/log/sysgate' '$d/rsyslog.conf'"
	check config-valid "$RSYSLOGD" -N1 -f "$d/rsyslog.conf"

	# Hand over finished files as the page says: write privately, then
	# rename into the spool directory.
	local id=run1
	mkdir "$spool/.$id"
	cp "$trail" "$spool/.$id/trail.jsonl"
	"$SYSGATE" export --format ocsf "$spool/.$id/trail.jsonl" >"$spool/.$id/ocsf.jsonl" ||
		sg_harness_error "export failed"
	mv "$spool/.$id/ocsf.jsonl" "$spool/$id.ocsf.jsonl"
	mv "$spool/.$id/trail.jsonl" "$spool/$id.jsonl"

	"$RSYSLOGD" -n -f "$d/rsyslog.conf" -i "$d/rsyslogd.pid" >"$d/rsyslogd.out" 2>&1 &
	local pid=$!
	SG_BG_PIDS+=("$pid")
	local want got=0
	want=$(($(wc -l <"$spool/$id.jsonl") + $(wc -l <"$spool/$id.ocsf.jsonl")))
	for _ in $(seq 200); do
		[ -f "$out" ] && got=$(wc -l <"$out")
		[ "$got" -ge "$want" ] && break
		sleep 0.05
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	check rsyslog-wrote-every-line test "$got" = "$want"

	# The trail's lines, in the order imfile read them, verify; the
	# events are exactly the exported ones.
	grep -v '"class_uid":' "$out" >"$d/got-trail.jsonl"
	grep '"class_uid":' "$out" >"$d/got-ocsf.jsonl"
	check received-trail-verifies "$SYSGATE" verify "$d/got-trail.jsonl"
	check received-trail-is-the-trail cmp "$d/got-trail.jsonl" "$spool/$id.jsonl"
	check received-events-are-the-export cmp "$d/got-ocsf.jsonl" "$spool/$id.ocsf.jsonl"
	check received-denial-finding grep -q '"class_uid":2004,.*"analytic":{"name":"no-secrets"' "$d/got-ocsf.jsonl"
}

sg_main cases
