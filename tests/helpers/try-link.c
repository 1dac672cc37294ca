/* SPDX-License-Identifier: MIT */
/*
 * try-link: link(2) once and exit with the errno.
 *
 *   try-link [--tail] OLD NEW
 */
#include "victim.h"

int main(int argc, char **argv)
{
	int i = 1, tail = 0, r;
	char *o, *n;

	victim_name = "try-link";
	if (i < argc && !strcmp(argv[i], "--tail")) {
		tail = 1;
		i++;
	}
	if (argc - i != 2)
		victim_usage("[--tail] OLD NEW");
	o = tail ? victim_tail_str(argv[i]) : argv[i];
	n = tail ? victim_tail_str(argv[i + 1]) : argv[i + 1];
	r = link(o, n);
	return victim_result(argv[i + 1], r < 0 ? errno : 0);
}
