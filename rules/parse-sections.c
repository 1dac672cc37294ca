/* SPDX-License-Identifier: MIT */
/*
 * rules/parse-sections.c: the sections of a policy and their keys:
 * [policy], [limits] and [env]; where each entry of a file goes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/internal.h"
#include "rules/parse.h"

/* ---------------------------------------------------------------------
 * Sections and keys.
 */

const char *const rules_rule_keys[] = {
	"syscalls", "path", "access", "addr", "exe",
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"action", "errno", "stack", "audit", "ask", "ask_timeout", "remember",
	"redirect", "redirect_if",
	"arg0_set", "arg1_set", "arg2_set", "arg3_set", "arg4_set", "arg5_set",
	"arg0_clear", "arg1_clear", "arg2_clear", "arg3_clear", "arg4_clear",
	"arg5_clear",
	"arg0_value", "arg1_value", "arg2_value", "arg3_value", "arg4_value",
	"arg5_value",
	NULL
};

static const char *const policy_keys[] = { "default", "errno", "audit",
					   "include", "unmediated", "mode",
					   "output", NULL };
static const char *const modes[] = { "enforce", "permissive", NULL };
const char *const rules_limit_keys[] = { "processes", "memory", "cpu",
					  "wall", "file_size", "open_files",
					  NULL };
static const char *const audit_levels[] = { "all", "denied", "none", NULL };
const char *const rules_access_names[] = { "read", "write", "create",
					    "delete", "exec", "stat", NULL };

static const char *const env_keys[] = { "keep", "drop", "set", NULL };

/* The section a key of another section belongs in ("[limits]"), or NULL.
 * keys: those of the section it is in, which is not suggested. */
static const char *home_section(const char *key, const char *const *keys)
{
	static const struct {
		const char *const *keys;
		const char *section;
	} homes[] = {
		{ policy_keys, "[policy]" },
		{ rules_limit_keys, "[limits]" },
		{ rules_rule_keys, "a [rule NAME] section" },
		{ env_keys, "[env]" },
	};

	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		if (homes[i].keys != keys && find_key(homes[i].keys, key) >= 0)
			return homes[i].section;
	return NULL;
}

int rules_unknown_key(struct pctx *c, unsigned line, const char *key,
		      const char *section, const char *const *keys)
{
	const char *sugg = rules_suggest_from(key, keys);
	const char *home = home_section(key, keys);

	if (home)
		return rules_fail(c, line, "key '%s' belongs in %s, not in [%s]",
				  key, home, section);
	if (sugg)
		return rules_fail(c, line,
				  "unknown key '%s' in [%s] (did you mean '%s'?)", key,
				  section, sugg);
	return rules_fail(c, line, "unknown key '%s' in [%s]", key, section);
}

/* [policy] unmediated = FAMILY, ...: the families of
 * rules_unmediated_refused() the policy lets through. */
static int parse_unmediated(struct pctx *c, unsigned line, const char *v,
			    unsigned *out)
{
	char word[RULES_WORD_MAX];
	unsigned bits = 0;

	while (*v) {
		size_t n;

		v += strspn(v, " \t,");
		n = strcspn(v, " \t,");
		if (n == 0)
			break;
		if (n >= sizeof(word))
			return rules_fail(c, line, "unmediated: '%.*s' is too long",
					  (int)n, v);
		memcpy(word, v, n);
		word[n] = '\0';
		if (!rules_unmediated_by_name(word))
			return rules_fail_unknown(c, line, "unmediated family", word,
						  rules_suggest_from(word,
							 rules_unmediated_names));
		bits |= rules_unmediated_by_name(word);
		v += n;
	}
	if (!bits)
		return rules_fail(c, line,
				  "unmediated: name one or more of io_uring, mount, handles");
	*out = bits;
	return 0;
}

