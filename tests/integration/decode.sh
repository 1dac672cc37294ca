#!/bin/bash
# SPDX-License-Identifier: MIT
# Every argument decoded (issue 43, item 5; deaths by signal of item 1):
# a death by signal names how it came (si_code), who sent it (pid, uid,
# program) and where it faulted, and the report shows it with the last
# calls of the thread that died; a trail exercising kill, tgkill, ioctl,
# prlimit, socket and clone holds no raw argument words, and each of those
# calls has the arguments the program passed, by name; a path has the
# text the program passed and the directory it was relative to; a bind
# to port 0 has the port it got; each file written has its final size;
# a DNS query has its name; run.start has the user and HOME.  Each expected value is
# taken from outside the trail (the program's own output, `id -u`).
. "$(dirname "$0")/lib.sh"
sg_init

# rep NAME ARGS...: `sysgate report ARGS` into $RO; sets RC.
rep() {
	RO=$R/rep-$1.out
	shift
	timeout -k 5 60 "$SYSGATE" report "$@" >"$RO" 2>"$R/rep.err" </dev/null
	RC=$?
}

# head_has NAME N ERE: one of the first N lines of $RO matches ERE.
head_has() {
	if head -n "$2" "$RO" | grep -Eq -- "$3"; then
		SG_ERR= sg_report_pass "$1"
	else
		SG_ERR= sg_report_fail "$1" "no line of the first $2 matches /$3/:" \
			"$(head -n "$2" "$RO")"
	fi
}

# trail_py NAME PYTHON: check PYTHON (recs: the trail's records; argv[2:]
# the extra words) on $SG_TRAIL.
trail_py() {
	local name=$1 code=$2
	shift 2
	check "$name" $PY -c "import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
$code" "$SG_TRAIL" "$@"
}

# out_has NAME ERE: a line of $RO matches ERE.
out_has() {
	check "$1" grep -Eq -- "$2" "$RO"
}

# pid_of PYTHON-EXPR: the pid of the first record r of $SG_TRAIL making
# EXPR true.
pid_of() {
	$PY - "$SG_TRAIL" "$1" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if eval(sys.argv[2]):
        print(r["pid"])
        break
EOF
}

