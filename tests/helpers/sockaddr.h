/* SPDX-License-Identifier: MIT */
/*
 * tests/helpers/sockaddr.h: parse a victim's address arguments.
 *
 *   HOST PORT        IPv4 or IPv6 literal (no brackets), port number
 *   unix PATH        AF_UNIX path socket
 *   abstract NAME    AF_UNIX abstract socket (leading NUL)
 */
#ifndef SYSGATE_TESTS_SOCKADDR_H
#define SYSGATE_TESTS_SOCKADDR_H

#include "victim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

static inline socklen_t victim_sockaddr(const char *a, const char *b,
					struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_un *un = (struct sockaddr_un *)ss;
	size_t n = strlen(b);

	memset(ss, 0, sizeof *ss);
	if (!strcmp(a, "unix") || !strcmp(a, "abstract")) {
		int abstract = a[0] == 'a';

		if (n + abstract >= sizeof un->sun_path) {
			fprintf(stderr, "%s: unix path too long\n", victim_name);
			exit(VICTIM_EXIT_SETUP);
		}
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + abstract, b, n);
		return offsetof(struct sockaddr_un, sun_path) + abstract + n +
		       !abstract;
	}
	if (inet_pton(AF_INET, a, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(victim_long(b, "port"));
		return sizeof *in4;
	}
	if (inet_pton(AF_INET6, a, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(victim_long(b, "port"));
		return sizeof *in6;
	}
	fprintf(stderr, "%s: bad address '%s'\n", victim_name, a);
	exit(VICTIM_EXIT_SETUP);
}

#endif
