/* SPDX-License-Identifier: MIT */
/*
 * double-fork: the grandchild of a double fork (its parent exits at once,
 * so it is orphaned and reparented) opens PATH for reading, writes the
 * errno it saw ("0" on success) to OUTFILE and through a pipe to the
 * original process, which exits with it.
 *
 *   double-fork OUTFILE PATH
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	int p[2], st, err;
	pid_t c;
	char buf[32];
	ssize_t n;

	victim_name = "double-fork";
	if (argc != 3)
		victim_usage("OUTFILE PATH");
	if (pipe2(p, O_CLOEXEC) < 0)
		victim_setup_fail("pipe");
	c = fork();
	if (c < 0)
		victim_setup_fail("fork");
	if (c == 0) {
		pid_t g = fork();

		if (g < 0)
			_exit(VICTIM_EXIT_SETUP);
		if (g > 0)
			_exit(0);
		/* Grandchild: wait until the middle process is gone. */
		while (getppid() == c)
			usleep(1000);
		close(p[0]);
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		FILE *f;

		err = fd < 0 ? errno : 0;
		n = snprintf(buf, sizeof buf, "%d\n", err);
		f = fopen(argv[1], "w");
		if (!f || fputs(buf, f) < 0 || fclose(f))
			_exit(VICTIM_EXIT_SETUP);
		if (write(p[1], buf, n) != n)
			_exit(VICTIM_EXIT_SETUP);
		_exit(0);
	}
	close(p[1]);
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		victim_setup_fail("middle process status 0x%x", st);
	n = read(p[0], buf, sizeof buf - 1);
	if (n <= 0)
		victim_setup_fail("no result from the grandchild");
	buf[n] = '\0';
	err = atoi(buf);
	return victim_result(argv[2], err);
}
