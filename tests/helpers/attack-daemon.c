/* SPDX-License-Identifier: MIT */
/*
 * attack-daemon: a double-forked daemon that outlives the command.  The
 * command exits 0 at once; the grandchild (setsid, reparented) waits
 * DELAY ms, opens PATH and writes to OUT the errno it saw and what it
 * read.  sysgate must still mediate it, and wait for it.
 *
 *   attack-daemon OUT PATH DELAY_MS
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	pid_t c;
	int st;

	victim_name = "attack-daemon";
	if (argc != 4)
		victim_usage("OUT PATH DELAY_MS");
	c = fork();
	if (c < 0)
		victim_setup_fail("fork");
	if (c == 0) {
		pid_t g;
		char buf[4096];
		ssize_t n = 0;
		int fd, err;
		FILE *f;

		setsid();
		g = fork();
		if (g != 0)
			_exit(g < 0 ? VICTIM_EXIT_SETUP : 0);
		usleep(1000 * (useconds_t)victim_long(argv[3], "delay"));
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		if (fd >= 0 && (n = read(fd, buf, sizeof buf)) < 0)
			n = 0;
		f = fopen(argv[1], "w");
		if (!f)
			_exit(VICTIM_EXIT_SETUP);
		fprintf(f, "%d\n", err);
		fwrite(buf, 1, (size_t)n, f);
		fclose(f);
		_exit(0);
	}
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		victim_setup_fail("middle process");
	return 0;
}