static int policy_key(struct pctx *c, struct state *st,
		      const struct entry *e)
{
	struct rules_set *rs = c->rs;
	int k = find_key(policy_keys, e->key);

	if (k < 0)
		return rules_unknown_key(c, e->line, e->key, "policy", policy_keys);
	if (k == PK_INCLUDE) {
		/* Loaded after this file is read (load_text). */
		if (c->n_incl >= INCLUDE_MAX)
			return rules_fail(c, e->line,
					  "too many includes (the limit is %d)",
					  INCLUDE_MAX);
		c->incl[c->n_incl++] =
			(struct include_ref){ .value = e->value,
					      .line = e->line };
		return 0;
	}
	if (st->policy_key_line[k])
		return rules_fail(c, e->line,
				  "duplicate key '%s' in [policy] (first at line %u)",
				  e->key, st->policy_key_line[k]);
	st->policy_key_line[k] = e->line;
	c->policy_set |= POLICY_SET(k);
	switch (k) {
	case PK_DEFAULT: {
		int rc = rules_parse_action(c, e->line, e->value, &rs->def);

		if (rc == 0 && rs->def == RULES_REWRITE)
			return rules_fail(c, e->line,
					  "default = rewrite: the default has nothing to rewrite (use allow, deny, kill or ask; rewrite in a rule)");
		return rc;
	}
	case PK_ERRNO:
		return rules_parse_errno(c, e->line, e->value, &rs->def_err);
	case PK_UNMEDIATED:
		return parse_unmediated(c, e->line, e->value, &rs->unmediated);
	case PK_MODE: {
		int m = find_key(modes, e->value);

		if (m < 0)
			return rules_fail_unknown(c, e->line, "mode", e->value,
						  rules_suggest_from(e->value, modes));
		rs->permissive = m == 1;
		return 0;
	}
	case PK_OUTPUT:
		rs->output_set = true;
		if (strcmp(e->value, "off") == 0) {
			rs->output_cap = 0;
			return 0;
		}
		/* A size, as [limits] memory (more than 0). */
		return rules_parse_limit(c, e->line, RULES_LIMIT_MEMORY, "output",
					 e->value, &rs->output_cap);
	default: {
		int lvl = find_key(audit_levels, e->value);

		if (lvl < 0)
			return rules_fail_unknown(c, e->line, "audit level", e->value,
						  rules_suggest_from(e->value,
							 audit_levels));
		rs->audit = (enum rules_audit_level)lvl;
		return 0;
	}
	}
}

/* Digits only, no sign, no overflow. */
static int parse_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

int rules_parse_limit(struct pctx *c, unsigned line, enum rules_limit which,
		      const char *key, const char *v, uint64_t *out)
{
	size_t n = strspn(v, "0123456789");
	const char *unit = v + n;
	uint64_t num, mul = 1;
	int rc = parse_digits(v, n, &num);

	switch (which) {
	case RULES_LIMIT_PROCESSES:
	case RULES_LIMIT_OPEN_FILES:
		if (*unit)
			rc = -EINVAL;
		break;
	case RULES_LIMIT_MEMORY:
	case RULES_LIMIT_FILE_SIZE:
		if (*unit == '\0' || strcmp(unit, "B") == 0)
			mul = 1;
		else if (strchr("KkMmGgTt", unit[0]) &&
			 (unit[1] == '\0' || strcmp(unit + 1, "B") == 0 ||
			  strcmp(unit + 1, "iB") == 0))
			mul = UINT64_C(1)
			      << (10 * (strchr("KMGT", toupper(unit[0])) -
					"KMGT" + 1));
		else
			rc = -EINVAL;
		break;
	case RULES_LIMIT_CPU:
	case RULES_LIMIT_WALL:
		if (*unit == '\0' || strcmp(unit, "s") == 0)
			mul = 1000;
		else if (strcmp(unit, "ms") == 0)
			mul = 1;
		else if (strcmp(unit, "m") == 0 || strcmp(unit, "min") == 0)
			mul = 60 * 1000;
		else if (strcmp(unit, "h") == 0)
			mul = 3600 * 1000;
		else
			rc = -EINVAL;
		break;
	case RULES_LIMIT_COUNT:
		rc = -EINVAL;
		break;
	}
	if (rc == -ERANGE ||
	    (rc == 0 && __builtin_mul_overflow(num, mul, &num)))
		return rules_fail(c, line, "value '%s' of '%s' is too large", v,
				  key);
	if (rc < 0) {
		const char *hint = " (a number)";

		if (which == RULES_LIMIT_MEMORY ||
		    which == RULES_LIMIT_FILE_SIZE)
			hint = " (a number with an optional K, M, G or T)";
		else if (which == RULES_LIMIT_CPU || which == RULES_LIMIT_WALL)
			hint = " (a number with an optional ms, s, m or h)";
		return rules_fail(c, line, "invalid value '%s' for '%s'%s", v,
				  key, hint);
	}
	if (num == 0)
		return rules_fail(c, line, "'%s' must be more than 0", key);
	if ((which == RULES_LIMIT_PROCESSES ||
	     which == RULES_LIMIT_OPEN_FILES) && num > INT32_MAX)
		return rules_fail(c, line, "value '%s' of '%s' is too large", v,
				  key);
	*out = num;
	return 0;
}

