/* SPDX-License-Identifier: MIT */
/*
 * attack-audit: tamper with the audit trail of the run one is in.  Exits
 * with the errno of the tampering call (0: it got through); the test
 * checks from outside that `sysgate verify` passes and that the junk is
 * not in the trail.
 *
 *   attack-audit append TRAIL          open O_WRONLY|O_APPEND, write junk
 *   attack-audit rdwr TRAIL            open O_RDWR, write junk at the start
 *   attack-audit trunc-ro TRAIL        open O_RDONLY|O_TRUNC
 *   attack-audit truncate TRAIL        truncate(TRAIL, 0)
 *   attack-audit unlink TRAIL          unlink(TRAIL)
 *   attack-audit rename TRAIL SRC      write junk to SRC, rename it over TRAIL
 *   attack-audit link TRAIL NEW        link(TRAIL, NEW), append junk via NEW
 *   attack-audit symlink TRAIL NEW     symlink(TRAIL, NEW), append via NEW
 *   attack-audit fds                   append junk to every inherited
 *                                      writable regular file fd 3..1023
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/stat.h>

#define JUNK "ESCAPE-JUNK from attack-audit\n"

static int append(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return victim_result(path, errno);
	if (write(fd, JUNK, strlen(JUNK)) < 0)
		return victim_result("write", errno);
	printf("attack-audit: WROTE junk into %s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op;

	victim_name = "attack-audit";
	if (argc < 2)
		victim_usage("append|rdwr|trunc-ro|truncate|unlink TRAIL | "
			     "rename|link|symlink TRAIL OTHER | fds");
	op = argv[1];
	if (!strcmp(op, "fds")) {
		int got = 0;

		for (int fd = 3; fd < 1024; fd++) {
			struct stat st;
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			    (fl & O_ACCMODE) == O_RDONLY)
				continue;
			if (write(fd, JUNK, strlen(JUNK)) > 0) {
				printf("attack-audit: WROTE junk into fd %d\n", fd);
				got++;
			}
		}
		return got ? 0 : EBADF;
	}
	if (argc < 3)
		victim_usage("OP TRAIL [OTHER]");
	if (!strcmp(op, "append"))
		return append(argv[2], O_WRONLY | O_APPEND);
	if (!strcmp(op, "rdwr"))
		return append(argv[2], O_RDWR);
	if (!strcmp(op, "trunc-ro")) {
		int fd = open(argv[2], O_RDONLY | O_TRUNC | O_CLOEXEC);

		return victim_result("open O_RDONLY|O_TRUNC", fd < 0 ? errno : 0);
	}
	if (!strcmp(op, "truncate"))
		return victim_result("truncate", truncate(argv[2], 0) < 0 ? errno : 0);
	if (!strcmp(op, "unlink"))
		return victim_result("unlink", unlink(argv[2]) < 0 ? errno : 0);
	if (argc != 4)
		victim_usage("rename|link|symlink TRAIL OTHER");
	if (!strcmp(op, "rename")) {
		FILE *f = fopen(argv[3], "w");

		if (!f || fputs(JUNK, f) < 0 || fclose(f))
			victim_setup_fail("writing %s", argv[3]);
		return victim_result("rename",
				     rename(argv[3], argv[2]) < 0 ? errno : 0);
	}
	if (!strcmp(op, "link")) {
		if (link(argv[2], argv[3]) < 0)
			return victim_result("link", errno);
		return append(argv[3], O_WRONLY | O_APPEND);
	}
	if (!strcmp(op, "symlink")) {
		if (symlink(argv[2], argv[3]) < 0)
			victim_setup_fail("symlink");
		return append(argv[3], O_WRONLY | O_APPEND);
	}
	victim_usage("append|rdwr|trunc-ro|truncate|unlink TRAIL | "
		     "rename|link|symlink TRAIL OTHER | fds");
}
