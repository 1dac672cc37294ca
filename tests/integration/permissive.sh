#!/bin/bash
# SPDX-License-Identifier: MIT
# Permissive mode: `sysgate run --permissive -r strict` lets through what
# strict refuses and records it as would_deny, while sysgate's own guards
# still refuse.  Judged from outside: the file written outside the tree
# exists, the loopback listener got the connection, calls the policy's
# filter refuses in the kernel (personality, keyctl; strict plus a rule
# with audit = no) come back with the kernel's own answer; the signing key is not read and the policy file not changed;
# a learned policy from the permissive trail runs the same script with no
# denial, and strict (enforcing) still refuses it.
. "$(dirname "$0")/lib.sh"
sg_init

STRICT=$(cd "$(dirname "$0")/../../rules/policies" && pwd)/strict.ini
[ -f "$STRICT" ] || sg_harness_error "no $STRICT"

cases() {
	local f=$O/perm-made n
	# Programs of the working directory are the only ones strict runs
	# (besides a few tools): the victims go there.
	for n in try-connect try-nr try-priv; do
		cp "$B/$n" "$W/$n"
	done
	cp "$STRICT" "$W/strict.ini"
	[ "$U" = root ] || chown -R "$U:" "$W"
	# perm.sh FILE PORT: exits 0 only when every call got the kernel's
	# own answer (the would-be denials ran), and the guard refused.
	cat >"$W/perm.sh" <<'EOF'
echo made > "$1" || exit 10
./try-connect 127.0.0.1 "$2" || exit 11
./try-nr 135 || exit 12            # personality(0xffffffff): a query
./try-nr 250; [ $? = 95 ] || exit 13 # keyctl(-1): EOPNOTSUPP natively
exit 0
EOF

	# strict records each of its refusals, so the supervisor makes them;
	# a refusal with audit = no stays in the kernel's filter: personality
	# and keyctl are refused so, on top of strict.
	cat >"$W/quiet.ini" <<EOF
[policy]
include = $W/strict.ini

[rule quiet-deny]
syscalls = personality, keyctl
action = deny
errno = EPERM
audit = no
EOF
	[ "$U" = root ] || chown "$U:" "$W/quiet.ini"
	sg_raw check "$W/quiet.ini"
	check quiet-in-kernel grep -Eq "^personality +kernel: deny" "$SG_OUT"
	c kernel-enforced "$W/quiet.ini" EPERM \
		"--type syscall --syscall personality --count 0" ./try-nr 135

	# Natively it all works.
	rm -f "$f"
	sg_listen 127.0.0.1 0
	as_user sh perm.sh "$f" "$SG_PORT" >/dev/null 2>&1
	check native-works test $? = 0
	sg_listen_wait

	# Enforcing strict refuses the write outside the tree.
	rm -f "$f"
	c strict-enforced "$W/strict.ini" 10 \
		"--type syscall --path $f --action deny --rule no-writes-elsewhere" \
		sh perm.sh "$f" 1
	check strict-no-file test ! -e "$f"

	# Permissive: everything runs, every refusal of the policy is recorded
	# as what it would be (the kernel's too), and nothing else is.
	rm -f "$f"
	sg_listen 127.0.0.1 0
	SG_RUN_OPTS=--permissive c permissive "$W/quiet.ini" 0 \
"--type run.start --field mode=\"permissive\"; \
--type syscall --action deny --count 0; \
--type syscall --has would_deny --count 4; \
--type syscall --has would_deny --path $f --rule no-writes-elsewhere --field would=\"deny\" --field would_errno=\"EACCES\" --count 1; \
--type syscall --has would_deny --syscall connect --port $SG_PORT --rule strict-no-network --field would_errno=\"ENETUNREACH\" --count 1; \
--type syscall --has would_deny --syscall personality --rule quiet-deny --action allow --field would_errno=\"EPERM\" --count 1; \
--type syscall --has would_deny --syscall keyctl --rule quiet-deny --action allow --count 1; \
--type run.end --field counts.would_deny=4" \
		sh perm.sh "$f" "$SG_PORT"
	local TP=$SG_TRAIL
	sg_listen_wait
	check permissive-file-made grep -qx made "$f"
	check permissive-listener-got-it test "$SG_LISTEN_RC" = 0
	check permissive-listener-read grep -q hello "$SG_LISTEN_OUT"
	check permissive-summary grep -q "permissive run: .* it would deny 4 calls" "$SG_ERR"
	check permissive-summary-lists grep -q "would deny create of $f by sh\|would deny create of $f by dash" "$SG_ERR"
	check permissive-verifies "$SYSGATE" verify "$TP"
	sg_raw report "$TP"
	check report-would-deny grep -q "would deny" "$SG_OUT"

	# -v: each would-be denial says so.
	rm -f "$f"
	SG_RUN_OPTS="--permissive -v" c verbose "$W/strict.ini" 0 - \
		sh -c "echo x > '$f'"
	check verbose-says-would grep -q "(permissive: no-writes-elsewhere would deny)" "$SG_ERR"

	# [policy] mode = permissive does the same; --enforce wins over it.
	{ echo "[policy]"; echo "mode = permissive"; echo "include = $W/strict.ini"; } |
		policy strict-permissive
	sg_raw check "$P/strict-permissive.ini"
	check check-says-permissive grep -q "^mode = permissive" "$SG_OUT"
	rm -f "$f"
	c mode-key strict-permissive 11 \
		"--type syscall --has would_deny --path $f --count 1" \
		sh perm.sh "$f" 1
	check mode-key-file-made test -e "$f"
	rm -f "$f"
	SG_RUN_OPTS=--enforce c mode-key-enforced strict-permissive 10 \
		"--type syscall --has would_deny --count 0" sh perm.sh "$f" 1
	check mode-key-enforced-no-file test ! -e "$f"

	# The guards hold in permissive mode too: the signing key is not
	# read, the policy file not changed (sysgate:sign-key,
	# sysgate:config), a mount (unmediated) is refused.
	rm -f "$W/key" "$W/key.pub"
	"$SYSGATE" keygen "$W/key" "$W/key.pub" >/dev/null ||
		sg_harness_error "keygen failed"
	[ "$U" = root ] || chown "$U:" "$W/key" "$W/key.pub"
	cp "$W/strict.ini" "$T/strict.orig"
	SG_RUN_OPTS="--permissive --sign-key $W/key" c guards "$W/strict.ini" any \
		"--type syscall --path $W/key --action deny --rule sysgate:sign-key; \
--type syscall --path $W/strict.ini --action deny --rule sysgate:config; \
--type syscall --syscall mount --action deny --errno EPERM --rule sysgate:unmediated" \
		sh -c "od -c key | head -2; echo '[rule x]' >> strict.ini; ./try-priv mount; echo mount=\$?"
	check guard-key-not-read bash -c "! grep -q '^0000000' '$SG_OUT'"
	check guard-policy-unchanged cmp "$W/strict.ini" "$T/strict.orig"
	check guard-mount-refused grep -qx mount=1 "$SG_OUT"

	# learn reads the permissive trail: its would-be denials become
	# allows, and the script runs under the learned policy with none.
	sg_raw learn "$TP" -o "$P/learned.ini"
	check learn-status test "$SG_RC" = 0
	check learn-loads "$SYSGATE" check "$P/learned.ini"
	check learn-allows-file grep -q "^path = .*/outside/perm-made " "$P/learned.ini"
	check learn-allows-connect grep -q "^addr = 127.0.0.1:$SG_PORT " "$P/learned.ini"
	# A permissive base keeps its denials: it is included, and an
	# include's mode does not count.
	sg_raw learn "$TP" --base "$P/strict-permissive.ini" -o "$P/based.ini"
	check learn-base-status test "$SG_RC" = 0
	check learn-base-drops grep -q "^;   create .*/outside/perm-made$" "$P/based.ini"
	rm -f "$f"
	sg_listen 127.0.0.1 "$SG_PORT"
	c learned-replay "$P/learned.ini" 0 \
		"--type syscall --action deny --count 0; \
--type syscall --has would_deny --count 0" \
		sh perm.sh "$f" "$SG_PORT"
	sg_listen_wait
	check learned-file-made test -e "$f"
	check learned-listener-got-it test "$SG_LISTEN_RC" = 0
	# A secret a permissive run read is not learned: the learned policy
	# keeps the default's guards first, and the read stays denied.
	SG_RUN_OPTS=--permissive c secret-read "$W/strict.ini" 0 \
		"--type syscall --path $H/.ssh/id_rsa --has would_deny --rule no-secrets --count 1" \
		sh -c "read x < '$H/.ssh/id_rsa' && echo \"\$x\""
	check secret-was-read grep -q "SECRET ssh key" "$SG_OUT"
	sg_raw learn "$TP" "$SG_TRAIL" -o "$P/learned2.ini"
	check learn2-status test "$SG_RC" = 0
	check learn2-secret-dropped grep -q "^;   read $H/.ssh/id_rsa (no-secrets)" "$P/learned2.ini"
	check learn2-secret-not-allowed bash -c "! grep -q '^path = .*id_rsa' '$P/learned2.ini'"
	c learned-secret "$P/learned2.ini" 2 \
		"--type syscall --path $H/.ssh/id_rsa --action deny --rule no-secrets" \
		sh -c "read x < '$H/.ssh/id_rsa'"
}

sg_main cases
