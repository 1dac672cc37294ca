/* SPDX-License-Identifier: MIT */
/*
 * common/seccomp-compat.h: the seccomp interfaces of kernels newer than the
 * 6.1 headers Debian 12 ships (docs/PLATFORM.md 3a), defined where the headers
 * lack them.  Whether the running kernel has them is found out by using
 * them.  Header only.
 */
#ifndef SYSGATE_COMMON_SECCOMP_COMPAT_H
#define SYSGATE_COMMON_SECCOMP_COMPAT_H

#include <linux/seccomp.h>

/* Kernel 6.0+. */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
/* Kernel 6.6+. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#endif
