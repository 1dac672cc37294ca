/* SPDX-License-Identifier: MIT */
/*
 * Network calls on the trusted path: connect and bind are decided on the
 * copied address and carried out on the caller's socket (a pidfd_getfd
 * dup); sends with a destination (sendto, sendmsg, sendmmsg) are decided
 * the same way and sent by the supervisor from a copy of the data, since
 * the kernel would read the address again.  A send on a connected stream
 * socket goes where connect() decided and is continued without a look at
 * its memory.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <linux/capability.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sched.h>
#include <sys/sysmacros.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/net.h"
#include "supervisor/notify.h"
#include "supervisor/pool.h"
#include "supervisor/resolve.h"
#include "supervisor/stack.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"

/* Caps on what is copied out of the tracee for one emulated send. */
#define SEND_MAX_BYTES (4u << 20)
#define SEND_MAX_CONTROL 16384u
#define SEND_MAX_IOV 1024u
#define SEND_MAX_MSGS 1024u

/* ------------------------------------------------------------------ */
/* connect / bind                                                      */

struct net_job {
	struct call_job job;	/* first */
	int sock;
	int path_fd;    /* keeps the unix socket file named by act alive */
	struct sockaddr_storage act;
	socklen_t act_len;
};

static void *connect_thread(void *arg)
{
	struct net_job *j = arg;
	int rc = call_job_enter(&j->job);

	if (rc == 0 && connect(j->sock, (struct sockaddr *)&j->act, j->act_len) < 0)
		rc = -errno;
	call_job_leave(&j->job);
	call_result(&j->job.c, rc);
	close(j->sock);
	if (j->path_fd >= 0)
		close(j->path_fd);
	notify_finish(j->job.s, &j->job.c, false);
	free(j);
	return NULL;
}

/*
 * action = rewrite of an address (connect, send*): *act becomes the
 * redirect, and the call is decided again on it by every rule but the
 * rewrite's own (rules_match_rewritten()).  On return c->v is the new
 * decision; an address the redirect cannot reach is refused (EAFNOSUPPORT
 * in c->err, c->v still the rewrite).
 */
static void rewrite_addr(struct sup *s, struct call *c, struct rules_event *ev,
			 struct rules_verdict *v, struct sockaddr_storage *act,
			 socklen_t *act_len)
{
	struct rules_verdict again;
	int rc;

	if (v->action != RULES_REWRITE)
		return;
	rc = rules_rewrite_addr(v, ev->addr, ev->addr_len, act, act_len);
	if (rc < 0) {
		c->err = rc == -ENOENT ? EPERM : -rc;
		c->note = "the address cannot be redirected";
		return;
	}
	c->rewritten = true;
	c->rewrite_rule = v->rule;
	memcpy(c->orig_args, c->req->data.args, sizeof(c->orig_args));
	c->rw_addr = *act;
	c->rw_addr_len = *act_len;
	c->have_rw_addr = true;
	ev->addr = (struct sockaddr *)act;
	ev->addr_len = *act_len;
	rules_match_rewritten(s->run.rules, ev, v->rule, &again);
	*v = again;
}

/* The socket's own family (SO_DOMAIN), or -errno. */
static int sock_domain(int sock)
{
	int d = -1;
	socklen_t l = sizeof(d);

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &d, &l) < 0)
		return -errno;
	return d;
}

/* How an address is decided on a socket of family domain. */
enum addr_kind {
	ADDR_OWN,	/* as given: the socket's family (or IPv4 on inet6) */
	ADDR_UNSPEC,	/* AF_UNSPEC on inet: read as the socket's family */
	ADDR_UNNAMED,	/* a family no addr pattern describes */
	ADDR_REFUSED,	/* a family the socket does not take */
};

/*
 * Security: the family written in an address is the caller's to choose;
 * the kernel reads the address as the socket's family would (a packet
 * socket takes a sockaddr_ll whatever it claims to be, an inet socket
 * takes AF_UNSPEC as AF_INET for bind and sendto).  So the family a rule
 * sees is the socket's (SO_DOMAIN on our dup): an inet6 socket takes
 * IPv4 addresses as the kernel does, AF_UNSPEC on an inet socket is read
 * as the socket's family, a socket whose family no addr pattern describes
 * is decided as such (decide_unnamed), and any other mismatch is refused.
 */
static enum addr_kind addr_kind(int domain, sa_family_t family)
{
	if (domain != AF_UNIX && domain != AF_NETLINK && domain != AF_INET &&
	    domain != AF_INET6)
		return ADDR_UNNAMED;
	if (family == domain || (domain == AF_INET6 && family == AF_INET))
		return ADDR_OWN;
	/* AF_UNSPEC on a unix or netlink socket is a disconnect (or the
	 * kernel's EINVAL) and matches no addr pattern. */
	if (family == AF_UNSPEC && (domain == AF_UNIX || domain == AF_NETLINK))
		return ADDR_OWN;
	if (family == AF_UNSPEC && (domain == AF_INET || domain == AF_INET6))
		return ADDR_UNSPEC;
	return ADDR_REFUSED;
}

/*
 * A network use no addr pattern can describe (a packet, raw or odd
 * family socket, an option that changes where packets go): decided as the
 * call itself (connect, bind, a send) or, for socket and setsockopt, as a
 * connect and as a bind, to an address no addr pattern matches, the
 * stricter verdict standing.  Rules without addr (allow or deny all the
 * network) and the default decide it; a rule that allows addresses does
 * not.  A rewrite cannot redirect it: refused (EPERM).
 */
static void decide_unnamed(struct sup *s, struct call *c,
			   struct rules_verdict *v)
{
	bool net = c->info && c->info->kind == RULES_KIND_NET;
	struct rules_event ev = {
		.nr = net ? c->req->data.nr : SYS_connect,
		.exe = c->exe,
	};
	struct rules_verdict b;

	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	rules_match(s->run.rules, &ev, v);
	ev.nr = net ? c->req->data.nr : SYS_bind;
	rules_match(s->run.rules, &ev, &b);
	if (rules_verdict_rank(&b) > rules_verdict_rank(v))
		*v = b;
	if (v->action == RULES_REWRITE) {
		v->action = RULES_DENY;
		v->err = EPERM;
		v->rewrite = NULL;
	}
}

/*
 * The (dev, ino) of the file a unix socket is bound to, from the kernel
 * (sock_diag, UNIX_DIAG_VFS): dev in the kernel's encoding (major << 20 |
 * minor), ino cut to 32 bits.  -ENOENT when it is bound to no file.
 */
