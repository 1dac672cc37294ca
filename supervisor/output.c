/* SPDX-License-Identifier: MIT */
/*
 * The command's output in the trail (output.h).  One thread, every signal
 * blocked, reads the pipes that are the command's fd 1 and 2, records
 * what it read, then writes it to sysgate's own fd 1 or 2.  It reads a
 * stream again only once the last read is passed on, so a reader of
 * sysgate's output that stops makes the command's writes block, as they
 * would natively; the event loop never waits for that reader (it only
 * asks the thread, with a bounded wait, to record what is waiting).
 *
 * The cap: the first half is recorded as it comes; past it, the last half
 * is kept in memory (a queue of chunks, the oldest dropped) and recorded
 * at the end of the run with "deferred": true; what was dropped is counted
 * in the first deferred record and in run.end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "supervisor/output.h"

/* A read: the default pipe capacity, so that one read takes what waits. */
#define OUT_CHUNK (64 * 1024)
/* A write to sysgate's fd after POLLOUT: at most PIPE_BUF, which a pipe
 * with room takes without blocking. */
#define OUT_WRITE 4096
/* Waits of the event loop and of the end of the run (ms). */
#define OUT_SYNC_MS 200
#define OUT_DRAIN_MS 2000
/* At the end: past this long without the reader taking anything, the
 * rest is not passed on (sysgate says so). */
#define OUT_IDLE_MS 5000
/* What the end of the run reads and keeps to pass on, per stream. */
#define OUT_REST_MAX (4 * 1024 * 1024)

struct chunk {
	struct chunk *next;
	unsigned stream;
	char time[40];
	size_t len;
	char data[];
};

struct ostream {
	const char *name;	/* "stdout", "stderr", "stdout+stderr" */
	int rd;			/* the pipe's read end, -1 at its end */
	int peek;		/* the event loop's copy of it, for FIONREAD */
	int wr;			/* its write end, ours until started */
	int out;		/* sysgate's fd it goes to */
	bool dead;		/* sysgate's fd takes no more (EPIPE) */
	char *buf;		/* read, not yet passed on: buf[off..len) */
	size_t len, off, cap;
	uint64_t bytes;		/* read in all */
};

struct output {
	const char *how[2];	/* fd 1, 2: pipe, shared, terminal, closed, off */
	struct ostream st[2];
	unsigned n;
	uint64_t cap, head, recorded, dropped, ring_bytes;
	struct chunk *ring, *ring_last;
	struct audit_writer *w;
	int wake[2];
	pthread_t th;
	bool started;
	pthread_mutex_t mu;	/* the flags below, and every commit */
	pthread_cond_t cv;
	uint64_t sync_req, sync_done;
	bool finish, drained, closed;
	int err;		/* first commit error */
};

static void now_rfc3339(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04u-%02u-%02uT%02u:%02u:%02u.%06uZ",
		 (unsigned)(tm.tm_year + 1900) % 10000u,
		 (unsigned)(tm.tm_mon + 1) % 100u, (unsigned)tm.tm_mday % 100u,
		 (unsigned)tm.tm_hour % 100u, (unsigned)tm.tm_min % 100u,
		 (unsigned)tm.tm_sec % 100u,
		 (unsigned)(ts.tv_nsec / 1000) % 1000000u);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A pipe whose ends are above 2 (sysgate may have started with fd 1 or 2
 * closed), close-on-exec. */
static int high_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		if (p[i] > 2)
			continue;
		int fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);

		if (fd < 0) {
			int e = -errno;

			close(p[0]);
			close(p[1]);
			return e;
		}
		close(p[i]);
		p[i] = fd;
	}
	return 0;
}

/* How sysgate's fd is kept: NULL when it is, else why not. */
static const char *not_kept(int fd, uint64_t cap)
{
	if (fcntl(fd, F_GETFL) < 0)
		return "closed";
	/* A terminal stays the command's: see sysgate.1, "Output". */
	if (isatty(fd))
		return "terminal";
	if (!cap)
		return "off";
	return NULL;
}

