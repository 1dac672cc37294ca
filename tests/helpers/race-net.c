/* SPDX-License-Identifier: MIT */
/*
 * race-net: the TOCTOU attacker on a socket address.  For each OP in turn,
 * a flipper keeps rewriting a struct sockaddr_in between 127.0.0.1:ALLOWED
 * and 127.0.0.1:DENIED while the main thread connects (a new TCP socket
 * each time, sending the word "connect") or sends a datagram holding the
 * OP's name (one UDP socket) to whatever the buffer holds, in a loop.  The
 * SECONDS are shared among the OPs.
 *
 *   race-net [--flipper thread|vm|shm] SECONDS ALLOWED_PORT DENIED_PORT OP...
 *
 * OP: connect, sendto, sendmsg, sendmmsg.  --flipper as for race-path: a
 * thread (default), a clone(CLONE_VM) process, or a forked child sharing
 * the page that holds the address (MAP_SHARED|MAP_ANONYMOUS).
 *
 * The attacker does not judge its own success: the test counts what the
 * listener on DENIED_PORT received.  Exit 0 when every OP ran (the address
 * flipped and a call succeeded at least once), VICTIM_EXIT_SETUP otherwise.
 * A summary line per OP goes to stderr.
 */
#include "victim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* The port is in the first 8 bytes of the address: one store flips it. */
struct shared {
	_Alignas(64) struct sockaddr_in sa;
	struct sockaddr_in img[2];
	atomic_int stop;
	atomic_ulong flips;
};

static struct shared *sh;
static int flipper_mode; /* 0 thread, 1 vm, 2 shm */

static void flip_loop(void)
{
	volatile uint64_t *buf = (volatile uint64_t *)&sh->sa;
	uint64_t w[2];
	unsigned long i = 0;

	memcpy(&w[0], &sh->img[0], 8);
	memcpy(&w[1], &sh->img[1], 8);
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		*buf = w[i & 1];
		i++;
		if (i == 2 || !(i & 1023))
			atomic_store_explicit(&sh->flips, i,
					      memory_order_relaxed);
	}
	atomic_store(&sh->flips, i);
}

static void *flip_thread(void *arg)
{
	(void)arg;
	flip_loop();
	return NULL;
}

static int flip_vm(void *arg)
{
	(void)arg;
	flip_loop();
	return 0;
}

static pthread_t flip_tid;
static pid_t flip_pid;

static void flipper_start(void)
{
	atomic_store(&sh->stop, 0);
	atomic_store(&sh->flips, 0);
	switch (flipper_mode) {
	case 0:
		errno = pthread_create(&flip_tid, NULL, flip_thread, NULL);
		if (errno)
			victim_setup_fail("pthread_create");
		break;
	case 1: {
		size_t sz = 256 * 1024;
		char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
				   -1, 0);

		if (stack == MAP_FAILED)
			victim_setup_fail("mmap stack");
		flip_pid = clone(flip_vm, stack + sz, CLONE_VM | SIGCHLD, NULL);
		if (flip_pid < 0)
			victim_setup_fail("clone(CLONE_VM)");
		break;
	}
	default:
		flip_pid = fork();
		if (flip_pid < 0)
			victim_setup_fail("fork");
		if (flip_pid == 0) {
			flip_loop();
			_exit(0);
		}
		break;
	}
	/* Race only once the flipper really runs. */
	while (!atomic_load(&sh->flips))
		sched_yield();
}

