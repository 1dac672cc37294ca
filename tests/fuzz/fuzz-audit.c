/* SPDX-License-Identifier: MIT */
/*
 * fuzz-audit: the libFuzzer target of audit/'s trail readers: the verifier
 * (audit_verify_fd, with and without a public key) and the record reader
 * used by the tools (audit_reader_*, audit_json_bytes), on one input put in
 * a memfd.  Beyond "no crash, no leak, no UB" it checks that the two agree:
 * a trail that verifies has no line the reader rejects.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "audit/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_bytes(const json_t *obj, const char *key)
{
	char *b = NULL;
	size_t n = 0;

	if (audit_json_bytes(obj, key, &b, &n) == 0 && strlen(b) > n)
		abort();	/* NUL-terminated at n, at the latest */
	free(b);
}

/* Read every record back; returns the number of lines rejected. */
static unsigned read_all(int fd)
{
	struct audit_reader *rd;
	json_t *rec;
	unsigned bad = 0;
	int r;

	if (lseek(fd, 0, SEEK_SET) != 0 || audit_reader_open_fd(fd, &rd) < 0)
		abort();
	while ((r = audit_reader_next(rd, &rec)) != 0) {
		const json_t *argv, *v;
		size_t i;

		if (r == -EBADMSG) {
			bad++;
			continue;
		}
		if (r < 0)
			break;
		if (!json_is_object(rec))
			abort();
		read_bytes(rec, "path");
		read_bytes(rec, "exe");
		read_bytes(json_object_get(rec, "args"), "path");
		argv = json_object_get(rec, "argv");
		json_array_foreach(argv, i, v)
			read_bytes(v, NULL);
	}
	audit_reader_free(rd);
	return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char pk[AUDIT_PUBKEY_BYTES] = { 1, 2, 3 };
	char why[512], small[8];
	int fd = memfd_create("fuzz-audit", MFD_CLOEXEC);
	size_t off = 0;
	int ok;

	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	ok = audit_verify_fd(fd, NULL, why, sizeof(why)) == 0;
	if (!ok && why[0] == '\0')
		abort();	/* a failure always says why */
	audit_verify_fd(fd, pk, small, sizeof(small));
	if (strnlen(small, sizeof(small)) == sizeof(small))
		abort();	/* cut, but NUL-terminated */
	if (read_all(fd) != 0 && ok)
		abort();	/* verified, yet a line does not parse */
	close(fd);
	return 0;
}
