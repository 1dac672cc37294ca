/* SPDX-License-Identifier: MIT */
/*
 * rules/internal.h: the parsed policy and the helpers shared by the files of
 * rules/.  Not installed, not for other modules: they use rules.h.
 */
#ifndef SYSGATE_RULES_INTERNAL_H
#define SYSGATE_RULES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/rules.h"

/* Syscall numbers 0..RULES_NR_MAX-1 can be named by a policy. */
#define RULES_NR_MAX 512
#define RULES_NR_WORDS (RULES_NR_MAX / 64)

/*
 * rules/syscall-names.c, generated at build time by rules/gen-syscalls from
 * libseccomp: the name of each number (NULL: none), and the named numbers
 * sorted by (name, number) for a binary search.
 */
extern const char *const rules_gen_names[RULES_NR_MAX];
extern const short rules_gen_by_name[];
extern const unsigned rules_gen_n_names;

/* Limits on what a policy may contain; each one is checked with a message. */
#define RULES_MAX_FILE (1024 * 1024)	/* bytes of policy text */
#define RULES_LINE_MAX 199		/* a line this long is refused (inih) */
#define RULES_MAX_RULES 1024
#define RULES_MAX_ITEMS 512		/* paths, addrs or exes in one rule */
#define RULES_NAME_MAX 40		/* bytes of a rule name */
#define RULES_GLOB_MAX 1024		/* bytes of a glob after expansion */
#define RULES_NARGS 6

/* Longest name in any suggestion table (syscalls, errno names, keys). */
#define RULES_WORD_MAX 64

/* Scalar argument comparisons (see GRAMMAR.txt, "Argument conditions"). */
enum rules_op {
	RULES_OP_EQ = 0,
	RULES_OP_NE,
	RULES_OP_LT,
	RULES_OP_LE,
	RULES_OP_GT,
	RULES_OP_GE,
	RULES_OP_ANY,	   /* (arg & mask) != 0 */
	RULES_OP_MASKED_EQ /* (arg & mask) == value */
};

struct rules_argcond {
	unsigned arg;	/* 0..5 */
	enum rules_op op;
	uint64_t mask;	/* RULES_OP_ANY, RULES_OP_MASKED_EQ */
	uint64_t value;
};

/* How wide an argument of a syscall is, as the kernel reads it. */
enum rules_width {
	RULES_WIDTH_UNKNOWN = 0, /* both readings are tried, fail closed */
	RULES_WIDTH_32,		 /* int-sized: only the low 32 bits count */
	RULES_WIDTH_64,		 /* pointer, size, long: all 64 bits */
};

enum rules_addr_type {
	RULES_ADDR_INET4 = 0,
	RULES_ADDR_INET6,
	RULES_ADDR_UNIX,	  /* path socket; glob on sun_path */
	RULES_ADDR_UNIX_ABSTRACT, /* abstract name, without the leading NUL */
};

struct rules_addr {
	enum rules_addr_type type;
	uint8_t ip[16];	/* network byte order; INET4 uses ip[0..3] */
	unsigned prefix; /* bits */
	uint16_t port_lo, port_hi; /* host byte order; 0..65535 = any */
	char *glob;	/* UNIX, UNIX_ABSTRACT */
};

/* action = rewrite: one change of a scalar argument. */
enum rules_set_how {
	RULES_SET_BITS = 0,	/* argN_set: arg |= value */
	RULES_CLEAR_BITS,	/* argN_clear: arg &= ~value */
	RULES_REPLACE,		/* argN_value: arg = value */
};

struct rules_argset {
	unsigned arg;
	enum rules_set_how how;
	uint64_t value;
};

/* What a rewrite rule changes (rules_verdict.rewrite points here). */
struct rules_rewrite {
	char *redirect;		/* path redirect, expanded; NULL: none */
	bool if_exists;		/* redirect_if = exists: only a path whose
				 * redirected path exists is redirected */
	bool has_addr;		/* address redirect (connect, send*) */
	struct rules_addr addr; /* one host; ports 0-65535: keep the port */
	struct rules_argset sets[RULES_NARGS * 3];
	size_t n_sets;
};

/*
 * A glob compiled once when the policy is loaded (glob.c), so that matching
 * a path allocates nothing and parses nothing.  The common shapes are
 * recognised and matched with a compare: a literal path, a literal
 * directory and everything below it ("LIT/" "**"), a literal name in any
 * directory ("**" "/LIT"); any other glob keeps its NFA.  Matches exactly
 * what rules_glob_match() matches on the pattern (tests/unit/test-rules.c
 * compares the two).
 */
