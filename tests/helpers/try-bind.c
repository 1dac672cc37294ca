/* SPDX-License-Identifier: MIT */
/*
 * try-bind: create a stream socket and bind(2) it once; exit with the errno.
 *
 *   try-bind [--serve PORTFILE] [--tail] [--name] HOST PORT | unix PATH | abstract NAME
 *
 * With --name, after the bind: getsockname(2) must give back exactly the
 * address that was bound (as the kernel stores it), else exit 100.
 * With --serve, after the bind: listen, write the bound port (or "unix")
 * to PORTFILE (atomically: PORTFILE.tmp then rename), accept one
 * connection, read what the peer sent until EOF and copy it to stdout;
 * gives up after 20 s (exit ETIMEDOUT).
 */
#include "sockaddr.h"

#include <poll.h>

int main(int argc, char **argv)
{
	int i = 1, tail = 0, name = 0, fd, c;
	const char *serve = NULL;
	struct sockaddr_storage ss;
	struct sockaddr *sa;
	socklen_t len;

	victim_name = "try-bind";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--serve") && i + 1 < argc)
			serve = argv[++i];
		else if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else if (!strcmp(argv[i], "--name"))
			name = 1;
		else
			victim_usage("[--serve PORTFILE] [--tail] [--name] ADDRESS PORT");
	}
	if (argc - i != 2)
		victim_usage("[--serve PORTFILE] [--tail] [--name] ADDRESS PORT");
	len = victim_sockaddr(argv[i], argv[i + 1], &ss);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		victim_setup_fail("socket");
	c = 1;
	if (ss.ss_family != AF_UNIX &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &c, sizeof c) < 0)
		victim_setup_fail("SO_REUSEADDR");
	sa = tail ? victim_tail_copy(&ss, len) : (struct sockaddr *)&ss;
	if (bind(fd, sa, len) < 0)
		return victim_result("bind", errno);
	if (name) {
		struct sockaddr_storage me;
		socklen_t ml = sizeof me;

		if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0)
			victim_setup_fail("getsockname");
		/* The kernel keeps a unix path as given, up to its NUL. */
		if (ss.ss_family == AF_UNIX && len > ml)
			len = ml;
		if (ml != len || memcmp(&me, &ss, len)) {
			fprintf(stderr, "try-bind: getsockname gave %.*s\n",
				(int)(ml - offsetof(struct sockaddr_un, sun_path)),
				((struct sockaddr_un *)&me)->sun_path);
			return 100;
		}
	}
	if (serve) {
		struct sockaddr_storage me;
		socklen_t ml = sizeof me;
		struct pollfd p = { .events = POLLIN };
		char tmp[4096], buf[512];
		FILE *f;
		ssize_t n;

		if (listen(fd, 4) < 0)
			victim_setup_fail("listen");
		if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0)
			victim_setup_fail("getsockname");
		snprintf(tmp, sizeof tmp, "%s.tmp", serve);
		f = fopen(tmp, "w");
		if (!f)
			victim_setup_fail("fopen %s", tmp);
		if (me.ss_family == AF_INET)
			fprintf(f, "%d\n", ntohs(((struct sockaddr_in *)&me)->sin_port));
		else if (me.ss_family == AF_INET6)
			fprintf(f, "%d\n", ntohs(((struct sockaddr_in6 *)&me)->sin6_port));
		else
			fprintf(f, "unix\n");
		if (fclose(f) || rename(tmp, serve))
			victim_setup_fail("write %s", serve);
		p.fd = fd;
		if (poll(&p, 1, 20000) != 1)
			return victim_result("accept", ETIMEDOUT);
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return victim_result("accept", errno);
		p.fd = c;
		while (poll(&p, 1, 5000) == 1 && (n = read(c, buf, sizeof buf)) > 0)
			if (write(1, buf, n) != n)
				break;
	}
	return 0;
}
