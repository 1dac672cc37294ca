/* SPDX-License-Identifier: MIT */
/*
 * rules/suggest.c: "did you mean" for the parser's messages: the closest
 * word of a list by optimal string alignment distance (case ignored),
 * when close enough to be what was meant.  Pure; uses nothing of rules/,
 * so the tables of syscalls.c and consts.c use it without the parser.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "rules/internal.h"

size_t rules_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	/* Distances are at most RULES_WORD_MAX: a short fits. */
	unsigned short d[RULES_WORD_MAX + 1][RULES_WORD_MAX + 1];

	if (la > RULES_WORD_MAX || lb > RULES_WORD_MAX)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned short)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned short)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = (unsigned short)v;
		}
	}
	return d[la][lb];
}

void rules_suggest_consider(const char *word, const char *cand,
			    const char **best, size_t *best_dist)
{
	size_t d = rules_edit_distance(word, cand);

	if (d < *best_dist) {
		*best_dist = d;
		*best = cand;
	}
}

const char *rules_suggest_result(const char *word, const char *best,
				 size_t best_dist)
{
	size_t len = strlen(word);
	size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;

	if (!best || best_dist > limit)
		return NULL;
	return best;
}

const char *rules_suggest_from(const char *word, const char *const *list)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX, i;

	for (i = 0; list[i]; i++)
		rules_suggest_consider(word, list[i], &best, &best_dist);
	return rules_suggest_result(word, best, best_dist);
}
