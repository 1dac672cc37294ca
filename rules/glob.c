/* SPDX-License-Identifier: MIT */
/*
 * rules/glob.c: path globs.  A pattern is compiled into a small NFA on the
 * stack and run over the path once, so matching costs O(path * pattern)
 * whatever the input: no backtracking, no allocation.
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/internal.h"

/*
 * Pattern syntax (bytes; no escapes, no classes):
 *   '*'   any run of bytes other than '/', possibly empty
 *   '?'   one byte other than '/'
 *   "**"  as a whole component: any number of components, including none.
 *         "/a/ ** /b" (without the spaces) matches /a/b, /a/x/b, /a/x/y/b;
 *         a trailing "/ **" matches the directory itself and everything
 *         below it; a leading "** /" matches in any directory.
 *   anything else matches itself.
 * A "**" that is not a whole component behaves as '*' (the parser refuses
 * it in policies).
 */

enum glob_kind {
	G_LIT,		/* consume byte c, go to s + 1 */
	G_ONE,		/* consume a non-'/' byte, go to s + 1 */
	G_STAR,		/* consume a non-'/' byte and stay; or skip to s + 1 */
	G_ANY,		/* consume any byte and stay; or skip to s + 1 */
	G_SPLIT,	/* epsilon to s + 1 and to alt */
	G_ACCEPT,
};

struct glob_state {
	uint8_t kind;
	uint8_t c;
	uint16_t alt;
};

/* At most one state per pattern byte, plus the accepting state. */
#define GLOB_STATES_MAX (RULES_GLOB_MAX + 2)
#define GLOB_WORDS ((GLOB_STATES_MAX + 63) / 64)

static bool is_globstar(const char *p, size_t i, size_t n)
{
	return i + 1 < n && p[i] == '*' && p[i + 1] == '*' &&
	       (i == 0 || p[i - 1] == '/') && (i + 2 == n || p[i + 2] == '/');
}

/* Returns the number of states, 0 when the pattern is too long. */
static size_t glob_compile(const char *p, struct glob_state *st)
{
	size_t n = strlen(p), i = 0, k = 0;

	if (n > RULES_GLOB_MAX)
		return 0;
	while (i < n) {
		if (p[i] == '/' && i + 3 == n && is_globstar(p, i + 1, n)) {
			/* "/ **" at the end: (/.*)? */
			st[k] = (struct glob_state){ .kind = G_SPLIT,
						     .alt = k + 3 };
			st[k + 1] = (struct glob_state){ .kind = G_LIT,
							 .c = '/' };
			st[k + 2] = (struct glob_state){ .kind = G_ANY };
			k += 3;
			i += 3;
		} else if (is_globstar(p, i, n) && i + 2 == n) {
			st[k++] = (struct glob_state){ .kind = G_ANY };
			i += 2;
		} else if (is_globstar(p, i, n)) {
			/* "** /" (leading or after a '/'): (.* /)? */
			st[k] = (struct glob_state){ .kind = G_SPLIT,
						     .alt = k + 3 };
			st[k + 1] = (struct glob_state){ .kind = G_ANY };
			st[k + 2] = (struct glob_state){ .kind = G_LIT,
							 .c = '/' };
			k += 3;
			i += 3;
		} else if (p[i] == '*') {
			st[k++] = (struct glob_state){ .kind = G_STAR };
			while (i < n && p[i] == '*')
				i++;
		} else if (p[i] == '?') {
			st[k++] = (struct glob_state){ .kind = G_ONE };
			i++;
		} else {
			st[k++] = (struct glob_state){ .kind = G_LIT,
						       .c = (uint8_t)p[i] };
			i++;
		}
	}
	st[k++] = (struct glob_state){ .kind = G_ACCEPT };
	return k;
}

static inline bool bit_get(const uint64_t *set, size_t s)
{
	return (set[s / 64] >> (s % 64)) & 1;
}

static inline void bit_set(uint64_t *set, size_t s)
{
	set[s / 64] |= UINT64_C(1) << (s % 64);
}

/* Add s and everything reachable from it by epsilon moves.  A state is
 * pushed only when it enters the set, so the stack never holds more than
 * GLOB_STATES_MAX entries. */
static void add_state(const struct glob_state *st, uint64_t *set, size_t s)
{
	uint16_t stack[GLOB_STATES_MAX];
	size_t top = 0;

	if (bit_get(set, s))
		return;
	bit_set(set, s);
	stack[top++] = (uint16_t)s;
	while (top > 0) {
		size_t cur = stack[--top];
		size_t to[2];
		size_t n_to = 0, j;

		switch ((enum glob_kind)st[cur].kind) {
		case G_STAR:
		case G_ANY:
			to[n_to++] = cur + 1;
			break;
		case G_SPLIT:
			to[n_to++] = cur + 1;
			to[n_to++] = st[cur].alt;
			break;
		case G_LIT:
		case G_ONE:
		case G_ACCEPT:
			break;
		}
		for (j = 0; j < n_to; j++) {
			if (bit_get(set, to[j]))
				continue;
			bit_set(set, to[j]);
			stack[top++] = (uint16_t)to[j];
		}
	}
}