static int add_stream(struct output *o, const char *name, int out)
{
	struct ostream *st = &o->st[o->n];
	int p[2], r;

	r = high_pipe(p);
	if (r < 0)
		return r;
	st->buf = malloc(OUT_CHUNK);
	if (!st->buf) {
		close(p[0]);
		close(p[1]);
		return -ENOMEM;
	}
	st->name = name;
	st->peek = -1;
	st->rd = p[0];
	st->wr = p[1];
	st->out = out;
	st->cap = OUT_CHUNK;
	(void)fcntl(st->rd, F_SETFL, O_NONBLOCK);
	o->n++;
	return 0;
}

int output_prepare(uint64_t cap, struct output **out, int *child_out,
		   int *child_err)
{
	struct output *o = calloc(1, sizeof(*o));
	pid_t me = getpid();
	int r = 0;

	*out = o;
	if (!o)
		return -ENOMEM;
	o->cap = cap;
	o->head = cap / 2;
	o->wake[0] = o->wake[1] = -1;
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	o->how[0] = not_kept(1, cap);
	o->how[1] = not_kept(2, cap);
	/*
	 * 2>&1: one open file behind both, so one pipe behind both in the
	 * command, which keeps the order of its writes across the two.
	 */
	if (!o->how[0] && !o->how[1] &&
	    syscall(SYS_kcmp, me, me, KCMP_FILE, 1, 2) == 0) {
		r = add_stream(o, "stdout+stderr", 1);
		if (r == 0) {
			*child_out = *child_err = o->st[0].wr;
			o->how[0] = o->how[1] = "shared";
		}
		return r;
	}
	if (!o->how[0] && (r = add_stream(o, "stdout", 1)) == 0) {
		*child_out = o->st[o->n - 1].wr;
		o->how[0] = "pipe";
	}
	if (r == 0 && !o->how[1] && (r = add_stream(o, "stderr", 2)) == 0) {
		*child_err = o->st[o->n - 1].wr;
		o->how[1] = "pipe";
	}
	return r;
}

void output_set_cap(struct output *o, uint64_t cap, int *child_out,
		    int *child_err)
{
	if (!o || o->started)
		return;
	o->cap = cap;
	o->head = cap / 2;
	if (cap)
		return;
	for (unsigned s = 0; s < o->n; s++) {
		close(o->st[s].rd);
		close(o->st[s].wr);
		free(o->st[s].buf);
		o->st[s] = (struct ostream){ .rd = -1, .wr = -1, .peek = -1 };
	}
	o->n = 0;
	for (int i = 0; i < 2; i++)
		if (!o->how[i] || !strcmp(o->how[i], "pipe") ||
		    !strcmp(o->how[i], "shared"))
			o->how[i] = "off";
	*child_out = *child_err = -1;
}

void output_describe(const struct output *o, struct audit_rec *r)
{
	if (!o)
		return;
	audit_obj_begin(r, "output");
	audit_str(r, "stdout", o->how[0] ? o->how[0] : "pipe");
	audit_str(r, "stderr", o->how[1] ? o->how[1] : "pipe");
	audit_uint(r, "cap", o->cap);
	audit_obj_end(r);
}

/* Record one piece now; under o->mu.  Fail closed: the first error is
 * the writer's sticky error, which stops the tree (loop.c); no record is
 * tried after it. */
static void commit_piece(struct output *o, unsigned s, const char *time,
			 const char *data, size_t len, bool deferred,
			 uint64_t dropped_before)
{
	struct audit_rec *r;
	int rc;

	if (o->err || o->closed)
		return;
	r = audit_begin(o->w, "output");
	audit_str(r, "stream", o->st[s].name);
	audit_str(r, "time", time);
	audit_uint(r, "bytes", len);
	if (deferred) {
		audit_bool(r, "deferred", true);
		if (dropped_before)
			audit_uint(r, "dropped_before", dropped_before);
	}
	audit_bytes(r, "data", data, len);
	rc = audit_commit(r);
	if (rc < 0)
		o->err = rc;
}

