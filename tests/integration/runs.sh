#!/bin/bash
# SPDX-License-Identifier: MIT
# sysgate runs, latest/~N and sysgate diff, on real runs in the user's own
# state directory (run without -a, HOME the test user's): two runs of a
# script, the second of which also creates a file, connects to a loopback
# listener and is denied a secret, and exits 3.
# - runs lists both, oldest first, with their exit statuses, denials,
#   commands and trails (text and --json); a cut trail is "unfinished",
#   a directory and a file of junk named *.jsonl are skipped with a
#   warning naming them; a file holding two runs gives two lines;
# - latest, ~1 and latest~1 pick the right trail in report, verify,
#   export and diff, and the right run of a file of several; a file named
#   latest in the working directory is not taken (./latest is);
# - diff ~1 latest shows exactly what changed: the program, the file, the
#   connect, the denial, the exit statuses (per program and of the run),
#   and nothing of the random private TMPDIR and temp names; the same run
#   against itself: no differences (exit 0); reversed, the signs swap;
#   --json the same entries; reads of library directories fold into a
#   count that --all unfolds;
# - a trail edited after the fact is refused by diff (125), compared with
#   a warning under --unverified;
# - with no usable HOME the trail goes to /tmp/sysgate-UID, which runs
#   lists.
. "$(dirname "$0")/lib.sh"
sg_init

# sgu NAME ARGS...: `sysgate ARGS` as U in $W with HOME=$H and nothing
# else of ours, bounded; sets SG_RC, SG_OUT, SG_ERR.
sgu() {
	SG_OUT=$R/runs-$1.out
	SG_ERR=$R/runs-$1.err
	shift
	(cd "$W" && exec timeout -k 5 60 "${SG_AS[@]}" env -i PATH="$SG_PATH" \
		HOME="${SGU_HOME:-$H}" USER="$U" "$SYSGATE" "$@") \
		>"$SG_OUT" 2>"$SG_ERR" </dev/null
	SG_RC=$?
}

rc_is() {
	check "$1" sh -c "test '$SG_RC' = '$2' || { echo 'exit $SG_RC, expected $2'; head -c 800 '$SG_ERR'; exit 1; }"
}

# tnorm PATH: PATH as diff shows it (the test's own dir is
# a mktemp one): word runs of 6 or more that mix digits and letters, or
# upper and lower case, as XXXXXX (sysgate-diff's rule for temp names).
tnorm() {
	$PY - "$1" <<'EOF'
import re, sys
def rnd(m):
    w = m.group(0)
    d = any(c.isdigit() for c in w)
    lo = any(c.islower() for c in w)
    up = any(c.isupper() for c in w)
    return "XXXXXX" if len(w) >= 6 and ((d and (lo or up)) or (lo and up)) else w
p = sys.argv[1]
assert p.startswith("/")
print(re.sub(r"[A-Za-z0-9_]+", rnd, p))
EOF
}

# jq_ok NAME FILE PYTHON-EXPR: EXPR is true of j, the JSON in FILE.
jq_ok() {
	check "$1" $PY -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2"
}