bool rules_glob_match_n(const char *pattern, const char *s, size_t len)
{
	struct glob_state st[GLOB_STATES_MAX];
	uint64_t cur[GLOB_WORDS], next[GLOB_WORDS];
	size_t n_states, words, i, k;

	if (!pattern || !s)
		return false;
	n_states = glob_compile(pattern, st);
	if (n_states == 0)
		return false;
	words = (n_states + 63) / 64;
	memset(cur, 0, words * sizeof(cur[0]));
	add_state(st, cur, 0);
	for (i = 0; i < len; i++) {
		uint8_t c = (uint8_t)s[i];
		bool any = false;

		memset(next, 0, words * sizeof(next[0]));
		for (k = 0; k < n_states; k++) {
			if (!bit_get(cur, k))
				continue;
			switch ((enum glob_kind)st[k].kind) {
			case G_LIT:
				if (c == st[k].c)
					add_state(st, next, k + 1);
				break;
			case G_ONE:
				if (c != '/')
					add_state(st, next, k + 1);
				break;
			case G_STAR:
				if (c != '/')
					add_state(st, next, k);
				break;
			case G_ANY:
				add_state(st, next, k);
				break;
			case G_SPLIT:
			case G_ACCEPT:
				break;
			}
		}
		for (k = 0; k < words; k++) {
			cur[k] = next[k];
			any |= next[k] != 0;
		}
		if (!any)
			return false;
	}
	return bit_get(cur, n_states - 1);
}

/* ------------------------------------------------------------------ */
/* Globs compiled at load.  rules_glob_match_n() above stays the
 * reference: tests/unit/test-rules.c checks these against it. */

static bool has_wild(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '*' || p[i] == '?')
			return true;
	return false;
}

/*
 * The bytes every match of the NFA g (states st) must hold, so that most
 * paths are turned away by a memcmp or a memmem instead of the NFA (the
 * built-in policy's "** /.env.*" is tried on every path a rule is checked
 * against).  The states form one line: only a G_SPLIT skips ahead, over
 * the two states of its optional "/" "**" or "**" "/", and STAR and ANY
 * loop on themselves.  So every accepting run goes through every other
 * G_LIT state in order, and a run of such states next to each other
 * consumes their bytes next to each other: that string is in every match.
 * A run that ends at G_ACCEPT ends every match.
 */
static void find_needed(struct rules_glob *g, const struct glob_state *st)
{
	size_t n = g->n_states, k, best = 0, best_at = 0, run = 0, tail = 0;
	bool optional[GLOB_STATES_MAX] = { false };

	for (k = 0; k < n; k++)
		if (st[k].kind == G_SPLIT && k + 2 < n)
			optional[k + 1] = optional[k + 2] = true;
	for (k = g->n_lead; k < n; k++) {
		if (st[k].kind == G_LIT && !optional[k]) {
			run++;
			continue;
		}
		if (st[k].kind == G_ACCEPT) {
			tail = run;	/* k == n - 1 */
			break;
		}
		if (run > best) {
			best = run;
			best_at = k - run;
		}
		run = 0;
	}
	if (!best && !tail)
		return;
	g->bytes = malloc(best + tail + 1);
	if (!g->bytes)
		return;	/* the NFA alone gives the same answers */
	for (k = 0; k < best; k++)
		g->bytes[k] = (char)st[best_at + k].c;
	for (k = 0; k < tail; k++)
		g->bytes[best + k] = (char)st[n - 1 - tail + k].c;
	g->need = g->bytes;
	g->need_len = best;
	g->tail = g->bytes + best;
	g->tail_len = tail;
}

