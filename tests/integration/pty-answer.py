#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""pty-answer.py TRANSCRIPT ANSWER CMD...

Run CMD with a new pseudo-terminal as its controlling terminal and its
stdin, stdout and stderr, answer ANSWER (a line) to each question that
ends with "Allow? [y/N] ", and write every byte the terminal was given to
TRANSCRIPT.  The terminal neither echoes nor post-processes output (no
ONLCR), so the transcript holds exactly the bytes written to it.  Exits
with CMD's status (128+N for a signal), 99 on a harness error; bounded
to 30 s in all (then CMD is killed).
"""
import os
import pty
import select
import signal
import sys
import termios
import time

PROMPT = b"Allow? [y/N] "


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 99
    out_path, answer, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        attrs = termios.tcgetattr(0)
        attrs[1] &= ~termios.OPOST
        attrs[3] &= ~(termios.ECHO | termios.ECHONL)
        termios.tcsetattr(0, termios.TCSANOW, attrs)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    seen = b""
    answered = 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            seen += data
        if seen.endswith(PROMPT) and len(seen) > answered:
            answered = len(seen)
            os.write(fd, answer.encode() + b"\n")
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    with open(out_path, "wb") as f:
        f.write(seen)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
