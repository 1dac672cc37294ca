/* SPDX-License-Identifier: MIT */
/*
 * sysgate's command line: `run` sets up the run (id, private temp dir,
 * policy, audit trail) and hands over to the supervisor; the other
 * subcommands are in tools/.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <nss.h>
#include <pwd.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/syslog.h"
#include "common/util.h"
#include "rules/rules.h"
#include "supervisor/cgroup.h"
#include "supervisor/output.h"
#include "supervisor/supervisor.h"
#include "supervisor/tmpdir.h"
#include "tools/tools.h"

#define MAX_POLICY_BYTES (1024 * 1024)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate run [-r POLICY] [-a AUDIT] [--audit-fd N] [--audit-syslog DEST]\n"
		"                   [--audit-format json|ocsf]\n"
		"                   [--audit-sync none|interval|every] [--sign-key FILE]\n"
		"                   [--denials-fd N] [--user NAME]\n"
		"                   [--output-cap BYTES|--no-output]\n"
		"                   [-q|-v] [--] COMMAND [ARG...]\n"
		"       sysgate check [--explain CALL] POLICY\n"
		"       sysgate learn [-o POLICY] [--base POLICY] [--diff POLICY] AUDIT...\n"
		"       sysgate verify [--key PUBLIC] [--hash HASH] AUDIT\n"
		"       sysgate report [--json] [--html OUT] [--run N|ID] AUDIT\n"
		"       sysgate export --format ocsf AUDIT\n"
		"       sysgate runs [--json]\n"
		"       sysgate diff [--json] [--run N|ID] [--unverified] A B\n"
		"       sysgate keygen SECRET PUBLIC\n"
		"       sysgate --version\n"
		"'sysgate COMMAND --help' describes one command.\n"
		"See sysgate(1), sysgate.ini(5) and sysgate-audit(5).\n");
}

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate run [OPTION...] [--] COMMAND [ARG...]\n"
		"Run COMMAND under the policy, every sensitive call decided and recorded.\n"
		"  -r, --rules, --policy POLICY  a policy file, a shipped policy's name, or -\n"
		"                        to read it from standard input (default: built in)\n"
		"  -a, --audit FILE      the audit trail (default: in ~/.local/state/sysgate)\n"
		"  --audit-fd N          write the trail to the open file descriptor N\n"
		"                        (with --audit-format ocsf: its OCSF events, and\n"
		"                        the trail to -a FILE or its default place)\n"
		"  --audit-syslog unix:PATH|udp:HOST:PORT|tcp:HOST:PORT\n"
		"                        also send each record to a syslog daemon\n"
		"  --audit-format json|ocsf  the syslog messages' text and --audit-fd's\n"
		"                        lines: the record (default) or its OCSF event\n"
		"                        (as sysgate export)\n"
		"  --audit-sync none|interval|every  when the trail is synced to disk\n"
		"  --sign-key FILE       sign the end of the run (sysgate keygen)\n"
		"  --denials-fd N        one JSON line per denial to file descriptor N\n"
		"  --user NAME           run COMMAND as the user NAME (needs root)\n"
		"  --permissive          deny nothing the policy refuses: let it run and\n"
		"                        record what the policy would do (would_deny);\n"
		"                        sysgate's own guards still refuse\n"
		"  --enforce             enforce the policy even if it says mode = permissive\n"
		"  --output-cap BYTES    COMMAND's stdout and stderr kept in the trail,\n"
		"                        at most BYTES[K|M|G] (the tail past half of it;\n"
		"                        default 1M)\n"
		"  --no-output           keep none of it (the same as --output-cap 0)\n"
		"  -q, --quiet           no summary at the end of the run\n"
		"  -v, --verbose         one line per decision on standard error\n"
		"  -h, --help            this text\n"
		"Exit status: COMMAND's, 128+N for signal N, 125 when sysgate fails,\n"
		"126 when COMMAND cannot be run, 127 when it is not found.\n");
}

/* --output-cap: bytes, with K, M or G (powers of 1024) after them. */
static int parse_cap(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mul = 1024ULL;
	else if (*end == 'M' || *end == 'm')
		mul = 1024ULL * 1024;
	else if (*end == 'G' || *end == 'g')
		mul = 1024ULL * 1024 * 1024;
	if (mul > 1)
		end++;
	if (*end || v > (1ULL << 40) / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

static void make_run_id(char *buf, size_t len)
{
	unsigned char rnd[6];
	time_t now = time(NULL);
	struct tm tm;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, 0, sizeof(rnd));
	gmtime_r(&now, &tm);
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02dZ-%02x%02x%02x%02x%02x%02x",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
		 rnd[5]);
}

