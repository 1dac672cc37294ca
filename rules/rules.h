/* SPDX-License-Identifier: MIT */
/*
 * rules: the policy.  Parses an INI policy (the only inih user), checks it
 * completely, compiles it into a seccomp BPF filter (libseccomp) and matches
 * copied syscall events against it.  Pure: no tracee access, no fork, no
 * output; errors come back as -errno plus a "FILE:LINE: message" string.
 *
 * Call sequence:
 *
 *	struct rules_vars v = { .home = ..., .cwd = ..., .tmpdir = ..., .run = ... };
 *	struct rules_set *rs;
 *	char err[RULES_ERR_MAX];
 *	if (rules_load_file("policy.ini", &v, &rs, err, sizeof err) < 0)
 *		die("%s", err);             // "policy.ini:12: unknown syscall 'opne' (did you mean 'open'?)"
 *	rules_build_filter(rs, &prog);      // BPF for seccomp(SET_MODE_FILTER)
 *	...
 *	rules_match(rs, &event, &verdict);  // per notified call (and per path)
 *	rules_free(rs);
 *
 * Policy format: see docs/sysgate.ini.5 and docs/INTERNALS.md.
 */
#ifndef SYSGATE_RULES_H
#define SYSGATE_RULES_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define RULES_ERR_MAX 512

struct rules_set;

/*
 * What a rule (or the default) does, ordered by strictness: when a call
 * has several checks (two paths, a path and a scalar condition), the
 * greatest value wins.  ask ranks below deny: an answer may still allow.
 */
enum rules_action {
	RULES_ALLOW = 0,
	RULES_REWRITE = 1, /* carried out with changed arguments (see
			    * rules_rewrite_path/addr/args) */
	RULES_ASK = 2,     /* a hook or the terminal decides (allow or deny) */
	RULES_DENY = 3,
	RULES_KILL = 4,
};

/* Strictness of an action: its value (kill > deny > ask > rewrite >
 * allow). */
int rules_action_rank(enum rules_action a);

struct rules_verdict;
/* Strictness of a verdict: its action's rank; among allows, one the
 * policy would have refused (permissive mode) ranks above a plain one,
 * so that the call keeps its would-be refusal. */
int rules_verdict_rank(const struct rules_verdict *v);

/* Default time to wait for an answer of action = ask. */
#define RULES_ASK_TIMEOUT_MS 30000

/* Access classes of a path check.  A syscall's table entry says which
 * classes it can have; the supervisor passes exactly one per check. */
enum rules_access {
	RULES_ACC_READ = 1u << 0,
	RULES_ACC_WRITE = 1u << 1,
	RULES_ACC_CREATE = 1u << 2,
	RULES_ACC_DELETE = 1u << 3,
	RULES_ACC_EXEC = 1u << 4,
	RULES_ACC_STAT = 1u << 5,
};

/* [policy] audit = ... */
enum rules_audit_level {
	RULES_AUDIT_ALL = 0,
	RULES_AUDIT_DENIED = 1,
	RULES_AUDIT_NONE = 2,
};

/* How a syscall's pointer arguments are checked (from the syscall table). */
enum rules_kind {
	RULES_KIND_SCALAR = 0, /* decided on registers only */
	RULES_KIND_PATH = 1,   /* one or more path arguments */
	RULES_KIND_EXEC = 2,   /* execve, execveat */
	RULES_KIND_NET = 3,    /* a socket address argument */
};

/* Which mechanism decides a syscall under a policy. */
enum rules_mech {
	RULES_MECH_KERNEL = 0, /* the BPF filter allows, denies or kills */
	RULES_MECH_NOTIFY = 1, /* SECCOMP_RET_USER_NOTIF to the supervisor */
	RULES_MECH_TRACE = 2,  /* SECCOMP_RET_TRACE (reserved) */
};

/* Variables substituted in paths: ${HOME} ${CWD} ${TMPDIR} ${RUN}.
 * All borrowed; each must be an absolute path (run: any id string). */
