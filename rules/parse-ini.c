/* SPDX-License-Identifier: MIT */
/*
 * rules/parse-ini.c: the policy's messages (FILE:LINE: ...) and its INI
 * text, read by our own strict line scanner (which keeps line numbers and
 * refuses what inih would silently reinterpret), then cross-checked
 * against inih.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/internal.h"
#include "rules/parse.h"

/* ---------------------------------------------------------------------
 * Messages.
 */

__attribute__((format(printf, 3, 4)))
int rules_fail(struct pctx *c, unsigned line, const char *fmt, ...)
{
	char msg[RULES_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->err_len) {
		if (line)
			snprintf(c->err, c->err_len, "%s:%u: %s", c->name, line,
				 msg);
		else
			snprintf(c->err, c->err_len, "%s: %s", c->name, msg);
	}
	return -EINVAL;
}

/*
 * A mistake that leaves a valid policy (a '[' that is no class, a literal
 * "$HOME"), kept in the set as "FILE:LINE: message" for `sysgate check`
 * (rules_warning()).  The built-in policy's are not kept: a user cannot
 * act on them.  0 or -ENOMEM.
 */
__attribute__((format(printf, 3, 4)))
int rules_warn(struct pctx *c, unsigned line, const char *fmt, ...)
{
	char msg[RULES_ERR_MAX], full[RULES_ERR_MAX + PATH_MAX];
	va_list ap;
	int rc;

	if (!c->rs || strcmp(c->name, DEFAULT_SOURCE) == 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(full, sizeof(full), "%s:%u: %s", c->name, line, msg);
	else
		snprintf(full, sizeof(full), "%s: %s", c->name, msg);
	rc = rules_push_str(&c->rs->warnings, &c->rs->n_warnings, full);
	return rc == -E2BIG ? 0 : rc;
}

/* "unknown WHAT 'word' (did you mean 'x'?)" */
int rules_fail_unknown(struct pctx *c, unsigned line, const char *what,
		       const char *word, const char *sugg)
{
	if (sugg)
		return rules_fail(c, line, "unknown %s '%s' (did you mean '%s'?)",
				  what, word, sugg);
	return rules_fail(c, line, "unknown %s '%s'", what, word);
}

/* ---------------------------------------------------------------------
 * The line scanner.  It accepts a strict subset of what inih accepts:
 *   [section]            no spaces inside the brackets
 *   key = value          value ends at " ;" (an inline comment)
 *   ; comment, # comment, blank lines
 * and refuses, with the line number, what inih would reinterpret:
 * lines of RULES_LINE_MAX bytes or more (inih splits them), indented lines
 * (inih continues the previous value), ':' as the delimiter, text after a
 * section header, control characters.
 */

void rules_scan_release(struct scan *s)
{
	free(s->buf);
	free(s->ents);
}

static int scan_add(struct scan *s, struct entry e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct entry *n = reallocarray(s->ents, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->ents = n;
		s->cap = cap;
	}
	s->ents[s->n++] = e;
	return 0;
}

/* As inih's find_chars_or_comment: the first char of chars, or a ';'
 * that follows whitespace. */
static char *find_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	while (*s && (!chars || !strchr(chars, *s)) &&
	       !(was_space && *s == ';')) {
		was_space = is_space(*s);
		s++;
	}
	return s;
}

