#!/bin/bash
# SPDX-License-Identifier: MIT
# System-wide state (SECURITY.md, *State the whole system shares*),
# each change judged from outside
# the tree: the host name of a UTS namespace the test made (never the
# host's), SysV IPC objects made outside the tree that the tree tries to
# remove, change, attach, send to or take from, a POSIX message queue
# that must not outlive the run, and a core dump that must not land in
# an outside directory the tree chdir'd to.  The tree's own SysV objects
# keep working.  Under the built-in default policy, as root and nobody.
. "$(dirname "$0")/lib.sh"
sg_init

: "${SG_TIMEOUT:=20}"
BIN=$B

# in_uts NAME SCRIPT: run SCRIPT (sh) as U in a UTS namespace of its own
# whose host name is first set to sg-orig (nobody: in a user namespace
# of its own too, where it may set it natively).  Output in $R/NAME.out.
in_uts() {
	local name=$1 script=$2 ns=(unshare -u)
	[ "$U" = root ] || ns=(unshare -Uru)
	sg_envs
	(cd "$W" && timeout -k 5 "$SG_TIMEOUT" "${SG_AS[@]}" "${ns[@]}" \
		env -i "${SG_ENVS[@]}" SYSGATE="$SYSGATE" TRAIL="$R/$name.jsonl" \
		sh -c "hostname sg-orig && $script") >"$R/$name.out" 2>"$R/$name.err" </dev/null
}

# ipc_exists KIND ID: the object is still listed in /proc/sysvipc/KIND.
ipc_exists() {
	awk -v id="$2" 'NR > 1 && $2 == id { f = 1 } END { exit !f }' "/proc/sysvipc/$1"
}

# ipc_field KIND ID N: field N of its line.
ipc_field() {
	awk -v id="$2" -v n="$3" 'NR > 1 && $2 == id { print $n }' "/proc/sysvipc/$1"
}

# mk KIND: a SysV object made natively as U, outside the tree; its id.
mk() {
	as_user ipcmk "$@" | awk '{ print $NF }'
}

hostname_cases() {
	local op
	for op in sethostname setdomainname; do
		in_uts "uts-native-$op" "\"$B/try-sysstate\" $op sg-evil; hostname; domainname"
		grep -qx sg-evil "$R/uts-native-$op.out" ||
			sg_harness_error "native $op as $U did not work: $(cat "$R/uts-native-$op.err")"
		in_uts "uts-$op" "\$SYSGATE run -a \$TRAIL -- \"$B/try-sysstate\" $op sg-evil; echo rc=\$?; hostname; domainname"
		check "$op-refused" grep -qx "rc=$(sg_errno EPERM)" "$R/uts-$op.out"
		check "$op-unchanged" bash -c '! grep -qx sg-evil "$1" && grep -qx sg-orig "$1"' _ "$R/uts-$op.out"
		check "$op-recorded" "$PY" "$AUDITQ" "$R/uts-$op.jsonl" --type syscall \
			--syscall "$op" --action deny --rule no-system-state
	done
}

# sysv_case NAME KIND OP: the tree tries OP on an object U made
# outside the tree (ID: its id); then the object must still be there.
sysv_case() {
	local mkopt
	case $2 in
	msg) mkopt=(-Q) ;;
	shm) mkopt=(-M 4096) ;;
	sem) mkopt=(-S 1) ;;
	esac
	ID=$(mk "${mkopt[@]}")
	[ -n "$ID" ] || sg_harness_error "ipcmk ${mkopt[*]} failed as $U"
	[ "$3" != msg-recv ] || native 0 "$B/try-sysstate" msg-send "$ID"
	c "$1" - EPERM "--type syscall --action deny --rule sysgate:ipc-outside-tree" \
		"$B/try-sysstate" "$3" "$ID"
	check "$1-still-there" ipc_exists "$2" "$ID"
}

