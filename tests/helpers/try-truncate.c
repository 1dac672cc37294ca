/* SPDX-License-Identifier: MIT */
/*
 * try-truncate: truncate(2) once and exit with the errno.
 *
 *   try-truncate PATH LENGTH
 */
#include "victim.h"

int main(int argc, char **argv)
{
	victim_name = "try-truncate";
	if (argc != 3)
		victim_usage("PATH LENGTH");
	if (truncate(argv[1], victim_long(argv[2], "length")) < 0)
		return victim_result(argv[1], errno);
	return 0;
}