/* Past the head: keep in the queue, drop the oldest bytes over the cap. */
static void ring_push(struct output *o, unsigned s, const char *time,
		      const char *data, size_t len)
{
	uint64_t keep = o->cap - o->head;
	struct chunk *c;

	if (len > keep) {
		o->dropped += len - keep;
		data += len - keep;
		len = (size_t)keep;
	}
	c = malloc(sizeof(*c) + len);
	if (!c) {
		o->dropped += len;
		return;
	}
	c->next = NULL;
	c->stream = s;
	c->len = len;
	snprintf(c->time, sizeof(c->time), "%s", time);
	memcpy(c->data, data, len);
	if (o->ring_last)
		o->ring_last->next = c;
	else
		o->ring = c;
	o->ring_last = c;
	o->ring_bytes += len;
	while (o->ring_bytes > keep) {
		struct chunk *h = o->ring;
		uint64_t over = o->ring_bytes - keep;

		if (over >= h->len) {
			o->ring = h->next;
			if (!o->ring)
				o->ring_last = NULL;
			o->ring_bytes -= h->len;
			o->dropped += h->len;
			free(h);
			continue;
		}
		memmove(h->data, h->data + over, h->len - over);
		h->len -= over;
		o->ring_bytes -= over;
		o->dropped += over;
	}
}

/* What was read from stream s: recorded (now or in the kept tail), in
 * pieces of at most OUT_CHUNK bytes (a record stays far below
 * AUDIT_MAX_LINE, escaped); under o->mu. */
static void keep(struct output *o, unsigned s, const char *data, size_t len)
{
	char time[40];

	if (!len || !o->cap)
		return;
	now_rfc3339(time, sizeof(time));
	while (len) {
		size_t piece = len < OUT_CHUNK ? len : OUT_CHUNK;
		size_t now = o->recorded < o->head ?
			     (size_t)(o->head - o->recorded) : 0;

		if (now > piece)
			now = piece;
		if (now) {
			commit_piece(o, s, time, data, now, false, 0);
			o->recorded += now;
		}
		if (piece > now)
			ring_push(o, s, time, data + now, piece - now);
		data += piece;
		len -= piece;
	}
}

/* The end of stream s's pipe for us: the read end and the event loop's
 * copy (under o->mu, which output_sync holds while it uses it), so that
 * the command's next write fails as it would have natively. */
static void close_read(struct output *o, struct ostream *st)
{
	pthread_mutex_lock(&o->mu);
	if (st->rd >= 0)
		close(st->rd);
	if (st->peek >= 0)
		close(st->peek);
	st->rd = st->peek = -1;
	pthread_mutex_unlock(&o->mu);
}

/* One read of stream s, kept to pass on in its buffer where it has room
 * (else recorded only): 1 read, 0 nothing waiting, -1 at the end of the
 * pipe. */
static int read_some(struct output *o, unsigned s)
{
	static char scratch[OUT_CHUNK];
	struct ostream *st = &o->st[s];
	bool room = st->len < st->cap && !st->dead;
	char *to = room ? st->buf + st->len : scratch;
	ssize_t n;

	if (st->rd < 0)
		return -1;
	/* Read and recorded under o->mu: once the pipes are empty, all
	 * that was in them is in the trail (output_sync). */
	pthread_mutex_lock(&o->mu);
	do
		n = read(st->rd, to, room ? st->cap - st->len : sizeof(scratch));
	while (n < 0 && errno == EINTR);
	if (n > 0)
		keep(o, s, to, (size_t)n);
	pthread_mutex_unlock(&o->mu);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0) {
		close_read(o, st);
		return -1;
	}
	st->bytes += (uint64_t)n;
	if (room)
		st->len += (size_t)n;
	return 1;
}

/* Pass some of stream s on (its fd polled writable).  sysgate's reader
 * gone (EPIPE and the like): the command's pipe is closed too, so that
 * its next write fails as it would have natively. */
