#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/run.sh: the body of `make bench`.  Prints tables of what
# sysgate costs, each figure beside the native run, the kernel's bare
# mechanism and the strace peers measured in the same invocation.  It
# never passes or fails: a run that went wrong shows as FAILED in its cell.
#
# Set by bench/Makefile.inc: SYSGATE (the sysgate binary), BENCH_BIN (the
# bench programs), BENCH_SRC (this folder in the source tree), BENCH_SAN
# (the sanitizer flags sysgate was built with, if any).
# Optional: BENCH_SECTIONS (which tables, default "1 2 3 4 5 6"),
# BENCH_REPS (workload repetitions, default 7), BENCH_ROUNDS
# (micro rounds, default 5), BENCH_TMP (a directory for trails and work
# trees; default a new directory in /dev/shm, or in $TMPDIR without it),
# BENCH_DISK (a directory on a real disk for the audit writer table;
# default the current directory, i.e. the build tree).

set -u

: "${SYSGATE:?}" "${BENCH_BIN:?}" "${BENCH_SRC:?}"
BENCH_SAN=${BENCH_SAN:-}
REPS=${BENCH_REPS:-7}
SECTIONS=${BENCH_SECTIONS:-1 2 3 4 5 6}
ROUNDS=${BENCH_ROUNDS:-5}
BATCHES=5
# Start-up differs by a few hundred us between runs on a shared machine:
# a median of 51 runs (50 or more, for a stable median).
STARTUP_RUNS=51
DISK_DIR=${BENCH_DISK:-$(pwd)}
OBSERVE=$BENCH_SRC/policies/observe.ini
STRACE_SET='trace=%file,%process,%network'
START_S=$(date +%s)

# ------------------------------------------------------------------
# Where everything happens: a tmpfs directory that is also the working
# directory of every run, so that the default policy lets make and git
# write their trees (writes are allowed below ${CWD}) and runs the bench
# programs copied into it (exec is allowed below ${CWD}).

if [ -n "${BENCH_TMP:-}" ]; then
	base=$BENCH_TMP
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	base=/dev/shm
else
	base=${TMPDIR:-/tmp}
fi
T=$(mktemp -d "$base/sysgate-bench.XXXXXX") || exit 1
# Searchable (not listable) by others: the --user nobody rows run the
# bench programs from it.
chmod 711 "$T"
# shellcheck disable=SC2317
cleanup() { cd / && rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$T/tmp" "$T/work" "$T/work/bin" || exit 1
for p in bench-micro bench-bare bench-runcmd bench-spawn bench-auditw; do
	cp "$BENCH_BIN/$p" "$T/work/bin/" || exit 1
done
TMPDIR=$T/tmp
export TMPDIR
# git must not read the user's configuration (hooks, signing, ...).
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost
GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
W=$T/work
B=$W/bin
TRAIL=$T/trail.jsonl
ERR=$T/stderr.log
: > "$T/bare.err"
cd "$W" || exit 1

# ------------------------------------------------------------------
# Small helpers.

# Median of the numbers on stdin ("-" when there are none).
median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "-";
		      else if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# a / b with 2 decimals, "-" if either is missing.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || a == "" || b == "" || b + 0 == 0) print "-";
		else printf "%.2f", a / b }'
}

# Number formatting: fmt FORMAT VALUE, "-" stays "-".
fmt() {
	awk -v f="$1" -v v="$2" 'BEGIN { if (v == "-" || v == "") print "-"; else printf f, v }'
}

# From the run.end record of the last trail: "NOTIFICATIONS DENIED".
notifications() {
	if [ -f "$TRAIL" ]; then
		tail -n 1 "$TRAIL" |
			sed -n 's/.*"deny":\([0-9]*\).*"notifications":\([0-9]*\).*/\2 \1/p'
	fi
}