signals() {
	local uid
	uid=$(id -u "$U")

	# A fault the kernel raised: SEGV_MAPERR at the address read.
	sg_run -- "$PY" -c 'import ctypes; ctypes.string_at(0xdead000)'
	check segv-run-signaled test "$SG_RC" = 139
	trail_py segv-exit-fields '
e = [r for r in recs if r["type"] == "proc.exit" and r.get("signal") == "SIGSEGV"]
s = [r for r in recs if r["type"] == "proc.signal" and r.get("signal") == "SIGSEGV"]
ok = lambda r: r.get("si_code") == "SEGV_MAPERR" and r.get("fault_addr") == "0xdead000" and "sender_pid" not in r
sys.exit(not (len(e) == 1 and len(s) == 1 and ok(e[0]) and ok(s[0])))'
	rep segv "$SG_TRAIL"
	head_has segv-finding 5 "^  1\. died by signal: .*\[killed by SIGSEGV\], delivered at record [0-9]+, si_code SEGV_MAPERR, fault_addr 0xdead000$"
	head_has segv-last-calls 6 "^     its last calls:$"
	# Five calls, all of the thread the signal was delivered to.
	check segv-five-last-calls $PY -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = lines.index("     its last calls:")
calls = [l for l in lines[i + 1:i + 8] if l.startswith("       record ")]
pids = {re.search(r"  pid (\d+)", l).group(1) for l in calls}
sys.exit(not (len(calls) == 5 and len(pids) == 1))' "$RO"

	# A fault in a thread, while another thread made the run's last
	# calls: the last calls shown are the faulting thread's.
	policy threads <<'EOF'
[policy]
default = allow
audit = all

[rule watch]
syscalls = getpid, getppid
action = allow
EOF
	cat >"$W/thr.py" <<'EOF'
import ctypes, os, threading
mine, theirs = threading.Event(), threading.Event()
def worker():
    open("worker.tid", "w").write(str(threading.get_native_id()))
    for _ in range(6):
        os.getppid()
    mine.set()
    theirs.wait()
    ctypes.string_at(0xdead000)
t = threading.Thread(target=worker)
t.start()
mine.wait()
for _ in range(6):
    os.getpid()
theirs.set()
t.join()
EOF
	chmod a+r "$W/thr.py"
	sg_run -r "$P/threads.ini" -- "$PY" thr.py
	check thread-segv-signaled test "$SG_RC" = 139
	rep thread-segv "$SG_TRAIL"
	check thread-segv-last-calls $PY -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
tid = open(sys.argv[2]).read().strip()
i = lines.index("     its last calls:")
calls = [l for l in lines[i + 1:i + 8] if l.startswith("       record ")]
sys.exit(not (len(calls) == 5 and all(re.search(r" tid %s  getppid" % tid, l) for l in calls)))' "$RO" "$W/worker.tid"

	# A signal sent by another process of the tree: its pid, uid and
	# program, and SI_USER.
	sg_run -- sh -c 'sleep 5 & echo $$ > sender.pid; sleep 0.3; kill -USR1 $!; wait $!'
	check kill-run-ok test "$SG_RC" = 138
	trail_py kill-exit-sender '
sender = int(open(sys.argv[2]).read())
e = [r for r in recs if r["type"] == "proc.exit" and r.get("signal") == "SIGUSR1"]
sys.exit(not (len(e) == 1 and e[0].get("si_code") == "SI_USER" and
              e[0].get("sender_pid") == sender and e[0].get("sender_uid") == int(sys.argv[3]) and
              e[0].get("sender", "").endswith("sh") and "fault_addr" not in e[0]))' "$W/sender.pid" "$uid"
	rep kill "$SG_TRAIL"
	head_has kill-finding 6 "died by signal: .*\[killed by SIGUSR1\], delivered at record [0-9]+, si_code SI_USER, sender_pid $(cat "$W/sender.pid"), sender_uid $uid, sender .*sh$"
	# tgkill of a thread by itself: SI_TKILL.
	policy open <<'EOF'
[policy]
default = allow
audit = all
EOF
	sg_run -r "$P/open.ini" -- "$B/kill-self" TERM
	check tkill-run-signaled test "$SG_RC" = 143
	trail_py tkill-code '
e = [r for r in recs if r["type"] == "proc.exit" and r.get("signal") == "SIGTERM"]
sys.exit(not (len(e) == 1 and e[0].get("si_code") == "SI_TKILL" and e[0].get("sender_pid") == e[0]["pid"]))'
}

# No raw words: each call the program makes is found with its arguments
# by name, checked against what the program itself says it passed.
args() {
	policy watch <<'EOF'
[policy]
default = allow
audit = all

[rule watch]
syscalls = ioctl, prlimit64, setrlimit, socket, socketpair, clone, fcntl
syscalls = kill, tgkill, tkill, rt_sigqueueinfo, pidfd_send_signal, umask
syscalls = mkdir, truncate, sendto
action = allow
EOF
	cat >"$W/calls.py" <<'EOF'
import ctypes, fcntl, os, resource, signal, socket, threading
libc = ctypes.CDLL(None, use_errno=True)
pid = os.getpid()
open("calls.pid", "w").write(str(pid))
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
resource.prlimit(0, resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE))
os.kill(pid, 0)
signal.pthread_kill(threading.get_ident(), 0)
libc.syscall(200, pid, 0)                 # tkill
libc.syscall(129, pid, 0, None)           # rt_sigqueueinfo: EFAULT
signal.pidfd_send_signal(os.pidfd_open(pid), 0)
for req in (0x5413, 0x12345678):          # TIOCGWINSZ, unknown
    try:
        fcntl.ioctl(s.fileno(), req, b"\0" * 8)
    except OSError:
        pass
os.umask(0o27)
os.mkdir("newdir", 0o750)
open("t.txt", "w").write("abcdef")
os.truncate("t.txt", 2)
s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"x", socket.MSG_DONTWAIT, ("127.0.0.1", 9))
if os.fork() == 0:
    os._exit(0)
