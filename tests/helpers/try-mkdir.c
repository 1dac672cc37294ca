/* SPDX-License-Identifier: MIT */
/*
 * try-mkdir: mkdir(2) once (mkdirat with --at) and exit with the errno.
 *
 *   try-mkdir [--tail] [--at DIR] PATH [MODE]     (MODE octal, default 0755)
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	int i = 1, tail = 0, dirfd = AT_FDCWD, r;
	mode_t mode = 0755;
	char *path;

	victim_name = "try-mkdir";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else if (!strcmp(argv[i], "--at") && i + 1 < argc) {
			dirfd = open(argv[++i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dirfd < 0)
				victim_setup_fail("open dir %s", argv[i]);
		} else
			victim_usage("[--tail] [--at DIR] PATH [MODE]");
	}
	if (i >= argc || argc - i > 2)
		victim_usage("[--tail] [--at DIR] PATH [MODE]");
	if (i + 1 < argc)
		mode = strtoul(argv[i + 1], NULL, 8);
	path = tail ? victim_tail_str(argv[i]) : argv[i];
	r = dirfd == AT_FDCWD ? mkdir(path, mode) : mkdirat(dirfd, path, mode);
	return victim_result(argv[i], r < 0 ? errno : 0);
}
