# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: MIT
# tests/integration/lib.sh: the harness of the integration tests.  Sourced
# by each tests/integration/*.sh (bash).  A test is a list of one-line
# cases, each run as root and again as `nobody` (when we are root):
#
#	policy NAME <<EOF ... EOF         # writes $P/NAME.ini
#	c NAME POLICY EXPECT AUDIT CMD... # one case
#
# POLICY  a name given to `policy`, a path, or - (the built-in default)
# EXPECT  exit status of `sysgate run`: a number, an errno name (EACCES,
#         i.e. the victim's errno), sig:NAME (128+N), several joined by |,
#         or any
# AUDIT   - (no check) or auditq.py queries on the run's trail, separated
#         by ';' (each a list of --filter VALUE words split at spaces: a
#         value may hold newlines and tabs, not spaces or ';')
#
# Exit status of a test (automake): 0 pass, 1 fail, 77 skip (only when a
# probe shows the kernel lacks a feature), 99 harness error.  With
# SUPERVISOR_MUST_WORK=1 (CI) a skip is a failure.
#
# Environment: SYSGATE, HELPERS, srcdir, top_builddir (AM_TESTS_ENVIRONMENT).
# SG_USERS="root nobody" narrows who runs the cases; SG_KEEP=1 keeps the
# temp dir; SG_VERBOSE=1 shows every case's stderr.

set -u
export LC_ALL=C

SG_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SG_NAME=$(basename "$0" .sh)
PY=/usr/bin/python3
AUDITQ="$SG_LIB_DIR/auditq.py"
SG_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

SG_PASS=0
SG_FAIL=0
SG_HARNESS=0
SG_N=0
SG_FAILED_NAMES=()

# ---------------------------------------------------------------- basics

sg_harness_error() {
	echo "HARNESS ERROR ($SG_NAME): $*" >&2
	exit 99
}

# Skip the whole test (a probe showed the kernel lacks what it needs).
sg_skip_all() {
	if [ "${SUPERVISOR_MUST_WORK:-0}" = 1 ]; then
		echo "FAIL: would skip, but SUPERVISOR_MUST_WORK=1: $*" >&2
		exit 1
	fi
	echo "SKIP ($SG_NAME): $*" >&2
	exit 77
}

# errno name -> number (the victims exit with the errno they saw).
sg_errno() {
	case $1 in
	EPERM) echo 1 ;; ENOENT) echo 2 ;; ESRCH) echo 3 ;; EINTR) echo 4 ;;
	EIO) echo 5 ;; ENXIO) echo 6 ;; E2BIG) echo 7 ;; ENOEXEC) echo 8 ;;
	EBADF) echo 9 ;; ECHILD) echo 10 ;; EAGAIN) echo 11 ;; ENOMEM) echo 12 ;;
	EACCES) echo 13 ;; EFAULT) echo 14 ;; EBUSY) echo 16 ;; EEXIST) echo 17 ;;
	EXDEV) echo 18 ;; ENODEV) echo 19 ;; ENOTDIR) echo 20 ;; EISDIR) echo 21 ;;
	EINVAL) echo 22 ;; EMFILE) echo 24 ;; ENOTTY) echo 25 ;; ETXTBSY) echo 26 ;;
	EFBIG) echo 27 ;;
	ENOSPC) echo 28 ;; EROFS) echo 30 ;; EMLINK) echo 31 ;; EPIPE) echo 32 ;;
	ENAMETOOLONG) echo 36 ;; ENOSYS) echo 38 ;; ENOTEMPTY) echo 39 ;;
	ELOOP) echo 40 ;; ENOTSOCK) echo 88 ;; EDESTADDRREQ) echo 89 ;;
	EPROTONOSUPPORT) echo 93 ;; EOPNOTSUPP) echo 95 ;; EAFNOSUPPORT) echo 97 ;;
	EADDRINUSE) echo 98 ;; EADDRNOTAVAIL) echo 99 ;; ENETUNREACH) echo 101 ;;
	ECONNRESET) echo 104 ;; ETIMEDOUT) echo 110 ;; ECONNREFUSED) echo 111 ;;
	EHOSTUNREACH) echo 113 ;; EINPROGRESS) echo 115 ;;
	*) return 1 ;;
	esac
}

sg_signum() {
	local n
	n=$(kill -l "${1#SIG}" 2>/dev/null) || return 1
	echo "$n"
}

