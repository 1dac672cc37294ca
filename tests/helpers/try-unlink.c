/* SPDX-License-Identifier: MIT */
/*
 * try-unlink: unlink(2) once (rmdir(2) with -d) and exit with the errno.
 *
 *   try-unlink [--tail] [-d] PATH
 */
#include "victim.h"

int main(int argc, char **argv)
{
	int i = 1, tail = 0, dir = 0, r;
	char *path;

	victim_name = "try-unlink";
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else if (!strcmp(argv[i], "-d"))
			dir = 1;
		else
			victim_usage("[--tail] [-d] PATH");
	}
	if (argc - i != 1)
		victim_usage("[--tail] [-d] PATH");
	path = tail ? victim_tail_str(argv[i]) : argv[i];
	r = dir ? rmdir(path) : unlink(path);
	return victim_result(argv[i], r < 0 ? errno : 0);
}
