/* SPDX-License-Identifier: MIT */
/*
 * attack-loop: a tree that keeps creating files, for the test that kills
 * the supervisor with SIGKILL.  The process and one child each create
 * DIR/PID.N (N = 1, 2, ...) every millisecond for up to SECONDS, and
 * write their pids to PIDFILE.  After the supervisor dies no new file may
 * appear and both must be dead.
 *
 *   attack-loop DIR PIDFILE SECONDS
 */
#include "victim.h"

#include <fcntl.h>
#include <time.h>

int main(int argc, char **argv)
{
	char p[4096];
	time_t end;
	int fd;

	victim_name = "attack-loop";
	if (argc != 4)
		victim_usage("DIR PIDFILE SECONDS");
	end = time(NULL) + victim_long(argv[3], "seconds");
	if (fork() < 0)
		victim_setup_fail("fork");
	fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		victim_setup_fail("open %s", argv[2]);
	dprintf(fd, "%d\n", getpid());
	close(fd);
	for (unsigned long n = 1; time(NULL) < end; n++) {
		snprintf(p, sizeof p, "%s/%d.%lu", argv[1], getpid(), n);
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
	return 0;
}