/* mkdir -p with mode for the parts we create. */
static int mkdirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Security: what the tree may not reach of the run's own configuration
 * (supervisor_opts guard_*): the signing key, the policy's files, and
 * sysgate's state directories (the one under XDG_STATE_HOME or HOME, and
 * the fallback under /tmp), canonical, whether they exist yet or not.
 */
static void config_guards(struct supervisor_opts *o, const struct rules_set *rs,
			  const char *key, const char *home)
{
	static const char *secret[2], *config[RULES_MAX_INCLUDED_FILES + 1];
	static char dirs[2][PATH_MAX];
	static const char *state[3];
	const char *xdg = getenv("XDG_STATE_HOME");
	char raw[PATH_MAX];
	size_t n = 0, k = 0;
	int len = -1;

	secret[0] = key;
	for (size_t i = 0; rules_file(rs, i) && n < RULES_MAX_INCLUDED_FILES; i++)
		config[n++] = rules_file(rs, i);
	config[n] = NULL;
	if (xdg && xdg[0] == '/')
		len = snprintf(raw, sizeof(raw), "%s/sysgate", xdg);
	else if (home && home[0] == '/')
		len = snprintf(raw, sizeof(raw), "%s/.local/state/sysgate", home);
	if (len > 0 && (size_t)len < sizeof(raw) &&
	    tools_canon_path(raw, dirs[k], sizeof(dirs[k])) == 0)
		state[k] = dirs[k], k++;
	snprintf(raw, sizeof(raw), "/tmp/sysgate-%u", (unsigned)getuid());
	if (tools_canon_path(raw, dirs[k], sizeof(dirs[k])) == 0)
		state[k] = dirs[k], k++;
	state[k] = NULL;
	o->guard_secret = secret;
	o->guard_config = config;
	o->state_dirs = state;
}

/* Where the trail goes without -a: the state directory of the user who
 * started sysgate (HOME as sysgate found it: --user gives the command
 * another), or a private directory under /tmp when there is no usable
 * home. */
static int default_audit_path(const char *run, const char *home,
			      char *out, size_t len)
{
	const char *state = getenv("XDG_STATE_HOME");
	char dir[PATH_MAX];
	struct stat st;
	int n = -1;

	if (state && state[0] == '/')
		n = snprintf(dir, sizeof(dir), "%s/sysgate/runs", state);
	else if (home && home[0] == '/' && stat(home, &st) == 0 &&
		 S_ISDIR(st.st_mode))
		/* Never the home itself made: a HOME that is not there
		 * (nobody's /nonexistent) is no home. */
		n = snprintf(dir, sizeof(dir), "%s/.local/state/sysgate/runs", home);
	if (n < 0 || (size_t)n >= sizeof(dir))
		dir[0] = '\0';	/* none, or too long: the fallback below */
	if (dir[0] && mkdirs(dir, 0700) == 0 && access(dir, W_OK) == 0) {
		snprintf(out, len, "%s/%s.jsonl", dir, run);
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/sysgate-%u", (unsigned)getuid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	/* Security: only a directory of our own, not someone's trap. */
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	snprintf(out, len, "%s/%s.jsonl", dir, run);
	return 0;
}

/* tmpdir_sweep()'s callback: the cgroups of a run found dead. */
static void remove_cgroups_left(const char *run_id, const char *notes, void *arg)
{
	enum supervisor_verbosity verb = *(const enum supervisor_verbosity *)arg;

	cgroup_remove_left(run_id, notes, verb == SUPERVISOR_VERBOSE,
			   verb == SUPERVISOR_QUIET);
}

static int read_policy_text(const char *path, char **out, size_t *len)
{
	AUTO_CLOSE int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	buf = malloc(MAX_POLICY_BYTES);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + got, MAX_POLICY_BYTES - got);

		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got == MAX_POLICY_BYTES)
			break;
	}
	*out = buf;
	*len = got;
	return 0;
}

