/* SPDX-License-Identifier: MIT */
/*
 * Names for the numbers a call or a signal carries, for the trail: signal
 * codes, ioctl requests, resources, socket families, clone flags, and the
 * question of a DNS query.  Side-effect free: no tracee access; everything
 * decoded here was copied by the caller, and every input byte may be
 * hostile (bounds are checked, nothing is trusted to be terminated).
 */
#ifndef SYSGATE_SUPERVISOR_DECODE_H
#define SYSGATE_SUPERVISOR_DECODE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct audit_rec;

/* What PTRACE_GETSIGINFO said at a task's signal-delivery stop. */
struct sig_note {
	bool have;          /* taken at its last signal-delivery stop */
	bool has_sender;    /* sent by a task (kill, tgkill, sigqueue, ...) */
	bool has_addr;      /* a fault the kernel raised: addr is where */
	int signo;
	int code;           /* si_code */
	pid_t pid;          /* sender, when has_sender */
	uid_t uid;          /* the sender's real uid, when has_sender */
	uint64_t addr;      /* fault address, when has_addr */
	int syscall;        /* SIGSYS from seccomp: the call, else -1 */
};

/* Fill n from a siginfo the caller copied (a siginfo_t). */
void decode_sig_note(const void *siginfo, struct sig_note *n);

/* The name of si_code for signal signo ("SEGV_MAPERR", "SI_USER"), or
 * NULL when the code names nothing known. */
const char *decode_si_code(int signo, int code);

/* Add n's fields to r: si_code (by name, else the number), sender_pid,
 * sender_uid, fault_addr, si_syscall; nothing when !n->have. */
void decode_add_sig_note(struct audit_rec *r, const struct sig_note *n);

/*
 * The registers a of call nr as named fields of r (decode-args.c): each
 * argument under its name, numbers in decimal, flags and commands by
 * name, pointers as hex addresses (what they point to is not read).
 * Returns 0, or -ENOENT when nr has no signature (nothing added).
 */
int decode_args(struct audit_rec *r, int nr, const __u64 *a);
/* The signature of nr ("fd:f,buf:p,count:z"), NULL: none (for tests). */
const char *decode_signature(int nr);
/*
 * For the calls on paths, programs and socket addresses, whose paths,
 * dirfds, addresses (and open flags and mode) record.c writes itself: the
 * rest of their registers, by name.  0, or -ENOENT (nothing added) when
 * nr is not such a call.  decode_extra_signature: its list (for tests).
 */
int decode_extra_args(struct audit_rec *r, int nr, const __u64 *a);
const char *decode_extra_signature(int nr);
/* An ioctl request's name ("TCGETS"), NULL when not known. */
const char *decode_ioctl_name(uint64_t request);
/* An address family's name ("AF_INET6"), NULL when not known. */
const char *decode_family_name(int family);
/* Add key: the family by name, or its number. */
void decode_add_family(struct audit_rec *r, const char *key, int family);
/* Add key: the socket type with its flags ("SOCK_STREAM|SOCK_CLOEXEC"). */
void decode_add_sock_type(struct audit_rec *r, const char *key,
			  uint32_t type);

/* The first question of a DNS query (dns.c). */
struct dns_query {
	char name[4 * 255 + 2]; /* as text: "www.example.com", "." the root;
				 * bytes other than letters, digits, '-',
				 * '_' and '*' as \DDD, '.' and '\\' in a
				 * label escaped */
	unsigned qtype, qclass, id, opcode, qdcount;
};

/*
 * Parse buf (len bytes, untrusted) as a DNS query message: a header with
 * QR 0 and at least one question, whose first question is read.  0 and *q
 * set, or -EINVAL when it is not one (*q then undefined).  A question
 * name that uses a compression pointer is refused.
 */
int dns_parse_query(const void *buf, size_t len, struct dns_query *q);
/* The name of a query type ("AAAA"), NULL when not known. */
const char *dns_type_name(unsigned type);
/* Add key: {"name","type","class","id"[,"opcode"][,"questions"]}. */
void dns_add_query(struct audit_rec *r, const char *key,
		   const struct dns_query *q);

#endif
