/* SPDX-License-Identifier: MIT */
/*
 * try-exec: execv(2) PATH once; on failure exit with the errno.  When the
 * exec works, the status is the new program's.
 *
 *   try-exec PATH [ARG...]          (argv[0] of the new program is PATH)
 */
#include "victim.h"

int main(int argc, char **argv)
{
	victim_name = "try-exec";
	if (argc < 2)
		victim_usage("PATH [ARG...]");
	execv(argv[1], argv + 1);
	return victim_result(argv[1], errno);
}