sysv_cases() {
	local nq nm ns op
	# Natively, U may do all of it to its own objects: the attacks
	# work without sysgate.
	nq=$(mk -Q) nm=$(mk -M 4096) ns=$(mk -S 1)
	for op in msg-send msg-recv msg-rmid; do
		native 0 "$B/try-sysstate" "$op" "$nq"
	done
	for op in shm-attach shm-set shm-rmid; do
		native 0 "$B/try-sysstate" "$op" "$nm"
	done
	for op in sem-op sem-rmid; do
		native 0 "$B/try-sysstate" "$op" "$ns"
	done

	for op in rmid send recv; do
		sysv_case "msg-$op" msg "msg-$op"
		[ $op = rmid ] || check "msg-$op-count-kept" \
			test "$(ipc_field msg "$ID" 5)" = "$([ $op = send ] && echo 0 || echo 1)"
		as_user ipcrm -q "$ID"
	done
	for op in rmid set attach; do
		sysv_case "shm-$op" shm "shm-$op"
		[ $op != set ] || check shm-set-mode-kept test "$(ipc_field shm "$ID" 3)" = 644
		[ $op != attach ] || check shm-attach-none test "$(ipc_field shm "$ID" 7)" = 0
		as_user ipcrm -m "$ID"
	done
	for op in rmid op; do
		sysv_case "sem-$op" sem "sem-$op"
		[ $op != op ] || check sem-op-value-kept \
			bash -c 'ipcs -s -i "$1" | grep -Eq "^0[[:space:]]+0[[:space:]]"' _ "$ID"
		as_user ipcrm -s "$ID"
	done
	ID=$(mk -Q)
	c ipcrm-tool - 1 - ipcrm -q "$ID"
	check ipcrm-tool-still-there ipc_exists msg "$ID"
	as_user ipcrm -q "$ID"

	# The tree's own objects: private ones and a keyed queue.
	c own-ipc - 0 "--type syscall --syscall shmget --action allow" \
		"$B/try-sysstate" own-ipc
	local key=$((0x5900000 + RANDOM))
	c own-key - 0 - "$B/try-sysstate" own-key "$key"
	check own-key-removed bash -c '! awk -v k="$1" "NR > 1 && \$1 == k { f = 1 } END { exit !f }" /proc/sysvipc/msg' _ "$key"
	# A get a rule rewrites is made by the supervisor all the same.
	policy rw <<'EOF'
[policy]
default = allow
[rule rw]
syscalls = msgget
arg1_set = 0x1ff
action = rewrite
EOF
	c own-ipc-rewritten rw 0 "--type syscall --syscall msgget --action rewrite" \
		"$B/try-sysstate" own-ipc
	# One the tree leaves behind is gone with the run.
	key=$((0x5a00000 + RANDOM))
	c own-leave - 0 "--type run.end --field ipc_removed=1" \
		"$B/try-sysstate" own-leave "$key"
	check own-leave-removed bash -c '! awk -v k="$1" "NR > 1 && \$1 == k { f = 1 } END { exit !f }" /proc/sysvipc/msg' _ "$key"
}

mqueue_cases() {
	local name=/sg-mq-$$-$U
	native 0 "$B/try-sysstate" mq-open "$name"
	native 0 "$B/try-sysstate" mq-exists "$name"
	as_user "$B/try-sysstate" mq-unlink "$name"
	c mq-open - EPERM "--type syscall --syscall mq_open --action deny --rule no-system-state" \
		"$B/try-sysstate" mq-open "$name"
	check mq-not-left as_user bash -c '"$1" mq-exists "$2"; [ $? = 2 ]' _ "$B/try-sysstate" "$name"
	as_user "$B/try-sysstate" mq-unlink "$name" 2>/dev/null
}