static int unix_bound_file(int sock, uint32_t *dev, uint32_t *ino)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req req;
	} q = {
		.nh = {
			.nlmsg_len = sizeof(q),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
		},
		.req = {
			.sdiag_family = AF_UNIX,
			.udiag_states = ~0u,
			.udiag_show = UDIAG_SHOW_VFS,
			.udiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
		},
	};
	union {
		struct nlmsghdr nh;
		char b[1024];
	} a;
	AUTO_CLOSE int nl = -1;
	struct stat st;
	ssize_t n;

	if (fstat(sock, &st) < 0)
		return -errno;
	q.req.udiag_ino = (uint32_t)st.st_ino;
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return -errno;
	if (send(nl, &q, sizeof(q), 0) < 0)
		return -errno;
	n = recv(nl, &a, sizeof(a), 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(&a.nh, (size_t)n))
		return -EPROTO;
	if (a.nh.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(&a.nh);

		/* ENOENT here: no such socket (another netns). */
		return e->error == -ENOENT ? -ESRCH :
		       e->error < 0 ? e->error : -EPROTO;
	}
	if (a.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    a.nh.nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
		return -EPROTO;
	{
		struct unix_diag_msg *m = NLMSG_DATA(&a.nh);
		struct rtattr *at = (struct rtattr *)(m + 1);
		int len = (int)(a.nh.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

		for (; RTA_OK(at, len); at = RTA_NEXT(at, len)) {
			struct unix_diag_vfs v;

			if (at->rta_type != UNIX_DIAG_VFS ||
			    RTA_PAYLOAD(at) < sizeof(v))
				continue;
			memcpy(&v, RTA_DATA(at), sizeof(v));
			*dev = v.udiag_vfs_dev;
			*ino = v.udiag_vfs_ino;
			return 0;
		}
	}
	return -ENOENT;
}

struct bind_job {
	struct call_job job;	/* first */
	int sock;
	int cwd_fd;
	int umask;
	int rc;
};

/* On its own thread, with its own cwd and umask: the caller's. */
static void *bind_thread(void *arg)
{
	struct bind_job *j = arg;
	const struct call *c = &j->job.c;
	int rc = call_job_enter(&j->job);

	if (rc == 0 && unshare(CLONE_FS) < 0)
		rc = -errno;
	if (rc == 0 && fchdir(j->cwd_fd) < 0)
		rc = -errno;
	if (rc == 0) {
		umask((mode_t)j->umask);
		if (bind(j->sock, (const struct sockaddr *)&c->addr,
			 c->addr_len) < 0)
			rc = -errno;
	}
	call_job_leave(&j->job);
	j->rc = rc;
	return NULL;
}

/*
 * bind(2) of a unix path socket.  The kernel keeps the address it was
 * given: getsockname(), a peer's accept() and /proc/net/unix show it.
 * Binding our /proc/self/fd/N/NAME of the checked directory would make
 * the caller's socket report that name instead of its own, so the
 * caller's address (our copy of it) is bound, on a thread that has the
 * caller's cwd and umask (CLONE_FS unshared: they are the thread's alone).
 *
 * Security: the kernel walks the path again, and a racing process could
 * swap a directory of it for a symlink between our walk and the kernel's.
 * So the walk is checked afterwards: the file the socket is bound to
 * (asked of the kernel, not looked up by path) must be the entry NAME of
 * the directory we resolved and decided on.  If it is not, the caller is
 * killed before it gets an answer, and nothing reaches the socket, as
 * for an exec whose file was swapped (notify_exec_event); what is left is
 * a socket file nobody listens on, made with the caller's own rights.
 * When the check cannot be made (no sock_diag, another root), the socket
 * is bound as before, through our fds, under that name.
 */
static int bind_unix_path(struct sup *s, struct call *c, int sock,
			  const struct resolved *r)
{
	struct bind_job j = { .sock = sock, .cwd_fd = -1, .rc = -EINVAL };
	struct stat st, root_st, our_root;
	char link[64];
	uint32_t dev = 0, ino = 0;
	pthread_t t;
	int rc;

	snprintf(link, sizeof(link), "/proc/%d/root", c->tid);
	if (unix_bound_file(sock, &dev, &ino) != -ENOENT ||
	    stat(link, &root_st) < 0 || stat("/", &our_root) < 0 ||
	    root_st.st_dev != our_root.st_dev ||
	    root_st.st_ino != our_root.st_ino) {
		/* No sock_diag, already bound, or a chroot: the old way. */
		struct sockaddr_un un = { .sun_family = AF_UNIX };
		mode_t old;

		rc = snprintf(un.sun_path, sizeof(un.sun_path),
			      "/proc/self/fd/%d/%s", r->parent_fd, r->name);
		if (rc < 0 || (size_t)rc >= sizeof(un.sun_path))
			return -ENAMETOOLONG;
		old = umask((mode_t)notify_caller_umask(c));
		rc = bind(sock, (struct sockaddr *)&un,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      strlen(un.sun_path) + 1));
		rc = rc < 0 ? -errno : 0;
		umask(old);
		return rc;
	}
	snprintf(link, sizeof(link), "/proc/%d/cwd", c->tid);
	j.cwd_fd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j.cwd_fd < 0)
		return -ESRCH;
	call_job_init(&j.job, s, c);
	j.umask = notify_caller_umask(c);
	rc = pthread_create(&t, NULL, bind_thread, &j);
	if (rc == 0)
		pthread_join(t, NULL);
	close(j.cwd_fd);
	if (rc != 0)
		return -EAGAIN;
	if (j.rc < 0)
		return j.rc;
	if (unix_bound_file(sock, &dev, &ino) == 0 &&
	    fstatat(r->parent_fd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode) && (uint32_t)st.st_ino == ino &&
	    major(st.st_dev) == dev >> 20 && minor(st.st_dev) == (dev & 0xfffff))
		return 0;
	kill(c->tgid, SIGKILL);
	c->note = "bind: the socket file is not the one checked; caller killed";
	fprintf(stderr, "sysgate: killed process %d: %s\n", c->tgid, c->note);
	return -EACCES;
}

/* The file of a unix path socket, as the call named it and as resolved:
 * the next path entry of the call's record. */
static struct call_path *socket_path(struct call *c, const char *raw,
				     const char *resolved, unsigned access)
{
	struct call_path *cp = &c->paths[c->n_paths++];

	cp->arg_name = "path";
	snprintf(cp->raw, sizeof(cp->raw), "%s", raw);
	cp->raw_len = strlen(cp->raw);
	cp->have_raw = true;
	snprintf(cp->resolved, sizeof(cp->resolved), "%s", resolved);
	cp->have_resolved = true;
	cp->checked = true;
	cp->access = access;
	return cp;
}

/*
 * After an inet bind made on sock (the supervisor's dup of the caller's
 * socket): the address it got, for the record; a bind to port 0 names
 * the port the kernel chose.  A query of our own fd: nothing is lent, and
 * a failure only leaves the record without it.
 */
static void note_bound(struct call *c, int sock)
{
	socklen_t len = sizeof(c->bound);

	if (getsockname(sock, (struct sockaddr *)&c->bound, &len) < 0 ||
	    len > sizeof(c->bound) ||
	    (c->bound.ss_family != AF_INET && c->bound.ss_family != AF_INET6))
		return;
	c->bound_len = len;
	c->have_bound = true;
}

