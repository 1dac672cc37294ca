#!/bin/bash
# SPDX-License-Identifier: MIT
# The command line: --version; `sysgate COMMAND --help` for every command
# (usage on stdout, exit 0); an unknown option, or one without its
# argument, refused by every command with a message naming it and exit
# 125, never taken for a file name (`keygen -o FILE` made a secret key
# named -o); `--` ends the options; `-r -` reads the policy from stdin
# (run.start records its hash); the bash completion (runs and diff, and
# latest where a trail is named, included).
. "$(dirname "$0")/lib.sh"
: "${SYSGATE:=${top_builddir:-.}/supervisor/sysgate}"
COMPLETION=${COMPLETION:-$(cd "$(dirname "$SYSGATE")/.." && pwd)/completion/sysgate}
POLICY_SRC=$(cd "$SG_LIB_DIR/../../rules/policies" && pwd)
sg_init

COMMANDS="run check verify learn report export runs diff keygen"

# sg_raw_in FILE ARGS...: sg_raw with FILE on stdin.
sg_raw_in() {
	local in=$1
	shift
	SG_N=$((SG_N + 1))
	SG_TRAIL=$R/$SG_N.jsonl
	SG_OUT=$R/$SG_N.out
	SG_ERR=$R/$SG_N.err
	sg_envs
	(cd "$W" && exec timeout -k 5 "${SG_TIMEOUT:-60}" "${SG_AS[@]}" \
		env -i "${SG_ENVS[@]}" "$SYSGATE" "$@") >"$SG_OUT" 2>"$SG_ERR" <"$in"
	SG_RC=$?
}

# refused NAME MESSAGE ARGS...: sysgate ARGS exits 125, says MESSAGE (a
# fixed string) on stderr and nothing on stdout, and made no file in $W.
refused() {
	local name=$1 msg=$2 before after
	shift 2
	before=$(ls -A "$W" | sort)
	sg_raw "$@"
	after=$(ls -A "$W" | sort)
	check "$name-125" test "$SG_RC" = 125
	check "$name-says" grep -qF -- "$msg" "$SG_ERR"
	check "$name-no-output" test ! -s "$SG_OUT"
	check "$name-no-file" test "$before" = "$after"
}

options_cases() {
	local cmd
	sg_raw --version
	check version-0 test "$SG_RC" = 0
	check version-says grep -Eqx 'sysgate [0-9]+\.[0-9]+(\.[0-9]+)?.*' "$SG_OUT"
	for cmd in $COMMANDS; do
		sg_raw "$cmd" --help
		check "$cmd-help-0" test "$SG_RC" = 0
		check "$cmd-help-usage" grep -q "^usage: sysgate $cmd " "$SG_OUT"
		check "$cmd-help-no-stderr" test ! -s "$SG_ERR"
		sg_raw "$cmd" -h
		check "$cmd-h-0" test "$SG_RC" = 0
		refused "$cmd-unknown-long" "sysgate $cmd: unknown option '--no-such'" \
			"$cmd" --no-such x y
		refused "$cmd-unknown-short" "sysgate $cmd: unknown option '-Z'" \
			"$cmd" -Z x y
	done
	# The issue's case: no secret key named -o, nor a public one.
	refused keygen-dash-o "sysgate keygen: unknown option '-o'" keygen -o key.pub
	check keygen-dash-o-no-key test ! -e "$W/key.pub"
	refused verify-key-no-arg "sysgate verify: option '--key' needs an argument" \
		verify trail.jsonl --key
	refused check-explain-no-arg "sysgate check: option '--explain' needs an argument" \
		check default --explain
	refused learn-o-no-arg "sysgate learn: option '-o' needs an argument" learn t.jsonl -o
	refused report-json-arg "sysgate report: option '--json' takes no argument" \
		report --json=yes t.jsonl
	refused export-format-no-arg "sysgate export: option '--format' needs an argument" \
		export t.jsonl --format
	refused export-no-format "sysgate export: no --format given" export t.jsonl
	refused run-r-no-arg "sysgate run: option '-r' needs an argument" run -r
	refused run-unknown-before-command "sysgate run: unknown option '--rulez'" \
		run --rulez default -- touch "$W/made"
	check run-unknown-started-nothing test ! -e "$W/made"
	refused keygen-one-file "sysgate keygen: two files are needed" keygen only-one

	# -- ends the options: names that start with '-' are files.
	sg_raw keygen -- -secret.key -public.key
	check keygen-dashdash-0 test "$SG_RC" = 0
	check keygen-dashdash-files test -s "$W/-secret.key" -a -s "$W/-public.key"
	cp "$POLICY_SRC/strict.ini" "$W/-p.ini"
	sg_raw check -- -p.ini
	check check-dashdash-0 test "$SG_RC" = 0
	check check-dashdash-valid grep -q '^-p.ini: valid' "$SG_OUT"
	sg_raw run -q -a "$R/dd.jsonl" -- -no-such-command
	check run-dashdash-is-command test "$SG_RC" = 127
	# Options after the operands still count (and are checked).
	sg_raw check "$W/-p.ini" --explain "openat /etc/shadow read"
	check check-option-after-policy test "$SG_RC" = 0
	rm -f "$W/-secret.key" "$W/-public.key" "$W/-p.ini"
}

