#!/bin/bash
# SPDX-License-Identifier: MIT
# The escape suite (SECURITY.md): one attack program
# per way around the supervisor (tests/helpers/attack-*.c), each judged by
# its forbidden effect seen from OUTSIDE the tree wherever there is one: a
# marker file that must not exist, a process outside the tree that must
# still be alive and must not have got a signal, a supervisor that must
# still be there to write run.end, a trail that `sysgate verify` accepts
# and that holds no junk, a secret that is not in the attacker's output.
# The attackers' exit statuses (the errno they saw) are checked too.
#
# Policies: - (the built-in default) and "open" (default = allow, no
# rules: the checks SECURITY.md says no policy can switch off must hold
# there too).
. "$(dirname "$0")/lib.sh"
sg_init

# A hole here can leave a supervisor stopped or dead: do not wait long.
: "${SG_TIMEOUT:=10}"
BIN=$B

URG=$(kill -l URG)
JUNK=ESCAPE-JUNK

# no_text NAME FILE TEXT: FILE does not contain TEXT.
no_text() {
	check "$1" bash -c '! grep -qF -- "$1" "$2"' _ "$3" "$2"
}

# alive NAME PID: PID still exists (not even a zombie).
alive() {
	check "$1" bash -c 's=$(cat /proc/$1/stat 2>/dev/null) || exit 1; s=${s##*) }; [ "${s%% *}" != Z ]' _ "$2"
}

# trail_ok NAME TRAIL: the trail verifies and holds no junk.
trail_ok() {
	check "$1-verify" "$SYSGATE" verify "$2"
	no_text "$1-no-junk" "$2" "$JUNK"
}

# Outside the tree: a witness in its own process group (same session)
# that records every catchable signal, and a plain sleep.
start_outsiders() {
	WD=$O/witness
	mkdir -p "$WD"
	rm -f "$WD"/got-* "$O/witness.pid"
	[ "$U" = root ] || chown "$U:" "$WD"
	"${SG_AS[@]}" "$B/attack-witness" "$O/witness.pid" "$WD" 300 >/dev/null 2>&1 &
	SG_BG_PIDS+=($!)
	"${SG_AS[@]}" sleep 300 &
	SLEEP=$!
	SG_BG_PIDS+=($SLEEP)
	for _ in $(seq 100); do
		[ -s "$O/witness.pid" ] && break
		sleep 0.02
	done
	[ -s "$O/witness.pid" ] || sg_harness_error "the witness did not start"
	WIT=$(cat "$O/witness.pid")
	WIT_CPUS=$(grep Cpus_allowed_list "/proc/$WIT/status")
}

untouched() {
	alive "$1-sleep-alive" "$SLEEP"
	alive "$1-witness-alive" "$WIT"
	check "$1-witness-no-signal" bash -c '! ls "$1"/got-* >/dev/null 2>&1' _ "$WD"
}

