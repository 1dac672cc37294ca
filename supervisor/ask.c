/* SPDX-License-Identifier: MIT */
/*
 * action = ask: a call the policy leaves open is put to a hook program (one
 * JSON line on its stdin, "allow" or "deny [ERRNO]" on its stdout) or to
 * the terminal, on a thread of its own, while the caller stays blocked in
 * its notification and the rest of the tree runs on.  The answer comes
 * back to the event loop through a pipe, and the call is decided again
 * from the start with the answer at hand: what was asked about must be
 * what the call now names, or it is denied.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/ask.h"
#include "supervisor/call.h"
#include "supervisor/cpubind.h"
#include "supervisor/notify.h"
#include "supervisor/record.h"
#include "supervisor/sup.h"
#include "supervisor/tracee.h"

#define ASK_WHAT_MAX (PATH_MAX + 64)
#define ASK_LINE_MAX (8 * PATH_MAX)
#define ASK_ANSWER_MAX 256
#define ASK_REMEMBER_MAX 1024
/* The call shown on the terminal: two paths, each escaped (4 bytes a
 * byte at most), and the rest. */
#define ASK_SHOWN_MAX (CALL_MAX_PATHS * (PATH_MAX * 4 + 16) + 512)

struct question {
	struct seccomp_notif req;  /* the pending notification (copied) */
	const char *rule;          /* borrowed from the rules set */
	char what[ASK_WHAT_MAX];
	char shown[ASK_SHOWN_MAX]; /* the call for the terminal, escaped */
	char *line;                /* the JSON line for the hook (owned) */
	char ask[ASK_LINE_MAX];    /* the hook, "" for the terminal */
	uint64_t timeout_ms;
	bool remember;
	int deny_err;
	/* the answer */
	enum rules_action action;
	int err;
	const char *by;            /* "hook", "terminal", "timeout", ... */
};

struct remembered {
	const char *rule;
	char *what;
	enum rules_action action;
	int err;
};

extern char **environ;

static int answer_pipe[2] = { -1, -1 };
static struct remembered remembered[ASK_REMEMBER_MAX];
static unsigned n_remembered;
static const struct question *forced;
static pthread_mutex_t tty_lock = PTHREAD_MUTEX_INITIALIZER;

/* sysgate's cwd when the run began, where hooks run: the event loop's is
 * not it once it reads paths back (dir_fd_path() in resolve.c leaves it
 * at /).  -1 when it could not be opened (removed): the hook fails. */
static int home_fd = -1;
/* sysgate's own file-system credentials, read before any call: a question
 * is asked on a thread made while the loop may hold a caller's (--user),
 * and the hook is sysgate's program, run with sysgate's rights. */
static struct creds home_creds;
static bool have_home_creds;

int ask_init(void)
{
	if (answer_pipe[0] >= 0)
		return 0;
	if (pipe2(answer_pipe, O_CLOEXEC) < 0)
		return -errno;
	home_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	have_home_creds = creds_save(&home_creds) == 0;
	return 0;
}

int ask_fd(void)
{
	return answer_pipe[0];
}

/* What the question is about, as one line: "read /home/u/.ssh/id_rsa". */
static void describe(const struct call *c, char *buf, size_t len)
{
	char ip[64];

	for (unsigned i = 0; i < c->n_paths; i++) {
		const struct call_path *cp = &c->paths[i];

		if (cp->checked && cp->v.action == RULES_ASK) {
			snprintf(buf, len, "%s %s", rules_access_name(cp->access),
				 cp->resolved);
			return;
		}
	}
	if (c->have_addr && (c->addr.ss_family == AF_INET ||
			     c->addr.ss_family == AF_INET6)) {
		const struct sockaddr_in *in = (const void *)&c->addr;
		const struct sockaddr_in6 *in6 = (const void *)&c->addr;

		if (c->addr.ss_family == AF_INET) {
			inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
			snprintf(buf, len, "%s %s:%u", c->name, ip, ntohs(in->sin_port));
		} else {
			inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
			snprintf(buf, len, "%s [%s]:%u", c->name, ip,
				 ntohs(in6->sin6_port));
		}
		return;
	}
	if (c->n_paths && c->paths[0].have_resolved) {
		snprintf(buf, len, "%s %s", c->name, c->paths[0].resolved);
		return;
	}
	snprintf(buf, len, "%s", c->name);
}

/*
 * The call as the rules saw it, for the terminal: its program, the
 * syscall, each path checked with its access class (resolved) or its
 * address.  Security: every byte of the tree's is escaped, and all the
 * paths are named, so a path cannot make the prompt ask about another
 * call (a carriage return and "read README.md" over a create in
 * /etc/cron.d).
 */
