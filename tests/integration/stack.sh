#!/bin/bash
# SPDX-License-Identifier: MIT
# stack = yes: the caller's stack in the call's record, taken at a ptrace
# stop and the call decided on its re-notification.  The victim is built
# with -O0 and frame pointers (symbols for every frame) and as a stripped
# copy (no symbols for its own frames, but the same frames, with module and
# offset); a static non-PIE copy gives a partial stack and a stack_error.
# The decision is unchanged by the stack (deny denies, allow
# allows, ask asks once), each call has exactly one record, threads and
# signals arriving meanwhile work, a rule without stack = yes records
# none, and `sysgate report` shows the stack.
. "$(dirname "$0")/lib.sh"
sg_init

# stack_ok TRAIL MODE [ARGS]: a question about the stacks in TRAIL.
stack_ok() {
	"$PY" - "$@" <<'PYEOF'
import json, sys

trail, mode = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
recs = [json.loads(l) for l in open(trail)]
calls = [r for r in recs if r["type"] == "syscall"]


def fail(msg):
    print("stack_ok %s: %s" % (mode, msg))
    sys.exit(1)


def by_rule(rule):
    got = [r for r in calls if r.get("rule") == rule]
    if not got:
        fail("no syscall record of rule %s" % rule)
    return got


def syms(r):
    return [f.get("symbol") for f in r.get("stack", [])]


def check_frames(r, module, own, named_own):
    """Frame 0 is libc's open; then the victim's own frames `own`."""
    st = r.get("stack")
    if not st or "stack_error" in r:
        fail("no stack in %s" % json.dumps(r))
    for f in st:
        if not f.get("ip", "").startswith("0x"):
            fail("frame without an ip: %s" % f)
    f0 = st[0]
    if "libc.so" not in f0.get("module", "") or "open" not in f0.get("symbol", ""):
        fail("frame 0 is not libc's open: %s" % f0)
    for i, name in enumerate(own, 1):
        f = st[i]
        if f.get("module") != module or not f.get("module_offset", "").startswith("0x"):
            fail("frame %d is not in %s with an offset: %s" % (i, module, f))
        if named_own and (f.get("symbol") != name or "offset" not in f):
            fail("frame %d is not %s: %s" % (i, name, syms(r)))
        if not named_own and ("symbol" in f or "offset" in f):
            fail("frame %d of a stripped program has a symbol: %s" % (i, f))
    # Below main: libc's start-up, named (libc has its dynamic symbols).
    if not any("libc.so" in f.get("module", "") and f.get("symbol")
               for f in st[len(own) + 1:]):
        fail("no named libc frame below %s: %s" % (own[-1], syms(r)))


if mode == "frames":
    # frames RULE MODULE named|stripped COUNT FUNC...: COUNT records of
    # RULE, each with the stack FUNC... under libc's open.
    rule, module, kind, count = args[0], args[1], args[2], int(args[3])
    own = args[4:]
    got = by_rule(rule)
    if len(got) != count:
        fail("%d records of rule %s, expected %d" % (len(got), rule, count))
    for r in got:
        check_frames(r, module, own, kind == "named")
elif mode == "same-shape":
    # same-shape TRAIL2 RULE: the first stack of RULE here and in TRAIL2
    # have as many frames, and the program's own frames the same offsets
    # in the module (a stripped copy of the same program).
    other = [json.loads(l) for l in open(args[0])]
    a = by_rule(args[1])[0]["stack"]
    b = [r for r in other if r["type"] == "syscall" and
         r.get("rule") == args[1]][0]["stack"]
    if len(a) != len(b):
        fail("%d frames against %d" % (len(a), len(b)))
    for fa, fb in zip(a, b):
        if "libc.so" in fa.get("module", ""):
            if fa.get("symbol") != fb.get("symbol"):
                fail("libc frames differ: %s / %s" % (fa, fb))
        elif fa.get("module_offset") != fb.get("module_offset"):
            fail("own frames differ: %s / %s" % (fa, fb))
elif mode == "threads":
    # threads RULE COUNT: COUNT records, from threads other than the
    # leader, each with level3 level2 level1 opener.
    got = by_rule(args[0])
    if len(got) != int(args[1]):
        fail("%d records, expected %s" % (len(got), args[1]))
    for r in got:
        if r["tid"] == r["pid"]:
            fail("a call of the main thread: %s" % r)
        if syms(r)[1:5] != ["level3", "level2", "level1", "opener"]:
            fail("stack %s" % syms(r))
    if len({r["tid"] for r in got}) < 2:
        fail("all calls from one thread")
elif mode == "partial":
    # partial RULE: one record of RULE with a stack_error and the first
    # frame only (libc's open, linked into the program).
    got = by_rule(args[0])
    if len(got) != 1:
        fail("%d records" % len(got))
    r = got[0]
    if "stack_error" not in r or len(r.get("stack", [])) != 1:
        fail("expected one frame and an error: %s" % json.dumps(r))
    if "open" not in r["stack"][0].get("symbol", ""):
        fail("frame 0 is not open: %s" % r["stack"][0])
elif mode == "none":
    # none RULE: records of RULE carry neither a stack nor a stack error.
    for r in by_rule(args[0]):
        if "stack" in r or "stack_error" in r:
            fail("unexpected stack in %s" % json.dumps(r))
else:
    fail("unknown mode")
PYEOF
}