# A descriptor swapped under a call that takes it by number, by a task
# that a sharer of the caller's fd table created just before the
# supervisor could see it: the sharer is killed at its clone event while
# the supervisor is stopped, so its new task is known only at its own
# first stop, after the caller was answered as alone with its table.  It
# must not run before the caller has taken its fd (supervisor/tracee.c,
# tracee_hold_new()); attack-orphan starves the caller of its CPU
# meanwhile, so that the new task would win (before the hold: every run
# as root, half of them as nobody).
# orphan_case NAME pidfd|setflags ARG1 ARG2: judged by the caller (below).
orphan_case() {
	local name=$1 tr=$R/$1.jsonl out=$R/$1.out
	local sup rfd wfd w a b want i nr=- st rc
	shift
	sg_envs
	rm -f "$tr"
	coproc ORPHAN { cd "$W" && exec "${SG_AS[@]}" env -i "${SG_ENVS[@]}" \
		"$SYSGATE" run -q -a "$tr" -- "$B/attack-orphan" "$@" 2>&1; }
	sup=$ORPHAN_PID
	# Kept past the coproc's end (bash unsets ORPHAN then).
	exec {rfd}<&"${ORPHAN[0]}" {wfd}>&"${ORPHAN[1]}"
	if ! read -r -t 10 w a b want <&$rfd || [ "$w" != ready ]; then
		check "$name-started (${w:-nothing} ${a:-} ${b:-})" false
		kill -KILL "$sup" 2>/dev/null
		wait "$sup" 2>/dev/null
		exec {rfd}<&- {wfd}>&-
		return
	fi
	kill -STOP "$sup"
	echo clone >&$wfd
	for i in $(seq 400); do
		grep -q '^State:.*tracing stop' "/proc/$b/status" 2>/dev/null && break
		sleep 0.005
	done
	st=$(grep '^State:' "/proc/$b/status" 2>/dev/null | tr -s '\t ' ' ')
	kill -KILL "$b"
	echo send >&$wfd
	for i in $(seq 400); do
		read -r nr _ <"/proc/$a/syscall" 2>/dev/null
		[ "$nr" = "$want" ] && break
		sleep 0.005
	done
	sleep 0.05	# the spinner spins from 20 ms on, for 200 ms
	kill -CONT "$sup"
	timeout 10 cat <&$rfd >"$out"
	exec {rfd}<&- {wfd}>&-
	# Bounded: a task held for good would keep the run alive (137 then).
	for i in $(seq 100); do
		kill -0 "$sup" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$sup" 2>/dev/null
	wait "$sup"
	rc=$?
	check "$name-sharer-at-its-clone-event (${st:-gone})" grep -q 'tracing stop' <<<"$st"
	check "$name-caller-in-its-call (syscall $nr, not $want)" test "$nr" = "$want"
	# Done on its own fd (0), or refused as shared (EPERM): the
	# supervisor saw the new task first.
	check "$name-done-or-refused (status $rc: $(tr '\n' ' ' <"$out"))" test "$rc" = 0 -o "$rc" = 1
	trail_ok "$name" "$tr"
}

# SIGKILL the supervisor while the tree creates files: the tree must be
# dead within 2 s and no file may appear after the supervisor is gone.
kill_supervisor_case() {
	local d=$W/loop pf=$W/loop.pids tr=$R/loop.jsonl pid n1 n2 p dead=0 i
	mkdir -p "$d"
	rm -f "$pf"
	[ "$U" = root ] || chown "$U:" "$d" "$W"
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" \
		"$SYSGATE" run -a "$tr" -- "$B/attack-loop" "$d" "$pf" 20) \
		>/dev/null 2>&1 </dev/null &
	pid=$!
	for _ in $(seq 200); do
		[ "$(wc -l <"$pf" 2>/dev/null)" = 2 ] &&
			[ "$(find "$d" -type f | wc -l)" -ge 50 ] && break
		sleep 0.02
	done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	sg_reap_tmpdir "$tr"
	n1=$(find "$d" -type f | wc -l)
	for i in $(seq 40); do
		dead=1
		for p in $(cat "$pf"); do
			if s=$(cat /proc/"$p"/stat 2>/dev/null); then
				s=${s##*) }
				[ "${s%% *}" = Z ] || dead=0
			fi
		done
		[ $dead = 1 ] && break
		sleep 0.05
	done
	sleep 0.3
	n2=$(find "$d" -type f | wc -l)
	check "supervisor-killed-tree-started" test "$n1" -ge 50
	check "supervisor-killed-tree-dead-in-2s" test $dead = 1
	check "supervisor-killed-no-file-after ($n1 then $n2)" test "$n1" = "$n2"
	for p in $(cat "$pf"); do kill -KILL "$p" 2>/dev/null; done
}

# The private TMPDIR is removed at the end of the run while a process
# OUTSIDE sysgate, as the same user, swaps a directory the command left in
# it for a symlink to a directory of its own, again and again: removing
# the tree must never reach through the symlink (a root sysgate with
# --user would otherwise delete files anywhere for that user).
tmpdir_race_case() {
	local v=$O/victim tf=$W/tmpdir.where i n
	rm -rf "$v" "$tf"
	mkdir -p "$v"
	for i in $(seq 300); do : >"$v/f$i"; done
	[ "$U" = root ] || chown -R "$U:" "$v" "$W"
	"${SG_AS[@]}" timeout -k 2 20 "$PY" - "$tf" "$v" <<'PYEOF' &
import os, sys, time
where, victim = sys.argv[1], sys.argv[2]
end = time.monotonic() + 15
while not os.path.exists(where) and time.monotonic() < end:
    time.sleep(0.001)
t = open(where).read().strip()
d, x = os.path.join(t, "d"), os.path.join(t, "x")
while os.path.lexists(t) and time.monotonic() < end:
    try:
        os.rename(d, x)
    except OSError:
        continue
    try:
        os.symlink(victim, d)
        os.unlink(d)
        os.rename(x, d)
    except OSError:
        pass
PYEOF
	local swapper=$!
	c tmpdir-removal-race open 0 - sh -c \
		'mkdir "$TMPDIR/d" && cd "$TMPDIR/d" && for i in $(seq 300); do : >"f$i"; done &&
		 echo "$TMPDIR" >"$1.tmp" && mv "$1.tmp" "$1" && sleep 0.3' _ "$tf"
	wait "$swapper"
	n=$(find "$v" -type f | wc -l)
	check "tmpdir-removal-race-victim-intact ($n of 300 left)" test "$n" = 300
	# It may win some turns and keep the tree from going (it has the
	# rights to); then sysgate says so.  Nothing is left silently.
	local t
	t=$(cat "$tf")
	check tmpdir-removal-race-removed-or-said sh -c \
		'test -n "$1" && { test ! -e "$1" || grep -q "cannot remove the private temp dir $1" "$2"; }' _ "$t" "$SG_ERR"
	case $t in
	/tmp/sysgate-*) rm -rf "$t" ;;
	esac

	# A tree 100 directories deep is removed; one deeper than 128 is
	# left in place (a descriptor is open per level), and sysgate says so.
	local depth where
	for depth in 100 140; do
		rm -f "$tf"
		c "tmpdir-deep-$depth" open 0 - sh -c \
			'cd "$TMPDIR" && i=0 && while [ $i -lt $2 ]; do mkdir d && cd d && i=$((i + 1)); done &&
			 : >f && echo "$TMPDIR" >"$1"' _ "$tf" "$depth"
		where=$(cat "$tf")
		if [ "$depth" = 100 ]; then
			check tmpdir-deep-100-removed test ! -e "$where"
		else
			check tmpdir-deep-140-left test -d "$where/d"
			check tmpdir-deep-140-says-why grep -q "cannot remove the private temp dir $where" "$SG_ERR"
			case $where in
			/tmp/sysgate-*) rm -rf "$where" ;;
			esac
		fi
	done
}

