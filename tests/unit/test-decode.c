/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-decode.c: the names the trail gives numbers
 * (supervisor/decode*.c): every signature well formed and every call the
 * rules decide on registers alone has one; requests, codes and flags by
 * name, unknown ones by number; the DNS question parser on good,
 * broken and random messages.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "audit/audit.h"
#include "rules/rules.h"
#include "supervisor/decode.h"
#include "tests/unit/unit.h"

/* The record decode_args() writes for nr and a, as text (static). */
static const char *decoded(int nr, const __u64 a[6], int *rc)
{
	static char buf[8192];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	int fd = memfd_create("decode", MFD_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(audit_open_fd(fd, AUDIT_SYNC_NONE, "t", &w) == 0);
	r = audit_begin(w, "syscall");
	audit_obj_begin(r, "args");
	*rc = decode_args(r, nr, a);
	audit_obj_end(r);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	audit_close(w);
	return buf;
}

static void expect(int nr, __u64 a0, __u64 a1, __u64 a2, const char *want)
{
	const __u64 a[6] = { a0, a1, a2, 0, 0, 0 };
	int rc;
	const char *got = decoded(nr, a, &rc);

	CU_ASSERT_EQUAL(rc, 0);
	if (!strstr(got, want)) {
		fprintf(stderr, "\nnr %d: want %s in %s", nr, want, got);
		CU_FAIL("decoded text");
	}
}

static void test_signatures_well_formed(void)
{
	static const char types[] = "dulzpfPmSoWrMahFXUkRATCcItDEKNG";

	for (int k = 0; k < 2048; k++) {
		int nr = k % 1024;
		const char *sig = k < 1024 ? decode_signature(nr) :
					     decode_extra_signature(nr);
		unsigned n = 0;

		if (!sig || !*sig)
			continue;
		for (const char *p = sig; *p; n++) {
			size_t len = strcspn(p, ",");
			const char *colon = memchr(p, ':', len);

			if (len == 1 && *p == '-') {
				/* skipped: recorded by record.c */
			} else if (!colon || colon == p || colon + 2 != p + len ||
				   !strchr(types, colon[1])) {
				fprintf(stderr, "\nnr %d: bad signature %s", nr, sig);
				CU_FAIL("signature");
			}
			p += len;
			if (*p)
				p++;
		}
		CU_ASSERT(n <= 6);
	}
}

/* Every call decided on registers has names for them, but the signal
 * calls (record.c names them) and those the kernel no longer has. */
static void test_every_scalar_call_has_a_signature(void)
{
	static const char *const without[] = {
		"kill", "tkill", "tgkill", "rt_sigqueueinfo",
		"rt_tgsigqueueinfo", "pidfd_send_signal", "create_module",
		"get_kernel_syms", "query_module", "nfsservctl", "getpmsg",
		"putpmsg", "afs_syscall", "tuxcall", "security", "vserver",
		"epoll_ctl_old", "epoll_wait_old",
	};

	for (int nr = 0; nr <= rules_syscall_max_nr(); nr++) {
		const struct rules_syscall_info *i = rules_syscall_by_nr(nr);
		const char *name = rules_syscall_name(nr);
		bool exempt = false;

		if (!name || (i && i->kind != RULES_KIND_SCALAR))
			continue;
		for (size_t k = 0; k < sizeof(without) / sizeof(*without); k++)
			exempt |= !strcmp(without[k], name);
		if (!exempt && !decode_signature(nr)) {
			fprintf(stderr, "\nno signature: %s (%d)", name, nr);
			CU_FAIL("signature missing");
		}
	}
}

/* Every call on a path, program or address has the rest of its
 * registers named; no other call is taken for one. */
static void test_every_path_call_has_extras(void)
{
	for (int nr = 0; nr <= rules_syscall_max_nr(); nr++) {
		const struct rules_syscall_info *i = rules_syscall_by_nr(nr);
		bool mediated = i && i->kind != RULES_KIND_SCALAR;

		if (mediated && !decode_extra_signature(nr)) {
			fprintf(stderr, "\nno extras: %s (%d)", i->name, nr);
			CU_FAIL("extras missing");
		}
		if (!mediated && nr != SYS_ioctl && decode_extra_signature(nr)) {
			fprintf(stderr, "\nextras for a scalar call: %d", nr);
			CU_FAIL("extras for a scalar call");
		}
	}
}

static void expect_extra(int nr, const __u64 a[6], const char *want)
{
	static char buf[8192];
	struct audit_writer *w = NULL;
	struct audit_rec *r;
	int fd = memfd_create("decode", MFD_CLOEXEC);
	ssize_t n;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(audit_open_fd(fd, AUDIT_SYNC_NONE, "t", &w) == 0);
	r = audit_begin(w, "syscall");
	CU_ASSERT_EQUAL(decode_extra_args(r, nr, a), 0);
	CU_ASSERT_EQUAL(audit_commit(r), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	audit_close(w);
	if (!strstr(buf, want)) {
		fprintf(stderr, "\nnr %d: want %s in %s", nr, want, buf);
		CU_FAIL("decoded extras");
	}
}

static void test_extras_by_name(void)
{
	const __u64 unlinkat[6] = { (__u64)-100, 0x1000, 0x200 };
	const __u64 renameat2[6] = { 3, 0x1000, 4, 0x2000, 1 };
	const __u64 faccessat2[6] = { 3, 0x1000, 6, 0x200 };
	const __u64 mkdirat[6] = { 3, 0x1000, 0750 };
	const __u64 sendto[6] = { 3, 0x1000, 5, 0x4040, 0x2000, 16 };
	const __u64 access0[6] = { 0x1000, 0 };

	expect_extra(SYS_unlinkat, unlinkat, "\"flags\":\"AT_REMOVEDIR\"");
	expect_extra(SYS_renameat2, renameat2, "\"flags\":\"RENAME_NOREPLACE\"");
	expect_extra(SYS_faccessat2, faccessat2,
		     "\"mode\":\"R_OK|W_OK\",\"flags\":\"AT_EACCESS\"");
	expect_extra(SYS_mkdirat, mkdirat, "\"mode\":\"0750\"");
	expect_extra(SYS_sendto, sendto,
		     "\"buf\":\"0x1000\",\"len\":5,\"flags\":\"MSG_DONTWAIT|MSG_NOSIGNAL\",\"addrlen\":16");
	expect_extra(SYS_access, access0, "\"mode\":\"F_OK\"");
}

static void test_values_by_name(void)
{
	const __u64 none[6] = { 0 };
	int rc;

	expect(SYS_ioctl, 1, 0x5401, 0x1000,
	       "\"fd\":1,\"request\":\"TCGETS\",\"arg\":\"0x1000\"");
	expect(SYS_ioctl, 3, 0x5412, 0, "\"request\":\"TIOCSTI\"");
	/* Every request the rules name, by the rules' name. */
	expect(SYS_ioctl, 3, 0x40806685, 0,
	       "\"request\":\"FS_IOC_ENABLE_VERITY\"");
	expect(SYS_ioctl, 3, 0x541C, 0, "\"request\":\"TIOCLINUX\"");
	expect(SYS_ioctl, 3, 0xc0045877, 0, "\"request\":\"FIFREEZE\"");
	expect(SYS_ioctl, 3, 0x12345678, 0,
	       "\"request\":\"unknown\",\"request_nr\":305419896");
	expect(SYS_prlimit64, 0, 7, 0, "\"pid\":0,\"resource\":\"RLIMIT_NOFILE\"");
	expect(SYS_setrlimit, 99, 0, 0, "\"resource\":99");
	expect(SYS_socketpair, 1, 0x80002, 0,
	       "\"domain\":\"AF_UNIX\",\"type\":\"SOCK_DGRAM|SOCK_CLOEXEC\"");
	expect(SYS_clone, 0x1200011, 0, 0,
	       "\"flags\":\"SIGCHLD|CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID\"");
	expect(SYS_unshare, 0x40000000, 0, 0, "\"flags\":\"CLONE_NEWNET\"");
	expect(SYS_fcntl, 3, 4, 04000, "\"cmd\":\"F_SETFL\",\"arg\":\"O_RDONLY|O_NONBLOCK\"");
	expect(SYS_lseek, 3, (__u64)-5, 2, "\"offset\":-5,\"whence\":\"SEEK_END\"");
	expect(SYS_mmap, 0, 4096, 3, "\"prot\":\"PROT_READ|PROT_WRITE\"");
	expect(SYS_mprotect, 0, 4096, 0x40, "\"prot\":\"0x40\"");
	expect(SYS_dup3, 3, (__u64)(uint32_t)-100, 0, "\"newfd\":\"AT_FDCWD\"");
	expect(SYS_umask, 022, 0, 0, "\"mask\":\"022\"");
	expect(SYS_getpid, 0, 0, 0, "\"args\":{}");
	CU_ASSERT_EQUAL(decode_args(NULL, 174 /* create_module */, none), -ENOENT);
	decoded(-1, none, &rc);
	CU_ASSERT_EQUAL(rc, -ENOENT);
	decoded(100000, none, &rc);
	CU_ASSERT_EQUAL(rc, -ENOENT);
}

static void test_si_codes(void)
{
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGSEGV, 1), "SEGV_MAPERR");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGSEGV, 2), "SEGV_ACCERR");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGBUS, 2), "BUS_ADRERR");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGFPE, 1), "FPE_INTDIV");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGILL, 1), "ILL_ILLOPC");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGTERM, 0), "SI_USER");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGTERM, -6), "SI_TKILL");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGSEGV, 0x80), "SI_KERNEL");
	CU_ASSERT_STRING_EQUAL(decode_si_code(SIGSYS, 1), "SYS_SECCOMP");
	CU_ASSERT_PTR_NULL(decode_si_code(SIGTERM, 1));
	CU_ASSERT_PTR_NULL(decode_si_code(SIGSEGV, 77));
	CU_ASSERT_PTR_NULL(decode_si_code(SIGTERM, -1000));
}

