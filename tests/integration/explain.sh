#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate check POLICY --explain CALL: the rules tried in order and why
# each did not match, the deciding rule, the mechanism (kernel or
# notification); and the warnings of sysgate check: a rule that can never
# match, a literal path that does not exist.
. "$(dirname "$0")/lib.sh"
sg_init

# has NAME PATTERN: the last command's stdout has a line matching PATTERN.
has() {
	check "$1" grep -qE -- "$2" "$SG_OUT"
}
hasnt() {
	check "$1" bash -c '! grep -qE -- "$1" "$2"' _ "$2" "$SG_OUT"
}

cases() {
	policy ex <<EOF
[policy]
default = allow
[rule no-aws]
syscalls = @file
path = \${HOME}/.aws/**
action = deny
errno = EACCES
[rule no-writes]
syscalls = openat
access = write, create
action = deny
[rule loopback]
syscalls = connect
addr = 127.0.0.0/8, unix:/run/**
action = allow
[rule no-net]
syscalls = connect
action = deny
errno = ENETUNREACH
[rule no-ptrace]
syscalls = ptrace
action = deny
audit = no
[rule quiet-kill]
syscalls = kill
arg1 = 9
action = deny
EOF
	sg_raw check "$P/ex.ini" --explain "openat $H/.ssh/id_rsa read"
	check explain-status test "$SG_RC" = 0
	has explain-path-no "rule 'no-aws' \\(line 3\\): no: path $H/.ssh/id_rsa does not match $H/.aws/\\*\\*"
	has explain-access-no "rule 'no-writes' \\(line 8\\): no: access read is not in write, create"
	has explain-syscall-no "rule 'loopback' \\(line 12\\): no: does not name openat"
	has explain-default "^decision: allow by the policy default"
	has explain-notify "^mechanism: notification"
	sg_raw check "$P/ex.ini" --explain "openat $H/.aws/credentials"
	has explain-decides "rule 'no-aws' \\(line 3\\): yes: it decides"
	has explain-decision "^decision: deny EACCES by rule 'no-aws' \\(line 3\\)"
	hasnt explain-stops "no-writes"
	sg_raw check "$P/ex.ini" --explain "mkdir $W/x"
	has explain-mkdir-create "call: mkdir $W/x \\(access create\\)"
	sg_raw check "$P/ex.ini" --explain "connect 10.0.0.5:443"
	has explain-addr-no "rule 'loopback' \\(line 12\\): no: address 10.0.0.5:443 does not match 127.0.0.0/8, unix:/run/\\*\\*"
	has explain-addr-deny "^decision: deny ENETUNREACH by rule 'no-net'"
	sg_raw check "$P/ex.ini" --explain "connect unix:/run/x.sock"
	has explain-unix "^decision: allow by rule 'loopback'"
	sg_raw check "$P/ex.ini" --explain "connect [::1]:80"
	has explain-ipv6 "^decision: deny ENETUNREACH by rule 'no-net'"
	sg_raw check "$P/ex.ini" --explain "ptrace"
	has explain-kernel "^mechanism: kernel \\(the seccomp filter decides ptrace: deny\\)"
	has explain-ptrace-decision "^decision: deny EPERM by rule 'no-ptrace'"
	# ioctl stays in the kernel but for the commands the supervisor
	# checks: the owner ones always, the file attribute ones where the
	# policy names fchmod (@file here).
	sg_raw check "$P/ex.ini" --explain "ioctl"
	has explain-ioctl-kernel "^mechanism: kernel \\(the seccomp filter decides ioctl: allow\\)"
	has explain-ioctl-owner "^  but FIOSETOWN and SIOCSPGRP reach the supervisor"
	has explain-ioctl-attr "^  and FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION, FS_IOC_ENABLE_VERITY and FS_IOC_SET_ENCRYPTION_POLICY$"
	has explain-ioctl-attr-fchmod "^  are decided as fchmod of the file their fd names$"
	policy nofile <<EOF
[policy]
default = allow
[rule no-net]
syscalls = connect
action = deny
EOF
	sg_raw check "$P/nofile.ini" --explain "ioctl"
	has explain-ioctl-owner-only "^  but FIOSETOWN and SIOCSPGRP reach the supervisor"
	hasnt explain-ioctl-no-attr "FS_IOC_SETFLAGS"
	sg_raw check "$P/ex.ini" --explain "kill arg1=15"
	has explain-arg "rule 'quiet-kill' \\(line 24\\): no: arg1 = 0xf, condition arg1 == 0x9 is false"
	sg_raw check "$P/ex.ini" --explain "execve /usr/bin/curl"
	has explain-exec "^decision: allow by the policy default"
	sg_raw check "$P/ex.ini" --explain "opne /etc/passwd"
	check explain-bad-syscall test "$SG_RC" = 125
	sg_raw check "$P/ex.ini" --explain "openat relative"
	check explain-bad-path test "$SG_RC" = 125

	# Warnings of plain `sysgate check`.
	policy warn <<EOF
[policy]
default = allow
[rule all-files]
syscalls = @file
action = allow
[rule never]
syscalls = openat
path = /etc/passwd
action = deny
[rule missing]
syscalls = execve
path = /nonexistent/sysgate-test/file, /usr/bin/**
action = deny
[rule scratch]
syscalls = execve
path = \${TMPDIR}, \${TMPDIR}/tool
action = allow
EOF
	sg_raw check "$P/warn.ini"
	check warn-status test "$SG_RC" = 0
	has warn-shadowed "^warning: $P/warn.ini:6: rule 'never' can never match: rule 'all-files' \\(line 3\\) decides all its calls first"
	has warn-missing "^warning: $P/warn.ini:10: path '/nonexistent/sysgate-test/file' does not exist"
	hasnt warn-existing "path '/etc/passwd' does not exist"
	hasnt warn-glob "/usr/bin/\\*\\*' does not exist"
	# Each run makes its own TMPDIR: no path under it is missing.
	hasnt warn-tmpdir "sysgate-RUN"
	sg_raw check default
	hasnt default-no-tmpdir-warning "sysgate-RUN"
	sg_raw check "$P/ex.ini"
	hasnt no-warnings "^warning:"
	# The filter sysgate run would load, compiled, and its size.
	has filter-size "^filter: [1-9][0-9]* BPF instructions \\(the kernel takes up to 4096\\)$"
	# The guards and where they are held; the [limits] with their units.
	has guards-in-policy "^        in the policy's filter$"
	has limits-none "^limits: none$"
	policy limited <<EOF
[policy]
default = allow
[limits]
processes = 50
memory = 1G
cpu = 30s
[rule i]
syscalls = ioctl
action = allow
EOF
	sg_raw check "$P/limited.ini"
	has guards-own-filter "^        a guard filter loaded under the policy's$"
	has limits-listed "^limits: processes 50, memory 1073741824 bytes, cpu 30000 ms$"
}

sg_main cases
