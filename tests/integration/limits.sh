#!/bin/bash
# SPDX-License-Identifier: MIT
# [limits]: processes counted by the supervisor (the fork that would exceed
# fails with EAGAIN; pids.max of the tree's cgroup backs it up), wall time
# (the tree is killed), memory and CPU of the whole tree where the
# supervisor can make a cgroup (root here), rlimits of every process
# otherwise (nobody), file size and open files (rlimits); each limit
# reached is a `limit` record in the trail, run.start says what enforces
# each, and no cgroup is left behind.
. "$(dirname "$0")/lib.sh"
sg_init

PY=/usr/bin/python3

# The most tasks of the tree alive at once, replayed from the trail's
# fork and exit records, is at most $2.
max_live_at_most() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
live, peak = set(), 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "proc.fork":
        live.add(r["tid"])
    elif r["type"] == "proc.exit":
        live.discard(r["tid"])
    peak = max(peak, len(live))
sys.exit(0 if 0 < peak <= int(sys.argv[2]) else 1)
PYEOF
}

# The run took less than $2 seconds (run.end's duration).
ran_under() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
last = [json.loads(l) for l in open(sys.argv[1])][-1]
sys.exit(0 if last["type"] == "run.end" and last["duration_ms"] < 1000 * float(sys.argv[2]) else 1)
PYEOF
}

# How the cgroups of this machine should serve user U, found natively (no
# sysgate): "cgroup-v1" or "cgroup-v2" when U can make a group below its
# own cgroup of controller $1 (its v1 name), "rlimit" when it cannot.
# With $2 = dir: the directory of that cgroup of its, if there is one.
cg_expect() {
	as_user "$PY" - "$1" "${2:-}" <<'PYEOF'
import os, sys
ctrl = sys.argv[1]
own = {}
for line in open("/proc/self/cgroup"):
    hid, ctrls, path = line.rstrip("\n").split(":", 2)
    for c in ctrls.split(","):
        own[c or "v2"] = path
ver = "v1" if ctrl in own else "v2"
path = own.get(ctrl if ver == "v1" else "v2")
found = None
if path is not None:
    for line in open("/proc/self/mountinfo"):
        pre, post = line.split(" - ", 1)
        f, g = pre.split(), post.split()
        if ver == "v1" and (g[0] != "cgroup" or ctrl not in g[2].split(",")):
            continue
        if ver == "v2" and g[0] != "cgroup2":
            continue
        root = "" if f[3] == "/" else f[3]
        if path == root or path.startswith(root + "/"):
            found = f[4] + path[len(root):]
            break
if sys.argv[2] == "dir":
    print(found or ""); sys.exit(0)
if found is None:
    print("rlimit"); sys.exit(0)
probe = os.path.join(found, "sysgate-probe-%d" % os.getpid())
try:
    os.mkdir(probe)
except OSError:
    print("rlimit"); sys.exit(0)
# v2: the controller must be enabled for the children of our cgroup.
ok = ver == "v1" or ctrl == "cpuacct" or \
    ctrl in open(os.path.join(probe, "cgroup.controllers")).read().split()
os.rmdir(probe)
print("cgroup-" + ver if ok else "rlimit")
PYEOF
}

# No cgroup of the run is left: none of the groups run.start names exists,
# and no sysgate-RUN directory is anywhere under /sys/fs/cgroup.  $2: yes
# when run.start must name a group (the tree's cgroup was used), no when
# it must name none.
cgroups_gone() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, os, sys
first = json.loads(open(sys.argv[1]).readline())
paths = [v["cgroup"] for v in first.get("limits", {}).values() if "cgroup" in v]
if (sys.argv[2] == "yes") != bool(paths):
    sys.exit("run.start names %d cgroups" % len(paths))
if any(os.path.exists(p) for p in paths):
    sys.exit("left behind")
name = "sysgate-" + first["run"]
for top, dirs, files in os.walk("/sys/fs/cgroup"):
    if name in dirs:
        sys.exit("left behind: " + os.path.join(top, name))
    if top.count("/") >= 7:
        dirs[:] = []
PYEOF
}