/* A fault's address, a sender's pid and uid, nothing else. */
static void test_sig_note(void)
{
	siginfo_t si;
	struct sig_note n;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = 1;
	si.si_addr = (void *)0xdead000;
	decode_sig_note(&si, &n);
	CU_ASSERT(n.have && n.has_addr && !n.has_sender);
	CU_ASSERT_EQUAL(n.addr, 0xdead000);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = 0;	/* kill -SEGV: a sender, no fault */
	si.si_pid = 42;
	si.si_uid = 7;
	decode_sig_note(&si, &n);
	CU_ASSERT(n.has_sender && !n.has_addr);
	CU_ASSERT(n.pid == 42 && n.uid == 7);
	si.si_code = 0x80;	/* SI_KERNEL: neither */
	decode_sig_note(&si, &n);
	CU_ASSERT(!n.has_sender && !n.has_addr);
	si.si_signo = SIGALRM;
	si.si_code = SI_TIMER;	/* si_pid's place holds the timer */
	decode_sig_note(&si, &n);
	CU_ASSERT(!n.has_sender && !n.has_addr);
	si.si_code = SI_TKILL;
	decode_sig_note(&si, &n);
	CU_ASSERT(n.has_sender && n.pid == 42);
}

/* A query message for name (labels split at '.') of type t. */
static size_t make_query(uint8_t *buf, const char *name, unsigned t)
{
	static const uint8_t head[12] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0,
					  0, 0, 0, 0 };
	size_t n = sizeof(head);

	memcpy(buf, head, n);
	while (*name) {
		size_t l = strcspn(name, ".");

		buf[n++] = (uint8_t)l;
		memcpy(buf + n, name, l);
		n += l;
		name += l;
		if (*name)
			name++;
	}
	buf[n++] = 0;
	buf[n++] = (uint8_t)(t >> 8);
	buf[n++] = (uint8_t)t;
	buf[n++] = 0;
	buf[n++] = 1;
	return n;
}