struct rules_vars {
	const char *home;	/* canonical paths (the supervisor matches */
	const char *cwd;	/* canonical paths) */
	const char *tmpdir;
	const char *run;
	/*
	 * The same directories as spelled (HOME as set, $PWD, TMPDIR),
	 * where the spelling differs (a symlink on the way), else NULL: a
	 * path, exe or address item with the variable is added in either
	 * form.  A redirect and an include use the canonical one.
	 */
	const char *home_spelled;
	const char *cwd_spelled;
	const char *tmpdir_spelled;
	/* Why home, cwd or tmpdir is NULL ("HOME is not an absolute path"),
	 * for the error of a policy that uses it; NULL: not set. */
	const char *home_why;
	const char *cwd_why;
	const char *tmpdir_why;
};

/* One checked call, all data already copied out of the tracee. */
struct rules_event {
	int nr;                     /* x86_64 syscall number */
	uint64_t args[6];           /* raw register arguments */
	const char *exe;            /* canonical path of the caller's exe, or NULL */
	unsigned access;            /* one RULES_ACC_* bit for a path check, 0 else */
	const char *path;           /* canonical absolute path, or NULL */
	const struct sockaddr *addr;/* address of connect/bind, or NULL */
	socklen_t addr_len;
	/* A unix path socket: the canonical path of its file, which unix:
	 * globs match instead of the address's sun_path (a canonical path
	 * can be longer than sun_path holds).  NULL: match sun_path. */
	const char *unix_path;
};

struct rules_rewrite;

struct rules_verdict {
	enum rules_action action;
	int err;          /* positive errno when action == RULES_DENY */
	const char *rule; /* name of the deciding rule, NULL for the default;
			   * borrowed from the set */
	bool audit;       /* the policy's audit level asks to record this */
	bool stack;       /* the rule asks for the caller's stack */
	/* action == RULES_ASK: who to ask and how long to wait. */
	const char *ask;         /* shell command, NULL: the terminal */
	uint64_t ask_timeout_ms;
	bool remember;           /* keep the answer for the rest of the run */
	/* action == RULES_REWRITE: what to change (borrowed from the set;
	 * apply with rules_rewrite_path, _addr and _args). */
	const struct rules_rewrite *rewrite;
	/* Permissive mode (rules_set_permissive()): what the policy would
	 * have done (RULES_DENY, RULES_KILL or RULES_ASK; err is its errno)
	 * for a call let through as action = RULES_ALLOW.  RULES_ALLOW: the
	 * verdict is the policy's own. */
	enum rules_action would;
};

/*
 * How a syscall is decided, whatever the policy says of it (the row's
 * class; rules_mechanism() gives the mechanism under one policy).  A
 * number without a row is refused with ENOSYS under every policy and the
 * refusal recorded: the world is closed.
 */
enum rules_decide {
	RULES_DECIDE_KERNEL = 0,   /* the filter, on the number alone */
	RULES_DECIDE_FLAGS = 1,    /* the filter, on scalar arguments (flags,
				    * commands, targets); some values reach
				    * the supervisor */
	RULES_DECIDE_SUPERVISOR = 2, /* notified: pointer arguments, or calls
				      * the supervisor must see */
	RULES_DECIDE_REFUSED = 3,  /* refused under every policy (ENOSYS) */
};

/*
 * The handler family that carries a notified call out: the supervisor
 * keeps one handler per family (supervisor/notify.c, family_handlers), so
 * that adding a syscall is a row of rules/syscalls.c and, for a family of
 * its own, one handler.
 */
enum rules_family {
	RULES_FAM_SCALAR = 0,	/* decided on registers alone: signals and
				 * process targets, credentials, SysV IPC,
				 * the fcntl and ioctl commands it watches */
	RULES_FAM_OPEN = 1,	/* the open family: a file handed over */
	RULES_FAM_CHANGE = 2,	/* file changes made on the checked path */
	RULES_FAM_META = 3,	/* looks at, or changes metadata of, a path */
	RULES_FAM_EXEC = 4,	/* execve, execveat */
	RULES_FAM_NET = 5,	/* a socket address */
	RULES_FAM_REFUSED = 6,	/* refused under every policy */
};

/* Static facts about one x86_64 syscall (borrowed, lives forever). */
struct rules_syscall_info {
	const char *name;
	int nr;
	enum rules_kind kind;
	enum rules_decide decide;
	enum rules_family family;
	unsigned access;     /* RULES_ACC_* classes this syscall can have */
	signed char path_arg[2];  /* register index of path argument(s), -1 none */
	signed char dirfd_arg[2]; /* register index of the matching dirfd, -1 none */
	signed char addr_arg;     /* register index of the sockaddr, -1 none */
	signed char addrlen_arg;  /* register index of its length, -1 none */
};

