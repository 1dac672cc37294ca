// SPDX-License-Identifier: MIT
/*
 * audit/syslog: the trail's records as RFC 5424 messages (audit/syslog.h).
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include "audit/syslog.h"
#include "common/util.h"

/* authpriv (10) * 8 + info (6) */
#define SYSLOG_PRI 86
/* RFC 5424: MSGID is at most 32 PRINTUSASCII, HOSTNAME at most 255. */
#define MSGID_MAX 32
#define HOST_MAX 255
/* "<86>1 " TS SP HOST " sysgate " PID SP MSGID " - ", and a TCP length. */
#define HEAD_MAX (8 + 64 + 1 + HOST_MAX + 9 + 20 + 1 + MSGID_MAX + 3 + 24)

struct audit_syslog {
	int fd;
	bool stream;		/* octet-counted framing (TCP, unix stream) */
	int err;		/* sticky: the first send error */
	unsigned long long failed_seq;
	char host[HOST_MAX + 1];
	char msgid[MSGID_MAX + 1];
	long pid;
	audit_syslog_fmt fmt;	/* NULL: the line itself */
	void *fmt_ctx;
	bool lines;		/* an fd sink: text and '\n', no syslog head */
	struct audit_syslog *next;	/* sent to after this one */
};

/* PRINTUSASCII (%d33-126) only, 1..max characters. */
static bool printusascii(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 33 || s[i] > 126)
			return false;
	return true;
}

