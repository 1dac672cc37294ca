#!/bin/bash
# SPDX-License-Identifier: MIT
# Well-behaved programs doing real work in their working directory run
# under the built-in default policy without a single denial: a python
# project running its unit tests, git, a C build with make, a venv, POSIX
# shared memory, sqlite, the usual shell tools.
. "$(dirname "$0")/lib.sh"
sg_init

# The trail of a real task: no deny, no kill, and it is well formed.
CLEAN="--valid; --type syscall --action deny --count 0; --type syscall --action kill --count 0"

make_python_project() {
	mkdir -p "$W/proj/mypkg" "$W/proj/tests"
	cat >"$W/proj/mypkg/__init__.py" <<'EOF'
from .core import add, save_json, load_json
EOF
	cat >"$W/proj/mypkg/core.py" <<'EOF'
import json


def add(a, b):
    return a + b


def save_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def load_json(path):
    with open(path) as f:
        return json.load(f)
EOF
	: >"$W/proj/tests/__init__.py"
	cat >"$W/proj/tests/test_core.py" <<'EOF'
import os
import subprocess
import tempfile
import unittest

import mypkg


class CoreTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(mypkg.add(2, 3), 5)

    def test_json_in_tempdir(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.json")
            mypkg.save_json(p, {"a": [1, 2]})
            self.assertEqual(mypkg.load_json(p), {"a": [1, 2]})

    def test_json_in_cwd(self):
        mypkg.save_json("out.json", [1])
        self.assertEqual(mypkg.load_json("out.json"), [1])
        os.unlink("out.json")

    def test_subprocess(self):
        out = subprocess.run(["echo", "hi"], capture_output=True, text=True)
        self.assertEqual(out.stdout, "hi\n")

    def test_tempfile(self):
        with tempfile.NamedTemporaryFile("w+") as f:
            f.write("x")
            f.flush()
            self.assertTrue(os.path.exists(f.name))


if __name__ == "__main__":
    unittest.main()
EOF
}

make_c_project() {
	mkdir -p "$W/cbuild"
	cat >"$W/cbuild/util.h" <<'EOF'
int twice(int x);
EOF
	cat >"$W/cbuild/util.c" <<'EOF'
#include "util.h"
int twice(int x) { return 2 * x; }
EOF
	cat >"$W/cbuild/main.c" <<'EOF'
#include <stdio.h>
#include "util.h"
int main(void) { printf("%d\n", twice(21)); return twice(21) == 42 ? 0 : 1; }
EOF
	printf 'CFLAGS = -O2 -Wall\nprog: main.o util.o\n\t$(CC) -o $@ main.o util.o\nmain.o util.o: util.h\nclean:\n\trm -f prog *.o\n' \
		>"$W/cbuild/Makefile"
}

cases() {
	make_python_project
	make_c_project
	[ "$U" = root ] || chown -R "$U:" "$W" "$H"

	c python-unittest       - 0 "$CLEAN" \
		sh -c 'cd proj && /usr/bin/python3 -m unittest -v'
	check python-unittest-ran grep -q "Ran 5 tests" "$SG_ERR"
	c python-pycache        - 0 "$CLEAN" \
		sh -c 'cd proj && /usr/bin/python3 -c "import mypkg" && test -d mypkg/__pycache__'
	c git-init-commit       - 0 "$CLEAN" \
		sh -c 'mkdir repo && cd repo && git init -q && echo hi > a.txt && git add -A && git commit -qm init && git log --oneline | grep -q init && git status --short'
	c git-branch-diff       - 0 "$CLEAN" \
		sh -c 'cd repo && git checkout -qb topic && echo more >> a.txt && git diff --stat && git commit -qam more && git checkout -q main && git merge -q topic && git gc -q'
	c make-c-build          - 0 "$CLEAN" \
		sh -c 'make -C cbuild && ./cbuild/prog && make -C cbuild clean'
	c cc-direct             - 0 "$CLEAN" \
		sh -c 'cc -o cbuild/p2 cbuild/main.c cbuild/util.c && ./cbuild/p2'
	SG_TIMEOUT=120 \
	c python-venv           - 0 "$CLEAN" \
		sh -c "/usr/bin/python3 -m venv v && v/bin/python -c 'import json, sys; assert sys.prefix.endswith(\"/v\")'"
	c shm-python            - 0 "$CLEAN" \
		/usr/bin/python3 -c '
from multiprocessing import shared_memory
m = shared_memory.SharedMemory(create=True, size=4096)
m.buf[:5] = b"hello"
n = shared_memory.SharedMemory(name=m.name)
assert bytes(n.buf[:5]) == b"hello"
n.close(); m.close(); m.unlink()'
	c multiprocessing-pool  - 0 "$CLEAN" \
		/usr/bin/python3 -c '
import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    with mp.Pool(2) as p:
        assert p.map(sq, range(10)) == [x * x for x in range(10)]
    l = mp.Lock(); l.acquire(); l.release()'
	c shm-c                 - 0 "$CLEAN" sh -c "cp '$B/try-shm' ./try-shm && ./try-shm /sysgate-real-$$-$U"
	c mkdir-p-absolute      - 0 "$CLEAN" mkdir -p "$W/a/b/c"
	c sqlite                - 0 "$CLEAN" \
		/usr/bin/python3 -c '
import sqlite3
c = sqlite3.connect("db.sqlite"); c.execute("create table t(x)")
c.execute("insert into t values (1)"); c.commit()
assert c.execute("select x from t").fetchone() == (1,)'
	c python-tempfiles      - 0 "$CLEAN" \
		/usr/bin/python3 -c '
import os, tempfile
fd, p = tempfile.mkstemp(); os.write(fd, b"x"); os.close(fd); os.unlink(p)
d = tempfile.mkdtemp(); os.rmdir(d)
assert tempfile.gettempdir() == os.environ["TMPDIR"]'
	c shell-tools           - 0 "$CLEAN" \
		sh -c 'set -e; mkdir st; cd st; mkdir -p t/d; echo b > t/d/f; echo a >> t/d/f; sort t/d/f > t/sorted; sed -i s/a/A/ t/sorted
			grep -q A t/sorted; find t -name f | grep -q f; tar czf t.tgz t; mkdir u; tar xzf t.tgz -C u
			cp -a u v; mv v w; ln -s w/t/sorted lnk; cat lnk >/dev/null; chmod +x t/sorted; touch -d 2000-01-01 t/sorted
			du -s t >/dev/null; ls -la / /usr /etc >/dev/null; rm -rf t u w lnk t.tgz
			echo x > /dev/null; date > "$TMPDIR/d"; cat "$TMPDIR/d" >/dev/null; head -c 10 /dev/urandom >/dev/null'
}

sg_main cases
