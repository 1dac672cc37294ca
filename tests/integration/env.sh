#!/bin/bash
# SPDX-License-Identifier: MIT
# [env]: the command's environment.  Under the built-in policy, variables
# whose names say they hold a secret (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY,
# GITHUB_TOKEN, a lower-case api key...) never reach the command: their
# values are in neither its output nor the trail, and run.start names
# them in env_dropped.  Lookalikes (KEYBOARD, TOKENIZERS_PARALLELISM,
# XAUTHORITY, XDG_*) stay.  A policy that includes default keeps one with
# keep = NAME; set and drop change the rest; a policy without [env]
# passes the environment on unchanged.  The supervisor's own environment
# (/proc/PPID/environ) and that of another process of the user are out of
# the command's reach.
. "$(dirname "$0")/lib.sh"
sg_init

cases() {
	local openai=sk-sysgate-test-openai-$$
	local aws=sysgate-test-aws-secret-$$
	local gh=ghp_sysgate_test_$$
	local low=sysgate-test-lower-$$
	local all="$openai|$aws|$gh|$low"
	SG_EXTRA_ENV=(OPENAI_API_KEY="$openai" AWS_SECRET_ACCESS_KEY="$aws"
		GITHUB_TOKEN="$gh" my_api_key="$low" KEYBOARD=us
		TOKENIZERS_PARALLELISM=false XAUTHORITY=/x/auth
		XDG_CONFIG_HOME=/x/config GIT_ASKPASS=/x/askpass)
	local dropped='["OPENAI_API_KEY","AWS_SECRET_ACCESS_KEY","GITHUB_TOKEN","my_api_key"]'

	# The attack: natively the command sees every one of them.
	(cd "$W" && "${SG_AS[@]}" env -i "${SG_EXTRA_ENV[@]}" env) >"$R/native.out"
	check native-sees-secrets grep -qE "$all" "$R/native.out"

	c builtin-drops         - 0      "--type run.start --field env_dropped=$dropped" \
		env
	check builtin-values-absent bash -c "! grep -qE '$all' '$SG_OUT' '$SG_TRAIL'"
	check builtin-lookalikes-kept bash -c "grep -qx KEYBOARD=us '$SG_OUT' &&
		grep -qx TOKENIZERS_PARALLELISM=false '$SG_OUT' &&
		grep -qx XAUTHORITY=/x/auth '$SG_OUT' &&
		grep -qx XDG_CONFIG_HOME=/x/config '$SG_OUT' &&
		grep -qx GIT_ASKPASS=/x/askpass '$SG_OUT' &&
		grep -q '^TMPDIR=' '$SG_OUT' && grep -q '^SYSGATE_RUN=' '$SG_OUT'"

	# A descendant sees what the command saw.
	c builtin-drops-child   - 0      "--type run.start --field env_dropped=$dropped" \
		sh -c 'sh -c env; cat /proc/self/environ | tr "\0" "\n"'
	check builtin-child-values-absent bash -c "! grep -qE '$all' '$SG_OUT'"

	# The supervisor's environment still holds them: out of reach.
	c supervisor-environ    - 1      "--type syscall --path-prefix /proc/ --action deny --rule sysgate:supervisor" \
		sh -c 'cat /proc/$PPID/environ'
	check supervisor-environ-absent bash -c "! grep -qaE '$all' '$SG_OUT'"

	# Another process of the user that holds a secret in its environment
	# (the shell that started sysgate, say): natively readable, refused
	# under sysgate.
	local holder
	(cd "$W" && exec "${SG_AS[@]}" env -i OPENAI_API_KEY="$openai" sleep 30) &
	holder=$!
	SG_BG_PIDS+=("$holder")
	check holder-native-readable bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do
		${SG_AS[*]} cat /proc/$holder/environ 2>/dev/null | grep -qa '$openai' && exit 0
		sleep 0.2; done; exit 1"
	c outside-environ       - 1      "--type syscall --path /proc/$holder/environ --action deny --rule sysgate:outside-tree" \
		cat "/proc/$holder/environ"
	check outside-environ-absent bash -c "! grep -qaE '$all' '$SG_OUT'"
	sg_kill_bg

	# The shipped default.ini read as a file (no prebuilt start): the same.
	cp "$(dirname "$0")/../../rules/policies/default.ini" "$P/shipped-default.ini"
	chmod 0644 "$P/shipped-default.ini"
	c file-default-drops    shipped-default 0 "--type run.start --field env_dropped=$dropped" \
		env
	check file-default-values-absent bash -c "! grep -qE '$all' '$SG_OUT' '$SG_TRAIL'"

	policy keep-openai <<'EOF'
[policy]
include = default

[env]
keep = OPENAI_API_KEY
EOF
	c keep-openai           keep-openai 0 "--type run.start --field env_dropped=[\"AWS_SECRET_ACCESS_KEY\",\"GITHUB_TOKEN\",\"my_api_key\"]" \
		env
	check keep-openai-kept grep -qx "OPENAI_API_KEY=$openai" "$SG_OUT"
	check keep-openai-others-absent bash -c "! grep -qE '$aws|$gh|$low' '$SG_OUT' '$SG_TRAIL'"

	policy set-drop <<'EOF'
[policy]
include = default

[env]
drop = LANG, KEYBOARD
set = GREETING=hello ${RUN}
set = GITHUB_TOKEN=replaced
EOF
	c set-drop              set-drop 0 "--type run.start --field env_dropped=[\"LANG\",\"OPENAI_API_KEY\",\"AWS_SECRET_ACCESS_KEY\",\"my_api_key\",\"KEYBOARD\"]" \
		env
	check set-drop-effects bash -c "! grep -q '^LANG=' '$SG_OUT' &&
		! grep -q '^KEYBOARD=' '$SG_OUT' &&
		grep -q '^GREETING=hello [0-9]*T[0-9]*Z-' '$SG_OUT' &&
		grep -qx GITHUB_TOKEN=replaced '$SG_OUT' &&
		! grep -qE '$all' '$SG_OUT' '$SG_TRAIL'"

	# A policy of its own, without [env]: the environment as it was.
	policy no-env <<'EOF'
[policy]
default = allow
EOF
	c no-env-unchanged      no-env 0 "--type run.start --field env_dropped=[]" \
		env
	check no-env-values-there bash -c "grep -qx 'OPENAI_API_KEY=$openai' '$SG_OUT' &&
		grep -qx 'AWS_SECRET_ACCESS_KEY=$aws' '$SG_OUT'"

	# A broken [env] stops the run before anything starts.
	policy bad-env <<'EOF'
[policy]
include = default

[env]
keep = OPENAI_API_KEY=1
EOF
	c bad-env               bad-env 125 - env
	check bad-env-message grep -q "bad-env.ini:5: 'OPENAI_API_KEY=1' in 'keep' is a name" "$SG_ERR"
	SG_EXTRA_ENV=()
}

sg_main cases