static int limits_key(struct pctx *c, struct state *st,
		      const struct entry *e)
{
	struct rules_set *rs = c->rs;
	int k = find_key(rules_limit_keys, e->key);

	if (k < 0)
		return rules_unknown_key(c, e->line, e->key, "limits", rules_limit_keys);
	if (st->limit_key_line[k])
		return rules_fail(c, e->line,
				  "duplicate key '%s' in [limits] (first at line %u)",
				  e->key, st->limit_key_line[k]);
	st->limit_key_line[k] = e->line;
	rs->limit_set[k] = true;
	return rules_parse_limit(c, e->line, (enum rules_limit)k, e->key, e->value,
				 &rs->limits[k]);
}

/* ---------------------------------------------------------------------
 * [env]: the command's environment (rules/env.c applies it).
 *   keep = NAME|GLOB, ...   kept even when a drop glob matches
 *   drop = NAME|GLOB, ...   left out of the command's environment
 *   set = NAME=VALUE        replaces or adds NAME (repeatable)
 */

/* TMPDIR and SYSGATE_RUN are the run's: sysgate sets them after [env]. */
static const char *const env_sysgate_vars[] = { "TMPDIR", "SYSGATE_RUN",
						NULL };

/* A name (globs: also '*' and '?'): letters, digits, '_', '.', '-'. */
static int check_env_name(struct pctx *c, unsigned line, const char *key,
			  const char *name, bool globs)
{
	const char *p;

	for (p = name; *p; p++) {
		if (isalnum((unsigned char)*p) || strchr("_.-", *p) ||
		    (globs && strchr("*?", *p)))
			continue;
		if (*p == '=' && globs)
			return rules_fail(c, line,
					  "'%s' in '%s' is a name, not NAME=VALUE (to give a variable a value: set = NAME=VALUE)",
					  name, key);
		if (*p == '[' && globs)
			return rules_fail(c, line,
					  "'%s': '[' is no glob in [env] (only '*' and '?')",
					  name);
		return rules_fail(c, line,
				  "invalid variable name%s '%s' in '%s' (letters, digits, '_', '.' and '-'%s)",
				  globs ? " or glob" : "", name, key,
				  globs ? "; globs '*' and '?'" : "");
	}
	if (!globs && isdigit((unsigned char)name[0]))
		return rules_fail(c, line,
				  "invalid variable name '%s' in '%s' (it starts with a digit)",
				  name, key);
	return 0;
}

static int env_push(struct pctx *c, unsigned line, const char *key,
		    char ***list, size_t *n, const char *s)
{
	int rc = rules_push_str(list, n, s);

	if (rc == -E2BIG)
		return rules_fail(c, line,
				  "too many items in '%s' (the limit is %d in [env])",
				  key, RULES_MAX_ITEMS);
	return rc;
}