static void test_dns_query(void)
{
	uint8_t b[600];
	struct dns_query q;
	size_t n = make_query(b, "sales.example.com", 28);

	CU_ASSERT_EQUAL_FATAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.name, "sales.example.com");
	CU_ASSERT_EQUAL(q.qtype, 28);
	CU_ASSERT_EQUAL(q.qclass, 1);
	CU_ASSERT_EQUAL(q.id, 0x1234);
	CU_ASSERT_STRING_EQUAL(dns_type_name(q.qtype), "AAAA");
	/* The root, and bytes that are no hostname letters. */
	n = make_query(b, "", 2);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.name, ".");
	n = make_query(b, "a b.c", 1);
	b[14] = '.';	/* "a.b" as one label */
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.name, "a\\.b.c");
	b[14] = 0x07;
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_STRING_EQUAL(q.name, "a\\007b.c");
	/* Not queries: a response, no question, a pointer, cut short. */
	n = make_query(b, "x.y", 1);
	b[2] |= 0x80;
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), -EINVAL);
	b[2] &= 0x7f;
	b[5] = 0;
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), -EINVAL);
	b[5] = 1;
	b[12] = 0xc0;
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), -EINVAL);
	b[12] = 1;
	for (size_t cut = 0; cut < n; cut++)
		CU_ASSERT_EQUAL(dns_parse_query(b, cut, &q), -EINVAL);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_EQUAL(dns_parse_query(NULL, 0, &q), -EINVAL);
}

