/* SPDX-License-Identifier: MIT */
/*
 * attack-net: ways a socket reaches out or listens without a connect or
 * bind that names the address the packets really go to.  Each mode tries
 * ONE way and exits with the errno of the call that failed (0: the way
 * was open).  Whether packets left is judged outside, on a veth.
 *
 *   attack-net listen PORTFILE [6]  listen() on an unbound TCP socket
 *                                   (IPv4, or IPv6 with "6"); the port
 *                                   goes to PORTFILE; accepts one
 *                                   connection within 10 s (ETIMEDOUT)
 *   attack-net bind-unspec PORTFILE PORT  the same after a bind of an
 *                                   AF_INET socket to an address whose
 *                                   family says AF_UNSPEC (the kernel binds
 *                                   0.0.0.0:PORT)
 *   attack-net packet IFNAME MARK   a packet socket sends a frame holding
 *                                   MARK, its address claiming AF_NETLINK
 *   attack-net raw                  socket(AF_INET, SOCK_RAW, IPPROTO_UDP)
 *   attack-net ipopt HOP MARK       IP_OPTIONS loose source route via HOP,
 *                                   then a UDP send to 127.0.0.1
 *   attack-net rthdr HOP6 MARK      IPV6_RTHDR segment routing header via
 *                                   HOP6, then a UDP send to [::1]
 *   attack-net bindtodev IFNAME MARK  SO_BINDTODEVICE IFNAME, then a UDP
 *                                   send to 127.0.0.1
 *   attack-net unicastif IFNAME MARK  IP_UNICAST_IF IFNAME, the same
 *   attack-net retopts HOP MARK     a sendmsg to 127.0.0.1 whose control
 *                                   message IP_RETOPTS routes it via HOP
 */
#include "victim.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#ifndef IPV6_RTHDR
#define IPV6_RTHDR 57
#endif

static int do_listen(const char *portfile, int v6, int unspec_port)
{
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	char tmp[4096];
	struct pollfd p;
	FILE *f;
	int fd, c, port;

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		victim_setup_fail("socket");
	if (unspec_port >= 0) {
		struct sockaddr_in in = {
			.sin_family = AF_UNSPEC,
			.sin_port = htons((uint16_t)unspec_port),
		};

		if (bind(fd, (struct sockaddr *)&in, sizeof(in)) < 0)
			return victim_result("bind", errno);
	}
	if (listen(fd, 4) < 0)
		return victim_result("listen", errno);
	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0)
		victim_setup_fail("getsockname");
	port = ntohs(((struct sockaddr_in *)&me)->sin_port);
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 ||
	    rename(tmp, portfile) < 0)
		victim_setup_fail("%s", portfile);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 10000) <= 0)
		return victim_result("accept", ETIMEDOUT);
	c = accept(fd, NULL, NULL);
	if (c < 0)
		return victim_result("accept", errno);
	return 0;
}

static int do_packet(const char *ifname, const char *mark)
{
	unsigned char frame[128] = { 0 };
	struct sockaddr_ll ll = {
		.sll_family = AF_NETLINK,	/* the lie */
		.sll_protocol = htons(ETH_P_IP),
		.sll_halen = ETH_ALEN,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	size_t ml = strlen(mark);
	int fd;

	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (fd < 0)
		return victim_result("socket", errno);
	/* The kernel reads no family for a packet send: the address is a
	 * sockaddr_ll whatever its first field says. */
	ll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!ll.sll_ifindex)
		victim_setup_fail("if_nametoindex %s", ifname);
	if (ml > sizeof(frame) - 20)
		victim_setup_fail("mark too long");
	memcpy(frame + 20, mark, ml);
	if (sendto(fd, frame, 20 + ml, 0, (struct sockaddr *)&ll,
		   sizeof(ll)) < 0)
		return victim_result("sendto", errno);
	return 0;
}

static int send_mark(int fd, int v6, const char *mark)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(9) };
	int rc;

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in6.sin6_addr = in6addr_loopback;
	if (v6)
		rc = (int)sendto(fd, mark, strlen(mark), 0,
				 (struct sockaddr *)&in6, sizeof(in6));
	else
		rc = (int)sendto(fd, mark, strlen(mark), 0,
				 (struct sockaddr *)&in, sizeof(in));
	return rc < 0 ? victim_result("sendto", errno) : 0;
}

