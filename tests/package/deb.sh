#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/package/deb.sh: build the Debian package once and check it.
#
#   bash tests/package/deb.sh      (from anywhere; .ci/run runs it once)
#
# dpkg-buildpackage -b -us -uc builds everything again (autoreconf,
# configure, make, the unit tests), so this is not part of `make check`,
# which CI runs twice: .ci/run runs it once.  It builds from a copy of the
# tree (the files git knows and the new ones it does not ignore) in a
# temporary directory, so the tree is left as it was, then checks that
#   - sysgate_VERSION_amd64.deb was made, with the program, the manual
#     pages, every shipped policy of rules/policies/ and, when `make
#     install` installs one, the bash completion;
#   - lintian finds no error and no warning;
#   - the files extracted with `dpkg-deb -x` into a scratch root work:
#     --version, `sysgate run -- true` (as root and as nobody) with a trail
#     that the extracted sysgate verifies, `sysgate check default`, and a
#     shipped policy found through SYSGATE_POLICY_DIR;
#   - the tree is as clean (git status) after as before.
# Exit 0 pass, 1 fail (a missing tool is a failure: ./bootstrap test
# installs them), 99 harness error.
set -u
export LC_ALL=C

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pass=0
fail=0
ok() {
	echo "ok - $1"
	pass=$((pass + 1))
}
bad() {
	echo "FAIL - $1"
	shift
	[ $# -gt 0 ] && printf '    %s\n' "$@"
	fail=$((fail + 1))
}
# check NAME CMD...: CMD succeeds.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		bad "$name" "condition failed: $*" "$(printf '%s\n' "$out" | tail -n 5)"
	fi
}
finish() {
	echo "# deb: $pass passed, $fail failed"
	[ $fail -eq 0 ] && exit 0
	exit 1
}

for tool in dpkg-buildpackage dpkg-deb dpkg-parsechangelog dh lintian git setpriv; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		bad "tool $tool" "not installed (./bootstrap test installs it)"
		finish
	fi
done
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "HARNESS ERROR: $top is not a git work tree" >&2; exit 99; }

tmp=$(mktemp -d /tmp/sysgate-deb.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
status_before=$(git -C "$top" status --porcelain --untracked-files=normal)

# The source: what git tracks and what it would add, as it is now.
mkdir "$tmp/src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
	done | xargs -0 cp -P --parents -t "$tmp/src") ||
	{ echo "HARNESS ERROR: cannot copy the tree" >&2; exit 99; }

version=$(dpkg-parsechangelog -l "$tmp/src/debian/changelog" -S Version)
deb=$tmp/sysgate_${version}_amd64.deb
log=$tmp/build.log
echo "# building sysgate $version in $tmp/src"
if (cd "$tmp/src" && timeout -k 10 900 env DEB_BUILD_OPTIONS=parallel=2 \
	dpkg-buildpackage -b -us -uc) >"$log" 2>&1 </dev/null && [ -f "$deb" ]; then
	ok "dpkg-buildpackage made sysgate_${version}_amd64.deb"
else
	bad "dpkg-buildpackage" "$(tail -n 25 "$log")"
	finish
fi

# What the package holds.
contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|')
has_file() {
	if printf '%s\n' "$contents" | grep -qx -- "$1"; then
		ok "package has $1"
	else
		bad "package has $1" "not in: $(printf '%s ' $contents | head -c 1500)"
	fi
}
has_file /usr/bin/sysgate
has_file /usr/share/man/man1/sysgate.1.gz
has_file /usr/share/man/man5/sysgate.ini.5.gz
has_file /usr/share/man/man5/sysgate-audit.5.gz
has_file /usr/share/doc/sysgate/copyright
for p in "$top"/rules/policies/*.ini; do
	has_file "/usr/share/sysgate/policies/$(basename "$p")"
done
if grep -qs 'bash.completion' "$top/Makefile.am" "$top"/*/Makefile.inc; then
	has_file /usr/share/bash-completion/completions/sysgate
fi
check "control: Depends holds the shared libraries" \
	sh -c "dpkg-deb -f '$deb' Depends | grep -q libseccomp2"

# lintian: neither errors nor warnings (the overrides are in debian/).
if lintian --fail-on error,warning "$tmp/sysgate_${version}_amd64.changes" >"$tmp/lintian.out" 2>&1; then
	ok "lintian: no error, no warning"
else
	bad "lintian" "$(grep -v 'running with root' "$tmp/lintian.out" | head -n 20)"
fi

# The extracted files work.
root=$tmp/root
dpkg-deb -x "$deb" "$root"
chmod 755 "$tmp" "$root"
sg=$root/usr/bin/sysgate
check "extracted --version" sh -c "'$sg' --version | grep -qx 'sysgate $version'"
check "extracted binary looks in /usr/share/sysgate/policies" \
	grep -q /usr/share/sysgate/policies "$sg"
mkdir -m 1777 "$tmp/work"
for who in root nobody; do
	as=()
	[ "$who" = nobody ] && as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	trail=$tmp/work/true-$who.jsonl
	if (cd "$tmp/work" && timeout -k 5 60 "${as[@]}" env -i PATH=/usr/bin:/bin \
		HOME="$tmp/work" "$sg" run -q -a "$trail" -- true) >"$tmp/run.out" 2>&1; then
		ok "extracted sysgate run -- true as $who"
	else
		bad "extracted sysgate run -- true as $who" "$(tail -n 5 "$tmp/run.out")"
	fi
	check "its trail verifies ($who)" "$sg" verify "$trail"
done
check "extracted sysgate check default" "$sg" check default
check "shipped policy strict through SYSGATE_POLICY_DIR" sh -c \
	"SYSGATE_POLICY_DIR='$root/usr/share/sysgate/policies' '$sg' check strict | grep -q '$root/usr/share/sysgate/policies/strict.ini: valid'"

# The tree is as it was.
status_after=$(git -C "$top" status --porcelain --untracked-files=normal)
if [ "$status_before" = "$status_after" ]; then
	ok "the tree is as clean as before"
else
	bad "the tree changed" "$(diff <(echo "$status_before") <(echo "$status_after") | head)"
fi
finish