stdin_cases() {
	local pol=$R/stdin-policy.ini
	cat >"$pol" <<EOF
[policy]
default = allow
audit = all

[rule no-hostname]
syscalls = @file
path = /etc/hostname
action = deny
errno = EACCES
EOF
	sg_raw_in "$pol" run -q -r - -a "$R/stdin.jsonl" -- "$B/try-open" /etc/hostname
	SG_TRAIL=$R/stdin.jsonl
	check stdin-policy-applies test "$SG_RC" = 13
	check stdin-policy-denial "$PY" "$AUDITQ" "$SG_TRAIL" --type syscall --rule no-hostname --action deny
	check stdin-policy-hash "$PY" -c '
import hashlib, json, sys
start = json.loads(open(sys.argv[1]).readline())
want = hashlib.blake2b(open(sys.argv[2], "rb").read(), digest_size=32).hexdigest()
assert start["policy"] == "<stdin>", start
assert start["policy_hash"] == want, (start["policy_hash"], want)
' "$SG_TRAIL" "$pol"
	check stdin-trail-verifies "$SYSGATE" verify "$SG_TRAIL"
	sg_raw_in "$pol" check -
	check check-stdin-0 test "$SG_RC" = 0
	check check-stdin-valid grep -q '^<stdin>: valid' "$SG_OUT"
	printf '[policy]\ndefault = maybe\n' >"$R/bad-stdin.ini"
	sg_raw_in "$R/bad-stdin.ini" run -r - -a "$R/bad.jsonl" -- touch "$W/made-bad"
	check stdin-bad-125 test "$SG_RC" = 125
	check stdin-bad-file-line grep -q '^<stdin>:2:' "$SG_ERR"
	check stdin-bad-started-nothing test ! -e "$W/made-bad"
	printf '[policy]\ndefault = allow\0\n' >"$R/nul-stdin.ini"
	sg_raw_in "$R/nul-stdin.ini" check -
	check stdin-nul-125 test "$SG_RC" = 125
	check stdin-nul-says grep -q 'NUL' "$SG_ERR"
}