static void hash_hex(const void *data, size_t len, char *hex)
{
	unsigned char h[32];

	crypto_generichash(h, sizeof(h), data, len, NULL, 0);
	sodium_bin2hex(hex, 65, h, sizeof(h));
}

/* -r -: the policy read from standard input, and the hash of what was
 * read (run.start's policy_hash). */
static int load_stdin_policy(const struct rules_vars *vars,
			     struct rules_set **rs, char *hash, char *err,
			     size_t err_len)
{
	AUTO_FREE char *text = NULL;
	size_t len;
	int r = tools_read_policy_stdin(&text, &len, err, err_len);

	if (r < 0)
		return r;
	hash_hex(text, len, hash);
	return rules_load_string(text, "<stdin>", vars, rs, err, err_len);
}

/*
 * A static sysgate (static PIE) has no dynamic loader of its own to load
 * the NSS modules other than files with: glibc loads them anyway, and the
 * systemd one crashed in getpwnam() for every name that /etc/passwd lacks
 * and in getgrouplist() for every user (--user, and the removal of a
 * stale private TMPDIR of a --user run).  So a static sysgate asks the
 * files module only, for users and groups alike, from the start.
 * nss_files_only: 0 in a shared sysgate, 1 when set, -1 when glibc
 * refused (then --user is refused).
 */
static int nss_files_only;

__attribute__((constructor)) static void nss_static_files(void)
{
	if (getauxval(AT_BASE) != 0)
		return;		/* an interpreter: a shared glibc */
	nss_files_only = __nss_configure_lookup("passwd", "files") == 0 &&
			 __nss_configure_lookup("group", "files") == 0 ? 1 : -1;
}

/* --user NAME or UID: its password entry, or NULL (with a message). */
static struct passwd *user_lookup(const char *arg)
{
	struct passwd *pw;
	char *end;
	long v;

	if (nss_files_only < 0) {
		fprintf(stderr, "sysgate: --user %s: cannot read the password database\n",
			arg);
		return NULL;
	}
	errno = 0;
	pw = getpwnam(arg);
	if (!pw) {
		errno = 0;
		v = strtol(arg, &end, 10);
		if (*arg && !*end && v >= 0 && v <= (long)UINT32_MAX - 1)
			pw = getpwuid((uid_t)v);
	}
	if (!pw)
		fprintf(stderr, "sysgate: --user %s: no such user in %s\n", arg,
			nss_files_only ? "/etc/passwd (a static sysgate reads no "
					 "other user database)" :
					 "the password database");
	return pw;
}

/*
 * The trail's second sinks: --audit-syslog DEST (connected before anything
 * runs) and, with --audit-format ocsf, --audit-fd N (the events as lines;
 * the trail is a file then).  Each gets its own OCSF mapper (ocsf[0],
 * ocsf[1]: they keep state per record).  Security: a destination that
 * cannot be reached stops the run before it starts (fail closed, as an
 * unwritable trail).
 */
static int open_ships(struct audit_writer *aw, const char *dest,
		      int ocsf_fd, const char *run_id,
		      struct export_live *ocsf[2])
{
	struct audit_syslog *sl = NULL, *fs = NULL;
	int r;