/* "HOST:PORT", HOST numeric IPv4 or [IPv6]. */
static int parse_inet(const char *spec, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *h = spec;
	size_t hlen;
	char *end;
	long port;

	colon = strrchr(spec, ':');
	if (!colon)
		return -EINVAL;
	hlen = (size_t)(colon - spec);
	if (hlen >= 2 && spec[0] == '[' && spec[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port < 1 || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (h == spec) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
	}
	return 0;
}

/* A socket of type, close-on-exec, its sends (and connect) bounded. */
static int bounded_socket(int family, int type)
{
	struct timeval tv = {
		.tv_sec = AUDIT_SYSLOG_TIMEOUT_MS / 1000,
		.tv_usec = (AUDIT_SYSLOG_TIMEOUT_MS % 1000) * 1000,
	};
	int fd = socket(family, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static int connect_to(int family, int type, const struct sockaddr *sa,
		      socklen_t len)
{
	int fd = bounded_socket(family, type);

	if (fd < 0)
		return fd;
	if (TEMP_FAILURE_RETRY_INT(connect(fd, sa, len)) < 0) {
		int e = errno == EINPROGRESS ? ETIMEDOUT : errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* unix:PATH: a datagram socket (as /dev/log), else a stream one. */
static int open_unix(struct audit_syslog *s, const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!*path || strlen(path) >= sizeof(un.sun_path))
		return -EINVAL;
	strcpy(un.sun_path, path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			  strlen(path) + 1);
	fd = connect_to(AF_UNIX, SOCK_DGRAM, (struct sockaddr *)&un, len);
	if (fd == -EPROTOTYPE) {
		fd = connect_to(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&un,
				len);
		s->stream = true;
	}
	if (fd < 0)
		return fd;
	s->fd = fd;
	return 0;
}

static int open_inet(struct audit_syslog *s, const char *spec, bool tcp)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, rc;

	rc = parse_inet(spec, &ss, &len);
	if (rc < 0)
		return rc;
	fd = connect_to(ss.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM,
			(struct sockaddr *)&ss, len);
	if (fd < 0)
		return fd;
	s->fd = fd;
	s->stream = tcp;
	return 0;
}

int audit_syslog_open(const char *dest, const char *run_id,
		      struct audit_syslog **out)
{
	struct audit_syslog *s;
	int rc;

	if (!dest || !run_id || !out)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = -1;
	if (!strncmp(dest, "unix:", 5))
		rc = open_unix(s, dest + 5);
	else if (!strncmp(dest, "udp:", 4))
		rc = open_inet(s, dest + 4, false);
	else if (!strncmp(dest, "tcp:", 4))
		rc = open_inet(s, dest + 4, true);
	else
		rc = -EINVAL;
	if (rc < 0) {
		free(s);
		return rc;
	}
	if (gethostname(s->host, sizeof(s->host)) < 0 ||
	    !printusascii(s->host, HOST_MAX))
		strcpy(s->host, "-");
	if (printusascii(run_id, MSGID_MAX))
		strcpy(s->msgid, run_id);
	else
		strcpy(s->msgid, "-");
	s->pid = (long)getpid();
	*out = s;
	return 0;
}

/*
 * The seq and ts of a trail line, from its head (written by the writer:
 * {"seq":N,"ts":"...",...).  ts is "-" (RFC 5424 NILVALUE) should the head
 * not be as expected.
 */
static void line_head(const char *p, size_t n, unsigned long long *seq,
		      const char **ts, size_t *ts_len)
{
	const char *end = p + n, *q = p + 7, *t;

	*seq = 0;
	*ts = "-";
	*ts_len = 1;
	if (n < 7 || memcmp(p, "{\"seq\":", 7))
		return;
	while (q < end && *q >= '0' && *q <= '9')
		*seq = *seq * 10 + (unsigned long long)(*q++ - '0');
	if (end - q < 8 || memcmp(q, ",\"ts\":\"", 7))
		return;
	q += 7;
	t = memchr(q, '"', (size_t)(end - q));
	if (t && t - q <= 40 && t > q) {
		*ts = q;
		*ts_len = (size_t)(t - q);
	}
}

/* sendmsg until every byte went (a stream may take part of it). */
static int send_iov(int fd, struct iovec *iov, int cnt)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };

	while (mh.msg_iovlen) {
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		while (mh.msg_iovlen && (size_t)n >= mh.msg_iov->iov_len) {
			n -= (ssize_t)mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen) {
			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + n;
			mh.msg_iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * A stream whose receiver has gone (end of file, or an error waiting) is
 * refused before anything more is put into it: the kernel would take the
 * next message all the same, and lose it.
 */
static int stream_alive(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0)
		return -EPIPE;
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		return -errno;
	return 0;
}

/* writev until every byte went (a pipe or a file may take part of it). */
static int write_iov(int fd, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = writev(fd, iov, cnt);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* An fd sink: the text (the record's OCSF event) as one line. */
static int write_line(struct audit_syslog *s, const char *p, size_t n,
		      unsigned long long seq)
{
	struct iovec iov[2] = { { (void *)p, n }, { (void *)"\n", 1 } };

	s->err = write_iov(s->fd, iov, 2);
	if (s->err)
		s->failed_seq = seq;
	return s->err;
}

static int send_line(struct audit_syslog *s, const char *p, size_t n)
{
	char head[HEAD_MAX], frame[24], *text = NULL;
	struct iovec iov[3];
	unsigned long long seq;
	const char *ts;
	size_t ts_len;
	int hl, fl = 0, cnt = 0;

	line_head(p, n, &seq, &ts, &ts_len);
	if (s->fmt) {
		size_t text_len = 0;

		s->err = s->fmt(s->fmt_ctx, p, n, &text, &text_len);
		if (s->err) {
			s->failed_seq = seq;
			return s->err;
		}
		p = text;
		n = text_len;
	}
	if (s->lines) {
		write_line(s, p, n, seq);
		free(text);
		return s->err;
	}
	hl = snprintf(head, sizeof(head), "<%d>1 %.*s %s sysgate %ld %s - ",
		      SYSLOG_PRI, (int)ts_len, ts, s->host, s->pid, s->msgid);
	if (hl < 0 || (size_t)hl >= sizeof(head)) {
		free(text);
		s->err = -EINVAL;
		s->failed_seq = seq;
		return s->err;
	}
	if (s->stream) {
		/* RFC 6587 octet counting: MSG-LEN SP SYSLOG-MSG */
		fl = snprintf(frame, sizeof(frame), "%zu ", (size_t)hl + n);
		iov[cnt++] = (struct iovec){ frame, (size_t)fl };
	}
	iov[cnt++] = (struct iovec){ head, (size_t)hl };
	iov[cnt++] = (struct iovec){ (void *)p, n };
	s->err = send_iov(s->fd, iov, cnt);
	free(text);
	if (s->err)
		s->failed_seq = seq;
	return s->err;
}

void audit_syslog_set_format(struct audit_syslog *s, audit_syslog_fmt fmt,
			     void *ctx)
{
	s->fmt = fmt;
	s->fmt_ctx = ctx;
}

int audit_syslog_open_fd(int fd, struct audit_syslog **out)
{
	struct audit_syslog *s;

	if (fd < 0 || !out)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->lines = true;
	*out = s;
	return 0;
}

void audit_syslog_chain(struct audit_syslog *s, struct audit_syslog *next)
{
	while (s->next)
		s = s->next;
	s->next = next;
}

/* The first error of s or of the sinks after it, and its seq. */
static int chain_error(const struct audit_syslog *s,
		       unsigned long long *seq)
{
	for (; s; s = s->next)
		if (s->err) {
			if (seq)
				*seq = s->failed_seq;
			return s->err;
		}
	return 0;
}

static int send_one(struct audit_syslog *s, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	if (s->stream && (s->err = stream_alive(s->fd)) < 0) {
		unsigned long long seq;
		const char *ts;
		size_t ts_len;

		line_head(buf, len, &seq, &ts, &ts_len);
		s->failed_seq = seq;
		return s->err;
	}
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (send_line(s, p, (size_t)(nl - p)) < 0)
			return s->err;
		p = nl + 1;
	}
	return 0;
}

int audit_syslog_send(struct audit_syslog *s, const char *buf, size_t len)
{
	int rc;

	if (!s)
		return -EINVAL;
	rc = chain_error(s, NULL);
	if (rc)
		return rc;
	for (; s; s = s->next) {
		rc = send_one(s, buf, len);
		if (rc)
			return rc;
	}
	return 0;
}

unsigned long long audit_syslog_failed_seq(const struct audit_syslog *s)
{
	unsigned long long seq = 0;

	chain_error(s, &seq);
	return seq;
}

void audit_syslog_close(struct audit_syslog *s)
{
	while (s) {
		struct audit_syslog *next = s->next;

		if (s->fd >= 0)
			close(s->fd);
		free(s);
		s = next;
	}
}