int rules_glob_compile(const char *pattern, struct rules_glob *g)
{
	struct glob_state st[GLOB_STATES_MAX];
	size_t n = strlen(pattern), k;

	*g = (struct rules_glob){ .form = RULES_GLOB_NONE };
	if (n > RULES_GLOB_MAX)
		return 0;	/* glob_compile refuses it: matches nothing */
	if (!has_wild(pattern, n)) {
		/* Only literal states: the path is the pattern. */
		g->form = RULES_GLOB_EXACT;
		g->lit = pattern;
		g->lit_len = n;
		return 0;
	}
	if (n >= 3 && !memcmp(pattern + n - 3, "/**", 3) &&
	    !has_wild(pattern, n - 3)) {
		/* LIT, then (/.*)? : LIT itself or anything below it. */
		g->form = RULES_GLOB_TREE;
		g->lit = pattern;
		g->lit_len = n - 3;
		return 0;
	}
	if (n >= 3 && !memcmp(pattern, "**/", 3) &&
	    !has_wild(pattern + 3, n - 3)) {
		/* (.* /)?, then LIT: LIT itself or LIT after any '/'. */
		g->form = RULES_GLOB_SUFFIX;
		g->lit = pattern + 3;
		g->lit_len = n - 3;
		return 0;
	}
	g->n_states = glob_compile(pattern, st);
	if (g->n_states == 0)
		return 0;
	g->states = malloc(g->n_states * sizeof(st[0]));
	if (!g->states)
		return -ENOMEM;
	memcpy(g->states, st, g->n_states * sizeof(st[0]));
	/* Leading literal states consume exactly their byte each, with no
	 * epsilon move among them: compare those bytes, then run the NFA
	 * from the first other state. */
	for (k = 0; k < g->n_states && st[k].kind == G_LIT; k++)
		;
	g->n_lead = k;
	g->form = RULES_GLOB_NFA;
	find_needed(g, st);
	return 0;
}

void rules_glob_release(struct rules_glob *g)
{
	if (!g)
		return;
	free(g->states);
	free(g->bytes);
	*g = (struct rules_glob){ .form = RULES_GLOB_NONE };
}

/* rules_glob_match_n()'s loop, from state `from` at s[0]. */
static bool run_states(const struct glob_state *st, size_t n_states,
		       size_t from, const char *s, size_t len)
{
	uint64_t cur[GLOB_WORDS], next[GLOB_WORDS];
	size_t words = (n_states + 63) / 64, i, k;

	memset(cur, 0, words * sizeof(cur[0]));
	add_state(st, cur, from);
	for (i = 0; i < len; i++) {
		uint8_t c = (uint8_t)s[i];
		bool any = false;

		memset(next, 0, words * sizeof(next[0]));
		for (k = 0; k < n_states; k++) {
			if (!bit_get(cur, k))
				continue;
			switch ((enum glob_kind)st[k].kind) {
			case G_LIT:
				if (c == st[k].c)
					add_state(st, next, k + 1);
				break;
			case G_ONE:
				if (c != '/')
					add_state(st, next, k + 1);
				break;
			case G_STAR:
				if (c != '/')
					add_state(st, next, k);
				break;
			case G_ANY:
				add_state(st, next, k);
				break;
			case G_SPLIT:
			case G_ACCEPT:
				break;
			}
		}
		for (k = 0; k < words; k++) {
			cur[k] = next[k];
			any |= next[k] != 0;
		}
		if (!any)
			return false;
	}
	return bit_get(cur, n_states - 1);
}

bool rules_glob_match_compiled(const struct rules_glob *g, const char *s,
			       size_t len)
{
	size_t l;

	if (!g || !s)
		return false;
	l = g->lit_len;
	switch (g->form) {
	case RULES_GLOB_NONE:
		return false;
	case RULES_GLOB_EXACT:
		return len == l && !memcmp(s, g->lit, l);
	case RULES_GLOB_TREE:
		return len >= l && !memcmp(s, g->lit, l) &&
		       (len == l || s[l] == '/');
	case RULES_GLOB_SUFFIX:
		if (len == l)
			return !memcmp(s, g->lit, l);
		return len > l && s[len - l - 1] == '/' &&
		       !memcmp(s + len - l, g->lit, l);
	case RULES_GLOB_NFA:
		if (len < g->n_lead)
			return false;
		for (size_t k = 0; k < g->n_lead; k++)
			if ((uint8_t)s[k] != g->states[k].c)
				return false;
		s += g->n_lead;
		len -= g->n_lead;
		/* Bytes every match holds (find_needed()). */
		if (g->tail_len &&
		    (len < g->tail_len ||
		     memcmp(s + len - g->tail_len, g->tail, g->tail_len)))
			return false;
		if (g->need_len && !memmem(s, len, g->need, g->need_len))
			return false;
		return run_states(g->states, g->n_states, g->n_lead, s, len);
	}
	return false;
}

bool rules_glob_match(const char *pattern, const char *path)
{
	if (!path)
		return false;
	return rules_glob_match_n(pattern, path, strlen(path));
}

int rules_glob_check(const char *p, const char **why)
{
	size_t n = strlen(p), i;

	if (n == 0) {
		*why = "empty glob";
		return -EINVAL;
	}
	if (n > RULES_GLOB_MAX) {
		*why = "glob too long (the limit is 1024 bytes)";
		return -EINVAL;
	}
	for (i = 0; i + 1 < n; i++) {
		if (p[i] == '*' && p[i + 1] == '*') {
			size_t j = i;

			while (j < n && p[j] == '*')
				j++;
			if (j - i != 2 || !is_globstar(p, i, n)) {
				*why = "'**' must be a whole path component";
				return -EINVAL;
			}
			i = j - 1;
		}
	}
	return 0;
}