# Is section $1 asked for?
want() {
	case " $SECTIONS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

hr() {
	echo "-------------------------------------------------------------------------------------------------------"
}

echo "sysgate make bench: $(date -u '+%Y-%m-%d %H:%M:%SZ')"
echo "machine: $(uname -sr), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $(strace -V 2>/dev/null | head -n 1)"
echo "sysgate: $SYSGATE"
if [ -n "$BENCH_SAN" ]; then
	echo "WARNING: sysgate was built with sanitizers ($BENCH_SAN): its figures are not its speed."
fi
echo "scratch: $T (trails, work trees, TMPDIR)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
echo "repetitions: micro $ROUNDS rounds x $BATCHES batches (median of the rounds' medians), calls per batch:"
echo "             getppid 200000, open 2000, exec 50, connect 1000, traced 5000, traced+stack 500;"
echo "             workloads $REPS runs per mode, modes alternating, median wall time; start-up $STARTUP_RUNS runs"

# ------------------------------------------------------------------
# 1. Micro.

if want 1; then
	echo
	echo "1. MICRO: ns per call, same loop natively, under sysgate (default policy) and under the bare mechanism"
	echo "   (bench-bare: a child with a filter for that call, answered by a minimal loop; 'sync' = SYNC_WAKE_UP)"
	hr
	printf '%-34s %9s %9s %7s  %-30s %9s %9s %8s  %s\n' \
		"call" "native" "sysgate" "x nat" "bare mechanism" "bare" "bare sync" "sg/bare" "answer"
	hr

	SG_MICRO="$SYSGATE run -q -a $TRAIL --"
	# stack = yes on getppid, and audit = all (a stack goes into a record).
	SG_MICRO_STACK="$SYSGATE run -q -r $BENCH_SRC/policies/stack.ini -a $TRAIL --"
	# --user nobody (sysgate started as root): every notified call is
	# carried out with the caller's credentials.
	SG_MICRO_USER="$SYSGATE run -q --user nobody -a $TRAIL --"

	# micro_row LABEL OP N MECHANISM-TEXT BARE1 BARE2 SYSGATE [cpu0]
	# SYSGATE: yes (measure it), stack (measure it under the stack policy),
	# user (measure it with --user nobody), no (not implemented yet) or
	# ref (a reference row of the bare mechanism alone).  cpu0: every run of the row (native, sysgate,
	# bare) on CPU 0 only, with taskset.
	micro_row() {
		label=$1 op=$2 n=$3 mtext=$4 m1=$5 m2=$6 sg=$7 pin=
		if [ "${8:-}" = cpu0 ]; then
			if ! command -v taskset > /dev/null 2>&1; then
				printf '%-34s %s\n' "$label" "(skipped: no taskset)"
				return
			fi
			pin="taskset -c 0"
		fi
		if [ "$sg" = user ] && { [ "$(id -u)" != 0 ] || ! id nobody > /dev/null 2>&1; }; then
			printf '%-34s %s\n' "$label" "(skipped: --user needs root and a user nobody)"
			return
		fi
		: > "$T/m.nat"; : > "$T/m.sg"; : > "$T/m.b1"; : > "$T/m.b2"
		answer="-"
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			r=$((r + 1))
			out=$($pin "$B/bench-micro" "$op" "$n" "$BATCHES" 2>>"$ERR") &&
				echo "${out% *}" >> "$T/m.nat"
			if [ "$sg" = yes ] || [ "$sg" = stack ] || [ "$sg" = user ]; then
				rm -f "$TRAIL"
				sg_cmd=$SG_MICRO
				[ "$sg" = stack ] && sg_cmd=$SG_MICRO_STACK
				[ "$sg" = user ] && sg_cmd=$SG_MICRO_USER
				if out=$($pin $sg_cmd "$B/bench-micro" "$op" "$n" "$BATCHES" 2>>"$ERR"); then
					echo "${out% *}" >> "$T/m.sg"
					answer=${out#* }
				else
					answer=FAILED
				fi
			fi
			if [ "$m1" != - ]; then
				out=$($pin "$B/bench-bare" "$m1" "${op%+thread}" "$n" "$BATCHES" 2>>"$T/bare.err") &&
					case $out in n/a*) ;; *) echo "${out% *}" >> "$T/m.b1" ;; esac
			fi
			if [ "$m2" != - ]; then
				out=$($pin "$B/bench-bare" "$m2" "${op%+thread}" "$n" "$BATCHES" 2>>"$T/bare.err") &&
					case $out in n/a*) ;; *) echo "${out% *}" >> "$T/m.b2" ;; esac
			fi
		done
		nat=$(median < "$T/m.nat")
		b1=$(median < "$T/m.b1")
		b2=$(median < "$T/m.b2")
		if [ "$sg" = yes ] || [ "$sg" = stack ] || [ "$sg" = user ]; then
			sgv=$(median < "$T/m.sg")
			xn=$(ratio "$sgv" "$nat")
			# The target is the floor sysgate can use: sync where the
			# kernel has it.
			floor=$b2
			[ "$floor" = - ] && floor=$b1
			sgb=$(ratio "$sgv" "$floor")
			[ "$xn" != - ] && xn="${xn}x"
			[ "$sgb" != - ] && sgb="${sgb}x"
			sgv=$(fmt %.0f "$sgv")
		elif [ "$sg" = no ]; then
			sgv="n/a" xn="" sgb="" answer="(not implemented)"
		else
			sgv="-" xn="" sgb="" answer="(reference)"
		fi
		printf '%-34s %9s %9s %7s  %-30s %9s %9s %8s  %s\n' "$label" \
			"$(fmt %.0f "$nat")" "$sgv" "$xn" "$mtext" \
			"$(fmt %.0f "$b1")" "$(fmt %.0f "$b2")" "$sgb" "$answer"
	}

	micro_row "(a) getppid, named by no rule" getppid 200000 "filter: allow everything" allow - yes
	micro_row "(b) open /etc/shadow, denied" open-deny 2000 "notif: RECV + SEND(EACCES)" notif notif-sync yes
	micro_row "(b3) (b), bare reads the path" open-deny 2000 "RECV+read+ID_VALID+SEND(EACCES)" - notif-sync-read yes
	micro_row "(c) open /etc/passwd, emulated" open-allow 2000 "notif: RECV + ADDFD + SEND" notif notif-sync yes
	micro_row "(c2) (c), bare opens the file too" open-allow 2000 "RECV+read+open+ADDFD+SEND" notif-open notif-sync-open yes
	micro_row "(c3) (c2), all on CPU 0 (taskset)" open-allow 2000 "(c2) pinned to CPU 0" notif-open notif-sync-open yes cpu0
	micro_row "(c5) (c2), bare binds the caller" open-allow 2000 "(c2) + caller on its CPU" - notif-sync-open-bind yes
	micro_row "(c6) (c5), ADDFD answers (SEND)" open-allow 2000 "(c5), ADDFD_FLAG_SEND, no SEND" - notif-sync-open-bind-send ref
	micro_row "(b2) (b) under --user nobody" open-deny 2000 "notif: RECV + SEND(EACCES)" notif notif-sync user
	micro_row "(c4) (c2) under --user nobody" open-allow 2000 "RECV+read+open+ADDFD+SEND" notif-open notif-sync-open user
	micro_row "(d) exec /bin/true (fork+exec+wait)" exec 50 "ptrace events+notif exec,opens" notif notif-sync yes
	micro_row "(e) connect 127.0.0.1 (+socket,close)" connect 1000 "notif: pidfd_getfd+connect" notif notif-sync yes
	micro_row "(e2) (e) from a second thread" connect+thread 1000 "(e), the bare from the leader" notif notif-sync yes
	micro_row "(f) traced getppid (ptrace stop)" getppid 5000 "notif+INTERRUPT, stop, CONT, notif" notif-stop - ref
	micro_row "(g) traced getppid + stack (warm)" getppid 500 "(f) + unwind (IPs only)" notif-stop-stack - stack
	micro_row "(ref) one notification round trip" getppid 5000 "notif: RECV + SEND(value)" notif notif-sync ref
	micro_row "(ref) RET_TRACE stop" getppid 5000 "RET_TRACE + PTRACE_CONT" trace - ref
	hr
	frames=$(sed -n 's/.*notif-stop-stack: \([0-9]*\) frames.*/\1/p' "$T/bare.err" | tail -n 1)
	grep -v 'frames per stop' "$T/bare.err" >> "$ERR"
	echo "   x nat = sysgate / native; sg/bare = sysgate / bare sync (bare where the kernel lacks SYNC_WAKE_UP)."
	echo "   A plain wake-up of a task on another, idle CPU is slow in a VM: 'bare' (and ptrace stops) swing"
	echo "   between a few us on a busy machine and tens of us on an idle one; SYNC_WAKE_UP keeps RECV/SEND"
	echo "   on one CPU (not ADDFD, whose wake-ups are plain ones).  Compare figures of the same run only."
	echo "   (b3) bare reads the caller's path and checks the id before it answers: the round trip of any"
	echo "   supervisor that decides on a path (sysgate's rest: resolving the path, the rules, the record)."
	echo "   (c) bare installs one file opened once; (c2) bare reads the caller's path and opens it at each"
	echo "   call, the least any supervisor that emulates an open must do.  Its wake-ups: ADDFD wakes the"
	echo "   caller with a plain wake-up, and once the supervisor works a few us before it, the scheduler"
	echo "   moves the caller to the idle CPU (and back at SEND): two wake-ups of an idle vCPU a call."
	echo "   (c3) is (c2) with native, sysgate and bare all on CPU 0: what the same work costs without it."
	echo "   sysgate binds the caller to its own CPU for the ADDFD (supervisor/cpubind.c), and (c5)'s bare"
	echo "   loop does the same at each call: (c5) is the floor of what sysgate does, (c2) of the plain"
	echo "   mechanism (in a run of calls from one caller, as here, sysgate keeps it bound between them)."
	echo "   (c6) answers with the ADDFD itself (SECCOMP_ADDFD_FLAG_SEND: one ioctl and one wake-up less);"
	echo "   sysgate does not: its record of the call, with the fd number, is written before the answer"
	echo "   (supervisor/notify.c, add_fd())."
	echo "   (b2),(c4): sysgate run --user nobody (as root only): each call is checked and carried out with"
	echo "   the caller's credentials (kept per task), which the event loop keeps until other ones or its own work."
	echo "   native open of /etc/shadow succeeds (root): its figure is open+close; denied, only the open runs."
	echo "   (d) bare: every new process's ptrace stops resumed, execve CONTINUEd, the loader's opens done"
	echo "   by the bare loop and installed with ADDFD; sysgate additionally checks and records all of it."
	echo "   (e) connect is carried out by a worker thread (a connect may block; the loop must not); (e2)"
	echo "   makes the calls from a second thread of the process, whose socket sysgate takes through the"
	echo "   thread's own pidfd (PIDFD_THREAD, kept like the leader's: supervisor/tracee.c)."
	echo "   (f),(g): stack = yes.  The first notification is answered with a restart after PTRACE_INTERRUPT;"
	echo "   at the caller's stop its stack is taken, and the restarted call is notified and decided again."
	echo "   sysgate stops a call only to take its stack, so (f) is the bare floor alone; (g) runs sysgate with"
	echo "   bench/policies/stack.ini (audit = all): unwind, names from its cache, record with the frames"
	echo "   (bare (g) unwound ${frames:-?} frames a stop, IPs only)."

