#!/bin/bash
# SPDX-License-Identifier: MIT
# action = rewrite: paths redirected (writes to a "/tmp" land in a scratch
# directory under the work dir, a secret reads as /dev/null; mkdir -p, cd,
# rename, symlink, O_PATH and stat follow the redirect; links planted in
# the target lead nowhere out of it, and a rewritten call is decided by
# the other rules), connect redirected
# to a local listener, open flags and modes rewritten.  Each effect is
# checked from outside: the file is in the scratch directory and not at the
# path the program named, the listener got the connection.  The trail
# records the call as the program made it and as it was carried out.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	# $O/tmp plays /tmp: it does not exist; its redirect target is made
	# by sysgate at start-up.
	local S=$W/.sysgate/tmp
	policy scratch <<EOF
[policy]
default = allow

[rule scratch-tmp]
syscalls = @file, @stat
path = $O/tmp/**
action = rewrite
redirect = \${CWD}/.sysgate/tmp

[rule secret-as-null]
syscalls = @file, @stat
path = \${HOME}/.ssh/id_rsa
action = rewrite
redirect = /dev/null

[rule cloexec]
syscalls = open, openat
path = \${CWD}/cloexec*
action = rewrite
arg2_set = O_CLOEXEC

[rule private-files]
syscalls = openat
path = \${CWD}/private*
action = rewrite
arg3_value = 0600
EOF
	# The redirect target is decided again: here it is denied.
	policy target-denied <<EOF
[policy]
default = allow

[rule redirect-to-outside]
syscalls = @file, @stat
path = \${CWD}/in/**
action = rewrite
redirect = $O/denied

[rule no-denied]
syscalls = @file, @stat
path = $O/denied/**
action = deny
errno = EACCES
EOF
	policy proxy <<'EOF'
[policy]
default = allow

[rule to-proxy]
syscalls = connect
addr = 127.0.0.2
action = rewrite
redirect = 127.0.0.1:PROXYPORT

[rule v6-only-target]
syscalls = connect
addr = 127.0.0.3
action = rewrite
redirect = [::1]:9
EOF

	c write-lands-in-scratch scratch 0 \
		"--type syscall --syscall openat --path $S/x --action rewrite --rule scratch-tmp --field paths.0.redirected_from=\"$O/tmp/x\" --field args.path=\"$O/tmp/x\" --field rewritten.path=\"$S/x\"" \
		sh -c "echo scratch-data > $O/tmp/x"
	check scratch-file-written grep -q scratch-data "$S/x"
	check original-not-written test ! -e "$O/tmp/x"
	c read-back-from-scratch scratch 0 - sh -c "grep -q scratch-data $O/tmp/x"
	c mkdir-p-and-cd scratch 0 \
		"--type syscall --syscall chdir --action rewrite --rule scratch-tmp" \
		sh -c "mkdir -p $O/tmp/a/b/c && cd $O/tmp/a/b && echo in-c > c/f && test \"\$(pwd)\" = $O/tmp/a/b && test \"\$(/bin/pwd)\" = $S/a/b"
	check mkdir-p-in-scratch grep -q in-c "$S/a/b/c/f"
	c rename-in-scratch scratch 0 \
		"--type syscall --syscall renameat2 --action rewrite --path $S/a/moved" \
		mv "$O/tmp/a/b/c/f" "$O/tmp/a/moved"
	check renamed-in-scratch grep -q in-c "$S/a/moved"
	c symlink-and-stat scratch 0 - \
		sh -c "ln -s moved $O/tmp/a/link && test -L $O/tmp/a/link && grep -q in-c $O/tmp/a/link && ls $O/tmp/a | grep -qx link"
	c opath-and-fd-path scratch 0 - \
		$PY -c "import os,sys; fd=os.open(sys.argv[1], os.O_PATH); sys.exit(0 if os.readlink('/proc/self/fd/%d' % fd) == sys.argv[2] else 1)" \
		"$O/tmp/a" "$S/a"
	c remove-in-scratch scratch 0 - rm -r "$O/tmp/a/b"
	check removed-in-scratch test ! -e "$S/a/b"
	c secret-reads-empty scratch 0 \
		"--type syscall --syscall openat --path /dev/null --action rewrite --rule secret-as-null" \
		sh -c "test -z \"\$(cat $H/.ssh/id_rsa)\""
	check secret-untouched grep -q "SECRET ssh key" "$H/.ssh/id_rsa"
	# (through libc: Python's os.open adds O_CLOEXEC itself)
	c cloexec-set scratch 0 \
		"--type syscall --syscall openat --action rewrite --rule cloexec --field args.flags=\"O_WRONLY|O_CREAT\" --field rewritten.flags=\"O_WRONLY|O_CREAT|O_CLOEXEC\"" \
		$PY -c "import ctypes,os,fcntl,sys; fd=ctypes.CDLL(None).open(b'cloexec-file', os.O_CREAT|os.O_WRONLY, 0o644); sys.exit(0 if fd >= 0 and fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC else 1)"
	c mode-replaced scratch 0 \
		"--type syscall --syscall openat --action rewrite --rule private-files --field rewritten.mode=\"0600\"" \
		$PY -c "import os,sys; fd=os.open('private-file', os.O_CREAT|os.O_WRONLY, 0o666); sys.exit(0 if os.fstat(fd).st_mode & 0o777 == 0o600 else 1)"
	check mode-on-disk test "$(stat -c %a "$W/private-file")" = 600
	c target-decided-again target-denied EACCES \
		"--type syscall --syscall openat --action deny --rule no-denied --errno EACCES --field paths.0.redirected_from=\"$W/in/x\"" \
		"$B/try-open" "$W/in/x" wc
	check target-not-created test ! -e "$O/denied/x"

	# connect: 127.0.0.2 (nothing listens there) goes to the listener.
	sg_listen 127.0.0.1 0
	sed -i "s/PROXYPORT/$SG_PORT/" "$P/proxy.ini"
	c connect-redirected proxy 0 \
		"--type syscall --syscall connect --action rewrite --rule to-proxy --field args.addr.ip=\"127.0.0.2\" --field rewritten.addr.ip=\"127.0.0.1\" --field rewritten.addr.port=$SG_PORT" \
		"$B/try-connect" 127.0.0.2 9
	sg_listen_wait
	check proxy-got-connection grep -q hello "$SG_LISTEN_OUT"
	sg_listen 127.0.0.1 0
	sed -i "s/127.0.0.1:[0-9]*/127.0.0.1:$SG_PORT/" "$P/proxy.ini"
	c connect-redirected-v6-mapped proxy 0 \
		"--type syscall --syscall connect --action rewrite --field rewritten.addr.ip=\"::ffff:127.0.0.1\"" \
		"$B/try-connect" ::ffff:127.0.0.2 9
	sg_listen_wait
	check proxy-got-mapped-connection grep -q hello "$SG_LISTEN_OUT"
	c connect-v4-cannot-reach-v6 proxy EAFNOSUPPORT \
		"--type syscall --syscall connect --action rewrite --rule v6-only-target --errno EAFNOSUPPORT" \
		"$B/try-connect" 127.0.0.3 9

	# Calls the kernel runs, rewritten in the caller's registers: an
	# exec of a program that is not there runs the one the redirect
	# names; umask is forced to 077 (with and without a condition that
	# the rewritten call no longer meets), so files come out 0600, and
	# each call is recorded once, as the program made it (dash calls
	# umask more than once).
	policy exec-redirect <<EOF