static int item_env_keep(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_env *env = arg;
	int rc = check_env_name(c, line, "keep", item, true);

	if (rc < 0)
		return rc;
	return env_push(c, line, "keep", &env->keep, &env->n_keep, item);
}

static int item_env_drop(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_env *env = arg;
	int rc = check_env_name(c, line, "drop", item, true);

	if (rc < 0)
		return rc;
	return env_push(c, line, "drop", &env->drop, &env->n_drop, item);
}

/* set = NAME=VALUE; ${VARIABLES} in VALUE are expanded. */
static int env_set(struct pctx *c, unsigned line, const char *value)
{
	struct rules_env *env = &c->rs->env;
	char name[RULES_LINE_MAX], val[RULES_GLOB_MAX + 1];
	char item[RULES_LINE_MAX + RULES_GLOB_MAX + 2];
	size_t n = strcspn(value, "=");
	unsigned *nl;
	int rc;

	if (value[n] != '=' || n == 0)
		return rules_fail(c, line, "set: expected NAME=VALUE, not '%s'",
				  value);
	snprintf(name, sizeof(name), "%.*s", (int)n, value);
	rstrip(name);
	rc = check_env_name(c, line, "set", name, false);
	if (rc < 0)
		return rc;
	if (find_key(env_sysgate_vars, name) >= 0)
		return rules_fail(c, line,
				  "set: %s is sysgate's (it is set for each run, after [env])",
				  name);
	for (size_t i = 0; i < env->n_set; i++)
		if (strncmp(env->set[i], name, strlen(name)) == 0 &&
		    env->set[i][strlen(name)] == '=')
			return rules_fail(c, line,
					  "set: %s is set twice (first at line %u)",
					  name, env->set_line[i]);
	value += n + 1;
	while (is_space(*value))
		value++;
	rc = rules_expand(c, line, "value", value, val, sizeof(val));
	if (rc < 0)
		return rc;
	snprintf(item, sizeof(item), "%s=%s", name, val);
	nl = reallocarray(env->set_line, env->n_set + 1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	env->set_line = nl;
	nl[env->n_set] = line;
	return env_push(c, line, "set", &env->set, &env->n_set, item);
}

static int env_key(struct pctx *c, const struct entry *e)
{
	int k = find_key(env_keys, e->key);

	switch (k) {
	case 0:
		return rules_for_each_item(c, e->line, e->key, e->value,
					   item_env_keep, &c->rs->env);
	case 1:
		return rules_for_each_item(c, e->line, e->key, e->value,
					   item_env_drop, &c->rs->env);
	case 2:
		return env_set(c, e->line, e->value);
	default:
		return rules_unknown_key(c, e->line, e->key, "env", env_keys);
	}
}

static bool valid_rule_name(const char *n)
{
	if (!*n)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '-' && *n != '_' &&
		    *n != '.')
			return false;
	return true;
}