fi

# ------------------------------------------------------------------
# 2. Workloads.

# The C program: ten files, each with enough code to keep cc busy.
mkdir -p "$W/cproj"
i=0
while [ $i -lt 10 ]; do
	cat > "$W/cproj/f$i.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
struct item$i { int key; double val; char name[32]; };
static int cmp$i(const void *a, const void *b)
{
	const struct item$i *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}
double work$i(int n)
{
	struct item$i *v = calloc((size_t)n, sizeof(*v));
	double s = 0;
	for (int k = 0; k < n; k++) {
		v[k].key = (k * 7919 + $i) % 1009;
		v[k].val = k / 3.0;
		snprintf(v[k].name, sizeof(v[k].name), "item-%d-%d", $i, k);
	}
	qsort(v, (size_t)n, sizeof(*v), cmp$i);
	for (int k = 0; k < n; k++)
		s += v[k].val * (double)strlen(v[k].name);
	free(v);
	return s;
}
EOF
	i=$((i + 1))
done
{
	i=0
	while [ $i -lt 10 ]; do echo "double work$i(int n);"; i=$((i + 1)); done
} > "$W/cproj/common.h"
cat > "$W/cproj/main.c" <<'EOF'
#include <stdio.h>
#include "common.h"
int main(void)
{
	printf("%f\n", work0(10) + work1(10) + work2(10) + work3(10) + work4(10) +
	       work5(10) + work6(10) + work7(10) + work8(10) + work9(10));
	return 0;
}
EOF
# shellcheck disable=SC2016
printf 'OBJS = main.o f0.o f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o f9.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c common.h\n\t$(CC) -O2 -c -o $@ $<\n' \
	> "$W/cproj/Makefile"