/* What a step of connect or bind came to. */
enum cb_step {
	CB_GO_ON,	/* decided so far: go on */
	CB_OUT,		/* answered as it is (c->err, c->v): finish the call */
	CB_GONE,	/* the call is no longer waiting: nothing to answer */
};

/* Copy the address and take the caller's socket (*sock). */
static enum cb_step cb_take_socket(struct sup *s, struct call *c, int *sock)
{
	const __u64 *a = c->req->data.args;
	uint64_t len = a[2];
	struct stat st;
	int rc, domain;

	if (len > sizeof(c->addr) || len < sizeof(sa_family_t)) {
		c->err = EINVAL;
		return CB_OUT;
	}
	memset(&c->addr, 0, sizeof(c->addr));
	rc = tracee_read(c->tid, a[1], &c->addr, (size_t)len);
	if (rc < 0) {
		c->err = -rc;
		return CB_OUT;
	}
	c->addr_len = (socklen_t)len;
	c->have_addr = true;

	*sock = tracee_getfd(c->tid, c->tgid, (int)(int32_t)a[0]);
	if (!notify_id_valid(s, c->req->id))
		return CB_GONE;
	if (*sock < 0) {
		c->err = *sock == -ESRCH ? ESRCH : EBADF;
		return CB_OUT;
	}
	if (fstat(*sock, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		c->err = ENOTSOCK;
		return CB_OUT;
	}
	domain = sock_domain(*sock);
	if (domain < 0) {
		c->err = ENOTSOCK;
		return CB_OUT;
	}
	c->domain = domain;
	return CB_GO_ON;
}

/*
 * Security: binding a unix socket to a path makes a file there, a create
 * in that directory as much as mknod(S_IFSOCK) is: the file rules decide
 * it too (as mknodat of the path, access create) and the stricter verdict
 * wins, or "no writes elsewhere" would not hold for socket files.  A
 * rewrite of the path (/tmp into the TMPDIR) leaves the address verdict:
 * the socket is found by the name it was bound to, which a connect does
 * not rewrite.
 */
static void bind_as_create(struct sup *s, const struct call *c,
			   const char *path, struct rules_verdict *v)
{
	struct rules_event fev = {
		.nr = SYS_mknodat,
		.exe = c->exe,
		.access = RULES_ACC_CREATE,
		.path = path,
		.args = { (uint64_t)(int64_t)AT_FDCWD, 0, S_IFSOCK | 0777 },
	};
	struct rules_verdict fv;

	rules_match(s->run.rules, &fev, &fv);
	if (fv.action != RULES_REWRITE &&
	    rules_verdict_rank(&fv) > rules_verdict_rank(v))
		*v = fv;
}

/* A unix path socket: resolve it as the caller would (r), match its
 * canonical path and act through our fds (act, act_len). */
static enum cb_step cb_decide_unix(struct sup *s, struct call *c,
				   struct rules_event *ev, struct resolved *r,
				   struct sockaddr_storage *act,
				   socklen_t *act_len)
{
	bool is_bind = c->req->data.nr == SYS_bind;
	struct sockaddr_un *un = (struct sockaddr_un *)&c->addr;
	struct sockaddr_un *canon = (struct sockaddr_un *)act;
	char spath[sizeof(un->sun_path) + 1];
	size_t plen = c->addr_len - offsetof(struct sockaddr_un, sun_path);
	int rc;

	memcpy(spath, un->sun_path, plen);
	spath[plen] = '\0';
	rc = resolve_path(c->tid, c->tgid, AT_FDCWD, spath,
			  is_bind ? 0 : RES_FOLLOW, r);
	if (!notify_id_valid(s, c->req->id))
		return CB_GONE;
	if (rc < 0) {
		c->err = -rc;
		return CB_OUT;
	}
	struct call_path *cp = socket_path(c, spath, r->path,
					   is_bind ? RULES_ACC_CREATE :
						     RULES_ACC_WRITE);

	/* Security: unix: globs match the canonical path, however
	 * long (a relative name under a deep cwd can be longer than
	 * sun_path holds). */
	ev->unix_path = r->path;
	if (!notify_builtin_check(s, r, cp->access, &c->v)) {
		rules_match(s->run.rules, ev, &c->v);
		if (is_bind)
			bind_as_create(s, c, r->path, &c->v);
	}
	cp->v = c->v;
	memset(canon, 0, sizeof(*canon));
	canon->sun_family = AF_UNIX;
	if (is_bind) {
		if (r->fd >= 0) {
			c->err = EADDRINUSE;
			if (c->v.action == RULES_ALLOW)
				return CB_OUT;
		}
		/* Bound under the caller's own name (bind_unix_path). */
		rc = 0;
	} else {
		rc = snprintf(canon->sun_path, sizeof(canon->sun_path),
			      "/proc/self/fd/%d", r->fd);
	}
	if (rc < 0 || (size_t)rc >= sizeof(canon->sun_path)) {
		c->err = ENAMETOOLONG;
		if (c->v.action == RULES_ALLOW)
			return CB_OUT;
	}
	*act_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			       strlen(canon->sun_path) + 1);
	if (!is_bind && r->fd < 0 && c->v.action == RULES_ALLOW) {
		c->err = ENOENT;
		return CB_OUT;
	}
	return CB_GO_ON;
}

/* A blocking connect may take long: answer it from a thread, the loop
 * goes on.  True when a worker took it (and *sock and r->fd with it). */
static bool connect_async(struct sup *s, struct call *c, int *sock,
			  struct resolved *r,
			  const struct sockaddr_storage *act, socklen_t act_len)
{
	struct net_job *j = calloc(1, sizeof(*j));

	if (!j)
		return false;
	call_job_init(&j->job, s, c);
	j->sock = steal_fd(sock);
	/* act may name /proc/self/fd/N of r->fd. */
	j->path_fd = steal_fd(&r->fd);
	j->act = *act;
	j->act_len = act_len;
	if (call_job_start(&j->job, connect_thread) == 0)
		return true;
	*sock = j->sock;
	r->fd = j->path_fd;
	free(j);
	return false;
}

/* The connect or bind, allowed, carried out on the caller's socket.  True
 * when a worker answers it; else c holds its outcome. */
