#!/bin/bash
# SPDX-License-Identifier: MIT
# Policy variables hold their meaning: ${HOME}, ${CWD} and ${TMPDIR} match
# by their canonical paths (a secret under a HOME behind a symlink stays
# unread); a variable that cannot be determined (a working directory that
# was deleted or is deeper than PATH_MAX, a relative HOME) stops the run
# with 125 and nothing is written; TMPDIR=/tmp/ works with the built-in
# policy.  The trail at the path sysgate prints is the trail it wrote: the
# tree cannot rename a directory above it and put a forgery in its place.
. "$(dirname "$0")/lib.sh"
sg_init

# vrun DIR ENV... -- CMD...: sysgate run (built-in policy) started in DIR
# as U with U's environment plus ENV, bounded.  Sets SG_RC, SG_OUT, SG_ERR,
# SG_TRAIL like sg_run.  DIR may be "-" for a deleted directory made for
# the run: GONE is created, entered and removed before sysgate starts.
vrun() {
	local dir=$1 envs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_OUT=$R/$SG_N.out
	SG_ERR=$R/$SG_N.err
	sg_envs
	if [ "$dir" = - ]; then
		dir=$T/$U/gone.$SG_N
		mkdir "$dir" || sg_harness_error "cannot create $dir"
		(cd "$dir" && rmdir "$dir" && exec timeout -k 5 30 "${SG_AS[@]}" \
			env -i "${SG_ENVS[@]}" "${envs[@]}" "$SYSGATE" run \
			"${VRUN_OPTS[@]:--a$SG_TRAIL}" -- "$@") >"$SG_OUT" 2>"$SG_ERR" </dev/null
	else
		(cd_steps "$dir" && exec timeout -k 5 30 "${SG_AS[@]}" \
			env -i "${SG_ENVS[@]}" "${envs[@]}" "$SYSGATE" run \
			"${VRUN_OPTS[@]:--a$SG_TRAIL}" -- "$@") >"$SG_OUT" 2>"$SG_ERR" </dev/null
	fi
	SG_RC=$?
}

