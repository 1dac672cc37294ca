#!/bin/bash
# SPDX-License-Identifier: MIT
# Tamper evidence through the command line: for each kind of alteration of
# a real trail (edit, remove, reorder, insert, truncate, cut mid-line,
# append) `sysgate verify` exits 1 and names the right record; the
# untouched trail verifies (exit 0); a signed trail verifies with its key
# (`sysgate keygen`, `run --sign-key`) and fails with another key, and a
# trail rewritten with a recomputed chain fails against the key.  In a file
# of several runs (each appended by sysgate run -a), a whole run dropped,
# two runs swapped or a run of another file inserted fails, with and
# without the key, naming the run; the untouched file verifies; relinking
# the runs fails against the key; a file that does not end with a whole
# record is not appended to.
. "$(dirname "$0")/lib.sh"
sg_init

# verify NAME EXPECT-RC PATTERN TRAIL [--key PUB]: `sysgate verify` exits
# EXPECT-RC and its output matches PATTERN (ERE).
verify() {
	local name=$1 rc=$2 pat=$3 out
	shift 3
	out=$(timeout -k 5 60 "$SYSGATE" verify "$@" 2>&1 </dev/null)
	local got=$?
	if [ "$got" = "$rc" ] && grep -Eq -- "$pat" <<<"$out"; then
		SG_ERR= sg_report_pass "$name"
	else
		SG_ERR= sg_report_fail "$name" "sysgate verify $*" \
			"expected exit $rc and /$pat/, got exit $got: $out"
	fi
}