static bool cb_carry_out(struct sup *s, struct call *c, int *sock,
			 struct resolved *r,
			 const struct sockaddr_storage *act, socklen_t act_len)
{
	bool is_bind = c->req->data.nr == SYS_bind;
	int rc;

	/* --user: binding a port below 1024 takes a capability the caller
	 * may not have (the supervisor, root, has it). */
	if (is_bind && c->creds &&
	    !(c->creds->cap_eff & (1ULL << CAP_NET_BIND_SERVICE)) &&
	    (c->domain == AF_INET || c->domain == AF_INET6)) {
		/* The socket's family: AF_UNSPEC binds as AF_INET.  The
		 * port sits at the same offset in both. */
		unsigned port = ntohs(((const struct sockaddr_in *)act)->sin_port);

		if (port > 0 && port < 1024) {
			c->err = EACCES;
			return false;
		}
	}
	c->emulated = true;
	if (notify_record_before_change(s, c) < 0)
		return false;
	if (is_bind && c->n_paths > 0) {
		/* A unix path socket (the abstract ones are bound below). */
		rc = r->parent_fd >= 0 ? bind_unix_path(s, c, *sock, r) : -EADDRINUSE;
		c->err = rc < 0 ? -rc : 0;
	} else if (is_bind) {
		rc = bind(*sock, (const struct sockaddr *)act, act_len);
		c->err = rc < 0 ? errno : 0;
		if (rc == 0)
			note_bound(c, *sock);
	} else {
		int fl = fcntl(*sock, F_GETFL);

		if (fl >= 0 && !(fl & O_NONBLOCK) &&
		    connect_async(s, c, sock, r, act, act_len))
			return true;
		rc = connect(*sock, (const struct sockaddr *)act, act_len);
		c->err = rc < 0 ? errno : 0;
	}
	if (!c->err) {
		c->result = 0;
		c->have_result = true;
	}
	return false;
}

static int handle_connect_bind(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sockaddr_storage act;
	socklen_t act_len;
	AUTO_CLOSE int sock = -1;
	struct resolved r;
	enum addr_kind kind;
	enum cb_step step;
	int domain;

	resolved_init(&r);
	step = cb_take_socket(s, c, &sock);
	if (step == CB_GONE)
		goto gone;
	if (step == CB_OUT)
		goto out;
	act = c->addr;
	act_len = c->addr_len;
	domain = c->domain;
	kind = addr_kind(domain, c->addr.ss_family);
	/* The address as the socket reads it (ADDR_UNSPEC). */
	struct sockaddr_storage as = c->addr;

	as.ss_family = (sa_family_t)domain;

	struct rules_event ev = {
		.nr = c->req->data.nr,
		.exe = c->exe,
		.addr = (struct sockaddr *)(kind == ADDR_UNSPEC ? &as : &c->addr),
		.addr_len = c->addr_len,
	};
	memcpy(ev.args, a, sizeof(ev.args));

	if (kind == ADDR_REFUSED) {
		notify_verdict_builtin(&c->v, "sysgate:family", EAFNOSUPPORT);
		c->note = "the address is not of the socket's family";
	} else if (kind == ADDR_UNNAMED) {
		decide_unnamed(s, c, &c->v);
		c->note = "a socket no address rule can describe";
	} else if (c->addr.ss_family == AF_UNIX &&
	    c->addr_len > offsetof(struct sockaddr_un, sun_path) &&
	    ((struct sockaddr_un *)&c->addr)->sun_path[0] != '\0') {
		step = cb_decide_unix(s, c, &ev, &r, &act, &act_len);
		if (step == CB_GONE)
			goto gone;
		if (step == CB_OUT)
			goto out;
	} else if (domain == AF_NETLINK) {
		/* Kernel-local messaging, not a network: glibc's resolver
		 * binds a netlink socket to list interfaces. */
		c->v = (struct rules_verdict){ .action = RULES_ALLOW,
					       .rule = "sysgate:netlink",
					       .audit = rules_audit_level(
							s->run.rules) ==
							RULES_AUDIT_ALL };
	} else {
		rules_match(s->run.rules, &ev, &c->v);
		rewrite_addr(s, c, &ev, &c->v, &act, &act_len);
	}
	if (c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (c->v.action == RULES_REWRITE)
		goto out;	/* could not be redirected: c->err says why */
	if (c->v.action != RULES_ALLOW) {
		c->err = 0;
		goto out;
	}
	if (c->err)
		goto out;
	if (cb_carry_out(s, c, &sock, &r, &act, act_len)) {
		resolved_release(&r);
		return 0;
	}
out:
	resolved_release(&r);
	return notify_finish(s, c, false);
gone:
	resolved_release(&r);
	return 0;
}


/* ------------------------------------------------------------------ */
/* sendto / sendmsg / sendmmsg                                         */

struct out_msg {
	struct sockaddr_storage name;   /* as the caller gave it (copied) */
	socklen_t name_len;
	struct sockaddr_storage act;    /* what we send to */
	socklen_t act_len;
	int path_fd;                    /* unix path socket, kept open */
	char *data;
	size_t len;
	char *control;
	size_t control_len;
	int fds[SEND_MAX_CONTROL / sizeof(int)];
	unsigned n_fds;                 /* our dups of SCM_RIGHTS fds */
};

static void out_msg_release(struct out_msg *m)
{
	free(m->data);
	free(m->control);
	for (unsigned i = 0; i < m->n_fds; i++)
		close(m->fds[i]);
	if (m->path_fd >= 0)
		close(m->path_fd);
	m->data = NULL;
	m->control = NULL;
	m->n_fds = 0;
	m->path_fd = -1;
}

/* Stream sockets that are connected send to their peer whatever address a
 * call names (TCP ignores it, AF_UNIX refuses it), except TCP Fast Open. */
static bool sends_to_peer(int sock, uint64_t flags)
{
	int type = 0;
	socklen_t tl = sizeof(type);
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);

	if (flags & MSG_FASTOPEN)
		return false;
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
		return false;
	if (type != SOCK_STREAM && type != SOCK_SEQPACKET)
		return false;
	return getpeername(sock, (struct sockaddr *)&peer, &pl) == 0;
}

/* Copy the data of iov (tracee addresses) into one buffer. */
static int copy_iov(struct call *c, uint64_t iov_addr, uint64_t n,
		    struct out_msg *m)
{
	struct iovec *iov;
	size_t total = 0;
	int rc;

	if (n > SEND_MAX_IOV)
		return -EMSGSIZE;
	if (n == 0)
		return 0;
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	rc = tracee_read(c->tid, iov_addr, iov, n * sizeof(*iov));
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		if (iov[i].iov_len > SEND_MAX_BYTES - total)
			rc = -EMSGSIZE;
		else
			total += iov[i].iov_len;
	}
	if (rc == 0 && total) {
		m->data = malloc(total);
		if (!m->data)
			rc = -ENOMEM;
	}
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		rc = tracee_read(c->tid, (uint64_t)(uintptr_t)iov[i].iov_base,
				 m->data + m->len, iov[i].iov_len);
		m->len += iov[i].iov_len;
	}
	free(iov);
	return rc;
}

/*
 * SCM_CREDENTIALS: the kernel checks the pid, uids and gids a sender names
 * against the sender, which is the supervisor.  Security: the ids are
 * left for the kernel to check against the thread's credentials, which
 * are the caller's (--user: creds_switch(); otherwise the same user), so
 * a claim of another user or group fails as it would for the caller.  The
 * pid must be the sender's own: the caller's, which is all it may claim,
 * is replaced by ours, the pid the kernel gives a receiver of a send
 * without credentials (a receiver sees the supervisor's pid, not the
 * caller's: SECURITY.md); any other stays, and the kernel refuses it.
 */
