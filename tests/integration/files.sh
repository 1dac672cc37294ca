#!/bin/bash
# SPDX-License-Identifier: MIT
# File rules under an explicit policy: allowed reads work, secrets are
# denied with the rule's errno and named in the trail, writes outside the
# allowed tree fail for every kind of call, paths resolve as the kernel
# resolves them (symlinks, .., dirfds, /proc/self/{fd,cwd,root}), and the
# emulated open keeps its flags exact.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	policy files <<'EOF'
[policy]
default = allow
errno = EPERM
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
path = ${HOME}/.aws/**
path = **/.env
access = read, write
action = deny
errno = EACCES

[rule work]
syscalls = @file
path = ${CWD}/**
action = allow

[rule scratch]
syscalls = @file
path = ${TMPDIR}/**
action = allow

[rule devices]
syscalls = @file
path = /dev/null
path = /dev/tty
action = allow

# No call can move a root: the supervisor keeps each task's root and cwd
# (resolve.c), which the cases below exercise.
[rule no-root-changes]
syscalls = chroot, pivot_root, setns, unshare
action = deny

[rule no-writes-elsewhere]
syscalls = @file
path = /**
access = write, create, delete
action = deny
errno = EROFS
EOF
	policy rootstat <<'EOF'
[policy]
default = allow

[rule stats]
syscalls = @stat
action = allow

[rule no-root-changes]
syscalls = chroot, pivot_root, setns, unshare
action = deny
EOF
	# A policy that lets the root move: every walk starts from the root the
	# task has at that call (resolve.c keeps roots only when no call can
	# move them).
	# Mounts and chroots in namespaces of the tree's own: the policy
	# opts into the mount family (tests/integration/guards.sh).
	policy chroot <<'EOF'
[policy]
default = allow
audit = all
unmediated = mount

[rule jail-secret]
syscalls = @file
path = ${CWD}/jail/secret.txt
action = deny
errno = EACCES
EOF
	policy kill <<'EOF'
[policy]
default = allow

[rule kill-on-touch]
syscalls = @file
path = ${CWD}/tripwire
action = kill
EOF
	local S=$H/.ssh/id_rsa
	echo "SECRET env" >"$W/.env"
	mkdir -p "$W/sub" "$H/.ssh/keys" "$W/um" "$W/jail" "$W/mnt"
	echo "INSIDE jail" >"$W/jail/inside.txt"
	echo "SECRET in jail" >"$W/jail/secret.txt"
	echo "PUBLIC decoy" >"$W/id_rsa"
	echo "PUBLIC in sub" >"$W/sub/here.txt"
	ln -sf "$W/sub" "$W/sub-link"
	ln -sf "$H/.ssh/keys" "$W/keys-link"
	ln -sf "$S" "$W/key-link"
	ln -sf readme.txt "$W/readme-link"
	ln -sf "$O/data.txt" "$W/out-link"
	# Directory links in the middle of absolute paths (resolve.c's
	# jump_follow lets the kernel follow them): into the secrets, into
	# /proc/self (another mount: the walk must map "self" to the caller),
	# to the root (".." stops there), a loop, and a chain.
	ln -sfn "$H/.ssh" "$W/ssh-dir-link"
	ln -sfn /proc/self "$W/self-link"
	ln -sfn / "$W/root-link"
	ln -sfn loop-b "$W/loop-a"
	ln -sfn loop-a "$W/loop-b"
	ln -sfn sub-link "$W/sub-link2"
	echo "PUBLIC tripwire" >"$W/tripwire"
	[ "$U" = root ] || chown -R "$U:" "$W"
	native 0 "$B/try-open" "$S"
	native 0 "$B/try-mkdir" "$O/native-probe"
	rmdir "$O/native-probe"

	# --- reads
	c allowed-read          files 0      "--type syscall --path $W/readme.txt --action allow --rule work" \
		"$B/try-open" --cat "$W/readme.txt"
	check allowed-read-content grep -q PUBLIC "$SG_OUT"
	c allowed-read-etc      files 0      "--type syscall --path /etc/hostname --action allow --rule null" \
		"$B/try-open" /etc/hostname
	c secret-read           files EACCES "--type syscall --path $S --action deny --rule no-secrets --errno EACCES" \
		"$B/try-open" "$S"
	c secret-read-aws       files EACCES "--type syscall --path $H/.aws/credentials --action deny --rule no-secrets" \
		"$B/try-open" "$H/.aws/credentials"
	c secret-dotenv-in-cwd  files EACCES "--type syscall --path $W/.env --action deny --rule no-secrets" \
		"$B/try-open" .env
	c secret-dotenv-write   files EACCES "--type syscall --path $W/.env --action deny --rule no-secrets" \
		"$B/try-open" .env w
	c secret-read-open      files EACCES "--syscall open --path $S --action deny --rule no-secrets" \
		"$B/try-open" --syscall open "$S"
	c secret-read-openat2   files EACCES "--syscall openat2 --path $S --action deny --rule no-secrets" \
		"$B/try-open" --syscall openat2 "$S"
	c secret-read-cat       files 1      "--type syscall --path $S --action deny --rule no-secrets --errno EACCES" \
		cat "$S"
	check secret-not-leaked-cat bash -c "! grep -q SECRET '$SG_OUT'"
	c secret-read-sh        files 1      "--path $S --action deny --rule no-secrets" \
		sh -c "cat '$S'"
	c secret-stat-allowed   files 0      - \
		test -f "$S"

	# --- resolution: the path the kernel would act on decides
	c secret-via-symlink    files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" "$W/key-link"
	c secret-via-dotdot     files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" "$W/sub/../../home/.ssh/id_rsa"
	# An absolute path the kernel walks by names alone from the root is
	# named by its text ("//", "." and ".." taken lexically, ".." stopping
	# at the root: resolve.c's lexical_path()), not read back: the rules
	# and the trail must see the same canonical path either way.
	c secret-via-dots-root  files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" "/../..//.$W/./sub//..//../home/.ssh/./id_rsa"
	c allowed-via-dots-root files 0      "--type syscall --path $W/sub/here.txt --action allow --rule work" \
		"$B/try-open" --cat "//..$W/../work/sub/./here.txt"
	check allowed-via-dots-root-content grep -q "PUBLIC in sub" "$SG_OUT"
	c create-via-dots-root  files EROFS  "--path $O/new --action deny --rule no-writes-elsewhere" \
		"$B/try-open" "$W/..//outside/./new" wc
	c created-via-dots-root files 0      "--type syscall --path $W/sub/made.txt --action allow --rule work" \
		"$B/try-open" "$W//sub/../sub/./made.txt" wc
	check created-via-dots-root-file test -f "$W/sub/made.txt"
	# The supervisor keeps each task's cwd between calls: every chdir,
	# fchdir and a thread's chdir must be seen by the next relative path.
	c cwd-follows-cd        files 0      "--type syscall --path $W/sub/here.txt --action allow" \
		sh -c "cd '$W' && cat id_rsa && cd sub && cat here.txt && cd .. && cat readme.txt"
	check cwd-follows-cd-content bash -c "grep -q 'PUBLIC decoy' '$SG_OUT' && grep -q 'PUBLIC in sub' '$SG_OUT' && grep -q 'PUBLIC readme' '$SG_OUT'"
	c cwd-follows-cd-same-shell files 0  "--type syscall --path $W/sub/here.txt --action allow" \
		sh -c "cd '$W'; read a < id_rsa; /bin/true; cd sub; /bin/true; read b < here.txt; cd ..; read c < readme.txt; echo \"\$a/\$b/\$c\""
	check cwd-follows-cd-same-shell-content grep -qx "PUBLIC decoy/PUBLIC in sub/PUBLIC readme" "$SG_OUT"
	# A chroot, by the task or by a thread beside it (threads share their
	# root), after a first walk: the next absolute path is in the new root.
	# Not root: try-chroot makes its chroot in a user namespace of its own.
	native 0 "$B/try-chroot" --thread "$W/jail" "$W/readme.txt" /inside.txt
	c chroot-then-open      chroot 0      "--type syscall --path $W/jail/inside.txt --action allow" \
		"$B/try-chroot" "$W/jail" "$W/readme.txt" /inside.txt
	check chroot-then-open-content grep -qx "INSIDE jail" "$SG_OUT"
	c chroot-then-denied    chroot EACCES "--type syscall --path $W/jail/secret.txt --action deny --rule jail-secret" \
		"$B/try-chroot" "$W/jail" "$W/readme.txt" /secret.txt
	c chroot-thread-then-open chroot 0    "--type syscall --path $W/jail/inside.txt --action allow" \
		"$B/try-chroot" --thread "$W/jail" "$W/readme.txt" /inside.txt
	check chroot-thread-then-open-content grep -qx "INSIDE jail" "$SG_OUT"
	c chroot-thread-then-denied chroot EACCES "--type syscall --path $W/jail/secret.txt --action deny --rule jail-secret" \
		"$B/try-chroot" --thread "$W/jail" "$W/readme.txt" /secret.txt
	check chroot-secret-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	# unshare(CLONE_NEWNS) moves root and cwd to the new namespace's
	# mounts: a bind made there shows in the next walk, from either.
	native 0 "$B/try-chroot" --bind "$W/jail" "$W/mnt" readme.txt mnt/inside.txt
	c unshare-then-open-cwd chroot 0      - \
		"$B/try-chroot" --bind "$W/jail" "$W/mnt" readme.txt mnt/inside.txt
	check unshare-then-open-cwd-content grep -qx "INSIDE jail" "$SG_OUT"
	c unshare-then-open-root chroot 0     - \
		"$B/try-chroot" --bind "$W/jail" "$W/mnt" "$W/readme.txt" "$W/mnt/inside.txt"
	check unshare-then-open-root-content grep -qx "INSIDE jail" "$SG_OUT"
	check unshare-left-no-mount test ! -e "$W/mnt/inside.txt"
	# Paths looked up in a mount keep nothing of it busy once the call
	# is answered: the command can unmount it (no EBUSY from a cwd or an
	# fd the supervisor left there).
	c umount-after-use      chroot 0      "--type syscall --syscall openat --path $W/mnt/d/f --action allow" \
		unshare -rm sh -c 'mount -t tmpfs none mnt && cd mnt && mkdir d && echo x > d/f && cat d/f && cd d && cat f && cat ./f && cd ../.. && umount mnt'
	# The same, with nothing looked up between the last relative name in
	# the mount and the umount (cd / and absolute names only).
	c umount-after-relative chroot 0      "--type syscall --syscall openat --path $W/mnt/f --action allow" \
		unshare -rm sh -c "mount -t tmpfs none mnt && cd mnt && echo x > f && cat f && cd / && umount '$W/mnt'"
	# The kept root is the directory, not its stat: "/" stat'ed after a
	# change to it shows the change (root only: it touches "/").
	if [ "$U" = root ]; then
		rm -f "$W/go"
		mkfifo "$W/go"
		( sleep 0.3; touch -c -m /; echo go >"$W/go" ) &
		c stat-root-fresh   rootstat 0   - \
			$PY -c "
import os, sys
open('/etc/hostname').read()
before = os.stat('/').st_mtime_ns
open('$W/go').read()
sys.exit(0 if os.stat('/').st_mtime_ns != before else 1)"
		wait
	fi
	# The supervisor keeps each task's umask too: every umask(2), by the
	# task, by another thread, by a CLONE_FS process, or in a fork, must
	# be seen by its next create.
	c umask-followed        files 0      "--type syscall --syscall mkdir --path $W/um/d.d --action allow --rule work" \
		"$B/try-umask" "$W/um"
	c secret-after-cd       files 1      "--type syscall --path $S --action deny --rule no-secrets" \
		sh -c "cd '$W' && cat id_rsa && cd '$H/.ssh' && cat id_rsa"
	check secret-after-cd-decoy-first grep -q "PUBLIC decoy" "$SG_OUT"
	check secret-after-cd-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	c secret-after-fchdir   files 13     "--type syscall --path $S --action deny --rule no-secrets" \
		$PY -c "
import os, sys
os.chdir('$W'); print(open('id_rsa').read())
os.fchdir(os.open('$H/.ssh', os.O_PATH | os.O_DIRECTORY))
try:
    print(open('id_rsa').read())
except PermissionError:
    sys.exit(13)"
	c secret-after-thread-chdir files 13 "--type syscall --path $S --action deny --rule no-secrets" \
		$PY -c "
import os, sys, threading
os.chdir('$W'); print(open('id_rsa').read())
t = threading.Thread(target=os.chdir, args=('$H/.ssh',)); t.start(); t.join()
try:
    print(open('id_rsa').read())
except PermissionError:
    sys.exit(13)"
	# The path read back for a directory (fchdir + getcwd, dir_fd_path()
	# in resolve.c) is the kernel's, as the readlink of its fd is: after
	# the cwd's parent was renamed, for a removed cwd, through a symlink,
	# from dirfds, and for a directory the caller may open but not search.
	rm -rf "$W/rn" "$W/rn2" "$W/gone" "$W/tree" "$W/noexec" "$W/sublink"
	c path-after-rename     files 0      "--type syscall --syscall openat --path $W/rn2/b/f --action allow --rule work" \
		sh -c "mkdir -p rn/b && echo x > rn/b/f && cd rn/b && mv '$W/rn' '$W/rn2' && cat f"
	c path-in-removed-cwd   files 1      "--type syscall --syscall openat --path deleted:$W/gone/x --errno ENOENT" \
		sh -c "mkdir gone && cd gone && rmdir '$W/gone' && cat x"
	c path-via-symlink-cwd  files 0      "--type syscall --syscall openat --path $W/sub/here.txt --action allow --rule work" \
		sh -c "ln -s sub '$W/sublink' && cd sublink && cat here.txt"
	c path-from-dirfds      files 0      "--type syscall --syscall openat --path $W/tree/a/b --action allow --rule work; --type syscall --syscall openat --path $W/tree/a/b/f --action allow --rule work" \
		$PY -c "
import os
os.makedirs('$W/tree/a/b'); open('$W/tree/a/b/f', 'w').write('x')
a = os.open('$W/tree/a', os.O_RDONLY | os.O_DIRECTORY)
b = os.open('b', os.O_RDONLY | os.O_DIRECTORY, dir_fd=a)
os.read(os.open('f', os.O_RDONLY, dir_fd=b), 1)"
	# A thread made without CLONE_FILES has an fd table of its own: its
	# dirfd N, and /proc/thread-self/fd/N, name its directory, not the
	# leader's fd N (thread-open --own-fds), and name the one it holds
	# as N now: it reads own/a/f through N, then own/b/f once it has
	# put own/b there (the pidfd kept for the thread names the thread,
	# whose table changed); then the leader, its fd N being own/a.
	rm -rf "$W/own"
	as_user sh -c 'mkdir -p own/a own/b && echo AAA > own/a/f && echo BBB > own/b/f'
	for n in f /proc/thread-self/fd/%d/f; do
		tag=${n//[^a-z]/}
		native 0 "$B/thread-open" --own-fds "$W/own/a" "$W/own/b" "$n"
		c "path-from-thread-fds-$tag" files 0 "--type syscall --syscall openat --path $W/own/b/f --action allow --rule work" \
			"$B/thread-open" --own-fds "$W/own/a" "$W/own/b" "$n"
		check "path-from-thread-fds-$tag-read" \
			test "$(cat "$SG_OUT")" = "$(printf 'AAA\nBBB\nAAA')"
	done
	# Its /proc/thread-self/fd/N reopened for writing: its own fd N holds
	# a file outside the tree read-only, the leader's N one inside
	# read-write.  The access the thread holds its file with decides.
	as_user sh -c 'echo INSIDE > own/rw'
	c write-via-thread-fds-reopen files EROFS "--type syscall --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/thread-open" --own-fds-reopen "$O/data.txt" "$W/own/rw"
	check write-via-thread-fds-reopen-unchanged grep -q "PUBLIC outside" "$O/data.txt"
	check write-via-thread-fds-reopen-rw-unchanged grep -qx INSIDE "$W/own/rw"
	c path-dir-not-searchable files 0    "--type syscall --syscall openat --path $W/noexec --action allow --rule work" \
		$PY -c "
import os
os.mkdir('$W/noexec'); os.chmod('$W/noexec', 0o644)
os.close(os.open('noexec', os.O_RDONLY | os.O_DIRECTORY))"
	c secret-via-relative   files EACCES "--type syscall --path $S --action deny" \
		"$B/try-open" ../home/.ssh/id_rsa
	c secret-via-dirfd      files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" --at "$W/sub" ../../home/.ssh/id_rsa
	c secret-via-dirfd-home files EACCES "--type syscall --path $S --action deny" \
		"$B/try-open" --at "$H" .ssh/id_rsa
	c secret-via-openat2-dirfd files EACCES "--type syscall --path $S --action deny" \
		"$B/try-open" --syscall openat2 --at "$H" .ssh/id_rsa
	# O_PATH on a secret is a stat, not a read; reading through it is not.
	c secret-via-dirfd-opath files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" --at-path "$H/.ssh" id_rsa
	c secret-via-proc-fd-dir files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" --procfd "$H" .ssh/id_rsa
	c secret-via-proc-fd-reopen files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" --reopen "$S"
	c write-via-proc-fd-reopen files EROFS "--type syscall --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-open" --reopen-ro "$O/data.txt" w
	c write-via-proc-fd-reopen-opath files EROFS "--type syscall --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-open" --reopen "$O/data.txt" w
	check reopen-outside-unchanged grep -q "PUBLIC outside" "$O/data.txt"
	c secret-via-proc-root  files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" "/proc/self/root$S"
	c secret-via-proc-cwd   files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" /proc/self/cwd/../home/.ssh/id_rsa
	c secret-via-thread-self files EACCES "--type syscall --path $S --action deny" \
		"$B/try-open" "/proc/thread-self/root$S"
	c allowed-via-symlink   files 0      "--type syscall --path $W/readme.txt --action allow --rule work" \
		"$B/try-open" --cat readme-link
	check allowed-via-symlink-content grep -q PUBLIC "$SG_OUT"
	c secret-via-abs-dir-link files EACCES "--type syscall --path $S --action deny --rule no-secrets" \
		"$B/try-open" --cat "$W/ssh-dir-link/id_rsa"
	check secret-via-abs-dir-link-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	c allowed-via-abs-link-chain files 0 "--type syscall --path $W/sub/here.txt --action allow --rule work" \
		"$B/try-open" --cat "$W/sub-link2/here.txt"
	check allowed-via-abs-link-chain-content grep -q "PUBLIC in sub" "$SG_OUT"
	c self-via-abs-link files 0 "--type syscall --action allow" \
		"$B/try-open" --cat "$W/self-link/status"
	check self-via-abs-link-is-caller grep -q "^Name:.*try-open" "$SG_OUT"
	c dotdot-above-root-via-link files 0 "--type syscall --path /etc/hostname --action allow" \
		"$B/try-open" --cat "$W/root-link/../../etc/hostname"
	native ELOOP "$B/try-open" "$W/loop-a/x"
	c loop-via-abs-link files ELOOP - "$B/try-open" "$W/loop-a/x"

	# --- writes outside the allowed tree (all EROFS from no-writes-elsewhere)
	c write-outside-open    files EROFS  "--type syscall --path $O/data.txt --action deny --rule no-writes-elsewhere --errno EROFS" \
		"$B/try-open" "$O/data.txt" w
	c write-outside-append  files EROFS  "--path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-open" "$O/data.txt" a
	c write-outside-rdwr    files EROFS  "--path $O/data.txt --action deny" \
		"$B/try-open" "$O/data.txt" +
	c write-outside-trunc   files EROFS  "--path $O/data.txt --action deny" \
		"$B/try-open" "$O/data.txt" wT
	check outside-unchanged grep -q "PUBLIC outside" "$O/data.txt"
	c create-outside-open   files EROFS  "--path $O/new --action deny --rule no-writes-elsewhere" \
		"$B/try-open" "$O/new" wc
	c create-outside-creat  files EROFS  "--syscall creat --path $O/new --action deny --rule no-writes-elsewhere" \
		"$B/try-open" --syscall creat "$O/new"
	c create-outside-openat2 files EROFS "--syscall openat2 --path $O/new --action deny" \
		"$B/try-open" --syscall openat2 "$O/new" wc
	c create-outside-tmpfile files EROFS "--action deny --rule no-writes-elsewhere" \
		"$B/try-open" "$O" t
	c create-outside-dirfd  files EROFS  "--path $O/new --action deny" \
		"$B/try-open" --at "$O" new wc
	check no-file-created   test ! -e "$O/new"
	c mkdir-outside         files EROFS  "--syscall mkdir --path $O/d --action deny --rule no-writes-elsewhere --errno EROFS" \
		"$B/try-mkdir" "$O/d"
	c mkdirat-outside       files EROFS  "--path $O/d --action deny" \
		"$B/try-mkdir" --at "$O" d
	check no-dir-created    test ! -e "$O/d"
	c unlink-outside        files EROFS  "--syscall unlink --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-unlink" "$O/data.txt"
	check unlink-outside-kept test -f "$O/data.txt"
	mkdir -p "$O/empty"
	c rmdir-outside         files EROFS  "--path $O/empty --action deny" \
		"$B/try-unlink" -d "$O/empty"
	c rename-out-of         files EROFS  "--syscall rename --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-rename" "$O/data.txt" "$W/stolen.txt"
	c rename-into           files EROFS  "--syscall rename --path $O/moved --action deny --rule no-writes-elsewhere" \
		"$B/try-rename" "$W/readme.txt" "$O/moved"
	check rename-kept       test -f "$W/readme.txt" -a -f "$O/data.txt" -a ! -e "$O/moved" -a ! -e "$W/stolen.txt"
	c symlink-outside       files EROFS  "--syscall symlink --path $O/sl --action deny --rule no-writes-elsewhere" \
		"$B/try-symlink" "$W/readme.txt" "$O/sl"
	c link-outside          files EROFS  "--syscall link --path $O/hl --action deny --rule no-writes-elsewhere" \
		"$B/try-link" "$W/readme.txt" "$O/hl"
	c chmod-outside         files EROFS  "--syscall chmod --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-chmod" "$O/data.txt" 0600
	check chmod-outside-kept test "$(stat -c %a "$O/data.txt")" = 644
	# Through a file opened for reading only: the owner (or root) could
	# change its mode, owner, attributes and times in the kernel.
	native 0 "$B/try-fdmeta" "$O/data.txt" touch
	touch -d @1000000000 "$O/data.txt"
	c fchmod-outside        files EROFS  "--syscall fchmod --path $O/data.txt --access write --action deny --rule no-writes-elsewhere --field args.fd=3" \
		"$B/try-fdmeta" "$O/data.txt" chmod 4777
	c fchown-outside        files EROFS  "--syscall fchown --path $O/data.txt --action deny" \
		"$B/try-fdmeta" "$O/data.txt" chown 0 0
	c fsetxattr-outside     files EROFS  "--syscall fsetxattr --path $O/data.txt --action deny" \
		"$B/try-fdmeta" "$O/data.txt" setxattr user.sysgate x
	c fremovexattr-outside  files EROFS  "--syscall fremovexattr --path $O/data.txt --action deny" \
		"$B/try-fdmeta" "$O/data.txt" removexattr user.sysgate
	c futimens-outside      files EROFS  "--syscall utimensat --path $O/data.txt --action deny --field args.fd=3" \
		"$B/try-fdmeta" "$O/data.txt" touch
	c futimens-times-outside files EROFS "--syscall utimensat --path $O/data.txt --action deny" \
		"$B/try-fdmeta" "$O/data.txt" utime 5
	c futimes-outside       files EROFS  "--syscall futimesat --path $O/data.txt --action deny" \
		"$B/try-fdmeta" "$O/data.txt" futimes 5
	check fd-meta-outside-kept test "$(stat -c %a:%u:%Y "$O/data.txt")" = "644:$(id -u "$U"):1000000000"
	# The file's attributes through that fd: ioctl(FS_IOC_SETFLAGS,
	# FS_IOC_FSSETXATTR), decided as fchmod of the file.  Its owner may
	# set noatime (A) natively; alone with its fd table the caller's
	# call is continued, with a second thread it is carried out by
	# sysgate on the file taken from it.
	echo probe >"$O/attr-probe"
	[ "$U" = root ] || chown "$U:" "$O/attr-probe"
	native 0 "$B/try-fdmeta" "$O/attr-probe" chattr 80
	native 0 "$B/try-fdmeta" "$O/attr-probe" fsxattr 40
	c chattr-outside        files EROFS  "--syscall ioctl --path $O/data.txt --access write --action deny --rule no-writes-elsewhere --field args.fd=3 --field args.cmd=\"FS_IOC_SETFLAGS\"" \
		"$B/try-fdmeta" "$O/data.txt" chattr 80
	c chattr-outside-thread files EROFS  "--syscall ioctl --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-fdmeta" --thread "$O/data.txt" chattr 80
	c fsxattr-outside       files EROFS  "--syscall ioctl --path $O/data.txt --action deny --field args.cmd=\"FS_IOC_FSSETXATTR\"" \
		"$B/try-fdmeta" "$O/data.txt" fsxattr 40
	check chattr-outside-kept sh -c "lsattr '$O/data.txt' | grep -qv '^[^ ]*A'"
	# fs-verity (a file read-only for good) and an encryption policy (on
	# an empty directory): decided the same way.
	mkdir -p "$O/empty-enc"
	[ "$U" = root ] || chown "$U:" "$O/empty-enc"
	c verity-outside        files EROFS  "--syscall ioctl --path $O/data.txt --action deny --field args.cmd=\"FS_IOC_ENABLE_VERITY\"" \
		"$B/try-fdmeta" "$O/data.txt" verity
	c fscrypt-outside       files EROFS  "--syscall ioctl --path $O/empty-enc --action deny --field args.cmd=\"FS_IOC_SET_ENCRYPTION_POLICY\"" \
		"$B/try-fdmeta" "$O/empty-enc" fscrypt
	# The kernel's own answers: an O_PATH fd, AT_FDCWD and a closed fd
	# are no files to change (EBADF), decided on nothing.
	c fchmod-opath          files EBADF  "--syscall fchmod --errno EBADF --count 1" \
		"$B/try-fdmeta" --opath "$W/readme.txt" chmod 600
	c fchmod-at-fdcwd       files EBADF  "--syscall fchmod --errno EBADF" \
		"$B/try-fdmeta" --fd -100 cwd chmod 700
	c futimens-closed-fd    files EBADF  "--syscall utimensat --errno EBADF" \
		"$B/try-fdmeta" --fd 42 closed touch
	check fd-meta-cwd-kept  test "$(stat -c %a "$W")" = 755 -a "$(stat -c %a "$W/readme.txt")" = 644
	# newfstatat(fd, NULL, AT_EMPTY_PATH) is fstat on Linux 6.11+ (EFAULT
	# before): under a policy that names it, the kernel's own answer.
	policy looks <<'EOF'
[policy]
default = allow
audit = all

[rule look]
syscalls = @stat
path = /**
action = allow
EOF
	printf '%s\n' 'import ctypes, os, sys' \
		'libc = ctypes.CDLL(None, use_errno=True)' \
		'fd = os.open(sys.argv[1], os.O_RDONLY)' \
		'st = ctypes.create_string_buffer(256)' \
		'r = libc.syscall(262, fd, None, st, int(sys.argv[2], 0))' \
		'sys.exit(0 if r == 0 else ctypes.get_errno())' >"$W/nullstat.py"
	local nullstat_native
	as_user $PY "$W/nullstat.py" readme.txt 0x1000 >/dev/null 2>&1
	nullstat_native=$?
	c fstatat-null-empty    looks "$nullstat_native" - \
		$PY "$W/nullstat.py" readme.txt 0x1000
	c fstatat-null          looks EFAULT - \
		$PY "$W/nullstat.py" readme.txt 0
	c truncate-outside      files EROFS  "--syscall truncate --path $O/data.txt --action deny --rule no-writes-elsewhere" \
		"$B/try-truncate" "$O/data.txt" 0
	check truncate-outside-kept grep -q "PUBLIC outside" "$O/data.txt"
	c write-outside-via-symlink files EROFS "--path $O/data.txt --action deny" \
		"$B/try-open" "$W/out-link" w
	c write-outside-sh      files "1|2"  "--path $O/sh.txt --action deny --rule no-writes-elsewhere" \
		sh -c "echo x > '$O/sh.txt'"
	c write-outside-cp      files 1      "--path $O/cp.txt --action deny --rule no-writes-elsewhere" \
		cp "$W/readme.txt" "$O/cp.txt"
	check no-file-from-sh-cp test ! -e "$O/sh.txt" -a ! -e "$O/cp.txt"

	# --- writes inside the work tree are allowed and really happen
	c create-in-cwd         files 0      "--path $W/new.txt --action allow --rule work" \
		"$B/try-open" "$W/new.txt" wc
	check create-in-cwd-mode test "$(stat -c %a:%U "$W/new.txt")" = "644:$U"
	c create-excl-existing  files EEXIST - \
		"$B/try-open" "$W/new.txt" wcx
	c create-excl-new       files 0      - \
		"$B/try-open" "$W/excl.txt" wcx
	c creat-in-cwd          files 0      "--syscall creat --path $W/creat.txt --action allow" \
		"$B/try-open" --syscall creat creat.txt
	c tmpfile-in-cwd        files 0      - \
		"$B/try-open" "$W" t
	# An O_TMPFILE file given a name with linkat(fd, "", AT_EMPTY_PATH),
	# as natively (for root and, on Linux 6.10+, for its opener).
	printf '%s\n' 'import ctypes, os, sys' \
		'libc = ctypes.CDLL(None, use_errno=True)' \
		'fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)' \
		'os.write(fd, b"tmpfile-data")' \
		'if libc.linkat(fd, b"", -100, sys.argv[1].encode(), 0x1000) != 0: sys.exit(ctypes.get_errno())' \
		>"$W/flink.py"
	local flink_native
	as_user $PY "$W/flink.py" flink-native >/dev/null 2>&1
	flink_native=$?
	rm -f "$W/flink-native"
	c flink-tmpfile         files "$flink_native" "--syscall linkat --path $W/flinked --action allow" \
		$PY "$W/flink.py" flinked
	check flink-tmpfile-named grep -q tmpfile-data "$W/flinked"
	# The fd of an emulated open is the kernel's: same number, same fd
	# flags, same file status flags (F_GETFL shows O_NOFOLLOW when, and
	# only when, the caller asked for it).
	local fl want
	for fl in wca wcx +cn; do
		want=$(as_user "$B/try-open" --getfl "$W/getfl-native-$fl" "$fl" 2>&1)
		c "getfl-$fl"       files 0      - \
			"$B/try-open" --getfl "$W/getfl-$fl" "$fl"
		check "getfl-$fl-as-kernel" test "$(cat "$SG_OUT")" = "$want"
	done
	want=$(as_user "$B/try-open" --getfl "$W/readme.txt" a 2>&1)
	c getfl-append-existing files 0      - \
		"$B/try-open" --getfl "$W/readme.txt" a
	check getfl-append-existing-as-kernel test "$(cat "$SG_OUT")" = "$want"
	c o-directory-on-file   files ENOTDIR - \
		"$B/try-open" "$W/readme.txt" d
	c o-directory-on-dir    files 0      - \
		"$B/try-open" "$W/sub" d
	# A directory opened read-only is opened by the resolver straight
	# away (resolve.c, jump_whole): the same checks, the kernel's answers.
	c o-directory-via-symlink files 0    "--type syscall --path $W/sub --action allow --rule work" \
		"$B/try-open" "$W/sub-link" d
	native ENOTDIR "$B/try-open" "$W/sub-link" dn
	c o-directory-nofollow-symlink files ENOTDIR - \
		"$B/try-open" "$W/sub-link" dn
	c o-directory-dot       files 0      "--type syscall --path $W --action allow" \
		"$B/try-open" . d
	c o-directory-dotdot    files 0      "--type syscall --path $W/sub --action allow --rule work" \
		"$B/try-open" "$W/sub/../sub" d
	c secret-dir-open       files EACCES "--type syscall --path $H/.ssh/keys --action deny --rule no-secrets" \
		"$B/try-open" "$H/.ssh/keys" d
	c secret-dir-via-dirfd  files EACCES "--type syscall --path $H/.ssh/keys --action deny --rule no-secrets" \
		"$B/try-open" --at "$H" .ssh/keys d
	c secret-dir-via-symlink files EACCES "--type syscall --path $H/.ssh/keys --action deny --rule no-secrets" \
		"$B/try-open" "$W/keys-link" d
	c secret-dir-via-dotdot files EACCES "--type syscall --path $H/.ssh/keys --action deny --rule no-secrets" \
		"$B/try-open" "$W/sub/../../home/.ssh/keys" d
	c secret-dir-listing    files 2      "--type syscall --path $H/.ssh/keys --action deny --rule no-secrets" \
		ls "$H/.ssh/keys"
	want=$(as_user "$B/try-open" --getfl "$W/sub" d 2>&1)
	c getfl-directory       files 0      - \
		"$B/try-open" --getfl "$W/sub" d
	check getfl-directory-as-kernel test "$(cat "$SG_OUT")" = "$want"
	c o-nofollow-symlink    files ELOOP  - \
		"$B/try-open" "$W/readme-link" n
	c o-path-symlink-nofollow files 0    - \
		"$B/try-open" "$W/readme-link" pn
	c o-path-file           files 0      - \
		"$B/try-open" "$W/readme.txt" p
	c enoent-stays-enoent   files ENOENT - \
		"$B/try-open" "$W/no-such-file"
	# A directory missing on the way, one, two or five levels up from
	# the last name (resolve.c: the prefix jump tried shorter), through a
	# link too: decided on the path as named, as a missing last name is,
	# and ENOENT when allowed, as the kernel answers a read of nothing.
	c enoent-dir-missing    files ENOENT "--type syscall --path $W/sub/nodir/x.h --action allow --rule work --errno ENOENT" \
		"$B/try-open" "$W/sub/nodir/x.h"
	c enoent-dirs-missing   files ENOENT "--type syscall --path $W/sub/n1/n2/x.h --errno ENOENT" \
		"$B/try-open" "$W/sub/n1/n2/x.h"
	c enoent-dirs-missing-deep files ENOENT "--type syscall --path $W/n1/n2/n3/n4/n5/x.h --errno ENOENT" \
		"$B/try-open" "$W/n1/n2/n3/n4/n5/x.h"
	c enoent-dir-missing-via-link files ENOENT "--type syscall --path $W/sub/nodir/x.h --action allow --rule work --errno ENOENT" \
		"$B/try-open" "$W/sub-link/nodir/x.h"
	c enoent-file-in-file   files ENOTDIR - \
		"$B/try-open" "$W/readme.txt/nodir/x.h"
	# Under a denied tree every name is denied, whether its directory
	# exists or not: the answer does not tell which directories are there.
	c secret-dir-missing    files EACCES "--type syscall --path $H/.ssh/nodir/key --action deny --rule no-secrets --errno EACCES" \
		"$B/try-open" "$H/.ssh/nodir/key"
	c secret-name-missing   files EACCES "--type syscall --path $H/.ssh/keys/nokey --action deny --rule no-secrets --errno EACCES" \
		"$B/try-open" "$H/.ssh/keys/nokey"
	c secret-dirs-missing-via-link files EACCES "--type syscall --path $H/.ssh/n1/n2/key --action deny --rule no-secrets" \
		"$B/try-open" "$W/ssh-dir-link/n1/n2/key"
	c create-dir-missing    files ENOENT "--type syscall --path $W/sub/nodir/new --action allow --rule work --errno ENOENT" \
		"$B/try-open" "$W/sub/nodir/new" wc
	check create-dir-missing-nothing test ! -e "$W/sub/nodir" -a ! -e "$W/sub/new"
	c create-dir-missing-elsewhere files EROFS "--type syscall --path $O/nodir/new --action deny --rule no-writes-elsewhere --errno EROFS" \
		"$B/try-open" "$O/nodir/new" wc
	c mkdir-dir-missing     files ENOENT "--syscall mkdir --path $W/nodir/d --action allow --rule work --errno ENOENT" \
		"$B/try-mkdir" "$W/nodir/d" 0750
	c mkdir-dir-missing-elsewhere files EROFS "--syscall mkdir --path $O/nodir/d --action deny --rule no-writes-elsewhere" \
		"$B/try-mkdir" "$O/nodir/d" 0750
	check mkdir-dir-missing-nothing test ! -e "$W/nodir" -a ! -e "$O/nodir"
	c eisdir-stays-eisdir   files EISDIR - \
		"$B/try-open" "$W/sub" w
	c mkdir-in-cwd          files 0      "--syscall mkdir --path $W/d1 --action allow --rule work" \
		"$B/try-mkdir" "$W/d1" 0750
	check mkdir-in-cwd-mode test "$(stat -c %a:%U "$W/d1")" = "750:$U"
	c mkdirat-in-cwd        files 0      - \
		"$B/try-mkdir" --at "$W/sub" d2
	check mkdirat-made      test -d "$W/sub/d2"
	c rename-in-cwd         files 0      "--syscall rename --path $W/new.txt --action allow" \
		"$B/try-rename" "$W/new.txt" "$W/renamed.txt"
	check rename-done       test -f "$W/renamed.txt" -a ! -e "$W/new.txt"
	c symlink-in-cwd        files 0      - \
		"$B/try-symlink" readme.txt "$W/sl"
	check symlink-made      test "$(readlink "$W/sl")" = readme.txt
	c link-in-cwd           files 0      - \
		"$B/try-link" "$W/readme.txt" "$W/hl"
	c chmod-in-cwd          files 0      - \
		"$B/try-chmod" "$W/renamed.txt" 0600
	check chmod-done        test "$(stat -c %a "$W/renamed.txt")" = 600
	c fchmod-in-cwd         files 0      "--syscall fchmod --path $W/renamed.txt --action allow --rule work" \
		"$B/try-fdmeta" "$W/renamed.txt" chmod 0640
	c futimens-in-cwd       files 0      "--syscall utimensat --path $W/renamed.txt --action allow" \
		"$B/try-fdmeta" "$W/renamed.txt" utime 1234567
	c fchown-in-cwd         files 0      "--syscall fchown --path $W/renamed.txt --action allow" \
		"$B/try-fdmeta" "$W/renamed.txt" chown -1 "$(id -g "$U")"
	check fd-meta-done      test "$(stat -c %a:%Y "$W/renamed.txt")" = 640:1234567
	c chattr-in-cwd         files 0      "--syscall ioctl --path $W/renamed.txt --action allow --rule work --field args.cmd=\"FS_IOC_SETFLAGS\"" \
		"$B/try-fdmeta" "$W/renamed.txt" chattr 80
	check chattr-in-cwd-done sh -c "lsattr '$W/renamed.txt' | grep -q '^[^ ]*A'"
	chattr -A "$W/renamed.txt"
	c chattr-in-cwd-thread  files 0      "--syscall ioctl --path $W/renamed.txt --action allow --field emulated=true; --type syscall.result --syscall ioctl --field result=0" \
		"$B/try-fdmeta" --thread "$W/renamed.txt" fsxattr 40
	check chattr-in-cwd-thread-done sh -c "lsattr '$W/renamed.txt' | grep -q '^[^ ]*A'"
	chattr -A "$W/renamed.txt"
	# Allowed, fs-verity gets the kernel's own answer (this file system
	# may not support it); with a shared fd table it is refused: sysgate
	# does not copy what its argument points to.
	echo verity >"$W/verity-probe"
	echo verity >"$W/verity-me"
	[ "$U" = root ] || chown "$U:" "$W/verity-probe" "$W/verity-me"
	local verity_native
	as_user "$B/try-fdmeta" "$W/verity-probe" verity >/dev/null 2>&1
	verity_native=$?
	c verity-in-cwd         files "$verity_native" "--syscall ioctl --path $W/verity-me --action allow" \
		"$B/try-fdmeta" "$W/verity-me" verity
	c verity-in-cwd-thread  files EPERM  "--syscall ioctl --path $W/verity-me --rule sysgate:shared-fds --errno EPERM" \
		"$B/try-fdmeta" --thread "$W/verity-me" verity
	c truncate-in-cwd       files 0      - \
		"$B/try-truncate" "$W/creat.txt" 3
	c unlink-in-cwd         files 0      "--syscall unlink --path $W/renamed.txt --action allow" \
		"$B/try-unlink" "$W/renamed.txt"
	check unlink-done       test ! -e "$W/renamed.txt"
	c rmdir-in-cwd          files 0      - \
		"$B/try-unlink" -d "$W/d1"
	c sh-redirect-in-cwd    files 0      - \
		sh -c 'echo hello > out.txt && echo more >> out.txt && cat out.txt'
	check sh-redirect-content test "$(cat "$W/out.txt")" = "$(printf 'hello\nmore')"
	c cp-in-cwd             files 0      - \
		cp readme.txt copy.txt
	check cp-content        cmp "$W/readme.txt" "$W/copy.txt"
	c tmpdir-is-writable    files 0      - \
		sh -c 'test -n "$TMPDIR" && echo x > "$TMPDIR/f" && test "$(cat "$TMPDIR/f")" = x'

	# --- kill action
	# "kill" kills the caller: sh, its parent, carries on.
	c kill-action-child     kill   0      "--type syscall --path $W/tripwire --action kill --rule kill-on-touch" \
		sh -c "'$B/try-open' '$W/tripwire'; echo \$? >'$W/after-kill'"
	check kill-action-child-status grep -Eqx '137|159' "$W/after-kill"
	c kill-action-direct    kill   "sig:KILL|sig:SYS" "--type syscall --path $W/tripwire --action kill" \
		"$B/try-open" "$W/tripwire"
}

sg_main cases