[policy]
default = allow

[rule tools]
syscalls = execve, execveat
path = \${CWD}/bin/**
action = rewrite
redirect = /usr/bin
EOF
	policy umask-always <<'EOF'
[policy]
default = allow

[rule private-umask]
syscalls = umask
action = rewrite
arg0_value = 077
EOF
	policy umask-open <<'EOF'
[policy]
default = allow

[rule private-umask]
syscalls = umask
arg0 = 0
action = rewrite
arg0_value = 077
EOF
	c exec-redirected exec-redirect 0 \
		"--type syscall --syscall execve --action rewrite --rule tools --path /usr/bin/echo;--type proc.exec --path /usr/bin/echo" \
		sh -c "test \"\$($W/bin/echo redirected)\" = redirected"
	check exec-redirect-created-nothing test ! -e "$W/bin/echo"
	c umask-rewritten umask-always 0 \
		"--type syscall --syscall umask --action rewrite --rule private-umask --field args.mask=\"00\" --field rewritten.mask=\"077\";--type syscall --syscall umask --field args.mask=\"077\" --count 0" \
		sh -c "umask 000; rm -f um-file; : > um-file; test \"\$(stat -c %a um-file)\" = 600"
	c umask-rewritten-cond umask-open 0 \
		"--type syscall --syscall umask --action rewrite --rule private-umask --field args.mask=\"00\" --field rewritten.mask=\"077\";--type syscall --syscall umask --field args.mask=\"077\" --count 0" \
		sh -c "umask 000; rm -f um-file; : > um-file; test \"\$(stat -c %a um-file)\" = 600"

	# sysgate.ini(5)'s /tmp redirect with a write area: a redirect leads into
	# its target and no further, and the rewritten call is decided by the
	# other rules.  $O/rtmp plays a /tmp that holds another project's
	# .env and a file; symlinks the tree plants in the redirect target
	# point there.  Judged from outside: the secret is not in the output,
	# no file appears in $O/rtmp, none goes.
	local RT=$O/rtmp RS=$W/.sysgate/rtmp
	mkdir -p "$RT/proj"
	echo "SECRET other env" >"$RT/proj/.env"
	echo "victim" >"$RT/victim"
	echo "marker" >"$RT/marker"
	policy readme-tmp <<EOF
[policy]
default = allow

[rule scratch-tmp]
syscalls = @file, @stat
path = $RT/**
action = rewrite
redirect = \${CWD}/.sysgate/rtmp

[rule no-secrets]
syscalls = @file
path = **/.env
action = deny
errno = EACCES

