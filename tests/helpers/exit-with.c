/* SPDX-License-Identifier: MIT */
/*
 * exit-with: exit with status N (0..255), doing nothing else.
 */
#include "victim.h"

int main(int argc, char **argv)
{
	victim_name = "exit-with";
	if (argc != 2)
		victim_usage("N");
	return (int)(victim_long(argv[1], "status") & 0xff);
}