# The CPU times the two burners reported (files cpu.PID in $W, seconds):
# with the tree's limit (tree) their sum reached the limit but stays well
# under what two per-process limits allow; with per-process rlimits
# (process) each ran up to about its own 1 s.
cpu_split() {
	"$PY" - "$W" "$1" <<'PYEOF'
import glob, os, sys
times = []
for f in glob.glob(os.path.join(sys.argv[1], "cpu.*")):
    t = open(f).read().strip()
    times.append(float(t) if t else 0.0)
if len(times) != 2:
    sys.exit("want 2 reports, got %d" % len(times))
# The reports lag the true times a little (the last write before the
# kill); the two semantics stay far apart: about 1 s in all against
# about 1 s each.
if sys.argv[2] == "tree":
    ok = 0.7 <= sum(times) < 1.5
else:
    ok = sum(times) >= 1.6 and min(times) >= 0.75
sys.exit(0 if ok else "cpu times %r" % times)
PYEOF
}

# aq NAME QUERY...: an auditq question on the last case's trail, with
# values that hold spaces (a case's AUDIT word cannot).
aq() {
	local name=$1
	shift
	check "$name" "$PY" "$AUDITQ" "$SG_TRAIL" "$@"
}

yes_if_cgroup() {
	if [ "$1" = rlimit ]; then echo no; else echo yes; fi
}

# A group made but not joined (the write of the child's pid into
# cgroup.procs fails, injected with strace): sysgate stops with 125 before
# the command runs, says why, and removes the group.
attach_fails() {
	local wrap=$B/sysgate-strace n
	command -v strace >/dev/null || sg_harness_error "strace(1) is missing"
	local real=$SYSGATE
	# First the same run traced, to find which openat is cgroup.procs's.
	printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0 exec strace -o %s -e trace=openat %s "$@"\n' \
		"$R/attach1.strace" "$real" >"$wrap"
	chmod 0755 "$wrap"
	SYSGATE=$wrap
	sg_run -q -r "$P/zombies.ini" -- touch ran
	n=$(grep '^openat(' "$R/attach1.strace" | grep -n 'cgroup.procs' | head -1 | cut -d: -f1)
	[ "$SG_RC" = 0 ] && [ -n "$n" ] ||
		sg_harness_error "no cgroup.procs in the strace of a run (status $SG_RC)"
	rm -f "$W/ran"
	printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0 exec strace -o %s -e trace=openat -e inject=openat:error=EACCES:when=%s %s "$@"\n' \
		"$R/attach2.strace" "$n" "$real" >"$wrap"
	c attach-fails zombies 125 "--type run.end --field status=\"failed\"" touch ran
	SYSGATE=$real
	check attach-fails-injected grep -q 'cgroup.procs.*INJECTED' "$R/attach2.strace"
	aq attach-fails-says-why --type run.end \
		--field error='"cannot put the command in its cgroup: Permission denied"'
	check attach-fails-command-not-run test ! -e "$W/ran"
	check attach-fails-cgroup-gone cgroups_gone "$SG_TRAIL" yes
}

# The cgroups run.start of trail $1 names, one a line.
cg_run_paths() {
	"$PY" -c 'import json, sys
first = json.loads(open(sys.argv[1]).readline())
for v in first.get("limits", {}).values():
    if "cgroup" in v:
        print(v["cgroup"])' "$1" | sort -u
}

# Up to 10 s for the groups listed in file $1 to hold no process (the
# kernel ends a tree when its sysgate dies).
cg_wait_empty() {
	local i
	for i in $(seq 100); do
		sh -c 'while read -r p; do test -z "$(cat "$p/cgroup.procs" 2>/dev/null)" || exit 1; done < "$1"' \
			- "$1" && return
		sleep 0.1
	done
}

