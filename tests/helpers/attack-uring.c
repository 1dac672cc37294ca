/* SPDX-License-Identifier: MIT */
/*
 * attack-uring: create and write PATH through io_uring alone (an
 * IORING_OP_OPENAT and an IORING_OP_WRITE), so no openat or write call
 * of the process names it: what a path rule sees nothing of unless
 * io_uring itself is refused.  Exits with the errno of the first step
 * that failed (io_uring_setup's EPERM under sysgate), 0 when PATH was
 * written.
 *
 *   attack-uring PATH
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <sys/syscall.h>

static const char payload[] = "written through io_uring\n";

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r)
{
	struct io_uring_params p = { 0 };
	char *sq, *cq;
	size_t sq_len, cq_len;

	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		victim_setup_fail("mmap of the rings");
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit one sqe, wait for its completion; its result (or -errno of
 * io_uring_enter). */
static int ring_do(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	int res;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EIO;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

int main(int argc, char **argv)
{
	struct io_uring_sqe sqe = { 0 };
	struct ring r;
	int err, fd;

	victim_name = "attack-uring";
	if (argc != 2)
		victim_usage("PATH");
	if ((err = ring_setup(&r)) != 0)
		return victim_result("io_uring_setup", err);
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uint64_t)(uintptr_t)argv[1];
	sqe.open_flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	sqe.len = 0644;
	fd = ring_do(&r, &sqe);
	if (fd < 0)
		return victim_result("IORING_OP_OPENAT", -fd);
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = fd;
	sqe.addr = (uint64_t)(uintptr_t)payload;
	sqe.len = sizeof(payload) - 1;
	sqe.off = 0;
	err = ring_do(&r, &sqe);
	if (err < 0)
		return victim_result("IORING_OP_WRITE", -err);
	return err == (int)sizeof(payload) - 1 ? 0 : victim_result("short write", EIO);
}