	if (dest && (r = audit_syslog_open(dest, run_id, &sl)) < 0) {
		fprintf(stderr, "sysgate: --audit-syslog %s: %s\n", dest,
			r == -EINVAL ? "expected unix:PATH, udp:HOST:PORT or tcp:HOST:PORT (HOST a numeric address)" :
			strerror(-r));
		return r;
	}
	if (sl && ocsf[0])
		audit_syslog_set_format(sl, export_live_line, ocsf[0]);
	if (ocsf_fd >= 0) {
		r = audit_syslog_open_fd(ocsf_fd, &fs);
		if (r < 0) {
			fprintf(stderr, "sysgate: --audit-fd %d: %s\n", ocsf_fd,
				strerror(-r));
			audit_syslog_close(sl);
			return r;
		}
		audit_syslog_set_format(fs, export_live_line, ocsf[1]);
		if (sl)
			audit_syslog_chain(sl, fs);
		else
			sl = fs;
	}
	if (sl)
		audit_set_syslog(aw, sl);
	return 0;
}

/* What `sysgate run` was given and what it opened, from step to step. */
struct run_cmd {
	const char *policy_arg;
	const char *audit_arg;
	const char *key_arg;
	int audit_fd;
	const char *syslog_arg;
	struct export_live *ocsf[2];
	int ocsf_fd;		/* --audit-fd with --audit-format ocsf */
	bool want_ocsf;
	int denials_fd;
	const char *user_arg;
	/* --permissive 1, --enforce 0, -1: the policy's [policy] mode. */
	int mode_arg;
	struct passwd *pw;
	enum audit_sync sync;
	unsigned long long output_cap;
	bool output_cap_given;
	enum supervisor_verbosity verb;
	char run_id[64];
	struct tmpdir td;
	struct tmpdir td_spelled;	/* its name as TMPDIR spells it */
	char tmp_parent[PATH_MAX], tmp_spelled[PATH_MAX];
	char audit_path[PATH_MAX];
	char sup_home[PATH_MAX];	/* HOME before --user */
	char cwd[PATH_MAX];
	char err[RULES_ERR_MAX];
	char policy_hash[65];
	unsigned char sk[64];
	struct rules_vars vars;
	struct rules_set *rs;
	struct audit_writer *aw;
	struct supervisor_opts o;
};

/* A step's "go on"; any other value is the exit status. */
#define RUN_GO (-1)

/* --audit-fd N, --denials-fd N: an open descriptor, not for the tree. */
static int fd_arg(const char *opt, const char *arg, int *fd)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v < 0 || v > INT_MAX || fcntl((int)v, F_GETFD) < 0) {
		fprintf(stderr, "sysgate: %s %s: not an open file descriptor\n",
			opt, arg);
		return SUPERVISOR_EXIT_FAILURE;
	}
	*fd = (int)v;
	/* Security: not for the tree, whose child is forked before the
	 * trail is opened (supervisor_prepare). */
	fcntl(*fd, F_SETFD, FD_CLOEXEC);
	return RUN_GO;
}

/* One option of `sysgate run`: RUN_GO or the exit status. */
static int run_option(struct run_cmd *rc, int c)
{
	switch (c) {
	case 'r':
		rc->policy_arg = optarg;
		break;
	case 'a':
		rc->audit_arg = optarg;
		break;
	case 'F':
		return fd_arg("--audit-fd", optarg, &rc->audit_fd);
	case 'Y':
		rc->syslog_arg = optarg;
		break;
	case 'O':
		if (!strcmp(optarg, "ocsf") || !strcmp(optarg, "json")) {
			rc->want_ocsf = !strcmp(optarg, "ocsf");
			break;
		}
		fprintf(stderr, "sysgate: --audit-format: expected json or ocsf, not '%s'\n",
			optarg);
		return SUPERVISOR_EXIT_FAILURE;
	case 'S':
		if (!strcmp(optarg, "none"))
			rc->sync = AUDIT_SYNC_NONE;
		else if (!strcmp(optarg, "interval"))
			rc->sync = AUDIT_SYNC_INTERVAL;
		else if (!strcmp(optarg, "every"))
			rc->sync = AUDIT_SYNC_EVERY;
		else {
			fprintf(stderr, "sysgate: --audit-sync: expected none, interval or every, not '%s'\n",
				optarg);
			return SUPERVISOR_EXIT_FAILURE;
		}
		break;
	case 'K':
		rc->key_arg = optarg;
		break;
	case 'U':
		rc->user_arg = optarg;
		break;
	case 'P':
	case 'E':
		rc->mode_arg = c == 'P';
		break;
	case 'C':
		if (parse_cap(optarg, &rc->output_cap) < 0) {
			fprintf(stderr, "sysgate: --output-cap: expected a number of bytes (K, M or G after it), not '%s'\n",
				optarg);
			return SUPERVISOR_EXIT_FAILURE;
		}
		rc->output_cap_given = true;
		break;
	case 'N':
		rc->output_cap = 0;
		rc->output_cap_given = true;
		break;
	case 'D':
		return fd_arg("--denials-fd", optarg, &rc->denials_fd);
	case 'q':
		rc->verb = SUPERVISOR_QUIET;
		break;
	case 'v':
		rc->verb = SUPERVISOR_VERBOSE;
		break;
	case 'h':
		run_usage(stdout);
		return 0;
	default:
		return tools_usage_error("run");
	}
	return RUN_GO;
}