static int section_start(struct pctx *c, struct state *st,
			 const struct entry *e)
{
	struct rules_set *rs = c->rs;
	const char *name = e->section;
	static const char *const sections[] = { "policy", "limits", "rule",
						"env", NULL };

	memset(st->key_line, 0, sizeof(st->key_line));
	st->sec_line = e->line;
	if (strcmp(name, "policy") == 0) {
		if (st->policy_line)
			return rules_fail(c, e->line,
					  "duplicate section [policy] (first at line %u)",
					  st->policy_line);
		st->policy_line = e->line;
		st->sec = SEC_POLICY;
		return 0;
	}
	if (strcmp(name, "limits") == 0) {
		if (st->limits_line)
			return rules_fail(c, e->line,
					  "duplicate section [limits] (first at line %u)",
					  st->limits_line);
		st->limits_line = e->line;
		st->sec = SEC_LIMITS;
		return 0;
	}
	if (strcmp(name, "env") == 0) {
		if (st->env_line)
			return rules_fail(c, e->line,
					  "duplicate section [env] (first at line %u)",
					  st->env_line);
		st->env_line = e->line;
		st->sec = SEC_ENV;
		return 0;
	}
	if (strcmp(name, "rule") == 0 || strncmp(name, "rule ", 5) == 0) {
		const char *rname = name + 4;
		struct rules_rule *nr;
		size_t i;

		if (*rname == '\0')
			return rules_fail(c, e->line,
					  "a rule section needs a name: [rule NAME]");
		rname++;
		if (!valid_rule_name(rname))
			return rules_fail(c, e->line,
					  "invalid rule name '%s' (letters, digits, '-', '_' and '.')",
					  rname);
		if (strlen(rname) > RULES_NAME_MAX)
			return rules_fail(c, e->line,
					  "rule name too long (the limit is %d bytes)",
					  RULES_NAME_MAX);
		for (i = 0; i < rs->n_rules; i++)
			if (strcmp(rs->rules[i].name, rname) == 0)
				return rules_fail(c, e->line,
						  "duplicate rule '%s' (first at line %u)",
						  rname, rs->rules[i].line);
		if (rs->n_rules >= RULES_MAX_RULES)
			return rules_fail(c, e->line,
					  "too many rules (the limit is %d)",
					  RULES_MAX_RULES);
		nr = reallocarray(rs->rules, rs->n_rules + 1, sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		rs->rules = nr;
		nr = &rs->rules[rs->n_rules];
		*nr = (struct rules_rule){ .line = e->line, .audit = true,
					   .action = RULES_DENY };
		nr->name = strdup(rname);
		nr->file = strdup(c->name);
		if (!nr->name || !nr->file) {
			free(nr->name);
			free(nr->file);
			return -ENOMEM;
		}
		rs->n_rules++;
		st->sec = SEC_RULE;
		return 0;
	}
	{
		char first[SECTION_MAX + 1];
		const char *sugg;
		size_t n = strcspn(name, " ");

		snprintf(first, sizeof(first), "%.*s", (int)n, name);
		sugg = rules_suggest_from(first, sections);
		if (sugg && strcmp(sugg, "rule") == 0)
			return rules_fail(c, e->line,
					  "unknown section [%s] (did you mean [rule%s]?)",
					  name, name[n] ? name + n : " NAME");
		if (sugg)
			return rules_fail(c, e->line,
					  "unknown section [%s] (did you mean [%s]?)",
					  name, sugg);
		return rules_fail(c, e->line, "unknown section [%s]", name);
	}
}

static int section_end(struct pctx *c, struct state *st)
{
	if (st->sec == SEC_RULE)
		return rules_rule_finish(c, st);
	return 0;
}

/* Read the scanned entries into c->rs; st (zeroed by the caller) keeps
 * what the caller needs afterwards (which rules named their errno). */
int rules_interpret(struct pctx *c, const struct scan *s, struct state *st)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n && rc == 0; i++) {
		const struct entry *e = &s->ents[i];

		if (e->type == ENT_SECTION) {
			rc = section_end(c, st);
			if (rc == 0)
				rc = section_start(c, st, e);
			continue;
		}
		if (e->value[0] == '\0') {
			rc = rules_fail(c, e->line, "empty value for '%s'", e->key);
			break;
		}
		switch (st->sec) {
		case SEC_POLICY:
			rc = policy_key(c, st, e);
			break;
		case SEC_LIMITS:
			rc = limits_key(c, st, e);
			break;
		case SEC_ENV:
			rc = env_key(c, e);
			break;
		case SEC_RULE:
			rc = rules_rule_key(c, st, e);
			break;
		case SEC_NONE:
			rc = rules_fail(c, e->line, "key '%s' outside of any section",
					e->key);
			break;
		}
	}
	if (rc == 0)
		rc = section_end(c, st);
	return rc;
}
