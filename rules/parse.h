/* SPDX-License-Identifier: MIT */
/*
 * rules/parse.h: what the files of the policy parser share, and nothing
 * else includes.  The parser, by concern:
 *
 *	parse-ini.c       messages (FILE:LINE), the strict line scanner and
 *	                  its cross-check against inih
 *	parse-values.c    values: actions, errnos, lists, ${VARIABLES}, path
 *	                  globs
 *	parse-sections.c  sections and their keys: [policy], [limits], [env],
 *	                  the order of a file's entries
 *	parse-rule.c      [rule NAME] keys and the checks of a complete rule
 *	parse.c           reading files, includes, the public entry points
 */
#ifndef SYSGATE_RULES_PARSE_H
#define SYSGATE_RULES_PARSE_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rules/internal.h"

#define DEFAULT_SOURCE "<default>"
#define SECTION_MAX 49		/* inih copies section names into 50 bytes */
#define KEY_MAX 32		/* bytes of a key name */
#define WHY_MAX 256
#define INCLUDE_DEPTH_MAX 8	/* nested includes below the top policy */
#define INCLUDE_MAX 16		/* include keys in one file */
/* Included files loaded for one policy, all levels together: the two limits
 * above alone allow 16^8 loads of a few tiny files that include each other
 * 16 times over (hours of work at start-up). */
#define INCLUDE_TOTAL_MAX 64

/* One [policy] include key, its value borrowed from the scan buffer. */
struct include_ref {
	const char *value;
	unsigned line;
};

/* The files being loaded, innermost first, to refuse include cycles. */
struct include_chain {
	const char *id; /* canonical path, or the name of the built-in */
	const struct include_chain *up;
};

struct pctx {
	const char *name;
	char *err;
	size_t err_len;
	const struct rules_vars *vars;
	struct rules_set *rs;
	unsigned depth;			/* 0: the policy given to sysgate */
	unsigned *n_loaded;		/* includes loaded so far, all levels */
	const struct include_chain *chain;
	struct include_ref incl[INCLUDE_MAX];
	size_t n_incl;
	unsigned policy_set;		/* POLICY_* bits set here or inherited */
};

enum entry_type { ENT_SECTION, ENT_KEY };

struct entry {
	enum entry_type type;
	unsigned line;
	const char *section; /* the section it belongs to (ENT_KEY) */
	const char *key;
	const char *value;
};

struct scan {
	char *buf;
	struct entry *ents;
	size_t n, cap;
};

enum section_kind { SEC_NONE, SEC_POLICY, SEC_LIMITS, SEC_RULE, SEC_ENV };

enum rule_key {
	RK_SYSCALLS, RK_PATH, RK_ACCESS, RK_ADDR, RK_EXE,
	RK_ARG0, RK_ARG1, RK_ARG2, RK_ARG3, RK_ARG4, RK_ARG5,
	RK_ACTION, RK_ERRNO, RK_STACK, RK_AUDIT, RK_ASK, RK_ASK_TIMEOUT,
	RK_REMEMBER, RK_REDIRECT, RK_REDIRECT_IF,
	RK_ARG0_SET, RK_ARG1_SET, RK_ARG2_SET, RK_ARG3_SET, RK_ARG4_SET,
	RK_ARG5_SET,
	RK_ARG0_CLEAR, RK_ARG1_CLEAR, RK_ARG2_CLEAR, RK_ARG3_CLEAR,
	RK_ARG4_CLEAR, RK_ARG5_CLEAR,
	RK_ARG0_VALUE, RK_ARG1_VALUE, RK_ARG2_VALUE, RK_ARG3_VALUE,
	RK_ARG4_VALUE, RK_ARG5_VALUE,
	RK_COUNT
};

/* Indexes into policy_keys; the first three are also POLICY_SET bits. */
enum policy_key { PK_DEFAULT, PK_ERRNO, PK_AUDIT, PK_INCLUDE, PK_UNMEDIATED,
		  PK_MODE, PK_OUTPUT, PK_COUNT };
