/* SPDX-License-Identifier: MIT */
/*
 * sysgate check POLICY [--explain CALL]: load the policy with exactly the
 * code `sysgate run` uses, report the first problem as FILE:LINE, compile
 * its seccomp filter as `sysgate run` does, warn about rules that can never
 * match and missing paths and show per syscall which mechanism decides it;
 * --explain tells how one call is decided (tools/explain.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "rules/rules.h"
#include "tools/tools.h"

#define CHECK_MAX_NR 512

void tools_vars(struct rules_vars *v, char *cwd, size_t cwd_len,
		const char *tmpdir, const char *run)
{
	const char *home = getenv("HOME");

	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : "/";
	}
	if (!getcwd(cwd, cwd_len))
		snprintf(cwd, cwd_len, "/");
	v->home = home;
	v->cwd = cwd;
	v->tmpdir = tmpdir;
	v->run = run;
}

int tools_load_policy(const char *arg, const struct rules_vars *v,
		      struct rules_set **out, char *err, size_t err_len)
{
	char shipped[PATH_MAX];
	const char *dirs[2];
	size_t i, n = 0;
	int len;

	if (!arg)
		return rules_load_default(v, out, err, err_len);
	if (!strcmp(arg, "-")) {
		AUTO_FREE char *text = NULL;
		size_t n_text;
		int r = tools_read_policy_stdin(&text, &n_text, err, err_len);

		return r < 0 ? r : rules_load_string(text, "<stdin>", v, out,
						     err, err_len);
	}
	/* A bare name that is not a file names a shipped policy: first in
	 * $SYSGATE_POLICY_DIR (tests in the build tree), then installed.
	 * rules/ resolves "include = NAME" the same way. */
	if (!strchr(arg, '/') && access(arg, F_OK) != 0) {
		dirs[n] = secure_getenv("SYSGATE_POLICY_DIR");
		if (dirs[n] && dirs[n][0])
			n++;
		dirs[n++] = SYSGATE_DATADIR "/policies";
		for (i = 0; i < n; i++) {
			len = snprintf(shipped, sizeof(shipped), "%s/%s.ini",
				       dirs[i], arg);
			if (len > 0 && (size_t)len < sizeof(shipped) &&
			    access(shipped, F_OK) == 0)
				return rules_load_file(shipped, v, out, err,
						       err_len);
		}
		if (!strcmp(arg, "default"))
			return rules_load_default(v, out, err, err_len);
	}
	return rules_load_file(arg, v, out, err, err_len);
}

static const char *kernel_action(enum rules_action a)
{
	switch (a) {
	case RULES_ALLOW:
		return "kernel: allow";
	case RULES_DENY:
		return "kernel: deny";
	case RULES_KILL:
		return "kernel: kill";
	case RULES_REWRITE:
		return "kernel: rewrite";
	case RULES_ASK:
		return "kernel: ask";
	}
	return "kernel: ?";
}

/* The calls that do a mediated call's work without it: refused under a
 * policy with path or address rules, but for the families it opts into,
 * which earn a warning. */
static void print_unmediated(const struct rules_set *rs)
{
	static const char *const first[] = { "io_uring_setup", "mount",
					     "open_by_handle_at" };
	char opted[64], refused[64] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
		int nr = rules_syscall_by_name(first[i])->nr;

		if (rules_unmediated_refused(rs, nr))
			n += (size_t)snprintf(refused + n, sizeof(refused) - n,
					      "%s%s", n ? ", " : "",
					      rules_unmediated_family(nr));
	}
	if (n)
		printf("unmediated calls (%s): refused and recorded (the policy has path or address rules)\n",
		       refused);
	if (rules_unmediated_text(rs, opted, sizeof(opted)))
		printf("warning: unmediated = %s: these calls do what the path and address rules decide without being seen by them\n",
		       opted);
}

/*
 * What holds whatever the rules say: the guards (rules_build_guard_filter(),
 * SECURITY.md) and where they are, and the [limits] with their units.
 */