/*
 * Load and fully check a policy.  On success *out is set and 0 returned.
 * On failure returns -EINVAL (policy not understood), -ENOENT/-EACCES/...
 * (file cannot be read) or -ENOMEM, writes "FILE:LINE: what is wrong" (or
 * "FILE: ...") into err (always NUL-terminated), and leaves *out alone.
 * vars is borrowed; the strings are copied as needed.
 */
int rules_load_file(const char *path, const struct rules_vars *vars,
		    struct rules_set **out, char *err, size_t err_len);
/* The same for a policy held in memory; name is used in messages. */
int rules_load_string(const char *text, const char *name,
		      const struct rules_vars *vars, struct rules_set **out,
		      char *err, size_t err_len);
/* The built-in default policy for generated code (rules/policies/default.ini,
 * compiled in). */
int rules_load_default(const struct rules_vars *vars, struct rules_set **out,
		       char *err, size_t err_len);
/* The text of the built-in default policy (borrowed, static). */
const char *rules_default_text(void);
/* True for a set rules_load_default() loaded (not for one that includes
 * "default", nor for a file of the same text): its filters are prebuilt
 * (rules/prebuilt.h). */
bool rules_is_builtin_default(const struct rules_set *rs);

/* The shipped policies (rules/policies/NAME.ini), compiled in so that a
 * bare NAME finds them without an installed copy; the table ends with a
 * NULL name.  rules_builtin_text() is NAME's text (borrowed, static), or
 * NULL when no shipped policy has that name. */
struct rules_builtin {
	const char *name;
	const char *text;
};
extern const struct rules_builtin rules_builtin_policies[];
const char *rules_builtin_text(const char *name);
/* Load the shipped policy NAME from its built-in copy (the default through
 * rules_load_default()); -ENOENT, with a message, when there is none. */
int rules_load_builtin(const char *name, const struct rules_vars *vars,
		       struct rules_set **out, char *err, size_t err_len);

/* Accepts NULL. */
void rules_free(struct rules_set *rs);

/*
 * Permissive mode ([policy] mode = permissive of the policy's own file,
 * or `sysgate run --permissive`, which wins): rules_match() and
 * rules_match_rewritten() turn a deny, kill or ask of the policy (a rule
 * or the default) into an allow that records what the policy would have
 * done (verdict.would, always audited); rewrites stay rewrites.  The
 * filter (rules_build_filter()) then sends every call the kernel would
 * deny or kill to the supervisor instead, and rules_never_allows() says
 * false.  Verdicts that do not come from the policy (sysgate's own
 * checks, made by the supervisor) are not touched.  Call before the
 * filter is built.
 */
void rules_set_permissive(struct rules_set *rs, bool on);
bool rules_is_permissive(const struct rules_set *rs);

/* The files the policy was read from, canonical: its own (when it is a
 * file) and every include's, each once; not the built-in policy.  For
 * guarding them from the tree.  Borrowed; NULL when i is out of range. */
const char *rules_file(const struct rules_set *rs, size_t i);
/* At most this many files make one policy (its own and its includes). */
#define RULES_MAX_INCLUDED_FILES 65

/* [policy] values. */
enum rules_audit_level rules_audit_level(const struct rules_set *rs);
/* [policy] output = off | BYTES[K|M|G]: 0 with *cap (0 for off) when the
 * policy sets it, else -ENOENT. */
int rules_output_cap(const struct rules_set *rs, uint64_t *cap);
/* The name the set was loaded from ("<default>" for the built-in one). */
const char *rules_source(const struct rules_set *rs);

/*
 * The mechanism that decides syscall nr under this policy.  When it is
 * RULES_MECH_KERNEL and kernel_action is not NULL, *kernel_action is what the
 * filter does for the call when no scalar condition of a rule selects
 * something else (informational, for `sysgate check`).
 */
enum rules_mech rules_mechanism(const struct rules_set *rs, int nr,
				enum rules_action *kernel_action);