static void relay_some(struct output *o, struct ostream *st)
{
	size_t n = st->len - st->off;
	ssize_t w;

	if (n > OUT_WRITE)
		n = OUT_WRITE;
	w = write(st->out, st->buf + st->off, n);
	if (w < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (w < 0) {
		st->dead = true;
		st->len = st->off = 0;
		close_read(o, st);
		return;
	}
	st->off += (size_t)w;
	if (st->off == st->len)
		st->len = st->off = 0;
}

static bool pending(const struct ostream *st)
{
	return st->len > st->off && !st->dead;
}

/* The event loop asked: record what waits in the pipes now (a stream
 * whose last read is not passed on yet waits as the command does). */
static void answer_sync(struct output *o, uint64_t req)
{
	for (unsigned s = 0; s < o->n; s++)
		if (!pending(&o->st[s]))
			(void)read_some(o, s);
	pthread_mutex_lock(&o->mu);
	o->sync_done = req;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

/* The end of the run: read what is left (bounded), keeping it to pass
 * on; the kept tail recorded; no record after this. */
static void drain(struct output *o)
{
	uint64_t until = mono_ms() + OUT_DRAIN_MS;

	for (unsigned s = 0; s < o->n; s++) {
		struct ostream *st = &o->st[s];

		while (st->rd >= 0 && mono_ms() < until) {
			if (st->cap - st->len < OUT_CHUNK / 4 &&
			    st->cap < OUT_REST_MAX) {
				char *nb = realloc(st->buf, st->cap * 2);

				if (nb) {
					st->buf = nb;
					st->cap *= 2;
				}
			}
			if (read_some(o, s) <= 0)
				break;
		}
	}
	pthread_mutex_lock(&o->mu);
	for (struct chunk *c = o->ring; c; c = c->next)
		commit_piece(o, c->stream, c->time, c->data, c->len, true,
			     c == o->ring ? o->dropped : 0);
	o->drained = o->closed = true;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

/* After the run: pass on what is left while the reader takes it. */
static void relay_rest(struct output *o)
{
	uint64_t idle_since = mono_ms();

	for (;;) {
		struct pollfd pfd[2];
		unsigned map[2], n = 0;
		int wait;

		for (unsigned s = 0; s < o->n; s++)
			if (pending(&o->st[s])) {
				pfd[n] = (struct pollfd){ o->st[s].out, POLLOUT, 0 };
				map[n++] = s;
			}
		wait = (int)(idle_since + OUT_IDLE_MS - mono_ms());
		if (!n || wait <= 0)
			break;
		if (poll(pfd, n, wait) <= 0)
			continue;
		for (unsigned i = 0; i < n; i++)
			if (pfd[i].revents) {
				relay_some(o, &o->st[map[i]]);
				idle_since = mono_ms();
			}
	}
	for (unsigned s = 0; s < o->n; s++)
		if (pending(&o->st[s]))
			fprintf(stderr, "sysgate: %zu bytes of the command's %s not passed on: nothing read them for %d s\n",
				o->st[s].len - o->st[s].off, o->st[s].name,
				OUT_IDLE_MS / 1000);
}

/* The requests of the event loop, woken by the wake pipe: true to end. */
static bool requests(struct output *o)
{
	char b[64];
	uint64_t req;
	bool fin;

	while (read(o->wake[0], b, sizeof(b)) > 0)
		;
	pthread_mutex_lock(&o->mu);
	fin = o->finish;
	req = o->sync_req;
	pthread_mutex_unlock(&o->mu);
	if (fin) {
		drain(o);
		return true;
	}
	if (req != o->sync_done)
		answer_sync(o, req);
	return false;
}

static void *thread_main(void *arg)
{
	struct output *o = arg;

	for (;;) {
		struct pollfd pfd[3] = { { o->wake[0], POLLIN, 0 } };
		unsigned map[3], n = 1;

		for (unsigned s = 0; s < o->n; s++) {
			struct ostream *st = &o->st[s];

			if (pending(st))
				pfd[n] = (struct pollfd){ st->out, POLLOUT, 0 };
			else if (st->rd >= 0)
				pfd[n] = (struct pollfd){ st->rd, POLLIN, 0 };
			else
				continue;
			map[n++] = s;
		}
		if (poll(pfd, n, -1) < 0 && errno != EINTR) {
			/* Cannot wait (no memory): end as at the run's end,
			 * so that nobody waits for this thread. */
			drain(o);
			break;
		}
		if ((pfd[0].revents & POLLIN) && requests(o))
			break;
		for (unsigned i = 1; i < n; i++) {
			struct ostream *st = &o->st[map[i]];

			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == st->out)
				relay_some(o, st);
			else
				(void)read_some(o, map[i]);
		}
	}
	relay_rest(o);
	return NULL;
}

int output_start(struct output *o, struct audit_writer *w)
{
	sigset_t all, old;
	int r;

	if (!o)
		return 0;
	for (unsigned s = 0; s < o->n; s++) {
		close(o->st[s].wr);
		o->st[s].wr = -1;
		o->st[s].peek = fcntl(o->st[s].rd, F_DUPFD_CLOEXEC, 3);
	}
	if (!o->n)
		return 0;
	o->w = w;
	r = high_pipe(o->wake);
	if (r < 0)
		return r;
	(void)fcntl(o->wake[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(o->wake[1], F_SETFL, O_NONBLOCK);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&o->th, NULL, thread_main, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	o->started = true;
	return 0;
}

/* Wait (under o->mu) until done() or ms have passed. */
static void wait_for(struct output *o, bool (*done)(const struct output *),
		     int ms)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	while (!done(o))
		if (pthread_cond_timedwait(&o->cv, &o->mu, &dl) == ETIMEDOUT)
			break;
}

static bool synced(const struct output *o)
{
	return o->sync_done == o->sync_req || o->drained;
}

static bool finished(const struct output *o)
{
	return o->drained;
}

/* Whether some pipe holds bytes not read yet; under o->mu.  A copy of
 * the read end that cannot be asked counts as not empty. */
static bool waiting(const struct output *o)
{
	for (unsigned s = 0; s < o->n; s++) {
		int n = 0;

		if (o->st[s].rd < 0)
			continue;	/* its end: nothing more to read */
		if (o->st[s].peek < 0 ||
		    ioctl(o->st[s].peek, FIONREAD, &n) < 0 || n > 0)
			return true;
	}
	return false;
}

int output_sync(struct output *o)
{
	int err;

	if (!o || !o->started)
		return 0;
	pthread_mutex_lock(&o->mu);
	if (!o->finish && waiting(o)) {
		o->sync_req++;
		(void)!write(o->wake[1], "s", 1);
		wait_for(o, synced, OUT_SYNC_MS);
	}
	err = o->err;
	pthread_mutex_unlock(&o->mu);
	return err;
}

int output_finish(struct output *o)
{
	int err;

	if (!o || !o->started)
		return 0;
	pthread_mutex_lock(&o->mu);
	o->finish = true;
	(void)!write(o->wake[1], "f", 1);
	wait_for(o, finished, OUT_DRAIN_MS + 1000);
	/* Security: nothing is recorded after run.end, whatever the
	 * thread is doing. */
	o->closed = true;
	err = o->err;
	pthread_mutex_unlock(&o->mu);
	return err;
}

void output_end_fields(const struct output *o, struct audit_rec *r)
{
	uint64_t by[2] = { 0, 0 };

	if (!o)
		return;
	for (unsigned s = 0; s < o->n; s++)
		by[strcmp(o->st[s].name, "stderr") == 0] += o->st[s].bytes;
	audit_obj_begin(r, "output");
	audit_uint(r, "stdout", by[0]);
	audit_uint(r, "stderr", by[1]);
	audit_uint(r, "recorded", o->recorded + o->ring_bytes);
	audit_uint(r, "dropped", o->dropped);
	audit_obj_end(r);
}

/* Never started (the command could not start): what its child wrote
 * before (sysgate's own messages) is passed on, not waited for. */
static void pass_on_left(struct output *o)
{
	for (unsigned s = 0; s < o->n; s++) {
		struct ostream *st = &o->st[s];
		ssize_t n;

		if (st->wr >= 0)
			close(st->wr);
		st->wr = -1;
		while ((n = read(st->rd, st->buf, st->cap)) > 0)
			if (write(st->out, st->buf, (size_t)n) != n)
				break;
	}
}

void output_free(struct output *o)
{
	if (!o)
		return;
	if (o->started) {
		(void)output_finish(o);
		pthread_join(o->th, NULL);
	} else {
		pass_on_left(o);
	}
	for (unsigned s = 0; s < o->n; s++) {
		if (o->st[s].rd >= 0)
			close(o->st[s].rd);
		if (o->st[s].wr >= 0)
			close(o->st[s].wr);
		if (o->st[s].peek >= 0)
			close(o->st[s].peek);
		free(o->st[s].buf);
	}
	while (o->ring) {
		struct chunk *c = o->ring;

		o->ring = c->next;
		free(c);
	}
	if (o->wake[0] >= 0)
		close(o->wake[0]);
	if (o->wake[1] >= 0)
		close(o->wake[1]);
	pthread_cond_destroy(&o->cv);
	pthread_mutex_destroy(&o->mu);
	free(o);
}