# cd_steps DIR: cd into DIR one name at a time (DIR may be longer than
# PATH_MAX).
cd_steps() {
	local parts x
	case $1 in /*) cd / || return 1 ;; esac
	IFS=/ read -ra parts <<<"$1"
	for x in "${parts[@]}"; do
		[ -z "$x" ] || cd "$x" || return 1
	done
}

# The trail's path and last hash that the last run printed, in SG_PRINTED
# and SG_HASH.
printed_trail() {
	local line
	line=$(grep '^sysgate: audit trail: ' "$SG_ERR" | tail -n 1)
	SG_PRINTED=${line#sysgate: audit trail: }
	SG_PRINTED=${SG_PRINTED% (*}
	SG_HASH=${line##*last hash }
	SG_HASH=${SG_HASH%)}
}

# trail_case NAME DIR: after a run whose tree tried to put a forged trail
# in place of the one at the printed path (renaming DIR away), that path
# holds the run's own trail, ending with the hash printed.
trail_case() {
	printed_trail
	check "$1-dir-kept" test ! -e "$2.old"
	check "$1-printed" test -n "$SG_PRINTED" -a -n "$SG_HASH"
	check "$1-verify-hash" "${SG_AS[@]}" "$SYSGATE" verify --hash "$SG_HASH" "$SG_PRINTED"
	check "$1-verify-hash-other" bash -c "'$SYSGATE' verify --hash '$SG_HASH' '$W/clean.jsonl'; test \$? = 1"
	check "$1-denied" grep -q 'sysgate:audit-trail' "$SG_PRINTED"
}

# vcase NAME EXPECT-STATUS: pass when the last vrun exited so.
vcase() {
	if [ "$SG_RC" = "$2" ]; then
		sg_report_pass "$1"
	else
		sg_report_fail "$1" "expected status $2, got $(sg_status_text "$SG_RC")"
	fi
}

# A directory deeper than PATH_MAX (4096 bytes), made natively as U; its
# path relative to $W is printed.
deep_dir() {
	local name
	name=$(printf 'd%.0s' $(seq 200))
	as_user bash -c "mkdir deep && cd deep && for i in \$(seq 22); do mkdir $name && cd $name || exit 1; done" ||
		return 1
	printf 'deep'
	for _ in $(seq 22); do
		printf '/%s' "$name"
	done
}

cases() {
	local leak=$O/leak
	VRUN_OPTS=()
	rm -f "$leak"
	# The victims must live where the default policy lets them run.
	local V=$W/vb
	mkdir -p "$V"
	cp "$B"/* "$V/"
	[ "$U" = root ] || chown -R "$U:" "$W"

	# --- ${HOME} behind a symlink: no-secrets holds on the canonical path
	local HL=$T/$U/home-link H0=$H
	ln -sfn "$H" "$HL"
	H=$HL
	c home-symlink-secret   - EACCES "--type syscall --path $H0/.ssh/id_rsa --action deny --rule no-secrets --errno EACCES" \
		"$V/try-open" "$HL/.ssh/id_rsa"
	c home-symlink-cat      - 1 - cat "$HL/.ssh/id_rsa"
	check home-symlink-not-leaked bash -c "! grep -q SECRET '$SG_OUT'"
	H=$H0

	# A HOME in a directory U cannot enter is taken as written (the run
	# cannot resolve it either): the run goes on.
	mkdir -p "$T/$U/locked/home"
	chmod 0700 "$T/$U/locked"
	vrun "$W" HOME="$T/$U/locked/home" -- true
	vcase home-unsearchable-runs 0

	# --- a working directory that cannot be named: 125, nothing written
	vrun - -- sh -c "echo LEAK > '$leak'"
	vcase cwd-deleted-125 125
	check cwd-deleted-message grep -q 'variable ${CWD} cannot be determined' "$SG_ERR"
	check cwd-deleted-no-write test ! -e "$leak"
	check cwd-deleted-no-trail test ! -e "$SG_TRAIL"

	local deep
	deep=$(deep_dir) || sg_harness_error "cannot make a deep directory"
	vrun "$W/$deep" -- sh -c "echo LEAK > '$leak'"
	vcase cwd-too-deep-125 125
	check cwd-too-deep-message grep -q 'variable ${CWD} cannot be determined' "$SG_ERR"
	check cwd-too-deep-no-write test ! -e "$leak"
	rm -rf "$W/deep"

	# --- HOME that names no place: 125 where the policy uses ${HOME}
	vrun "$W" HOME=relative/home -- sh -c "echo LEAK > '$leak'"
	vcase home-relative-125 125
	check home-relative-message grep -q 'variable ${HOME} cannot be determined' "$SG_ERR"
	check home-relative-no-write test ! -e "$leak"

	# --- the trail at the printed path is the trail sysgate wrote: a
	# forgery (here a whole trail of another run) cannot take its place
	vrun "$W" -- true
	cp "$SG_TRAIL" "$W/clean.jsonl"
	[ "$U" = root ] || chown "$U:" "$W/clean.jsonl"
	as_user mkdir -p logs
	VRUN_OPTS=(-a "$W/logs/t.jsonl")
	vrun "$W" -- sh -c 'mv logs logs.old; mkdir -p logs; cp clean.jsonl logs/t.jsonl; mv logs/t.jsonl logs/x; rm -rf logs'
	VRUN_OPTS=()
	trail_case trail-dir-rename "$W/logs"
	# The default trail when the command runs in HOME.
	as_user mkdir -p hw
	VRUN_OPTS=(--audit-sync interval)	# and no -a
	vrun "$W/hw" HOME="$W/hw" -- sh -c 'n=$(ls .local/state/sysgate/runs); mv .local .local.old; mkdir -p .local/state/sysgate/runs && cp ../clean.jsonl .local/state/sysgate/runs/$n'
	VRUN_OPTS=()
	trail_case trail-default-in-home "$W/hw/.local"

	# --- TMPDIR with a trailing slash, and behind a symlink
	vrun "$W" TMPDIR=/tmp/ -- sh -c 'echo X > "$TMPDIR/f" && cat "$TMPDIR/f"'
	vcase tmpdir-trailing-slash 0
	check tmpdir-trailing-slash-out grep -qx X "$SG_OUT"
	local TL=$T/$U/tmp-link
	mkdir -p "$T/$U/tmp-real"
	[ "$U" = root ] || chown "$U:" "$T/$U/tmp-real"
	ln -sfn "$T/$U/tmp-real" "$TL"
	vrun "$W" TMPDIR="$TL" -- sh -c 'echo X > "$TMPDIR/f" && cat "$TMPDIR/f"'
	vcase tmpdir-symlink 0
	check tmpdir-symlink-out grep -qx X "$SG_OUT"
}

sg_main cases
