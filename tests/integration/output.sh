#!/bin/bash
# SPDX-License-Identifier: MIT
# The command's output in the trail: what it writes to stdout and stderr
# reaches sysgate's own unchanged (binary, no trailing newline) and is
# kept as "output" records with its stream; the cap keeps the head and
# the tail and counts what it dropped; --no-output keeps nothing and
# leaves the command's fds as they are; a terminal stays the command's;
# a reader of sysgate's stdout that stops reading blocks the writer, not
# the supervisor's decisions for the rest of the tree; a gone reader
# ends the writer as natively (SIGPIPE); the end of a run whose reader
# stopped is bounded; an output record that cannot be written stops the
# tree; the report shows a failing program's traceback under its
# finding.
. "$(dirname "$0")/lib.sh"
sg_init

OC="$SG_LIB_DIR/output-check.py"

# ocheck NAME CHECK ARGS...: output-check.py on the last trail.
ocheck() {
	local name=$1
	shift
	check "$name" "$PY" "$OC" "$SG_TRAIL" "$@"
}

# The tree blocked on a full pipe (nobody reads sysgate's stdout) while
# another process of it creates a file, which the supervisor decides.
stalled_reader_case() {
	local fifo=$R/stall.fifo trail=$R/stall.jsonl pid got=no alive=no
	rm -f "$fifo" "$W/marker-stall"
	mkfifo "$fifo" && chmod 0666 "$fifo"
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		timeout -k 5 60 "$SYSGATE" run -q -a "$trail" -- sh -c \
		'head -c 2000000 /dev/zero & sleep 1; : >marker-stall; wait') \
		>"$fifo" 2>"$R/stall.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	exec 3<"$fifo"
	for _ in $(seq 100); do
		[ -e "$W/marker-stall" ] && got=yes && break
		sleep 0.1
	done
	# Still running: the writer was blocked by the reader, not done.
	kill -0 "$pid" 2>/dev/null && alive=yes
	local n
	n=$(timeout 30 cat <&3 | wc -c)
	exec 3<&-
	wait "$pid"
	local rc=$?
	check stalled-reader-file-decided test "$got" = yes
	check stalled-reader-writer-was-blocked test "$alive" = yes
	check stalled-reader-all-passed-on test "$n" = 2000000
	check stalled-reader-exit-0 test "$rc" = 0
	SG_TRAIL=$trail
	check stalled-reader-create-recorded grep -q '"path":"[^"]*/marker-stall"' "$trail"
	check stalled-reader-verifies "$SYSGATE" verify "$trail"
}

# Fail closed: the trail's reader goes away while the command only
# writes output (builtin echo: no call of its is recorded), so the next
# records to fail are output records; the tree is stopped, status 125.
fail_closed_case() {
	local fifo=$R/fc.fifo cat_pid pid rc=timeout
	rm -f "$fifo" "$R/fc.out"
	mkfifo "$fifo" && chmod 0666 "$fifo"
	cat "$fifo" >/dev/null &
	cat_pid=$!
	SG_BG_PIDS+=("$cat_pid")
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		timeout -k 5 30 "$SYSGATE" run -q --audit-fd 3 -- sh -c \
		'echo started; while :; do echo x; done' 3>"$fifo") \
		>"$R/fc.out" 2>"$R/fc.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	for _ in $(seq 100); do
		grep -q started "$R/fc.out" 2>/dev/null && break
		sleep 0.1
	done
	kill "$cat_pid"
	wait "$pid"
	rc=$?
	SG_ERR=$R/fc.err
	check fail-closed-output-record-stops-tree test "$rc" = 125
	check fail-closed-says-trail grep -q 'audit trail' "$R/fc.err"
}

# The end of the run is bounded: the command wrote 100000 bytes and
# ended (the pipe and sysgate took what the unread fifo did not); nobody
# reads: every byte is recorded before run.end, and sysgate gives up
# passing on the rest after a few seconds, saying so.
stopped_reader_end_case() {
	local fifo=$R/end.fifo trail=$R/end.jsonl pid rc=running
	rm -f "$fifo"
	mkfifo "$fifo" && chmod 0666 "$fifo"
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		timeout -k 5 60 "$SYSGATE" run -q -a "$trail" -- \
		head -c 100000 /dev/zero) >"$fifo" 2>"$R/end.err" </dev/null &
	pid=$!
	SG_BG_PIDS+=("$pid")
	exec 4<"$fifo"
	for _ in $(seq 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; rc=$?; }
	exec 4<&-
	SG_ERR=$R/end.err
	check stopped-reader-end-sysgate-exits test "$rc" = 0
	check stopped-reader-end-says-not-passed-on grep -q 'not passed on' "$R/end.err"
	SG_TRAIL=$trail
	ocheck stopped-reader-end-stdout-kept how stdout pipe
	check stopped-reader-end-bytes "$PY" -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert r[-1]["type"] == "run.end", r[-1]["type"]