# report_shows FILE PATTERN: `sysgate report` of the last trail matches.
report_shows() {
	timeout -k 5 60 "$SYSGATE" report "$SG_TRAIL" >"$R/report.$SG_N" 2>&1 &&
		grep -Eq "$1" "$R/report.$SG_N"
}

cases() {
	policy stack <<'EOF'
[policy]
default = allow
audit = all

[rule secret-stack]
syscalls = open, openat
path = ${CWD}/secret*
action = deny
errno = EACCES
stack = yes

[rule public-stack]
syscalls = open, openat
path = ${CWD}/public*
action = allow
stack = yes

[rule no-stack]
syscalls = open, openat
path = ${CWD}/plain*
action = deny
errno = EPERM
EOF
	local hooks=$R/hooks
	mkdir -p "$hooks"
	printf '%s\n' '#!/bin/sh' 'read line' "echo asked >> $hooks/asked" 'echo "deny ENOENT"' >"$hooks/deny"
	chmod 1777 "$hooks"
	chmod 0755 "$hooks/deny"
	rm -f "$hooks/asked"
	policy ask-stack <<EOF
[policy]
default = allow
audit = all

[rule ask-stack]
syscalls = open, openat
path = \${CWD}/secret*
action = ask
ask = $hooks/deny
ask_timeout = 10s
stack = yes
EOF
	echo secret >"$W/secret.txt"
	echo public >"$W/public.txt"
	echo plain >"$W/plain.txt"
	[ "$U" = root ] || chown "$(id -u "$U"):$(id -g "$U")" "$W"/*.txt
	native 0 "$B/stack-victim" "$W/secret.txt"
	native 0 "$B/stack-victim-stripped" "$W/secret.txt"

	local own=(level3 level2 level1 main) o0
	c deny-O0 stack EACCES "--type syscall --rule secret-stack --action deny --errno EACCES --count 1" \
		"$B/stack-victim" "$W/secret.txt"
	check deny-O0-frames stack_ok "$SG_TRAIL" frames secret-stack \
		"$B/stack-victim" named 1 "${own[@]}"
	check report-shows-stack report_shows "#[0-9]+ 0x[0-9a-f]+ level3\+0x[0-9a-f]+ \(.*stack-victim\)"
	o0=$SG_TRAIL

	c deny-stripped stack EACCES "--type syscall --rule secret-stack --action deny --errno EACCES --count 1" \
		"$B/stack-victim-stripped" "$W/secret.txt"
	check deny-stripped-frames stack_ok "$SG_TRAIL" frames secret-stack \
		"$B/stack-victim-stripped" stripped 1 "${own[@]}"
	check stripped-same-frames stack_ok "$SG_TRAIL" same-shape "$o0" secret-stack
	check report-shows-offsets report_shows "#[0-9]+ 0x[0-9a-f]+ \(.*stack-victim-stripped\+0x[0-9a-f]+\)"

	# No unwind tables: a partial stack and its error, the same decision.
	c deny-static stack EACCES "--type syscall --rule secret-stack --action deny --errno EACCES --count 1" \
		"$B/stack-victim-static" "$W/secret.txt"
	check deny-static-partial stack_ok "$SG_TRAIL" partial secret-stack

	c allow-O0 stack 0 "--type syscall --rule public-stack --action allow --field result=3 --count 1" \
		"$B/stack-victim" "$W/public.txt"
	check allow-O0-frames stack_ok "$SG_TRAIL" frames public-stack \
		"$B/stack-victim" named 1 "${own[@]}"

	# Each call is decided once, with its own stack: no record lost,
	# none doubled by the restart.
	c repeated stack EACCES "--type syscall --rule secret-stack --count 5" \
		"$B/stack-victim" -n 5 "$W/secret.txt"
	check repeated-frames stack_ok "$SG_TRAIL" frames secret-stack \
		"$B/stack-victim" named 5 "${own[@]}"

	c threads stack EACCES "--type syscall --rule secret-stack --thread yes --count 24" \
		"$B/stack-victim" -t 4 -n 6 "$W/secret.txt"
	check threads-frames stack_ok "$SG_TRAIL" threads secret-stack 24

	# Signals while the calls stop and restart: the restart does not
	# depend on SA_RESTART, and a signal meanwhile is delivered.
	c signals stack EACCES "--type syscall --rule secret-stack --count 120" \
		"$B/stack-victim" -s -t 4 -n 30 "$W/secret.txt"
	check signals-frames stack_ok "$SG_TRAIL" threads secret-stack 120

	# action = ask: the stack is taken first, the question asked once.
	c ask-stack ask-stack ENOENT "--type syscall --rule ask-stack --action deny --errno ENOENT --field decided_by=\"hook\" --count 1" \
		"$B/stack-victim" "$W/secret.txt"
	check ask-stack-frames stack_ok "$SG_TRAIL" frames ask-stack \
		"$B/stack-victim" named 1 "${own[@]}"
	check ask-stack-asked-once test "$(cat "$hooks/asked" 2>/dev/null | wc -l)" = 1

	c threads-allow stack 0 "--type syscall --rule public-stack --action allow --count 24" \
		"$B/stack-victim-stripped" -t 4 -n 6 "$W/public.txt"

	c no-stack-rule stack EPERM "--type syscall --rule no-stack --action deny --errno EPERM --count 1" \
		"$B/stack-victim" "$W/plain.txt"
	check no-stack-recorded stack_ok "$SG_TRAIL" none no-stack
}

sg_main cases
