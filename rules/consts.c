/* SPDX-License-Identifier: MIT */
/*
 * rules/consts.c: symbolic constants and the expressions of scalar argument
 * conditions (argN keys): "O_WRONLY|O_CREAT", "0x10", "& CLONE_NEWUSER".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "common/util.h"
#include "rules/internal.h"

/*
 * Argument conditions (value of an argN key, N = 0..5):
 *
 *   argN = EXPR             arg == EXPR
 *   argN = OP EXPR          OP is one of == != < <= > >= (unsigned compare)
 *   argN = & MASK           (arg & MASK) != 0: any bit of MASK is set
 *   argN = & MASK == EXPR   (arg & MASK) == EXPR
 *
 * EXPR and MASK are terms joined by '|'; a term is a constant name (O_*,
 * AT_*, AF_*, SOCK_*, CLONE_*, PROT_*, MAP_*) or a number: decimal, 0x hex,
 * 0 octal, optionally negative (-100 is AT_FDCWD).  Several argN keys in one
 * rule must all hold.
 *
 * Width: the kernel reads int-sized arguments (fds, flags, modes, AT_FDCWD)
 * as their low 32 bits and ignores the rest, while glibc may pass AT_FDCWD as
 * 0x00000000ffffff9c.  So for an argument the syscall table knows to be
 * 32-bit, both sides are compared on their low 32 bits; for a known 64-bit
 * argument (pointer, size, long) on 64 bits.  For an argument of unknown
 * width both readings are evaluated and the result fails closed: an allow
 * rule needs both to hold, a deny or kill rule either one.
 */

struct rules_const {
	const char *name;
	uint64_t value;
};

#define C(x) { #x, (uint64_t)(x) }
static const struct rules_const consts[] = {
	/* open(2) flags */
	C(O_RDONLY), C(O_WRONLY), C(O_RDWR), C(O_ACCMODE), C(O_CREAT),
	C(O_EXCL), C(O_NOCTTY), C(O_TRUNC), C(O_APPEND), C(O_NONBLOCK),
	C(O_NDELAY), C(O_DSYNC), C(O_SYNC), C(O_RSYNC), C(O_ASYNC),
	C(O_DIRECT), C(O_LARGEFILE), C(O_DIRECTORY), C(O_NOFOLLOW),
	C(O_NOATIME), C(O_CLOEXEC), C(O_PATH), C(O_TMPFILE),
	/* *at(2) */
	{ "AT_FDCWD", (uint64_t)(int64_t)AT_FDCWD },
	C(AT_SYMLINK_NOFOLLOW), C(AT_REMOVEDIR), C(AT_SYMLINK_FOLLOW),
	C(AT_NO_AUTOMOUNT), C(AT_EMPTY_PATH), C(AT_EACCESS),
	C(AT_STATX_SYNC_AS_STAT), C(AT_STATX_FORCE_SYNC),
	C(AT_STATX_DONT_SYNC), C(AT_RECURSIVE),
	/* socket(2) */
	C(AF_UNSPEC), C(AF_UNIX), C(AF_LOCAL), C(AF_INET), C(AF_INET6),
	C(AF_NETLINK), C(AF_PACKET), C(AF_BLUETOOTH), C(AF_VSOCK),
	C(AF_ALG), C(AF_KEY), C(AF_APPLETALK), C(AF_AX25), C(AF_IPX),
	C(AF_X25), C(AF_CAN), C(AF_TIPC), C(AF_RDS), C(AF_XDP),
	C(AF_NFC), C(AF_MCTP), C(AF_QIPCRTR), C(AF_SMC),
	C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW), C(SOCK_RDM),
	C(SOCK_SEQPACKET), C(SOCK_DCCP), C(SOCK_PACKET), C(SOCK_NONBLOCK),
	C(SOCK_CLOEXEC),
	/* clone(2), unshare(2), setns(2) */
	C(CSIGNAL), C(CLONE_VM), C(CLONE_FS), C(CLONE_FILES),
	C(CLONE_SIGHAND), C(CLONE_PIDFD), C(CLONE_PTRACE), C(CLONE_VFORK),
	C(CLONE_PARENT), C(CLONE_THREAD), C(CLONE_NEWNS), C(CLONE_SYSVSEM),
	C(CLONE_SETTLS), C(CLONE_PARENT_SETTID), C(CLONE_CHILD_CLEARTID),
	C(CLONE_DETACHED), C(CLONE_UNTRACED), C(CLONE_CHILD_SETTID),
	C(CLONE_NEWCGROUP), C(CLONE_NEWUTS), C(CLONE_NEWIPC),
	C(CLONE_NEWUSER), C(CLONE_NEWPID), C(CLONE_NEWNET), C(CLONE_IO),
	C(CLONE_NEWTIME),
	/* mmap(2), mprotect(2) */
	C(PROT_NONE), C(PROT_READ), C(PROT_WRITE), C(PROT_EXEC),
	C(PROT_GROWSDOWN), C(PROT_GROWSUP),
	C(MAP_SHARED), C(MAP_PRIVATE), C(MAP_SHARED_VALIDATE), C(MAP_TYPE),
	C(MAP_FIXED), C(MAP_ANONYMOUS), C(MAP_ANON), C(MAP_32BIT),
	C(MAP_GROWSDOWN), C(MAP_DENYWRITE), C(MAP_EXECUTABLE),
	C(MAP_LOCKED), C(MAP_NORESERVE), C(MAP_POPULATE), C(MAP_NONBLOCK),
	C(MAP_STACK), C(MAP_HUGETLB), C(MAP_SYNC), C(MAP_FIXED_NOREPLACE),
};
#undef C

