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
	cat >> "$P/warn.ini" <<EOF
[rule guard]
syscalls = execve
path = /etc/sysgate-test-missing, /etc/sysgate-test-dir/file, /nonexistent/sysgate-test/guard
action = kill
[rule typo]
syscalls = execve
path = /etc/sysgate-test-missing-allowed, /ect/sysgate-test/allowed
action = allow
EOF
	sg_raw check "$P/warn.ini"
	check warn-status test "$SG_RC" = 0
	has warn-shadowed "^warning: $P/warn.ini:6: rule 'never' can never match: rule 'all-files' \\(line 3\\) decides all its calls first"
	has warn-missing "^warning: $P/warn.ini:10: path '/nonexistent/sysgate-test/file' does not exist"
	hasnt warn-existing "path '/etc/passwd' does not exist"
	hasnt warn-glob "/usr/bin/\\*\\*' does not exist"
	# A deny or kill rule may guard a file that does not exist here, an
	# allow rule name one a run will create: only a missing first
	# directory (a typo) is worth a warning.
	hasnt warn-guard-file "path '/etc/sysgate-test-missing' does not exist"
	hasnt warn-guard-subdir "path '/etc/sysgate-test-dir/file' does not exist"
	has warn-guard-dir "^warning: $P/warn.ini:18: path '/nonexistent/sysgate-test/guard' does not exist"
	hasnt warn-allow-file "path '/etc/sysgate-test-missing-allowed' does not exist"
	has warn-allow-typo "^warning: $P/warn.ini:22: path '/ect/sysgate-test/allowed' does not exist"
	# Each run makes its own TMPDIR: no path under it is missing.
	hasnt warn-tmpdir "sysgate-RUN"
	# Rules an include brings in are named by their own file and line.
	policy base <<EOF
[policy]
default = allow
[rule base-exec]
syscalls = execve
action = allow
[rule base-exec-again]
syscalls = execve
path = /usr/bin/id
action = deny
[rule base-typo]
syscalls = execve
path = /ect/sysgate-test/base
action = deny
EOF
	policy top <<EOF
[policy]
include = $P/base.ini
[rule top-no-exec]
syscalls = execve
action = deny
EOF
	sg_raw check "$P/top.ini"
	check inc-status test "$SG_RC" = 0
	# Overridden on purpose by the including file: a note, not a warning.
	has inc-override "^note: $P/base.ini:3: rule 'base-exec' is overridden: rule 'top-no-exec' \\($P/top.ini:3\\) decides all its calls first"
	hasnt inc-override-no-warning "^warning: .*rule 'base-exec' can never"
	# Shadowed within the include: a warning, placed in the include.
	has inc-shadow "^warning: $P/base.ini:6: rule 'base-exec-again' can never match: rule 'base-exec' \\(line 3\\)"
	has inc-missing "^warning: $P/base.ini:10: path '/ect/sysgate-test/base' does not exist"
	sg_raw check "$P/top.ini" --explain "execve /usr/bin/id"
	has inc-explain-own "^  rule 'top-no-exec' \\(line 3\\): yes: it decides"
	has inc-explain-decision "^decision: deny EACCES by rule 'top-no-exec' \\(line 3\\)|^decision: deny EPERM by rule 'top-no-exec' \\(line 3\\)"
	sg_raw check "$P/base.ini" --explain "execve /usr/bin/id"
	has inc-explain-base "^decision: allow by rule 'base-exec' \\(line 3\\)"
	policy top2 <<EOF
[policy]
include = $P/base.ini
[rule top-other]
syscalls = openat
action = allow
EOF
	sg_raw check "$P/top2.ini" --explain "execve /usr/bin/id"
	has inc-explain-included "^  rule 'base-exec' \\($P/base.ini:3\\): yes: it decides"
	has inc-explain-included-decision "^decision: allow by rule 'base-exec' \\($P/base.ini:3\\)"

	# Mistakes that still make a valid policy: warned about by file,
	# line and key.
	policy mistakes <<'EOF'
[policy]
default = allow
[rule classes]
syscalls = openat
path = /tmp/[ab], /x/$HOME/y
action = deny
EOF
	sg_raw check "$P/mistakes.ini"
	check mistakes-status test "$SG_RC" = 0
	check warn-class grep -qF -- "warning: $P/mistakes.ini:5: path = /tmp/[ab]: '[' is a plain character in sysgate globs, not a class" "$SG_OUT"
	check warn-dollar grep -qF -- "warning: $P/mistakes.ini:5: path = /x/\$HOME/y: '\$HOME' is a literal name here (a variable is written \${HOME})" "$SG_OUT"
	# A run says them too, before the command starts; -q does not.
	sg_run -r "$P/mistakes.ini" -- true
	check run-warns grep -qF -- "sysgate: warning: $P/mistakes.ini:5: path = /tmp/[ab]: '[' is a plain character" "$SG_ERR"
	sg_run -q -r "$P/mistakes.ini" -- true
	check run-quiet-no-warning sh -c "! grep -q warning '$SG_ERR'"
	: >"$P/empty.ini"
	sg_raw check "$P/empty.ini"
	has warn-empty "^warning: $P/empty.ini: the policy has no rule and its default is deny: it denies every call"
	# And the mistakes that make none: the error names what was meant.
	printf '[rule r]\nsyscalls = openat\naction = denied\n' >"$P/denied.ini"
	sg_raw check "$P/denied.ini"
	check denied-status test "$SG_RC" = 125
	check denied-message grep -qF -- "$P/denied.ini:3: unknown action 'denied' (did you mean 'deny'?)" "$SG_ERR"

	sg_raw check default
	hasnt default-no-tmpdir-warning "sysgate-RUN"
	# The built-in policy's secrets that this machine lacks (~/.netrc,
	# /etc/sudoers) are guards, not mistakes.
	hasnt default-no-warning "^warning:"
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