#define POLICY_SET(k) (1u << (k))

struct state {
	enum section_kind sec;
	unsigned sec_line;
	unsigned key_line[RK_COUNT]; /* first line of each key, 0 unseen */
	unsigned policy_line, limits_line;
	unsigned env_line;
	unsigned policy_key_line[PK_COUNT];
	unsigned limit_key_line[RULES_LIMIT_COUNT];
	bool rule_err_set[RULES_MAX_RULES];
};

/* The key tables (parse-sections.c), NULL-terminated, in the order of
 * enum rule_key, enum rules_limit and the RULES_ACC_* bits. */
extern const char *const rules_rule_keys[];
extern const char *const rules_limit_keys[];
extern const char *const rules_access_names[];

static inline bool is_space(char ch)
{
	return isspace((unsigned char)ch) != 0;
}

static inline char *rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && is_space(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The index of k in keys (NULL-terminated), or -1. */
static inline int find_key(const char *const *keys, const char *k)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strcmp(keys[i], k) == 0)
			return i;
	return -1;
}

/* parse-ini.c */
/* "FILE:LINE: message" into c->err; returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int rules_fail(struct pctx *c, unsigned line, const char *fmt, ...);
/* A mistake that leaves a valid policy, kept in the set
 * (rules_warning()).  0 or -ENOMEM. */
__attribute__((format(printf, 3, 4)))
int rules_warn(struct pctx *c, unsigned line, const char *fmt, ...);
/* "unknown WHAT 'word' (did you mean 'x'?)" */
int rules_fail_unknown(struct pctx *c, unsigned line, const char *what,
		       const char *word, const char *sugg);
/* The entries of text, checked line by line; then the same text as inih
 * reads it, which must agree. */
int rules_scan_text(struct pctx *c, const char *text, struct scan *s);
void rules_scan_release(struct scan *s);
int rules_cross_check(struct pctx *c, const char *text,
		      const struct scan *s, unsigned last_line);

/* parse-values.c */
int rules_parse_action(struct pctx *c, unsigned line, const char *v,
		       enum rules_action *out);
int rules_parse_errno(struct pctx *c, unsigned line, const char *v,
		      int *out);
int rules_parse_yesno(struct pctx *c, unsigned line, const char *key,
		      const char *v, bool *out);
/* Split a comma list in place; calls fn for each trimmed item. */
typedef int (*item_fn)(struct pctx *c, unsigned line, char *item,
		       void *arg);
int rules_for_each_item(struct pctx *c, unsigned line, const char *key,
			const char *value, item_fn fn, void *arg);
/* ${VARIABLES} of in expanded into out (expand_alt: bit i of alt picks
 * the spelled form of the i-th variable that has one). */
int rules_expand_alt(struct pctx *c, unsigned line, const char *what,
		     const char *in, char *out, size_t out_len, unsigned alt,
		     unsigned *n_alt);
int rules_expand(struct pctx *c, unsigned line, const char *what,
		 const char *in, char *out, size_t out_len);
/* A path glob: absolute (or "**", or a nameless prefix) and canonical. */
int rules_check_path_glob(struct pctx *c, unsigned line, const char *g);
/* Append a copy of s: 0, -E2BIG past RULES_MAX_ITEMS, -ENOMEM. */
int rules_push_str(char ***list, size_t *n, const char *s);

/* parse-sections.c */
int rules_unknown_key(struct pctx *c, unsigned line, const char *key,
		      const char *section, const char *const *keys);
int rules_parse_limit(struct pctx *c, unsigned line, enum rules_limit which,
		      const char *key, const char *v, uint64_t *out);
/* Read the scanned entries into c->rs; st (zeroed by the caller) keeps
 * what the caller needs afterwards (which rules named their errno). */
int rules_interpret(struct pctx *c, const struct scan *s, struct state *st);

/* parse-rule.c */
int rules_rule_key(struct pctx *c, struct state *st, const struct entry *e);
/* The checks of the rule just read, once its section ends. */
int rules_rule_finish(struct pctx *c, struct state *st);

#endif