cases() {
	policy runs <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES

[rule loopback]
syscalls = connect
addr = 127.0.0.0/8
action = allow
EOF
	local S=$H/.ssh/id_rsa ST=$H/.local/state/sysgate/runs sh_exe NB
	sh_exe=$(readlink -f "$(command -v sh)")
	NB=$(tnorm "$B")
	rm -rf "$H/.local" "$W/out.txt" "$W/latest"
	# The state directory, empty (sysgate run would make it; its being
	# there keeps /tmp/sysgate-UID, shared with other runs, out).
	mkdir -p "$ST"
	[ "$U" = root ] || chown -R "$U:" "$H/.local"
	cat >"$W/job.sh" <<'EOF'
cat readme.txt >/dev/null
t=$(mktemp) && echo tmp >"$t"
if [ "$1" = 2 ]; then
	echo new >out.txt
	"$2/try-connect" 127.0.0.1 "$3"
	"$2/try-open" "$4"
	exit 3
fi
exit 0
EOF
	chmod 0644 "$W/job.sh"

	# Nothing yet.
	sgu empty runs
	rc_is empty-runs-0 0
	check empty-runs-header-only test "$(wc -l <"$SG_OUT")" = 1
	sgu empty-latest report latest
	rc_is empty-latest-125 125
	check empty-latest-said grep -q 'latest: no runs' "$SG_ERR"

	# Two runs, default trail place.
	sg_listen 127.0.0.1 0
	sgu run1 run -q -r "$P/runs.ini" -- sh job.sh 1 "$B" "$SG_PORT" "$S"
	rc_is run1-exit-0 0
	sgu run2 run -q -r "$P/runs.ini" -- sh job.sh 2 "$B" "$SG_PORT" "$S"
	rc_is run2-exit-3 3
	sg_listen_wait
	check listener-was-reached test "$SG_LISTEN_RC" = 0
	check run2-created-file test -f "$W/out.txt"

	sgu list-json runs --json
	rc_is runs-json-0 0
	local L=$SG_OUT
	jq_ok runs-two "$L" "len(j) == 2"
	jq_ok runs-refs "$L" "[r['ref'] for r in j] == ['~1', 'latest']"
	jq_ok runs-exits "$L" "[(r['exit'], r['status'], r['finished']) for r in j] == [(0, 'exited', True), (3, 'exited', True)]"
	jq_ok runs-denials "$L" "[r['denials'] for r in j] == [0, 1]"
	jq_ok runs-commands "$L" "[r['command'][:3] for r in j] == [['sh', 'job.sh', '1'], ['sh', 'job.sh', '2']]"
	jq_ok runs-in-state-dir "$L" "all(r['trail'].startswith('$ST/') for r in j)"
	local T1 T2 ID2
	T1=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['trail'])" "$L")
	T2=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))[1]['trail'])" "$L")
	ID2=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))[1]['run'])" "$L")
	check trails-differ test "$T1" != "$T2"

	sgu list runs
	rc_is runs-text-0 0
	check runs-text-lines test "$(wc -l <"$SG_OUT")" = 3
	check runs-text-first grep -Eq "^~1 +[0-9T:Z-]+ +[0-9.ms]+ 0 +0  $T1  sh job.sh 1 " "$SG_OUT"
	check runs-text-latest grep -Eq "^latest +[0-9T:Z-]+ +[0-9.ms]+ 3 +1  $T2  sh job.sh 2 " "$SG_OUT"

	# latest and ~1 wherever a trail is taken.
	sgu verify-latest verify latest
	check verify-latest-is-T2 grep -qF "$T2: OK" "$SG_OUT"
	sgu verify-1 verify '~1'
	check verify-tilde1-is-T1 grep -qF "$T1: OK" "$SG_OUT"
	sgu verify-latest1 verify 'latest~1'
	check verify-latest-tilde1-is-T1 grep -qF "$T1: OK" "$SG_OUT"
	sgu verify-2 verify '~2'
	rc_is verify-tilde2-125 125
	check verify-tilde2-said grep -q "~2: no such run" "$SG_ERR"
	sgu report-latest report --json latest
	rc_is report-latest-0 0
	jq_ok report-latest-is-run2 "$SG_OUT" "j['run']['id'] == '$ID2'" 
	sgu report-1 report '~1'
	check report-tilde1-is-T1 grep -qF "$T1" "$SG_OUT"
	sgu export-latest export --format ocsf latest
	rc_is export-latest-0 0
	"$SYSGATE" export --format ocsf "$T2" >"$R/export-T2.out" 2>/dev/null
	check export-latest-is-T2 cmp "$SG_OUT" "$R/export-T2.out"
	sgu learn-latest learn latest
	rc_is learn-latest-0 0
	check learn-latest-is-T2 grep -qF "trail: $T2" "$SG_OUT"
	# A file named latest in the cwd (the tree may write there) is not
	# taken for the run; ./latest names it.
	cp "$T1" "$W/latest" && chmod 0644 "$W/latest"
	sgu verify-file-latest verify latest
	check file-latest-not-taken grep -qF "$T2: OK" "$SG_OUT"
	sgu verify-dot-latest verify ./latest
	check dot-latest-is-file grep -qF "./latest: OK" "$SG_OUT"
	rm -f "$W/latest"

	# diff: exactly the differences.
	sgu diff diff '~1' latest
	rc_is diff-exit-1 1
	grep -E '^[-+] |^run:|^     \+' "$SG_OUT" >"$R/diff.got"
	cat >"$R/diff.want" <<EOF