/*
 * Compile the filter: arch check (other ABIs and x32 killed), sysgate's
 * fixed guards (those of rules_build_guard_filter()) where one filter can
 * express them next to the policy's own decision, then per syscall the
 * kernel decision or SECCOMP_RET_USER_NOTIF.  When
 * rules_filter_has_guards() is false, load rules_build_guard_filter() first,
 * which always has them all.  The default
 * action (unnamed syscalls) is the policy default, or USER_NOTIF when the
 * audit level records it.  On success fills *prog with a malloc'ed filter
 * array the caller frees with free(), and returns 0; -ENOMEM or -EINVAL
 * otherwise.  Loads nothing.
 */
int rules_build_filter(const struct rules_set *rs, struct sock_fprog *prog);

/*
 * True when rules_build_filter()'s program holds every guard of
 * rules_build_guard_filter() in the guard's own strength: stacking the
 * guard filter under it would change no decision (test-rules checks it on
 * every syscall), so it need not be loaded.  False for a policy with its
 * own conditions on clone's arg0 or a conditional kill of clone, and for
 * a conditional rule on an *xattrat call.  Pure; fast.
 */
bool rules_filter_has_guards(const struct rules_set *rs);

/*
 * True for the calls every filter sends to the supervisor whatever the
 * policy (signals and process-group changes, whose targets the supervisor
 * keeps inside the traced tree; chdir and fchdir, since it keeps each
 * task's working directory; umask; the calls that change credentials;
 * SysV IPC but shmdt, whose objects the supervisor makes and checks).
 */
bool rules_always_notified(int nr);
/* The calls among them that change the caller's credentials (the set*id
 * family, setgroups, capset): --user keeps each task's and must see every
 * change. */
bool rules_changes_creds(int nr);
/*
 * The name of an ioctl command that changes the attributes of the file an
 * fd names (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION and
 * their 32-bit forms, FS_IOC_ENABLE_VERITY, FS_IOC_SET_ENCRYPTION_POLICY;
 * on the low 32 bits of cmd, as the kernel reads it),
 * NULL for any other.  The filter notifies them when the policy mediates
 * fchmod, and the supervisor decides each as an fchmod of that file.
 */
const char *rules_fileattr_cmd(uint64_t cmd);

/*
 * Network uses no addr pattern can describe, which the filter sends to the
 * supervisor to be decided by the network rules.  rules_socket_unnamed:
 * true for a socket() of a family other than AF_UNIX, AF_NETLINK,
 * AF_INET and AF_INET6, or an inet/inet6 socket other than a stream,
 * datagram or seqpacket one (raw, packet).  rules_route_sockopt: the name
 * of a socket option that changes where packets go (IP_OPTIONS,
 * IPV6_RTHDR, SO_BINDTODEVICE, ...), NULL for any other.  Both read the
 * low 32 bits of their arguments, as the kernel does.
 */
bool rules_socket_unnamed(uint64_t domain, uint64_t type);
const char *rules_route_sockopt(uint64_t level, uint64_t opt);
/* The calls that may move the caller's root (and with it its cwd):
 * chroot, pivot_root, setns, unshare.  Every filter notifies each of them
 * that the policy may allow: the supervisor keeps each task's root and
 * cwd between its calls and must see every move. */
bool rules_moves_root(int nr);

/*
 * Calls that do a mediated call's work without making it: io_uring
 * (setup, enter, register) opens, connects and writes by its own
 * operations; the mount family makes one path show another's file;
 * open_by_handle_at opens a file by handle, name_to_handle_at looks one
 * up.  Under a policy with any path, address or exe rule they are refused
 * (EPERM, or the policy's own deny or kill) and recorded, unless the
 * policy opts in with [policy] unmediated = FAMILY, ... (io_uring, mount,
 * handles); an include's opt-in does not count.  Pure.  ("Any path,
 * address or exe rule": see rules_has_object_rules().)
 */
bool rules_unmediated_refused(const struct rules_set *rs, int nr);
/* The family of nr ("io_uring", "mount", "handles"), NULL for none. */
const char *rules_unmediated_family(int nr);
/* The families this policy opts into, as policy text ("io_uring, mount"),
 * written like snprintf; 0 when none. */
size_t rules_unmediated_text(const struct rules_set *rs, char *buf,
			     size_t len);
/* True when the policy has a path, address or exe rule, or a rule that
 * names a call mediated by its path, program or address (an audit-only
 * policy that records @file, say): the guard of
 * rules_unmediated_refused() then holds, since what those calls do would
 * be neither decided nor recorded. */