static int do_ipopt(const char *hop, const char *mark)
{
	/* NOP, LSRR (len 7, ptr 4, one address): the first hop. */
	unsigned char opt[8] = { IPOPT_NOP, IPOPT_LSRR, 7, 4 };
	struct in_addr a;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		victim_setup_fail("socket");
	if (inet_pton(AF_INET, hop, &a) != 1)
		victim_setup_fail("bad address %s", hop);
	memcpy(opt + 4, &a, 4);
	if (setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, sizeof(opt)) < 0)
		return victim_result("setsockopt IP_OPTIONS", errno);
	return send_mark(fd, 0, mark);
}

static int do_rthdr(const char *hop, const char *mark)
{
	/* A segment routing header (type 4): segments[0] the final [::1],
	 * segments[1] the active one (segments_left 1). */
	unsigned char h[8 + 2 * 16] = { 0 };
	struct in6_addr a;
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		victim_setup_fail("socket");
	if (inet_pton(AF_INET6, hop, &a) != 1)
		victim_setup_fail("bad address %s", hop);
	h[1] = 4;	/* hdrlen: 2 segments of 2 units */
	h[2] = 4;	/* type */
	h[3] = 1;	/* segments_left */
	h[4] = 1;	/* first_segment (last_entry) */
	memcpy(h + 8, &in6addr_loopback, 16);
	memcpy(h + 24, &a, 16);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, h, sizeof(h)) < 0)
		return victim_result("setsockopt IPV6_RTHDR", errno);
	return send_mark(fd, 1, mark);
}

static int do_dev(const char *ifname, const char *mark, int unicast_if)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		victim_setup_fail("socket");
	if (unicast_if) {
		/* The index in network byte order (ip(7)). */
		unsigned idx = htonl(if_nametoindex(ifname));

		rc = setsockopt(fd, IPPROTO_IP, IP_UNICAST_IF, &idx,
				sizeof(idx));
	} else {
		rc = setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				(socklen_t)strlen(ifname));
	}
	if (rc < 0)
		return victim_result("setsockopt", errno);
	return send_mark(fd, 0, mark);
}

static int do_retopts(const char *hop, const char *mark)
{
	unsigned char opt[8] = { IPOPT_NOP, IPOPT_LSRR, 7, 4 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(opt))];
	} ctl;
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	struct iovec iov = { (void *)mark, strlen(mark) };
	struct msghdr mh = {
		.msg_name = &in, .msg_namelen = sizeof(in),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.b, .msg_controllen = sizeof(ctl.b),
	};
	struct in_addr a;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		victim_setup_fail("socket");
	if (inet_pton(AF_INET, hop, &a) != 1)
		victim_setup_fail("bad address %s", hop);
	memcpy(opt + 4, &a, 4);
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = IPPROTO_IP;
	ctl.h.cmsg_type = IP_RETOPTS;
	ctl.h.cmsg_len = CMSG_LEN(sizeof(opt));
	memcpy(CMSG_DATA(&ctl.h), opt, sizeof(opt));
	if (sendmsg(fd, &mh, 0) < 0)
		return victim_result("sendmsg", errno);
	return 0;
}

int main(int argc, char **argv)
{
	victim_name = "attack-net";
	if (argc >= 3 && !strcmp(argv[1], "listen"))
		return do_listen(argv[2], argc > 3 && !strcmp(argv[3], "6"), -1);
	if (argc == 4 && !strcmp(argv[1], "bind-unspec"))
		return do_listen(argv[2], 0, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "packet"))
		return do_packet(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "raw")) {
		int fd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);

		return fd < 0 ? victim_result("socket", errno) : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "ipopt"))
		return do_ipopt(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "rthdr"))
		return do_rthdr(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "bindtodev"))
		return do_dev(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "unicastif"))
		return do_dev(argv[2], argv[3], 1);
	if (argc == 4 && !strcmp(argv[1], "retopts"))
		return do_retopts(argv[2], argv[3]);
	fprintf(stderr, "usage: attack-net listen|bind-unspec|packet|raw|ipopt|rthdr|"
			"bindtodev|unicastif|retopts ...\n");
	return VICTIM_EXIT_SETUP;
}
