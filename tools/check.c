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
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "rules/rules.h"
#include "tools/tools.h"

#define CHECK_MAX_NR 512

/* Where tools_vars() keeps what it found: each call overwrites it (the
 * tools are single-threaded and fill one set of variables at a time). */
static struct {
	char home[PATH_MAX];
	char home_spelled[PATH_MAX];
	char cwd_spelled[PATH_MAX];
	char home_why[PATH_MAX + 64];
	char cwd_why[128];
} found;

/* The absolute path in, without "//" and a trailing '/': false when that
 * does not fit or in has a "." or ".." (it then has no clean spelling). */
static bool clean_spelling(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (in[0] != '/')
		return false;
	while (*in) {
		size_t n;

		while (*in == '/')
			in++;
		n = strcspn(in, "/");
		if (n == 0)
			break;
		if ((n == 1 && in[0] == '.') ||
		    (n == 2 && in[0] == '.' && in[1] == '.'))
			return false;
		if (o + 1 + n >= len)
			return false;
		out[o++] = '/';
		memcpy(out + o, in, n);
		o += n;
		in += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return true;
}

int tools_canon_path(const char *in, char *out, size_t len)
{
	char head[PATH_MAX], real[PATH_MAX], rest[PATH_MAX];
	size_t n = strlen(in);
	char *cut;

	if (in[0] != '/')
		return -EINVAL;
	if (n >= sizeof(head))
		return -ENAMETOOLONG;
	memcpy(head, in, n + 1);
	/* realpath() of the longest part that exists (and that we may
	 * search: what lies below a directory we cannot enter is taken as
	 * written, as a run with our rights cannot resolve it either). */
	while (!realpath(head, real)) {
		if (errno != ENOENT && errno != EACCES)
			return -errno;
		cut = strrchr(head, '/');
		if (!cut)
			return -ENOENT;
		*cut = '\0';
		if (cut == head) {
			snprintf(real, sizeof(real), "/");
			break;
		}
	}
	/* Then what does not exist yet, as written. */
	if (!clean_spelling(in[strlen(head)] ? in + strlen(head) : "/", rest,
			    sizeof(rest)))
		return -EINVAL;
	n = (size_t)snprintf(out, len, "%s%s",
			     strcmp(real, "/") == 0 ? "" : real,
			     strcmp(rest, "/") == 0 && strcmp(real, "/") != 0 ?
			     "" : rest);
	return n >= len ? -ENAMETOOLONG : 0;
}

int tools_tmp_parent(char *canon, size_t len, char *spelled, size_t sp_len)
{
	const char *t = getenv("TMPDIR");
	int r;

	if (!t || t[0] != '/')
		t = "/tmp";
	r = tools_canon_path(t, canon, len);
	if (r < 0)
		return r;
	if (!clean_spelling(t, spelled, sp_len) || strcmp(spelled, canon) == 0)
		spelled[0] = '\0';
	return 0;
}

/* ${HOME}: HOME, or the user's home in the password database when HOME
 * is unset or empty (where ssh and the like look for it then). */
static void vars_home(struct rules_vars *v)
{
	const char *home = getenv("HOME");
	int r;

	if (!home || !home[0]) {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
		if (!home) {
			v->home_why = "HOME is not set, and the user has no home in the password database";
			return;
		}
	}
	if (home[0] != '/') {
		snprintf(found.home_why, sizeof(found.home_why),
			 "HOME is not an absolute path ('%.*s')", PATH_MAX, home);
		v->home_why = found.home_why;
		return;
	}
	r = tools_canon_path(home, found.home, sizeof(found.home));
	if (r < 0) {
		snprintf(found.home_why, sizeof(found.home_why),
			 "HOME %.*s: %s", PATH_MAX, home, strerror(-r));
		v->home_why = found.home_why;
		return;
	}
	v->home = found.home;
	if (clean_spelling(home, found.home_spelled, sizeof(found.home_spelled)) &&
	    strcmp(found.home_spelled, found.home) != 0)
		v->home_spelled = found.home_spelled;
}

/* ${CWD}: the working directory (getcwd() gives it canonical), and $PWD
 * when that names the same directory another way. */
static void vars_cwd(struct rules_vars *v, char *cwd, size_t cwd_len)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (!getcwd(cwd, cwd_len) || cwd[0] != '/') {
		snprintf(found.cwd_why, sizeof(found.cwd_why),
			 "the working directory has no path (%s): deleted, unreachable or deeper than %d bytes",
			 errno == ERANGE ? strerror(ENAMETOOLONG) : strerror(errno),
			 (int)cwd_len - 1);
		v->cwd_why = found.cwd_why;
		return;
	}
	v->cwd = cwd;
	if (pwd && clean_spelling(pwd, found.cwd_spelled, sizeof(found.cwd_spelled)) &&
	    strcmp(found.cwd_spelled, cwd) != 0 &&
	    stat(found.cwd_spelled, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		v->cwd_spelled = found.cwd_spelled;
}

void tools_vars(struct rules_vars *v, char *cwd, size_t cwd_len,
		const char *tmpdir, const char *run)
{
	memset(v, 0, sizeof(*v));
	vars_home(v);
	vars_cwd(v, cwd, cwd_len);
	v->tmpdir = tmpdir;
	v->run = run;
}

/* -r NAME that is neither a file nor a policy by name: say both, and
 * which policies are built in. */
static int no_policy_named(const char *arg, char *err, size_t err_len)
{
	const struct rules_builtin *b;
	size_t used;

	if (!err || !err_len)
		return -ENOENT;
	snprintf(err, err_len,
		 "%s: no such file, and no policy of that name (built in:",
		 arg);
	for (b = rules_builtin_policies; b->name; b++) {
		used = strlen(err);
		snprintf(err + used, err_len - used, " %s", b->name);
	}
	used = strlen(err);
	snprintf(err + used, err_len - used, ")");
	return -ENOENT;
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
	/* A path (a '/' in it) or an existing file is a file.  Any other
	 * word names a policy: first in $SYSGATE_POLICY_DIR (the user's own
	 * choice, a source tree's), then the shipped policies built in, then
	 * one installed beside them.  rules/ resolves "include = NAME" the
	 * same way. */
	if (!strchr(arg, '/') && access(arg, F_OK) != 0) {
		dirs[n] = secure_getenv("SYSGATE_POLICY_DIR");
		if (dirs[n] && dirs[n][0])
			n++;
		dirs[n++] = SYSGATE_DATADIR "/policies";
		for (i = 0; i < n; i++) {
			if (i == n - 1 && rules_builtin_text(arg))
				return rules_load_builtin(arg, v, out, err,
							  err_len);
			len = snprintf(shipped, sizeof(shipped), "%s/%s.ini",
				       dirs[i], arg);
			if (len > 0 && (size_t)len < sizeof(shipped) &&
			    access(shipped, F_OK) == 0)
				return rules_load_file(shipped, v, out, err,
						       err_len);
		}
		return no_policy_named(arg, err, err_len);
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
	if (rules_is_permissive(rs))
		printf("mode = permissive: what the policy denies, kills or asks about is let\n"
		       "        through and recorded as would_deny; the guards still refuse\n");
	printf("out of the command's reach whatever the rules say: the trail and the\n"
	       "        directories above it (not changed, not moved), the signing key\n"
	       "        (not read), the policy's files (not changed, not moved):");
	for (size_t i = 0; rules_file(rs, i); i++)
		printf("%s %s", i ? "," : "", rules_file(rs, i));
	printf("%s,\n        sysgate's state directory (other runs' trails: not touched)\n",
	       rules_file(rs, 0) ? "" : " none (built-in)");
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
	char tmp_spelled[PATH_MAX];
	char err[RULES_ERR_MAX];
	const char *policy = NULL, *call = NULL;
	struct sock_fprog prog = { 0 };
	unsigned n_kernel = 0;
	int r;

	r = check_args(argc, argv, &policy, &call);
	if (r >= 0)
		return r;
	/* As sysgate run names its private temp dir (main.c). */
	r = tools_tmp_parent(tmp, sizeof(tmp) - 16, tmp_spelled,
			     sizeof(tmp_spelled) - 16);
	if (r < 0) {
		fprintf(stderr, "sysgate: TMPDIR %s: %s\n", getenv("TMPDIR"),
			strerror(-r));
		return 125;
	}
	strcat(tmp, "/sysgate-RUN");
	if (tmp_spelled[0])
		strcat(tmp_spelled, "/sysgate-RUN");
	tools_vars(&v, cwd, sizeof(cwd), tmp, "RUN");
	v.tmpdir_spelled = tmp_spelled[0] ? tmp_spelled : NULL;
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