# A Python program that runs its first argument and exits with the errno
# it raised (0: none).
ERRNO_OF='
import ctypes, os, resource, sys, time
libc = ctypes.CDLL(None, use_errno=True)
def oserr():
    raise OSError(ctypes.get_errno(), "")
try:
    exec(sys.argv[1])
except OSError as e:
    sys.exit(e.errno)'

cases() {
	policy open <<'EOF'
[policy]
default = allow
EOF
	# A policy that names ioctl: the supervisor decides it, and the guard
	# filter is loaded under the policy filter (rules_filter_has_guards()).
	policy ioctl <<'EOF'
[policy]
default = allow
[rule i]
syscalls = ioctl
action = allow
EOF
	local S=$H/.ssh/id_rsa SECRET="SECRET ssh key" pol tag
	# The default policy runs installed programs and the project's own:
	# the victims go into the work dir.
	B=$W/vb
	rm -rf "$B"
	cp -r "$BIN" "$B"
	[ "$U" = root ] || chown -R "$U:" "$W"
	start_outsiders
	tmpdir_race_case

	# --- other ABIs, untraced children, terminal injection, *xattrat
	# (the guards: any policy, held by the policy filter or by the guard
	# filter under it)
	native ENOTTY "$B/attack-guard" tiocsti
	for pol in - open ioctl; do
		tag=${pol/-/default}
		rm -rf "$W"/m-*
		c "x32-killed-$tag" "$pol" sig:SYS - "$B/attack-abi" x32-mkdir "$W/m-x32"
		check "x32-no-marker-$tag" test ! -e "$W/m-x32"
		c "clone3-enosys-$tag" "$pol" ENOSYS - "$B/attack-clone" clone3 "$W/m-c3"
		check "clone3-no-child-$tag" test ! -e "$W/m-c3"
		for m in untraced untraced-vfork untraced-thread; do
			c "clone-$m-eperm-$tag" "$pol" EPERM - "$B/attack-clone" "$m" "$W/m-$m"
			check "clone-$m-no-child-$tag" test ! -e "$W/m-$m"
		done
		for m in tiocsti tioclinux tiocsti-hi; do
			c "$m-eperm-$tag" "$pol" EPERM - "$B/attack-guard" "$m"
		done
		c "setxattrat-enosys-$tag" "$pol" ENOSYS - "$B/attack-guard" setxattrat
		# On a tmpfs (which cannot be frozen: were the guard broken,
		# nothing would be), root's EOPNOTSUPP and EINVAL become EPERM.
		c "fifreeze-eperm-$tag" "$pol" EPERM - "$B/attack-guard" fifreeze /dev/shm
		c "fithaw-eperm-$tag" "$pol" EPERM - "$B/attack-guard" fithaw /dev/shm
	done

	# --- reaching into the supervisor
	c ptrace-attach-super - EPERM "--type syscall --syscall ptrace --action deny; --type run.end" \
		"$B/attack-super" ptrace-attach
	c ptrace-attach-super-open open EPERM "--type run.end" "$B/attack-super" ptrace-attach
	c ptrace-seize-super-open open EPERM "--type run.end" "$B/attack-super" ptrace-seize
	c vm-read-super - EPERM "--type syscall --syscall process_vm_readv --action deny" \
		"$B/attack-super" vm-read
	c vm-read-super-open open EPERM "--type run.end" "$B/attack-super" vm-read
	c vm-write-super-open open EPERM "--type run.end" "$B/attack-super" vm-write
	local form fl
	for form in mem task-mem dotdot-mem at-mem environ task-environ; do
		for fl in r w; do
			c "proc-$form-$fl-super" - "EACCES" "--type syscall --rule sysgate:supervisor --action deny" \
				"$B/attack-super" proc "$form" "$fl"
			no_text "proc-$form-$fl-super-not-opened" "$SG_OUT" OPENED
			# Under a policy that mediates no open, the kernel
			# decides: root without CAP_SYS_PTRACE can still read
			# a non-dumpable process's environ (SECURITY.md).
			case $U:$form in
			root:*environ) continue ;;
			esac
			c "proc-$form-$fl-super-open" open "EACCES|EPERM" "--type run.end" \
				"$B/attack-super" proc "$form" "$fl"
			no_text "proc-$form-$fl-super-open-not-opened" "$SG_OUT" OPENED
		done
	done
	# /proc of a process outside the tree (the witness)
	for form in mem task-mem environ task-environ; do
		c "proc-$form-outside" - "EACCES" "--type syscall --rule sysgate:outside-tree --action deny" \
			"$B/attack-super" proc "$form" r "$WIT"
		no_text "proc-$form-outside-not-opened" "$SG_OUT" OPENED
	done
	c getfd-super - EPERM "--type syscall --syscall pidfd_getfd --action deny" "$B/attack-super" getfd
	trail_ok getfd-super "$SG_TRAIL"
	c getfd-super-open open "EPERM|EBADF" "--type run.end" "$B/attack-super" getfd
	no_text getfd-super-open-stole-nothing "$SG_OUT" STOLE
	trail_ok getfd-super-open "$SG_TRAIL"

	# --- signals out of the tree (SIGKILL at the supervisor and the
	# sleep; SIGURG, harmless to bystanders, where a hole would reach
	# every process: kill(-1) as root)
	for pol in - open; do
		tag=${pol/-/default}
		c "kill-super-$tag" "$pol" EPERM "--type syscall --syscall kill --rule sysgate:outside-tree --action deny; --type run.end" \
			"$B/attack-signal" kill parent 9
		c "kill-all-$tag" "$pol" EPERM "--type syscall --syscall kill --rule sysgate:outside-tree" \
			"$B/attack-signal" all "$URG"
		for m in kill tkill tgkill sigqueue tgsigqueue pidfd; do
			c "$m-outside-$tag" "$pol" EPERM "--type syscall --rule sysgate:outside-tree --action deny" \
				"$B/attack-signal" "$m" "$SLEEP" 9
			c "$m-witness-$tag" "$pol" EPERM "--type syscall --rule sysgate:outside-tree --action deny" \
				"$B/attack-signal" "$m" "$WIT" "$URG"
		done
		c "kill-pgrp-outside-$tag" "$pol" EPERM "--type syscall --syscall kill --rule sysgate:outside-tree" \
			"$B/attack-signal" pgrp "$WIT" "$URG"
		c "setpgid-outside-kill0-$tag" "$pol" EPERM "--type syscall --syscall setpgid --rule sysgate:outside-tree" \
			"$B/attack-signal" join "$WIT" "$URG"
		c "setpgid-super-group-kill0-$tag" "$pol" EPERM "--type syscall --syscall setpgid --rule sysgate:outside-tree; --type run.end" \
			"$B/attack-signal" join parent-pgrp 9
		# A pidfd of its own child, from a caller alone with its fd table.
		c "pidfd-own-child-$tag" "$pol" 0 - $PY -c "