run: - exit 0
     + exit 3
+ $NB/try-connect
+ $NB/try-open
+ create \${CWD}/out.txt
+ connect 127.0.0.1:$SG_PORT
+ openat read \${HOME}/.ssh/id_rsa: rule no-secrets, EACCES
EOF
	# The exit statuses, by program path (the tool's order).
	printf '%s\n' "- $sh_exe exit 0" "+ $NB/try-connect exit 0" \
		"+ $NB/try-open exit 13" "+ $sh_exe exit 3" |
		sort -s -k2,2 >>"$R/diff.want"
	check diff-exact diff -u "$R/diff.want" "$R/diff.got"
	check diff-headers grep -qF -- "--- $T1" "$SG_OUT"
	check diff-no-tmpdir sh -c "! grep -E 'sysgate-[0-9]{8}T|tmp\\.[A-Za-z0-9]{6}' '$SG_OUT'"
	# Each run made a temp file in its own private TMPDIR (so the exact
	# diff above shows that they were put back to the same entry).
	for t in "$T1" "$T2"; do
		check "tempfile-in-$(basename "$t")" $PY -c "
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
tmp = recs[0]['tmpdir']
sys.exit(0 if any(p.get('access') == 'create' and p['path'].startswith(tmp + '/tmp.')
                  for r in recs for p in r.get('paths', [])) else 1)" "$t"
	done
	sgu diff-json diff --json '~1' latest
	rc_is diff-json-1 1
	jq_ok diff-json-execs "$SG_OUT" "j['execs'] == {'only_a': [], 'only_b': ['$NB/try-connect', '$NB/try-open']}"
	jq_ok diff-json-files "$SG_OUT" "j['files'] == {'only_a': [], 'only_b': ['create \${CWD}/out.txt'], 'folded_a': 0, 'folded_b': 0}"
	jq_ok diff-json-net "$SG_OUT" "j['network'] == {'only_a': [], 'only_b': ['connect 127.0.0.1:$SG_PORT']}"
	jq_ok diff-json-denials "$SG_OUT" "j['denials']['only_b'] == ['openat read \${HOME}/.ssh/id_rsa: rule no-secrets, EACCES'] and j['denials']['only_a'] == []"
	jq_ok diff-json-exits "$SG_OUT" "j['exits']['only_a'] == ['$sh_exe exit 0'] and len(j['exits']['only_b']) == 3 and (j['a']['exit'], j['b']['exit']) == (0, 3) and j['differences'] == 10"
	sgu diff-rev diff latest '~1'
	rc_is diff-reversed-1 1
	check diff-reversed-swaps grep -qxF -- "- create \${CWD}/out.txt" "$SG_OUT"
	sgu diff-same diff latest "$T2"
	rc_is diff-same-0 0
	check diff-same-says grep -qx 'no differences' "$SG_OUT"

	# Reads of a library directory fold into a count; --all lists them.
	sgu run3 run -q -r "$P/runs.ini" -- sh -c 'cat readme.txt /usr/lib/os-release >/dev/null'
	sgu run4 run -q -r "$P/runs.ini" -- sh -c 'cat readme.txt >/dev/null'
	sgu diff-fold diff '~1' latest
	rc_is diff-fold-1 1
	check diff-fold-hidden sh -c "! grep -q 'os-release' '$SG_OUT'"
	check diff-fold-counted grep -qF '(and loader, locale and runtime reads: 1 only in A, 0 only in B; --all shows them)' "$SG_OUT"
	sgu diff-all diff --all '~1' latest
	check diff-all-lists grep -qxF -- '- read /usr/lib/os-release' "$SG_OUT"

	# A trail edited after the fact: refused, or a warning.
	sed 's/"code":3/"code":0/' "$T2" >"$R/edited.jsonl"
	check edit-took sh -c "! cmp -s '$T2' '$R/edited.jsonl'"
	sgu diff-edited diff "$T1" "$R/edited.jsonl"
	rc_is diff-edited-125 125
	check diff-edited-said grep -q 'does not verify' "$SG_ERR"
	check diff-edited-no-output test ! -s "$SG_OUT"
	sgu diff-unverified diff --unverified "$T1" "$R/edited.jsonl"
	rc_is diff-unverified-1 1
	check diff-unverified-warns grep -q 'WARNING: .* does not verify' "$SG_ERR"

	# Unfinished, unreadable, junk; two runs in one file.
	head -n 5 "$T2" >"$ST/cut.jsonl"
	mkdir -p "$ST/dir.jsonl"
	echo 'not a trail' >"$ST/junk.jsonl"
	[ "$U" = root ] || chown -R "$U:" "$ST"
	sgu run-m1 run -q -a "$ST/multi.jsonl" -- true
	sgu run-m2 run -q -a "$ST/multi.jsonl" -- sh -c 'exit 4'
	rc_is multi-second-4 4
	sgu list2 runs --json
	rc_is runs-damaged-0 0
	jq_ok runs-cut-unfinished "$SG_OUT" "[(r['status'], r['exit']) for r in j if r['trail'].endswith('/cut.jsonl')] == [('unfinished', None)]"
	jq_ok runs-multi-two "$SG_OUT" "[(r['run_index'], r['runs_in_file'], r['exit']) for r in j if r['trail'].endswith('/multi.jsonl')] == [(1, 2, 0), (2, 2, 4)]"
	jq_ok runs-multi-latest "$SG_OUT" "j[-1]['trail'].endswith('/multi.jsonl') and j[-1]['run_index'] == 2"
	check runs-warns-dir grep -q "dir.jsonl: Is a directory; skipped" "$SG_ERR"
	check runs-warns-junk grep -q "junk.jsonl: no audit records; skipped" "$SG_ERR"
	sgu list2-text runs
	check runs-text-unfinished grep -qE " unfinished +0  $ST/cut.jsonl" "$SG_OUT"
	sgu report-multi report --json latest
	jq_ok report-latest-in-multi "$SG_OUT" "j['run']['index'] == 2 and j['run']['exit'] == 4" 
	sgu report-multi1 report --json '~1'
	jq_ok report-tilde1-in-multi "$SG_OUT" "j['run']['index'] == 1"
	sgu diff-multi diff '~1' latest
	check diff-multi-runs grep -qx '     + exit 4' "$SG_OUT"
	rm -rf "$ST/dir.jsonl"

	# No usable home: the trail goes to /tmp/sysgate-UID, listed there,
	# and the missing home is not made (root could make it).
	local NH=$T/no-home-$U
	SGU_HOME=$NH sgu nohome-run run -- true
	rc_is nohome-run-0 0
	check nohome-not-made test ! -e "$NH"
	local NT
	NT=$(sed -n 's/^sysgate: audit trail: \(.*\) ([0-9]* records.*/\1/p' "$SG_ERR")
	check nohome-trail-in-tmp sh -c "case '$NT' in /tmp/sysgate-$(id -u "$U")/*.jsonl) ;; *) echo '$NT'; exit 1;; esac"
	SGU_HOME=$NH sgu nohome-runs runs
	rc_is nohome-runs-0 0
	check nohome-runs-lists grep -qF "  $NT  true" "$SG_OUT"
	rm -f "$NT"
}

sg_main cases
