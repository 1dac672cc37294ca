#!/bin/sh
# SPDX-License-Identifier: MIT
#
# agent-task.sh: behaves like code an AI coding agent generated for a small
# task.  It writes and tests a little Python project in its working
# directory, then tries a few things such code should not do, and says in
# one line each what happened.  Run it under sysgate:
#
#	mkdir work && cd work && sysgate run -- sh /path/to/agent-task.sh
#
# It is also safe to run without sysgate: it creates files only in its
# working directory, and its probes outside it change nothing (reads, an
# append-open that writes no byte, a connect that sends nothing).
#
# Exit status: 0 when the task itself (the project and its test) worked.

say() { printf 'agent-task: %s\n' "$*"; }

# probe WHAT COMMAND...: run COMMAND, say what happened to WHAT.
tried=0
worked=0
probe() {
	what=$1
	shift
	tried=$((tried + 1))
	if err=$("$@" 2>&1 >/dev/null); then
		worked=$((worked + 1))
		say "$what: it worked"
		return
	fi
	err=$(printf '%s\n' "$err" | tail -n 1)
	case $err in
	*"No such file or directory") say "$what: not present" ;;
	*) say "$what: failed: ${err##*: }" ;;
	esac
}

# shellcheck disable=SC2317 # called through probe
# connect HOST PORT: one TCP connect with a 2-second timeout; prints the
# outcome ("connected", or the error) and fails unless it connected.
connect() {
	python3 - "$1" "$2" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("connected")
except OSError as e:
    print("error: " + (e.strerror or str(e)), file=sys.stderr)
    sys.exit(1)
EOF
}

# loopback: a listener on 127.0.0.1 and a connection to it.
loopback() {
	python3 - <<'EOF'
import socket, sys
try:
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(1)
    c = socket.create_connection(lsn.getsockname(), timeout=2)
    peer, _ = lsn.accept()
    c.sendall(b"ping")
    assert peer.recv(4) == b"ping"
except OSError as e:
    print("error: " + (e.strerror or str(e)), file=sys.stderr)
    sys.exit(1)
EOF
}

# 1. The task: a small project in the working directory.
say "working in $(pwd)"
os=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')
say "system: ${os:-unknown}"

mkdir -p src tests
cat >src/wordcount.py <<'EOF'
"""Count the words of a text."""


def count_words(text):
    return len(text.split())
EOF
cat >tests/test_wordcount.py <<'EOF'
import sys
import unittest

sys.path.insert(0, "src")
from wordcount import count_words  # noqa: E402


class TestCount(unittest.TestCase):
    def test_count(self):
        self.assertEqual(count_words("a b  c\n"), 3)


if __name__ == "__main__":
    unittest.main()
EOF
# shellcheck disable=SC2012 # plain names, listed for the reader
say "project files: $(ls src/*.py tests/*.py | paste -sd ' ' -)"
if python3 -m unittest discover -s tests -q 2>/dev/null; then
	task=0
	say "tests of the project: passed"
else
	task=1
	say "tests of the project: FAILED"
fi
say "functions defined: $(grep -c '^def ' src/wordcount.py)"
say "shell says: $(sh -c 'echo hello from a child shell')"

# 2. Things generated code should not do.
probe "read ~/.ssh/id_rsa" cat "$HOME/.ssh/id_rsa"
probe "read /etc/shadow" cat /etc/shadow
# Opened for appending, nothing written: nothing changes even if it works.
probe "open /etc/passwd for writing" sh -c ': >>/etc/passwd'
if [ -f "$HOME/.bashrc" ]; then
	# shellcheck disable=SC2016 # $HOME is expanded by the child shell
	probe "open ~/.bashrc for writing" sh -c ': >>"$HOME/.bashrc"'
else
	say "open ~/.bashrc for writing: not tried (no such file)"
fi
# 203.0.113.1 is TEST-NET-3 (RFC 5737), reserved for documentation.
probe "connect to 203.0.113.1:80" connect 203.0.113.1 80

# 3. Loopback networking is fine for a test suite.
if err=$(loopback 2>&1); then
	say "a server and a client on 127.0.0.1: it worked"
else
	err=$(printf '%s\n' "$err" | tail -n 1)
	say "a server and a client on 127.0.0.1: failed: ${err##*: }"
fi

if [ "$task" -eq 0 ]; then
	say "done: the task succeeded; $worked of the $tried things it should not do worked"
else
	say "done: the task FAILED; $worked of the $tried things it should not do worked"
fi
exit "$task"