[rule write-area]
syscalls = @file
path = \${CWD}, \${CWD}/**
access = write, create, delete
action = allow

[rule no-writes]
syscalls = @file
access = write, create, delete
action = deny
errno = EACCES
EOF
	c redirect-link-read readme-tmp EACCES \
		"--type syscall --syscall openat --action deny --rule sysgate:rewrite --field paths.0.redirected_from=\"$RT/e\"" \
		sh -c "ln -sfn '$RT/proj/.env' '$RS/e' && exec '$B/try-open' --cat '$RT/e'"
	check redirect-link-read-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	c redirect-link-create readme-tmp 2 - \
		sh -c "ln -sfn '$RT' '$RS/d' && echo x > '$RT/d/created'"
	check redirect-link-create-nothing test ! -e "$RT/created"
	c redirect-link-delete readme-tmp 1 - \
		sh -c "ln -sfn '$RT' '$RS/d' && rm '$RT/d/victim'"
	check redirect-link-delete-kept test -e "$RT/victim"
	# chdir is restarted in the caller's registers: the same holds.
	rm -f "$W/listing"
	c redirect-link-chdir readme-tmp 2 \
		"--type syscall --syscall chdir --action deny --rule sysgate:rewrite" \
		sh -c "ln -sfn '$RT' '$RS/d' && cd '$RT/d' && ls > '$W/listing'"
	check redirect-link-chdir-nothing bash -c "! grep -q marker '$W/listing' 2>/dev/null"
	# Inside the target, links work as before.
	c redirect-link-inside readme-tmp 0 - \
		sh -c "echo in > '$RT/in' && ln -sfn in '$RS/l' && grep -q in '$RT/l'"
	# A rewritten call another rewrite rule matches is refused (a call
	# is rewritten once), recorded with that rule.
	policy two-rewrites <<EOF
[policy]
default = allow

[rule scratch-tmp]
syscalls = @file, @stat
path = $RT/**
action = rewrite
redirect = \${CWD}/.sysgate/rtmp

[rule to-elsewhere]
syscalls = @file, @stat
path = \${CWD}/.sysgate/rtmp/**
action = rewrite
redirect = $RT/proj
EOF
	c second-rewrite-refused two-rewrites EACCES \
		"--type syscall --syscall openat --action deny --rule to-elsewhere --errno EACCES" \
		"$B/try-open" "$RT/twice" wc
	check second-rewrite-nothing bash -c "test ! -e '$RT/proj/twice' && test ! -e '$RS/twice'"

	# Rewrites the supervisor cannot carry out are refused at load.
	policy bad-exec <<'EOF'
[rule r]
syscalls = execve
action = rewrite
arg1_value = 0
EOF
	c refuse-exec-args bad-exec 125 - true
	policy bad-glob <<'EOF'
[rule r]
syscalls = openat
path = /tmp/*.log
action = rewrite
redirect = /x
EOF
	c refuse-wildcard-prefix bad-glob 125 - true
	policy bad-addr <<'EOF'
[rule r]
syscalls = connect
addr = 10.0.0.0/8
action = rewrite
redirect = 10.0.0.0/8
EOF
	c refuse-network-redirect bad-addr 125 - true
}

sg_main cases
