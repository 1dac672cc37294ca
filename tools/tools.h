/* SPDX-License-Identifier: MIT */
/*
 * tools: sysgate's subcommands that only read policies and trails (check,
 * verify, keygen, report, export).  They use rules/ and audit/, never
 * supervisor/.
 */
#ifndef SYSGATE_TOOLS_H
#define SYSGATE_TOOLS_H

#include <stddef.h>
#include <stdio.h>

/* Each takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns sysgate's exit status. */
int tool_check(int argc, char **argv);
int tool_verify(int argc, char **argv);
int tool_keygen(int argc, char **argv);
int tool_report(int argc, char **argv);
int tool_learn(int argc, char **argv);
int tool_export(int argc, char **argv);

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

#endif
