/* SPDX-License-Identifier: MIT */
/*
 * audit/reader.c: reads a trail back one record at a time, parsed with
 * jansson, for the tools (report, learn).  It checks nothing of the chain:
 * that is audit_verify_*()'s job.  A line that is not a JSON object is
 * reported and skipped, so a damaged trail can still be read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"

/* First buffer size; it grows up to AUDIT_MAX_LINE + READ_CHUNK. */
#define READ_CHUNK 65536

struct audit_reader {
	int fd;
	bool own_fd;
	bool eof;
	bool partial;	   /* the last line returned had no newline */
	char *buf;
	size_t cap, len, start;
	uint64_t line_no;  /* of the line last returned */
	json_t *rec;	   /* the record last returned */
};

static int reader_new(int fd, bool own_fd, struct audit_reader **out)
{
	struct audit_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return -ENOMEM;
	rd->fd = fd;
	rd->own_fd = own_fd;
	*out = rd;
	return 0;
}

int audit_reader_open_path(const char *path, struct audit_reader **out)
{
	AUTO_CLOSE int fd = -1;
	int r;

	if (!path || !out)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = reader_new(fd, true, out);
	if (r < 0)
		return r;
	steal_fd(&fd);
	return 0;
}

int audit_reader_open_fd(int fd, struct audit_reader **out)
{
	if (fd < 0 || !out)
		return -EINVAL;
	return reader_new(fd, false, out);
}

void audit_reader_free(struct audit_reader *rd)
{
	if (!rd)
		return;
	json_decref(rd->rec);
	free(rd->buf);
	if (rd->own_fd)
		close(rd->fd);
	free(rd);
}

uint64_t audit_reader_line(const struct audit_reader *rd)
{
	return rd ? rd->line_no : 0;
}

bool audit_reader_partial(const struct audit_reader *rd)
{
	return rd && rd->partial;
}

/* Make room for at least READ_CHUNK / 2 more bytes.  Returns 0 or -ENOMEM. */
static int reader_grow(struct audit_reader *rd)
{
	size_t have = rd->len - rd->start;
	size_t cap;
	char *nb;

	if (rd->start > 0) {
		memmove(rd->buf, rd->buf + rd->start, have);
		rd->len = have;
		rd->start = 0;
	}
	if (rd->cap - rd->len >= READ_CHUNK / 2)
		return 0;
	cap = rd->cap ? rd->cap * 2 : READ_CHUNK;
	if (cap > AUDIT_MAX_LINE + READ_CHUNK)
		cap = AUDIT_MAX_LINE + READ_CHUNK;
	nb = realloc(rd->buf, cap);
	if (!nb)
		return -ENOMEM;
	rd->buf = nb;
	rd->cap = cap;
	return 0;
}

/*
 * The next line, newline stripped: 1 and *line, *len; 0 at the end; -E2BIG
 * for a line longer than AUDIT_MAX_LINE (skipped up to its newline), or
 * -errno.
 */
static int reader_line(struct audit_reader *rd, const char **line, size_t *len)
{
	bool skipping = false;

	for (;;) {
		char *nl = rd->buf ? memchr(rd->buf + rd->start, '\n',
					    rd->len - rd->start) : NULL;
		size_t have = rd->len - rd->start;
		ssize_t n;
		int r;

		if (nl) {
			*line = rd->buf + rd->start;
			*len = (size_t)(nl - *line);
			rd->start += *len + 1;
			rd->line_no++;
			rd->partial = false;
			if (skipping)
				return -E2BIG;
			return 1;
		}
		if (have >= AUDIT_MAX_LINE) {
			/* Drop what we have and keep reading to the newline. */
			rd->start = rd->len = 0;
			skipping = true;
			continue;
		}
		if (rd->eof) {
			/* A last line of zero bytes is the space a map writer
			 * reserved and had not written yet (audit/writer.c):
			 * the trail ends before it. */
			if (!skipping && (have == 0 ||
					  (rd->buf[rd->start] == '\0' &&
					   memcmp(rd->buf + rd->start,
						  rd->buf + rd->start + 1,
						  have - 1) == 0)))
				return 0;
			*line = rd->buf + rd->start;
			*len = have;
			rd->start = rd->len;
			rd->line_no++;
			rd->partial = true;
			if (skipping)
				return -E2BIG;
			return 1;
		}
		r = reader_grow(rd);
		if (r < 0)
			return r;
		n = TEMP_FAILURE_RETRY_INT(read(rd->fd, rd->buf + rd->len,
						rd->cap - rd->len));
		if (n < 0)
			return -errno;
		if (n == 0)
			rd->eof = true;
		rd->len += (size_t)n;
	}
}

int audit_reader_next(struct audit_reader *rd, struct json_t **rec)
{
	const char *line = NULL;
	size_t len = 0;
	json_t *root;
	int r;

	if (!rd || !rec)
		return -EINVAL;
	json_decref(rd->rec);
	rd->rec = NULL;
	r = reader_line(rd, &line, &len);
	if (r == -E2BIG)
		return -EBADMSG;
	if (r <= 0)
		return r;
	/* As the verifier parses: \u0000 may occur in decoded strings. */
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
			  NULL);
	if (!root)
		return -EBADMSG;
	if (!json_is_object(root)) {
		json_decref(root);
		return -EBADMSG;
	}
	rd->rec = root;
	*rec = root;
	return 1;
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode hex into a new NUL-terminated buffer. */
static int from_hex(const char *hex, size_t hex_len, char **out, size_t *len)
{
	char *b;

	if (hex_len % 2)
		return -EINVAL;
	b = malloc(hex_len / 2 + 1);
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < hex_len / 2; i++) {
		int hi = hex_val(hex[2 * i]), lo = hex_val(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			return -EINVAL;
		}
		b[i] = (char)(hi << 4 | lo);
	}
	b[hex_len / 2] = '\0';
	*out = b;
	*len = hex_len / 2;
	return 0;
}

static int from_string(const json_t *s, char **out, size_t *len)
{
	size_t n = json_string_length(s);
	char *b = malloc(n + 1);

	if (!b)
		return -ENOMEM;
	memcpy(b, json_string_value(s), n);
	b[n] = '\0';
	*out = b;
	*len = n;
	return 0;
}

int audit_json_bytes(const struct json_t *v, const char *key, char **out,
		     size_t *len)
{
	const json_t *s, *hex;

	if (!v || !out || !len)
		return -EINVAL;
	if (key) {
		char hkey[128];

		if (!json_is_object(v))
			return -EINVAL;
		s = json_object_get(v, key);
		if (snprintf(hkey, sizeof(hkey), "%s_hex", key) >=
		    (int)sizeof(hkey))
			return -EINVAL;
		hex = json_object_get(v, hkey);
	} else if (json_is_object(v)) {
		/* An array element: {"text":"...","hex":"..."}. */
		s = json_object_get(v, "text");
		hex = json_object_get(v, "hex");
	} else {
		s = v;
		hex = NULL;
	}
	if (json_is_string(hex))
		return from_hex(json_string_value(hex), json_string_length(hex),
				out, len);
	if (!s || json_is_null(s))
		return -ENOENT;
	if (!json_is_string(s))
		return -EINVAL;
	return from_string(s, out, len);
}
