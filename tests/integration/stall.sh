#!/bin/bash
# SPDX-License-Identifier: MIT
# Nothing the tree does can stall the supervisor: a path argument in a
# page the tree registered with userfaultfd and never fills fails that
# one call with EFAULT, and sysgate goes on (before, it slept until the
# tree was SIGKILLed from outside: SIGTERM and the wall limit did
# nothing).  userfaultfd, the syscall and /dev/userfaultfd, is refused by
# the built-in and strict policies.  Judged from outside: sysgate ends by
# itself, well inside the harness's bound, with the victim's EFAULT.
. "$(dirname "$0")/lib.sh"
sg_init

SHIPPED=${srcdir:-.}/rules/policies
cp "$SHIPPED/strict.ini" "$SHIPPED/default.ini" "$T/" || sg_harness_error "no shipped policies"
chmod 0644 "$T/strict.ini" "$T/default.ini"

cases() {
	# A policy that names files (so open is notified) and leaves
	# userfaultfd alone, with a wall limit that must still work.
	policy files <<EOF
[policy]
default = allow

[limits]
wall = 5s

[rule no-shadow]
syscalls = @file
path = /etc/shadow
action = deny
errno = EACCES
EOF
	cp "$B/attack-uffd" "$W/attack-uffd"
	[ "$U" = root ] || chown "$U:" "$W/attack-uffd"
	if [ "$U" = root ]; then
		# Natively the open waits for its own fault for good.
		as_user timeout -k 1 2 "$B/attack-uffd" --dev
		check uffd-native-waits test $? = 124
		SG_TIMEOUT=20 c uffd-path-fails files EFAULT - "$B/attack-uffd" --dev
		check uffd-not-walled bash -c "! grep -q '\"limit\"' '$SG_TRAIL'"
	else
		# /dev/userfaultfd is root's (0600) and the syscall needs
		# CAP_SYS_PTRACE for kernel faults: refused natively too.
		SG_TIMEOUT=20 c uffd-nobody files 255 - "$B/attack-uffd" --dev
	fi
	c uffd-dev-default - 255 \
		"--type syscall --path /dev/userfaultfd --action deny --errno EACCES" \
		"$W/attack-uffd" --dev
	c uffd-dev-strict "$T/strict.ini" 255 \
		"--type syscall --path /dev/userfaultfd --action deny" \
		"$W/attack-uffd" --dev
	c uffd-syscall-default - 255 \
		"--type syscall --syscall userfaultfd --action deny --errno EPERM" \
		"$W/attack-uffd"
}

sg_main cases
