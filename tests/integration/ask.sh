#!/bin/bash
# SPDX-License-Identifier: MIT
# action = ask: a hook gets the call as one JSON line and answers "allow"
# or "deny [ERRNO]"; no answer within ask_timeout is a deny; remember = yes
# keeps an answer for the run; the trail says who decided.  Questions are
# answered on their own threads: the callers wait only for their own
# question, and the rest of the tree runs on (checked by rendezvous, not
# by timing).
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	local hooks=$R/hooks
	mkdir -p "$hooks"
	chmod 1777 "$hooks"
	printf '%s\n' '#!/bin/sh' 'read line' "echo \"\$line\" >> $hooks/asked.\$(id -u)" 'echo allow' >"$hooks/allow"
	printf '%s\n' '#!/bin/sh' 'read line' 'echo "deny ENOENT"' >"$hooks/deny"
	printf '%s\n' '#!/bin/sh' 'exec sleep 30' >"$hooks/hang"
	printf '%s\n' '#!/bin/sh' 'read line' 'echo maybe' >"$hooks/garbage"
	# Answer only once $1 questions are in flight at the same time, and
	# the file $2 (made by a process that asks nothing) exists.
	cat >"$hooks/rendezvous" <<'EOF'
#!/bin/sh
read line
dir=$1; n=$2; marker=$3
mkdir -p "$dir" 2>/dev/null
touch "$dir/q.$$"
i=0
while [ $i -lt 100 ]; do
	c=$(ls "$dir" | grep -c '^q\.')
	if [ "$c" -ge "$n" ] && [ -e "$marker" ]; then
		echo allow
		exit 0
	fi
	sleep 0.1
	i=$((i + 1))
