/* SPDX-License-Identifier: MIT */
/*
 * supervisor: runs a command under a seccomp filter with a user-notification
 * listener, traces every process and thread it starts, decides each notified
 * call with rules/ and records it with audit/.
 *
 *	struct supervisor_opts o = { .rules = rs, .audit = w, .argv = argv, ... };
 *	int status = supervisor_run(&o);   // the exit status sysgate returns
 */
#ifndef SYSGATE_SUPERVISOR_H
#define SYSGATE_SUPERVISOR_H

#include <stdbool.h>
#include <sys/types.h>

struct rules_set;
struct audit_writer;

/* Exit statuses reserved for sysgate itself (as env(1) and timeout(1)). */
#define SUPERVISOR_EXIT_FAILURE 125
#define SUPERVISOR_EXIT_CANNOT_RUN 126
#define SUPERVISOR_EXIT_NOT_FOUND 127

enum supervisor_verbosity {
	SUPERVISOR_QUIET = 0,   /* -q: nothing but errors */
	SUPERVISOR_NORMAL = 1,  /* end-of-run summary */
	SUPERVISOR_VERBOSE = 2, /* -v: one line per decision */
};

struct supervisor_opts {
	const struct rules_set *rules; /* borrowed */
	struct audit_writer *audit;    /* borrowed; records are added */
	const char *audit_path;        /* for messages; NULL for an fd sink */
	const char *run_id;
	const char *policy_hash_hex;   /* BLAKE2b of the policy text */
	const char *tmpdir;            /* private per-run temp dir (exported) */
	const unsigned char *sign_key; /* Ed25519 secret key (64 bytes) or NULL */
	char *const *argv;             /* the command */
	char *const *sysgate_argv;     /* sysgate's own argv, for run.start */
	enum supervisor_verbosity verbosity;
	int denials_fd;                /* JSON line per denial, -1: none */
	bool user;                     /* --user: run the command as uid/gid */
	uid_t uid;
	gid_t gid;
	const char *user_name;
	bool builtin_policy;           /* rules is the built-in policy (no
					* -r), known to supervisor_prepare */
	/* The run's own configuration, out of the tree's reach (each
	 * borrowed, NULL-terminated lists): files it may neither read nor
	 * change (the signing key), files it may not change (the policy,
	 * its includes, the public key), and sysgate's state directories
	 * (other runs' trails), which it may not touch at all (at most 2).
	 * The directories above each file may not be renamed or removed. */
	const char *const *guard_secret;
	const char *const *guard_config;
	const char *const *state_dirs;
	/* Bytes of the command's stdout and stderr kept in the trail
	 * (the tail past half of it), 0: none and no pipes (output.h). */
	unsigned long long output_cap;
	bool output_cap_given;         /* by the command line: the policy's
					* [policy] output does not apply */
	int note_fd;                   /* told what the run makes outside
					* its temp dir (cgroups), for a later
					* run should this one be killed (the
					* temp dir's lock, tmpdir.h); -1: none */
};

/*
 * Run the command to completion (the whole process tree).  Returns the exit
 * status for sysgate: the command's, 128+N for a signal, or one of the
 * SUPERVISOR_EXIT_* codes.  Prints errors and the summary to stderr.
 * Blocks until every traced task is gone.
 */
int supervisor_run(const struct supervisor_opts *opts);

/*
 * Optional, before supervisor_run and before the policy is loaded (only
 * argv, tmpdir, run_id, builtin_policy and the user fields of opts are
 * read): find the program and start the child, which sets itself up (and
 * with the built-in policy loads its filter) meanwhile.  Errors are
 * reported by supervisor_run.  supervisor_abandon() ends such a child where
 * supervisor_run is not called after all.
 */
void supervisor_prepare(const struct supervisor_opts *opts);
void supervisor_abandon(void);

#endif