bool rules_has_object_rules(const struct rules_set *rs);

/*
 * True when no call of syscall nr can be allowed under this policy, with
 * any arguments: every rule that may decide it denies or kills, and so
 * does the default when no unconditional rule stops the search.
 */
bool rules_never_allows(const struct rules_set *rs, int nr);

/*
 * Decide one checked call.  Pure: a function of the set and the copied
 * event.  Rules are tried in file order; a rule matches when the syscall is
 * in its set, every condition it has holds (path glob, access class, addr,
 * exe, scalar args) and none it cannot evaluate on this event is present.
 * The first match decides; otherwise the [policy] default.
 */
void rules_match(const struct rules_set *rs, const struct rules_event *ev,
		 struct rules_verdict *out);

/*
 * A call that rule `by` rewrote (its name, a pointer into rs: the
 * verdict's rule), decided again as it now is: by every rule but that
 * one, as rules_match.  Another rewrite rule that matches it denies it
 * (EACCES, that rule's name): a call is rewritten at most once.
 */
void rules_match_rewritten(const struct rules_set *rs,
			   const struct rules_event *ev, const char *by,
			   struct rules_verdict *out);

/*
 * action = rewrite.  A rewritten call is decided again by the rules as
 * it now is (rules_match_rewritten()).
 *
 * rules_rewrite_path: the canonical path a redirect sends path to: the
 * literal part of the rule's matching glob ("/tmp" of "/tmp/" "**", or a
 * whole literal path) replaced by the rule's redirect.  0 and out set;
 * -ENOENT when the rule has no path redirect or no glob of it matches
 * path; -ENAMETOOLONG when the result does not fit in len.
 */
int rules_rewrite_path(const struct rules_verdict *v, const char *path,
		       char *out, size_t len);
/* The redirect text of a rewrite verdict (borrowed from the set: the
 * start of every path rules_rewrite_path() makes), or NULL. */
const char *rules_rewrite_redirect(const struct rules_verdict *v);
/* redirect_if = exists: the rule redirects a path only when its
 * redirected path exists; the caller checks that and else decides the
 * path by the other rules (rules_match_rewritten with the rule's name). */
bool rules_rewrite_if_exists(const struct rules_verdict *v);
/*
 * rules_rewrite_addr: the address a connect or send to sa goes to
 * instead: the redirect's host, and its port (or sa's port when the
 * redirect names none).  An IPv4 redirect of an IPv6 address is its
 * IPv4-mapped form.  0; -ENOENT when the rule has no address redirect;
 * -EAFNOSUPPORT when sa's family cannot reach the redirect (IPv6 for an
 * AF_INET socket, unix sockets).
 */
int rules_rewrite_addr(const struct rules_verdict *v,
		       const struct sockaddr *sa, socklen_t len,
		       struct sockaddr_storage *out, socklen_t *out_len);
/* rules_rewrite_args: apply the rule's argN_set, argN_clear and argN_value
 * to args in place.  True when an argument changed. */
bool rules_rewrite_args(const struct rules_verdict *v, uint64_t args[6]);
/* The path redirect of rule i when it redirects a "PREFIX/" "**" glob (a
 * directory the supervisor creates at start-up), else NULL. */
const char *rules_rule_redirect_dir(const struct rules_set *rs, size_t i);

/* Syscall table lookups; NULL when unknown (a number without a row: the
 * supervisor refuses it with ENOSYS). */
const struct rules_syscall_info *rules_syscall_by_nr(int nr);
/* The highest number with a row. */
int rules_syscall_max_nr(void);
/* "kernel", "flags", "supervisor" or "refused". */
const char *rules_decide_name(enum rules_decide d);
const struct rules_syscall_info *rules_syscall_by_name(const char *name);
/* Name of a syscall number ("syscall_NNN" style names are not returned:
 * NULL when libseccomp does not know it). */
const char *rules_syscall_name(int nr);

/* errno <-> name ("EACCES").  rules_errno_name returns NULL if unknown. */
const char *rules_errno_name(int err);
int rules_errno_by_name(const char *name); /* -1 when unknown */

/* Human names. */
const char *rules_action_name(enum rules_action a);
const char *rules_access_name(unsigned one_access_bit);

