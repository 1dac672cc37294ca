#!/bin/bash
# SPDX-License-Identifier: MIT
# [limits]: processes counted by the supervisor (the fork that would exceed
# fails with EAGAIN), wall time (the tree is killed), CPU, file size and
# open files (rlimits of every process); each limit reached is a `limit`
# record in the trail.
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

cases() {
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
memory = 256M
EOF
	# A bounded fork bomb: 40 forks, at most 8 tasks at once.
	c fork-bomb-stopped procs any "--type limit --field limit=\"processes\" --min 1; --type syscall --rule sysgate:limit --errno EAGAIN --min 1" \
		sh -c 'for i in $(seq 40); do (sleep 1) & done 2>/dev/null; wait; exit 0'
	check fork-bomb-bounded max_live_at_most "$SG_TRAIL" 8
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
	c memory mem 0 "" \
		"$PY" -c '
try:
    b = bytearray(1 << 30)
    raise SystemExit("allocated 1 GiB under a 256M limit")
except MemoryError:
    pass
'
}

sg_main cases