os.wait()
EOF
	chmod a+r "$W/calls.py"
	sg_run -r "$P/watch.ini" -- "$PY" calls.py
	check args-run-ok test "$SG_RC" = 0
	trail_py args-no-raw '
calls = [r for r in recs if r["type"] == "syscall"]
raw = [r["syscall"] for r in calls if "raw" in r.get("args", {})]
sys.exit("raw words in: %s" % sorted(set(raw)) if raw else 0)'
	trail_py args-decoded '
pid = int(open(sys.argv[2]).read())
mine = [r for r in recs if r["type"] == "syscall" and r["pid"] == pid]
def has(name, **want):
    for r in mine:
        if r["syscall"] == name and all(r["args"].get(k) == v for k, v in want.items()):
            return True
    print("no %s with %s" % (name, want))
    return False
exe = [r for r in mine if r["syscall"] == "kill"][0]["exe"]
ok = [has("socket", domain="AF_INET6", type="SOCK_STREAM", type_flags="SOCK_NONBLOCK|SOCK_CLOEXEC"),
      has("socketpair", domain="AF_UNIX", type="SOCK_DGRAM|SOCK_CLOEXEC"),
      has("prlimit64", pid=0, resource="RLIMIT_NOFILE"),
      has("kill", pid=pid, signal=0, target=exe),
      has("tgkill", tgid=pid, tid=pid, signal=0),
      has("tkill", tid=pid, signal=0),
      has("rt_sigqueueinfo", tgid=pid, signal=0, info="0x0"),
      has("pidfd_send_signal", signal=0, flags=0),
      has("ioctl", request="TIOCGWINSZ"),
      has("ioctl", request="unknown", request_nr=0x12345678),
      has("umask", mask="027"),
      has("mkdir", path="newdir", mode="0750"),
      has("truncate", path="t.txt", length=2),
      has("sendto", len=1, flags="MSG_DONTWAIT", addrlen=16)]
clone = [r for r in mine if r["syscall"] == "clone"]
ok.append(bool(clone) and "CLONE_CHILD_SETTID" in clone[0]["args"]["flags"].split("|")
          and "SIGCHLD" in clone[0]["args"]["flags"].split("|"))
sys.exit(not all(ok))' "$W/calls.pid"
}

# The path as passed beside the resolved one, and the directory it was
# relative to: the cwd, then a dirfd.
paths() {
	local wd
	wd=$(cd "$W" && pwd -P)
	as_user mkdir -p sub/data && as_user sh -c 'echo a,b > sub/data/sales.csv' ||
		sg_harness_error "cannot write $W/sub/data/sales.csv"
	sg_run -- sh -c 'cd sub && cat data/sales.csv && "$0" -c "import os; os.open(\"sales.csv\", os.O_RDONLY, dir_fd=os.open(\"data\", os.O_RDONLY))"' "$PY"
	check paths-run-ok test "$SG_RC" = 0
	trail_py paths-relative '
wd = sys.argv[2]
ps = [p for r in recs if r["type"] == "syscall" for p in r.get("paths", [])
      if p["path"] == wd + "/sub/data/sales.csv"]
cwd = [p for p in ps if p.get("path_arg") == "data/sales.csv" and p.get("relative_to") == wd + "/sub"]
dfd = [p for p in ps if p.get("path_arg") == "sales.csv" and p.get("relative_to") == wd + "/sub/data"]
sys.exit(not (cwd and dfd))' "$wd"
	trail_py paths-absolute-no-dir '
ps = [p for r in recs if r["type"] == "syscall" for p in r.get("paths", [])
      if p.get("path_arg", "").startswith("/")]
sys.exit(not ps or any("relative_to" in p for p in ps))'
}