/* Pure matchers, exposed for the supervisor's /proc checks and tests.
 * Globs: '*' and '?' never match '/'; "**" as a whole component matches
 * any number of components including none: "/a/" "**" matches /a, /a/x
 * and /a/x/y, "**" "/.env" matches /.env and /x/y/.env.  Bytes are compared
 * as they are; a pattern longer than 1024 bytes matches nothing. */
bool rules_glob_match(const char *pattern, const char *path);

/* The length of the prefix that names a file without a name, as the
 * supervisor calls it ("memfd:", "deleted:", and for what the fd calls
 * name: "pipe:", "socket:", "anon_inode:"), 0 for any other path.  A path
 * glob may start with one instead of '/'. */
size_t rules_nameless_prefix(const char *path);

/* Additions (rules engineer). */

/* [limits] of the whole process tree.  Units: bytes (MEMORY, FILE_SIZE),
 * milliseconds (CPU, WALL), counts (PROCESSES, OPEN_FILES). */
enum rules_limit {
	RULES_LIMIT_PROCESSES = 0,
	RULES_LIMIT_MEMORY,
	RULES_LIMIT_CPU,
	RULES_LIMIT_WALL,
	RULES_LIMIT_FILE_SIZE,
	RULES_LIMIT_OPEN_FILES,
	RULES_LIMIT_COUNT
};

/*
 * The command's environment under the policy's [env] section (a pure
 * function: it reads no environment of its own).  A variable of envp
 * whose name matches a drop glob and no keep glob is left out (names
 * compared without regard to case); then each set = NAME=VALUE replaces
 * the variables named NAME exactly, or is added.  A policy without [env]
 * (nor an include with one) changes nothing.
 * envp (NULL-terminated) is borrowed.  On success *env_out gets a new
 * NULL-terminated array of new strings, and *dropped_out (when not NULL)
 * a new NULL-terminated array of the names left out, each once, in the
 * order of envp: never a value.  Both go back through rules_env_free().
 * Returns 0, or -ENOMEM (the out-parameters untouched).
 */
int rules_env_apply(const struct rules_set *rs, char *const *envp,
		    char ***env_out, char ***dropped_out);
/* Frees a list made by rules_env_apply() and its strings; NULL is fine. */
void rules_env_free(char **list);

/* Sets *out and returns 0 when the policy sets the limit; -ENOENT when it
 * does not, -EINVAL for an unknown limit. */
int rules_limit(const struct rules_set *rs, enum rules_limit which,
		uint64_t *out);
/* Key name of a limit ("open_files"); NULL if unknown. */
const char *rules_limit_name(enum rules_limit which);

/* [policy] default and errno (positive; the errno of denies without one). */
enum rules_action rules_default_action(const struct rules_set *rs, int *err);

/* The rules in file order, for `sysgate check`: count and names
 * (borrowed from the set; NULL when i is out of range). */
size_t rules_rule_count(const struct rules_set *rs);
const char *rules_rule_name(const struct rules_set *rs, size_t i);
/*
 * The warnings of loading: mistakes that leave a valid policy (a '[' in a
 * glob, which is no class; "$HOME" inside a path, which is a literal
 * name; a policy without rules that refuses everything), each as
 * "FILE:LINE: message" or "FILE: message", in file order, includes' after
 * the including file's.  Borrowed; NULL when i is out of range.
 */
const char *rules_warning(const struct rules_set *rs, size_t i);

/* True when a rule of the set has stack = yes (the supervisor loads its
 * unwinder only then). */
bool rules_wants_stacks(const struct rules_set *rs);

/*
 * The guard filter, independent of any policy, which the child loads FIRST
 * and without a listener (unless rules_filter_has_guards()): x86_64 only
 * (other arches and x32 numbers kill the process), clone3 -> ERRNO(ENOSYS)
 * (its flags live in memory a filter cannot read), clone with
 * CLONE_UNTRACED -> ERRNO(EPERM), the *xattrat calls -> ERRNO(ENOSYS),
 * ioctl TIOCSTI, TIOCLINUX, FIFREEZE and FITHAW -> ERRNO(EPERM).  ERRNO
 * outranks USER_NOTIF between stacked filters, so the guards hold
 * whatever the policy filter says.  Fills *prog with a malloc'ed array (free() it); returns 0,
 * -ENOMEM or -EINVAL.  Does not load anything.
 */
int rules_build_guard_filter(struct sock_fprog *prog);

