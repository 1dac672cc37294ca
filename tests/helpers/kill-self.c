/* SPDX-License-Identifier: MIT */
/*
 * kill-self: die by signal SIG (a number or a name without SIG: TERM, KILL,
 * SEGV, ABRT...).  The default disposition is restored first.
 */
#include "victim.h"

#include <signal.h>

int main(int argc, char **argv)
{
	int sig = 0, s;
	sigset_t set;

	victim_name = "kill-self";
	if (argc != 2)
		victim_usage("SIG");
	for (s = 1; s < NSIG && !sig; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && !strcmp(abbrev, argv[1]))
			sig = s;
	}
	if (!sig)
		sig = (int)victim_long(argv[1], "signal");
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(sig, SIG_DFL);
	raise(sig);
	kill(getpid(), sig);
	/* A blocked or ignored-by-kernel signal: say so, not an errno. */
	victim_setup_fail("still alive after signal %d", sig);
}
