#!/bin/bash
# SPDX-License-Identifier: MIT
# The closed syscall world: a syscall number the table has no row for (a
# hole, a number newer than the table, one above the highest) fails with
# ENOSYS under every policy, default = allow included, and the attempt is
# recorded; file_getattr and file_setattr (6.17), which change a file's
# attributes by path, are refused the same way.  Judged from outside: the
# attribute flag of a file outside the write area stays unset (lsattr).
. "$(dirname "$0")/lib.sh"
sg_init

SHIPPED=${srcdir:-.}/rules/policies
[ -f "$SHIPPED/strict.ini" ] || sg_harness_error "no $SHIPPED/strict.ini"
cp "$SHIPPED/strict.ini" "$T/strict.ini" && chmod 0644 "$T/strict.ini"

cases() {
	policy allow-all <<EOF
[policy]
default = allow
EOF
	# The README's kind of policy: allow by default, path rules only.
	policy paths <<EOF
[policy]
default = allow

[rule no-writes-outside]
syscalls = @file
path = $O/**
access = write, create, delete
action = deny
errno = EACCES
EOF
	local pol nr f=$O/attr-target
	# The built-in and strict policies run programs of the cwd only.
	cp "$B/try-nr" "$W/try-nr"
	[ "$U" = root ] || chown "$U:" "$W/try-nr"
	for pol in allow-all paths "$T/strict.ini" -; do
		# A hole of the x86_64 table, the first numbers after it,
		# numbers far above, the highest below the x32 bit.
		for nr in 400 470 471 511 512 1000 4096 1073741823; do
			c "unknown-$nr-${pol##*/}" "$pol" ENOSYS \
				"--type syscall --syscall syscall_$nr --action deny --errno ENOSYS --rule sysgate:unknown-syscall" \
				"$W/try-nr" "$nr"
		done
	done

	# file_setattr: natively the tree sets the nodump flag of a file
	# outside the write area; under sysgate it is refused and recorded.
	rm -f "$f"
	as_user touch "$f"
	native 0 "$B/try-nr" setattr "$f"
	check setattr-native-sets-flag bash -c "lsattr '$f' | grep -q '^[^ ]*d'"
	rm -f "$f"
	as_user touch "$f"
	for pol in allow-all paths; do
		c "file-setattr-$pol" "$pol" ENOSYS \
			"--type syscall --syscall file_setattr --action deny --errno ENOSYS --rule sysgate:refused" \
			"$B/try-nr" setattr "$f"
		check "file-setattr-$pol-flag-unset" bash -c "! lsattr '$f' | grep -q '^[^ ]*d'"
		c "file-getattr-$pol" "$pol" ENOSYS \
			"--type syscall --syscall file_getattr --action deny --errno ENOSYS --rule sysgate:refused" \
			"$B/try-nr" getattr "$f"
	done

	# sysgate check says what happens to a number it does not know.
	sg_raw check "$P/allow-all.ini"
	check check-says-unknown grep -q "refused with ENOSYS" "$SG_OUT"
}

sg_main cases