static void show_call(const struct call *c, const char *what, char *buf,
		      size_t len)
{
	const char *exe = c->exe ? strrchr(c->exe, '/') : NULL;
	char esc[PATH_MAX * 4];
	size_t off;
	bool any = false;

	exe = exe ? exe + 1 : (c->exe ? c->exe : "?");
	off = (size_t)snprintf(buf, len, "(%s) asks: ",
			       record_tty(esc, sizeof(esc), exe));
	for (unsigned i = 0; i < c->n_paths && off < len; i++) {
		const struct call_path *cp = &c->paths[i];

		if (!cp->checked)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s %s %s",
					any ? "," : c->name,
					rules_access_name(cp->access),
					record_tty(esc, sizeof(esc), cp->resolved));
		any = true;
	}
	/* No path checked: an address, or the call alone. */
	if (!any && off < len)
		snprintf(buf + off, len - off, "%s",
			 record_tty(esc, sizeof(esc), what));
}

/* "allow" or "deny [ERRNO]"; anything else is a deny. */
static void parse_answer(struct question *q, char *ans)
{
	char *p = ans, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strcspn(p, "\r\n");
	*e = '\0';
	if (!strcmp(p, "allow")) {
		q->action = RULES_ALLOW;
		return;
	}
	q->action = RULES_DENY;
	q->err = q->deny_err;
	if (!strncmp(p, "deny", 4) && (p[4] == '\0' || p[4] == ' ')) {
		char *n = p + 4;
		int err;

		while (*n == ' ')
			n++;
		if (*n && (err = rules_errno_by_name(n)) > 0)
			q->err = err;
		return;
	}
	q->by = "invalid-answer";
}

static uint64_t now_ms(void)
{
	return sup_now_us() / 1000;
}

/* Read one line from fd until the deadline. 0, or -ETIMEDOUT / -EIO. */
static int read_line(int fd, char *buf, size_t len, uint64_t deadline)
{
	size_t got = 0;

	while (got + 1 < len) {
		uint64_t now = now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(deadline - now)) <= 0)
			continue;
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf, '\n', got))
			break;
	}
	buf[got] = '\0';
	return got ? 0 : -EIO;
}

static void ask_hook(struct question *q)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	char ans[ASK_ANSWER_MAX];
	char sh[] = "/bin/sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, q->ask, NULL };
	pid_t pid = -1;
	int rc;

	q->by = "hook";
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		goto fail;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	/* Security: in sysgate's directory, never in one the loop passed
	 * through (the command's): a hook named by a relative path must not
	 * be one the command put there. */
	rc = home_fd < 0 ? ENOENT :
	     posix_spawn_file_actions_addfchdir_np(&fa, home_fd);
	if (rc == 0)
		rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	if (rc != 0)
		goto fail;
	if (write(in[1], q->line, strlen(q->line)) < 0) {
		/* the hook may answer without reading */
	}
	close(in[1]);
	in[1] = -1;
	rc = read_line(out[0], ans, sizeof(ans), now_ms() + q->timeout_ms);
	if (rc == -ETIMEDOUT) {
		q->by = "timeout";
		q->action = RULES_DENY;
		q->err = q->deny_err;
	} else if (rc < 0) {
		q->by = "hook-failed";
		q->action = RULES_DENY;
		q->err = q->deny_err;
	} else {
		parse_answer(q, ans);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(out[0]);
	return;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	q->by = "hook-failed";
	q->action = RULES_DENY;
	q->err = q->deny_err;
}

/* The terminal, one question at a time, in the foreground meanwhile. */
static void ask_tty(struct question *q, pid_t tree_pgrp)
{
	char prompt[ASK_SHOWN_MAX + 256], ans[ASK_ANSWER_MAX];
	AUTO_CLOSE int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	pid_t fg;
	int rc, n;

	if (tty < 0) {
		q->by = "nobody";
		q->action = RULES_DENY;
		q->err = q->deny_err;
		return;
	}
	pthread_mutex_lock(&tty_lock);
	fg = tcgetpgrp(tty);
	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(tty, getpgrp());
	n = snprintf(prompt, sizeof(prompt),
		     "\nsysgate: pid %d %s (rule %s). Allow? [y/N] ",
		     q->req.pid, q->shown, q->rule ? q->rule : "default");
	/* What was typed before the question is no answer to it: dropped
	 * before the prompt is shown, never after (an answer given as soon
	 * as the prompt shows would be dropped with it). */
	tcflush(tty, TCIFLUSH);
	if (n > 0 && write(tty, prompt, (size_t)n) < 0) {
		/* no terminal to write to: the read fails too */
	}
	rc = read_line(tty, ans, sizeof(ans), now_ms() + q->timeout_ms);
	tcsetpgrp(tty, fg > 0 ? fg : tree_pgrp);
	signal(SIGTTOU, SIG_DFL);
	pthread_mutex_unlock(&tty_lock);
	q->by = "terminal";
	if (rc == -ETIMEDOUT) {
		q->by = "timeout";
		q->action = RULES_DENY;
		q->err = q->deny_err;
	} else if (rc == 0 && (ans[0] == 'y' || ans[0] == 'Y')) {
		q->action = RULES_ALLOW;
	} else {
		q->action = RULES_DENY;
		q->err = q->deny_err;
	}
}

