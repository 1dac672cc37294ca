#!/bin/bash
# SPDX-License-Identifier: MIT
# Tamper evidence through the command line: for each kind of alteration of
# a real trail (edit, remove, reorder, insert, truncate, cut mid-line,
# append) `sysgate verify` exits 1 and names the right record; the
# untouched trail verifies (exit 0); a signed trail verifies with its key
# (`sysgate keygen`, `run --sign-key`) and fails with another key, and a
# trail rewritten with a recomputed chain fails against the key.
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
}

sg_main cases