/* The command line: RUN_GO (optind at the command) or the exit status. */
static int run_parse(struct run_cmd *rc, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'r' },
		{ "audit", required_argument, NULL, 'a' },
		{ "audit-fd", required_argument, NULL, 'F' },
		{ "audit-syslog", required_argument, NULL, 'Y' },
		{ "audit-format", required_argument, NULL, 'O' },
		{ "audit-sync", required_argument, NULL, 'S' },
		{ "sign-key", required_argument, NULL, 'K' },
		{ "denials-fd", required_argument, NULL, 'D' },
		{ "user", required_argument, NULL, 'U' },
		{ "permissive", no_argument, NULL, 'P' },
		{ "enforce", no_argument, NULL, 'E' },
		{ "output-cap", required_argument, NULL, 'C' },
		{ "no-output", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	optind = 1;
	while ((c = tools_getopt(argc, argv, "run", "+:r:a:qvh", longopts)) != -1)
		if ((r = run_option(rc, c)) != RUN_GO)
			return r;
	if (optind >= argc) {
		fprintf(stderr, "sysgate run: no command given\n");
		return tools_usage_error("run");
	}
	return RUN_GO;
}

/* The options together, --user, the run's id and temp dir names:
 * RUN_GO or the exit status. */
static int run_check(struct run_cmd *rc)
{
	int r;

	/* --audit-format ocsf makes --audit-fd a stream of events beside
	 * the trail, which is then a file (-a or the default). */
	if (rc->want_ocsf && rc->audit_fd >= 0) {
		rc->ocsf_fd = rc->audit_fd;
		rc->audit_fd = -1;
	}
	if (rc->audit_arg && rc->audit_fd >= 0) {
		fprintf(stderr, "sysgate: -a and --audit-fd cannot be used together (but with --audit-format ocsf)\n");
		return SUPERVISOR_EXIT_FAILURE;
	}
	if (rc->want_ocsf && !rc->syslog_arg && rc->ocsf_fd < 0) {
		fprintf(stderr, "sysgate: --audit-format ocsf is for --audit-syslog and --audit-fd (the trail itself is always sysgate's JSON; see sysgate export)\n");
		return SUPERVISOR_EXIT_FAILURE;
	}
	if (rc->user_arg) {
		if (getuid() != 0) {
			fprintf(stderr, "sysgate: --user needs root (sysgate is running as uid %u)\n",
				(unsigned)getuid());
			return SUPERVISOR_EXIT_FAILURE;
		}
		rc->pw = user_lookup(rc->user_arg);
		if (!rc->pw)
			return SUPERVISOR_EXIT_FAILURE;
		/* The command's home: ${HOME} in the policy, HOME for it.
		 * The trail stays ours, in our home. */
		if (getenv("HOME"))
			snprintf(rc->sup_home, sizeof(rc->sup_home), "%s",
				 getenv("HOME"));
		setenv("HOME", rc->pw->pw_dir, 1);
		setenv("USER", rc->pw->pw_name, 1);
		setenv("LOGNAME", rc->pw->pw_name, 1);
	}
	make_run_id(rc->run_id, sizeof(rc->run_id));
	/* Security: the private temp dir (${TMPDIR}) by its canonical path,
	 * the form the supervisor matches. */
	if ((r = tools_tmp_parent(rc->tmp_parent, sizeof(rc->tmp_parent),
				  rc->tmp_spelled,
				  sizeof(rc->tmp_spelled))) < 0) {
		fprintf(stderr, "sysgate: TMPDIR %s: %s\n", getenv("TMPDIR"),
			strerror(-r));
		return SUPERVISOR_EXIT_FAILURE;
	}
	if (tmpdir_name(&rc->td, rc->tmp_parent, rc->run_id) < 0 ||
	    (rc->tmp_spelled[0] &&
	     tmpdir_name(&rc->td_spelled, rc->tmp_spelled, rc->run_id) < 0)) {
		fprintf(stderr, "sysgate: TMPDIR is too long for the private temp dir\n");
		return SUPERVISOR_EXIT_FAILURE;
	}
	return RUN_GO;
}

