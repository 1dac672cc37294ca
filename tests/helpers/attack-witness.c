/* SPDX-License-Identifier: MIT */
/*
 * attack-witness: a process OUTSIDE the traced tree that the signal
 * attacks aim at.  It makes itself a process group leader (in the
 * caller's session, so that a tree process could join its group), writes
 * its pid to PIDFILE, and for every catchable signal it receives creates
 * DIR/got-N.  It lives up to SECONDS (default 60).
 *
 *   attack-witness PIDFILE DIR [SECONDS]
 */
#include "victim.h"

#include <fcntl.h>
#include <signal.h>

static const char *dir;

static void on_signal(int sig)
{
	char p[4096];
	int fd;

	/* snprintf is not async-signal-safe in theory; it is harmless here
	 * (the main loop only sleeps). */
	snprintf(p, sizeof p, "%s/got-%d", dir, sig);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2,
				    SIGTERM, SIGURG, SIGWINCH, SIGIO, SIGALRM,
				    SIGCONT, SIGTSTP };
	struct sigaction sa;
	long secs = 60;
	FILE *f;

	victim_name = "attack-witness";
	if (argc != 3 && argc != 4)
		victim_usage("PIDFILE DIR [SECONDS]");
	dir = argv[2];
	if (argc == 4)
		secs = victim_long(argv[3], "seconds");
	if (setpgid(0, 0) < 0)
		victim_setup_fail("setpgid");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		victim_setup_fail("writing %s", argv[1]);
	for (long i = 0; i < secs * 10; i++)
		usleep(100000);
	return 0;
}
