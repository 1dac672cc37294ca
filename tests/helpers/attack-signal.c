/* SPDX-License-Identifier: MIT */
/*
 * attack-signal: signal a process outside the traced tree.  TARGET is a
 * pid, "parent" (the supervisor, when run as the command) or
 * "parent-pgrp" (its process group).  Exits with the errno the attack
 * call gave (0: it got through); the test checks from outside whether
 * the target got the signal (it is still alive, its witness file is
 * absent).
 *
 *   attack-signal kill|tkill|tgkill|sigqueue|tgsigqueue|pidfd TARGET SIG
 *   attack-signal all SIG           kill(-1, SIG)
 *   attack-signal pgrp TARGET SIG   kill(-TARGET, SIG)
 *   attack-signal join TARGET SIG   setpgid(0, TARGET), then kill(0, SIG)
 *   attack-signal sigio TARGET SIG  F_SETOWN TARGET + F_SETSIG SIG +
 *                                   O_ASYNC on a pipe, then write to it
 *   attack-signal pidfd-race TARGET SIG
 *        fd N is a pidfd of a child of ours; for a second, one thread
 *        dup2()s a pidfd of TARGET and the child's back over N while
 *        this one sends SIG through N (pidfd_send_signal).  Exits 0 if
 *        any send got through, else with the errno of the last.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static int race_in, race_out, race_n;
static atomic_int race_stop;

static void *race_flip(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&race_stop, memory_order_relaxed)) {
		dup2(race_out, race_n);
		dup2(race_in, race_n);
	}
	return NULL;
}

static int pidfd_race(pid_t t, int sig)
{
	struct timespec now, end;
	unsigned long sends = 0, through = 0;
	int err = 0;
	pthread_t th;
	pid_t child = fork();

	if (child < 0)
		victim_setup_fail("fork");
	if (child == 0) {
		for (;;)
			pause();
	}
	race_in = (int)syscall(SYS_pidfd_open, child, 0);
	race_out = (int)syscall(SYS_pidfd_open, t, 0);
	if (race_in < 0 || race_out < 0 || (race_n = dup(race_in)) < 0)
		victim_setup_fail("pidfd_open");
	errno = pthread_create(&th, NULL, race_flip, NULL);
	if (errno)
		victim_setup_fail("pthread_create");
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 1;
	do {
		sends++;
		if (syscall(SYS_pidfd_send_signal, race_n, sig, NULL, 0) == 0)
			through++;
		else
			err = errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	atomic_store(&race_stop, 1);
	pthread_join(th, NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("attack-signal: %lu sends, %lu got through\n", sends, through);
	return victim_result("pidfd-race", through ? 0 : err);
}

static pid_t parse_target(const char *s)
{
	if (!strcmp(s, "parent"))
		return getppid();
	if (!strcmp(s, "parent-pgrp"))
		return getpgid(getppid());
	return (pid_t)victim_long(s, "target");
}

int main(int argc, char **argv)
{
	const char *op;
	pid_t t = 0;
	int sig;
	long r;
	siginfo_t si;

	victim_name = "attack-signal";
	if (argc == 3 && !strcmp(argv[1], "all")) {
		sig = (int)victim_long(argv[2], "signal");
		r = kill(-1, sig);
		return victim_result("kill(-1)", r < 0 ? errno : 0);
	}
	if (argc != 4)
		victim_usage("kill|tkill|tgkill|sigqueue|tgsigqueue|pidfd|pgrp|"
			     "join|sigio|pidfd-race TARGET SIG | all SIG");
	op = argv[1];
	t = parse_target(argv[2]);
	sig = (int)victim_long(argv[3], "signal");
	if (!strcmp(op, "pidfd-race"))
		return pidfd_race(t, sig);
	memset(&si, 0, sizeof si);
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	if (!strcmp(op, "kill"))
		r = kill(t, sig);
	else if (!strcmp(op, "tkill"))
		r = syscall(SYS_tkill, t, sig);
	else if (!strcmp(op, "tgkill"))
		r = syscall(SYS_tgkill, t, t, sig);
	else if (!strcmp(op, "sigqueue"))
		r = syscall(SYS_rt_sigqueueinfo, t, sig, &si);
	else if (!strcmp(op, "tgsigqueue"))
		r = syscall(SYS_rt_tgsigqueueinfo, t, t, sig, &si);
	else if (!strcmp(op, "pidfd")) {
		int pfd = (int)syscall(SYS_pidfd_open, t, 0);

		if (pfd < 0)
			return victim_result("pidfd_open", errno);
		r = syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
	} else if (!strcmp(op, "pgrp"))
		r = kill(-t, sig);
	else if (!strcmp(op, "join")) {
		if (setpgid(0, t) < 0)
			return victim_result("setpgid", errno);
		printf("attack-signal: joined process group %d\n", t);
		r = kill(0, sig);
	} else if (!strcmp(op, "sigio")) {
		int p[2];

		if (pipe(p) < 0)
			victim_setup_fail("pipe");
		if (fcntl(p[0], F_SETOWN, t) < 0)
			return victim_result("F_SETOWN", errno);
		if (fcntl(p[0], F_SETSIG, sig) < 0)
			return victim_result("F_SETSIG", errno);
		if (fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC) < 0)
			return victim_result("O_ASYNC", errno);
		r = write(p[1], "x", 1) == 1 ? 0 : -1;
		usleep(100000);
	} else
		victim_usage("kill|tkill|tgkill|sigqueue|tgsigqueue|pidfd|pgrp|"
			     "join|sigio|pidfd-race TARGET SIG | all SIG");
	return victim_result(op, r < 0 ? errno : 0);
}