static unsigned long flipper_stop(void)
{
	int st;

	atomic_store(&sh->stop, 1);
	if (flipper_mode == 0) {
		pthread_join(flip_tid, NULL);
	} else {
		if (waitpid(flip_pid, &st, 0) != flip_pid)
			victim_setup_fail("waitpid flipper");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			errno = 0;
			victim_setup_fail("flipper process died (status 0x%x)",
					  st);
		}
	}
	return atomic_load(&sh->flips);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long one(const char *op, int udp)
{
	/* The payload names the call, for the listener's record. */
	char *hello = (char *)op;
	struct iovec iov = { hello, strlen(op) };
	struct msghdr mh = { 0 };
	long r;

	if (!strcmp(op, "connect")) {
		struct linger lg = { 1, 0 };
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0)
			victim_setup_fail("socket");
		r = syscall(SYS_connect, s, &sh->sa, sizeof sh->sa);
		if (r == 0) {
			int e = errno;

			/* RST on close: no TIME_WAIT, no port exhaustion. */
			send(s, hello, strlen(op), MSG_NOSIGNAL);
			setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
			errno = e;
		}
		close(s);
		return r;
	}
	if (!strcmp(op, "sendto"))
		return syscall(SYS_sendto, udp, hello, strlen(op), 0,
			       &sh->sa, sizeof sh->sa);
	mh.msg_name = &sh->sa;
	mh.msg_namelen = sizeof sh->sa;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (!strcmp(op, "sendmsg"))
		return syscall(SYS_sendmsg, udp, &mh, 0);
	if (!strcmp(op, "sendmmsg")) {
		struct mmsghdr mm[2] = { { mh, 0 }, { mh, 0 } };

		return syscall(SYS_sendmmsg, udp, mm, 2, 0);
	}
	errno = 0;
	victim_setup_fail("unknown OP '%s'", op);
}

int main(int argc, char **argv)
{
	double secs, slice;
	int i = 1, nops, k, bad = 0, udp;
	long pa, pd;
	char *end;

	victim_name = "race-net";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--flipper") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "thread"))
				flipper_mode = 0;
			else if (!strcmp(argv[i], "vm"))
				flipper_mode = 1;
			else if (!strcmp(argv[i], "shm"))
				flipper_mode = 2;
			else
				victim_usage("--flipper thread|vm|shm ...");
		} else {
			break;
		}
	}
	if (argc - i < 4)
		victim_usage("[--flipper thread|vm|shm] SECONDS ALLOWED_PORT "
			     "DENIED_PORT OP...");
	secs = strtod(argv[i], &end);
	if (end == argv[i] || *end || secs <= 0)
		victim_usage("SECONDS: a positive number");
	pa = victim_long(argv[i + 1], "port");
	pd = victim_long(argv[i + 2], "port");
	nops = argc - i - 3;
	slice = secs / nops;

	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		victim_setup_fail("mmap shared");
	for (k = 0; k < 2; k++) {
		sh->img[k].sin_family = AF_INET;
		sh->img[k].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sh->img[k].sin_port = htons(k ? pd : pa);
	}
	sh->sa = sh->img[0];
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp < 0)
		victim_setup_fail("socket");

	for (k = 0; k < nops; k++) {
		const char *op = argv[i + 3 + k];
		unsigned long tries = 0, ok = 0, flips, nerr[4] = { 0 };
		int errs[4] = { 0 }, e;
		double start, stop_at;

		flipper_start();
		start = now();
		stop_at = start + slice;
		for (;;) {
			double t = now();
			long r;
			int j;

			/* Past the slice until the allowed call has worked
			 * once (10 slices at most): one call that outlasts
			 * the slice on a loaded machine would prove nothing. */
			if (t >= stop_at && (ok || t >= start + 10 * slice))
				break;
			r = one(op, udp);

			tries++;
			if (r >= 0) {
				ok++;
				continue;
			}
			e = errno;
			for (j = 0; j < 4 && errs[j] && errs[j] != e; j++)
				;
			if (j < 4) {
				errs[j] = e;
				nerr[j]++;
			}
		}
		flips = flipper_stop();
		fprintf(stderr, "race-net: %s (%s flipper): %lu calls, %lu ok",
			op, flipper_mode == 0 ? "thread" :
			    flipper_mode == 1 ? "vm" : "shm", tries, ok);
		for (e = 0; e < 4 && errs[e]; e++)
			fprintf(stderr, ", %lu %s", nerr[e],
				victim_errname(errs[e]));
		fprintf(stderr, ", %lu flips\n", flips);
		if (!flips || !ok) {
			fprintf(stderr, "race-net: %s: proved nothing (no flip "
				"or the allowed call never worked)\n", op);
			bad = 1;
		}
	}
	if (bad) {
		errno = 0;
		victim_setup_fail("some OP proved nothing");
	}
	return 0;
}