# agree NAME CALL WANT -- CMD...: what `sysgate check --explain CALL` says
# is what a run of CMD (a victim that makes that call once and exits with
# the errno it saw) does: WANT is the explanation ("ACTION [ERRNO] BY
# RECORDED", BY a rule, a sysgate:... check, "guard" or "default"); the
# victim's errno is the one it names, and the trail has the call, with
# that action, errno and rule, exactly when it says "recorded: yes".
agree() {
	local name=$1 call=$2 want=$3 dec rec action errname by syscall path
	local q want_rc
	shift 4
	sg_raw check "$P/agree.ini" --explain "$call"
	dec=$(sed -n 's/^decision: //p' "$SG_OUT")
	rec=$(sed -n 's/^recorded: \([a-z]*\).*/\1/p' "$SG_OUT")
	action=${dec%% *}
	errname=
	[ "$action" = deny ] && errname=$(echo "$dec" | cut -d' ' -f2)
	case $dec in
	*" by rule '"*) by=${dec#* by rule \'}; by=${by%%\'*} ;;
	*" by sysgate:"*) by=${dec#* by }; by=${by%%,*} ;;
	*" by sysgate's guard filter"*) by=guard ;;
	*" by the policy default"*) by=default ;;
	*) by="?" ;;
	esac
	syscall=$(sed -n 's/^call: \([^ ]*\).*/\1/p' "$SG_OUT")
	path=$(sed -n 's/^call: [^ ]* \(\/[^ ]*\) (access .*/\1/p' "$SG_OUT")
	check "$name-explained" test "$action${errname:+ $errname} $by $rec" = "$want"
	sg_run -r "$P/agree.ini" -- "$@"
	want_rc=0
	[ "$action" = deny ] && want_rc=$(sg_errno "$errname")
	check "$name-errno" test "$SG_RC" = "$want_rc"
	q=(--type syscall --syscall "$syscall")
	[ -n "$path" ] && q+=(--path "$path")
	if [ "$rec" = yes ]; then
		q+=(--action "$action")
		[ -n "$errname" ] && q+=(--errno "$errname")
		case $by in
		default) q+=(--rule null) ;;
		guard) ;;
		*) q+=(--rule "$by") ;;
		esac
		check "$name-recorded" $PY "$AUDITQ" "$SG_TRAIL" "${q[@]}"
	else
		check "$name-not-recorded" $PY "$AUDITQ" "$SG_TRAIL" "${q[@]}" --count 0
	fi
}

# check --explain against real runs: the built-in checks before the
# rules, the guards and the calls the kernel decides unrecorded.
agreement() {
	policy agree <<EOF
[policy]
default = allow
[rule no-aws]
syscalls = @file
path = \${HOME}/.aws/**
action = deny
errno = EACCES
[rule no-ptrace]
syscalls = ptrace
action = deny
audit = no
EOF
	cp "$B/try-nr" "$B/try-open" "$W/"
	agree proc-environ "openat /proc/1/environ read" \
		"deny EACCES sysgate:outside-tree yes" -- "$W/try-open" /proc/1/environ
	agree proc-stat "openat /proc/1/stat read" "allow default yes" \
		-- "$W/try-open" /proc/1/stat
	agree aws "openat $H/.aws/credentials read" "deny EACCES no-aws yes" \
		-- "$W/try-open" "$H/.aws/credentials"
	agree own-policy "openat $P/agree.ini write" \
		"deny EACCES sysgate:config yes" -- "$W/try-open" "$P/agree.ini" w
	agree kernel-allow "getpid arg0=-1" "allow default no" \
		-- "$W/try-nr" 39
	agree kernel-deny "ptrace arg0=-1" "deny EPERM no-ptrace no" \
		-- "$W/try-nr" 101
	agree guard "clone3 arg0=-1" "deny ENOSYS guard no" -- "$W/try-nr" 435
	agree unknown "600 arg0=-1" "deny ENOSYS sysgate:unknown-syscall yes" \
		-- "$W/try-nr" 600
	agree unmediated "io_uring_setup arg0=-1" \
		"deny EPERM sysgate:unmediated yes" -- "$W/try-nr" 425
}

all() {
	cases
	agreement
}

sg_main all