static const struct rules_const *const_lookup(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(consts); i++)
		if (strlen(consts[i].name) == len &&
		    memcmp(consts[i].name, name, len) == 0)
			return &consts[i];
	return NULL;
}

static const char *const_suggest(const char *word)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX, i;

	for (i = 0; i < ARRAY_SIZE(consts); i++)
		rules_suggest_consider(word, consts[i].name, &best, &best_dist);
	return rules_suggest_result(word, best, best_dist);
}

/* One term: a name or a number.  *pp is advanced past it. */
static int parse_term(const char **pp, uint64_t *out, char *why,
		      size_t why_len)
{
	const char *p = *pp, *start;
	char word[RULES_WORD_MAX];
	size_t len;

	while (*p == ' ' || *p == '\t')
		p++;
	start = p;
	if (isalpha((unsigned char)*p) || *p == '_') {
		const struct rules_const *c;

		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		len = (size_t)(p - start);
		c = const_lookup(start, len);
		if (!c) {
			const char *sugg;

			if (len >= sizeof(word))
				len = sizeof(word) - 1;
			memcpy(word, start, len);
			word[len] = '\0';
			sugg = const_suggest(word);
			if (sugg)
				snprintf(why, why_len,
					 "unknown constant '%s' (did you mean '%s'?)",
					 word, sugg);
			else
				snprintf(why, why_len,
					 "unknown constant '%s'", word);
			return -EINVAL;
		}
		*out = c->value;
	} else if (isdigit((unsigned char)*p) || *p == '-') {
		bool neg = false;
		char *end;
		unsigned long long v;

		if (*p == '-') {
			neg = true;
			p++;
		}
		if (!isdigit((unsigned char)*p)) {
			snprintf(why, why_len, "invalid number '%s'", start);
			return -EINVAL;
		}
		errno = 0;
		v = strtoull(p, &end, 0);
		if (errno || end == p ||
		    isalnum((unsigned char)*end) || *end == '_') {
			snprintf(why, why_len, "invalid number '%.*s'",
				 (int)strcspn(start, " \t|&=!<>"), start);
			return -EINVAL;
		}
		if (neg) {
			if (v > (unsigned long long)INT64_MAX + 1) {
				snprintf(why, why_len, "number out of range '%.*s'",
					 (int)(end - start), start);
				return -EINVAL;
			}
			*out = (uint64_t)0 - (uint64_t)v;
		} else {
			*out = (uint64_t)v;
		}
		p = end;
	} else {
		if (*p)
			snprintf(why, why_len, "expected a constant or a number at '%s'",
				 p);
		else
			snprintf(why, why_len, "expected a constant or a number");
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

/* EXPR := term ('|' term)*.  Stops at the first character that does not
 * continue the expression; *pp is advanced. */
static int parse_expr(const char **pp, uint64_t *out, char *why,
		      size_t why_len)
{
	uint64_t v = 0, t;
	const char *p = *pp;
	int rc;

	for (;;) {
		rc = parse_term(&p, &t, why, why_len);
		if (rc < 0)
			return rc;
		v |= t;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '|')
			break;
		p++;
	}
	*out = v;
	*pp = p;
	return 0;
}

int rules_expr_parse(const char *text, uint64_t *out, char *why,
		     size_t why_len)
{
	const char *p = text;
	uint64_t v;
	int rc;

	rc = parse_expr(&p, &v, why, why_len);
	if (rc < 0)
		return rc;
	if (*p) {
		snprintf(why, why_len, "unexpected text '%s'", p);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int rules_argcond_parse(const char *text, unsigned arg,
			struct rules_argcond *out, char *why, size_t why_len)
{
	static const struct {
		const char *tok;
		enum rules_op op;
	} ops[] = {
		/* Two-character operators first. */
		{ "==", RULES_OP_EQ }, { "!=", RULES_OP_NE },
		{ "<=", RULES_OP_LE }, { ">=", RULES_OP_GE },
		{ "<", RULES_OP_LT },  { ">", RULES_OP_GT },
	};
	struct rules_argcond c = { .arg = arg, .op = RULES_OP_EQ };
	const char *p = text;
	size_t i;
	int rc;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '&') {
		p++;
		rc = parse_expr(&p, &c.mask, why, why_len);
		if (rc < 0)
			return rc;
		if (c.mask == 0) {
			snprintf(why, why_len, "mask is zero");
			return -EINVAL;
		}
		if (*p == '\0') {
			c.op = RULES_OP_ANY;
		} else if (p[0] == '=' && p[1] == '=') {
			p += 2;
			rc = parse_expr(&p, &c.value, why, why_len);
			if (rc < 0)
				return rc;
			c.op = RULES_OP_MASKED_EQ;
		} else {
			snprintf(why, why_len,
				 "expected '== VALUE' after the mask, not '%s'",
				 p);
			return -EINVAL;
		}
	} else {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			size_t n = strlen(ops[i].tok);

			if (strncmp(p, ops[i].tok, n) == 0) {
				c.op = ops[i].op;
				p += n;
				break;
			}
		}
		if (*p == '=' || *p == '!' || *p == '<' || *p == '>') {
			snprintf(why, why_len, "unknown operator at '%s'", p);
			return -EINVAL;
		}
		rc = parse_expr(&p, &c.value, why, why_len);
		if (rc < 0)
			return rc;
	}
	if (*p) {
		snprintf(why, why_len, "unexpected text '%s'", p);
		return -EINVAL;
	}
	*out = c;
	return 0;
}