static void print_guards_limits(const struct rules_set *rs)
{
	bool any = false;

	printf("guards: calls of other ABIs killed, clone3 ENOSYS, clone with CLONE_UNTRACED EPERM,\n"
	       "        ioctl TIOCSTI, TIOCLINUX, FIFREEZE and FITHAW EPERM, the *xattrat calls ENOSYS:\n"
	       "        %s\n",
	       rules_filter_has_guards(rs) ? "in the policy's filter" :
	       "a guard filter loaded under the policy's");
	print_unmediated(rs);
	printf("limits:");
	for (int i = 0; i < RULES_LIMIT_COUNT; i++) {
		uint64_t v;

		if (rules_limit(rs, (enum rules_limit)i, &v) < 0)
			continue;
		printf("%s %s %llu%s", any ? "," : "", rules_limit_name((enum rules_limit)i),
		       (unsigned long long)v,
		       i == RULES_LIMIT_MEMORY || i == RULES_LIMIT_FILE_SIZE ? " bytes" :
		       i == RULES_LIMIT_CPU || i == RULES_LIMIT_WALL ? " ms" : "");
		any = true;
	}
	printf("%s\n", any ? "" : " none");
}

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate check [--explain CALL] [--] POLICY\n"
		"Load POLICY (a file, a shipped policy's name, or - for standard input)\n"
		"as sysgate run does, report what is wrong with it, and show what decides\n"
		"each system call.\n"
		"  --explain CALL  how one call is decided, rule by rule\n"
		"                  (\"openat /home/u/.ssh/id_rsa read\", \"connect 10.0.0.5:443\")\n"
		"  -h, --help      this text\n");
}

/* The command line: -1 and *policy (and *call), or the exit status. */
static int check_args(int argc, char **argv, const char **policy,
		      const char **call)
{
	static const struct option longopts[] = {
		{ "explain", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "check", ":h", longopts)) != -1) {
		switch (c) {
		case 'e':
			if (*call) {
				fprintf(stderr, "sysgate check: --explain given twice\n");
				return tools_usage_error("check");
			}
			*call = optarg;
			break;
		case 'h':
			check_usage(stdout);
			return 0;
		default:
			return tools_usage_error("check");
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sysgate check: %s\n", optind >= argc ?
			"no policy given" : "one policy at a time");
		return tools_usage_error("check");
	}
	*policy = argv[optind];
	return -1;
}

int tool_check(int argc, char **argv)
{
	struct rules_vars v;
	struct rules_set *rs = NULL;
	char cwd[PATH_MAX];
	char tmp[PATH_MAX];
	char err[RULES_ERR_MAX];
	const char *t = getenv("TMPDIR");
	const char *policy = NULL, *call = NULL;
	struct sock_fprog prog = { 0 };
	unsigned n_kernel = 0;
	int r;

	r = check_args(argc, argv, &policy, &call);
	if (r >= 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s/sysgate-RUN", t && t[0] == '/' ? t : "/tmp");
	tools_vars(&v, cwd, sizeof(cwd), tmp, "RUN");
	r = tools_load_policy(policy, &v, &rs, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return 125;
	}
	if (call) {
		r = tools_explain(rs, call);
		rules_free(rs);
		return r;
	}
	/* What sysgate run loads: a policy it cannot compile is no valid
	 * one, and its size is worth knowing. */
	r = rules_build_filter(rs, &prog);
	if (r < 0) {
		fprintf(stderr, "%s: the seccomp filter cannot be compiled: %s\n",
			rules_source(rs), strerror(-r));
		rules_free(rs);
		return 125;
	}
	free(prog.filter);
	printf("%s: valid (audit %s)\n", rules_source(rs),
	       rules_audit_level(rs) == RULES_AUDIT_ALL ? "all" :
	       rules_audit_level(rs) == RULES_AUDIT_DENIED ? "denied" : "none");
	tools_check_warnings(rs, tmp, stdout);
	printf("%-24s %s\n", "SYSCALL", "DECIDED BY");
	for (int nr = 0; nr < CHECK_MAX_NR; nr++) {
		const char *name = rules_syscall_name(nr);
		enum rules_action ka = RULES_ALLOW;
		enum rules_mech m;

		if (!name)
			continue;
		if (rules_syscall_by_nr(nr)->decide == RULES_DECIDE_REFUSED) {
			printf("%-24s refused (ENOSYS)\n", name);
			continue;
		}
		m = rules_mechanism(rs, nr, &ka);
		switch (m) {
		case RULES_MECH_KERNEL:
			if (ka == RULES_ALLOW) {
				n_kernel++;
				continue;
			}
			printf("%-24s %s\n", name, kernel_action(ka));
			break;
		case RULES_MECH_NOTIFY:
			printf("%-24s notify\n", name);
			break;
		case RULES_MECH_TRACE:
			printf("%-24s trace\n", name);
			break;
		}
	}
	printf("%-24s kernel: allow (%u syscalls no rule names)\n", "(all others)",
	       n_kernel);
	printf("%-24s refused with ENOSYS and recorded, under every policy\n"
	       "%-24s (numbers without a row: holes, and above %d)\n",
	       "(unknown numbers)", "", rules_syscall_max_nr());
	printf("filter: %u BPF instructions (the kernel takes up to %d)\n",
	       (unsigned)prog.len, BPF_MAXINSNS);
	print_guards_limits(rs);
	rules_free(rs);
	return 0;
}