/* The options the child needs, and the child started (it runs nothing
 * of the command before supervisor_run). */
static void run_prepare(struct run_cmd *rc, char **cmd_argv)
{
	struct supervisor_opts *o = &rc->o;

	o->run_id = rc->run_id;
	o->tmpdir = rc->td.path;
	o->note_fd = -1;
	o->output_cap = rc->output_cap;
	o->output_cap_given = rc->output_cap_given;
	o->argv = cmd_argv;
	/* Permissive: the prebuilt filter is the enforcing one. */
	o->builtin_policy = !rc->policy_arg && rc->mode_arg != 1;
	if (rc->pw) {
		o->user = true;
		o->uid = rc->pw->pw_uid;
		o->gid = rc->pw->pw_gid;
		o->user_name = rc->pw->pw_name;
	}
	/* The child sets itself up while the policy loads; it runs nothing
	 * of the command before supervisor_run, and is ended on any error
	 * before (run_abandon()). */
	supervisor_prepare(o);
}

/* The signing key and the whole policy, understood before anything
 * starts, and its hash: 0, or -1 (said). */
static int run_load_policy(struct run_cmd *rc)
{
	int r;

	if (sodium_init() < 0) {
		fprintf(stderr, "sysgate: libsodium cannot be initialised\n");
		return -1;
	}
	if (rc->key_arg && (r = audit_load_secret_key(rc->key_arg, rc->sk)) < 0) {
		fprintf(stderr, "sysgate: --sign-key %s: %s\n", rc->key_arg,
			strerror(-r));
		return -1;
	}
	tools_vars(&rc->vars, rc->cwd, sizeof(rc->cwd), rc->td.path,
		   rc->run_id);
	if (rc->tmp_spelled[0])
		rc->vars.tmpdir_spelled = rc->td_spelled.path;

	/* The whole policy is understood before anything starts. */
	if (rc->policy_arg && !strcmp(rc->policy_arg, "-"))
		r = load_stdin_policy(&rc->vars, &rc->rs, rc->policy_hash,
				      rc->err, sizeof(rc->err));
	else
		r = tools_load_policy(rc->policy_arg, &rc->vars, &rc->rs,
				      rc->err, sizeof(rc->err));
	if (r < 0) {
		fprintf(stderr, "%s\n", rc->err);
		return -1;
	}
	/* Mistakes that leave a valid policy ('[' in a glob, an empty
	 * policy): said before the run, as check says them. */
	if (rc->verb != SUPERVISOR_QUIET) {
		const char *w;

		for (size_t i = 0; (w = rules_warning(rc->rs, i)); i++)
			fprintf(stderr, "sysgate: warning: %s\n", w);
	}
	/* The command line wins over [policy] mode. */
	if (rc->mode_arg >= 0)
		rules_set_permissive(rc->rs, rc->mode_arg == 1);
	if (!rc->policy_arg || strcmp(rc->policy_arg, "-")) {
		char *text = NULL;
		size_t len = 0;

		if (rc->policy_arg &&
		    read_policy_text(rules_source(rc->rs), &text, &len) == 0) {
			hash_hex(text, len, rc->policy_hash);
			free(text);
		} else {
			const char *d = rules_default_text();

			hash_hex(d, strlen(d), rc->policy_hash);
		}
	}
	return 0;
}

