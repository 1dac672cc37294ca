/* SPDX-License-Identifier: MIT */
/*
 * attack-thread: a thread that outlives its leader.  The main thread
 * ends (MODE exit: the raw exit syscall; pthread-exit: pthread_exit) and
 * the other thread, once the leader is a zombie, opens PATH, writes the
 * errno and what it read to OUT and ends the process with exit_group
 * (errno).  MODE exec: that thread execs PROG ARGS... instead.
 *
 *   attack-thread exit|pthread-exit OUT PATH
 *   attack-thread exec PROG [ARG...]
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>

static char **args;
static int exec_mode;
static pid_t leader;

static int leader_gone(void)
{
	char p[64], buf[512];
	int fd;
	ssize_t n;
	char *s;

	snprintf(p, sizeof p, "/proc/self/task/%d/stat", leader);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	s = strrchr(buf, ')');
	return s && (s[2] == 'Z' || s[2] == 'X');
}

static void *late(void *arg)
{
	char buf[4096];
	ssize_t n = 0;
	int fd, err;
	FILE *f;

	(void)arg;
	for (int i = 0; i < 2000 && !leader_gone(); i++)
		usleep(1000);
	if (exec_mode) {
		execv(args[0], args);
		syscall(SYS_exit_group, VICTIM_EXIT_SETUP);
	}
	fd = open(args[1], O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (fd >= 0 && (n = read(fd, buf, sizeof buf)) < 0)
		n = 0;
	f = fopen(args[0], "w");
	if (f) {
		fprintf(f, "%d\n", err);
		fwrite(buf, 1, (size_t)n, f);
		fclose(f);
	}
	syscall(SYS_exit_group, err);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	victim_name = "attack-thread";
	if (argc < 3)
		victim_usage("exit|pthread-exit OUT PATH | exec PROG [ARG...]");
	exec_mode = !strcmp(argv[1], "exec");
	if (!exec_mode && argc != 4)
		victim_usage("exit|pthread-exit OUT PATH | exec PROG [ARG...]");
	args = argv + 2;
	leader = getpid();
	errno = pthread_create(&t, NULL, late, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	if (!strcmp(argv[1], "pthread-exit"))
		pthread_exit(NULL);
	syscall(SYS_exit, 0);
	return VICTIM_EXIT_SETUP;
}