# A bind to port 0 records the port the kernel chose, as the program's own
# getsockname says; so does the bind a listen on an unbound socket makes.
bound() {
	policy listen <<'EOF'
[policy]
default = allow
audit = all

[rule any-port]
syscalls = bind
addr = 0.0.0.0/0, [::]/0
action = allow

[rule listen]
syscalls = listen
action = allow
EOF
	sg_run -r "$P/listen.ini" -- "$PY" -c '
import socket
a = socket.socket(); a.bind(("127.0.0.1", 0))
b = socket.socket(socket.AF_INET6); b.listen()
open("ports", "w").write("%d %d" % (a.getsockname()[1], b.getsockname()[1]))'
	check bound-run-ok test "$SG_RC" = 0
	trail_py bound-ports '
want = [int(p) for p in open(sys.argv[2]).read().split()]
res = {r["ref"]: r for r in recs if r["type"] == "syscall.result"}
got = []
for r in recs:
    if r["type"] == "syscall" and r["syscall"] in ("bind", "listen") and r["seq"] in res:
        got.append(res[r["seq"]].get("bound"))
sys.exit(not (len(got) == 2 and got[0] == {"family": "AF_INET", "ip": "127.0.0.1", "port": want[0]}
              and got[1] == {"family": "AF_INET6", "ip": "::", "port": want[1]} and 0 not in want))' "$W/ports"
	local ports
	read -r -a ports <"$W/ports"
	rep bound "$SG_TRAIL" --pid "$(pid_of 'r.get("syscall") == "bind"')"
	out_has bound-report-bind "  bind fd=[0-9]+ addr=127\.0\.0\.1:0 addrlen=16 = 0  bound 127\.0\.0\.1:${ports[0]}$"
	out_has bound-report-listen "  listen fd=[0-9]+ .* = 0  bound \[::\]:${ports[1]}$"
}

# The final size of each file written, as stat(2) from outside sees it
# after the run; a removed one is said to be gone; an empty one is a
# finding of the report.
final() {
	local wd
	wd=$(cd "$W" && pwd -P)
	sg_run -- sh -c 'mkdir -p fin && echo hello > fin/out.txt && printf abc >> fin/out.txt &&
		: > fin/empty.txt && echo x > fin/gone.txt && rm fin/gone.txt &&
		echo 1234 > fin/keep && echo x > /dev/null && head -c 70000 /dev/zero > fin/big &&
		echo part > fin/tmp.part && mv fin/tmp.part fin/moved'
	check final-run-ok test "$SG_RC" = 0
	trail_py final-sizes '
import os
wd = sys.argv[2] + "/fin/"
fin = {r["path"]: r for r in recs if r["type"] == "file.final"}
seqs = {r["seq"] for r in recs}
ok = True
for name in ("out.txt", "empty.txt", "keep", "big", "moved"):
    r = fin.get(wd + name)
    if not r or r.get("size") != os.stat(wd + name).st_size or r["first_seq"] not in seqs:
        print("bad:", name, r); ok = False
g = fin.get(wd + "gone.txt")
ok = ok and g is not None and g.get("error") == "ENOENT" and "size" not in g
ok = ok and "/dev/null" not in fin and fin[wd + "big"]["size"] == 70000
ok = ok and fin[wd + "tmp.part"].get("error") == "ENOENT" and fin[wd + "moved"]["size"] == 5
last = [r["type"] for r in recs][-len(fin) - 1:]
sys.exit(not (ok and last == ["file.final"] * len(fin) + ["run.end"]))' "$wd"
	rep final "$SG_TRAIL"
	out_has final-report-size "^  $wd/fin/big  70000 bytes  \(first written at record [0-9]+, record [0-9]+\)$"
	out_has final-report-gone "^  $wd/fin/gone.txt  \[ENOENT\]  "
	head_has final-empty-finding 3 "^  1\. file written that ended empty: record [0-9]+, \+[0-9.]+s: $wd/fin/empty.txt \(0 bytes\), first written at record [0-9]+, pid [0-9]+ "
}