# The git tree: 200 small files in a few directories.
mkdir -p "$W/gitw"
i=0
while [ $i -lt 200 ]; do
	d=$W/gitw/d$((i % 10))
	mkdir -p "$d"
	printf 'file %d\nline two of file %d\n' $i $i > "$d/file$i.txt"
	i=$((i + 1))
done

PY_IMPORTS='import json, re, subprocess, collections, pathlib, datetime, decimal, email.message, http.client, argparse, logging, unittest'

WORKLOADS="python make find tar spawn git"

wl_label() {
	case $1 in
	python) echo "python3: 12 stdlib imports" ;;
	make) echo "make -j2: 10-file C program" ;;
	find) echo "find /usr/lib" ;;
	tar) echo "tar /usr/share/doc to a pipe" ;;
	spawn) echo "200 processes from sh" ;;
	git) echo "git init/add/commit 200 files" ;;
	esac
}

# shellcheck disable=SC2016
wl_cmd() {
	case $1 in
	python) echo "exec /usr/bin/python3 -c '$PY_IMPORTS'" ;;
	make) echo "exec make -s -j2 -C cproj" ;;
	find) echo "exec find /usr/lib" ;;
	tar) echo "tar cf - /usr/share/doc 2>/dev/null | cat > /dev/null" ;;
	spawn) echo 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done' ;;
	git) echo "cd gitw && git init -q && git add -A && git commit -q -m bench" ;;
	esac
}

