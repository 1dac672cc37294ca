#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate export --format ocsf: a real trail (files read, created, renamed
# and removed, a secret read denied, a call killed, a fork and exec, a
# connect to a listener on 127.0.0.1 and one denied) becomes one OCSF
# 1.3.0 event per record: each event has the required attributes of its
# class, profiles and objects (tests/data/ocsf-1.3.0-required.json), its
# unmapped is the record, the counts per type agree with the trail, and
# the denial, the kill, the exec and the connect are where OCSF puts them;
# a trail streamed on a pipe (--audit-fd) exports the same way; run
# --audit-fd N --audit-format ocsf writes each event to fd N while the run
# goes on (the command sees its own denial's event before it ends), the
# events pass the schema and are byte for byte the export of the run's
# file trail (also with --audit-syslog at the same time, whose messages
# carry the same events); a reader that has gone stops the run (125), never kills
# sysgate with SIGPIPE.
# A record of an unknown type is still exported (Base Event), an unknown
# action as a refusal (a finding, never Allowed); a bad line
# is skipped with exit status 1; usage errors give 125.  The checker
# itself is shown to fail on an event without a required attribute and on
# a missing event.
. "$(dirname "$0")/lib.sh"
sg_init
CHECK="$SG_LIB_DIR/ocsf-check.py"
REQ="${srcdir:-$SG_LIB_DIR/../..}/tests/data/ocsf-1.3.0-required.json"
[ -f "$REQ" ] || REQ="$SG_LIB_DIR/../data/ocsf-1.3.0-required.json"
[ -f "$REQ" ] || sg_harness_error "no ocsf-1.3.0-required.json"

# sg_export NAME ARGS...: run `sysgate export ARGS`; sets SG_RC, SG_OUT, SG_ERR.
sg_export() {
	SG_OUT=$R/export-$1.out
	SG_ERR=$R/export-$1.err
	shift
	timeout -k 5 60 "$SYSGATE" export "$@" >"$SG_OUT" 2>"$SG_ERR" </dev/null
	SG_RC=$?
}

expect_rc() {
	if [ "$SG_RC" = "$2" ]; then
		SG_ERR= sg_report_pass "$1"
	else
		sg_report_fail "$1" "expected exit $2, got $(sg_status_text "$SG_RC")" \
			"stderr: $(head -c 600 "$SG_ERR")"
	fi
}

# has NAME EVENTS PYTHON-EXPR: some event e of EVENTS makes EXPR true.
has() {
	check "$1" $PY "$CHECK" has "$2" "$3"
}