# One EXPECT word -> list of acceptable statuses (space separated).
sg_expect_codes() {
	local w out='' n
	local IFS='|'
	for w in $1; do
		case $w in
		any) out="$out any" ;;
		sig:*) n=$(sg_signum "${w#sig:}") ||
			sg_harness_error "bad signal in expectation '$w'"
			out="$out $((128 + n))" ;;
		[0-9]*) out="$out $w" ;;
		E*) n=$(sg_errno "$w") ||
			sg_harness_error "unknown errno name '$w' (add it to sg_errno)"
			out="$out $n" ;;
		*) sg_harness_error "bad expectation '$w'" ;;
		esac
	done
	echo "$out"
}

# Status number -> readable text for messages.
sg_status_text() {
	local s=$1 n
	if [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then
		n=$(kill -l $((s - 128)) 2>/dev/null) && { echo "$s (128+SIG$n)"; return; }
	fi
	case $s in
	124) echo "124 (timed out: killed by timeout(1))" ;;
	125) echo "125 (sysgate failure)" ;;
	126) echo "126 (cannot execute)" ;;
	127) echo "127 (not found)" ;;
	255) echo "255 (victim set-up failed)" ;;
	*) n=$($PY -c 'import errno,sys; print(errno.errorcode.get(int(sys.argv[1]),""))' "$s" 2>/dev/null)
	   if [ -n "$n" ]; then echo "$s (as an errno: $n)"; else echo "$s"; fi ;;
	esac
}

# ---------------------------------------------------------------- set-up

sg_probe_kernel() {
	local avail
	avail=$(cat /proc/sys/kernel/seccomp/actions_avail 2>/dev/null) ||
		sg_skip_all "no /proc/sys/kernel/seccomp/actions_avail (seccomp filters unavailable)"
	case " $avail " in
	*" user_notif "*) ;;
	*) sg_skip_all "kernel lacks SECCOMP_RET_USER_NOTIF ($avail)" ;;
	esac
	case " $avail " in
	*" trace "*) ;;
	*) sg_skip_all "kernel lacks SECCOMP_RET_TRACE ($avail)" ;;
	esac
	# SECCOMP_ADDFD_FLAG_SEND arrived in 5.14.
	local v maj min
	v=$(uname -r)
	maj=${v%%.*}
	min=${v#*.}
	min=${min%%[!0-9]*}
	if [ "$maj" -lt 5 ] || { [ "$maj" -eq 5 ] && [ "$min" -lt 14 ]; }; then
		sg_skip_all "kernel $v lacks SECCOMP_ADDFD_FLAG_SEND (5.14)"
	fi
}

# Called once at the top of each test.
sg_init() {
	: "${SYSGATE:=${top_builddir:-.}/supervisor/sysgate}"
	: "${HELPERS:=${top_builddir:-.}/tests/helpers}"
	[ -x "$SYSGATE" ] || sg_harness_error "SYSGATE=$SYSGATE is not an executable (build supervisor/sysgate first)"
	[ -x "$HELPERS/try-open" ] || sg_harness_error "HELPERS=$HELPERS has no victims (make check builds them)"
	[ -x "$PY" ] || sg_harness_error "$PY is missing"
	command -v timeout >/dev/null || sg_harness_error "timeout(1) is missing"
	SYSGATE=$(cd "$(dirname "$SYSGATE")" && pwd)/$(basename "$SYSGATE")
	sg_probe_kernel

	umask 022
	# Not under /tmp: the built-in policy does the tree's writes below
	# /tmp in the run's private TMPDIR, and the tests see what it denies
	# in a home, a work and an outside directory of their own.
	T=$(mktemp -d "${SG_TEST_DIR:-/var/tmp}"/sysgate-test-"$SG_NAME".XXXXXX) ||
		sg_harness_error "mktemp failed"
	chmod 0755 "$T"
	trap sg_cleanup EXIT
	trap 'exit 99' INT TERM HUP

	# Victims (and sysgate, if needed) where every test user can run them.
	B=$T/bin
	mkdir -p "$B"
	local f
	for f in "$HELPERS"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$B/"
	done
	chmod -R a+rX "$B"

	if [ -z "${SG_USERS:-}" ]; then
		if [ "$(id -u)" = 0 ]; then
			SG_USERS="root nobody"
		else
			SG_USERS=$(id -un)
		fi
	fi
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || sg_harness_error "setpriv(1) is missing"
		id nobody >/dev/null 2>&1 || sg_harness_error "no user nobody"
		if ! setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$SYSGATE"; then
			# The build dir is not reachable by nobody: run a copy.
			cp "$SYSGATE" "$B/sysgate"
			chmod 0755 "$B/sysgate"
			SYSGATE=$B/sysgate
		fi
	fi
	echo "# $SG_NAME: sysgate=$SYSGATE temp=$T users: $SG_USERS"
}

