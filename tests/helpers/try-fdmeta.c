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
 *
 * With --fd, PATH is only named in messages.
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>

#define USAGE "[--opath | --fd FD] PATH chmod MODE | chown UID GID | setxattr NAME VALUE | removexattr NAME | touch | utime SECONDS | futimes SECONDS"

int main(int argc, char **argv)
{
	int i = 1, flags = O_RDONLY, fd = -1, r;
	const char *op;

	victim_name = "try-fdmeta";
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
	} else {
		victim_usage(USAGE);
	}
	return victim_result(argv[i], r < 0 ? errno : 0);
}
