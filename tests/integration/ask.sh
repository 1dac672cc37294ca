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
for d in lines:
    assert d["rule"] == "ask-hostname" and d["what"] == "/etc/hostname", d
    assert d["errno"] == "ENOENT" and d["exe"].endswith("/cat"), d
' "$dfile"
	check denials-summary grep -qx "sysgate: denied read of /etc/hostname by cat (rule ask-hostname), 3 times" "$SG_ERR"
}

sg_main cases