static void scm_creds_as_ours(const struct call *c, struct cmsghdr *cm)
{
	struct ucred u;

	if (cm->cmsg_len < CMSG_LEN(sizeof(u)))
		return;		/* the kernel refuses it (EINVAL) */
	memcpy(&u, CMSG_DATA(cm), sizeof(u));
	if (u.pid != c->tgid)
		return;
	u.pid = getpid();
	memcpy(CMSG_DATA(cm), &u, sizeof(u));
}

/* Copy the control data; fds passed with SCM_RIGHTS are the caller's and
 * are replaced by our dups of the same files. */
static int copy_control(struct call *c, uint64_t addr, uint64_t len,
			struct out_msg *m)
{
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	int rc;

	if (len == 0 || addr == 0)
		return 0;
	if (len > SEND_MAX_CONTROL)
		return -ENOBUFS;
	m->control = calloc(1, len);
	if (!m->control)
		return -ENOMEM;
	rc = tracee_read(c->tid, addr, m->control, len);
	if (rc < 0)
		return rc;
	m->control_len = len;
	mh.msg_control = m->control;
	mh.msg_controllen = len;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS) {
			scm_creds_as_ours(c, cm);
			continue;
		}
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		if (cm->cmsg_len < CMSG_LEN(0))
			return -EINVAL;
		size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *fds = (int *)CMSG_DATA(cm);

		for (size_t i = 0; i < n; i++) {
			int ours;

			if (m->n_fds >= ARRAY_SIZE(m->fds))
				return -ETOOMANYREFS;
			ours = tracee_getfd(c->tid, c->tgid, fds[i]);
			if (ours < 0)
				return -EBADF;
			m->fds[m->n_fds++] = ours;
			fds[i] = ours;
		}
	}
	return 0;
}

/*
 * Decide one destination.  Fills m->act (what the supervisor sends to)
 * and c->v; a message without a destination goes to the connected peer,
 * which connect() decided: it is sent without a new decision.
 */
static int decide_dest(struct sup *s, struct call *c, struct out_msg *m,
		       int domain, bool *decided)
{
	enum addr_kind kind;
	struct rules_event ev = {
		.nr = c->req->data.nr,
		.exe = c->exe,
	};
	struct rules_verdict v;

	*decided = false;
	m->act_len = 0;
	if (m->name_len == 0)
		return 0;
	memcpy(ev.args, c->req->data.args, sizeof(ev.args));
	memcpy(&c->addr, &m->name, sizeof(c->addr));
	c->addr_len = m->name_len;
	c->have_addr = true;
	m->act = m->name;
	m->act_len = m->name_len;
	*decided = true;
	kind = addr_kind(domain, m->name.ss_family);
	if (kind == ADDR_REFUSED) {
		notify_verdict_builtin(&c->v, "sysgate:family", EAFNOSUPPORT);
		c->note = "the address is not of the socket's family";
		return 0;
	}
	if (kind == ADDR_UNNAMED) {
		decide_unnamed(s, c, &c->v);
		c->note = "a socket no address rule can describe";
		return 0;
	}
	if (kind == ADDR_UNSPEC) {
		/* Decided (and recorded) as the socket reads it; sent as
		 * given. */
		c->addr.ss_family = (sa_family_t)domain;
	}
	if (m->name.ss_family == AF_UNIX &&
	    m->name_len > offsetof(struct sockaddr_un, sun_path) &&
	    ((struct sockaddr_un *)&m->name)->sun_path[0] != '\0') {
		struct sockaddr_un *un = (struct sockaddr_un *)&m->name;
		struct sockaddr_un *act = (struct sockaddr_un *)&m->act;
		char spath[sizeof(un->sun_path) + 1];
		size_t plen = m->name_len - offsetof(struct sockaddr_un, sun_path);
		struct resolved r;
		int rc;

		memcpy(spath, un->sun_path, plen);
		spath[plen] = '\0';
		resolved_init(&r);
		rc = resolve_path(c->tid, c->tgid, AT_FDCWD, spath, RES_FOLLOW, &r);
		if (rc < 0) {
			resolved_release(&r);
			return rc;
		}
		if (r.fd < 0) {
			resolved_release(&r);
			return -ENOENT;
		}
		/* Security: matched on the canonical path, however long. */
		ev.addr = (struct sockaddr *)&m->name;
		ev.addr_len = m->name_len;
		ev.unix_path = r.path;
		if (!notify_builtin_check(s, &r, RULES_ACC_WRITE, &v))
			rules_match(s->run.rules, &ev, &v);
		if (c->n_paths < CALL_MAX_PATHS)
			/* The socket file, as for connect: in the record. */
			socket_path(c, spath, r.path, RULES_ACC_WRITE)->v = v;
		memset(act, 0, sizeof(*act));
		act->sun_family = AF_UNIX;
		snprintf(act->sun_path, sizeof(act->sun_path), "/proc/self/fd/%d", r.fd);
		m->act_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					 strlen(act->sun_path) + 1);
		m->path_fd = r.fd;
		r.fd = -1;
		resolved_release(&r);
	} else if (domain == AF_NETLINK) {
		v = (struct rules_verdict){
			.action = RULES_ALLOW, .rule = "sysgate:netlink",
			.audit = rules_audit_level(s->run.rules) ==
				 RULES_AUDIT_ALL,
		};
	} else {
		ev.addr = (struct sockaddr *)&c->addr;
		ev.addr_len = m->name_len;
		rules_match(s->run.rules, &ev, &v);
		c->note = NULL;
		rewrite_addr(s, c, &ev, &v, &m->act, &m->act_len);
		c->v = v;
		return 0;
	}
	c->v = v;
	c->note = NULL;
	return 0;
}

/*
 * Security: control messages that change where one message goes: IPv4
 * options (IP_RETOPTS carries a source route), IPv6 routing headers and
 * next hop, and the outgoing interface (IP_PKTINFO, IPV6_PKTINFO).  The
 * first found, or NULL.
 */
