/* SPDX-License-Identifier: MIT */
/*
 * tests/helpers/victim.h: the little shared by the victims that the
 * integration tests run under sysgate.  Each victim tries ONE thing and
 * exits with the errno it saw (0 on success), so a test line can say
 * "expect EACCES" and mean the syscall under test, nothing else.  A failure
 * of the victim's own set-up (a preparatory call, bad usage) exits with
 * VICTIM_EXIT_SETUP, which no errno can be.
 *
 * Header only: every victim is one .c file plus this.
 */
#ifndef SYSGATE_TESTS_VICTIM_H
#define SYSGATE_TESTS_VICTIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Exit status for "the victim could not even set up": not an errno. */
#define VICTIM_EXIT_SETUP 255

static const char *victim_name = "victim";

static inline const char *victim_errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* Report the tested call's result on stderr and return the exit status. */
static inline int victim_result(const char *what, int err)
{
	if (err)
		fprintf(stderr, "%s: %s: %s (%s)\n", victim_name, what,
			victim_errname(err), strerror(err));
	return err;
}

/* A preparatory step failed: say which and exit VICTIM_EXIT_SETUP. */
__attribute__((noreturn, format(printf, 1, 2)))
static inline void victim_setup_fail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: set-up failed: ", victim_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", victim_errname(err));
	exit(VICTIM_EXIT_SETUP);
}

/* A rule the victim checks is broken: the first one is named on stderr,
 * and victim_bad makes the exit status 1. */
__attribute__((unused)) static int victim_bad;

__attribute__((format(printf, 1, 2), unused))
static void victim_fail(const char *fmt, ...)
{
	va_list ap;

	if (victim_bad)
		return;
	fprintf(stderr, "%s: ", victim_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	victim_bad = 1;
}

__attribute__((noreturn))
static inline void victim_usage(const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", victim_name, usage);
	exit(VICTIM_EXIT_SETUP);
}

/*
 * Copy len bytes of src so that they end exactly at the end of a mapped
 * page followed by an unmapped one (strace's tail_alloc): a reader that
 * goes one byte too far faults instead of reading garbage.  The mapping
 * is never freed.
 */
static inline void *victim_tail_copy(const void *src, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t span = ((len + page - 1) / page + 1) * page;
	char *p;

	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		victim_setup_fail("mmap");
	if (munmap(p + span - page, page) < 0)
		victim_setup_fail("munmap");
	p += span - page - len;
	memcpy(p, src, len);
	return p;
}

/* A NUL-terminated string whose NUL is the last mapped byte. */
static inline char *victim_tail_str(const char *s)
{
	return victim_tail_copy(s, strlen(s) + 1);
}

static inline long victim_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "%s: bad %s '%s'\n", victim_name, what, s);
		exit(VICTIM_EXIT_SETUP);
	}
	return v;
}

#endif