sg_cleanup() {
	local rc=$?
	sg_kill_bg
	if [ "${SG_KEEP:-0}" = 1 ]; then
		echo "# kept $T" >&2
	elif [ -n "${T:-}" ] && [ -d "$T" ]; then
		chmod -R u+rwX "$T" 2>/dev/null
		rm -rf "$T"
	fi
	exit $rc
}

# Per user: a home with secrets, a work dir (the command's cwd), a dir
# outside it that the user may write natively, policy and trail dirs.
# Sets U, H, W, O, P, R and SG_AS (the prefix that runs a command as U).
sg_user_setup() {
	U=$1
	local base=$T/$U
	H=$base/home
	W=$base/work
	O=$base/outside
	P=$base/policies
	R=$base/trails
	mkdir -p "$H/.ssh" "$H/.aws" "$H/.gnupg" "$W" "$O" "$P" "$R" ||
		sg_harness_error "cannot create $base"
	echo "SECRET ssh key" >"$H/.ssh/id_rsa"
	echo "SECRET aws" >"$H/.aws/credentials"
	echo "SECRET gpg" >"$H/.gnupg/secring"
	printf '[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n' \
		>"$H/.gitconfig"
	echo "PUBLIC readme" >"$W/readme.txt"
	echo "PUBLIC outside" >"$O/data.txt"
	case $U in
	root)
		SG_AS=()
		;;
	*)
		local uid gid
		uid=$(id -u "$U") || sg_harness_error "no user $U"
		gid=$(id -g "$U")
		if [ "$(id -u)" = 0 ]; then
			chown -R "$uid:$gid" "$base"
			SG_AS=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --)
		else
			SG_AS=()
		fi
		;;
	esac
	chmod 0755 "$base"
}

# policy NAME: the policy text on stdin becomes $P/NAME.ini.
policy() {
	cat >"$P/$1.ini" || sg_harness_error "cannot write policy $1"
	chmod 0644 "$P/$1.ini"
}

# Run a command as U, natively (no sysgate), in $W.  Used to prepare
# files and for sanity checks of the victims.
as_user() {
	(cd "$W" && "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" USER="$U" \
		LOGNAME="$U" LANG=C.UTF-8 "$@")
}

# ---------------------------------------------------------------- running

# sg_envs: SG_ENVS, the environment a run under test gets (env -i): U's
# and the sanitizers' options, nothing of the harness's own, then the
# NAME=VALUE words of the array SG_EXTRA_ENV when a test sets it.
sg_envs() {
	local v
	SG_ENVS=(PATH="$SG_PATH" HOME="$H" USER="$U" LOGNAME="$U" LANG=C.UTF-8)
	for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
		[ -n "${!v:-}" ] && SG_ENVS+=("$v=${!v}")
	done
	SG_ENVS+=(${SG_EXTRA_ENV[@]+"${SG_EXTRA_ENV[@]}"})
	return 0
}

# sg_run [SYSGATE-RUN-OPTIONS...] -- CMD...  (in $W, as U, bounded)
# Sets SG_RC, SG_OUT, SG_ERR (files) and SG_TRAIL.
sg_run() {
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] || sg_harness_error "sg_run: no -- before the command"
	shift
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_OUT=$R/$SG_N.out
	SG_ERR=$R/$SG_N.err
	sg_envs
	(cd "$W" && exec timeout -k 5 "${SG_TIMEOUT:-60}" "${SG_AS[@]}" \
		env -i "${SG_ENVS[@]}" "$SYSGATE" run -a "$SG_TRAIL" "${opts[@]}" -- "$@") \
		>"$SG_OUT" 2>"$SG_ERR" </dev/null
	SG_RC=$?
}

# sg_raw ARGS...: run "$SYSGATE ARGS" as U in $W, bounded, with no options
# added (for usage errors, `sysgate check`...).  Sets SG_RC, SG_OUT, SG_ERR.
sg_raw() {
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_OUT=$R/$SG_N.out
	SG_ERR=$R/$SG_N.err
	(cd "$W" && exec timeout -k 5 "${SG_TIMEOUT:-60}" "${SG_AS[@]}" \
		env -i PATH="$SG_PATH" HOME="$H" USER="$U" LOGNAME="$U" \
		LANG=C.UTF-8 "$SYSGATE" "$@") >"$SG_OUT" 2>"$SG_ERR" </dev/null
	SG_RC=$?
}

