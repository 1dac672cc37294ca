#!/bin/bash
# SPDX-License-Identifier: MIT
# Ordinary work under the built-in policy and the shipped ones, without a
# single denial in the trail, each judged by its effect seen from outside:
# pip installs a local wheel into a venv, npm a local tarball, a local
# git clone and commit, make asks git describe, a script writes /tmp and
# the XDG directories and reads them back (the real ones stay untouched),
# a pyenv-like shim, a rustup-like toolchain and a pipx-like tool in the
# home directory run, Python's IPv6 probe under -r python; -r NAME finds
# the built-in policies from a directory without policy files, a file of
# that name there wins, an unknown name says what it is not; a denied
# hard link of a local clone is summarised as a link.
. "$(dirname "$0")/lib.sh"
sg_init

# The trail of a real task: no deny, no kill, and it is well formed.
CLEAN="--valid; --type syscall --action deny --count 0; --type syscall --action kill --count 0"
TC=stable-x86_64-unknown-linux-gnu

# A wheel made by hand: pip installs it with no network and no build.
make_wheel() {
	"$PY" - "$1" <<'EOF'
import base64, hashlib, sys, zipfile
files = {
    "fitpkg/__init__.py": "VALUE = 42\n",
    "fitpkg-1.0.dist-info/METADATA":
        "Metadata-Version: 2.1\nName: fitpkg\nVersion: 1.0\n",
    "fitpkg-1.0.dist-info/WHEEL":
        "Wheel-Version: 1.0\nGenerator: fit-tasks\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
with zipfile.ZipFile(sys.argv[1] + "/fitpkg-1.0-py3-none-any.whl", "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
        d = hashlib.sha256(text.encode()).digest()
        d = base64.urlsafe_b64encode(d).rstrip(b"=").decode()
        rec.append("%s,sha256=%s,%d" % (name, d, len(text)))
    rec.append("fitpkg-1.0.dist-info/RECORD,,")
    z.writestr("fitpkg-1.0.dist-info/RECORD", "\n".join(rec) + "\n")
EOF
}

# The user's tools as their installers lay them out: pyenv's shims (bash
# scripts running readlink, basename, dirname, cat), rustup's proxies in
# ~/.cargo/bin running a toolchain, pipx's venvs linked from ~/.local/bin.
make_home_tools() {
	mkdir -p "$H/.pyenv/shims" "$H/.cargo/bin" "$H/.rustup/toolchains/$TC/bin" \
		"$H/.local/share/pipx/venvs/fittool/bin" "$H/.local/bin" \
		"$H/.config" "$H/.cache" "$H/.local/share"
	cat >"$H/.pyenv/shims/python" <<'EOF'
#!/usr/bin/env bash
set -e
program="$(basename "$0")"
root="$(dirname "$(dirname "$(readlink -f "$0")")")"
version="$(cat "$root/version" 2>/dev/null || echo system)"
[ "$program" = python ] && [ "$version" = system ]
exec /usr/bin/python3 "$@"
EOF
	local t
	for t in cargo rustc; do
		printf '#!/bin/sh\nexec "$HOME/.rustup/toolchains/%s/bin/%s" "$@"\n' \
			"$TC" "$t" >"$H/.cargo/bin/$t"
		printf '#!/bin/sh\necho "%s 1.0.0-fake"\n' "$t" \
			>"$H/.rustup/toolchains/$TC/bin/$t"
	done
	printf '#!/bin/sh\necho fittool-ran\n' >"$H/.local/share/pipx/venvs/fittool/bin/fittool"
	ln -sf "$H/.local/share/pipx/venvs/fittool/bin/fittool" "$H/.local/bin/fittool"
	chmod -R a+rx "$H/.pyenv" "$H/.cargo/bin" "$H/.rustup" "$H/.local"
}

make_projects() {
	mkdir -p "$W/wheels" "$W/lib/package" "$W/app" "$W/mk" "$O/src"
	make_wheel "$W/wheels"
	printf '{"name":"fitlib","version":"1.0.0","main":"index.js"}\n' \
		>"$W/lib/package/package.json"
	echo 'module.exports = 42;' >"$W/lib/package/index.js"
	tar czf "$W/lib/fitlib-1.0.0.tgz" -C "$W/lib" package
	printf '{"name":"app","version":"1.0.0"}\n' >"$W/app/package.json"
	# A build that asks git for its version.
	printf 'VERSION := $(shell git describe --tags --always)\nall:\n\techo "v=$(VERSION)" > version.txt\n' \
		>"$W/mk/Makefile"
	local g=(git -c user.name=T -c user.email=t@example.com -c init.defaultBranch=main)
	(cd "$W/mk" && "${g[@]}" init -q && "${g[@]}" add -A &&
		"${g[@]}" commit -qm init && "${g[@]}" tag v1.2) ||
		sg_harness_error "cannot make the git project"
	# A repository outside the working directory, cloned locally.
	(cd "$O/src" && "${g[@]}" init -q && echo a >a && "${g[@]}" add -A &&
		"${g[@]}" commit -qm init) || sg_harness_error "cannot make the outside repository"
}

# with_path DIRS CMD...: CMD with PATH=DIRS:$SG_PATH for the command run.
with_path() {
	SG_EXTRA_ENV=("PATH=$1:$SG_PATH")
	shift
	"$@"
	SG_EXTRA_ENV=()
}

cases() {
	make_home_tools
	make_projects
	[ "$U" = root ] || chown -R "$U:" "$W" "$H" "$O"

	# pip into a venv from a local wheel; under -r python pip's probes
	# (rustc --version, lsb_release, bind [::1]:0) run too.
	local pol
	for pol in default python; do
		rm -rf "$W/v"
		SG_TIMEOUT=120 SG_RUN_OPTS="-r $pol" \
		with_path "$H/.cargo/bin" c "pip-venv-wheel-$pol" - 0 \
			"$CLEAN; --type syscall --syscall execve --action allow --path $H/.rustup/toolchains/$TC/bin/rustc --min 1" \
			sh -c '/usr/bin/python3 -m venv v && v/bin/pip install -q --no-index --find-links wheels fitpkg && v/bin/python -c "import fitpkg; assert fitpkg.VALUE == 42"'
		check "pip-venv-wheel-$pol-installed" sh -c "ls -d '$W'/v/lib/python3*/site-packages/fitpkg/__init__.py"
		check "pip-venv-wheel-$pol-no-real-cache" test ! -e "$H/.cache/pip"
	done
	rm -rf "$W/v"

	# npm from a local tarball, its cache private.
	for pol in default node; do
		rm -rf "$W/app/node_modules" "$W/app/package-lock.json"
		SG_TIMEOUT=120 SG_RUN_OPTS="-r $pol" \
		c "npm-local-tarball-$pol" - 0 "$CLEAN" \
			sh -c 'cd app && npm install ../lib/fitlib-1.0.0.tgz >/dev/null && node -e "process.exit(require(\"fitlib\") === 42 ? 0 : 1)"'
		check "npm-local-tarball-$pol-installed" test -f "$W/app/node_modules/fitlib/index.js"
		check "npm-local-tarball-$pol-no-real-cache" test ! -e "$H/.npm"
	done

	# A local clone inside the tree (hard links allowed), then a commit.
	c git-clone-commit      - 0 "$CLEAN" \
		sh -c 'git clone -q mk mk2 && cd mk2 && echo more >> Makefile && git commit -qam more'
	check git-clone-commit-effect sh -c "git -c safe.directory='*' -C '$W/mk2' log --oneline | grep -q more"

	# make asking git describe, under the default and build.
	for pol in default build; do
		rm -f "$W/mk/version.txt"
		SG_RUN_OPTS="-r $pol" c "make-git-describe-$pol" - 0 "$CLEAN" make -s -C mk
		check "make-git-describe-$pol-version" grep -qx "v=v1.2" "$W/mk/version.txt"
	done

	# /tmp and the XDG directories: written, read back, the real ones
	# untouched.
	local tp=/tmp/fit-tasks-$$-$U
	rm -rf "$tp"
	c tmp-xdg-roundtrip     - 0 "$CLEAN" \
		sh -c "set -e
			mkdir -p $tp && echo t > $tp/f && test \"\$(cat $tp/f)\" = t
			mkdir -p \"\$HOME/.config/fittool\" && echo c > \"\$HOME/.config/fittool/rc\"
			test \"\$(cat \"\$HOME/.config/fittool/rc\")\" = c
			/usr/bin/python3 -c 'import os; d = os.path.expanduser(\"~/.local/share/fittool/db\"); os.makedirs(d); open(d + \"/x\", \"w\").write(\"d\"); assert open(d + \"/x\").read() == \"d\"'
			mkdir -p \"\$HOME/.cache/fittool\" && echo e > \"\$HOME/.cache/fittool/e\" && cat \"\$HOME/.cache/fittool/e\" >/dev/null
			echo x > \"\$XDG_CACHE_HOME/x\" && cat \"\$XDG_CACHE_HOME/x\" >/dev/null
			echo read-back-ok"
	check tmp-xdg-read-back grep -qx read-back-ok "$SG_OUT"
	check tmp-xdg-real-untouched sh -c "test ! -e '$tp' && test ! -e '$H/.config/fittool' && test ! -e '$H/.local/share/fittool' && test ! -e '$H/.cache/fittool'"

	# The price of (b): stat calls stay in the kernel, none is notified,
	# so a stat of a /tmp path the command wrote looks at the real /tmp
	# (sysgate.ini(5), tmp-private-read).
	rm -f "$tp.s"
	c tmp-stat-in-kernel    - 0 "$CLEAN; --type syscall --syscall newfstatat --count 0; --type syscall --syscall statx --count 0; --type syscall --syscall access --count 0; --type syscall --syscall faccessat2 --count 0" \
		sh -c "echo s > $tp.s && cat $tp.s >/dev/null && if test -e $tp.s; then echo seen; else echo unseen; fi"
	check tmp-stat-real-tmp grep -qx unseen "$SG_OUT"
	check tmp-stat-real-untouched test ! -e "$tp.s"

	# The user's own tools.
	SG_RUN_OPTS="-r python" \
	with_path "$H/.pyenv/shims" c pyenv-shim-python     - 0 "$CLEAN" python -c 'print("shim-ok")'
	check pyenv-shim-python-ran grep -qx shim-ok "$SG_OUT"
	with_path "$H/.cargo/bin" c rustup-toolchain      - 0 "$CLEAN" sh -c 'cargo --version && rustc --version'
	check rustup-toolchain-ran grep -qx "cargo 1.0.0-fake" "$SG_OUT"
	with_path "$H/.local/bin" c pipx-tool             - 0 "$CLEAN" fittool
	check pipx-tool-ran grep -qx fittool-ran "$SG_OUT"
	SG_RUN_OPTS="-r python" \
	c python-ipv6-probe     - 0 "$CLEAN" \
		/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); print("bound", s.getsockname()[1] > 0)'
	check python-ipv6-probe-bound grep -qx "bound True" "$SG_OUT"

	# -r NAME from a directory without policy files: the built-in copies.
	check no-policy-files test ! -e "$W/strict" -a ! -e "$W/python"
	for pol in strict python; do
		SG_RUN_OPTS="-r $pol" c "builtin-$pol" - 0 \
			"$CLEAN; --type run.start --field policy=\"<$pol>\"" /usr/bin/true
	done

	# A file of that name in the current directory wins over the
	# built-in policy: this one denies what python allows (true).
	printf '[policy]\ninclude = python\n[rule no-true]\nsyscalls = @exec\npath = /usr/bin/true\naction = deny\nerrno = EACCES\n' >"$W/python"
	[ "$U" = root ] || chown "$U:" "$W/python"
	SG_RUN_OPTS="-r python" c builtin-file-wins - 126 \
		"--type run.start --field policy=\"python\"; --type syscall --action deny --rule no-true --count 1" \
		/usr/bin/true
	rm -f "$W/python"

	# A name that is neither a file nor a policy: the message says so and
	# lists the built-in ones.
	sg_raw run -r no-such-policy -- /usr/bin/true
	check builtin-unknown-125 test "$SG_RC" = 125
	check builtin-unknown-says grep -q "no-such-policy: no such file, and no policy of that name (built in: default strict build python node)" "$SG_ERR"

	# A local clone of a repository outside the tree: its hard links are
	# refused (git copies instead), and the summary names the call.
	c git-clone-outside     - 0 "--type syscall --action deny --rule no-writes-elsewhere --min 1" \
		git clone -q "$O/src" cl
	check git-clone-outside-cloned test -f "$W/cl/a"
	check git-clone-outside-summary grep -q "denied link of $O/src/.git/objects/" "$SG_ERR"
}

sg_main cases