static void question_free(struct question *q)
{
	free(q->line);
	free(q);
}

static pid_t tree_pgrp;

static void *ask_thread(void *arg)
{
	struct question *q = arg;

	/* Its own credentials, not those of the caller the loop held when
	 * it made this thread: the hook runs in sysgate's directory, which
	 * the caller may not be allowed to enter. */
	if (have_home_creds)
		creds_leave(&home_creds);
	if (q->ask[0])
		ask_hook(q);
	else
		ask_tty(q, tree_pgrp);
	/* Hand the answer to the loop; a pointer is written atomically. */
	if (write(answer_pipe[1], &q, sizeof(q)) != sizeof(q))
		question_free(q);
	return NULL;
}

int ask_resolve(struct sup *s, struct call *c)
{
	char what[ASK_WHAT_MAX];
	char shown[ASK_SHOWN_MAX];
	struct question *q;
	pthread_attr_t at;
	pthread_t t;
	int deny_err = c->v.err ? c->v.err : EACCES;

	describe(c, what, sizeof(what));
	show_call(c, what, shown, sizeof(shown));
	/* A call decided again with its answer at hand. */
	if (forced && forced->req.id == c->req->id) {
		if (strcmp(forced->what, what) != 0 ||
		    strcmp(forced->shown, shown) != 0) {
			/* Security: the call changed while it was asked
			 * about (a racing thread): what was answered is not
			 * what would run. */
			c->v.action = RULES_DENY;
			c->v.err = deny_err;
			c->decided_by = "changed";
		} else {
			c->v.action = forced->action;
			c->v.err = forced->action == RULES_DENY ? forced->err : 0;
			c->decided_by = forced->by;
		}
		goto decided;
	}
	for (unsigned i = 0; i < n_remembered; i++) {
		if (remembered[i].rule == c->v.rule &&
		    !strcmp(remembered[i].what, what)) {
			c->v.action = remembered[i].action;
			c->v.err = remembered[i].err;
			c->decided_by = "remembered";
			goto decided;
		}
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		goto fail;
	memcpy(&q->req, c->req, sizeof(q->req));
	q->rule = c->v.rule;
	snprintf(q->what, sizeof(q->what), "%s", what);
	memcpy(q->shown, shown, sizeof(q->shown));
	if (c->v.ask) {
		q->line = record_question(s, c, what);
		if (!q->line) {
			free(q);
			goto fail;
		}
	}
	snprintf(q->ask, sizeof(q->ask), "%s", c->v.ask ? c->v.ask : "");
	q->timeout_ms = c->v.ask_timeout_ms ? c->v.ask_timeout_ms :
					      RULES_ASK_TIMEOUT_MS;
	q->remember = c->v.remember;
	q->deny_err = deny_err;
	tree_pgrp = s->cmd.child;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	cpubind_release_self();	/* not a one-CPU mask for the thread */
	if (pthread_create(&t, &at, ask_thread, q) != 0) {
		pthread_attr_destroy(&at);
		question_free(q);
		goto fail;
	}
	pthread_attr_destroy(&at);
	return 1;
fail:
	c->v.action = RULES_DENY;
	c->v.err = deny_err;
	c->decided_by = "nobody";
decided:
	if (c->v.action == RULES_ALLOW)
		c->v.audit = rules_audit_level(s->run.rules) == RULES_AUDIT_ALL;
	/* The paths that asked carry the answer too (trail, summary). */
	for (unsigned i = 0; i < c->n_paths; i++)
		if (c->paths[i].checked && c->paths[i].v.action == RULES_ASK) {
			c->paths[i].v.action = c->v.action;
			c->paths[i].v.err = c->v.err;
		}
	return 0;
}

void ask_dispatch(struct sup *s, struct seccomp_notif *req, ask_redo_fn redo)
{
	struct question *qs[16];
	ssize_t n = read(answer_pipe[0], qs, sizeof(qs));

	for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(qs[0]); i++) {
		struct question *q = qs[i];

		if (q->remember && n_remembered < ASK_REMEMBER_MAX &&
		    strcmp(q->by, "timeout") != 0) {
			struct remembered *r = &remembered[n_remembered];

			r->what = strdup(q->what);
			if (r->what) {
				r->rule = q->rule;
				r->action = q->action;
				r->err = q->err;
				n_remembered++;
			}
		}
		/* The caller may have died while it waited. */
		if (notify_id_valid(s, q->req.id)) {
			memset(req, 0, s->loop.sizes.seccomp_notif);
			memcpy(req, &q->req, sizeof(q->req));
			forced = q;
			redo(s, req);
			forced = NULL;
		}
		question_free(q);
	}
}
