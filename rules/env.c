/* SPDX-License-Identifier: MIT */
/*
 * rules/env.c: the command's environment under a policy's [env] section
 * (parsed in parse-sections.c): which variables are dropped, which are set.  Pure
 * functions of the policy and an environment given to them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules/internal.h"

bool rules_env_glob_match(const char *glob, const char *name, size_t n)
{
	const char *star = NULL;	/* the last '*' seen */
	size_t i = 0, resume = 0;	/* where that '*' may take more */

	while (i < n) {
		if (*glob == '*') {
			star = glob++;
			resume = i;
		} else if (*glob && (*glob == '?' ||
				     tolower((unsigned char)*glob) ==
				     tolower((unsigned char)name[i]))) {
			glob++;
			i++;
		} else if (star) {
			glob = star + 1;
			i = ++resume;
		} else {
			return false;
		}
	}
	while (*glob == '*')
		glob++;
	return *glob == '\0';
}

static bool any_match(char *const *globs, size_t n_globs, const char *name,
		      size_t n)
{
	for (size_t i = 0; i < n_globs; i++)
		if (rules_env_glob_match(globs[i], name, n))
			return true;
	return false;
}

/* Security: keep wins over drop, whichever file either comes from: a
 * policy that includes the default one keeps a variable by naming it. */
static bool env_drops(const struct rules_env *env, const char *name,
		      size_t n)
{
	return any_match(env->drop, env->n_drop, name, n) &&
	       !any_match(env->keep, env->n_keep, name, n);
}

/* Does a set = NAME=VALUE name exactly the n bytes of name? */
static bool env_sets(const struct rules_env *env, const char *name, size_t n)
{
	for (size_t i = 0; i < env->n_set; i++)
		if (strncmp(env->set[i], name, n) == 0 && env->set[i][n] == '=')
			return true;
	return false;
}

static bool listed(char *const *list, size_t n_list, const char *name,
		   size_t n)
{
	for (size_t i = 0; i < n_list; i++)
		if (strncmp(list[i], name, n) == 0 && list[i][n] == '\0')
			return true;
	return false;
}

void rules_env_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

/* Into out (room for them all): envp's variables that stay, then the
 * sets; the names dropped into dropped.  0 or -ENOMEM. */
static int env_build(const struct rules_env *env, char *const *envp,
		     char **out, char **dropped)
{
	size_t k = 0, d = 0;

	for (; *envp; envp++) {
		const char *e = *envp;
		size_t n = strcspn(e, "=");

		/* Replaced by a set: not dropped, whatever its name. */
		if (env_sets(env, e, n))
			continue;
		if (env_drops(env, e, n)) {
			if (!listed(dropped, d, e, n) &&
			    !(dropped[d++] = strndup(e, n)))
				return -ENOMEM;
			continue;
		}
		if (!(out[k++] = strdup(e)))
			return -ENOMEM;
	}
	for (size_t i = 0; i < env->n_set; i++)
		if (!(out[k++] = strdup(env->set[i])))
			return -ENOMEM;
	return 0;
}

int rules_env_apply(const struct rules_set *rs, char *const *envp,
		    char ***env_out, char ***dropped_out)
{
	const struct rules_env *env = &rs->env;
	char **out = NULL, **dropped = NULL;
	size_t n = 0;
	int rc;

	while (envp[n])
		n++;
	/* calloc: every slot not filled is NULL, so both free cleanly. */
	out = calloc(n + env->n_set + 1, sizeof(*out));
	dropped = calloc(n + 1, sizeof(*dropped));
	rc = out && dropped ? env_build(env, envp, out, dropped) : -ENOMEM;
	if (rc < 0 || !dropped_out) {
		rules_env_free(dropped);
		dropped = NULL;
	}
	if (rc < 0) {
		rules_env_free(out);
		return rc;
	}
	*env_out = out;
	if (dropped_out)
		*dropped_out = dropped;
	return 0;
}

void rules_env_release(struct rules_env *env)
{
	for (size_t i = 0; i < env->n_keep; i++)
		free(env->keep[i]);
	for (size_t i = 0; i < env->n_drop; i++)
		free(env->drop[i]);
	for (size_t i = 0; i < env->n_set; i++)
		free(env->set[i]);
	free(env->keep);
	free(env->drop);
	free(env->set);
	free(env->set_line);
	*env = (struct rules_env){ 0 };
}