# DNS: the name of each query the tree sends, under the default policy,
# in a user, network and mount namespace of its own whose resolver is a
# DNS server on 127.0.0.1:53 that logs what it gets.  A query sent with
# an address (sendto) and the resolver's own (glibc: connect, then
# sendmmsg) are recorded with their names, which the server received;
# a datagram to port 53 that is no query has no dns field.
dns() {
	cat >"$W/dnsserver.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
s.settimeout(20)
open(sys.argv[2], "w").close()
log = open(sys.argv[1], "a")
while True:
    try:
        d, a = s.recvfrom(4096)
    except socket.timeout:
        break
    i, n = 12, []
    while i < len(d) and 0 < d[i] < 64:
        n.append(d[i + 1:i + 1 + d[i]].decode("ascii", "replace"))
        i += 1 + d[i]
    log.write(".".join(n) + "\n")
    log.flush()
    if len(d) >= i + 5:     # NXDOMAIN, the question echoed
        s.sendto(d[:2] + b"\x81\x83" + d[4:6] + b"\0" * 6 + d[12:i + 5], a)
EOF
	cat >"$W/dnsclient.py" <<'EOF'
import socket, struct
q = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0)
q += b"\x06direct\x07example\x04test\x00" + struct.pack(">HH", 16, 1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(q, ("127.0.0.1", 53))
u.sendto(b"not a dns message", ("127.0.0.1", 53))
try:
    socket.getaddrinfo("sales.example.test", 80)
except socket.gaierror:
    pass
EOF
	printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n' >"$W/resolv.test"
	cat >"$W/nswrap.sh" <<EOF
#!/bin/sh
# sysgate ARGS... in namespaces of its own with a DNS server on 127.0.0.1.
exec unshare -Urnm sh -c '
	ip link set lo up && mount --bind $W/resolv.test /etc/resolv.conf || exit 99
	$PY $W/dnsserver.py $W/names $W/ready &
	srv=\$!
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -e $W/ready ] && break; sleep 0.2; done
	$SYSGATE "\$@"
	rc=\$?
	kill \$srv
	exit \$rc' sh "\$@"
EOF
	chmod a+rx "$W/nswrap.sh" && chmod a+r "$W"/dns*.py "$W/resolv.test" && rm -f "$W/names" "$W/ready" ||
		sg_harness_error "cannot write the DNS scripts"
	local real=$SYSGATE
	SYSGATE=$W/nswrap.sh
	sg_run -- "$PY" dnsclient.py
	SYSGATE=$real
	check dns-run-ok test "$SG_RC" = 0
	trail_py dns-names '
got = open(sys.argv[2]).read().split()
sent = [r for r in recs if r["type"] == "syscall" and r["syscall"].startswith("send")]
dns = [(r["syscall"], r["dns"]["name"], r["dns"]["type"]) for r in sent if "dns" in r]
ok = ("sendto", "direct.example.test", "TXT") in dns
ok = ok and any(n == "sales.example.test" and t in ("A", "AAAA") for _, n, t in dns)
ok = ok and all(n in got for _, n, _ in dns) and "direct.example.test" in got
plain = [r for r in sent if r["syscall"] == "sendto" and "dns" not in r]
sys.exit(not (ok and len(plain) == 1))' "$W/names"
	rep dns "$SG_TRAIL" --pid "$(pid_of '"dns" in r')"
	out_has dns-report "  sendto fd=[0-9]+ addr=127\.0\.0\.1:53 buf=0x[0-9a-f]+ len=[0-9]+ flags=0 addrlen=16 = [0-9]+  dns direct\.example\.test TXT$"
}

# run.start says who ran it and with which HOME.
identity() {
	sg_run -- true
	check identity-run-ok test "$SG_RC" = 0
	trail_py identity-run-start '
s = recs[0]
sys.exit(not (s["type"] == "run.start" and s.get("home") == sys.argv[2] and
              s.get("user") == sys.argv[3] and s.get("uid") == int(sys.argv[4]) and
              "run_as" not in s))' "$H" "$(id -un "$U")" "$(id -u "$U")"
	[ "$(id -u "$U")" = 0 ] || return 0
	# --user: the command's user and its home.
	sg_run --user nobody -- true
	check identity-user-run-ok test "$SG_RC" = 0
	trail_py identity-run-as '
s = recs[0]
sys.exit(not (s.get("user") == "root" and s.get("home") == sys.argv[2] and
              s.get("run_as") == {"user": "nobody", "uid": int(sys.argv[3]), "gid": int(sys.argv[4])}))' \
		"$(getent passwd nobody | cut -d: -f6)" "$(id -u nobody)" "$(id -g nobody)"
}

cases() {
	signals
	args
	paths
	bound
	final
	dns
	identity
}

sg_main cases