cases() {
	policy ocsf <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES

[rule no-trap]
syscalls = @file
path = ${CWD}/trap.txt
action = kill

[rule no-far-net]
syscalls = connect
addr = 10.0.0.0/8
action = deny
errno = ENETUNREACH

[rule loopback]
syscalls = connect
addr = 127.0.0.0/8
action = allow
EOF
	local S=$H/.ssh/id_rsa
	sg_listen 127.0.0.1 0
	sg_run -r "$P/ocsf.ini" -- sh -c '
		cat readme.txt >/dev/null
		echo data > made.txt
		mkdir sub
		mv made.txt sub/moved.txt
		rm sub/moved.txt
		cat "$1" 2>/dev/null
		cat trap.txt 2>/dev/null
		"$2/try-connect" 127.0.0.1 "$3"
		"$2/try-connect" 10.1.2.3 80
		exit 3' sh "$S" "$B" "$SG_PORT"
	local trail=$SG_TRAIL
	sg_listen_wait
	check run-status-3 test "$SG_RC" = 3
	check run-trail-verifies "$SYSGATE" verify "$trail"

	sg_export real --format ocsf "$trail"
	expect_rc export-exit-0 0
	local ev=$SG_OUT
	check export-one-line-per-record test "$(wc -l <"$ev")" = "$(wc -l <"$trail")"
	check schema-required $PY "$CHECK" schema "$REQ" "$ev"
	check roundtrip-counts $PY "$CHECK" roundtrip "$trail" "$ev"

	# Where OCSF puts each thing.
	has denial-is-finding "$ev" "e['class_uid'] == 2004 and e['type_uid'] == 200401 and get(e, 'evidences.0.file.path') == '$S' and get(e, 'finding_info.analytic.name') == 'no-secrets' and e['action_id'] == 2 and e['disposition_id'] == 2 and e['severity_id'] == 3 and e['unmapped']['errno'] == 'EACCES'"
	has denial-actor "$ev" "e['class_uid'] == 2004 and get(e, 'actor.process.file.path') == '/usr/bin/cat' and isinstance(get(e, 'actor.process.parent_process.pid'), int) and get(e, 'actor.user.uid') == '$(id -u "$U")'"
	has kill-is-finding "$ev" "e['class_uid'] == 2004 and get(e, 'evidences.0.file.path') == '$W/trap.txt' and e['disposition'] == 'Killed' and e['severity_id'] == 4 and get(e, 'finding_info.analytic.name') == 'no-trap'"
	has far-connect-is-finding "$ev" "e['class_uid'] == 2004 and get(e, 'evidences.0.dst_endpoint.ip') == '10.1.2.3' and get(e, 'evidences.0.dst_endpoint.port') == 80 and get(e, 'finding_info.analytic.name') == 'no-far-net'"
	has loopback-connect "$ev" "e['class_uid'] == 4001 and e['activity_id'] == 1 and get(e, 'dst_endpoint.ip') == '127.0.0.1' and get(e, 'dst_endpoint.port') == $SG_PORT and get(e, 'authorizations.0.policy.name') == 'loopback' and e['action_id'] == 1 and get(e, 'actor.process.file.path') == '$B/try-connect'"
	has exec-is-launch "$ev" "e['class_uid'] == 1007 and e['activity_id'] == 1 and get(e, 'process.file.path') == '/usr/bin/cat' and get(e, 'process.cmd_line') == 'cat readme.txt' and isinstance(get(e, 'process.parent_process.pid'), int)"
	has fork-names-parent "$ev" "e['class_uid'] == 1007 and e['activity_name'] == 'Fork' and get(e, 'actor.process.pid') == get(e, 'process.parent_process.pid')"
	has exit-code "$ev" "e['class_uid'] == 1007 and e['activity_id'] == 2 and e.get('exit_code') == 3"
	has file-read-open "$ev" "e['class_uid'] == 1001 and e['activity_id'] == 14 and get(e, 'file.path') == '$W/readme.txt' and get(e, 'authorizations.0.decision') == 'allow'"
	has file-create "$ev" "e['class_uid'] == 1001 and e['activity_id'] == 1 and get(e, 'file.path') == '$W/made.txt'"
	has file-rename "$ev" "e['class_uid'] == 1001 and e['activity_id'] == 5 and get(e, 'file.path') == '$W/made.txt' and get(e, 'file_result.path') == '$W/sub/moved.txt'"
	has file-delete "$ev" "e['class_uid'] == 1001 and e['activity_id'] == 4 and get(e, 'file.path') == '$W/sub/moved.txt'"
	has run-start "$ev" "e['class_uid'] == 6002 and e['activity_id'] == 3 and get(e, 'device.hostname') == '$(hostname)' and get(e, 'metadata.sequence') == 1"
	has run-end "$ev" "e['class_uid'] == 6002 and e['activity_id'] == 4 and e['unmapped']['exit'] == 3"
	has metadata "$ev" "get(e, 'metadata.version') == '1.3.0' and get(e, 'metadata.product.name') == 'sysgate' and get(e, 'metadata.uid') == e['unmapped']['run'] + ':' + str(e['unmapped']['seq'])"

	# The same from stdin.
	timeout -k 5 60 "$SYSGATE" export --format ocsf - <"$trail" >"$R/stdin.out" 2>&1
	check stdin-same cmp "$ev" "$R/stdin.out"

	# Streamed as docs/shipping-trails.md shows: the trail on a pipe
	# (--audit-fd), exported as it comes.
	(cd "$W" && timeout -k 5 60 "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -q -r "$P/ocsf.ini" --audit-fd 3 -- \
		sh -c 'cat "$1" 2>/dev/null; exit 0' sh "$S" 3>&1 >/dev/null 2>"$R/stream.err" |
		tee "$R/stream.jsonl" |
		timeout -k 5 60 "$SYSGATE" export --format ocsf - >"$R/stream.ocsf" 2>>"$R/stream.err")
	check stream-trail-verifies "$SYSGATE" verify "$R/stream.jsonl"
	check stream-schema $PY "$CHECK" schema "$REQ" "$R/stream.ocsf"
	check stream-roundtrip $PY "$CHECK" roundtrip "$R/stream.jsonl" "$R/stream.ocsf"
	has stream-denial "$R/stream.ocsf" "e['class_uid'] == 2004 and get(e, 'evidences.0.file.path') == '$S'"

	# Live: --audit-fd 3 --audit-format ocsf gets each record's event as
	# it is written, while the trail goes to its file (-a).  The command
	# waits (bounded) to see its own denial's event on fd 3 before it
	# ends: exit 0 only if the event came while the run was going on.
	local live=$R/live.ocsf
	exec 3>"$live"
	sg_run -r "$P/ocsf.ini" --audit-fd 3 --audit-format ocsf -- sh -c '
		cat "$1" 2>/dev/null
		i=0
		until grep -q no-secrets "$2"; do
			i=$((i + 1))
			[ $i -gt 50 ] && exit 9
			sleep 0.1
		done
		exit 0' sh "$S" "$live"
	exec 3>&-
	check live-run-status-0 test "$SG_RC" = 0
	check live-trail-verifies "$SYSGATE" verify "$SG_TRAIL"
	check live-schema $PY "$CHECK" schema "$REQ" "$live"
	check live-roundtrip $PY "$CHECK" roundtrip "$SG_TRAIL" "$live"
	sg_export live --format ocsf "$SG_TRAIL"
	check live-is-the-export cmp "$SG_OUT" "$live"
	has live-denial "$live" "e['class_uid'] == 2004 and get(e, 'evidences.0.file.path') == '$S'"
	# Both at once: --audit-syslog (a unix datagram receiver of the
	# test's, as U) and --audit-fd get every event, each the export's.
	local sock=$R/sl.sock
	rm -f "$sock" "$R/sl.body"
	"${SG_AS[@]}" $PY -c '
import re, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(2)
end = time.time() + 30
with open(sys.argv[2], "w") as out:
    while time.time() < end:
        try:
            m = s.recv(4 << 20).decode()
        except socket.timeout:
            break
        out.write(re.sub(r"^<86>1 \S+ \S+ sysgate [0-9]+ \S+ - ", "", m, count=1) + "\n")
        out.flush()' "$sock" "$R/sl.body" &
	SG_BG_PIDS+=($!)
	local slpid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	exec 3>"$R/both.ocsf"
	sg_run -r "$P/ocsf.ini" --audit-syslog "unix:$sock" --audit-fd 3 \
		--audit-format ocsf -- sh -c 'cat "$1" 2>/dev/null; exit 0' sh "$S"
	exec 3>&-
	wait "$slpid" 2>/dev/null
	check both-run-0 test "$SG_RC" = 0
	sg_export both --format ocsf "$SG_TRAIL"
	check both-fd-is-export cmp "$SG_OUT" "$R/both.ocsf"
	check both-syslog-is-export cmp "$SG_OUT" "$R/sl.body"

	# The events' reader gone (a pipe closed at the other end): the run
	# stops with 125 before the command runs, saying why; sysgate is
	# not killed by SIGPIPE.  The same for a trail on such a pipe.
	exec 3> >(exit 0)
	sleep 0.2
	sg_run --audit-fd 3 --audit-format ocsf -- sh -c 'echo ran > ocsf-epipe-ran'
	check live-epipe-125 test "$SG_RC" = 125
	check live-epipe-said grep -q -- '--audit-fd 3: an event was not written: Broken pipe' "$SG_ERR"
	check live-epipe-nothing-run test ! -e "$W/ocsf-epipe-ran"
	(cd "$W" && timeout -k 5 60 "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -q --audit-fd 3 -- sh -c 'echo ran > trail-epipe-ran') \
		>/dev/null 2>"$R/trail-epipe.err"
	check trail-epipe-125 test "$?" = 125
	check trail-epipe-nothing-run test ! -e "$W/trail-epipe-ran"
	exec 3>&-
	# ocsf with neither syslog nor fd: refused, nothing run.
	sg_run --audit-format ocsf -- sh -c 'echo ran > ocsf-ran'
	check ocsf-alone-125 test "$SG_RC" = 125
	check ocsf-alone-said grep -q 'is for --audit-syslog and --audit-fd' "$SG_ERR"
	check ocsf-alone-nothing-run test ! -e "$W/ocsf-ran"

	# A record of a type this version does not know: a Base Event, whole.
	local future=$R/future.jsonl
	cp "$trail" "$future"
	printf '%s\n' '{"seq":999999,"ts":"2026-12-01T00:00:00.000001Z","run":"r-future","type":"future.kind","what":{"x":[1,2]},"hash":"00"}' \
		'{"seq":1000000,"ts":"2026-12-01T00:00:00.000002Z","run":"r-future","type":"syscall","pid":7,"tid":7,"exe":"/bin/x","syscall":"openat","args":{"path":"/f"},"paths":[{"arg":"path","path":"/f","access":"read","rule":"r","action":"quarantine"}],"rule":"r","action":"quarantine","hash":"00"}' >>"$future"
	sg_export future --format ocsf "$future"
	expect_rc future-exit-0 0
	check future-schema $PY "$CHECK" schema "$REQ" "$SG_OUT"
	check future-roundtrip $PY "$CHECK" roundtrip "$future" "$SG_OUT"
	has future-base-event "$SG_OUT" "e['class_uid'] == 0 and e['activity_id'] == 99 and e['activity_name'] == 'future.kind' and e['unmapped']['what'] == {'x': [1, 2]}"
	# An action this version does not know is a refusal, never Allowed.
	has future-action-is-finding "$SG_OUT" "e['class_uid'] == 2004 and e['unmapped']['action'] == 'quarantine' and e['action_id'] == 2 and e['disposition'] == 'quarantine'"

	# A line that is not a record: skipped, said, exit status 1.
	local bad=$R/bad.jsonl
	{ head -n 3 "$trail"; echo 'not json'; tail -n +4 "$trail"; } >"$bad"
	sg_export bad --format ocsf "$bad"
	expect_rc bad-line-exit-1 1
	check bad-line-said grep -q 'line 4: not a record' "$SG_ERR"
	check bad-line-rest-exported test "$(wc -l <"$SG_OUT")" = "$(wc -l <"$trail")"

	# The checker can fail: an event without its file, a missing event.
	$PY - "$ev" "$R/no-file.out" "$R/one-less.out" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
out, cut = [], False
for line in lines:
    e = json.loads(line)
    if not cut and e["class_uid"] == 1001:
        del e["file"]
        cut = True
    out.append(json.dumps(e))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
open(sys.argv[3], "w").write("\n".join(lines[:5] + lines[6:]) + "\n")
EOF
	check checker-finds-missing-file sh -c "! $PY '$CHECK' schema '$REQ' '$R/no-file.out'"
	check checker-finds-missing-event sh -c "! $PY '$CHECK' roundtrip '$trail' '$R/one-less.out'"

	# Usage.
	sg_export help --help
	expect_rc help-exit-0 0
	check help-usage grep -q 'usage: sysgate export --format ocsf' "$SG_OUT"
	sg_export no-format "$trail"
	expect_rc no-format-125 125
	sg_export other-format --format ecs "$trail"
	expect_rc other-format-125 125
	check other-format-said grep -q "unknown format 'ecs'" "$SG_ERR"
	sg_export missing --format ocsf "$R/does-not-exist.jsonl"
	expect_rc missing-125 125
	check missing-says-why grep -q 'No such file' "$SG_ERR"
}

sg_main cases