done
echo deny
EOF
	chmod 755 "$hooks"/*
	rm -f "$hooks/asked.$(id -u "$U")"
	local f
	for f in allow deny hang garbage; do
		policy "ask-$f" <<EOF
[policy]
default = allow
audit = all

[rule ask-hostname]
syscalls = @file
path = /etc/hostname
action = ask
ask = $hooks/$f
ask_timeout = 2s
errno = EACCES
EOF
	done
	policy ask-remember <<EOF
[policy]
default = allow
audit = all

[rule ask-hostname]
syscalls = @file
path = /etc/hostname
action = ask
ask = $hooks/allow
remember = yes
EOF
	local rv=$W/rv mk=$W/marker
	rm -rf "$rv" "$mk"
	policy ask-many <<EOF
[policy]
default = allow
audit = all

[rule ask-q]
syscalls = @file
path = \${CWD}/q*
action = ask
ask = $hooks/rendezvous $rv 4 $mk
ask_timeout = 20s
EOF
	c hook-allows ask-allow 0 "--type syscall --path /etc/hostname --action allow --rule ask-hostname --field decided_by=\"hook\"" \
		cat /etc/hostname
	check hook-got-json grep -q '"call":"read /etc/hostname"' "$hooks/asked.$(id -u "$U")"
	# The question carries ts, run and seq, the fields of the call's
	# trail record, the caller's argv and cwd.
	check hook-input-fields "$PY" -c '
import json, re, sys
q = json.loads(open(sys.argv[1]).readline())
trail = [json.loads(l) for l in open(sys.argv[2])]
rec = [r for r in trail if r.get("rule") == "ask-hostname"][0]
assert q["run"] == trail[0]["run"], q
assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", q["ts"]), q
assert isinstance(q["seq"], int) and 0 < q["seq"] < rec["seq"], (q, rec)
for k in ("pid", "tid", "exe", "syscall", "args", "rule"):
    assert q[k] == rec[k], (k, q, rec)
assert [(p["path"], p["access"]) for p in q["paths"]] == \
    [(p["path"], p["access"]) for p in rec["paths"]], (q, rec)
assert q["type"] == "ask" and q["action"] == "ask", q
assert q["argv"] == ["cat", "/etc/hostname"] and q["cwd"] == sys.argv[3], q
' "$hooks/asked.$(id -u "$U")" "$SG_TRAIL" "$W"
	c hook-denies ask-deny ENOENT "--type syscall --path /etc/hostname --action deny --errno ENOENT --field decided_by=\"hook\"" \
		"$B/try-open" /etc/hostname
	c hook-hangs ask-hang EACCES "--type syscall --path /etc/hostname --action deny --errno EACCES --field decided_by=\"timeout\"" \
		"$B/try-open" /etc/hostname
	c hook-garbage ask-garbage EACCES "--type syscall --path /etc/hostname --action deny --field decided_by=\"invalid-answer\"" \
		"$B/try-open" /etc/hostname
	rm -f "$hooks/asked.$(id -u "$U")"
	c remembered ask-remember 0 "--type syscall --path /etc/hostname --field decided_by=\"hook\" --count 1; --type syscall --path /etc/hostname --field decided_by=\"remembered\" --min 2" \
		sh -c 'cat /etc/hostname; cat /etc/hostname; cat /etc/hostname' 
	check remembered-asked-once test "$(wc -l <"$hooks/asked.$(id -u "$U")")" = 1
	# Four processes ask at once; a fifth, asking nothing, makes the
	# marker the hooks wait for.
	touch "$W/q1" "$W/q2" "$W/q3" "$W/q4"
	c concurrent ask-many 0 "--type syscall --rule ask-q --action allow --field decided_by=\"hook\" --count 4" \
		sh -c "for i in 1 2 3 4; do cat q\$i >/dev/null & done; sleep 0.5; touch '$mk'; wait"

	# A hook named by a relative path is sysgate's, in sysgate's cwd,
	# even after the supervisor looked paths up in the command's own
	# directory (where the command planted a hook of the same name).
	local sub=$W/ask-sub
	mkdir -p "$sub"
	printf '%s\n' '#!/bin/sh' 'read line' 'echo "deny ENOENT"' >"$W/rel-hook"
	printf '%s\n' '#!/bin/sh' 'read line' "touch $sub/planted-ran" 'echo allow' >"$sub/rel-hook"
	chmod 755 "$W/rel-hook" "$sub/rel-hook"
	: >"$sub/x"
	rm -f "$sub/planted-ran"
	chown -R "$U" "$sub" 2>/dev/null
	policy ask-relative <<EOF
[policy]
default = allow
audit = all

[rule ask-hostname]
syscalls = @file
path = /etc/hostname
action = ask
ask = ./rel-hook
EOF
	c hook-in-sysgate-cwd ask-relative ENOENT "--type syscall --path $sub/x --action allow; --type syscall --path /etc/hostname --action deny --errno ENOENT --field decided_by=\"hook\"" \
		sh -c "cd ask-sub && cat x && cat ./x >/dev/null && exec '$B/try-open' /etc/hostname"
	check planted-hook-not-run test ! -e "$sub/planted-ran"

	# Denials people and harnesses can act on: --denials-fd N gets one
	# JSON line per denial as it happens, and the end of the run one
	# line per distinct denial on sysgate's stderr.
	local dfile=$R/denials.$U.jsonl
	rm -f "$dfile"
	exec 3>"$dfile"
	SG_RUN_OPTS="--denials-fd 3"
	c denials-fd ask-deny 0 "--type syscall --action deny --count 3" \
		sh -c 'cat /etc/hostname; cat /etc/hostname; cat /etc/hostname; exit 0'
	SG_RUN_OPTS=
	exec 3>&-
	check denials-fd-lines /usr/bin/python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, lines
trail = {r["seq"]: r for r in map(json.loads, open(sys.argv[2]))}
for d in lines:
    assert d["rule"] == "ask-hostname" and d["what"] == "/etc/hostname", d
    assert d["errno"] == "ENOENT" and d["exe"].endswith("/cat"), d
    # The record it is a copy of: the same decision, the same run.
    rec = trail[d["seq"]]
    assert d["type"] == "denial" and rec["type"] == "syscall", (d, rec)
    assert d["run"] == rec["run"] and d["ts"] >= rec["ts"][:19], (d, rec)
    for k in ("pid", "tid", "exe", "syscall", "args", "paths", "rule",
              "action", "errno", "decided_by"):
        assert d[k] == rec[k], (k, d, rec)
' "$dfile" "$SG_TRAIL"
	check denials-summary grep -qx "sysgate: denied read of /etc/hostname by cat (rule ask-hostname), 3 times" "$SG_ERR"
}

# tty_clean FILE: FILE (what sysgate wrote to a terminal) is UTF-8 with no
# control byte but newlines, no C1 control, no bidi control.
tty_clean() {
	"$PY" -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
hidden = set("\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
             "\u2066\u2067\u2068\u2069")
bad = [hex(ord(c)) for c in t
       if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f or c in hidden]
assert not bad, "raw bytes on the terminal: %s" % bad[:10]
' "$1"
}

# What the tree names (paths, its program's name) reaches
# sysgate's own terminal output escaped: the end-of-run summary, the -v
# lines, and the ask prompt, which names the call as the rules saw it.
tty_cases() {
	# A title, a clear screen, a carriage return, a bidi override and
	# a byte of no UTF-8 sequence.
	local evil=a$'\e]0;x\ab\e[2J\rc\xe2\x80\xaed\xffe'
	local shown='a\x1b]0;x\x07b\x1b[2J\rc\u202ed\xffe'
	local exe=$W/ev$'\e[2J'il dfile=$R/tty-denials.jsonl
	cp "$B/try-open" "$exe"
	policy deny-out <<EOF
[policy]
default = allow
audit = all

[rule no-out]
syscalls = @file
path = $O/**
action = deny
errno = EACCES
EOF
	rm -f "$dfile"
	exec 3>"$dfile"
	SG_RUN_OPTS="-v --denials-fd 3"
	c escaped-output deny-out EACCES "--type syscall --action deny --rule no-out --count 1" \
		sh -c 'exec 2>/dev/null; exec "$0" "$1" wc' "$exe" "$O/$evil"
	SG_RUN_OPTS=
	exec 3>&-
	check escaped-output-no-raw-bytes tty_clean "$SG_ERR"
	check escaped-summary grep -qxF "sysgate: denied create of $O/$shown by ev\\x1b[2Jil (rule no-out), 1 time" "$SG_ERR"
	check escaped-verbose grep -qF "openat(\"$O/$shown\", O_WRONLY|O_CREAT) = -1 EACCES (rule no-out)" "$SG_ERR"
	check escaped-denials-fd "$PY" -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert len(d) == 1, d
assert d[0]["what"].startswith(sys.argv[2] + "/a\x1b]0;x\x07b\x1b[2J\rc\u202ed"), d
' "$dfile" "$O"
	check not-created test ! -e "$O/$evil"

	# The ask prompt: a file created in a cron.d whose name says it is
	# a read of README.md.
	local spoof=job$'\r\e[2K\e]0;x\a'"sysgate: pid 1 (cat) asks: openat read README.md"$'\xe2\x80\xae'
	local tr=$R/tty-ask.transcript
	as_user mkdir -p "$O/cron.d"
	policy ask-tty <<EOF
[policy]
default = allow
audit = all

[rule ask-cron]
syscalls = @file
path = $O/cron.d/**
action = ask
ask_timeout = 10s
EOF
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_ERR=$R/$SG_N.err
	sg_envs
	(cd "$W" && exec "$PY" "$SG_LIB_DIR/pty-answer.py" "$tr" n timeout -k 5 30 \
		"${SG_AS[@]}" env -i "${SG_ENVS[@]}" "$SYSGATE" run -a "$SG_TRAIL" \
		-r "$P/ask-tty.ini" -- sh -c 'exec 2>/dev/null; exec "$0" "$1" wc' \
		"$B/try-open" "$O/cron.d/$spoof") >"$SG_ERR" 2>&1 </dev/null
	SG_RC=$?
	check ask-tty-denied test "$SG_RC" = 1
	check ask-tty-not-created test -z "$(ls -A "$O/cron.d")"
	check ask-tty-no-raw-bytes tty_clean "$tr"
	check ask-tty-names-the-call grep -qF "(try-open) asks: openat create $O/cron.d/job\\r\\x1b[2K\\x1b]0;x\\x07sysgate: pid 1 (cat) asks: openat read README.md\\u202e (rule ask-cron). Allow? [y/N] " "$tr"
	check ask-tty-trail "$PY" "$AUDITQ" "$SG_TRAIL" --type syscall --rule ask-cron --action deny --field 'decided_by="terminal"'
}

all_cases() {
	cases
	tty_cases
}

sg_main all_cases