import os, signal, time
pid = os.fork()
if pid == 0:
    time.sleep(30)
    os._exit(0)
signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGTERM)
os._exit(0 if os.waitpid(pid, 0)[1] == signal.SIGTERM else 1)"
		# The pidfd swapped under pidfd_send_signal by another thread.
		c "pidfd-race-witness-$tag" "$pol" EPERM "--type syscall --syscall pidfd_send_signal --rule sysgate:shared-fds --action deny --min 1" \
			"$B/attack-signal" pidfd-race "$WIT" "$URG"
		# Limits and scheduling of a process outside the tree: a CPU
		# limit of 0 kills it as surely as SIGKILL.
		c "prlimit-outside-$tag" "$pol" EPERM "--type syscall --syscall prlimit64 --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "resource.prlimit($SLEEP, resource.RLIMIT_CPU, (0, 0))"
		check "prlimit-outside-$tag-kept" grep -Eq "^Max cpu time +unlimited" "/proc/$SLEEP/limits"
		c "setpriority-outside-$tag" "$pol" EPERM "--type syscall --syscall setpriority --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "os.setpriority(os.PRIO_PROCESS, $WIT, 7)"
		# Every process of a user (one that has none: were the call let
		# through, the kernel's ESRCH, and nobody reniced).
		c "setpriority-user-$tag" "$pol" EPERM "--type syscall --syscall setpriority --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "os.setpriority(os.PRIO_USER, 4242424, 7)"
		c "ioprio-outside-$tag" "$pol" EPERM "--type syscall --syscall ioprio_set --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "libc.syscall(251, 1, $WIT, (2 << 13) | 4) == 0 or oserr()"
		c "affinity-outside-$tag" "$pol" EPERM "--type syscall --syscall sched_setaffinity --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "os.sched_setaffinity($WIT, {0})"
		# NUMA placement of its memory (one node here: were the call
		# let through, it would succeed and move nothing).
		c "migrate-pages-outside-$tag" "$pol" EPERM "--type syscall --syscall migrate_pages --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "n = ctypes.c_ulong(1); libc.syscall(256, $WIT, 64, ctypes.byref(n), ctypes.byref(n)) >= 0 or oserr()"
		c "move-pages-outside-$tag" "$pol" EPERM "--type syscall --syscall move_pages --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "libc.syscall(279, $WIT, 0, None, None, None, 0) >= 0 or oserr()"
		# Comparing its files and memory with the caller's (kcmp, 0:
		# the same table, 1 or 2: not), and advice on its memory by
		# pidfd (process_madvise; MADV_COLD: were it let through,
		# root's CAP_SYS_NICE would apply it, nobody's EPERM).
		c "kcmp-outside-$tag" "$pol" EPERM "--type syscall --syscall kcmp --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "libc.syscall(312, os.getpid(), $WIT, 2, 0, 0) >= 0 or oserr()"
		c "kcmp-outside-second-$tag" "$pol" EPERM "--type syscall --syscall kcmp --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "libc.syscall(312, $WIT, os.getpid(), 2, 0, 0) >= 0 or oserr()"
		c "madvise-outside-$tag" "$pol" EPERM "--type syscall --syscall process_madvise --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "
import mmap
m = mmap.mmap(-1, 4096)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(ctypes.c_char.from_buffer(m)), 4096)
libc.syscall(440, os.pidfd_open($WIT), iov, 1, 20, 0) >= 0 or oserr()"
		# Its memory reaped (were it let through: EINVAL, it is not
		# being killed).
		c "mrelease-outside-$tag" "$pol" EPERM "--type syscall --syscall process_mrelease --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "libc.syscall(448, os.pidfd_open($WIT), 0) >= 0 or oserr()"
		c "scheduler-outside-$tag" "$pol" EPERM "--type syscall --syscall sched_setscheduler --rule sysgate:outside-tree --action deny" \
			$PY -c "$ERRNO_OF" "os.sched_setscheduler($WIT, os.SCHED_BATCH, os.sched_param(0))"
		check "sched-outside-$tag-kept" bash -c '[ "$(cut -d" " -f19 /proc/$1/stat)" = 0 ] && [ "$(ps -o cls= -p $1 | tr -d " ")" = TS ] && [ "$(grep Cpus_allowed_list /proc/$1/status)" = "$2" ]' _ "$WIT" "$WIT_CPUS"
		# The same calls on a child of its own, and on itself.
		c "limits-own-child-$tag" "$pol" 0 - $PY -c "$ERRNO_OF" "