# Undo the previous run, untimed, so that each run does the same work.
wl_prepare() {
	case $1 in
	make) rm -f "$W"/cproj/*.o "$W/cproj/prog" ;;
	git) rm -rf "$W/gitw/.git" ;;
	esac
}

# The upper bound set for the default policy (bench/README.md).
wl_target() {
	case $1 in
	python | make | spawn) echo 1.3 ;;
	git) echo 1.5 ;;
	find | tar) echo 1.8 ;;
	esac
}

MODES="native floor floor2 default observe strace strace-bpf"

# run_mode MODE COMMAND: one timed run; prints the wall time in us, or
# FAILED (the status goes to $ERR).
run_mode() {
	rm -f "$TRAIL"
	case $1 in
	native) set -- "$2" ;;
	floor) set -- "$2" "$B/bench-bare" floor -- ;;
	floor2) set -- "$2" "$B/bench-bare" floor -r 2 -- ;;
	default) set -- "$2" "$SYSGATE" run -q -a "$TRAIL" -- ;;
	observe) set -- "$2" "$SYSGATE" run -q -r "$OBSERVE" -a "$TRAIL" -- ;;
	strace) set -- "$2" strace -f -qq -o /dev/null -e "$STRACE_SET" ;;
	strace-bpf) set -- "$2" strace -f --seccomp-bpf -qq -o /dev/null -e "$STRACE_SET" ;;
	esac
	cmd=$1
	shift
	out=$("$B/bench-runcmd" -e "$T/run.err" -- "$@" sh -c "$cmd")
	st=${out#* }
	if [ "$st" != 0 ]; then
		{ echo "run failed (status $st): $* sh -c $cmd"; cat "$T/run.err"; } >> "$ERR"
		echo FAILED
		return
	fi
	echo "${out% *}"
}

if want 2; then
	echo
	echo "2. WORKLOADS: wall time as a ratio to native (median of $REPS runs, modes alternating in each run)"
	echo "   default = sysgate, built-in policy; observe = sysgate, bench/policies/observe.ini (every path (stat family too), exec"
	echo "   and network call notified, emulated, recorded); strace = strace -f -qq -o /dev/null -e $STRACE_SET;"
	echo "   strace-bpf = the same with --seccomp-bpf.  Trails on tmpfs, -q, --audit-sync interval (the default)."
	echo "   floor = bench-bare floor: the calls the default policy notifies, each answered with the least a"
	echo "   supervisor that decides on paths does (read the path, check the id; an open carried out and installed"
	echo "   with ADDFD, the caller bound to its CPU for it; the rest CONTINUEd), every process ptraced as sysgate"
	echo "   traces it: no rules, no record, no symlink walk, no exec check, no other scheduling help."
	echo "   floor x2 = the same with two threads receiving on the listener (several receivers)."
	for wl in $WORKLOADS; do
		cmd=$(wl_cmd "$wl")
		wl_prepare "$wl"
		"$B/bench-runcmd" -- sh -c "$cmd" > /dev/null	# warm the caches
		for m in $MODES; do : > "$T/t.$wl.$m"; done
		r=0
		while [ $r -lt "$REPS" ]; do
			r=$((r + 1))
			for m in $MODES; do
				wl_prepare "$wl"
				v=$(run_mode "$m" "$cmd")
				[ "$v" != FAILED ] && echo "$v" >> "$T/t.$wl.$m"
				[ "$v" = FAILED ] && echo FAILED > "$T/failed.$wl.$m"
				case $m in default | observe) notifications > "$T/n.$wl.$m" ;; esac
			done
		done
	done
	hr
	printf '%-31s %9s %6s %8s %8s %9s %8s %8s %10s  %10s %9s\n' "workload" "native s" "floor" "floor x2" "default" "def/floor" "observe" "strace" "strace-bpf" "bpf/observe" "target"
	hr
	for wl in $WORKLOADS; do
		nat=$(median < "$T/t.$wl.native")
		line=$(printf '%-31s %9s' "$(wl_label "$wl")" "$(fmt %.3f "$(awk -v v="$nat" 'BEGIN { print (v == "-") ? "-" : v / 1e6 }')")")
		for m in floor floor2 default observe strace strace-bpf; do
			v=$(median < "$T/t.$wl.$m")
			x=$(ratio "$v" "$nat")
			[ -f "$T/failed.$wl.$m" ] && x=FAILED
			[ "$x" != - ] && [ "$x" != FAILED ] && x="${x}x"
			case $m in
			floor) line=$(printf '%s %6s' "$line" "$x") ;;
			strace-bpf) line=$(printf '%s %10s' "$line" "$x") ;;
			*) line=$(printf '%s %8s' "$line" "$x") ;;
			esac
			if [ "$m" = default ]; then
				df=$(ratio "$v" "$(median < "$T/t.$wl.floor")")
				{ [ -f "$T/failed.$wl.default" ] || [ -f "$T/failed.$wl.floor" ]; } && df=FAILED
				[ "$df" != - ] && [ "$df" != FAILED ] && df="${df}x"
				line=$(printf '%s %9s' "$line" "$df")
			fi
		done
		obs=$(median < "$T/t.$wl.observe")
		bpf=$(median < "$T/t.$wl.strace-bpf")
		fast=$(ratio "$bpf" "$obs")
		[ "$fast" != - ] && fast="${fast}x"
		printf '%s  %10s %9s\n' "$line" "$fast" "<=$(wl_target "$wl")x"
	done
	hr
	echo "   bpf/observe: how many times faster observe is than strace --seccomp-bpf (the target is >= 1.5x)."
	echo "   target: the bound set for the default policy.  def/floor: default against floor, sysgate's own"
	echo "   share (below 1.00x where sysgate's scheduling help, supervisor/cpubind.c, gains more than its work costs)."

	# Syscall counts per class, from one `strace -f -c` run of each workload
	# (untimed), and what sysgate was notified of in the last runs above.
	echo
	echo "   Syscalls per workload (strace -f -c, one run) and notifications sysgate received (its trail)"
	hr
	printf '%-31s %7s %6s %6s %5s %4s %8s %7s %7s | %8s %8s %6s\n' "workload" "total" "open" "fs-chg" "exec" "net" "stat/acc" "process" "other" "default" "observe" "denied"
	printf '%-31s %7s %6s %6s %5s %4s %8s %7s %7s | %17s\n' "" "" "" "" "" "" "" "" "" "notifications"
	hr
	for wl in $WORKLOADS; do
		cmd=$(wl_cmd "$wl")
		wl_prepare "$wl"
		strace -f -c -o "$T/c.$wl" sh -c "$cmd" > /dev/null 2>> "$ERR"
		counts=$(awk '
			BEGIN {
				split("open openat openat2 creat", a, " "); for (i in a) cls[a[i]] = "open"
				split("mkdir mkdirat mknod mknodat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat chmod fchmodat fchmodat2 chown lchown fchownat truncate", a, " ")
				for (i in a) cls[a[i]] = "chg"
				split("execve execveat", a, " "); for (i in a) cls[a[i]] = "exec"
				split("connect bind", a, " "); for (i in a) cls[a[i]] = "net"
				split("stat lstat newfstatat statx access faccessat faccessat2 readlink readlinkat statfs getxattr lgetxattr listxattr llistxattr", a, " ")
				for (i in a) cls[a[i]] = "stat"
				split("fork vfork clone clone3 wait4 waitid exit exit_group kill tgkill", a, " ")
				for (i in a) cls[a[i]] = "proc"
			}
			$NF != "total" && $4 ~ /^[0-9]+$/ && NF >= 5 {
				c = (cls[$NF] != "") ? cls[$NF] : "other"; n[c] += $4; tot += $4
			}
			END { printf "%d %d %d %d %d %d %d %d", tot, n["open"], n["chg"], n["exec"], n["net"], n["stat"], n["proc"], n["other"] }
		' "$T/c.$wl")
		# shellcheck disable=SC2086
		set -- $counts
		nd=$(cat "$T/n.$wl.default" 2>/dev/null)
		no=$(cat "$T/n.$wl.observe" 2>/dev/null)
		printf '%-31s %7s %6s %6s %5s %4s %8s %7s %7s | %8s %8s %6s\n' "$(wl_label "$wl")" "$@" \
			"${nd% *}" "${no% *}" "${nd#* }"
	done
	hr
	echo "   open/fs-chg/exec/net: the calls the default policy names (notified); stat/acc: stat, access, readlink"
	echo "   and the like, left in the kernel; process: fork/clone/wait/exit/kill.  denied: calls the default"
	echo "   policy denied in its last run (a well-behaved workload should have none)."

fi

# ------------------------------------------------------------------
# 3. The audit writer alone.

if want 3; then
	echo
	echo "3. AUDIT WRITER: records per second, bench-auditw (audit/ writer, a 480-byte syscall record,"
	echo "   audit_tick after each commit or batch as the loop does), up to 1,000,000 records or 0.5 s, median of 3;"
	echo "   trails in regular files are written through the map sink (audit/writer.c: no write(2) a record);"
	echo "   group commit: threads recording at once, each record chained under the writer's lock;"
	echo "   batches: audit_batch_begin/_end"
	hr
	"$B/bench-auditw" table 1000000 500 "$T" "$DISK_DIR" 2>> "$ERR" || echo "bench-auditw table FAILED"
	hr
	echo "   the target is >= 500,000 records/s with group commit and the crash guarantees kept."

fi

# ------------------------------------------------------------------
# 4. Supervisor memory.

if want 4; then
	echo
	echo "4. SUPERVISOR MEMORY: peak RSS (VmHWM) of the sysgate process itself, read at its exit stop;"
	echo "   processes: children that exec cat and wait on a pipe; threads wait on a barrier; all held 300 ms"
	hr
	printf '%-36s %14s %20s %10s %8s\n' "command under sysgate (default policy)" "peak RSS" "growth per task" "wall s" "status"
	hr
	ref_kb=- ref_n=0
	for what in "true" "procs 10" "procs 100" "procs 1000" "threads 64"; do
		rm -f "$TRAIL"
		case $what in
		true) set -- /bin/true; tasks=0; label="/bin/true" ;;
		procs*) n=${what#procs }; set -- "$B/bench-spawn" procs "$n" 300; tasks=$n; label="$n live processes" ;;
		threads*) n=${what#threads }; set -- "$B/bench-spawn" threads "$n" 300; tasks=$n; label="$n live threads" ;;
		esac
		out=$("$B/bench-runcmd" -m -e "$T/run.err" -- "$SYSGATE" run -q -a "$TRAIL" -- "$@")
		# wall_us status hwm_kb cpu_ms
		# shellcheck disable=SC2086
		set -- $out
		per="-"
		# Growth against the run with 10 processes (the baseline's pages
		# differ a little from run to run; a slope over many tasks does not).
		if [ "$what" = "procs 10" ]; then
			ref_kb=$3 ref_n=10
		elif [ "$tasks" -gt "$ref_n" ] && [ "$ref_kb" != - ]; then
			per=$(awk -v h="$3" -v b="$ref_kb" -v n="$tasks" -v r="$ref_n" \
				'BEGIN { printf "%.2f KiB", (h - b) / (n - r) }')
		fi
		[ "$2" != 0 ] && per=FAILED
		printf '%-36s %10s KiB %20s %10.3f %8s\n' "$label" "$3" "$per" \
			"$(awk -v u="$1" 'BEGIN { print u / 1e6 }')" "$2"
	done
	hr
	echo "   growth per task = (peak - peak with 10 processes) / (tasks - 10); the target is linear growth"
	echo "   and < 64 MiB (VmHWM counts 4 KiB pages: below ~1000 tasks the growth hides in the noise)."

fi

# ------------------------------------------------------------------
# 5. Start-up.

if want 5; then
	echo
	echo "5. START-UP: sysgate run -q -- /bin/true against /bin/true ($STARTUP_RUNS runs each, alternating)"
	: > "$T/s.nat"
	: > "$T/s.sg"
	r=0
	while [ $r -lt "$STARTUP_RUNS" ]; do
		r=$((r + 1))
		"$B/bench-runcmd" -- /bin/true | cut -d' ' -f1 >> "$T/s.nat"
		rm -f "$TRAIL"
		"$B/bench-runcmd" -- "$SYSGATE" run -q -a "$TRAIL" -- /bin/true | cut -d' ' -f1 >> "$T/s.sg"
	done
	nat=$(median < "$T/s.nat")
	sg=$(median < "$T/s.sg")
	hr
	printf '%-26s %10s\n' "" "median ms"
	hr
	printf '%-26s %10.2f\n' "/bin/true" "$(awk -v v="$nat" 'BEGIN { print v / 1000 }')"
	printf '%-26s %10.2f\n' "sysgate run -- /bin/true" "$(awk -v v="$sg" 'BEGIN { print v / 1000 }')"
	printf '%-26s %10.2f   (the target is <= 2 ms)\n' "difference" "$(awk -v a="$sg" -v b="$nat" 'BEGIN { print (a - b) / 1000 }')"
	hr

fi

# ------------------------------------------------------------------
# 6. Where the supervisor's time goes.

if want 6; then
	echo
	echo "6. THE SUPERVISOR'S OWN WORK per notification (default policy): its CPU time (utime+stime at"
	echo "   its exit stop) and its own syscalls (strace -c of sysgate alone, without -f)"
	for wl in find spawn; do
		cmd=$(wl_cmd "$wl")
		rm -f "$TRAIL"
		# shellcheck disable=SC2046
		set -- $("$B/bench-runcmd" -m -e "$T/run.err" -- "$SYSGATE" run -q -a "$TRAIL" -- sh -c "$cmd")
		n=$(notifications)
		n=${n% *}
		cpu=$4
		rm -f "$TRAIL"
		strace -c -o "$T/sup.$wl" "$SYSGATE" run -q -a "$TRAIL" -- sh -c "$cmd" > /dev/null 2>> "$ERR"
		n2=$(notifications)
		n2=${n2% *}
		hr
		printf '%s: %s notifications, supervisor CPU %s ms = %s us per notification\n' \
			"$(wl_label "$wl")" "${n:-?}" "$cpu" "$(awk -v c="$cpu" -v n="${n:-0}" 'BEGIN { if (n > 0) printf "%.1f", c * 1000 / n; else print "-" }')"
		printf '%-22s %10s %16s\n' "supervisor syscall" "calls" "per notification"
		awk -v n="${n2:-0}" '$NF != "total" && $4 ~ /^[0-9]+$/ && NF >= 5 { print $4, $NF }' "$T/sup.$wl" |
			sort -rn | head -n 12 |
			awk -v n="${n2:-0}" '{ printf "%-22s %10d %16s\n", $2, $1, (n > 0) ? sprintf("%.2f", $1 / n) : "-"; t += $1 }'
		awk -v n="${n2:-0}" '$NF == "total" { printf "%-22s %10d %16s\n", "all", $4, (n > 0) ? sprintf("%.2f", $4 / n) : "-" }' "$T/sup.$wl"
	done
	hr
fi

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "make bench: $(( $(date +%s) - START_S )) s.  Failed runs and stderr of the bench programs: none" |
	if [ -s "$ERR" ]; then sed 's/: none$/: see below/'; else cat; fi
if [ -s "$ERR" ]; then
	echo "--- stderr (first 40 lines) ---"
	head -n 40 "$ERR"
fi
exit 0