# complete DIR STATE LINE: the completions of LINE's last word (empty when
# LINE ends with a space), one a line, with DIR as cwd and STATE as
# XDG_STATE_HOME.
complete_line() {
	(cd "$1" && SYSGATE_POLICY_DIR=$POLICY_SRC XDG_STATE_HOME=$2 \
		bash -c 'source "$0" || exit 99
		read -ra COMP_WORDS <<<"$1"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_sysgate
		printf "%s\n" "${COMPREPLY[@]}"' "$COMPLETION" "$3")
}

# comp NAME LINE [+WORD|-WORD|=WORDS]...: +WORD must be offered, -WORD not,
# =WORDS (space separated) is exactly what is offered.
comp() {
	local name=$1 line=$2 got w
	shift 2
	got=$(complete_line "$CW" "$CS" "$line" | sort)
	for w in "$@"; do
		case $w in
		+*) check "comp-$name-offers-${w#+}" grep -qxF -- "${w#+}" <<<"$got" ;;
		-*) check "comp-$name-not-${w#-}" bash -c '! grep -qxF -- "$1" <<<"$2"' - "${w#-}" "$got" ;;
		=*) check "comp-$name-exactly" test "$(tr ' ' '\n' <<<"${w#=}" | sort)" = "$got" ;;
		esac
	done
}

completion_cases() {
	[ -r "$COMPLETION" ] || sg_harness_error "no completion at $COMPLETION (make builds it)"
	CW=$R/comp
	CS=$R/state
	mkdir -p "$CW/sub" "$CS/sysgate/runs"
	: >"$CW/mine.ini"
	: >"$CW/notes.txt"
	: >"$CW/t1.jsonl"
	: >"$CS/sysgate/runs/20261129T140301Z-9f2c01a4b7e3.jsonl"
	comp commands "sysgate " +run +check +verify +learn +report +export +runs +diff +keygen +--version +--help
	comp prefix-ru "sysgate ru" "=run runs"
	comp prefix "sysgate re" =report
	comp run-options "sysgate run --au" "=--audit --audit-fd --audit-syslog --audit-format --audit-sync"
	comp run-sync "sysgate run --audit-sync e" =every
	comp run-syslog "sysgate run --audit-syslog " +unix: +udp: +tcp:
	comp run-format "sysgate run --audit-format o" =ocsf
	comp run-policy-name "sysgate run -r st" =strict
	comp run-policy-any "sysgate run -q -r " +default +strict +build +python +node +- +mine.ini +sub -notes.txt
	comp run-audit-file "sysgate run -a " +t1.jsonl +sub -notes.txt
	comp run-command "sysgate run -q -- tru" +true
	comp run-after-command "sysgate run -v -- cat no" +notes.txt
	comp check-policies "sysgate check " +default +strict +mine.ini -notes.txt -t1.jsonl
	comp check-options "sysgate check --ex" =--explain
	comp report-trails "sysgate report " +t1.jsonl +sub \
		"+$CS/sysgate/runs/20261129T140301Z-9f2c01a4b7e3.jsonl" -notes.txt -mine.ini
	comp report-views "sysgate report --a" "=--all --around"
	comp report-denied "sysgate report --de" =--denied
	comp report-pid "sysgate report --pid " =
	comp verify-options "sysgate verify --k" =--key
	comp learn-options "sysgate learn --b" =--base
	comp learn-unverified "sysgate learn --u" =--unverified
	comp learn-base "sysgate learn t1.jsonl --base py" =python
	comp keygen-options "sysgate keygen --h" =--help
	comp export-options "sysgate export --f" =--format
	comp export-format "sysgate export --format " =ocsf
	comp export-trails "sysgate export --format ocsf " +t1.jsonl +sub -notes.txt -mine.ini
	comp runs-options "sysgate runs --" "=--json --help"
	comp diff-options "sysgate diff --run" "=--run --run-a --run-b"
	comp diff-unverified "sysgate diff --u" =--unverified
	comp diff-all "sysgate diff --a" =--all
	comp diff-trails "sysgate diff t1.jsonl " +t1.jsonl +latest +sub \
		"+$CS/sysgate/runs/20261129T140301Z-9f2c01a4b7e3.jsonl" -notes.txt
	comp diff-run-number "sysgate diff --run " =
	comp report-latest "sysgate report la" =latest
}

cases() {
	options_cases
	stdin_cases
	completion_cases
}

sg_main cases
