/* SPDX-License-Identifier: MIT */
/*
 * try-symlink: symlink(2) once and exit with the errno.
 *
 *   try-symlink [--tail] TARGET LINKPATH
 */
#include "victim.h"

int main(int argc, char **argv)
{
	int i = 1, tail = 0, r;
	char *t, *l;

	victim_name = "try-symlink";
	if (i < argc && !strcmp(argv[i], "--tail")) {
		tail = 1;
		i++;
	}
	if (argc - i != 2)
		victim_usage("[--tail] TARGET LINKPATH");
	t = tail ? victim_tail_str(argv[i]) : argv[i];
	l = tail ? victim_tail_str(argv[i + 1]) : argv[i + 1];
	r = symlink(t, l);
	return victim_result(argv[i + 1], r < 0 ? errno : 0);
}
