#!/bin/bash
# SPDX-License-Identifier: MIT
# Every process and thread the command starts is mediated like the first
# one: children, background jobs, the grandchild of a double fork (orphaned
# and reparented), threads, vfork/posix_spawn; and the process tree is in
# the trail (proc.fork, proc.exec, proc.exit), each tid's proc.fork before
# anything else of it even under a fork storm.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy procs <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
access = read, write
action = deny
errno = EACCES
EOF
	local S=$H/.ssh/id_rsa
	native 0 "$B/double-fork" "$W/native.out" "$S"
	native 0 "$B/thread-open" "$S"

	c double-fork-grandchild procs EACCES "--type syscall --path $S --action deny --rule no-secrets --errno EACCES; --type proc.fork --min 2" \
		"$B/double-fork" "$W/df.out" "$S"
	check double-fork-grandchild-result grep -qx 13 "$W/df.out"
	c double-fork-allowed   procs 0      "--type syscall --path $W/readme.txt --action allow" \
		"$B/double-fork" "$W/df2.out" "$W/readme.txt"
	c thread-denied         procs EACCES "--type syscall --path $S --action deny --rule no-secrets --thread yes" \
		"$B/thread-open" "$S"
	c thread-allowed        procs 0      "--type syscall --path $W/readme.txt --action allow --thread yes" \
		"$B/thread-open" "$W/readme.txt"
	c child-of-sh           procs 1      "--type syscall --path $S --action deny --rule no-secrets" \
		sh -c "cat '$S'"
	c background-job        procs 0      "--type syscall --path $S --action deny --rule no-secrets" \
		sh -c "(sleep 0.2; cat '$S' > '$W/bg.out' 2>&1; echo \$? > '$W/bg.rc') & wait"
	check background-job-denied grep -qx 1 "$W/bg.rc"
	check background-job-no-leak bash -c "! grep -q SECRET '$W/bg.out'"
	c orphan-outlives-parent procs 0     "--type syscall --path $S --action deny --rule no-secrets" \
		sh -c "sh -c '(sleep 0.3; cat $S > $W/orphan.out 2>&1; echo \$? > $W/orphan.rc) &' ; sleep 1"
	check orphan-denied     grep -qx 1 "$W/orphan.rc"
	c posix-spawn           procs 1      "--type syscall --path $S --action deny --rule no-secrets" \
		$PY -c 'import os,sys
pid = os.posix_spawn("/bin/cat", ["cat", sys.argv[1]], {})
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))' "$S"
	c subprocess-vfork      procs 1      "--type syscall --path $S --action deny --rule no-secrets" \
		$PY -c 'import subprocess,sys; sys.exit(subprocess.call(["cat", sys.argv[1]]))' "$S"
	c python-threads        procs 0      "--type syscall --path $S --action deny --thread yes --min 4" \
		$PY -c 'import threading,sys,errno
res = []
def f():
    try:
        open(sys.argv[1]).read(); res.append("open")
    except OSError as e:
        res.append(e.errno)