/* The trail, its second sinks and the private temp dir: 0, or -1
 * (said). */
static int run_open_trail(struct run_cmd *rc)
{
	const char *home = rc->user_arg ? rc->sup_home : getenv("HOME");
	int r;

	/* A trail or event stream on a pipe whose reader has gone fails its
	 * write (EPIPE: the run stops with 125), from run.start on, rather
	 * than killing sysgate (the command gets its signals back to their
	 * defaults: launch.c). */
	signal(SIGPIPE, SIG_IGN);
	if (rc->audit_fd >= 0) {
		r = audit_open_fd(rc->audit_fd, rc->sync, rc->run_id, &rc->aw);
		rc->audit_path[0] = '\0';
	} else {
		if (rc->audit_arg)
			snprintf(rc->audit_path, sizeof(rc->audit_path), "%s",
				 rc->audit_arg);
		else if ((r = default_audit_path(rc->run_id, home,
						 rc->audit_path,
						 sizeof(rc->audit_path))) < 0) {
			fprintf(stderr, "sysgate: no place for the audit trail: %s (use -a FILE)\n",
				strerror(-r));
			return -1;
		}
		r = audit_open_path(rc->audit_path, rc->sync, rc->run_id,
				    &rc->aw);
	}
	if (r < 0) {
		fprintf(stderr, "sysgate: cannot open the audit trail %s: %s%s\n",
			rc->audit_fd >= 0 ? "fd" : rc->audit_path, strerror(-r),
			r == -EBUSY ? " (another sysgate is writing it)" :
			r == -EBADMSG ? " (it does not end with a whole audit "
			"record, so a run cannot be chained to it: not a "
			"trail, or damaged; give another file)" : "");
		return -1;
	}
	if (rc->want_ocsf && (!(rc->ocsf[0] = export_live_new()) ||
			      !(rc->ocsf[1] = export_live_new()))) {
		fprintf(stderr, "sysgate: out of memory\n");
		return -1;
	}
	if (open_ships(rc->aw, rc->syslog_arg, rc->ocsf_fd, rc->run_id,
		       rc->ocsf) < 0)
		return -1;
	if ((r = tmpdir_create(&rc->td, rc->pw)) < 0) {
		fprintf(stderr, "sysgate: cannot create the private temp dir %s: %s\n",
			rc->td.path, strerror(-r));
		return -1;
	}
	rc->o.note_fd = tmpdir_note_fd(&rc->td);
	return 0;
}

/* The rest of the options, and the run: its exit status. */
static int run_start(struct run_cmd *rc, char **all_argv)
{
	struct supervisor_opts *o = &rc->o;

	o->rules = rc->rs;
	o->audit = rc->aw;
	o->audit_path = rc->audit_fd >= 0 ? NULL : rc->audit_path;
	o->policy_hash_hex = rc->policy_hash;
	o->sign_key = rc->key_arg ? rc->sk : NULL;
	config_guards(o, rc->rs, rc->key_arg,
		      rc->user_arg ? rc->sup_home : getenv("HOME"));
	o->sysgate_argv = all_argv;
	o->verbosity = rc->verb;
	o->denials_fd = rc->denials_fd;
	return supervisor_run(o);
}

/* What a run leaves: the temp dirs, the sinks' errors, the trail
 * closed.  Returns the exit status, status or a failure of these. */