enum rules_glob_form {
	RULES_GLOB_NONE = 0,	/* a pattern that matches nothing (too long) */
	RULES_GLOB_EXACT,	/* s == lit */
	RULES_GLOB_TREE,	/* s == lit, or s starts with lit + "/" */
	RULES_GLOB_SUFFIX,	/* s == lit, or s ends with "/" + lit */
	RULES_GLOB_NFA,		/* the states, after n_lead literal bytes */
};

struct glob_state;

struct rules_glob {
	enum rules_glob_form form;
	const char *lit;	/* borrowed from the pattern string */
	size_t lit_len;
	struct glob_state *states;	/* RULES_GLOB_NFA; owned */
	size_t n_states;
	size_t n_lead;		/* leading states that are literal bytes */
	/* RULES_GLOB_NFA: bytes every match holds, tried before the NFA.
	 * need: the longest other run of literal states that no '**' can
	 * skip (found anywhere after the leading bytes); tail: the literal
	 * states just before the end (the last bytes of every match).  Both
	 * point into bytes, owned. */
	char *bytes;
	const char *need, *tail;
	size_t need_len, tail_len;
};

struct rules_rule {
	char *name;
	char *file;	/* the policy it was read from (an include's own) */
	unsigned line;
	uint64_t nrs[RULES_NR_WORDS];
	char **paths;
	size_t n_paths;
	unsigned access; /* 0: any */
	struct rules_addr *addrs;
	size_t n_addrs;
	char **exes;
	size_t n_exes;
	/* paths[i] and exes[i] compiled (rules_compile_globs); NULL until
	 * then, when the matcher falls back to rules_glob_match(). */
	struct rules_glob *path_globs;
	struct rules_glob *exe_globs;
	struct rules_argcond conds[RULES_NARGS];
	size_t n_conds;
	enum rules_action action;
	int err;	/* positive errno for RULES_DENY */
	bool stack;
	bool audit;
	char *ask;		/* action = ask: the hook, NULL: the terminal */
	uint64_t ask_timeout_ms;
	bool remember;
	struct rules_rewrite rw;	/* action = rewrite */
};

/*
 * [env]: what becomes of the command's environment (rules_env_apply()).
 * keep and drop hold name globs ('*', '?'), compared without regard to
 * case; set holds "NAME=VALUE" strings, NAME compared exactly.  An
 * include's lists are appended to the including file's (merge_include).
 */
struct rules_env {
	char **keep;
	size_t n_keep;
	char **drop;
	size_t n_drop;
	char **set;
	unsigned *set_line;	/* the line of each set, in its own file */
	size_t n_set;
};

struct rules_set {
	char *source;
	bool builtin;	/* loaded by rules_load_default() */
	enum rules_action def;
	int def_err;
	enum rules_audit_level audit;
	struct rules_rule *rules;
	size_t n_rules;
	uint64_t limits[RULES_LIMIT_COUNT];
	bool limit_set[RULES_LIMIT_COUNT];
	bool output_set;	/* [policy] output: given (here or included) */
	uint64_t output_cap;	/* its bytes, 0 for off */
	unsigned unmediated;	/* [policy] unmediated: RULES_UNMEDIATED_*
				 * bits this file opts into */
	bool permissive;	/* [policy] mode = permissive of this file
				 * (not an include's), or the command line */
	char **files;		/* the files read, canonical: the policy's
				 * own (when a file), then its includes' */
	size_t n_files;
	struct rules_env env;
	char **warnings;	/* "FILE:LINE: message": rules_warning() */
	size_t n_warnings;
};

static inline bool rules_nr_has(const uint64_t *set, int nr)
{
	if (nr < 0 || nr >= RULES_NR_MAX)
		return false;
	return (set[nr / 64] >> (nr % 64)) & 1;
}

static inline void rules_nr_add(uint64_t *set, int nr)
{
	if (nr >= 0 && nr < RULES_NR_MAX)
		set[nr / 64] |= UINT64_C(1) << (nr % 64);
}

/* env.c */
/* Does glob ('*' and '?', no classes) match the n bytes of name, case
 * ignored? */