assert r[-1]["output"]["recorded"] == 100000, r[-1]["output"]
assert sum(x["bytes"] for x in r if x["type"] == "output") == 100000
' "$trail"
}

# sysgate run under a pseudo-terminal: the command's stdout is it.
tty_case() {
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_ERR=$R/$SG_N.err
	(cd "$W" && timeout -k 5 30 "$PY" -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
' "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" "$SYSGATE" run -q \
		-a "$SG_TRAIL" -- sh -c 'test -t 1 && echo ON-A-TTY') \
		>"$R/$SG_N.out" 2>"$SG_ERR"
	check tty-command-sees-terminal grep -q ON-A-TTY "$R/$SG_N.out"
	ocheck tty-run-start-says-terminal how stdout terminal
	check tty-nothing-recorded sh -c '! grep -q "\"stream\":\"stdout" "$1"' - "$SG_TRAIL"
}

cases() {
	# --- passed through byte for byte, kept with its stream
	head -c 200000 /dev/urandom >"$W/blob"
	printf 'last line without newline \377\000 end' >>"$W/blob"
	printf 'E1 on stderr\n\0binary\377' >"$W/err.expect"
	chmod a+r "$W/blob" "$W/err.expect"
	sg_run -q -- sh -c 'cat blob; cat err.expect >&2'
	check pass-exit-0 test "$SG_RC" = 0
	check pass-stdout-identical cmp "$W/blob" "$SG_OUT"
	check pass-stderr-identical cmp "$W/err.expect" "$SG_ERR"
	ocheck pass-trail-stdout stream stdout "$W/blob"
	ocheck pass-trail-stderr stream stderr "$W/err.expect"
	ocheck pass-run-start-pipe how stdout pipe
	check pass-verifies "$SYSGATE" verify "$SG_TRAIL"

	# The command's fd 1 is a pipe (kept) or sysgate's own file (not).
	sg_run -q -- readlink /proc/self/fd/1
	check kept-stdout-is-pipe grep -q '^pipe:' "$SG_OUT"
	sg_run -q --no-output -- readlink /proc/self/fd/1
	check no-output-stdout-is-file grep -qx "$SG_OUT" "$SG_OUT"

	head -c 300000 /dev/urandom >"$W/big"
	echo TAILMARK >>"$W/big"
	chmod a+r "$W/big"

	# --- the switch: nothing kept, still passed on
	sg_run -q --no-output -- sh -c 'cat blob; cat err.expect >&2'
	check no-output-stdout-identical cmp "$W/blob" "$SG_OUT"
	check no-output-stderr-identical cmp "$W/err.expect" "$SG_ERR"
	ocheck no-output-nothing-kept none
	sg_run -q --output-cap 0 -- sh -c 'cat blob'
	ocheck output-cap-0-nothing-kept none

	# --- [policy] output: off, a cap, a bad value; the command line wins
	printf '[policy]\ndefault = allow\noutput = off\n' | policy out-off
	printf '[policy]\ndefault = allow\noutput = 8K\n' | policy out-8k
	printf '[policy]\ndefault = allow\noutput = lots\n' | policy out-bad
	sg_run -q -r "$P/out-off.ini" -- readlink /proc/self/fd/1
	check policy-off-stdout-is-file grep -qx "$SG_OUT" "$SG_OUT"
	ocheck policy-off-nothing-kept none
	sg_run -q -r "$P/out-8k.ini" -- cat big
	check policy-cap-stdout-identical cmp "$W/big" "$SG_OUT"
	ocheck policy-cap-8k cap "$W/big" 8192
	sg_run -q -r "$P/out-8k.ini" --output-cap 64K -- cat big
	ocheck policy-cap-command-line-wins cap "$W/big" 65536
	sg_run -q -r "$P/out-bad.ini" -- true
	check policy-bad-output-125 test "$SG_RC" = 125
	check policy-bad-output-file-line grep -q 'out-bad\.ini:3:' "$SG_ERR"

	# --- the cap: first half as it came, last half at the end, the
	# bytes between counted
	sg_run -q --output-cap 64K -- cat big
	check cap-stdout-identical cmp "$W/big" "$SG_OUT"
	ocheck cap-head-tail-dropped cap "$W/big" 65536
	check cap-verifies "$SYSGATE" verify "$SG_TRAIL"
	sg_run -q --output-cap 12Q -- true
	check cap-bad-value-125 test "$SG_RC" = 125

	# --- 2>&1: one pipe behind both, their order kept
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	(cd "$W" && exec timeout -k 5 30 "${SG_AS[@]}" env -i PATH="$SG_PATH" \
		HOME="$H" "$SYSGATE" run -q -a "$SG_TRAIL" -- sh -c \
		'echo a; echo b >&2; echo c; echo d >&2') >"$R/$SG_N.out" 2>&1 </dev/null
	check shared-order-kept test "$(tr -d '\n' <"$R/$SG_N.out")" = abcd
	printf 'a\nb\nc\nd\n' >"$R/$SG_N.expect"
	ocheck shared-one-stream stream stdout+stderr "$R/$SG_N.expect"

	# --- output of a process left behind, after the command's exit
	sg_run -q -- sh -c '(sleep 0.5; echo LEFT-BEHIND) & exit 0'
	check late-passed-on grep -q LEFT-BEHIND "$SG_OUT"
	ocheck late-recorded-before-end before-exit LEFT-BEHIND

	# --- a gone reader: the writer gets SIGPIPE, as natively
	local st nat
	nat=$(as_user bash -c 'yes | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"')
	st=$(cd "$W" && "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		timeout -k 5 30 "$SYSGATE" run -q -a "$R/yes.jsonl" -- yes 2>/dev/null |
		head -n 1 >/dev/null; echo "${PIPESTATUS[0]}")
	check gone-reader-sigpipe-native test "$nat" = 141
	check gone-reader-sigpipe test "$st" = "$nat"

	# --- the report: a failing program's traceback under its finding
	sg_run -q -- "$PY" -c 'print("step one", flush=True)
def parse(): return 1 / 0
parse()'
	check traceback-exit-1 test "$SG_RC" = 1
	# OCSF: a Base Event per output record, its text as the message.
	"$SYSGATE" export --format ocsf "$SG_TRAIL" >"$R/$SG_N.ocsf" 2>&1
	check ocsf-output-schema "$PY" "$SG_LIB_DIR/ocsf-check.py" schema \
		"${srcdir:-$SG_LIB_DIR/../..}/tests/data/ocsf-1.3.0-required.json" "$R/$SG_N.ocsf"
	check ocsf-output-roundtrip "$PY" "$SG_LIB_DIR/ocsf-check.py" roundtrip \
		"$SG_TRAIL" "$R/$SG_N.ocsf"
	check ocsf-output-message "$PY" "$SG_LIB_DIR/ocsf-check.py" has "$R/$SG_N.ocsf" \
		'e["type_name"] == "Base Event: output" and "ZeroDivisionError" in e.get("message", "") and get(e, "unmapped.stream") == "stderr"'
	# The trail stays what learn reads.
	"$SYSGATE" learn "$SG_TRAIL" >"$R/$SG_N.learn" 2>&1
	check learn-reads-output-trail test $? = 0
	ocheck traceback-before-exit before-exit ZeroDivisionError
	"$SYSGATE" report "$SG_TRAIL" >"$R/$SG_N.report" 2>&1
	check report-text-traceback-under-finding "$PY" -c '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"non-zero exit: [^\n]*python[^\n]*\n((?:     .*\n)+)", t)
assert m, "no non-zero exit finding for python"
body = m.group(1)
assert "output before it:" in body, body
assert "err| ZeroDivisionError: division by zero" in body, body
assert "err| Traceback (most recent call last):" in body, body
' "$R/$SG_N.report"
	"$SYSGATE" report --json "$SG_TRAIL" >"$R/$SG_N.rjson" 2>&1
	check report-json-traceback-under-finding "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
fs = [a for a in d["findings"]["anomalies"] if a["kind"] == "non-zero exit"]
assert fs, "no non-zero exit"
out = fs[-1].get("output")
assert out and out[-1]["stream"] == "stderr", out
assert out[-1]["text"] == "ZeroDivisionError: division by zero", out
assert all(o["seq"] < fs[-1]["seq"] for o in out), out
assert len(out) == 5, out
' "$R/$SG_N.rjson"

	tty_case
	stalled_reader_case
	stopped_reader_end_case
	fail_closed_case
}

sg_main cases