static int run_end(struct run_cmd *rc, int status)
{
	int r;

	r = tmpdir_remove(&rc->td, rc->pw);
	if (r < 0)
		fprintf(stderr, "sysgate: cannot remove the private temp dir %s: %s; left in place\n",
			rc->td.path, tmpdir_strerror(r));
	/* And those of earlier runs whose sysgate was killed, and their
	 * cgroups. */
	tmpdir_sweep(&rc->td, rc->verb == SUPERVISOR_VERBOSE,
		     rc->verb == SUPERVISOR_QUIET, remove_cgroups_left,
		     &rc->verb);
	if ((r = audit_ship_error(rc->aw)) < 0) {
		if (rc->syslog_arg)
			fprintf(stderr, "sysgate: --audit-syslog %s%s: a record was not handed over: %s; the trail has every record\n",
				rc->syslog_arg,
				rc->ocsf_fd >= 0 ? " or --audit-fd" : "",
				strerror(-r));
		else
			fprintf(stderr, "sysgate: --audit-fd %d: an event was not written: %s; the trail has every record\n",
				rc->ocsf_fd, strerror(-r));
		status = SUPERVISOR_EXIT_FAILURE;
	}
	r = audit_close(rc->aw);
	if (r < 0) {
		fprintf(stderr, "sysgate: the audit trail is incomplete: %s\n",
			strerror(-r));
		status = SUPERVISOR_EXIT_FAILURE;
	}
	export_live_free(rc->ocsf[0]);
	export_live_free(rc->ocsf[1]);
	sodium_memzero(rc->sk, sizeof(rc->sk));
	rules_free(rc->rs);
	return status;
}

/* An error before the run: the child ended, what was opened closed. */
static int run_abandon(struct run_cmd *rc)
{
	supervisor_abandon();
	if (rc->aw)
		audit_close(rc->aw);
	export_live_free(rc->ocsf[0]);
	export_live_free(rc->ocsf[1]);
	sodium_memzero(rc->sk, sizeof(rc->sk));
	rules_free(rc->rs);
	return SUPERVISOR_EXIT_FAILURE;
}

/* sysgate run, in steps: the options, the child prepared, the policy,
 * the trail and its sinks, the run, the end. */
static int cmd_run(int argc, char **argv, char **all_argv)
{
	struct run_cmd rc = {
		.audit_fd = -1,
		.ocsf_fd = -1,
		.denials_fd = -1,
		.mode_arg = -1,
		.sync = AUDIT_SYNC_INTERVAL,
		.output_cap = OUTPUT_CAP_DEFAULT,
		.verb = SUPERVISOR_NORMAL,
		.td = { .lock_fd = -1 },
	};
	int r;

	r = run_parse(&rc, argc, argv);
	if (r == RUN_GO)
		r = run_check(&rc);
	if (r != RUN_GO)
		return r;
	run_prepare(&rc, argv + optind);
	if (run_load_policy(&rc) < 0 || run_open_trail(&rc) < 0)
		return run_abandon(&rc);
	return run_end(&rc, run_start(&rc, all_argv));
}

/* run needs sysgate's whole command line (run.start records it). */
static char **main_argv;

static int run_main(int argc, char **argv)
{
	return cmd_run(argc, argv, main_argv);
}

static int version_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("sysgate %s\n", PACKAGE_VERSION);
	return 0;
}

static int help_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

/* The subcommands: each takes the arguments from its own name on and
 * returns sysgate's exit status. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} subcommands[] = {
	{ "run", run_main },
	{ "check", tool_check },
	{ "verify", tool_verify },
	{ "learn", tool_learn },
	{ "keygen", tool_keygen },
	{ "report", tool_report },
	{ "export", tool_export },
	{ "runs", tool_runs },
	{ "diff", tool_diff },
	{ "version", version_main },
	{ "--version", version_main },
	{ "help", help_main },
	{ "--help", help_main },
	{ "-h", help_main },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return SUPERVISOR_EXIT_FAILURE;
	}
	main_argv = argv;
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "sysgate: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return SUPERVISOR_EXIT_FAILURE;
}