bool rules_env_glob_match(const char *glob, const char *name, size_t n);
/* Frees what env holds and zeroes it. */
void rules_env_release(struct rules_env *env);

/* glob.c */
bool rules_glob_match_n(const char *pattern, const char *s, size_t len);
/* 0, or -EINVAL with a static reason in *why. */
int rules_glob_check(const char *pattern, const char **why);
/* Compile pattern (borrowed: it must outlive g) into g.  0 or -ENOMEM. */
int rules_glob_compile(const char *pattern, struct rules_glob *g);
void rules_glob_release(struct rules_glob *g);
/* The same answer as rules_glob_match_n(pattern, s, len). */
bool rules_glob_match_compiled(const struct rules_glob *g, const char *s,
			       size_t len);
/* parse.c: compile every path and exe glob of the set.  0 or -ENOMEM. */
int rules_compile_globs(struct rules_set *rs);

/* addr.c: parse one address item; -EINVAL with a static reason in *why
 * (or a suggestion-free message), -ENOMEM. */
int rules_addr_parse(const char *text, struct rules_addr *out,
		     const char **why);
/* connect_semantics: 0.0.0.0 and :: mean the local host (connect), not
 * "any interface" (bind). */
bool rules_addr_match(const struct rules_addr *a, const struct sockaddr *sa,
		      socklen_t len, bool connect_semantics);
/* The same for an event (its unix_path, when set, for unix: globs). */
bool rules_addr_match_ev(const struct rules_addr *a,
			 const struct rules_event *ev);
void rules_addr_release(struct rules_addr *a);

/* rewrite.c: may glob be redirected (an absolute literal path, or a
 * literal prefix followed by "/" "**")? */
bool rules_redirect_glob_ok(const char *glob);

/* filter.c: the bit of a family name of [policy] unmediated, 0 when the
 * name is none. */
unsigned rules_unmediated_by_name(const char *name);
/* The names, NULL-terminated, for suggestions. */
extern const char *const rules_unmediated_names[];

/* filter.c: the class of a named syscall's row, from the lists of calls
 * the filter treats apart (syscalls.c builds the table with it). */
enum rules_decide rules_filter_class(int nr, enum rules_kind kind);

/* syscalls.c */
int rules_group_lookup(const char *name, uint64_t *set); /* 0 / -ENOENT */
const char *rules_group_suggest(const char *name);
const char *rules_syscall_suggest(const char *name);
const char *rules_errno_suggest(const char *name);
enum rules_width rules_arg_width(int nr, unsigned arg);

/* consts.c: parse "EXPR" (constants and numbers joined by '|').
 * Returns 0, or -EINVAL with a message written to why (why_len bytes). */
int rules_expr_parse(const char *text, uint64_t *out, char *why,
		     size_t why_len);
/* Parse an argN value: "EXPR", "OP EXPR", "& MASK", "& MASK == EXPR". */
int rules_argcond_parse(const char *text, unsigned arg,
			struct rules_argcond *out, char *why, size_t why_len);

/* suggest.c: Damerau-Levenshtein suggestion from a NULL-terminated list
 * (rules_suggest_from) or a table walked by the caller. */
const char *rules_suggest_from(const char *word, const char *const *list);
size_t rules_edit_distance(const char *a, const char *b);
/* Keep the best candidate so far: call for each candidate. */
void rules_suggest_consider(const char *word, const char *cand,
			    const char **best, size_t *best_dist);
/* Is the best distance close enough to suggest? */
const char *rules_suggest_result(const char *word, const char *best,
				 size_t best_dist);

/* match.c: does a scalar condition hold for syscall nr and a rule action? */
bool rules_cond_holds(const struct rules_argcond *c, int nr,
		      const uint64_t *args, enum rules_action action);
bool rules_rule_is_scalar(const struct rules_rule *r);
/* The one matcher: rules_match() leaving out the rule named skip (a
 * pointer into the set, or NULL), calling fn (when not NULL) for each
 * rule tried, with the first condition it failed (rules_explain()). */
void rules_match_walk(const struct rules_set *rs,
		      const struct rules_event *ev, const char *skip,
		      rules_explain_fn fn, void *ctx,
		      struct rules_verdict *out);
/* Does the audit level record a decision with this action (and rule flag,
 * true for the default)? */
bool rules_level_records(enum rules_audit_level level, enum rules_action a,
			 bool rule_flag);

#endif
