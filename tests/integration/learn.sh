#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate learn round trip, on three workloads (a shell script with
# coreutils, a python3 script using json/pathlib/tempfile, a make build of
# a two-file C program): observe under a policy that records everything,
# learn, run again under the learned policy: no denial; then a variant
# that reads a secret or writes outside the tree: denied.  Also --diff and
# --base.  A trail that does not verify is refused (exit 125, the reason
# said, no policy written) unless --unverified, which warns: what a forged
# record claims would otherwise be allowed.
. "$(dirname "$0")/lib.sh"
sg_init

NODENY="--type syscall --action deny --count 0"

# learn NAME TRAIL...: $P/NAME.ini from the trails (as the user).
learn() {
	local name=$1
	shift
	sg_raw learn "$@" -o "$P/$name.ini"
	check "learn-$name" test "$SG_RC" = 0
	check "learn-$name-loads" "$SYSGATE" check "$P/$name.ini"
}

cases() {
	policy observe <<EOF
[policy]
default = allow
audit = all
[rule observe-files]
syscalls = @file
action = allow
[rule observe-exec]
syscalls = @exec
action = allow
[rule observe-network]
syscalls = @network
action = allow
EOF
	local S=$H/.ssh/id_rsa

	# --- 1. a shell script with coreutils, writing in the cwd.
	cat >"$W/work.sh" <<'EOF'
set -e
mkdir -p out
for i in 1 2 3; do echo "line $i" > "out/f$i.txt"; done
cat out/f*.txt | sort > out/all.txt
wc -l out/all.txt
cp out/all.txt out/copy.txt
rm out/f1.txt
ls /proc/self/fd > /dev/null
EOF
	[ "$U" = root ] || chown -R "$U:" "$W"
	rm -rf "$W/out"
	c sh-observe observe 0 - sh work.sh
	local T1=$SG_TRAIL
	learn sh "$T1"
	# out/ is made by the run: one rule for what is below it.
	check sh-made-dir grep -q 'path = ${CWD}/out/\*\* ' "$P/sh.ini"
	check sh-made-dir-no-file bash -c "! grep -q 'out/all.txt' '$P/sh.ini'"
	check sh-proc-pid grep -q 'path = /proc/\*/fd' "$P/sh.ini"
	check sh-counts grep -q '^; [0-9]* creates in 1 run' "$P/sh.ini"
	rm -rf "$W/out"
	c sh-replay sh 0 "$NODENY" sh work.sh
	c sh-replay-again sh 0 "$NODENY" sh work.sh
	c sh-secret sh 1 "--path $S --action deny --rule no-secrets" \
		sh -c "cat '$S'"
	c sh-outside sh 2 "--path $O/x --action deny" sh -c "echo x > '$O/x'"
	c sh-other-exec sh 126 "--type syscall --action deny" /usr/bin/id

	# --- a trail that does not verify: a path edited in its records.
	sg_raw learn "$T1" -o "$P/clean.ini"
	check verified-no-warning bash -c "! grep -q 'verify' '$SG_ERR'"
	local F=$R/forged.jsonl
	sed 's|work.sh|forged.sh|g' "$T1" >"$F"
	check forged-differs sh -c "! cmp -s '$T1' '$F'"
	rm -f "$P/forged.ini"
	sg_raw learn "$F" -o "$P/forged.ini"
	check forged-refused test "$SG_RC" = 125
	check forged-says-why grep -Eq "$F does not verify: record [0-9]+ \(line [0-9]+\): hash does not match its content: edited \(--unverified" "$SG_ERR"
	check forged-no-policy test ! -e "$P/forged.ini"
	sg_raw learn --unverified "$F" -o "$P/forged.ini"
	check forged-unverified-status test "$SG_RC" = 0
	check forged-unverified-warns grep -q "WARNING: $F does not verify: .*learning from it anyway" "$SG_ERR"
	check forged-unverified-learned grep -q 'path = ${CWD}/forged.sh' "$P/forged.ini"
	sg_raw learn "$T1" "$F" -o "$P/forged.ini"
	check forged-among-good-refused test "$SG_RC" = 125

	# --- 2. python3: json, pathlib, tempfile.
	cat >"$W/work.py" <<'EOF'
import json, pathlib, tempfile
d = pathlib.Path("data")
d.mkdir(exist_ok=True)
(d / "in.json").write_text(json.dumps({"a": [1, 2, 3]}))
v = json.loads((d / "in.json").read_text())
with tempfile.NamedTemporaryFile("w", delete=False) as t:
    t.write(str(v))
with tempfile.TemporaryDirectory() as td:
    (pathlib.Path(td) / "x").write_text("x")
(d / "out.json").write_text(json.dumps(sum(v["a"])))
# Changes through an fd: a file of the tree, and files without a name (a
# pipe, a memfd, a deleted file), which learn takes by kind.
import os
with open(d / "out.json") as f:
    os.fchmod(f.fileno(), 0o640)
r, w = os.pipe()
os.fchmod(r, 0o600)
m = os.memfd_create("learn-me")
os.fchmod(m, 0o600)
with open(d / "gone", "w") as g:
    os.unlink(d / "gone")
    os.utime(g.fileno(), (1, 1))
# chattr +A of a file it only reads: decided (and learned) as fchmod.
import fcntl, struct
with open("work.py") as f:
    fl = struct.unpack("i", fcntl.ioctl(f, 0x80086601, b"\0" * 4))[0]
    fcntl.ioctl(f, 0x40086602, struct.pack("i", fl | 0x80))
print(sum(v["a"]))
EOF
	[ "$U" = root ] || chown -R "$U:" "$W"
	rm -rf "$W/data"
	c py-observe observe 0 - /usr/bin/python3 work.py
	learn py "$SG_TRAIL"
	check py-tmpdir grep -q 'path = ${TMPDIR}/\*\*' "$P/py.ini"
	rm -rf "$W/data"
	check py-nameless grep -q 'path = pipe:\*' "$P/py.ini"
	check py-nameless-memfd grep -q 'path = memfd:\*' "$P/py.ini"
	check py-nameless-deleted grep -q 'path = deleted:/\*\*' "$P/py.ini"
	c py-replay py 0 "$NODENY" /usr/bin/python3 work.py
	c py-replay-again py 0 "$NODENY" /usr/bin/python3 work.py
	c py-secret py 1 "--path $S --action deny" \
		/usr/bin/python3 -c "open('$S').read()"
	c py-outside py 1 "--path $O/y --action deny" \
		/usr/bin/python3 -c "open('$O/y', 'w')"

	# --- code without a name: an exec of a memfd is learned by its name,
	# never as a kind (memfd:*).
	local mf='import os, sys
fd = os.memfd_create(sys.argv[1])
os.write(fd, open("/bin/true", "rb").read())
try:
    os.execve(fd, [sys.argv[1]], {})
except PermissionError:
    sys.exit(13)'
	c memfd-observe observe 0 - /usr/bin/python3 -c "$mf" payload
	learn memfd "$SG_TRAIL"
	check memfd-exec-named grep -q '^path = memfd:payload ' "$P/memfd.ini"
	check memfd-exec-no-kind bash -c "! grep -q '^path = memfd:\*' '$P/memfd.ini'"
	c memfd-replay memfd 0 "$NODENY" /usr/bin/python3 -c "$mf" payload
	c memfd-other memfd EACCES "--type syscall --syscall execveat --path memfd:other --action deny" \
		/usr/bin/python3 -c "$mf" other

	# --- 3. make, building a two-file C program.
	mkdir -p "$W/build"
	printf 'int f(void);\nint main(void) { return f(); }\n' >"$W/build/main.c"
	printf 'int f(void) { return 0; }\n' >"$W/build/f.c"
	printf 'prog: main.o f.o\n\tcc -o prog main.o f.o\n%%.o: %%.c\n\tcc -c -o $@ $<\nclean:\n\trm -f prog *.o\n' \
		>"$W/build/Makefile"
	[ "$U" = root ] || chown -R "$U:" "$W"
	c make-observe observe 0 - make -s -C build
	local T3=$SG_TRAIL
	learn make "$T3"
	as_user make -s -C build clean
	c make-replay make 0 "$NODENY" make -s -C build
	as_user make -s -C build clean
	c make-replay-again make 0 "$NODENY" make -s -C build
	c make-secret make 2 "--path $S --action deny" make -s -C build -f "$S"

	# --- 4. learn generalises: git init, commit and a build into
	# directories the run makes, with mkstemp and tempfile names.  The
	# same task in a new directory, and a second similar one, run under
	# the learned policy with no denial; a secret stays out.
	cat >"$T/task.sh" <<'EOF'
set -e
git init -q repo
cd repo
echo "$1" >a.txt
mkdir -p src
for f in $2; do echo "int $f(void) { return 0; }" >"src/$f.c"; done
printf 'int main(void) { return 0; }\n' >src/main.c
git add -A
git commit -q -m "task $1"
mkdir -p build
cc -o build/prog src/*.c
t=$(mktemp build/obj.XXXXXX)
echo x >"$t"
rm -f "$t"
python3 -c "import tempfile; f = tempfile.NamedTemporaryFile(dir='.', delete=False); f.write(b'x')"
git describe --always >/dev/null
./build/prog
EOF
	chmod 0644 "$T/task.sh"
	local W0=$W
	mkdir -p "$W0/t1" "$W0/t2" "$W0/t3"
	[ "$U" = root ] || chown -R "$U:" "$W0"
	W=$W0/t1
	c task-observe observe 0 - sh "$T/task.sh" one "f g"
	learn task "$SG_TRAIL"
	check task-git-store grep -q '^path = ${CWD}/repo/\*\* ' "$P/task.ini"
	check task-keeps-env grep -q '^\[env\]' "$P/task.ini"
	check task-keeps-secrets grep -q '^\[rule no-secrets\]' "$P/task.ini"
	check task-no-objects bash -c "! grep -q 'objects/[0-9a-f][0-9a-f]/' '$P/task.ini'"
	W=$W0/t2
	c task-new-dir task 0 "$NODENY" sh "$T/task.sh" one "f g"
	W=$W0/t3
	c task-second task 0 "$NODENY" sh "$T/task.sh" "second run" "h i j"
	c task-secret task 2 "--path $S --action deny --rule no-secrets" \
		sh -c "read x < '$S'"
	W=$W0
	# Made-up names as globs, without a created directory: mkstemp and
	# tempfile names in the cwd, a pyc temp name, git's objects.
	cat >"$W/names.sh" <<'EOF'
t=$(mktemp made.XXXXXX) && rm "$t"
python3 -c "import os, sys; n = 'excl.' + sys.argv[1]; os.close(os.open(n, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)); os.unlink(n)" "$1"
python3 -c "import tempfile; tempfile.mkstemp(dir='.')"
echo x >mod.cpython-311.pyc.1402345678
rm -f tmp* mod.cpython-311.pyc.*
cd pre && date +%N >f && git add f && git commit -q -m "$(date +%N)"
EOF
	[ "$U" = root ] || chown "$U:" "$W/names.sh"
	# A repository the run did not make: its object store is a glob.
	rm -rf "$W/pre"
	as_user sh -c 'git init -q pre && git -C pre commit -q --allow-empty -m init' ||
		sg_harness_error "git init failed"
	# excl.WORD: made as mkstemp makes them (O_EXCL, 0600), so made up
	# even when the name looks like a word.
	c names-observe observe 0 - sh names.sh status
	learn names "$SG_TRAIL"
	check names-mkstemp grep -q '^path = ${CWD}/made\.\* ' "$P/names.ini"
	check names-tempfile grep -q '^path = ${CWD}/tmp\* ' "$P/names.ini"
	check names-pyc grep -q '^path = ${CWD}/mod.cpython-311.pyc.\* ' "$P/names.ini"
	check names-excl grep -q '^path = ${CWD}/excl.\* ' "$P/names.ini"
	check names-excl-no-word bash -c "! grep -q 'excl.status' '$P/names.ini'"
	check names-git-objects grep -q '^path = ${CWD}/pre/.git/objects/\*\* ' "$P/names.ini"
	check names-no-object-names bash -c "! grep -q 'objects/[0-9a-f][0-9a-f]/' '$P/names.ini'"
	c names-replay names 0 "$NODENY" sh names.sh README
	c names-replay-again names 0 "$NODENY" sh names.sh backup

	# --- several trails at once; --diff against the shell policy.
	learn all "$T1" "$T3"
	check all-two-runs grep -q '^; Learned by sysgate learn from 2 runs' "$P/all.ini"
	sg_raw learn "$T3" --diff "$P/sh.ini"
	check diff-status test "$SG_RC" = 0
	check diff-lists-make grep -q '^+ exec /usr/bin/make' "$SG_OUT"
	check diff-not-shared bash -c "! grep -q '^+ exec /usr/bin/dash' '$SG_OUT'"
	# --base: the base policy is included after the learned rules.
	sg_raw learn "$T1" --base default -o "$P/based.ini"
	check base-status test "$SG_RC" = 0
	check base-include grep -q '^include = default' "$P/based.ini"
	check base-loads "$SYSGATE" check "$P/based.ini"
	sg_raw learn "$T1" --diff "$P/sh.ini"
	check diff-none grep -q 'not by .*: 0$' "$SG_OUT"
}

sg_main cases