static const char *control_route(const struct out_msg *m)
{
	static const struct {
		int level, type;
		const char *name;
	} route[] = {
		{ SOL_IP, IP_RETOPTS, "IP_RETOPTS" },
		{ SOL_IP, IP_PKTINFO, "IP_PKTINFO" },
		{ SOL_IPV6, IPV6_RTHDR, "IPV6_RTHDR" },
		{ SOL_IPV6, IPV6_2292RTHDR, "IPV6_2292RTHDR" },
		{ SOL_IPV6, IPV6_NEXTHOP, "IPV6_NEXTHOP" },
		{ SOL_IPV6, IPV6_PKTINFO, "IPV6_PKTINFO" },
		{ SOL_IPV6, IPV6_2292PKTINFO, "IPV6_2292PKTINFO" },
	};
	struct msghdr mh = { .msg_control = m->control,
			     .msg_controllen = m->control_len };

	for (struct cmsghdr *cm = m->control ? CMSG_FIRSTHDR(&mh) : NULL; cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		for (size_t i = 0; i < ARRAY_SIZE(route); i++)
			if (cm->cmsg_level == route[i].level &&
			    cm->cmsg_type == route[i].type)
				return route[i].name;
	return NULL;
}

static ssize_t send_one(int sock, struct out_msg *m, int flags)
{
	struct iovec iov = { m->data, m->len };
	struct msghdr mh = {
		.msg_name = m->act_len ? &m->act : NULL,
		.msg_namelen = m->act_len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = m->control,
		.msg_controllen = m->control_len,
	};
	ssize_t n = sendmsg(sock, &mh, flags | MSG_NOSIGNAL);

	return n < 0 ? -errno : n;
}

struct send_job {
	struct call_job job;	/* first */
	int sock;
	int flags;
	struct out_msg m;
};

static void *send_thread(void *arg)
{
	struct send_job *j = arg;
	struct call *c = &j->job.c;
	ssize_t n = call_job_enter(&j->job);

	if (n == 0)
		n = send_one(j->sock, &j->m, j->flags);
	call_job_leave(&j->job);
	if (n == -EPIPE && !(j->flags & MSG_NOSIGNAL))
		syscall(SYS_tgkill, c->tgid, c->tid, SIGPIPE);
	call_result(c, n);
	close(j->sock);
	out_msg_release(&j->m);
	notify_finish(j->job.s, c, false);
	free(j);
	return NULL;
}

/* Send now, or on a thread if a blocking socket would block. */
static int send_or_defer(struct sup *s, struct call *c, int *sock,
			 struct out_msg *m, int flags, bool *deferred)
{
	int fl = fcntl(*sock, F_GETFL);
	ssize_t n;

	*deferred = false;
	n = send_one(*sock, m, flags | MSG_DONTWAIT);
	if (n == -EAGAIN && fl >= 0 && !(fl & O_NONBLOCK) &&
	    !(flags & MSG_DONTWAIT)) {
		struct send_job *j = calloc(1, sizeof(*j));

		if (!j)
			return -ENOMEM;
		call_job_init(&j->job, s, c);
		j->sock = *sock;
		j->flags = flags;
		j->m = *m;
		if (call_job_start(&j->job, send_thread) == 0) {
			*sock = -1;
			memset(m, 0, sizeof(*m));
			m->path_fd = -1;
			*deferred = true;
			return 0;
		}
		free(j);
		n = send_one(*sock, m, flags);
	}
	if (n == -EPIPE && !(flags & MSG_NOSIGNAL))
		syscall(SYS_tgkill, c->tgid, c->tid, SIGPIPE);
	return (int)n;
}

/* One message of sendmsg/sendmmsg, or sendto's arguments, copied. */
static int copy_msghdr(struct call *c, uint64_t addr, struct out_msg *m)
{
	struct msghdr mh;
	int rc = tracee_read(c->tid, addr, &mh, sizeof(mh));

	if (rc < 0)
		return rc;
	if (mh.msg_name && mh.msg_namelen) {
		if (mh.msg_namelen > sizeof(m->name))
			return -EINVAL;
		rc = tracee_read(c->tid, (uint64_t)(uintptr_t)mh.msg_name,
				 &m->name, mh.msg_namelen);
		if (rc < 0)
			return rc;
		m->name_len = mh.msg_namelen;
	}
	rc = copy_iov(c, (uint64_t)(uintptr_t)mh.msg_iov, mh.msg_iovlen, m);
	if (rc < 0)
		return rc;
	return copy_control(c, (uint64_t)(uintptr_t)mh.msg_control,
			    mh.msg_controllen, m);
}

/* The port a datagram goes to: the address it names, else the socket's
 * peer.  0: none, or not inet. */
static unsigned dgram_port(int sock, const struct out_msg *m)
{
	struct sockaddr_storage peer;
	const struct sockaddr_storage *to = &m->name;
	socklen_t len = sizeof(peer);

	if (!m->name_len) {
		if (getpeername(sock, (struct sockaddr *)&peer, &len) < 0)
			return 0;
		to = &peer;
	} else if (m->name_len < sizeof(struct sockaddr_in)) {
		return 0;
	}
	if (to->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)to)->sin_port);
	if (to->ss_family == AF_INET6 &&
	    (!m->name_len || m->name_len >= sizeof(struct sockaddr_in6)))
		return ntohs(((const struct sockaddr_in6 *)to)->sin6_port);
	return 0;
}

/*
 * A datagram to port 53 that parses as a DNS query: its question in
 * c->dns, for the record.  The bytes are the copy the supervisor sends
 * (m->data), so the name recorded is the one that leaves; a message that
 * is no query is sent all the same, with no dns field.  Stream sockets
 * (DNS over TCP) go to their peer without a copy: not seen here.
 */
static bool note_dns(struct call *c, int sock, const struct out_msg *m)
{
	int type = 0;
	socklen_t tl = sizeof(type);

	if (!m->data || m->len < 12 ||
	    getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    type != SOCK_DGRAM || dgram_port(sock, m) != 53)
		return false;
	c->have_dns = dns_parse_query(m->data, m->len, &c->dns) == 0;
	return c->have_dns;
}

