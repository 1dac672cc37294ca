#!/bin/bash
# SPDX-License-Identifier: MIT
# The built-in default policy (no -r): reads anywhere but secrets, writes
# only under the working directory and the private TMPDIR (plus /dev/null,
# /dev/shm...), writes below /tmp done in the private TMPDIR, a denied
# create of an existing path answers EEXIST, exec of installed programs
# and of the working directory only, loopback network only (ENETUNREACH),
# privileged syscalls EPERM.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	# The victims must live where the default policy lets them run.
	local V=$W/vb
	mkdir -p "$V" "$W/sub"
	cp "$B"/* "$V/"
	cp "$B/exit-with" "$O/exit-with"
	echo "SECRET env" >"$W/.env"
	echo "SECRET env" >"$W/sub/.env"
	echo "# bashrc" >"$H/.bashrc"
	[ "$U" = root ] || chown -R "$U:" "$W" "$O" "$H"
	local S=$H/.ssh/id_rsa
	local leak=/tmp/sysgate-test-leak-$$-$U

	# --- reads
	c read-cwd              - 0      "--type syscall --path $W/readme.txt --action allow" \
		"$V/try-open" --cat readme.txt
	check read-cwd-content  grep -q PUBLIC "$SG_OUT"
	c read-etc              - 0      - "$V/try-open" /etc/passwd
	c read-outside          - 0      - "$V/try-open" --cat "$O/data.txt"
	c read-dev-urandom      - 0      - "$V/try-open" /dev/urandom
	c read-proc-self        - 0      - "$V/try-open" /proc/self/status
	c secret-ssh            - EACCES "--type syscall --path $S --action deny --errno EACCES" \
		"$V/try-open" "$S"
	c secret-ssh-cat        - 1      "--type syscall --path $S --action deny --errno EACCES" \
		cat "$S"
	check secret-ssh-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	c secret-aws            - EACCES "--type syscall --path $H/.aws/credentials --action deny --errno EACCES" \
		"$V/try-open" "$H/.aws/credentials"
	c secret-gnupg          - EACCES "--type syscall --path $H/.gnupg/secring --action deny --errno EACCES" \
		"$V/try-open" "$H/.gnupg/secring"
	c secret-dotenv         - EACCES "--type syscall --path $W/.env --action deny --errno EACCES" \
		"$V/try-open" .env
	c secret-dotenv-deep    - EACCES "--type syscall --path $W/sub/.env --action deny --errno EACCES" \
		"$V/try-open" sub/.env
	c secret-shadow         - EACCES "--type syscall --path /etc/shadow --action deny --errno EACCES" \
		"$V/try-open" /etc/shadow
	c secret-ssh-via-link   - EACCES "--type syscall --path $S --action deny" \
		sh -c "ln -s '$S' k && '$V/try-open' k"

	# --- cloud, package-registry and tool credentials, and sysgate's own
	# trails (other runs'): the content never reaches the command's output
	local f n
	for f in .config/gcloud/application_default_credentials.json \
		.config/gcloud/credentials.db .azure/msal_token_cache.json \
		.pypirc .cargo/credentials .cargo/credentials.toml \
		.docker/config.json .kube/config .config/gh/hosts.yml \
		.git-credentials .netrc .local/state/sysgate/runs/other.jsonl \
		.vault-token .pgpass .gem/credentials \
		.terraform.d/credentials.tfrc.json .config/hub \
		.huggingface/token .cache/huggingface/token; do
		n=${f#.}
		n=${n//\//-}
		mkdir -p "$(dirname "$H/$f")"
		echo "SECRET in $f" >"$H/$f"
		[ "$U" = root ] || chown -R "$U:" "$H"
		# sysgate's state directory is guarded before any rule
		# (sysgate:state), the rest by the policy's no-secrets.
		local rule=no-secrets
		case $f in .local/state/sysgate/*) rule=sysgate:state ;; esac
		c "secret-$n"       - 1      "--type syscall --path $H/$f --action deny --rule $rule --errno EACCES" \
			cat "$H/$f"
		check "secret-$n-not-leaked" bash -c "! grep -q SECRET '$SG_OUT' '$SG_ERR'"
	done
	# ~/.npmrc (registry tokens) reads as an empty file, so that npm runs
	# with its defaults and no denial; writes to it are still denied.
	local npmrc=$H/.npmrc
	echo "//registry.example/:_authToken=SECRET npm token" >"$npmrc"
	[ "$U" = root ] || chown "$U:" "$npmrc"
	c npmrc-reads-empty     - 0      "--type syscall --path /dev/null --action rewrite --rule npmrc-empty --field paths.0.redirected_from=\"$npmrc\"; --action deny --count 0" \
		sh -c "test -z \"\$(cat '$npmrc')\" && echo read-empty"
	check npmrc-reads-empty-said grep -qx read-empty "$SG_OUT"
	check npmrc-not-leaked bash -c "! grep -q SECRET '$SG_OUT' '$SG_ERR'"
	c npmrc-write-denied    - 2      "--type syscall --path $npmrc --action deny --rule no-secrets --errno EACCES" \
		sh -c "echo registry=http://evil.example/ >> '$npmrc'"
	check npmrc-unchanged grep -qx "//registry.example/:_authToken=SECRET npm token" "$npmrc"
	if command -v npm >/dev/null; then
		# (npm's cache and logs in ~/.npm are another matter: no
		# denial of ~/.npmrc is asked here, not none at all.)
		SG_TIMEOUT=120 c npmrc-npm-runs - 0 "--type syscall --action rewrite --rule npmrc-empty --field paths.0.redirected_from=\"$npmrc\"; --path $npmrc --action deny --count 0" \
			npm config get registry
		check npmrc-npm-default-registry grep -qx "https://registry.npmjs.org/" "$SG_OUT"
	else
		echo "# npmrc-npm-runs: not run (no npm)"
	fi
	# Trails written where there is no usable home (/tmp/sysgate-UID) and
	# the private temp directories of other runs.
	local uid other_t other_d made_trail_dir=0
	uid=$(id -u "$U")
	other_t=/tmp/sysgate-$uid/20260101T000000Z-$$$$.jsonl
	other_d=/tmp/sysgate-20260101T000000Z-$$$$-$uid
	if [ ! -e "/tmp/sysgate-$uid" ]; then
		mkdir -m 0700 "/tmp/sysgate-$uid" && chown "$U:" "/tmp/sysgate-$uid" ||
			sg_harness_error "cannot create /tmp/sysgate-$uid"
		made_trail_dir=1
	fi
	mkdir -m 0700 "$other_d" || sg_harness_error "cannot create $other_d"
	echo "SECRET other trail" >"$other_t" || sg_harness_error "cannot write $other_t"
	echo "SECRET other tmpdir" >"$other_d/f"
	chown "$U:" "$other_d" "$other_t" "$other_d/f"
	c secret-other-trail-tmp - 1    "--type syscall --path $other_t --action deny --rule sysgate:state --errno EACCES" \
		cat "$other_t"
	check secret-other-trail-tmp-not-leaked bash -c "! grep -q SECRET '$SG_OUT' '$SG_ERR'"
	c secret-other-tmpdir   - 1      "--type syscall --path $other_d/f --action deny --rule no-other-runs --errno EACCES" \
		cat "$other_d/f"
	check secret-other-tmpdir-not-leaked bash -c "! grep -q SECRET '$SG_OUT' '$SG_ERR'"
	c own-tmpdir-readable   - 0      - sh -c 'echo mine > "$TMPDIR/f" && cat "$TMPDIR/f" | grep -q mine'
	rm -f "$other_t"
	rm -rf "$other_d"
	[ $made_trail_dir = 0 ] || rmdir "/tmp/sysgate-$uid"

	# --- the key that signs the trail, even in the working directory
	# (where the policy allows reads) and under another name
	"$SYSGATE" keygen "$W/audit.key" "$W/audit.pub" >/dev/null ||
		sg_harness_error "sysgate keygen failed"
	ln -f "$W/audit.key" "$W/alias.key"
	[ "$U" = root ] || chown "$U:" "$W/audit.key" "$W/audit.pub"
	local key
	key=$(cat "$W/audit.key")
	SG_RUN_OPTS="--sign-key $W/audit.key" \
	c sign-key-read         - 1      "--type syscall --path $W/audit.key --action deny --rule sysgate:sign-key --errno EACCES" \
		cat audit.key
	check sign-key-not-leaked bash -c "! grep -qF '$key' '$SG_OUT' '$SG_ERR'"
	SG_RUN_OPTS="--sign-key $W/audit.key" \
	c sign-key-hard-link    - 1      "--type syscall --path $W/alias.key --action deny --rule sysgate:sign-key --errno EACCES" \
		cat alias.key
	check sign-key-link-not-leaked bash -c "! grep -qF '$key' '$SG_OUT' '$SG_ERR'"
	check sign-key-trail-signed "$SYSGATE" verify "$SG_TRAIL" --key "$W/audit.pub"
	c no-sign-key-readable  - 0      - cat audit.pub
	rm -f "$W/audit.key" "$W/alias.key" "$W/audit.pub"

	# --- writes: only under the cwd, TMPDIR and a few devices
	c write-cwd             - 0      "--path $W/new.txt --action allow" \
		"$V/try-open" "$W/new.txt" wc
	c write-cwd-relative    - 0      - sh -c 'echo hi > rel.txt && cat rel.txt'
	c write-tmpdir          - 0      - \
		sh -c 'test -n "$TMPDIR" && test "$TMPDIR" != /tmp && echo x > "$TMPDIR/f" && rm "$TMPDIR/f"'
	c write-dev-null        - 0      - "$V/try-open" /dev/null w
	c write-dev-null-sh     - 0      - sh -c 'echo x > /dev/null'
	c write-outside         - EACCES "--path $O/data.txt --action deny --errno EACCES" \
		"$V/try-open" "$O/data.txt" w
	c create-outside        - EACCES "--path $O/new --action deny --errno EACCES" \
		"$V/try-open" "$O/new" wc
	# Hard-coded /tmp paths: a write, create, mkdir, rename or unlink
	# below /tmp is done in the run's private TMPDIR, and a read of what
	# the run made there finds it; the real /tmp gets nothing, and the
	# private TMPDIR goes at the end of the run.
	local a=/tmp/agent-out-$$-$U.txt d=/tmp/agent-d-$$-$U
	rm -rf "$a" "$d"
	c tmp-write-lands-private - 0  "--type syscall --path-prefix /tmp/sysgate-2 --action rewrite --rule tmp-private --field paths.0.redirected_from=\"$a\"; --type syscall --action rewrite --rule tmp-private-read --field paths.0.redirected_from=\"$a\"; --type syscall --syscall mkdir --action rewrite --rule tmp-private --field paths.0.redirected_from=\"$d\"; --type syscall --syscall renameat2 --action rewrite --rule tmp-private; --type syscall --syscall unlinkat --action rewrite --rule tmp-private; --action deny --count 0" \
		sh -c "echo agent-data > $a && grep -q agent-data $a && mkdir -p $d && echo x > $d/x && mv $d/x $d/y && test \"\$(cat $d/y)\" = x && rm $d/y && rmdir $d && test ! -e $d && ls -d /tmp >/dev/null && echo read-back-ok"
	check tmp-write-read-back grep -qx read-back-ok "$SG_OUT"
	check tmp-real-untouched test ! -e "$a" -a ! -e "$d"
	check tmp-private-gone sh -c "! ls -d /tmp/sysgate-*/agent-out-$$-$U.txt 2>/dev/null | grep -q ."
	# A /tmp file the run did not make is read where it is, and a write
	# to it changes only a copy in the private TMPDIR; /tmp itself stays.
	echo "PUBLIC real tmp" >"$leak"
	chmod 0644 "$leak"
	c tmp-read-real         - 0      "--type syscall --path $leak --action allow --rule read-anywhere" \
		"$V/try-open" --cat "$leak"
	check tmp-read-real-content grep -q "PUBLIC real tmp" "$SG_OUT"
	c tmp-write-real-private - 0     "--type syscall --action rewrite --rule tmp-private --field paths.0.redirected_from=\"$leak\"" \
		sh -c "echo changed > $leak && grep -q changed $leak"
	check tmp-real-unchanged grep -qx "PUBLIC real tmp" "$leak"
	c tmp-itself-kept       - EACCES "--type syscall --path /tmp --action deny --rule tmp-itself-unchanged --errno EACCES" \
		"$V/try-chmod" /tmp 0700
	check tmp-itself-mode test "$(stat -c %a /tmp)" = 1777
	rm -f "$leak"
	c write-bashrc          - EACCES "--path $H/.bashrc --action deny --errno EACCES" \
		"$V/try-open" "$H/.bashrc" a
	c write-authorized-keys - EACCES "--path $H/.ssh/authorized_keys --action deny" \
		"$V/try-open" "$H/.ssh/authorized_keys" wc
	c creat-outside         - EACCES "--syscall creat --path $O/new --action deny --errno EACCES" \
		"$V/try-open" --syscall creat "$O/new"
	c mkdir-outside         - EACCES "--syscall mkdir --path $O/d --action deny --errno EACCES" \
		"$V/try-mkdir" "$O/d"
	c unlink-outside        - EACCES "--syscall unlink --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-unlink" "$O/data.txt"
	c rename-outside        - EACCES "--syscall rename --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-rename" "$O/data.txt" "$W/stolen"
	c rename-to-outside     - EACCES "--syscall rename --path $O/put --action deny --errno EACCES" \
		"$V/try-rename" "$W/new.txt" "$O/put"
	c symlink-outside       - EACCES "--syscall symlink --path $O/sl --action deny --errno EACCES" \
		"$V/try-symlink" "$W/readme.txt" "$O/sl"
	c link-outside          - EACCES "--syscall link --path $O/hl --action deny --errno EACCES" \
		"$V/try-link" "$W/readme.txt" "$O/hl"
	c chmod-outside         - EACCES "--syscall chmod --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-chmod" "$O/data.txt" 0600
	c truncate-outside      - EACCES "--syscall truncate --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-truncate" "$O/data.txt" 0
	c fchmod-outside        - EACCES "--syscall fchmod --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-fdmeta" "$O/data.txt" chmod 4777
	c fchown-outside        - EACCES "--syscall fchown --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-fdmeta" "$O/data.txt" chown 0 0
	c futimens-outside      - EACCES "--syscall utimensat --path $O/data.txt --action deny --errno EACCES" \
		"$V/try-fdmeta" "$O/data.txt" touch
	c chattr-outside        - EACCES "--syscall ioctl --path $O/data.txt --action deny --errno EACCES --rule no-writes-elsewhere" \
		"$V/try-fdmeta" "$O/data.txt" chattr 80
	check chattr-outside-kept sh -c "lsattr '$O/data.txt' | grep -qv '^[^ ]*A'"
	# A unix socket bound to a path makes a file there: decided as a
	# create by the file rules too, not only as an address.
	c bind-unix-outside     - EACCES "--syscall bind --path $O/s.sock --action deny --errno EACCES --rule no-writes-elsewhere" \
		"$V/try-bind" unix "$O/s.sock"
	check bind-unix-outside-no-file test ! -e "$O/s.sock"
	c bind-unix-home        - EACCES "--syscall bind --path $H/s.sock --action deny --errno EACCES" \
		"$V/try-bind" unix "$H/s.sock"
	check bind-unix-home-no-file test ! -e "$H/s.sock"
	c bind-unix-cwd         - 0      "--syscall bind --path $W/s.sock --action allow" \
		"$V/try-bind" unix "$W/s.sock"
	check bind-unix-cwd-made test -S "$W/s.sock"
	check outside-untouched test -f "$O/data.txt" -a ! -e "$O/new" -a ! -e "$O/d" -a ! -e "$O/sl" \
		-a ! -e "$O/hl" -a ! -e "$O/put" -a "$(stat -c %a "$O/data.txt")" = 644 -a -s "$O/data.txt"

	# --- a denied create of an existing path answers EEXIST, like the kernel
	c mkdir-existing-outside - EEXIST - "$V/try-mkdir" "$O"
	c mkdir-existing-tmp    - EEXIST - "$V/try-mkdir" /tmp
	c mkdir-existing-root   - EEXIST - "$V/try-mkdir" /
	c mkdir-existing-home   - EEXIST - "$V/try-mkdir" "$H"
	c create-excl-existing-outside - EEXIST - "$V/try-open" "$O/data.txt" wcx
	c mkdir-p-abs-cwd       - 0      "--count 0 --action deny" mkdir -p "$W/a/b/c"
	check mkdir-p-made      test -d "$W/a/b/c"
	c mkdir-p-existing-outside - 0   "--count 0 --action deny" mkdir -p "$O"
	c mkdir-p-new-outside   - 1      "--path $O/x --action deny --errno EACCES" mkdir -p "$O/x/y"
	c install-d-cwd         - 0      "--count 0 --action deny" install -d "$W/inst/a/b"

	# --- exec
	c exec-installed        - 0      - /usr/bin/true
	c exec-installed-child  - 0      - "$V/try-exec" /bin/sh -c 'exit 0'
	c exec-cwd              - 4      - "$V/exit-with" 4
	c exec-cwd-relative     - 5      - ./vb/exit-with 5
	c exec-outside-cmd      - 126    "--type syscall --path $O/exit-with --action deny --errno EACCES" \
		"$O/exit-with" 0
	c exec-outside-child    - EACCES "--type syscall --path $O/exit-with --action deny --errno EACCES" \
		"$V/try-exec" "$O/exit-with" 0
	c exec-outside-sh       - 126    "--path $O/exit-with --action deny" \
		sh -c "'$O/exit-with' 0"

	# --- network: loopback and unix only
	sg_listen 127.0.0.1 0
	c connect-loopback      - 0      "--type syscall --syscall connect --ip 127.0.0.1 --port $SG_PORT --action allow" \
		"$V/try-connect" 127.0.0.1 "$SG_PORT"
	sg_listen_wait
	check connect-loopback-data grep -q hello "$SG_LISTEN_OUT"
	sg_listen ::1 0
	c connect-loopback6     - 0      "--syscall connect --port $SG_PORT --action allow" \
		"$V/try-connect" ::1 "$SG_PORT"
	sg_listen_wait
	sg_listen unix "$W/sock"
	c connect-unix-cwd      - 0      "--syscall connect --path $W/sock --action allow" \
		"$V/try-connect" unix "$W/sock"
	sg_listen_wait
	c connect-remote        - ENETUNREACH "--type syscall --syscall connect --ip 10.1.2.3 --port 80 --action deny --errno ENETUNREACH" \
		"$V/try-connect" 10.1.2.3 80
	c connect-remote-udp    - ENETUNREACH "--syscall connect --ip 10.1.2.3 --port 53 --action deny" \
		"$V/try-connect" --udp 10.1.2.3 53
	c connect-remote6       - ENETUNREACH "--syscall connect --port 443 --action deny --errno ENETUNREACH" \
		"$V/try-connect" 2001:db8::1 443
	c connect-mapped-remote - ENETUNREACH "--syscall connect --port 443 --action deny" \
		"$V/try-connect" ::ffff:10.1.2.3 443
	c connect-python        - 1      "--syscall connect --ip 10.1.2.3 --action deny" \
		$PY -c 'import socket,sys
try:
    socket.create_connection(("10.1.2.3", 80), timeout=3)
except OSError as e:
    sys.exit(1 if e.errno == 101 else 2)'
	c bind-loopback         - 0      "--syscall bind --ip 127.0.0.1 --action allow" \
		"$V/try-bind" 127.0.0.1 0
	c bind-unix-cwd         - 0      - "$V/try-bind" unix "$W/bound.sock"

	# --- privileged and escape-prone syscalls: EPERM
	local op
	for op in unshare mount bpf io_uring keyctl userfaultfd ptrace setns init_module; do
		c "privileged-$op"  - EPERM  - "$V/try-priv" "$op"
	done
	c unshare-cmd           - 1      - unshare -U true

	# --- shared memory
	c shm-c                 - 0      "--count 0 --action deny" "$V/try-shm" "/sysgate-test-$$-$U"
	c shm-python            - 0      "--count 0 --action deny" $PY -c '
from multiprocessing import shared_memory
m = shared_memory.SharedMemory(create=True, size=4096)
m.buf[:5] = b"hello"
n = shared_memory.SharedMemory(name=m.name)
assert bytes(n.buf[:5]) == b"hello"
n.close(); m.close(); m.unlink()'
}

sg_main cases
