/* SPDX-License-Identifier: MIT */
/*
 * try-send [--msg|--mmsg] HOST PORT: send one UDP datagram "hello" to
 * HOST:PORT from an unconnected socket with sendto (default), sendmsg or
 * sendmmsg, and exit with the errno seen (0 when it was sent).
 */
#include "victim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	char data[] = "hello\n";
	struct iovec iov = { data, sizeof(data) - 1 };
	int mode = 0, i = 1, fd;
	long r;

	victim_name = "try-send";
	if (i < argc && !strcmp(argv[i], "--msg"))
		mode = 1, i++;
	else if (i < argc && !strcmp(argv[i], "--mmsg"))
		mode = 2, i++;
	if (argc - i != 2)
		victim_usage("[--msg|--mmsg] HOST PORT");
	if (strchr(argv[i], ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((unsigned short)atoi(argv[i + 1]));
		if (inet_pton(AF_INET6, argv[i], &a->sin6_addr) != 1)
			victim_usage("[--msg|--mmsg] HOST PORT");
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((unsigned short)atoi(argv[i + 1]));
		if (inet_pton(AF_INET, argv[i], &a->sin_addr) != 1)
			victim_usage("[--msg|--mmsg] HOST PORT");
		len = sizeof(*a);
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		victim_setup_fail("socket");
	if (mode == 0) {
		r = sendto(fd, data, sizeof(data) - 1, 0, (struct sockaddr *)&ss, len);
	} else {
		struct mmsghdr m = { .msg_hdr = {
			.msg_name = &ss, .msg_namelen = len,
			.msg_iov = &iov, .msg_iovlen = 1,
		} };

		if (mode == 1)
			r = sendmsg(fd, &m.msg_hdr, 0);
		else
			r = sendmmsg(fd, &m, 1, 0) == 1 ? (long)m.msg_len : -1;
	}
	if (r < 0)
		return victim_result("send", errno);
	return r == (long)sizeof(data) - 1 ? 0 : victim_result("short send", EIO);
}
