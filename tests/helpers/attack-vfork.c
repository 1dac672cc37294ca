/* SPDX-License-Identifier: MIT */
/*
 * attack-vfork: the child of a vfork (sharing the parent's memory, the
 * parent suspended) opens PATH and prints what it read; the process exits
 * with the child's errno.
 *
 *   attack-vfork PATH
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	pid_t c;
	int st;

	victim_name = "attack-vfork";
	if (argc != 2)
		victim_usage("PATH");
	c = vfork();
	if (c < 0)
		victim_setup_fail("vfork");
	if (c == 0) {
		char buf[4096];
		ssize_t n;
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			_exit(errno);
		n = read(fd, buf, sizeof buf);
		if (n > 0)
			n = write(1, buf, (size_t)n);
		_exit(0);
	}
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
		victim_setup_fail("waitpid");
	return victim_result(argv[1], WEXITSTATUS(st));
}