static int scan_line(struct pctx *c, struct scan *s, char *line,
		     unsigned lineno, const char **section)
{
	char *p, *end;

	rstrip(line);
	for (p = line; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return rules_fail(c, lineno, "control character 0x%02x in line",
					  ch);
	}
	p = line;
	while (is_space(*p))
		p++;
	if (*p == '\0' || *p == ';' || *p == '#')
		return 0;
	if (p != line)
		return rules_fail(c, lineno,
				  "line starts with whitespace (it would continue the previous value); remove the indentation");
	if (*p == '[') {
		char *name = p + 1;
		size_t len;

		end = find_or_comment(name, "]");
		if (*end != ']')
			return rules_fail(c, lineno, "section header without ']'");
		*end = '\0';
		p = end + 1;
		while (is_space(*p))
			p++;
		if (*p && *p != ';' && *p != '#')
			return rules_fail(c, lineno, "unexpected text after ']'");
		len = strlen(name);
		if (len == 0)
			return rules_fail(c, lineno, "empty section name");
		if (is_space(name[0]) || is_space(name[len - 1]))
			return rules_fail(c, lineno,
					  "section name '%s' has surrounding spaces",
					  name);
		if (len > SECTION_MAX)
			return rules_fail(c, lineno,
					  "section name too long (%zu bytes, the limit is %d)",
					  len, SECTION_MAX);
		*section = name;
		return scan_add(s, (struct entry){ .type = ENT_SECTION,
						   .line = lineno,
						   .section = name });
	}
	end = find_or_comment(p, "=:");
	if (*end != '=' && *end != ':')
		return rules_fail(c, lineno, "expected 'key = value'");
	if (*end == ':')
		return rules_fail(c, lineno, "use '=' between key and value, not ':'");
	*end = '\0';
	rstrip(p);
	if (*p == '\0')
		return rules_fail(c, lineno, "missing key name before '='");
	if (!*section)
		return rules_fail(c, lineno, "key '%s' outside of any section", p);
	{
		char *value = end + 1;

		/* As inih: the comment is found before the value is trimmed,
		 * so "k = ; c" has an empty value. */
		end = find_or_comment(value, NULL);
		*end = '\0';
		while (is_space(*value))
			value++;
		rstrip(value);
		return scan_add(s, (struct entry){ .type = ENT_KEY,
						   .line = lineno,
						   .section = *section,
						   .key = p,
						   .value = value });
	}
}

int rules_scan_text(struct pctx *c, const char *text, struct scan *s)
{
	const char *section = NULL;
	size_t len = strlen(text), bom = 0;
	unsigned lineno = 0;
	char *p;
	int rc;

	if (len > RULES_MAX_FILE)
		return rules_fail(c, 0, "policy too large (%zu bytes, the limit is %d)",
				  len, RULES_MAX_FILE);
	s->buf = strdup(text);
	if (!s->buf)
		return -ENOMEM;
	p = s->buf;
	/* inih skips a BOM after reading the line: it counts in the first
	 * line's length. */
	if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		bom = 3;
	}
	while (*p) {
		char *nl = strchr(p, '\n');
		size_t n = (nl ? (size_t)(nl - p) : strlen(p)) + bom;

		bom = 0;
		lineno++;
		if (nl)
			*nl = '\0';
		if (n >= RULES_LINE_MAX)
			return rules_fail(c, lineno,
					  "line too long (%zu bytes, the limit is %d)",
					  n, RULES_LINE_MAX - 1);
		rc = scan_line(c, s, p, lineno, &section);
		if (rc < 0)
			return rc;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Cross-check: inih must see exactly the keys we saw, in order. */
struct xcheck {
	const struct scan *s;
	size_t next;
	unsigned bad_line;
	bool extra;
};

static int xcheck_handler(void *user, const char *section, const char *name,
			  const char *value)
{
	struct xcheck *x = user;

	while (x->next < x->s->n && x->s->ents[x->next].type != ENT_KEY)
		x->next++;
	if (x->next >= x->s->n) {
		x->extra = true;
		return 1;
	}
	{
		const struct entry *e = &x->s->ents[x->next++];

		if (!x->bad_line &&
		    (strcmp(e->section, section) || strcmp(e->key, name) ||
		     strcmp(e->value, value)))
			x->bad_line = e->line;
	}
	return 1;
}

int rules_cross_check(struct pctx *c, const char *text,
		      const struct scan *s, unsigned last_line)
{
	struct xcheck x = { .s = s };
	int rc = ini_parse_string(text, xcheck_handler, &x);

	if (rc != 0)
		return rules_fail(c, rc > 0 ? (unsigned)rc : 0,
				  "inih cannot parse this line");
	if (x.bad_line)
		return rules_fail(c, x.bad_line,
				  "inih reads this line differently (internal check)");
	while (x.next < s->n && s->ents[x.next].type != ENT_KEY)
		x.next++;
	if (x.extra || x.next != s->n)
		return rules_fail(c, last_line,
				  "inih reads this file differently (internal check)");
	return 0;
}

