/* SPDX-License-Identifier: MIT */
/*
 * common/util.h: scope-bound cleanup and a few small helpers shared by every
 * module.  Header only; no module state.
 */
#ifndef SYSGATE_COMMON_UTIL_H
#define SYSGATE_COMMON_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void util_freep(void *p)
{
	free(*(void **)p);
}

static inline void util_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

/* Free the pointer / close the fd when the variable leaves scope. */
#define AUTO_FREE __attribute__((cleanup(util_freep)))
#define AUTO_CLOSE __attribute__((cleanup(util_closep)))

/* Hand ownership out of an AUTO_ variable. */
static inline void *util_steal_ptr(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define steal_ptr(pp) util_steal_ptr(pp)

static inline int util_steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}
#define steal_fd(fdp) util_steal_fd(fdp)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Retry a call returning -1/EINTR.  Used for reads and writes, never for
 * the seccomp ioctls (whose EINTR means something). */
#define TEMP_FAILURE_RETRY_INT(expr)                                         \
	({                                                                   \
		long _r;                                                     \
		do                                                           \
			_r = (long)(expr);                                   \
		while (_r == -1 && errno == EINTR);                          \
		_r;                                                          \
	})

#endif