pid = os.fork()
if pid == 0:
    time.sleep(30)
    os._exit(0)
resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
os.setpriority(os.PRIO_PROCESS, pid, 3)
os.sched_setaffinity(pid, {0})
os.setpriority(os.PRIO_PROCESS, 0, 1)
n = ctypes.c_ulong(1)
libc.syscall(256, pid, 64, ctypes.byref(n), ctypes.byref(n)) >= 0 or oserr()
libc.syscall(279, pid, 0, None, None, None, 0) >= 0 or oserr()
libc.syscall(256, 0, 64, ctypes.byref(n), ctypes.byref(n)) >= 0 or oserr()
libc.syscall(312, os.getpid(), pid, 0, 0, 0) >= 0 or oserr()
import mmap
m = mmap.mmap(-1, 4096)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(ctypes.c_char.from_buffer(m)), 4096)
libc.syscall(440, os.pidfd_open(os.getpid()), iov, 1, 20, 0) >= 0 or oserr()
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.kill(pid, 9)
os.waitpid(pid, 0)"
		c "sigio-outside-$tag" "$pol" any "--type run.end" "$B/attack-signal" sigio "$WIT" "$URG"
		c "sigio-super-$tag" "$pol" any "--type run.end" "$B/attack-signal" sigio parent 9
		untouched "signals-$tag"
	done
	for i in 1 2 3; do
		orphan_case "pidfd-orphan-$i" pidfd "$WIT" "$URG"
		untouched "pidfd-orphan-$i"
	done
	# The same for a file's flags (chattr +A of a file outside the cwd).
	echo "PUBLIC in cwd" >"$W/orphan-own.txt"
	[ "$U" = root ] || chown "$U:" "$W/orphan-own.txt"
	for i in 1 2 3; do
		chattr -A "$O/data.txt" 2>/dev/null	# each case on its own
		orphan_case "setflags-orphan-$i" setflags "$W/orphan-own.txt" "$O/data.txt"
		check "setflags-orphan-$i-outside-kept" sh -c "lsattr '$O/data.txt' | grep -qv '^[^ ]*A'"
	done

	# --- own filters and listeners
	c seccomp-listener - EBUSY - "$B/attack-seccomp" listener
	c seccomp-listener-open open EBUSY - "$B/attack-seccomp" listener
	c seccomp-allow-secret - EACCES "--type syscall --path $S --action deny" "$B/attack-seccomp" allow "$S"
	no_text seccomp-allow-secret-not-read "$SG_OUT" "$SECRET"
	c seccomp-trace-secret - EACCES "--type syscall --path $S --action deny; --type run.end" "$B/attack-seccomp" trace "$S"
	no_text seccomp-trace-secret-not-read "$SG_OUT" "$SECRET"

	# --- privileged calls under the default policy
	local op sc
	for op in unshare mount bpf io_uring keyctl userfaultfd ptrace setns init_module; do
		sc=$op
		[ "$op" = io_uring ] && sc=io_uring_setup
		c "priv-$op" - EPERM "--type syscall --syscall $sc --action deny" "$B/try-priv" "$op"
	done
	for op in open_by_handle_at name_to_handle_at process_vm_writev process_vm_readv \
		pidfd_getfd perf_event_open kexec_load finit_module delete_module fsopen \
		open_tree chroot pivot_root swapon io_uring_enter add_key; do
		c "priv-$op" - EPERM "--type syscall --syscall $op --action deny" "$B/attack-priv" "$op"
	done

	# --- the audit trail (here in the work dir, where the default policy
	# lets the command write)
	local R0=$R
	R=$W/trails
	mkdir -p "$R"
	[ "$U" = root ] || chown "$U:" "$R"
	# Under the default policy, which mediates file calls, every attack
	# on the trail is refused and the trail verifies.
	for m in append rdwr trunc-ro truncate unlink; do
		c "trail-$m-default" - "EACCES|EPERM" - "$B/attack-audit" "$m" "$R/$((SG_N + 1)).jsonl"
		trail_ok "trail-$m-default" "$SG_TRAIL"
	done
	c "trail-rename-default" - "EACCES|EPERM" - "$B/attack-audit" rename "$R/$((SG_N + 1)).jsonl" "$W/fake-default"
	trail_ok "trail-rename-default" "$SG_TRAIL"
	rm -f "$W/link-default" "$W/sym-default"
	c "trail-link-default" - "EACCES|EPERM|EXDEV" - "$B/attack-audit" link "$R/$((SG_N + 1)).jsonl" "$W/link-default"
	trail_ok "trail-link-default" "$SG_TRAIL"
	c "trail-symlink-default" - "EACCES|EPERM" - "$B/attack-audit" symlink "$R/$((SG_N + 1)).jsonl" "$W/sym-default"
	trail_ok "trail-symlink-default" "$SG_TRAIL"
	# Under a policy that mediates no file call, the kernel lets the
	# tree write the trail like any file of its user: the trail is
	# tamper-evident, not tamper-proof (SECURITY.md), and verify must
	# find every change.
	for m in append rdwr trunc-ro truncate unlink; do
		c "trail-$m-open" open any - "$B/attack-audit" "$m" "$R/$((SG_N + 1)).jsonl"
		check "trail-$m-open-detected" sh -c "! '$SYSGATE' verify '$SG_TRAIL' >/dev/null 2>&1"
	done
	rm -f "$W/link-open" "$W/sym-open"
	c "trail-link-open" open any - "$B/attack-audit" link "$R/$((SG_N + 1)).jsonl" "$W/link-open"
	check "trail-link-open-detected" sh -c "! '$SYSGATE' verify '$SG_TRAIL' >/dev/null 2>&1"
	for pol in - open; do
		tag=${pol/-/default}
		c "trail-inherited-fds-$tag" "$pol" EBADF - "$B/attack-audit" fds
		trail_ok "trail-inherited-fds-$tag" "$SG_TRAIL"
	done
	R=$R0

	# --- the supervisor killed from outside
	kill_supervisor_case

	# --- processes that outlive or sidestep the command
	rm -f "$W/daemon.out" "$W/thread-"*.out
	c daemon-outlives - 0 "--type syscall --path $S --action deny --not-pid 0" \
		"$B/attack-daemon" "$W/daemon.out" "$S" 300
	check daemon-waited-for test -s "$W/daemon.out"
	check daemon-denied grep -qx 13 "$W/daemon.out"
	no_text daemon-not-read "$W/daemon.out" "$SECRET"
	c vfork-child - EACCES "--type syscall --path $S --action deny" "$B/attack-vfork" "$S"
	no_text vfork-child-not-read "$SG_OUT" "$SECRET"
	for m in exit pthread-exit; do
		c "thread-outlives-leader-$m" - EACCES "--type syscall --path $S --action deny --thread yes" \
			"$B/attack-thread" "$m" "$W/thread-$m.out" "$S"
		no_text "thread-outlives-leader-$m-not-read" "$W/thread-$m.out" "$SECRET"
	done
	c thread-outlives-leader-exec - EACCES "--type syscall --path $S --action deny" \
		"$B/attack-thread" exec "$B/try-open" --cat "$S"
	no_text thread-outlives-leader-exec-not-read "$SG_OUT" "$SECRET"

	untouched final
	# The witness catches SIGTERM (it records signals): SIGKILL it.
	kill -KILL "$WIT" "$SLEEP" 2>/dev/null
}

sg_main cases