static int handle_send(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	int nr = c->req->data.nr;
	int flags = (int)(nr == SYS_sendto ? a[3] : nr == SYS_sendmsg ? a[2] : a[3]);
	AUTO_CLOSE int sock = -1;
	struct out_msg m = { .path_fd = -1 };
	struct stat st;
	bool decided = false, deferred = false;
	bool audit_asked = c->v.audit;
	int rc, domain = -1;

	/* Until a destination is decided: a plain send, not a decision. */
	c->v.audit = false;
	c->note = "no destination: to the connected peer";
	sock = tracee_getfd(c->tid, c->tgid, (int)(int32_t)a[0]);
	if (!notify_id_valid(s, c->req->id))
		return 0;
	if (sock < 0) {
		c->err = sock == -ESRCH ? ESRCH : EBADF;
		goto out;
	}
	if (fstat(sock, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    (domain = sock_domain(sock)) < 0) {
		c->err = ENOTSOCK;
		goto out;
	}
	c->domain = domain;
	/* Security: decided on the socket's state and a register only;
	 * nothing read from the tracee's memory. */
	if (sends_to_peer(sock, (uint64_t)flags))
		return notify_send_resp(s, c->req->id, 0, 0, true);

	if (nr == SYS_sendto) {
		if (a[5] > sizeof(m.name)) {
			c->err = EINVAL;
			goto out;
		}
		rc = a[4] ? tracee_read(c->tid, a[4], &m.name, a[5]) : 0;
		m.name_len = a[4] ? (socklen_t)a[5] : 0;
		if (rc == 0 && a[2] > SEND_MAX_BYTES)
			rc = -EMSGSIZE;
		if (rc == 0 && a[2]) {
			m.data = malloc(a[2]);
			rc = m.data ? tracee_read(c->tid, a[1], m.data, a[2]) : -ENOMEM;
			m.len = a[2];
		}
	} else if (nr == SYS_sendmsg) {
		rc = copy_msghdr(c, a[1], &m);
	} else {
		/*
		 * sendmmsg: one message per call.  The kernel may also send
		 * fewer than asked; callers send the rest again (sendmmsg(2)),
		 * and each message gets its own decision and record.
		 */
		if (a[2] == 0) {
			c->result = 0;
			c->have_result = true;
			goto out;
		}
		rc = copy_msghdr(c, a[1], &m);
	}
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	if (!notify_id_valid(s, c->req->id))
		goto gone;

	rc = decide_dest(s, c, &m, domain, &decided);
	if (rc < 0) {
		c->err = -rc;
		goto out;
	}
	/* A DNS query to the connected peer is recorded too, for its name
	 * (not a decision: the verdict stays the call's). */
	if (note_dns(c, sock, &m) && !decided && audit_asked)
		c->v.audit = true;
	if (control_route(&m)) {
		struct rules_verdict v;

		decide_unnamed(s, c, &v);
		if (!decided ||
		    rules_verdict_rank(&v) >= rules_verdict_rank(&c->v))
			c->v = v;
		decided = true;
		c->note = "a control message that changes where packets go";
	}
	if (decided && c->v.stack && stack_request(s, c) > 0)
		goto gone;
	if (decided && c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		goto gone;
	if (decided && c->v.action != RULES_ALLOW)
		goto out;
	c->emulated = true;
	if (decided && notify_record_before_change(s, c) < 0)
		goto out;
	if (nr == SYS_sendmmsg) {
		ssize_t n = send_one(sock, &m, flags | MSG_DONTWAIT);

		if (n < 0) {
			c->err = (int)-n;
		} else {
			unsigned int n32 = (unsigned int)n;

			tracee_write(c->tid, a[1] + offsetof(struct mmsghdr, msg_len),
				     &n32, sizeof(n32));
			c->result = 1;
			c->have_result = true;
		}
		goto out;
	}
	rc = send_or_defer(s, c, &sock, &m, flags, &deferred);
	if (deferred)
		return 0;
	call_result(c, rc);
out:
	out_msg_release(&m);
	return notify_finish(s, c, false);
gone:
	out_msg_release(&m);
	return 0;
}

/* ------------------------------------------------------------------ */
/* socket, setsockopt, listen                                          */

bool net_scalar_decides(const struct call *c)
{
	const __u64 *a = c->req->data.args;

	switch (c->req->data.nr) {
	case SYS_socket:
		return rules_socket_unnamed(a[0], a[1]);
	case SYS_setsockopt:
		return rules_route_sockopt(a[1], a[2]) != NULL;
	case SYS_listen:
	case SYS_accept:
	case SYS_accept4:
		return true;
	default:
		return false;
	}
}

/* The network verdict v replaces the call's own (an allow) where it is
 * as strict or stricter; recorded if either says so. */
static void take_verdict(struct call *c, const struct rules_verdict *v)
{
	bool audit = c->v.audit || v->audit;

	if (rules_verdict_rank(v) >= rules_verdict_rank(&c->v))
		c->v = *v;
	c->v.audit = audit;
}

/* The wildcard address of an inet socket's family, port 0. */
static void wildcard(int domain, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)domain;
	*len = domain == AF_INET6 ? sizeof(struct sockaddr_in6) :
				    sizeof(struct sockaddr_in);
}

static bool inet_unbound(int sock, int domain)
{
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);

	if (getsockname(sock, (struct sockaddr *)&me, &ml) < 0)
		return false;
	if (domain == AF_INET)
		return ((struct sockaddr_in *)&me)->sin_port == 0;
	return ((struct sockaddr_in6 *)&me)->sin6_port == 0;
}

/*
 * listen(2).  On an unbound inet socket the kernel binds it to the
 * wildcard address and an ephemeral port by itself: decided as that
 * bind, which the supervisor makes on the caller's socket (our dup)
 * before the listen.  Any other listen on an inet socket is carried out on
 * our dup too; on another socket it is continued where no other task
 * shares the caller's fd table.
 *
 * Security: between our look at the socket and the kernel's listen a task
 * sharing the fd table could put an unbound inet socket under the same fd
 * number (dup2), and the kernel would bind that one: where that can
 * happen, the listen is never continued.
 */
/*
 * The caller's socket of argument 0 (its own file description, through
 * its pidfd), its family (SO_DOMAIN) in c->domain.  0; or 1 when the call
 * was answered (no socket: EBADF, ENOTSOCK) or is gone, with the
 * handler's result in *ret.
 */
static int take_socket(struct sup *s, struct call *c, int *sock, int *ret)
{
	struct stat st;
	int domain;

	*sock = tracee_getfd(c->tid, c->tgid,
			     (int)(int32_t)c->req->data.args[0]);
	if (!notify_id_valid(s, c->req->id)) {
		*ret = 0;
		return 1;
	}
	if (*sock < 0) {
		c->err = *sock == -ESRCH ? ESRCH : EBADF;
		*ret = notify_finish(s, c, false);
		return 1;
	}
	if (fstat(*sock, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    (domain = sock_domain(*sock)) < 0) {
		c->err = ENOTSOCK;
		*ret = notify_finish(s, c, false);
		return 1;
	}
	c->domain = domain;
	return 0;
}

static int handle_listen(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	AUTO_CLOSE int sock = -1;
	int domain, ret;

	if (take_socket(s, c, &sock, &ret))
		return ret;
	domain = c->domain;
	if ((domain == AF_INET || domain == AF_INET6) &&
	    inet_unbound(sock, domain)) {
		struct rules_event ev = { .nr = SYS_bind, .exe = c->exe };
		struct rules_verdict v;

		wildcard(domain, &c->addr, &c->addr_len);
		c->have_addr = true;
		ev.addr = (struct sockaddr *)&c->addr;
		ev.addr_len = c->addr_len;
		memcpy(ev.args, a, sizeof(ev.args));
		rules_match(s->run.rules, &ev, &v);
		if (v.action == RULES_REWRITE) {
			v.action = RULES_DENY;
			v.err = EPERM;
		}
		take_verdict(c, &v);
		c->note = "listen on an unbound socket: a bind to the wildcard address";
		if (c->v.stack && stack_request(s, c) > 0)
			return 0;
		if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
			return 0;
		if (c->v.action != RULES_ALLOW)
			return notify_finish(s, c, false);
		c->emulated = true;
		if (notify_record_before_change(s, c) < 0)
			return notify_finish(s, c, false);
		if (bind(sock, (struct sockaddr *)&c->addr, c->addr_len) < 0 &&
		    errno != EINVAL) {
			/* EINVAL: bound meanwhile by another thread. */
			call_result(c, -errno);
			return notify_finish(s, c, false);
		}
		note_bound(c, sock);
	} else if (domain != AF_INET && domain != AF_INET6 &&
		   !tracee_files_shared(c->tid)) {
		/* A unix listener keeps the credentials of the task that
		 * listens (SO_PEERCRED): the caller's own, where no other
		 * task can swap the fd meanwhile. */
		return notify_finish(s, c, true);
	} else {
		c->emulated = true;
	}
	call_result(c, listen(sock, (int)(int32_t)a[1]) < 0 ? -errno : 0);
	return notify_finish(s, c, false);
}

/* ------------------------------------------------------------------ */
/* accept / accept4                                                    */

#ifndef ERESTARTSYS
#define ERESTARTSYS 512	/* kernel-internal: restart, or EINTR */
#endif

struct accept_job {
	struct call_job job;	/* first */
	int sock;
	int flags;
};

/* A signal the task would take now (pending, not blocked), from
 * /proc/TID/status; false when that cannot be read. */
static bool signal_pending(pid_t tid)
{
	char path[64], line[128];
	unsigned long long pnd = 0, shd = 0, blk = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigPnd: %llx", &v) == 1)
			pnd = v;
		else if (sscanf(line, "ShdPnd: %llx", &v) == 1)
			shd = v;
		else if (sscanf(line, "SigBlk: %llx", &v) == 1)
			blk = v;
	}
	fclose(f);
	return ((pnd | shd) & ~blk) != 0;
}