# Check audit queries (the AUDIT word of a case) on $SG_TRAIL.
# Returns 0 ok, 1 mismatch, 99 harness error; messages in $SG_AQ_OUT.
sg_audit_check() {
	local spec=$1 q args=() first=1
	[ "$spec" = - ] && return 0
	# Queries split at ';', words at spaces only: a path may hold a
	# newline or a tab, never a space or a ';'.
	local IFS=';'
	set -f
	# shellcheck disable=SC2206
	local queries=($spec)
	set +f
	IFS=' '
	for q in "${queries[@]}"; do
		set -f
		# shellcheck disable=SC2206
		local words=($q)
		set +f
		[ ${#words[@]} -eq 0 ] && continue
		[ $first = 1 ] || args+=(--next)
		first=0
		args+=("${words[@]}")
	done
	IFS=$' \t\n'
	SG_AQ_OUT=$R/$SG_N.auditq
	if [ ! -f "$SG_TRAIL" ]; then
		echo "no audit trail at $SG_TRAIL" >"$SG_AQ_OUT"
		return 1
	fi
	$PY "$AUDITQ" "$SG_TRAIL" "${args[@]}" >"$SG_AQ_OUT" 2>&1
}

sg_report_pass() {
	SG_PASS=$((SG_PASS + 1))
	echo "ok - [$U] $1"
	if [ "${SG_VERBOSE:-0}" = 1 ] && [ -s "${SG_ERR:-/dev/null}" ]; then
		sed 's/^/#   stderr: /' "$SG_ERR" | head -20
	fi
}

# sg_report_fail NAME WHY...: print the details of a failed case.
sg_report_fail() {
	local name=$1
	shift
	SG_FAIL=$((SG_FAIL + 1))
	SG_FAILED_NAMES+=("[$U] $name")
	echo "FAIL - [$U] $name"
	local l
	for l in "$@"; do
		echo "#   $l"
	done
	if [ -n "${SG_ERR:-}" ] && [ -s "$SG_ERR" ]; then
		echo "#   stderr (last 15 lines):"
		tail -n 15 "$SG_ERR" | sed 's/^/#     /'
	fi
}

# c NAME POLICY EXPECT AUDIT CMD...: one case.
c() {
	[ $# -ge 5 ] || sg_harness_error "case '$1': c NAME POLICY EXPECT AUDIT CMD..."
	local name=$1 pol=$2 expect=$3 audit=$4
	shift 4
	local popts=() codes
	case $pol in
	-) ;;
	/*) popts=(-r "$pol") ;;
	*) [ -f "$P/$pol.ini" ] ||
		sg_harness_error "case '$name': no policy '$pol' (write it with: policy $pol <<EOF)"
	   popts=(-r "$P/$pol.ini") ;;
	esac
	codes=$(sg_expect_codes "$expect") || exit 99
	sg_run ${SG_RUN_OPTS:-} "${popts[@]}" -- "$@"
	local cmd="sysgate run " o
	for o in ${SG_RUN_OPTS:-} "${popts[@]}" --; do
		cmd+="$(printf '%q' "$o") "
	done
	cmd+=$(printf '%q ' "$@")
	local ok=0 code
	for code in $codes; do
		[ "$code" = any ] || [ "$code" = "$SG_RC" ] && ok=1
	done
	if [ $ok = 0 ]; then
		sg_report_fail "$name" "command: (cd $W && $cmd)" \
			"expected status: $expect, got: $(sg_status_text "$SG_RC")"
		return 1
	fi
	sg_audit_check "$audit"
	case $? in
	0) sg_report_pass "$name" ;;
	99) SG_HARNESS=1
	    sg_report_fail "$name" "HARNESS ERROR in the audit query: $audit" \
		    "$(cat "$SG_AQ_OUT")" ;;
	*) sg_report_fail "$name" "command: (cd $W && $cmd)" \
		"status $SG_RC as expected, but audit check failed: $audit" \
		"trail: $SG_TRAIL" "$(sed 's/^/  /' "$SG_AQ_OUT")"
	   return 1 ;;
	esac
}

# sg_reap_tmpdir TRAIL: a sysgate killed with SIGKILL cannot remove its
# private TMPDIR; remove it for it (the one its trail's run.start names).
sg_reap_tmpdir() {
	local tmpd
	tmpd=$("$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline()).get("tmpdir",""))' "$1" 2>/dev/null)
	case $tmpd in
	/tmp/sysgate-*) rm -rf "$tmpd" ;;
	esac
}

# check NAME CONDITION-CMD...: an extra assertion about the state a case
# left (a file exists, has some content...), run natively as the harness.
check() {
	local name=$1 out said=()
	shift
	if out=$("$@" 2>&1); then
		SG_ERR='' sg_report_pass "$name"
	else
		# What the condition said (its last lines) tells why.
		[ -n "$out" ] && mapfile -t said < <(printf '%s\n' "$out" | tail -n 5)
		SG_ERR='' sg_report_fail "$name" "condition failed: $*" "${said[@]}"
	fi
}

# Native sanity check of a victim (no sysgate): a broken victim is a
# harness error, not a supervisor failure.
native() {
	local expect=$1 codes code rc ok=0
	shift
	codes=$(sg_expect_codes "$expect") || exit 99
	as_user timeout -k 5 30 "$@" >/dev/null 2>&1
	rc=$?
	for code in $codes; do
		[ "$code" = any ] || [ "$code" = "$rc" ] && ok=1
	done
	[ $ok = 1 ] || sg_harness_error "native run of '$*' as $U gave $(sg_status_text $rc), expected $expect"
}

# ---------------------------------------------------------------- background

SG_BG_PIDS=()

# sg_bg_run TAG TMPD ARGS...: sysgate run ARGS in the background as U,
# with TMPDIR=TMPD; sets BG_PID.
sg_bg_run() {
	local tag=$1 td=$2
	shift 2
	(cd "$W" && exec "${SG_AS[@]}" env -i PATH="$SG_PATH" HOME="$H" TMPDIR="$td" \
		"$SYSGATE" run "$@") >"$R/$tag.out" 2>"$R/$tag.err" </dev/null &
	BG_PID=$!
	SG_BG_PIDS+=("$BG_PID")
}

# sg_wait_file FILE: up to 10 s for FILE to appear.
sg_wait_file() {
	local i
	for i in $(seq 100); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# sg_listen ADDR PORT: start a one-connection listener natively, as U
# (try-bind --serve), and set SG_PORT to its port (or "unix").  Its pid is
# SG_LISTEN_PID, what it received goes to $SG_LISTEN_OUT.  Killed at the
# end of the test if still there.
sg_listen() {
	local pf=$R/listen.$RANDOM.$$
	"${SG_AS[@]}" "$B/try-bind" --serve "$pf" "$1" "$2" >"$pf.out" 2>&1 &
	SG_BG_PIDS+=($!)
	SG_LISTEN_PID=$!
	SG_LISTEN_OUT=$pf.out
	for _ in $(seq 100); do
		[ -f "$pf" ] && break
		sleep 0.05
	done
	[ -f "$pf" ] || sg_harness_error "listener on $1 $2 did not start: $(cat "$pf.out")"
	SG_PORT=$(cat "$pf")
}

# sg_listen_wait: after a case whose client connected to the listener,
# wait (up to 10 s) for the listener to finish; its exit status is
# SG_LISTEN_RC (0: it accepted a connection and read to EOF).
sg_listen_wait() {
	# The client failed: nothing will come, do not wait.
	[ "${SG_RC:-0}" = 0 ] || kill "$SG_LISTEN_PID" 2>/dev/null
	for _ in $(seq 200); do
		kill -0 "$SG_LISTEN_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill "$SG_LISTEN_PID" 2>/dev/null
	wait "$SG_LISTEN_PID" 2>/dev/null
	SG_LISTEN_RC=$?
}

# Stop what sg_listen started (by pid).
sg_kill_bg() {
	local p
	for p in "${SG_BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SG_BG_PIDS=()
}

# ---------------------------------------------------------------- driver

# sg_main CASES_FUNCTION: run the cases once per user, then summarise.
sg_main() {
	local fn=$1 u
	for u in $SG_USERS; do
		sg_user_setup "$u"
		echo "# --- as $u"
		"$fn"
		sg_kill_bg
	done
	echo "# $SG_NAME: $SG_PASS passed, $SG_FAIL failed"
	if [ $SG_FAIL -gt 0 ]; then
		local n
		for n in "${SG_FAILED_NAMES[@]}"; do
			echo "#   failed: $n"
		done
	fi
	[ $SG_HARNESS = 1 ] && exit 99
	[ $SG_FAIL -gt 0 ] && exit 1
	[ $SG_PASS -eq 0 ] && sg_skip_all "no case ran"
	exit 0
}