/* Names at and past the limits: 63-byte labels, 255 bytes on the wire. */
static void test_dns_limits(void)
{
	uint8_t b[1200];
	char name[600];
	struct dns_query q;
	size_t n;

	memset(name, 'a', 63);
	name[63] = '\0';
	n = make_query(b, name, 1);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	b[12] = 64;	/* a label length no name may have */
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), -EINVAL);
	/* Labels of 62, 62, 62 and 61 bytes: 251 bytes on the wire, 252
	 * with the root's. */
	snprintf(name, sizeof(name), "%.62s.%.62s.%.62s.%.61s",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	n = make_query(b, name, 1);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_EQUAL(strlen(q.name), strlen(name));
	/* A label of 2: 255 with the root, the most a name may have. */
	strcat(name, ".cc");
	n = make_query(b, name, 1);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	/* One byte more: 256. */
	strcat(name, "c");
	n = make_query(b, name, 1);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), -EINVAL);
	/* Every byte escaped: the text stays within its buffer. */
	memset(name, 0x01, 63);
	name[63] = '\0';
	n = make_query(b, name, 1);
	CU_ASSERT_EQUAL(dns_parse_query(b, n, &q), 0);
	CU_ASSERT_EQUAL(strlen(q.name), 63 * 4);
}

/* xorshift64: the same sequence on every run. */
static unsigned long long rnd(unsigned long long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Fuzz-style: random messages, and valid queries with random bytes
 * changed and random lengths, from a fixed seed (the same run each
 * time).  No crash, no read past len (ASan in CI), and a parsed name is
 * terminated text within its buffer.
 */
static void test_dns_fuzz(void)
{
	uint8_t b[700];
	struct dns_query q;
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	unsigned ok = 0;

	for (int round = 0; round < 200000; round++) {
		size_t n, len;
		uint8_t *m;

		if (round % 2) {
			n = make_query(b, "www.example.com", 1);
			for (int k = (int)(rnd(&x) % 4); k >= 0; k--)
				b[rnd(&x) % n] = (uint8_t)rnd(&x);
		} else {
			n = rnd(&x) % sizeof(b);
			for (size_t i = 0; i < n; i++)
				b[i] = (uint8_t)rnd(&x);
			if (n > 5) {
				b[2] &= 0x7f;	/* mostly "queries" */
				b[5] |= 1;
			}
		}
		len = rnd(&x) % (n + 1);
		/* The message alone in a heap buffer of its size: a read past
		 * it is an ASan error. */
		m = malloc(len ? len : 1);
		CU_ASSERT_FATAL(m != NULL);
		memcpy(m, b, len);
		if (dns_parse_query(m, len, &q) == 0) {
			ok++;
			CU_ASSERT(memchr(q.name, '\0', sizeof(q.name)) != NULL);
		}
		free(m);
	}
	CU_ASSERT(ok > 0);	/* the mutations kept some queries whole */
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "signatures well formed", test_signatures_well_formed },
		{ "every scalar call has a signature",
		  test_every_scalar_call_has_a_signature },
		{ "values by name", test_values_by_name },
		{ "every path call has extras", test_every_path_call_has_extras },
		{ "extras by name", test_extras_by_name },
		{ "si_code names", test_si_codes },
		{ "siginfo notes", test_sig_note },
		{ "dns query", test_dns_query },
		{ "dns limits", test_dns_limits },
		{ "dns fuzz", test_dns_fuzz },
	};

	return unit_run("decode", tests, sizeof(tests) / sizeof(*tests));
}