ts = [threading.Thread(target=f) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
sys.exit(0 if res == [errno.EACCES] * 4 else 1)' "$S"
	c deep-chain            procs 1      "--path $S --action deny --rule no-secrets" \
		sh -c "sh -c 'sh -c \"cat $S\"'"
	c many-children         procs 0      "--type syscall --path $S --action deny --count 8; --type proc.exit --min 9" \
		sh -c "for i in 1 2 3 4 5 6 7 8; do cat '$S' 2>/dev/null & done; wait; exit 0"
	c proc-records          procs 3      "--type proc.fork --has pid --has ppid; --type proc.exec --path $B/exit-with --argv [\"$B/exit-with\",\"3\"]; --type proc.exit --code 3" \
		sh -c "'$B/exit-with' 3; exit \$?"
	c proc-exit-signal      procs sig:TERM "--type proc.exit --signal TERM" \
		"$B/kill-self" TERM
	# Every task's end is in the trail, seen from its exit status alone
	# (no exit stop): one proc.exit per proc.fork, threads marked, codes
	# and signals as they ended.
	c proc-records-complete procs 0 "--type proc.exit --thread yes --min 3; --type proc.exit --code 3 --count 1; --type proc.exit --signal TERM --count 1" \
		$PY -c 'import os, signal, threading, time
ts = [threading.Thread(target=time.sleep, args=(0.05,)) for _ in range(3)]
[t.start() for t in ts]; [t.join() for t in ts]
a = os.fork()
if a == 0:
    os._exit(3)
b = os.fork()
if b == 0:
    time.sleep(30)
    os._exit(0)
os.kill(b, signal.SIGTERM)
os.waitpid(a, 0); os.waitpid(b, 0)'
	check proc-records-complete-each $PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
forks = [x["tid"] for x in r if x["type"] == "proc.fork"]
exits = [x["tid"] for x in r if x["type"] == "proc.exit"]
sys.exit(not (len(forks) == 6 and sorted(forks) == sorted(exits)))' "$SG_TRAIL"

	# Causal order under a fork storm: a child's first stop, or its exit,
	# can be reported before its creator's fork event (PLATFORM.md 3(e)).
	# 200 short-lived children forked in tight loops by two forkers (a
	# third of them make a call first), and a posix_spawn, ten runs: in
	# every trail each tid's proc.fork comes before anything else of it,
	# once, and each ends with its proc.exit.
	cat >"$W/storm.py" <<'PYEOF'
import os, sys
def reap():
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return
n, par = int(sys.argv[1]), int(sys.argv[2])
for j in range(par):
    if os.fork() == 0:
        for i in range(n // par):
            if os.fork() == 0:
                if i % 3 == 0:
                    open("/etc/hostname").close()
                os._exit(i % 7)
        reap()
        os._exit(0)
os.posix_spawn("/bin/true", ["true"], os.environ)
reap()
PYEOF
	cat >"$W/order.py" <<'PYEOF'
import json, sys
state, bad = {}, []
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    o = json.loads(line)
    t, tid = o["type"], o.get("tid")
    if tid is None:
        continue
    s = state.get(tid)
    if t == "proc.fork":
        if s == "forked":
            bad.append("line %d: second proc.fork of tid %d" % (n, tid))
        state[tid] = "forked"
    elif s != "forked":
        bad.append("line %d: %s of tid %d %s" % (n, t, tid,
                   "after its exit" if s else "before its proc.fork"))
    elif t == "proc.exit":
        state[tid] = "exited"
left = [t for t, s in state.items() if s == "forked"]
if left:
    bad.append("no proc.exit for tids %s" % left[:10])
if len(state) < int(sys.argv[2]):
    bad.append("only %d tids forked" % len(state))
if bad:
    sys.exit(sys.argv[1] + ": " + "; ".join(bad[:5]))
PYEOF
	[ "$U" = root ] || chown "$U" "$W/storm.py" "$W/order.py"
	local i bad=0
	for i in $(seq 10); do
		sg_run -q -r "$P/procs.ini" -- $PY storm.py 200 2
		[ "$SG_RC" = 0 ] || sg_harness_error "fork storm $i: exit $SG_RC: $(head -c 300 "$SG_ERR")"
		$PY "$W/order.py" "$SG_TRAIL" 204 || bad=$((bad + 1))
	done
	check fork-storm-causal-order test "$bad" = 0
	# A thread that execs takes the leader'"'"'s tid: the other threads end,
	# the program runs on.
	c exec-from-thread      procs 7 "--type proc.exec --path $B/exit-with --argv [\"$B/exit-with\",\"7\"]; --type proc.exit --code 7 --count 1" \
		$PY -c 'import os, sys, threading, time
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
t = threading.Thread(target=os.execv, args=(sys.argv[1], [sys.argv[1], "7"]))
t.start(); t.join()' "$B/exit-with"
	check exec-from-thread-tid $PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
e = [x for x in r if x["type"] == "proc.exec" and x["argv"][1:] == ["7"]][0]
x = [x for x in r if x["type"] == "proc.exit" and x.get("code") == 7][0]
sys.exit(not (e["tid"] == e["pid"] == x["tid"] == x["pid"]))' "$SG_TRAIL"
	# A child the supervisor has reaped as tracer is still a zombie for
	# its parent: killing it succeeds (as multiprocessing's Pool does on
	# shutdown); once waited for, its pid names nothing: ESRCH.  Neither
	# is a denial.
	c kill-zombie-child     procs 0 "--type syscall --syscall kill --action deny --count 0; --type syscall --syscall kill --errno ESRCH --min 1" \
		/usr/bin/python3 -c '
import os, signal, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os._exit(0)
os.close(w)
os.read(r, 1)
time.sleep(0.5)
os.kill(pid, signal.SIGTERM)
os.waitpid(pid, 0)
try:
    os.kill(pid, signal.SIGTERM)
    raise SystemExit("no ESRCH")
except ProcessLookupError:
    pass
'
	# A signal that reaches a notified call before the supervisor has
	# received it makes the kernel withdraw the notification and end the
	# call with EINTR when the handler lacks SA_RESTART (CPython's
	# handlers do).  Natively the signal just came before the call: a
	# call that never fails with EINTR natively is restarted, never
	# failed.  A second thread signals the caller once per call; the
	# victim counts EINTR (natively 0) and says how many.
	policy sigrestart <<EOF
[policy]
default = allow
audit = all

[rule watch]
syscalls = mkdir, rmdir, stat, newfstatat
path = $W/sr/**
action = allow
EOF
	mkdir -p "$W/sr"
	[ "$U" = root ] || chown "$U" "$W/sr"
	: >"$W/sr/f"
	native 0 "$B/try-sigrestart" kill
	native 0 "$B/try-sigrestart" tgkill
	native 0 "$B/try-sigrestart" "mkdir:$W/sr/d"
	native 0 "$B/try-sigrestart" "stat:$W/sr/f"
	c signal-no-eintr-kill   sigrestart 0 "--type syscall --syscall kill --action allow --min 2000; --type syscall --syscall tgkill --action allow --thread yes --min 1" \
		"$B/try-sigrestart" kill
	check signal-no-eintr-kill-count grep -q '^eintr 0 calls 2000 ' "$SG_OUT"
	c signal-no-eintr-tgkill sigrestart 0 "--type syscall --syscall tgkill --action allow --thread no --min 2000" \
		"$B/try-sigrestart" tgkill
	check signal-no-eintr-tgkill-count grep -q '^eintr 0 calls 2000 ' "$SG_OUT"
	c signal-no-eintr-mkdir  sigrestart 0 "--type syscall --syscall mkdir --rule watch --min 2000; --type syscall --syscall rmdir --rule watch --min 2000" \
		"$B/try-sigrestart" "mkdir:$W/sr/d"
	check signal-no-eintr-mkdir-count grep -q '^eintr 0 calls 2000 ' "$SG_OUT"
	c signal-no-eintr-stat   sigrestart 0 "--type syscall --path $W/sr/f --rule watch --min 2000" \
		"$B/try-sigrestart" "stat:$W/sr/f"
	check signal-no-eintr-stat-count grep -q '^eintr 0 calls 2000 ' "$SG_OUT"
	# 1,100 processes that each open a file relative to a dirfd (the
	# supervisor takes a pidfd of each) under a soft limit of 1024 fds:
	# the supervisor raises its own limit, the command keeps the one it
	# was given.
	cat >"$W/scale.py" <<'PYEOF'
import os, sys, time
n = int(sys.argv[1])
r, w = os.pipe()
kids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        os.close(w)
        try:
            d = os.open("/usr/lib", os.O_RDONLY | os.O_DIRECTORY)
            os.close(os.open("os-release", os.O_RDONLY, dir_fd=d))
            code = 0
        except OSError as e:
            code = e.errno
        os.read(r, 1)
        os._exit(code)
    kids.append(pid)
os.close(r)
time.sleep(0.2)
os.close(w)
bad = sum(1 for k in kids if os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) != 0)
print("failed children:", bad)
PYEOF
	local saved_as=("${SG_AS[@]}")
	SG_AS=(prlimit "--nofile=1024:$(ulimit -Hn)" "${SG_AS[@]}")
	SG_TIMEOUT=180 c nofile-1100-processes procs 0 "--type proc.fork --min 1100" \
		$PY "$W/scale.py" 1100
	check nofile-1100-processes-all grep -qx "failed children: 0" "$SG_OUT"
	c nofile-limit-kept     procs 0 - \
		$PY -c 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])'
	check nofile-limit-kept-1024 grep -qx 1024 "$SG_OUT"
	SG_AS=("${saved_as[@]}")
	# An emulated open binds its caller to the supervisor's CPU while the
	# fd is added (supervisor/cpubind.c): no thread finds its own mask
	# changed, a change another thread makes is never undone, and (with
	# two CPUs or more) the binding is seen from the other thread, which
	# shows that it was made.
	local ncpu
	ncpu=$(nproc)
	native 0 "$B/try-affinity" "$W/readme.txt" 200 "$ncpu"
	c affinity-kept         procs 0 "--type syscall --path $W/readme.txt --action allow --min 2000" \
		"$B/try-affinity" "$W/readme.txt" 2000 "$ncpu"
	check affinity-kept-says-nothing sh -c "! grep -q 'try-affinity:' '$SG_ERR'"
	if [ "$ncpu" -ge 2 ]; then
		check affinity-bound-seen grep -q '^bound-seen [1-9]' "$SG_OUT"
	else
		echo "# affinity-bound-seen: not run (one CPU: nothing is bound)"
	fi
	# In a run of calls from one caller alone, the caller stays bound to
	# the supervisor's CPU between its calls (cpubind.c): its own mask
	# read back, a child's and a new thread's are still the ones it had,
	# and one it sets itself is not undone.  /proc shows the binding (and
	# that the forks and threads were started while it held).
	native 0 "$B/try-kept" "$W/readme.txt" 2
	c affinity-run-kept     procs 0 "--type syscall --path $W/readme.txt --action allow --min 800" \
		"$B/try-kept" "$W/readme.txt" 10
	check affinity-run-kept-says-nothing sh -c "! grep -q 'try-kept:' '$SG_ERR'"
	if [ "$ncpu" -ge 2 ]; then
		check affinity-run-kept-seen grep -q '^kept-seen [1-9]' "$SG_OUT"
		check affinity-run-fork-kept grep -q '^fork-kept [1-9]' "$SG_OUT"
		check affinity-run-thread-kept grep -q '^thread-kept [1-9]' "$SG_OUT"
	else
		echo "# affinity-run-kept-seen: not run (one CPU: nothing is bound)"
	fi
	# Bound to one CPU by the user: left as it is.
	c affinity-one-cpu      procs 0 "--type syscall --path $W/readme.txt --action allow --min 200" \
		taskset -c 0 "$B/try-affinity" "$W/readme.txt" 200 1
	check affinity-one-cpu-unbound grep -qx 'bound-seen 0' "$SG_OUT"
	# After a pause the event loop binds itself as well for an ADDFD
	# (cpubind.c): its own mask is back after each one.  Read from
	# outside (the tree may not read the supervisor's /proc): the command
	# names its parent, the supervisor, and waits.
	local own mark=$W/mask.pid seen= sgp
	own=$(grep Cpus_allowed_list /proc/self/status)
	rm -f "$mark"
	"${SG_AS[@]}" "$SYSGATE" run -q -r "$P/procs.ini" -a "$R/mask.jsonl" -- \
		sh -c 'for i in 1 2 3; do cat /etc/hostname; sleep 0.01; done >/dev/null; echo $PPID > "$1.tmp"; mv "$1.tmp" "$1"; sleep 2' _ "$mark" &
	sgp=$!
	for _ in $(seq 200); do
		[ -s "$mark" ] && break
		sleep 0.05
	done
	[ -s "$mark" ] && seen=$(grep Cpus_allowed_list "/proc/$(cat "$mark")/status")
	wait "$sgp"
	check supervisor-mask-kept test "$seen" = "$own"
	# In a run of calls from one caller alone the event loop stays bound
	# from one ADDFD to the next, and lets its binding go once it has
	# waited a while for the next call (loop.c, KEEP_IDLE_US): here the
	# run is Python's start-up and forty opens, then it names its parent
	# and sleeps, without a notified call.
	rm -f "$mark"
	seen=
	"${SG_AS[@]}" "$SYSGATE" run -q -r "$P/procs.ini" -a "$R/mask-run.jsonl" -- \
		python3 -c 'import os, sys, time
m = open(sys.argv[1] + ".tmp", "w")
for _ in range(40):
    open("/etc/hostname").close()
m.write("%d\n" % os.getppid())
m.flush()
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(2)' "$mark" &
	sgp=$!
	for _ in $(seq 200); do
		[ -s "$mark" ] && break
		sleep 0.05
	done
	[ -s "$mark" ] && sleep 0.1 && seen=$(grep Cpus_allowed_list "/proc/$(cat "$mark")/status")
	wait "$sgp"
	check supervisor-mask-back-after-run test "$seen" = "$own"
}

sg_main cases