/*
 * Accept one connection on our dup of the caller's socket, give the caller
 * the peer's address (addr, addrlen as accept(2) does) and the new socket
 * (SECCOMP_IOCTL_NOTIF_ADDFD), and record it with the peer.
 */
static int accept_finish(struct sup *s, struct call *c, int sock, int flags)
{
	const __u64 *a = c->req->data.args;
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int nf, remote;

	nf = accept4(sock, (struct sockaddr *)&peer, &plen,
		     SOCK_CLOEXEC | (flags & SOCK_NONBLOCK));
	if (nf < 0) {
		call_result(c, -errno);
		return notify_finish(s, c, false);
	}
	memcpy(&c->addr, &peer, sizeof(peer));
	c->addr_len = plen;
	c->have_addr = true;
	c->emulated = true;
	c->note = "an inbound connection";
	if (a[1]) {
		int32_t ulen;
		int rc = tracee_read(c->tid, a[2], &ulen, sizeof(ulen));

		if (rc == 0 && ulen < 0)
			rc = -EINVAL;
		if (rc == 0)
			rc = tracee_write(c->tid, a[1], &peer,
					  (size_t)ulen < plen ? (size_t)ulen : plen);
		if (rc == 0)
			rc = tracee_write(c->tid, a[2], &plen, sizeof(int32_t));
		if (rc < 0) {
			close(nf);
			c->err = rc == -EINVAL ? EINVAL : EFAULT;
			return notify_finish(s, c, false);
		}
	}
	remote = notify_add_fd(s, c->req->id, nf, flags & SOCK_CLOEXEC);
	close(nf);
	if (remote == -ENOENT)
		return 0;	/* the caller is gone */
	call_result(c, remote);
	return notify_finish(s, c, false);
}

/*
 * A blocking accept, on a worker: the loop goes on.  It waits in short
 * polls; when the caller is gone it gives up, and when the caller has a
 * signal to take it answers -ERESTARTSYS (nothing was accepted): the
 * kernel runs the handler and restarts the call (SA_RESTART) or fails it
 * with EINTR, as it would for a native accept.
 */
static void *accept_thread(void *arg)
{
	struct accept_job *j = arg;
	struct call *c = &j->job.c;
	struct sup *s = j->job.s;

	for (;;) {
		struct pollfd p = { .fd = j->sock, .events = POLLIN };
		int n = poll(&p, 1, 100);

		if (n > 0) {
			accept_finish(s, c, j->sock, j->flags);
			break;
		}
		if (n < 0 && errno != EINTR) {
			call_result(c, -errno);
			notify_finish(s, c, false);
			break;
		}
		if (!notify_id_valid(s, c->req->id))
			break;
		if (signal_pending(c->tid)) {
			notify_send_resp(s, c->req->id, 0, ERESTARTSYS, false);
			break;
		}
	}
	close(j->sock);
	free(j);
	return NULL;
}

static bool is_listening(int sock)
{
	int on = 0;
	socklen_t l = sizeof(on);

	return getsockopt(sock, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) == 0 && on;
}

/*
 * accept(2), accept4(2).  On an inet listener the supervisor accepts the
 * connection itself, on the caller's socket (our dup), so that the record
 * names the peer: the kernel's return value of a continued call is not
 * seen.  Another listener's accept is continued where no other task
 * shares the caller's fd table; where one does, it is carried out too, or
 * that task could dup2 an inet listener over the fd number between our
 * look and the kernel's accept, and a connection would go unrecorded.
 */
static int handle_accept(struct sup *s, struct call *c)
{
	const __u64 *a = c->req->data.args;
	int flags = c->req->data.nr == SYS_accept4 ? (int)(int32_t)a[3] : 0;
	AUTO_CLOSE int sock = -1;
	int domain, fl, ret;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) {
		c->err = EINVAL;
		return notify_finish(s, c, false);
	}
	if (take_socket(s, c, &sock, &ret))
		return ret;
	domain = c->domain;
	if (domain != AF_INET && domain != AF_INET6 &&
	    !tracee_files_shared(c->tid)) {
		c->v.audit = false;
		return notify_finish(s, c, true);
	}
	fl = fcntl(sock, F_GETFL);
	/* A socket that does not listen fails at once (the kernel's own
	 * EINVAL or EOPNOTSUPP): only a listener's accept may wait. */
	if (fl >= 0 && !(fl & O_NONBLOCK) && is_listening(sock)) {
		struct accept_job *j = calloc(1, sizeof(*j));

		if (j) {
			call_job_init(&j->job, s, c);
			j->sock = steal_fd(&sock);
			j->flags = flags;
			if (call_job_start(&j->job, accept_thread) == 0)
				return 0;
			sock = j->sock;
			free(j);
		}
		c->err = EAGAIN;
		return notify_finish(s, c, false);
	}
	return accept_finish(s, c, sock, flags);
}

/*
 * socket() of a kind no address rule describes, setsockopt of an option
 * that changes where packets go: decided by the network rules
 * (decide_unnamed).  Security: on registers only, so an allowed call is
 * CONTINUEd.
 */
int net_scalar(struct sup *s, struct call *c)
{
	struct rules_verdict v;

	if (c->req->data.nr == SYS_listen)
		return handle_listen(s, c);
	if (c->req->data.nr == SYS_accept || c->req->data.nr == SYS_accept4)
		return handle_accept(s, c);
	decide_unnamed(s, c, &v);
	take_verdict(c, &v);
	c->note = c->req->data.nr == SYS_socket ?
		  "a socket no address rule can describe" :
		  "a socket option that changes where packets go";
	if (c->v.stack && stack_request(s, c) > 0)
		return 0;
	if (c->v.action == RULES_ASK && ask_resolve(s, c) > 0)
		return 0;
	return notify_finish(s, c, c->v.action == RULES_ALLOW);
}

int net_handle(struct sup *s, struct call *c)
{
	switch (c->req->data.nr) {
	case SYS_connect:
	case SYS_bind:
		return handle_connect_bind(s, c);
	default:
		return handle_send(s, c);
	}
}