/*
 * What a seccomp filter program returns for the call d (SECCOMP_RET_*
 * with its data), run as the kernel runs it; -1 for an instruction it
 * does not know or a jump out of the program.  rules_filter_stacked: two
 * filters loaded one after the other, guard first (may be NULL): the
 * policy's answer unless the guard's is strictly stronger, as
 * seccomp_run_filters() decides.  Pure.
 */
struct seccomp_data;
int64_t rules_filter_run(const struct sock_fprog *prog,
			 const struct seccomp_data *d);
int64_t rules_filter_stacked(const struct sock_fprog *guard,
			     const struct sock_fprog *policy,
			     const struct seccomp_data *d);

/* ---- Explaining decisions (rules/explain.c; sysgate check --explain) ---- */

/* Why a rule did or did not decide an event: the first condition of the
 * rule that failed, checked in the order rules_match checks them. */
enum rules_why {
	RULES_WHY_MATCH = 0,	/* every condition holds: the rule decides */
	RULES_WHY_SYSCALL,	/* the rule does not name the syscall */
	RULES_WHY_PATH,		/* no path glob matches (or the event has no path) */
	RULES_WHY_ACCESS,	/* the access class is not in the rule's list */
	RULES_WHY_ADDR,		/* no addr matches (or the event has none) */
	RULES_WHY_EXE,		/* no exe glob matches (or the exe is unknown) */
	RULES_WHY_ARG,		/* a scalar condition (argN) is false */
};

/* One rule tried by rules_explain().  Strings borrowed from the set. */
struct rules_explain_step {
	size_t index;		/* the rule's position, file order */
	const char *rule;	/* its name */
	unsigned line;		/* line of its [rule] header, in the file
				 * rules_rule_file() names */
	enum rules_why why;
	unsigned arg;		/* RULES_WHY_ARG: the argument number (0..5) */
};

typedef void (*rules_explain_fn)(const struct rules_explain_step *step,
				 void *ctx);

/*
 * rules_match(), told step by step: calls fn (when not NULL) for each rule
 * in file order up to and including the one that decides (why ==
 * RULES_WHY_MATCH), or for every rule when the default decides, then fills
 * *out exactly as rules_match() does.  Pure, apart from what fn does.
 */
void rules_explain(const struct rules_set *rs, const struct rules_event *ev,
		   rules_explain_fn fn, void *ctx, struct rules_verdict *out);

/*
 * The condition of rule i named by why, as policy text with variables
 * expanded: the path globs ("/a/" "**, /b"), the access classes ("read,
 * write"), the addresses ("127.0.0.0/8, [::1]:80"), the exe globs, or for
 * RULES_WHY_ARG the condition on argument arg ("arg2 & 0x40 == 0x40").
 * Written into buf like snprintf (always NUL-terminated when len > 0);
 * returns the length it needed, 0 when the rule has no such condition.
 */
size_t rules_rule_condition(const struct rules_set *rs, size_t i,
			    enum rules_why why, unsigned arg, char *buf,
			    size_t len);

/* Line of rule i's [rule] header (0 when i is out of range), in the file
 * rules_rule_file() names. */
unsigned rules_rule_line(const struct rules_set *rs, size_t i);
/* The policy rule i was read from, named as rules_source() names one: the
 * policy's own or the include the rule comes from (borrowed; NULL when i
 * is out of range). */
const char *rules_rule_file(const struct rules_set *rs, size_t i);

/* Path glob k of rule i after variable expansion (borrowed), NULL past the
 * last one. */
const char *rules_rule_path(const struct rules_set *rs, size_t i, size_t k);

/* True when a glob has no wildcard ('*' or '?'): it names one path. */
bool rules_glob_is_literal(const char *glob);

/*
 * Whether rule i can never match because one earlier rule always decides
 * every call it could match first: the earlier rule names all of rule i's
 * syscalls and has no condition, or only an access list that covers rule
 * i's (which then must have one).  Conservative: false when in doubt (two
 * earlier rules covering it together are not seen).  Sets *by (may be
 * NULL) to the earlier rule's index when true: the first of rule i's own
 * file if one is, else the first (of another file: one that includes
 * rule i's, or an include listed before it).
 */
bool rules_shadowed(const struct rules_set *rs, size_t i, size_t *by);

#endif
