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
 */
#include "victim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>

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
			     "join|sigio TARGET SIG | all SIG");
	op = argv[1];
	t = parse_target(argv[2]);
	sig = (int)victim_long(argv[3], "signal");
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
			     "join|sigio TARGET SIG | all SIG");
	return victim_result(op, r < 0 ? errno : 0);
}
