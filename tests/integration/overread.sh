#!/bin/bash
# SPDX-License-Identifier: MIT
# Tracee strings and addresses placed against an unmapped page (the NUL or
# the last byte of the sockaddr is the last mapped byte): a supervisor that
# reads one byte too far, or a whole page at a time, must still decide
# correctly.  Also paths near PATH_MAX and beyond it.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy tail <<'EOF'
[policy]
default = allow

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
access = read, write
action = deny
errno = EACCES

[rule work]
syscalls = @file
path = ${CWD}/**
action = allow

[rule devices]
syscalls = @file
path = /dev/null
path = /dev/tty
action = allow

[rule no-writes]
syscalls = @file
path = /**
access = write, create, delete
action = deny
errno = EROFS

[rule loopback]
syscalls = connect, bind
addr = 127.0.0.0/8, unix:${CWD}/**
action = allow

[rule no-net]
syscalls = @network
action = deny
errno = ENETUNREACH
EOF
	local S=$H/.ssh/id_rsa
	echo "PUBLIC x" >"$W/x"
	[ "$U" = root ] || chown -R "$U:" "$W"
	native 0 "$B/try-open" --tail "$W/readme.txt"

	c tail-open-allowed     tail 0      "--path $W/readme.txt --action allow --rule work" \
		"$B/try-open" --tail --cat "$W/readme.txt"
	check tail-open-content grep -q PUBLIC "$SG_OUT"
	c tail-open-relative    tail 0      "--path $W/x --action allow" \
		"$B/try-open" --tail x
	c tail-open-denied      tail EACCES "--path $S --action deny --rule no-secrets" \
		"$B/try-open" --tail "$S"
	c tail-openat2-denied   tail EACCES "--path $S --action deny --rule no-secrets" \
		"$B/try-open" --tail --syscall openat2 "$S"
	c tail-open-dirfd       tail EACCES "--path $S --action deny" \
		"$B/try-open" --tail --at "$H" .ssh/id_rsa
	c tail-open-create      tail 0      "--path $W/t-new --action allow" \
		"$B/try-open" --tail "$W/t-new" wc
	c tail-open-create-out  tail EROFS  "--path $O/t-new --action deny --rule no-writes" \
		"$B/try-open" --tail "$O/t-new" wc
	c tail-mkdir            tail 0      - "$B/try-mkdir" --tail "$W/t-dir"
	c tail-mkdir-out        tail EROFS  "--path $O/t-dir --action deny" "$B/try-mkdir" --tail "$O/t-dir"
	c tail-unlink           tail 0      - "$B/try-unlink" --tail "$W/t-new"
	c tail-rename           tail 0      - "$B/try-rename" --tail "$W/x" "$W/y"
	c tail-rename-out       tail EROFS  "--path $O/y --action deny" "$B/try-rename" --tail "$W/y" "$O/y"
	c tail-symlink          tail 0      - "$B/try-symlink" --tail y "$W/t-sl"
	c tail-symlink-out      tail EROFS  "--path $O/t-sl --action deny" "$B/try-symlink" --tail "$W/y" "$O/t-sl"
	c tail-link             tail 0      - "$B/try-link" --tail "$W/y" "$W/t-hl"
	c tail-link-out         tail EROFS  "--path $O/t-hl --action deny" "$B/try-link" --tail "$W/y" "$O/t-hl"
	c tail-chmod            tail 0      - "$B/try-chmod" --tail "$W/y" 0600
	c tail-chmod-out        tail EROFS  "--path $O/data.txt --action deny" "$B/try-chmod" --tail "$O/data.txt" 0600

	sg_listen 127.0.0.1 0
	c tail-connect-allowed  tail 0      "--syscall connect --port $SG_PORT --action allow --rule loopback" \
		"$B/try-connect" --tail 127.0.0.1 "$SG_PORT"
	sg_listen_wait
	c tail-connect-denied   tail ENETUNREACH "--syscall connect --ip 10.1.2.3 --action deny" \
		"$B/try-connect" --tail 10.1.2.3 80
	c tail-connect-denied6  tail ENETUNREACH "--syscall connect --action deny" \
		"$B/try-connect" --tail 2001:db8::1 80
	sg_listen unix "$W/sock"
	c tail-connect-unix     tail 0      "--syscall connect --path $W/sock --action allow" \
		"$B/try-connect" --tail unix "$W/sock"
	sg_listen_wait
	c tail-connect-unix-out tail ENETUNREACH "--syscall connect --path $O/sock --action deny" \
		"$B/try-connect" --tail unix "$O/sock"
	c tail-bind-unix        tail 0      - "$B/try-bind" --tail unix "$W/bsock"
	c tail-bind-abstract    tail ENETUNREACH "--syscall bind --action deny" \
		"$B/try-bind" --tail abstract "sysgate-$$"

	# Long paths.  Components of 200 bytes; the kernel's limit is 4096
	# bytes with the NUL.
	local comp long dots
	comp=$(printf 'a%.0s' $(seq 200))
	long=$W
	while [ ${#long} -lt 3800 ]; do long=$long/$comp; done
	c long-path-enoent      tail ENOENT - "$B/try-open" --tail "$long"
	c long-path-too-long    tail ENAMETOOLONG - "$B/try-open" --tail "$long/$comp/$comp"
	dots=$W
	while [ ${#dots} -lt 3900 ]; do dots=$dots/.; done
	c long-dots-secret      tail EACCES "--path $S --action deny --rule no-secrets" \
		"$B/try-open" --tail "$dots/../home/.ssh/id_rsa"
	dots=$W
	for _ in $(seq 40); do dots=$dots/sub/..; done
	mkdir -p "$W/sub"
	[ "$U" = root ] || chown "$U:" "$W/sub"
	c dotdot-chain-secret   tail EACCES "--path $S --action deny --rule no-secrets" \
		"$B/try-open" --tail "$dots/../home/.ssh/id_rsa"
}

sg_main cases
