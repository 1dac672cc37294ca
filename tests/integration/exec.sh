#!/bin/bash
# SPDX-License-Identifier: MIT
# Exec rules: a forbidden exec fails (exit 126 when it is the command
# itself, EACCES for a child), nothing of the forbidden program runs, the
# canonical path decides (symlinks), and proc.exec records the program.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy exec <<EOF
[policy]
default = allow
audit = all

[rule no-exec-outside]
syscalls = @exec
path = $O/**
action = deny
errno = EACCES
EOF
	policy exec-kill <<EOF
[policy]
default = allow

[rule kill-exec]
syscalls = execve, execveat
path = $O/**
action = kill
EOF
	cp "$B/exit-with" "$O/exit-with"
	printf '#!/bin/sh\ntouch "%s/marker-$1"\nexit 0\n' "$W" >"$O/mark.sh"
	chmod 0755 "$O/mark.sh"
	ln -sf "$O/exit-with" "$W/exit-link"
	# A directory link and a chain of links in an absolute path (the
	# kernel may follow them for the supervisor: resolve.c jump_follow).
	ln -sfn "$O" "$W/outside-link"
	ln -sfn exit-link "$W/exit-link2"
	ln -sfn "$B" "$W/bin-link"
	printf '#!/bin/sh\nexit 9\n' >"$W/script.sh"
	chmod 0755 "$W/script.sh"
	[ "$U" = root ] || chown -R "$U:" "$W" "$O"
	native 0 "$O/mark.sh" native
	rm -f "$W/marker-native"

	c exec-denied-cmd       exec 126    "--type syscall --path $O/exit-with --action deny --rule no-exec-outside --errno EACCES" \
		"$O/exit-with" 0
	c exec-denied-script    exec 126    "--type syscall --path $O/mark.sh --action deny --rule no-exec-outside" \
		"$O/mark.sh" cmd
	check exec-denied-script-did-not-run test ! -e "$W/marker-cmd"
	c exec-denied-child     exec EACCES "--type syscall --path $O/exit-with --action deny --rule no-exec-outside --errno EACCES" \
		"$B/try-exec" "$O/exit-with" 0
	c exec-denied-child-sh  exec 126    "--path $O/mark.sh --action deny --rule no-exec-outside" \
		sh -c "'$O/mark.sh' sh"
	check exec-denied-child-did-not-run test ! -e "$W/marker-sh"
	c exec-denied-via-symlink exec EACCES "--path $O/exit-with --action deny --rule no-exec-outside" \
		"$B/try-exec" "$W/exit-link" 0
	c exec-denied-via-dotdot exec EACCES "--path $O/exit-with --action deny" \
		"$B/try-exec" "$W/../outside/exit-with" 0
	c exec-denied-via-dir-link exec EACCES "--path $O/exit-with --action deny --rule no-exec-outside" \
		"$B/try-exec" "$W/outside-link/exit-with" 0
	c exec-denied-via-link-chain exec EACCES "--path $O/exit-with --action deny --rule no-exec-outside" \
		"$B/try-exec" "$W/exit-link2" 0
	c exec-allowed-via-dir-link exec 7 "--type proc.exec --path $B/exit-with" \
		"$W/bin-link/exit-with" 7
	c exec-denied-python    exec 13     "--path $O/exit-with --action deny" \
		$PY -c 'import os,sys
try:
    os.execv(sys.argv[1], [sys.argv[1], "0"])
except OSError as e:
    sys.exit(e.errno)' "$O/exit-with"
	c exec-denied-env       exec 126    "--path $O/exit-with --action deny" \
		env "$O/exit-with" 0
	c exec-allowed          exec 7      "--type proc.exec --path $B/exit-with --argv [\"$B/exit-with\",\"7\"]" \
		"$B/try-exec" "$B/exit-with" 7
	c exec-allowed-script   exec 9      "--type syscall --syscall execve --path $W/script.sh --action allow; --type proc.exec --field argv.1=\"$W/script.sh\"" \
		"$W/script.sh"
	c exec-allowed-sh-chain exec 3      "--type proc.exec --argv0 sh --min 1" \
		sh -c 'sh -c "exit 3"'
	# proc.exec's argv is what the kernel gave the program, read at the
	# exec stop: from its new stack for an ordinary command, from /proc
	# when an environment or argv too large for that read pushes the
	# strings (or AT_EXECFN, checked against the path decided) beyond it.
	# (Audit queries split words at spaces: tabs stand in for them.)
	c exec-argv-exact       exec 4      "--type proc.exec --path /usr/bin/dash --argv [\"/bin/sh\",\"-c\",\"exit\\t4\",\"\",\"a\\tb\",\"\"]" \
		"$B/try-exec" /bin/sh -c $'exit\t4' '' $'a\tb' ''
	c exec-argv-big-env     exec 5      "--type proc.exec --path /usr/bin/dash --argv [\"/bin/sh\",\"-c\",\"exit\\t5\",\"x\\ty\"]" \
		env "BIG=$(head -c 70000 /dev/zero | tr '\0' e)" "$B/try-exec" /bin/sh -c $'exit\t5' $'x\ty'
	c exec-argv-huge        exec 6      "--type proc.exec --path /usr/bin/dash --field argv.2=\"exit\\t6\" --field argv.0=\"/bin/sh\"" \
		"$B/try-exec" /bin/sh -c $'exit\t6' "$(head -c 100000 /dev/zero | tr '\0' h)"
	check exec-argv-huge-cut $PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
a = [x["argv"] for x in r if x["type"] == "proc.exec" and x["path"] == "/usr/bin/dash"][0]
sys.exit(not (len("\0".join(a)) == 65536 and set(a[3]) == {"h"}))' "$SG_TRAIL"
	# argc 0: the kernel gives the program an argv of one empty string.
	c exec-argv-none        exec 0      "--type proc.exec --path /usr/bin/true --argv [\"\"]" \
		$PY -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
none = (ctypes.c_char_p * 1)(None)
libc.execve(sys.argv[1].encode(), none, none)
sys.exit(ctypes.get_errno())' /bin/true
	c exec-kill             exec-kill "sig:KILL|sig:SYS" "--type syscall --path $O/mark.sh --action kill --rule kill-exec" \
		"$O/mark.sh" kill
	check exec-kill-did-not-run test ! -e "$W/marker-kill"
	c exec-kill-child       exec-kill 0 "--path $O/exit-with --action kill" \
		sh -c "'$B/try-exec' '$O/exit-with' 0; echo \$? > '$W/kill-status'"
	check exec-kill-child-status grep -Eqx '137|159' "$W/kill-status"
	# Code without a name: an exec of a memfd is decided as memfd:NAME,
	# and the default policy, which runs installed programs only,
	# refuses it.
	local mf='import os, sys
fd = os.memfd_create("payload")
os.write(fd, open("/bin/true", "rb").read())
try:
    os.execve(fd, ["payload"], {})
except PermissionError:
    sys.exit(13)'
	c exec-memfd-default    -    EACCES "--type syscall --syscall execveat --path memfd:payload --access exec --action deny --rule no-other-exec" \
		/usr/bin/python3 -c "$mf"
	policy memfd-ok <<'EOF'
[policy]
default = allow
audit = all

[rule payloads]
syscalls = @exec
path = memfd:pay*
action = allow
EOF
	c exec-memfd-allowed    memfd-ok 0 "--type syscall --syscall execveat --path memfd:payload --action allow --rule payloads; --type proc.exec" \
		/usr/bin/python3 -c "$mf"
	# A policy filter of hundreds of instructions (a kernel-decided deny per
	# syscall the victim does not make) reaches the command whole:
	# the supervisor hands both filters to the child through a pipe.
	{
		printf '[policy]\ndefault = allow\n\n[rule many]\n'
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$/\1 \2/p' \
			/usr/include/x86_64-linux-gnu/asm/unistd_64.h |
			awk '$2 < 440 && $1 !~ /^(read|write|open|openat|close|exit|exit_group|execve|mmap|munmap|mprotect|brk|fstat|newfstatat|arch_prctl|set_tid_address|set_robust_list|rseq|prlimit64|getrandom|pread64|access|rt_sig.*|seccomp|prctl|futex|clone|clone3|fork|vfork|wait4|ioctl|fcntl|kill|tkill|tgkill|pidfd_send_signal|setpgid|chdir|fchdir|readlink|statx|faccessat2|getcwd|lseek|poll|sysinfo|uname|getpid|gettid|getuid|geteuid|getgid|getegid)$/ { print "syscalls = " $1 }'
		printf 'action = deny\nerrno = ENOSYS\n'
	} | policy many-denials
	c exec-large-filter     many-denials 7 "--valid; --type proc.exec --path $B/exit-with" \
		"$B/exit-with" 7
}

sg_main cases
