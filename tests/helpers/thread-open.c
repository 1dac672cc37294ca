/* SPDX-License-Identifier: MIT */
/*
 * thread-open: a second thread opens PATH for reading; the process exits
 * with the errno that thread saw.
 *
 *   thread-open PATH
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>

static int result;

static void *opener(void *arg)
{
	int fd = open(arg, O_RDONLY | O_CLOEXEC);

	result = fd < 0 ? errno : 0;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	victim_name = "thread-open";
	if (argc != 2)
		victim_usage("PATH");
	errno = pthread_create(&t, NULL, opener, argv[1]);
	if (errno)
		victim_setup_fail("pthread_create");
	pthread_join(t, NULL);
	return victim_result(argv[1], result);
}