# The cgroup of a run whose sysgate was killed with SIGKILL (which cannot
# remove it) is removed by the next run with the same TMPDIR, once the
# kernel has ended the tree in it.
killed_cgroup() {
	local td=$W/tmpd-cg rd=$W/ready-cg trail=$R/cg-killed.jsonl
	rm -rf "$td" "$rd"
	mkdir -m 1777 "$td" "$rd"
	sg_bg_run cg-killed "$td" -r "$P/mem.ini" -a "$trail" -- \
		sh -c 'echo > "$1" && exec sleep 60' - "$rd/killed"
	if ! sg_wait_file "$rd/killed"; then
		kill -KILL "$BG_PID" 2>/dev/null
		SG_ERR=$R/cg-killed.err sg_report_fail killed-cgroup "the command did not start"
		return
	fi
	cg_run_paths "$trail" >"$R/cg-killed.paths"
	check killed-cgroup-made test -s "$R/cg-killed.paths"
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	check killed-cgroup-left-by-sigkill sh -c 'while read -r p; do test -d "$p" || exit 1; done < "$1"' - "$R/cg-killed.paths"
	cg_wait_empty "$R/cg-killed.paths"
	SG_ERR=$R/cg-next.err
	(cd "$W" && exec timeout -k 5 60 "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		TMPDIR="$td" "$SYSGATE" run -v -r "$P/procs.ini" -a "$R/cg-next.jsonl" -- true) \
		>"$R/cg-next.out" 2>"$SG_ERR" </dev/null
	check killed-cgroup-next-run-ok test "$?" = 0
	check killed-cgroup-removed cgroups_gone "$trail" yes
	check killed-cgroup-says-so grep -q "sysgate: removed the cgroup .*/sysgate-.* of a run whose sysgate was killed" "$SG_ERR"
}

# The same, with the killed sysgate started in another cgroup (a child of
# ours, as root): the next run finds its group through the lock file's
# notes, not below its own cgroup.
killed_cgroup_elsewhere() {
	local td=$W/tmpd-cge rd=$W/ready-cge trail=$R/cge-killed.jsonl own other
	own=$(cg_expect memory dir)
	other=$own/sysgate-test-other-$$
	if [ -z "$own" ] || ! mkdir "$other"; then
		SG_ERR='' sg_report_fail killed-cgroup-elsewhere "cannot make a memory cgroup below '$own'"
		return
	fi
	rm -rf "$td" "$rd"
	mkdir -m 1777 "$td" "$rd"
	(cd "$W" && exec sh -c 'echo 0 > "$1/cgroup.procs" && shift && exec "$@"' - "$other" \
		env -i PATH="$SG_PATH" HOME="$H" TMPDIR="$td" "$SYSGATE" run -r "$P/mem.ini" -a "$trail" -- \
		sh -c 'echo > "$1" && exec sleep 60' - "$rd/killed") >"$R/cge-killed.out" 2>"$R/cge-killed.err" </dev/null &
	BG_PID=$!
	SG_BG_PIDS+=("$BG_PID")
	if ! sg_wait_file "$rd/killed"; then
		kill -KILL "$BG_PID" 2>/dev/null
		rmdir "$other"
		SG_ERR=$R/cge-killed.err sg_report_fail killed-cgroup-elsewhere "the command did not start"
		return
	fi
	cg_run_paths "$trail" >"$R/cge-killed.paths"
	check killed-cgroup-elsewhere-made grep -q "^$other/sysgate-" "$R/cge-killed.paths"
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	cg_wait_empty "$R/cge-killed.paths"
	# A lock file of a dead run whose notes were forged (the command runs
	# as the user the lock belongs to): an empty group not named as that
	# run's, and a directory so named outside cgroupfs, both stay.
	local forged=20261204T000000Z-0123456789ab
	mkdir "$other/victim" "$td/sysgate-$forged-notcg"
	mkdir "$td/sysgate-$forged-notcg/sysgate-$forged"
	printf 'cgroup %s\ncgroup %s\n' "$other/victim" "$td/sysgate-$forged-notcg/sysgate-$forged" \
		>"$td/sysgate-$forged.lock"
	SG_ERR=$R/cge-next.err
	(cd "$W" && exec timeout -k 5 60 env -i PATH="$SG_PATH" HOME="$H" \
		TMPDIR="$td" "$SYSGATE" run -v -r "$P/procs.ini" -a "$R/cge-next.jsonl" -- true) \
		>"$R/cge-next.out" 2>"$SG_ERR" </dev/null
	check killed-cgroup-elsewhere-next-run-ok test "$?" = 0
	check killed-cgroup-elsewhere-removed sh -c 'while read -r p; do test ! -e "$p" || exit 1; done < "$1"' - "$R/cge-killed.paths"
	check killed-cgroup-elsewhere-says-so grep -q "sysgate: removed the cgroup $other/sysgate-.* of a run whose sysgate was killed" "$SG_ERR"
	check killed-cgroup-forged-notes-ignored test -d "$other/victim" -a -d "$td/sysgate-$forged-notcg/sysgate-$forged"
	check killed-cgroup-forged-lock-gone test ! -e "$td/sysgate-$forged.lock"
	# What a failure left, not to stay on the machine.
	rmdir "$other"/sysgate-* "$other/victim" 2>/dev/null
	rmdir "$other"
}

cases() {
	local memvia pidsvia cpuvia
	memvia=$(cg_expect memory) || sg_harness_error "cgroup probe failed"
	pidsvia=$(cg_expect pids) || sg_harness_error "cgroup probe failed"
	cpuvia=$(cg_expect cpuacct) || sg_harness_error "cgroup probe failed"
	echo "# [$U] expected: memory via $memvia, processes backstop $pidsvia, cpu via $cpuvia"
	# Root on this machine (v1 hierarchies, docs/PLATFORM.md 4) makes groups:
	# the cgroup cases must not quietly turn into rlimit cases there.
	if [ "$U" = root ] && [ -d /sys/fs/cgroup/memory ] && [ "$memvia" = rlimit ]; then
		SG_ERR='' sg_report_fail cgroup-probe "root cannot make a memory cgroup here"
	fi

	policy procs <<'EOF'
[policy]
default = allow
audit = denied

[limits]
processes = 8
EOF
	policy wall <<'EOF'
[policy]
default = allow

[limits]
wall = 1s
EOF
	policy fsize <<'EOF'
[policy]
default = allow

[limits]
file_size = 4K
EOF
	policy cpu <<'EOF'
[policy]
default = allow

[limits]
cpu = 1s
wall = 30s
EOF
	# EMFILE is seen (and recorded) where the supervisor opens the file:
	# with audit = all, the opens are notified.
	policy nofile <<'EOF'
[policy]
default = allow
audit = all

[limits]
open_files = 32

[rule files]
syscalls = @file
action = allow
EOF
	policy mem <<'EOF'
[policy]
default = allow

[limits]
memory = 64M
wall = 60s
EOF
	policy cpu2 <<'EOF'
[policy]
default = allow

[limits]
cpu = 1s
wall = 60s
EOF
	policy zombies <<'EOF'
[policy]
default = allow
audit = denied

[limits]
processes = 8
wall = 60s
EOF
	# A bounded fork bomb: 40 forks, at most 8 tasks at once.
	c fork-bomb-stopped procs any "--type limit --field limit=\"processes\" --min 1; --type syscall --rule sysgate:limit --errno EAGAIN --min 1" \
		sh -c 'for i in $(seq 40); do (sleep 1) & done 2>/dev/null; wait; exit 0'
	check fork-bomb-bounded max_live_at_most "$SG_TRAIL" 8
	if [ "$pidsvia" = rlimit ]; then
		aq fork-bomb-no-backstop --type run.start --field limits.processes.via='"supervisor"' \
			--next --type run.start --has limits.processes.backstop --count 0
	else
		aq fork-bomb-backstop --type run.start --field limits.processes.via='"supervisor"' \
			--field limits.processes.backstop="\"$pidsvia\""
	fi
	check fork-bomb-cgroup-gone cgroups_gone "$SG_TRAIL" "$(yes_if_cgroup "$pidsvia")"
	c threads-count procs 0 "--type limit --field limit=\"processes\" --min 1" \
		"$PY" -c '
import threading, time
ok = 0
ts = []
for i in range(20):
    t = threading.Thread(target=time.sleep, args=(0.5,))
    try:
        t.start(); ts.append(t); ok += 1
    except RuntimeError:
        pass
[t.join() for t in ts]
assert 0 < ok < 20, ok
'
	c wall-kills-tree wall sig:KILL "--type limit --field limit=\"wall\" --field value=1000" \
		sh -c 'sleep 30 & sleep 30'
	check wall-fast ran_under "$SG_TRAIL" 10
	c file-size fsize sig:XFSZ "--type limit --field limit=\"file_size\" --field value=4096" \
		sh -c 'head -c 100000 /dev/zero > big'
	c cpu cpu "sig:XCPU|sig:KILL" "--type limit --field limit=\"cpu\"" \
		sh -c 'while :; do :; done'
	c open-files nofile 0 "--type limit --field limit=\"open_files\" --field value=32" \
		"$PY" -c '
import os, errno
fds = []
try:
    for i in range(100):
        fds.append(os.open("/etc/hostname", os.O_RDONLY))
    raise SystemExit("no EMFILE")
except OSError as e:
    assert e.errno == errno.EMFILE, e
'
	# A memory hog touching 1 MiB after 1 MiB, up to 512 MiB: killed by
	# the kernel at the tree's 64M, or refused (MemoryError) by RLIMIT_AS.
	local hog='
b = []
try:
    for i in range(512):
        b.append(b"\x01" * (1 << 20))
except MemoryError:
    raise SystemExit(0)
raise SystemExit("512 MiB allocated under a 64M limit")
'
	if [ "$memvia" = rlimit ]; then
		c memory-rlimit mem 0 "--type run.start --field limits.memory.via=\"rlimit\" --field limits.memory.scope=\"process\"; --type limit --count 0" \
			"$PY" -c "$hog"
	else
		c memory-cgroup mem sig:KILL "--type run.start --field limits.memory.via=\"$memvia\" --field limits.memory.scope=\"tree\"; --type limit --field limit=\"memory\" --field value=67108864 --count 1; --type proc.exit --signal KILL --count 1" \
			"$PY" -c "$hog"
		aq memory-oom-recorded --type limit --field limit='"memory"' \
			--field action="\"process killed by the kernel (out of memory in the tree's cgroup)\"" --count 1
	fi
	check memory-cgroup-gone cgroups_gone "$SG_TRAIL" "$(yes_if_cgroup "$memvia")"
	# A command that cannot start: its groups are removed all the same.
	c startup-failure mem 127 "--type run.start" no-such-command-here
	check startup-failure-cgroup-gone cgroups_gone "$SG_TRAIL" "$(yes_if_cgroup "$memvia")"

	# Two CPU burners, each reporting its own CPU time: the tree's total
	# is what counts with a cgroup; each has its own 1 s with RLIMIT_CPU.
	# They burn one after the other (the parent once its child is dead),
	# so that how the machine shares its CPUs between them cannot matter:
	# with a limit per process each gets its whole second, with one for
	# the tree the child's second is all there is.
	rm -f "$W"/cpu.*
	local burn='
import os, time
child = os.fork()
f = open("cpu.%d" % os.getpid(), "w")
f.write("0.000   ")
f.flush()
if child:
    os.waitpid(child, 0)
while True:
    for i in range(20000):
        pass
    f.seek(0)
    f.write("%.3f   " % time.process_time())
    f.flush()
'
	if [ "$cpuvia" = rlimit ]; then
		c cpu-per-process cpu2 "sig:XCPU|sig:KILL" "--type run.start --field limits.cpu.via=\"rlimit\" --field limits.cpu.scope=\"process\"" \
			"$PY" -c "$burn"
		aq cpu-per-process-recorded --type limit --field limit='"cpu"' \
			--field action='"SIGXCPU sent to the process"' --min 2
		check cpu-each-its-own cpu_split process
	else
		c cpu-tree cpu2 sig:KILL "--type run.start --field limits.cpu.via=\"$cpuvia\" --field limits.cpu.scope=\"tree\"; --type limit --field limit=\"cpu\" --field value=1000 --count 1; --type proc.exit --signal KILL --count 2; --type proc.signal --count 0" \
			"$PY" -c "$burn"
		aq cpu-tree-recorded --type limit --field limit='"cpu"' \
			--field action='"the process tree was killed"' --count 1
		check cpu-tree-total cpu_split tree
	fi
	check cpu-cgroup-gone cgroups_gone "$SG_TRAIL" "$(yes_if_cgroup "$cpuvia")"

	# Zombies: the supervisor counts live tasks, the kernel's pids.max
	# counts zombies too; a fork refused there is recorded as well.
	if [ "$pidsvia" != rlimit ]; then
		c zombies-pids-max zombies 0 "--type limit --field limit=\"processes\" --min 1" \
			"$PY" -c '
import errno, os, time
refused = 0
for i in range(40):
    try:
        if os.fork() == 0:
            os._exit(0)
    except OSError as e:
        assert e.errno == errno.EAGAIN, e
        refused += 1
    time.sleep(0.02)
assert refused > 0, "no fork refused with 40 zombies under processes = 8"
'
		aq zombies-pids-max-recorded --type limit --field limit='"processes"' \
			--field action='"fork refused with EAGAIN by the kernel (pids.max)"' --min 1
		check zombies-cgroup-gone cgroups_gone "$SG_TRAIL" yes
	fi
	if [ "$pidsvia" != rlimit ]; then
		attach_fails
	fi
	if [ "$memvia" != rlimit ]; then
		killed_cgroup
		[ "$U" = root ] && killed_cgroup_elsewhere
	fi
}

sg_main cases
