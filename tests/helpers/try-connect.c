/* SPDX-License-Identifier: MIT */
/*
 * try-connect: create a socket and connect(2) it once; exit with the errno.
 *
 *   try-connect [--udp] [--nonblock] [--tail] HOST PORT | unix PATH | abstract NAME
 *
 * A blocking TCP connect gives up after 3 s (SO_SNDTIMEO), so a connect
 * that wrongly gets through to an address that never answers shows up as
 * EINPROGRESS, not as a hung test.  --tail puts the sockaddr against an
 * unmapped page.  On success, sends "hello\n" (stream sockets).
 */
#include "sockaddr.h"

#include <sys/time.h>

int main(int argc, char **argv)
{
	int i = 1, udp = 0, nonblock = 0, tail = 0, fd, type;
	struct sockaddr_storage ss;
	struct timeval tv = { .tv_sec = 3 };
	struct sockaddr *sa;
	socklen_t len;

	victim_name = "try-connect";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--udp"))
			udp = 1;
		else if (!strcmp(argv[i], "--nonblock"))
			nonblock = 1;
		else if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else
			victim_usage("[--udp] [--nonblock] [--tail] ADDRESS PORT");
	}
	if (argc - i != 2)
		victim_usage("[--udp] [--nonblock] [--tail] ADDRESS PORT");
	len = victim_sockaddr(argv[i], argv[i + 1], &ss);
	type = (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC;
	if (nonblock)
		type |= SOCK_NONBLOCK;
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0)
		victim_setup_fail("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0)
		victim_setup_fail("SO_SNDTIMEO");
	sa = tail ? victim_tail_copy(&ss, len) : (struct sockaddr *)&ss;
	if (connect(fd, sa, len) < 0)
		return victim_result("connect", errno);
	if (!udp && !nonblock && write(fd, "hello\n", 6) != 6)
		victim_setup_fail("write");
	return 0;
}