core_cases() {
	local d=$O/crash
	if [ "$(head -c1 /proc/sys/kernel/core_pattern)" = '|' ]; then
		# The kernel pipes cores to a program: no file attack to
		# try, nothing of it is checked here.
		echo "# core_pattern pipes to a program: the core file cases are not run"
		c core-limit-raise - EPERM "--type syscall --rule sysgate:core-limit --action deny" \
			"$B/try-sysstate" core-limit
		return
	fi
	rm -rf "$d"
	mkdir -p "$d"
	[ "$U" = root ] || chown "$U:" "$d"
	echo PLANTED >"$d/core"
	[ "$U" = root ] || chown "$U:" "$d/core"
	# Natively the crash replaces the planted file with a core.
	native sig:SEGV "$B/try-sysstate" crash "$d"
	if grep -qx PLANTED "$d/core"; then
		check core-native-dump-unavailable false
	fi
	echo PLANTED >"$d/core"
	[ "$U" = root ] || chown "$U:" "$d/core"
	c core-crash - sig:SEGV "--type proc.exit --signal SIGSEGV --field core_dump=\"prevented\"" \
		"$B/try-sysstate" crash "$d"
	check core-not-written grep -qx PLANTED "$d/core"
	check core-no-other bash -c '[ "$(ls "$1" | wc -l)" = 1 ]' _ "$d"
	c core-limit-raise - EPERM "--type syscall --rule sysgate:core-limit --action deny" \
		"$B/try-sysstate" core-limit
	c core-limit-zero - 0 "--type syscall --syscall prlimit64 --action allow" \
		"$B/try-sysstate" core-limit-zero
}

# lease_held FILE: /proc/locks shows a lease on FILE's inode.
lease_held() {
	local ino
	ino=$(stat -c %i "$1") || return 1
	awk -v ino="$ino" '$2 == "LEASE" { n = split($6, f, ":"); if (f[n] == ino) h = 1 } END { exit !h }' /proc/locks
}

# lease_case NAME FILE PREFIX...: PREFIX (a sysgate
# run, or nothing: natively) takes a read lease on FILE and holds it 3 s;
# seen from outside, /proc/locks lists it or not.  Sets LEASE_SEEN and
# LEASE_ERR (the errno the taker saw).
lease_case() {
	local name=$1 file=$2 out=$R/$1.out i
	shift 2
	sg_envs
	(cd "$W" && exec timeout -k 5 20 "${SG_AS[@]}" env -i "${SG_ENVS[@]}" \
		"$@" "$B/try-sysstate" lease "$file" 3) >"$out" 2>"$R/$name.err" </dev/null &
	local pid=$!
	for i in $(seq 100); do
		grep -q '^lease ' "$out" 2>/dev/null && break
		sleep 0.1
	done
	LEASE_SEEN=no
	lease_held "$file" && LEASE_SEEN=yes
	LEASE_ERR=$(sed -n 's/^lease //p' "$out")
	wait "$pid"
}

lease_cases() {
	echo "PUBLIC outside" >"$O/lease.txt"
	echo "PUBLIC inside" >"$W/lease.txt"
	[ "$U" = root ] || chown "$U:" "$O/lease.txt" "$W/lease.txt"
	lease_case lease-native "$O/lease.txt"
	[ "$LEASE_SEEN" = yes ] && [ "$LEASE_ERR" = 0 ] ||
		sg_harness_error "a native lease as $U was not seen (err ${LEASE_ERR:-none})"
	lease_case lease-outside "$O/lease.txt" "$SYSGATE" run -a "$R/lease-outside.jsonl" --
	check lease-outside-refused test "$LEASE_ERR" = "$(sg_errno EACCES)"
	check lease-outside-not-held test "$LEASE_SEEN" = no
	check lease-outside-recorded "$PY" "$AUDITQ" "$R/lease-outside.jsonl" --type syscall \
		--syscall fcntl --path "$O/lease.txt" --action deny --rule no-writes-elsewhere
	# In the write area a lease is the tree's business.
	lease_case lease-inside "$W/lease.txt" "$SYSGATE" run -a "$R/lease-inside.jsonl" --
	check lease-inside-taken test "$LEASE_ERR" = 0
	check lease-inside-held test "$LEASE_SEEN" = yes
}

cases() {
	B=$W/vb
	rm -rf "$B"
	cp -r "$BIN" "$B"
	[ "$U" = root ] || chown -R "$U:" "$W"
	hostname_cases
	sysv_cases
	mqueue_cases
	c quotactl - EPERM "--type syscall --syscall quotactl --action deny" \
		"$B/try-sysstate" quota
	lease_cases
	core_cases
}

sg_main cases
