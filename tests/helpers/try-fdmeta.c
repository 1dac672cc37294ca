/* SPDX-License-Identifier: MIT */
/*
 * try-fdmeta: open PATH for reading only (O_PATH with --opath, or use fd
 * FD as it is with --fd), change the metadata of the open file ONCE through
 * its fd, and exit with the errno.
 *
 *   try-fdmeta [--opath | --fd FD] PATH OP [ARG...]
 *     chmod MODE              fchmod (MODE octal)
 *     chown UID GID           fchown
 *     setxattr NAME VALUE     fsetxattr
 *     removexattr NAME        fremovexattr
 *     touch                   futimens(fd, NULL): now
 *     utime SECONDS           futimens: atime and mtime SECONDS
 *     futimes SECONDS         futimesat(fd, NULL, ...): the older form
 *     chattr FLAGS            ioctl(FS_IOC_SETFLAGS): the file's flags
 *                             with FLAGS (hex, FS_*_FL) added
 *     fsxattr XFLAGS          ioctl(FS_IOC_FSSETXATTR): its xflags with
 *                             XFLAGS (hex, FS_XFLAG_*) added
 *     verity                  ioctl(FS_IOC_ENABLE_VERITY), SHA-256
 *     fscrypt                 ioctl(FS_IOC_SET_ENCRYPTION_POLICY), a v1
 *                             policy (AES-256-XTS/CTS) on a directory
 *
 * With --fd, PATH is only named in messages.  With --thread a second
 * thread (sharing the fd table) waits while the change is made.
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>

#define USAGE "[--thread] [--opath | --fd FD] PATH chmod MODE | chown UID GID | setxattr NAME VALUE | removexattr NAME | touch | utime SECONDS | futimes SECONDS | chattr FLAGS | fsxattr XFLAGS | verity | fscrypt"

static int gate[2];

static void *waiter(void *arg)
{
	char b;

	(void)arg;
	while (read(gate[0], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The flags word (FS_IOC_GETFLAGS) with more set; 0 or -1 (errno). */
static int add_flags(int fd, unsigned long more)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -1;
	flags |= (int)more;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

static int add_xflags(int fd, unsigned long more)
{
	struct fsxattr fa;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) < 0)
		return -1;
	fa.fsx_xflags |= (unsigned)more;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fa);
}

int main(int argc, char **argv)
{
	int i = 1, flags = O_RDONLY, fd = -1, r;
	const char *op;
	pthread_t th;
	bool thread = false;

	victim_name = "try-fdmeta";
	if (i < argc && !strcmp(argv[i], "--thread")) {
		thread = true;
		i++;
	}
	if (i < argc && !strcmp(argv[i], "--opath")) {
		flags = O_PATH;
		i++;
	} else if (i + 1 < argc && !strcmp(argv[i], "--fd")) {
		fd = atoi(argv[i + 1]);
		i += 2;
	}
	if (argc - i < 2)
		victim_usage(USAGE);
	if (fd == -1) {
		fd = open(argv[i], flags | O_CLOEXEC);
		if (fd < 0)
			victim_setup_fail("open %s", argv[i]);
	}
	if (thread) {
		if (pipe(gate) < 0)
			victim_setup_fail("pipe");
		errno = pthread_create(&th, NULL, waiter, NULL);
		if (errno)
			victim_setup_fail("pthread_create");
	}
	op = argv[i + 1];
	if (!strcmp(op, "chmod") && argc - i == 3) {
		r = fchmod(fd, (mode_t)strtoul(argv[i + 2], NULL, 8));
	} else if (!strcmp(op, "chown") && argc - i == 4) {
		r = fchown(fd, (uid_t)strtol(argv[i + 2], NULL, 10),
			   (gid_t)strtol(argv[i + 3], NULL, 10));
	} else if (!strcmp(op, "setxattr") && argc - i == 4) {
		r = fsetxattr(fd, argv[i + 2], argv[i + 3], strlen(argv[i + 3]), 0);
	} else if (!strcmp(op, "removexattr") && argc - i == 3) {
		r = fremovexattr(fd, argv[i + 2]);
	} else if (!strcmp(op, "touch") && argc - i == 2) {
		r = futimens(fd, NULL);
	} else if (!strcmp(op, "utime") && argc - i == 3) {
		struct timespec ts[2] = {
			{ .tv_sec = strtol(argv[i + 2], NULL, 10) },
			{ .tv_sec = strtol(argv[i + 2], NULL, 10) },
		};

		r = futimens(fd, ts);
	} else if (!strcmp(op, "futimes") && argc - i == 3) {
		struct timeval tv[2] = {
			{ .tv_sec = strtol(argv[i + 2], NULL, 10) },
			{ .tv_sec = strtol(argv[i + 2], NULL, 10) },
		};

		r = (int)syscall(SYS_futimesat, fd, NULL, tv);
	} else if (!strcmp(op, "chattr") && argc - i == 3) {
		r = add_flags(fd, strtoul(argv[i + 2], NULL, 16));
	} else if (!strcmp(op, "fsxattr") && argc - i == 3) {
		r = add_xflags(fd, strtoul(argv[i + 2], NULL, 16));
	} else if (!strcmp(op, "verity") && argc - i == 2) {
		struct fsverity_enable_arg va = {
			.version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
			.block_size = 4096,
		};

		r = ioctl(fd, FS_IOC_ENABLE_VERITY, &va);
	} else if (!strcmp(op, "fscrypt") && argc - i == 2) {
		struct fscrypt_policy_v1 pv = {
			.version = FSCRYPT_POLICY_V1,
			.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
			.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
			.master_key_descriptor = "sysgate",
		};

		r = ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &pv);
	} else {
		victim_usage(USAGE);
	}
	if (thread) {
		int e = errno;

		close(gate[1]);
		pthread_join(th, NULL);
		errno = e;
	}
	return victim_result(argv[i], r < 0 ? errno : 0);
}
