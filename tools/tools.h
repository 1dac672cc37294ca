/* SPDX-License-Identifier: MIT */
/*
 * tools: sysgate's subcommands that only read policies and trails (check,
 * verify, keygen, report, export).  They use rules/ and audit/, never
 * supervisor/.
 */
#ifndef SYSGATE_TOOLS_H
#define SYSGATE_TOOLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Each takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns sysgate's exit status. */
int tool_check(int argc, char **argv);
int tool_verify(int argc, char **argv);
int tool_keygen(int argc, char **argv);
int tool_report(int argc, char **argv);
int tool_learn(int argc, char **argv);
int tool_export(int argc, char **argv);
int tool_runs(int argc, char **argv);
int tool_diff(int argc, char **argv);

/*
 * The OCSF mapping of `sysgate export`, one trail line at a time, for
 * run --audit-format ocsf: export_live_line() (the shape of
 * audit_syslog_set_format's hook, ctx an export_live) parses one line and
 * sets *out to its event (one line of JSON, no newline, malloc'd: the
 * caller frees it) and *out_len; -EBADMSG for a line that is not a
 * record, -ENOMEM.  The same events, byte for byte, as the export of the
 * same trail.
 */
struct export_live;
struct export_live *export_live_new(void);
int export_live_line(void *ctx, const char *line, size_t len, char **out,
		     size_t *out_len);
void export_live_free(struct export_live *l);

/* Exit status of a command line that is not understood (as sysgate's own
 * failures: 125, never one a command under `run` could give). */
#define TOOLS_EXIT_USAGE 125
/* Largest policy read from standard input (-r -). */
#define TOOLS_MAX_POLICY (1024 * 1024)

struct option;
/*
 * getopt_long() for subcommand cmd ("check"), with sysgate's messages:
 * an unknown option, an option without its argument or with one it takes
 * none is reported on stderr ("sysgate check: unknown option '--foo'")
 * and '?' returned; shortopts must start with ':' (after a '+').  "--"
 * ends the options, as getopt_long's.  Otherwise as getopt_long().
 */
int tools_getopt(int argc, char **argv, const char *cmd,
		 const char *shortopts, const struct option *longopts);
/* "Try 'sysgate CMD --help'." on stderr; returns TOOLS_EXIT_USAGE. */
int tools_usage_error(const char *cmd);
/*
 * Read a whole policy from standard input (-r -): at most
 * TOOLS_MAX_POLICY bytes, no NUL byte.  Returns 0 with *text (the
 * caller's, NUL-terminated) and *len, or -errno with a message in err.
 * Blocks until end of file.
 */
int tools_read_policy_stdin(char **text, size_t *len, char *err,
			    size_t err_len);

struct rules_vars;
struct rules_set;

/*
 * Fill the policy variables from the environment: ${HOME} and ${CWD}
 * canonical, and as spelled (HOME, $PWD) where that differs; a variable
 * that cannot be determined is left NULL with the reason (rules_vars),
 * so that a policy using it is refused.  cwd is the caller's buffer,
 * tmpdir (may be NULL) and run are borrowed; the rest lives until the
 * next call.
 */
void tools_vars(struct rules_vars *v, char *cwd, size_t cwd_len,
		const char *tmpdir, const char *run);
/* The canonical form of the absolute path in: realpath() of the longest
 * part that exists (and can be searched), then the names that do not
 * exist yet (or lie in a directory we cannot search).  0, or -errno
 * (-EINVAL: not absolute, or "." or ".." among the missing names). */
int tools_canon_path(const char *in, char *out, size_t len);
/* The directory private temp dirs go in: $TMPDIR when absolute, else
 * /tmp; canonical in canon, and in spelled as written (without a trailing
 * '/') when that differs, else "".  0, or -errno of tools_canon_path. */
int tools_tmp_parent(char *canon, size_t len, char *spelled, size_t sp_len);
/* Load POLICY: a file, a shipped policy's name, "-" for standard input
 * (named "<stdin>"), or NULL for the built-in default.  As
 * rules_load_file. */
int tools_load_policy(const char *arg, const struct rules_vars *v,
		      struct rules_set **out, char *err, size_t err_len);

/* tools/explain.c.  Explain one call written as in the trail ("openat
 * /home/u/.ssh/id_rsa read", "connect 10.0.0.5:443", "kill") on stdout:
 * each rule tried, the decision, the mechanism.  Returns 0, or 125 (with a
 * message on stderr) when the call cannot be understood. */
int tools_explain(const struct rules_set *rs, const char *call);
/* Print sysgate check's warnings (rules that can never match, literal
 * paths whose first directory does not exist) to out, and a note for each
 * rule of an include that a rule of another file overrides; returns how
 * many warnings.
 * tmpdir: what ${TMPDIR} stood for (a run makes its own: nothing under it
 * is missing), or NULL. */
unsigned tools_check_warnings(const struct rules_set *rs, const char *tmpdir,
			      FILE *out);

/*
 * tools/runs.c: the runs in the state directory.  `sysgate run` without
 * -a writes its trail to $XDG_STATE_HOME/sysgate/runs, else
 * $HOME/.local/state/sysgate/runs, else (no usable home: nobody's is
 * /nonexistent) /tmp/sysgate-UID.  tools_state_dir() sets dir to the
 * first when it is a directory this user can write, else to the one
 * under /tmp, and returns 0.
 */
int tools_state_dir(char dir[PATH_MAX]);

/* One run of a trail in the state directory. */
struct tools_run {
	char *path;		/* the trail file */
	unsigned index;		/* the run's place in the file: 1, 2, ... */
	unsigned in_file;	/* how many runs the file holds */
	char *id;		/* the run id */
	int64_t start_us, last_us;	/* first and last ts (-1: none) */
	int64_t duration_ms;	/* run.end's, or -1 */
	bool finished;		/* it has run.end */
	int64_t exit;		/* run.end's exit */
	char *status, *signal;	/* run.end's, or NULL */
	uint64_t denials;	/* syscall records denied or killed */
	char *command;		/* the command, escaped for a terminal */
	struct json_t *command_json;	/* run.start's command (argv) */
};
struct tools_runs {
	struct tools_run *v;
	size_t n, cap;
};
/*
 * Read every *.jsonl of the state directory into out, sorted by start
 * time, the latest last.  A file that cannot be read or holds no record
 * is skipped with a warning on stderr ("sysgate CMD: PATH: ...;
 * skipped"), so is the directory under /tmp unless it is this user's
 * alone.  A run without run.end is unfinished (finished false).  Returns
 * 0, or -ENOMEM.  Release out with tools_runs_release().
 */
int tools_runs_scan(const char *cmd, struct tools_runs *out);
void tools_runs_release(struct tools_runs *rs);

/* Longest run id kept from a trail (sysgate's are far shorter). */
#define TOOLS_RUN_ID_MAX 300
/*
 * A trail argument of subcommand cmd.  "latest" is the last run that
 * `sysgate runs` lists, "~N" and "latest~N" the Nth before it; they always
 * name those runs, never a file of that name in the working directory
 * (write ./latest for that: the tree may write the working directory,
 * and must not make "latest" mean a trail of its own).  Anything else is
 * the path itself.  Returns the path: arg itself, or path (the caller's
 * buffer) filled with the run's trail; run_id gets the run's id when that
 * file holds several runs, else "".  NULL (said on stderr) when there is
 * no such run, or no memory.
 */
const char *tools_trail_arg(const char *cmd, const char *arg,
			    char path[PATH_MAX], char run_id[TOOLS_RUN_ID_MAX]);

#endif