# tamper KIND IN OUT [ARG]: write an altered copy of IN.
tamper() {
	$PY - "$@" <<'EOF' || sg_harness_error "cannot alter $2 ($1)"
import hashlib, json, sys
kind, src, dst = sys.argv[1:4]
arg = sys.argv[4] if len(sys.argv) > 4 else None
L = open(src, "rb").read().split(b"\n")
assert L[-1] == b""
L.pop()
def put(lines, tail=b"\n"):
    open(dst, "wb").write(b"\n".join(lines) + tail)
if kind == "edit":            # one character of record 5's content
    i = 4
    assert b'"pid":' in L[i] or b'"path":"' in L[i], L[i]
    L[i] = L[i].replace(b'"pid":', b'"pid":9', 1) if b'"pid":' in L[i] \
        else L[i].replace(b'"path":"', b'"path":"x', 1)
    put(L)
elif kind == "edit-end":      # the exit status in run.end
    assert b'"type":"run.end"' in L[-1]
    L[-1] = L[-1].replace(b'"exit":0', b'"exit":1', 1)
    put(L)
elif kind == "remove":        # record 5
    put(L[:4] + L[5:])
elif kind == "reorder":       # records 5 and 6 swapped
    put(L[:4] + [L[5], L[4]] + L[6:])
elif kind == "duplicate":     # record 5 twice
    put(L[:5] + [L[4]] + L[5:])
elif kind == "insert":        # record 6 of another trail before record 6
    other = open(arg, "rb").read().split(b"\n")
    put(L[:5] + [other[5]] + L[5:])
elif kind == "truncate":      # the last 3 records gone
    put(L[:-3])
elif kind == "cut":           # the file ends in the middle of line 8
    open(dst, "wb").write(b"\n".join(L[:7]) + b"\n" + L[7][:len(L[7]) // 2])
elif kind == "append":        # a copy of record 4 after run.end
    put(L + [L[3]])
elif kind.startswith("runs:"):  # whole runs in the order given; xN: run N of arg
    def split(lines):
        runs = []
        for line in lines:
            if json.loads(line)["seq"] == 1:
                runs.append([])
            runs[-1].append(line)
        return runs
    runs = split(L)
    others = split(open(arg, "rb").read().split(b"\n")[:-1]) if arg else []
    out = []
    for r in kind[5:].split(","):
        out += others[int(r[1:]) - 1] if r.startswith("x") else runs[int(r) - 1]
    put(out)
elif kind == "relink":        # drop run 2, make run 3 name run 1, rehash all
    runs, keep = [], []
    for line in L:
        if json.loads(line)["seq"] == 1:
            runs.append([])
        runs[-1].append(line)
    prev, end, out = bytes(32), None, []
    for line in runs[0] + runs[2]:
        o = json.loads(line)
        body = line[:line.rindex(b',"hash":"')]
        if o["seq"] == 1:
            if end is not None:
                body = body.replace(o["prev_run_hash"].encode(), end.hex().encode())
            prev = bytes(32)
        if o["type"] == "run.end":
            body = body.replace(o["final_hash"].encode(), prev.hex().encode())
        prev = hashlib.blake2b(prev + body, digest_size=32).digest()
        out.append(body + b',"hash":"' + prev.hex().encode() + b'"}')
        if o["type"] == "run.end":
            end = prev
    put(out)
elif kind == "rechain":       # edit record 5 and recompute every hash
    prev = bytes(32)
    out = []
    for n, line in enumerate(L):
        cut = line.rindex(b',"hash":"')
        body = line[:cut]
        if n == 4:
            body = body.replace(b'"pid":', b'"pid":9', 1)
        if b'"type":"run.end"' in body:
            o = json.loads(body + b"}")
            body = body.replace(o["final_hash"].encode(), prev.hex().encode())
        h = hashlib.blake2b(prev + body, digest_size=32).digest()
        out.append(body + b',"hash":"' + h.hex().encode() + b'"}')
        prev = h
    put(out)
else:
    sys.exit("unknown alteration " + kind)
EOF
}

cases() {
	policy tamper <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES
EOF
	local S=$H/.ssh/id_rsa
	local cmd=(sh -c "cat readme.txt >/dev/null; cat '$S' 2>/dev/null; ls >/dev/null; exit 0")
	sg_run -r "$P/tamper.ini" -- "${cmd[@]}"
	local t=$SG_TRAIL n
	check workload-ran test "$SG_RC" = 0
	n=$(wc -l <"$t")
	[ "$n" -ge 12 ] || sg_harness_error "the trail has only $n records"
	sg_run -r "$P/tamper.ini" -- "${cmd[@]}"
	local other=$SG_TRAIL

	verify untouched 0 "OK: the hash chain is whole" "$t"
	tamper edit "$t" "$R/edit.jsonl"
	verify edit 1 "^$R/edit.jsonl: BAD: record 5 \(line 5\): hash does not match its content: edited$" "$R/edit.jsonl"
	tamper edit-end "$t" "$R/edit-end.jsonl"
	verify edit-run-end 1 "BAD: record $n \(line $n\): hash does not match its content: edited$" "$R/edit-end.jsonl"
	tamper remove "$t" "$R/remove.jsonl"
	verify remove 1 "BAD: record 5 missing: line 5 has seq 6: removed$" "$R/remove.jsonl"
	tamper reorder "$t" "$R/reorder.jsonl"
	verify reorder 1 "BAD: line 5: seq 6 comes before seq 5 \(line 6\): reordered$" "$R/reorder.jsonl"
	tamper duplicate "$t" "$R/duplicate.jsonl"
	verify insert-duplicate 1 "BAD: line 6: seq 5 after 5: record 5 appears twice: inserted$" "$R/duplicate.jsonl"
	tamper insert "$t" "$R/insert.jsonl" "$other"
	verify insert-foreign 1 "BAD: line 6: not part of the chain \(record 6 at line 7 follows record 5\): inserted$" "$R/insert.jsonl"
	tamper truncate "$t" "$R/truncate.jsonl"
	verify truncate 1 "BAD: truncated after record $((n - 3)) \(no run.end\)$" "$R/truncate.jsonl"
	tamper cut "$t" "$R/cut.jsonl"
	verify cut-mid-line 1 "BAD: truncated after record 7: line 8 is incomplete \(no newline\)$" "$R/cut.jsonl"
	tamper append "$t" "$R/append.jsonl"
	verify append 1 "BAD: line $((n + 1)): seq 4 after run.end \(record $n\): appended$" "$R/append.jsonl"
	verify missing-file 125 "No such file" "$R/nothing.jsonl"

	# Signed trails.
	local k=$R/keys
	mkdir -p "$k"
	check keygen "$SYSGATE" keygen "$k/run.sec" "$k/run.pub"
	check keygen-other "$SYSGATE" keygen "$k/other.sec" "$k/other.pub"
	check keygen-secret-0600 test "$(stat -c %a "$k/run.sec")" = 600
	check keygen-refuses-overwrite sh -c "! '$SYSGATE' keygen '$k/run.sec' '$k/new.pub' 2>/dev/null"
	[ "$U" = root ] || chown "$U" "$k/run.sec"
	sg_run -r "$P/tamper.ini" --sign-key "$k/run.sec" -- "${cmd[@]}"
	local s=$SG_TRAIL
	check signed-run test "$SG_RC" = 0
	check signed-has-signature grep -q '"signature":"[0-9a-f]\{128\}"' "$s"
	verify signed-right-key 0 "OK: the hash chain is whole and the signature verifies" "$s" --key "$k/run.pub"
	verify signed-no-key 0 "OK" "$s"
	verify signed-wrong-key 1 "run.end \(record [0-9]+, line [0-9]+\): signature does not verify with the given key$" "$s" --key "$k/other.pub"
	verify unsigned-with-key 1 "run.end \(record $n, line $n\): not signed$" "$t" --key "$k/run.pub"
	tamper edit "$s" "$R/signed-edit.jsonl"
	verify signed-edit 1 "BAD: record 5 \(line 5\): hash does not match its content: edited$" "$R/signed-edit.jsonl" --key "$k/run.pub"
	# Someone who rewrites every hash defeats the chain, not the signature.
	tamper rechain "$s" "$R/rechain.jsonl"
	check rechain-differs sh -c "! cmp -s '$s' '$R/rechain.jsonl'"
	verify rechain-with-key 1 "signature does not verify with the given key" "$R/rechain.jsonl" --key "$k/run.pub"
	echo "not a key" >"$k/bad.pub"
	verify bad-key-file 125 "cannot read the public key" "$s" --key "$k/bad.pub"

	runs_cases "$k"
}

# Several runs in one file, each appended by sysgate run -a (the last -a
# given wins over sg_run's own).
runs_cases() {
	local k=$1 m=$R/multi.jsonl ms=$R/multi-signed.jsonl mo=$R/multi-other.jsonl
	local cmd=(sh -c "cat readme.txt >/dev/null; exit 0") i
	rm -f "$m" "$ms" "$mo"
	for i in 1 2 3; do
		sg_run -r "$P/tamper.ini" -a "$m" -- "${cmd[@]}"
		[ "$SG_RC" = 0 ] || sg_harness_error "run $i into $m: $(cat "$SG_ERR")"
		sg_run -r "$P/tamper.ini" -a "$ms" --sign-key "$k/run.sec" -- "${cmd[@]}"
		[ "$SG_RC" = 0 ] || sg_harness_error "signed run $i into $ms: $(cat "$SG_ERR")"
	done
	for i in 1 2; do
		sg_run -r "$P/tamper.ini" -a "$mo" --sign-key "$k/run.sec" -- "${cmd[@]}"
		[ "$SG_RC" = 0 ] || sg_harness_error "run $i into $mo: $(cat "$SG_ERR")"
	done
	check runs-first-null grep -q '^{"seq":1,[^}]*"type":"run.start","prev_run_hash":null,' "$m"
	check runs-later-chained test "$(grep -c '"type":"run.start","prev_run_hash":"[0-9a-f]\{64\}"' "$m")" = 2
	verify runs-untouched 0 "OK: the hash chain is whole$" "$m"
	verify runs-untouched-signed 0 "OK: the hash chain is whole and the signature verifies$" "$ms" --key "$k/run.pub"

	local f tag e1 e2 e3 key
	for f in "$m" "$ms"; do
		# The line of each run's run.end, in this file.
		read -r e1 e2 e3 < <(grep -n '"type":"run.end"' "$f" | cut -d: -f1 | tr '\n' ' ')
		[ -n "$e3" ] || sg_harness_error "$f does not hold 3 runs"
		key=()
		[ "$f" = "$ms" ] && key=(--key "$k/run.pub")
		tag=${f##*/}
		tag=${tag%.jsonl}
		tamper runs:1,3 "$f" "$R/$tag-drop2.jsonl"
		verify "$tag-drop-run-2" 1 "BAD: run 2 \(id [^,]+, line $((e1 + 1))\): run.start follows a record that is not in the file, but the run before it ends at line $e1: .*: removed$" "$R/$tag-drop2.jsonl" "${key[@]}"
		tamper runs:2,3 "$f" "$R/$tag-drop1.jsonl"
		verify "$tag-drop-run-1" 1 "BAD: run 1 \(id [^,]+, line 1\): run.start follows a record that is not in the file, but it is the first run of the file: .*: removed$" "$R/$tag-drop1.jsonl" "${key[@]}"
		tamper runs:1,3,2 "$f" "$R/$tag-swap23.jsonl"
		verify "$tag-swap-runs-2-3" 1 "BAD: run 2 \(id [^,]+, line $((e1 + 1))\): run.start follows the record at line $e3, further down, but the run before it ends at line $e1: reordered$" "$R/$tag-swap23.jsonl" "${key[@]}"
		tamper runs:2,1,3 "$f" "$R/$tag-swap12.jsonl"
		verify "$tag-swap-runs-1-2" 1 "BAD: run 1 \(id [^,]+, line 1\): run.start follows the record at line [0-9]+, further down, but it is the first run of the file: reordered$" "$R/$tag-swap12.jsonl" "${key[@]}"
		tamper runs:1,x2,2,3 "$f" "$R/$tag-foreign2.jsonl" "$mo"
		verify "$tag-insert-foreign-run" 1 "BAD: run 2 \(id [^,]+, line $((e1 + 1))\): run.start follows a record that is not in the file, but the run before it ends at line $e1: .*: removed$" "$R/$tag-foreign2.jsonl" "${key[@]}"
		tamper runs:1,x1,2,3 "$f" "$R/$tag-foreign1.jsonl" "$mo"
		verify "$tag-insert-foreign-first-run" 1 "BAD: run 2 \(id [^,]+, line $((e1 + 1))\): run.start says it is the first run of its file, but the run before it ends at line $e1: inserted$" "$R/$tag-foreign1.jsonl" "${key[@]}"
	done

	# Hiding a dropped run by rewriting prev_run_hash and every hash
	# fools the chain (as any rewrite of the whole file does), not the
	# signature.
	tamper relink "$m" "$R/relink-unsigned.jsonl"
	verify runs-relinked-unsigned 0 "OK" "$R/relink-unsigned.jsonl"
	tamper relink "$ms" "$R/relink.jsonl"
	verify runs-relinked-with-key 1 "BAD: run.end \(record [0-9]+, line [0-9]+\): signature does not verify with the given key$" "$R/relink.jsonl" --key "$k/run.pub"

	# A file that does not end with a whole record is not appended to.
	cp "$m" "$R/junk.jsonl"
	echo "junk" >>"$R/junk.jsonl"
	cp "$R/junk.jsonl" "$R/junk.before"
	[ "$U" = root ] || chown "$U" "$R/junk.jsonl"
	sg_run -r "$P/tamper.ini" -a "$R/junk.jsonl" -- "${cmd[@]}"
	check runs-junk-refused test "$SG_RC" = 125
	check runs-junk-says-why grep -q "does not end with a whole audit record" "$SG_ERR"
	check runs-junk-untouched cmp -s "$R/junk.jsonl" "$R/junk.before"
}

sg_main cases
