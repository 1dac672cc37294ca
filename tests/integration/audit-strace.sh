#!/bin/bash
# SPDX-License-Identifier: MIT
# Completeness against a peer: the same workloads (a shell script that
# forks and execs; a python script touching files and sockets, with a
# loopback listener of its own) run under `strace -f` and under sysgate
# with audit = all and rules naming @file, @stat, @exec and @network.  Every
# file, exec and network call that sysgate mediates (the PATH, EXEC and
# NET kinds of rules/syscalls.c) and strace saw must be in the trail with
# the same path and the same result, and the trail must hold no other.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
COMPARE="$SG_LIB_DIR/audit-compare.py"
SYSCALLS_C="${srcdir:-$SG_LIB_DIR/../..}/rules/syscalls.c"
[ -r "$SYSCALLS_C" ] || sg_harness_error "cannot read $SYSCALLS_C (set srcdir)"
command -v strace >/dev/null || sg_harness_error "strace(1) is missing"
# The python under test: the system's, not a shim that execs another.
PYW=/usr/bin/python3

# compare NAME EXPECT CMD...: run CMD in a fresh $W/wl under strace and
# under sysgate, then compare.
compare() {
	local name=$1 expect=$2
	shift 2
	local st=$R/$name.strace
	rm -rf "$W/wl"
	mkdir "$W/wl"
	[ "$U" = root ] || chown "$U" "$W/wl"
	(cd "$W/wl" && "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		USER="$U" LOGNAME="$U" LANG=C.UTF-8 \
		timeout -k 5 60 strace -f -ff -xx -s 4096 \
		-e trace=%file,%process,%network -o "$st" \
		env PYTHONDONTWRITEBYTECODE=1 "$@") \
		>"$R/$name.strace-out" 2>&1 </dev/null
	local st_rc=$?

	rm -rf "$W/wl"
	mkdir "$W/wl"
	[ "$U" = root ] || chown "$U" "$W/wl"
	local W0=$W
	W=$W/wl
	sg_run -q -r "$P/all.ini" -- env PYTHONDONTWRITEBYTECODE=1 "$@"
	W=$W0
	check "$name-same-status-($st_rc)" test "$SG_RC" = "$st_rc"
	if $PY "$COMPARE" "$SYSCALLS_C" "$st" "$SG_TRAIL" --expect "$expect" \
		>"$R/$name.compare" 2>&1; then
		SG_ERR= sg_report_pass "$name-trail-matches-strace"
	else
		SG_ERR= sg_report_fail "$name-trail-matches-strace" \
			"$(cat "$R/$name.compare")" "strace: $st.*" "trail: $SG_TRAIL"
	fi
	sed -n '1s/^/#   /p' "$R/$name.compare"
}

cases() {
	policy all <<'EOF'
[policy]
default = allow
audit = all

[rule files]
syscalls = @file, @stat
action = allow

[rule programs]
syscalls = @exec
action = allow

[rule network]
syscalls = @network
action = allow
EOF
	# env(1) is in both runs: it execs the workload the same way.
	cat >"$P/workload.sh" <<'EOF'
echo hi > a.txt
cat a.txt > b.txt
mkdir -p d1/d2
mv b.txt d1/c.txt
ln -s a.txt sl
ln a.txt hl
cat sl hl > /dev/null
chmod 600 a.txt
cat missing.txt 2>/dev/null
(cd d1 && cat c.txt > ../e.txt)
sh -c 'exec cat /etc/hostname' > /dev/null
/nonexistent/prog 2>/dev/null
./a.txt 2>/dev/null
true | cat > /dev/null
for i in 1 2 3; do : > "f$i"; done
rm -rf d1 sl hl f1 f2 f3
rmdir nothere 2>/dev/null
rm -f a.txt e.txt
exit 0
EOF
	cat >"$P/workload.py" <<'EOF'
import os, socket, subprocess
os.mkdir("pd")
with open("pd/f1", "w") as f:
    f.write("x")
os.rename("pd/f1", "pd/f2")
os.link("pd/f2", "pd/f3")
os.symlink("f2", "pd/f4")
os.chmod("pd/f2", 0o600)
os.truncate("pd/f2", 0)
fd = os.open("pd", os.O_RDONLY | os.O_DIRECTORY)
os.open("f5", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd)
try:
    os.open("f5", os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=fd)
except FileExistsError:
    pass
try:
    open("pd/none")
except FileNotFoundError:
    pass
for n in ("f2", "f3", "f4", "f5"):
    os.unlink("pd/" + n)
# A loopback listener of its own, a connect to it, a refused one.
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
c = socket.socket()
c.connect(srv.getsockname())
a, _ = srv.accept()
a.close(); c.close(); srv.close()
s = socket.socket()
s.connect_ex(("127.0.0.1", 1))
s.close()
try:
    s6 = socket.socket(socket.AF_INET6)
    s6.bind(("::1", 0))
    s6.close()
except OSError:
    pass
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"x", r.getsockname())
s.sendmsg([b"y"], [], 0, r.getsockname())
s.connect(r.getsockname())
s.send(b"z")
s.sendmsg([b"w"])
s.close(); r.close()
u = socket.socket(socket.AF_UNIX)
u.bind("pd/sock")
u.listen(1)
v = socket.socket(socket.AF_UNIX)
v.connect("pd/sock")
v.close(); u.close()
os.unlink("pd/sock")
v = socket.socket(socket.AF_UNIX)
try:
    v.connect("pd/sock")
except OSError:
    pass
v.close()
os.rmdir("pd")
subprocess.run(["/bin/true"])
# Execs the kernel refuses after the path checks: not a format it knows.
with open("junk", "wb") as f:
    f.write(b"\x7fELF" + bytes(60))
os.chmod("junk", 0o755)
try:
    subprocess.run(["./junk"])
except OSError:
    pass
os.unlink("junk")
EOF
	chmod a+r "$P/workload.sh" "$P/workload.py"
	compare shell openat,execve,unlinkat,renameat2,mkdir,symlinkat,linkat,fchmodat \
		/bin/sh "$P/workload.sh"
	compare python openat,execve,unlink,rename,mkdir,link,symlink,chmod,truncate,connect,bind,rmdir,sendto,sendmsg \
		"$PYW" -I "$P/workload.py"
}

sg_main cases
