/* SPDX-License-Identifier: MIT */
/*
 * attack-abi: leave the x86_64 ABI the filter checks.  Makes an x32
 * system call (number | 0x40000000): mkdirat(AT_FDCWD, MARKER) when the
 * kernel takes it, getpid otherwise.  sysgate kills the process (SIGSYS);
 * the test checks the status and that MARKER was not created.  Exits
 * with the errno the call gave if it returns at all.
 *
 *   attack-abi x32-mkdir MARKER | x32-getpid
 *
 * (i386 int 0x80 cannot be tested here: it raises SIGSEGV in this VM.)
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/syscall.h>

#define X32_BIT 0x40000000L

int main(int argc, char **argv)
{
	long r;

	victim_name = "attack-abi";
	if (argc == 3 && !strcmp(argv[1], "x32-mkdir"))
		r = syscall(X32_BIT | SYS_mkdirat, AT_FDCWD, argv[2], 0755);
	else if (argc == 2 && !strcmp(argv[1], "x32-getpid"))
		r = syscall(X32_BIT | SYS_getpid);
	else
		victim_usage("x32-mkdir MARKER | x32-getpid");
	printf("attack-abi: the x32 call returned %ld\n", r);
	return victim_result(argv[1], r < 0 ? errno : 0);
}
