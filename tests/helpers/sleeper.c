/* SPDX-License-Identifier: MIT */
/*
 * sleeper: fork NCHILD children (default 0), then every process appends
 * its pid as a line to PIDFILE and waits for a signal (at most 60 s).  The
 * first process waits for its children; it exits 0 only if it was never
 * signalled, which a test that sends signals treats as a failure.
 *
 *   sleeper PIDFILE [NCHILD]
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/wait.h>

static void note_pid(const char *file)
{
	char buf[32];
	int fd, n;

	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		victim_setup_fail("open %s", file);
	n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
	if (write(fd, buf, n) != n)
		victim_setup_fail("write %s", file);
	close(fd);
}

int main(int argc, char **argv)
{
	long i, n = 0;

	victim_name = "sleeper";
	if (argc < 2 || argc > 3)
		victim_usage("PIDFILE [NCHILD]");
	if (argc == 3)
		n = victim_long(argv[2], "count");
	for (i = 0; i < n; i++) {
		pid_t c = fork();

		if (c < 0)
			victim_setup_fail("fork");
		if (c == 0) {
			note_pid(argv[1]);
			sleep(60);
			_exit(0);
		}
	}
	note_pid(argv[1]);
	sleep(60);
	while (wait(NULL) > 0)
		;
	return 0;
}
