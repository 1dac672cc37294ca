/* SPDX-License-Identifier: MIT */
/*
 * audit/verify.c: reads a trail back and checks it: every line a JSON
 * object (jansson) ending in its hash, seq 1..N, the BLAKE2b chain, run.end
 * last with the final hash and, when asked, its Ed25519 signature.  On the
 * first bad record it says what looks wrong (edited, removed, reordered,
 * inserted, truncated).  Never prints; the message goes to the caller.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/chain.h"
#include "common/util.h"

/* ,"hash":"<64 hex>"} at the end of every line (newline not counted). */
#define HASH_KEY ",\"hash\":\""
#define HASH_KEY_LEN (sizeof(HASH_KEY) - 1)
#define HASH_HEX_LEN (2 * AUDIT_HASH_BYTES)
#define HASH_TAIL_LEN (HASH_KEY_LEN + HASH_HEX_LEN + 2)
/* First read size of a line reader; its buffer grows up to AUDIT_MAX_LINE. */
#define READ_CHUNK 65536
/* Longest run id compared between the records of one run. */
#define RUN_ID_MAX 256

/* Message prefixes: "record 17 (line 17): ",
 * "run.end (record 21, line 21): " */
#define AT_REC "record %" PRIu64 " (line %" PRIu64 "): "
#define AT_END "run.end (record %" PRIu64 ", line %" PRIu64 "): "
/* "run 2 (id 2026..., line 31): " */
#define AT_RUN "run %" PRIu64 " (id %s, line %" PRIu64 "): "

/* ---- line reader ----------------------------------------------------- */

/* Reads lines with pread from a given offset, so a second reader can look
 * ahead without disturbing the first. */
struct reader {
	int fd;
	off_t buf_off;	/* file offset of buf[0] */
	char *buf;
	size_t cap, len, start;
	bool eof;
	uint64_t line_no; /* of the line last returned */
};

enum line_status {
	LINE_EOF = 0,
	LINE_OK = 1,	/* a whole line, newline stripped */
	LINE_PARTIAL,	/* the last line, without a newline */
	LINE_TOO_LONG,
};

static void reader_init(struct reader *rd, int fd, off_t off, uint64_t line_no)
{
	*rd = (struct reader){ .fd = fd, .buf_off = off, .line_no = line_no };
}

static void reader_release(struct reader *rd)
{
	free(rd->buf);
	rd->buf = NULL;
}

/* File offset of the next line. */
static off_t reader_tell(const struct reader *rd)
{
	return rd->buf_off + (off_t)rd->start;
}

static bool all_zero(const char *p, size_t n)
{
	return n > 0 && p[0] == '\0' && memcmp(p, p + 1, n - 1) == 0;
}

/* Returns an enum line_status, or -errno. */
static int reader_next(struct reader *rd, const char **line, size_t *len)
{
	for (;;) {
		char *nl = rd->buf ? memchr(rd->buf + rd->start, '\n',
					    rd->len - rd->start) : NULL;
		size_t have = rd->len - rd->start;
		ssize_t n;

		if (nl) {
			*line = rd->buf + rd->start;
			*len = (size_t)(nl - *line);
			rd->start += *len + 1;
			rd->line_no++;
			return LINE_OK;
		}
		/* A line is at most AUDIT_MAX_LINE bytes with its newline. */
		if (have >= AUDIT_MAX_LINE) {
			rd->line_no++;
			return LINE_TOO_LONG;
		}
		if (rd->eof) {
			/* A last line of zero bytes is the space a map writer
			 * reserved and had not written yet (audit/writer.c):
			 * the trail ends before it. */
			if (have == 0 || all_zero(rd->buf + rd->start, have))
				return LINE_EOF;
			*line = rd->buf + rd->start;
			*len = have;
			rd->start = rd->len;
			rd->line_no++;
			return LINE_PARTIAL;
		}
		if (rd->start > 0) {
			memmove(rd->buf, rd->buf + rd->start, have);
			rd->buf_off += (off_t)rd->start;
			rd->len = have;
			rd->start = 0;
		}
		if (rd->cap - rd->len < READ_CHUNK / 2) {
			size_t cap = rd->cap ? rd->cap * 2 : READ_CHUNK;
			char *nb;

			if (cap > AUDIT_MAX_LINE + READ_CHUNK)
				cap = AUDIT_MAX_LINE + READ_CHUNK;
			nb = realloc(rd->buf, cap);
			if (!nb)
				return -ENOMEM;
			rd->buf = nb;
			rd->cap = cap;
		}
		n = pread(rd->fd, rd->buf + rd->len, rd->cap - rd->len,
			  rd->buf_off + (off_t)rd->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			rd->eof = true;
		rd->len += (size_t)n;
	}
}

/* ---- one record ------------------------------------------------------ */

struct rec {
	json_t *root;
	uint64_t seq;
	const char *type, *run;	/* borrowed from root */
	size_t body_len;	/* bytes hashed: up to ,"hash" */
	unsigned char stored[AUDIT_HASH_BYTES];
};

enum rec_status {
	REC_OK = 0,
	REC_BAD_JSON,
	REC_NOT_OBJECT,
	REC_NO_HASH,
	REC_NO_SEQ,
	REC_NO_TYPE,
};

static void rec_release(struct rec *rec)
{
	json_decref(rec->root);
	rec->root = NULL;
}

static bool is_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static enum rec_status rec_parse(const char *line, size_t len, struct rec *rec)
{
	const char *tail, *hex;
	json_t *v;
	size_t bin_len = 0;

	*rec = (struct rec){ 0 };
	/*
	 * NUL bytes are written as \u0000 (audit_bytes), so allow them in
	 * decoded strings; raw control bytes and invalid UTF-8 are still
	 * rejected by jansson.
	 */
	rec->root = json_loadb(line, len,
			       JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
	if (!rec->root)
		return REC_BAD_JSON;
	if (!json_is_object(rec->root))
		return REC_NOT_OBJECT;

	/*
	 * The hash is the last member, found in the raw bytes: what is hashed
	 * is the text before it exactly as written.  The parse above makes
	 * sure this tail is a real member and not the inside of a string.
	 */
	if (len < HASH_TAIL_LEN + 1)
		return REC_NO_HASH;
	tail = line + len - HASH_TAIL_LEN;
	hex = tail + HASH_KEY_LEN;
	if (memcmp(tail, HASH_KEY, HASH_KEY_LEN) != 0 ||
	    !is_lower_hex(hex, HASH_HEX_LEN) ||
	    memcmp(hex + HASH_HEX_LEN, "\"}", 2) != 0)
		return REC_NO_HASH;
	v = json_object_get(rec->root, "hash");
	if (!json_is_string(v) || json_string_length(v) != HASH_HEX_LEN ||
	    memcmp(json_string_value(v), hex, HASH_HEX_LEN) != 0)
		return REC_NO_HASH;
	if (sodium_hex2bin(rec->stored, sizeof(rec->stored), hex, HASH_HEX_LEN,
			   NULL, &bin_len, NULL) != 0 ||
	    bin_len != AUDIT_HASH_BYTES)
		return REC_NO_HASH;
	rec->body_len = len - HASH_TAIL_LEN;

	v = json_object_get(rec->root, "seq");
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return REC_NO_SEQ;
	rec->seq = (uint64_t)json_integer_value(v);

	v = json_object_get(rec->root, "type");
	if (!json_is_string(v))
		return REC_NO_TYPE;
	rec->type = json_string_value(v);
	v = json_object_get(rec->root, "run");
	if (!json_is_string(v))
		return REC_NO_TYPE;
	rec->run = json_string_value(v);
	return REC_OK;
}

int audit_line_hash(const char *line, size_t len,
		    unsigned char hash[AUDIT_HASH_BYTES])
{
	struct rec rec;
	int rc = -EBADMSG;

	if (rec_parse(line, len, &rec) == REC_OK) {
		memcpy(hash, rec.stored, AUDIT_HASH_BYTES);
		rc = 0;
	}
	rec_release(&rec);
	return rc;
}

static void chain_hash(const unsigned char prev[AUDIT_HASH_BYTES],
		       const char *body, size_t len,
		       unsigned char out[AUDIT_HASH_BYTES])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, AUDIT_HASH_BYTES);
	crypto_generichash_update(&st, prev, AUDIT_HASH_BYTES);
	crypto_generichash_update(&st, (const unsigned char *)body, len);
	crypto_generichash_final(&st, out, AUDIT_HASH_BYTES);
}

static bool chains_from(const unsigned char prev[AUDIT_HASH_BYTES],
			const char *line, const struct rec *rec)
{
	unsigned char h[AUDIT_HASH_BYTES];

	chain_hash(prev, line, rec->body_len, h);
	return memcmp(h, rec->stored, AUDIT_HASH_BYTES) == 0;
}

/* ---- the verifier ---------------------------------------------------- */

struct verifier {
	int fd;
	const unsigned char *pubkey;
	char *why;
	size_t why_len;
	/* The run being checked. */
	uint64_t prev_seq;	/* 0 before its first record */
	unsigned char prev_hash[AUDIT_HASH_BYTES];
	char run[RUN_ID_MAX + 1];
	bool ended;		/* its last record was run.end */
	uint64_t runs;		/* runs seen in the file */
	uint64_t last_line;	/* line of the last good record */
	/* Where the run being checked starts: the run before it (the hash
	 * and line of its last record), none when it is the file's first. */
	bool link_first;
	unsigned char link_hash[AUDIT_HASH_BYTES];
	uint64_t link_line;
	bool chained;		/* a run.start with prev_run_hash seen */
	uint64_t unchained;	/* runs whose run.start has none */
};

__attribute__((format(printf, 2, 3)))
static int bad(struct verifier *v, const char *fmt, ...)
{
	va_list ap;

	if (v->why && v->why_len > 0) {
		va_start(ap, fmt);
		vsnprintf(v->why, v->why_len, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/*
 * Look at the line at off: does it hold record seq with a hash chaining
 * from prev?  Its stored hash goes to next_hash.  Returns 1, 0 or -errno.
 */
static int peek_continues(const struct verifier *v, off_t off, uint64_t seq,
			  const unsigned char prev[AUDIT_HASH_BYTES],
			  unsigned char next_hash[AUDIT_HASH_BYTES])
{
	struct reader rd;
	struct rec rec = { 0 };
	const char *line = NULL;
	size_t len = 0;
	int rc, ret = 0;

	reader_init(&rd, v->fd, off, 0);
	rc = reader_next(&rd, &line, &len);
	if (rc < 0) {
		reader_release(&rd);
		return rc;
	}
	if (rc == LINE_OK && rec_parse(line, len, &rec) == REC_OK &&
	    rec.seq == seq && chains_from(prev, line, &rec)) {
		memcpy(next_hash, rec.stored, AUDIT_HASH_BYTES);
		ret = 1;
	}
	rec_release(&rec);
	reader_release(&rd);
	return ret;
}

/*
 * Scan the rest of the file from off for record lo (the one missing here),
 * or failing that the first record with lo < seq < hi.  Returns its line
 * number (> 0) and sets *found_seq, 0 if there is none, or -errno.
 */
static int64_t scan_for_seq(const struct verifier *v, off_t off,
			    uint64_t line_no, uint64_t lo, uint64_t hi,
			    uint64_t *found_seq)
{
	struct reader rd;
	int64_t ret = 0, other = 0;
	uint64_t other_seq = 0;

	reader_init(&rd, v->fd, off, line_no);
	for (;;) {
		const char *line = NULL;
		size_t len = 0;
		struct rec rec = { 0 };
		json_t *s;
		json_int_t seq;
		int rc = reader_next(&rd, &line, &len);

		if (rc < 0) {
			ret = rc;
			break;
		}
		if (rc == LINE_EOF)
			break;
		if (rc != LINE_OK && rc != LINE_PARTIAL)
			continue;
		/* Only the seq matters here, whatever else is wrong. */
		rec_parse(line, len, &rec);
		s = json_object_get(rec.root, "seq");
		seq = json_is_integer(s) ? json_integer_value(s) : 0;
		rec_release(&rec);
		if (seq == (json_int_t)lo) {
			*found_seq = lo;
			ret = (int64_t)rd.line_no;
			break;
		}
		if (!other && seq > (json_int_t)lo && seq < (json_int_t)hi) {
			other = (int64_t)rd.line_no;
			other_seq = (uint64_t)seq;
		}
	}
	reader_release(&rd);
	if (ret == 0 && other) {
		*found_seq = other_seq;
		ret = other;
	}
	return ret;
}

/* run.end: final_hash names the record before it; the signature, if any
 * (required with a key), signs that hash. */
static int check_run_end(struct verifier *v, const struct rec *rec,
			 uint64_t line_no)
{
	char want[HASH_HEX_LEN + 1];
	unsigned char sig[AUDIT_SIG_BYTES], pk[AUDIT_PUBKEY_BYTES];
	json_t *fh = json_object_get(rec->root, "final_hash");
	json_t *js = json_object_get(rec->root, "signature");
	json_t *jp = json_object_get(rec->root, "pubkey");
	const unsigned char *key = v->pubkey;
	size_t bin_len = 0;

	sodium_bin2hex(want, sizeof(want), v->prev_hash, AUDIT_HASH_BYTES);
	if (!json_is_string(fh) || strcmp(json_string_value(fh), want) != 0)
		return bad(v, AT_END
			   "final_hash does not match record %" PRIu64,
			   rec->seq, line_no, v->prev_seq);
	if (!js) {
		if (v->pubkey)
			return bad(v, AT_END
				   "not signed", rec->seq, line_no);
		return 0;
	}
	if (!json_is_string(js) ||
	    sodium_hex2bin(sig, sizeof(sig), json_string_value(js),
			   json_string_length(js), NULL, &bin_len, NULL) != 0 ||
	    bin_len != sizeof(sig))
		return bad(v, AT_END
			   "signature is not %d hex bytes", rec->seq,
			   line_no, AUDIT_SIG_BYTES);
	if (!key) {
		/* No key given: at least the record must be consistent with
		 * the key it names.  This proves nothing about who signed. */
		if (!json_is_string(jp) ||
		    sodium_hex2bin(pk, sizeof(pk), json_string_value(jp),
				   json_string_length(jp), NULL, &bin_len,
				   NULL) != 0 ||
		    bin_len != sizeof(pk))
			return bad(v, AT_END
				   "signed but no valid pubkey", rec->seq,
				   line_no);
		key = pk;
		if (crypto_sign_verify_detached(sig, v->prev_hash,
						AUDIT_HASH_BYTES, key) != 0)
			return bad(v, AT_END
				   "signature does not verify with its own pubkey",
				   rec->seq, line_no);
		return 0;
	}
	if (crypto_sign_verify_detached(sig, v->prev_hash, AUDIT_HASH_BYTES,
					key) != 0)
		return bad(v, AT_END
			   "signature does not verify with the given key",
			   rec->seq, line_no);
	return 0;
}

static void start_run(struct verifier *v, const char *run)
{
	v->link_first = v->runs == 0;
	memcpy(v->link_hash, v->prev_hash, AUDIT_HASH_BYTES);
	v->link_line = v->last_line;
	v->prev_seq = 0;
	memset(v->prev_hash, 0, sizeof(v->prev_hash));
	snprintf(v->run, sizeof(v->run), "%s", run);
	v->ended = false;
	v->runs++;
}

/*
 * The line number of the first record of the file whose stored hash is
 * hash, 0 if there is none, or -errno.
 */
static int64_t scan_for_hash(const struct verifier *v,
			     const unsigned char hash[AUDIT_HASH_BYTES])
{
	struct reader rd;
	int64_t ret = 0;

	reader_init(&rd, v->fd, 0, 0);
	for (;;) {
		const char *line = NULL;
		size_t len = 0;
		unsigned char h[AUDIT_HASH_BYTES];
		int rc = reader_next(&rd, &line, &len);

		if (rc < 0 || rc == LINE_EOF) {
			ret = rc < 0 ? rc : 0;
			break;
		}
		if (rc == LINE_OK && audit_line_hash(line, len, h) == 0 &&
		    memcmp(h, hash, AUDIT_HASH_BYTES) == 0) {
			ret = (int64_t)rd.line_no;
			break;
		}
	}
	reader_release(&rd);
	return ret;
}

/*
 * A run.start whose prev_run_hash does not name the run before it: say
 * where the record it names is, as a guess of what happened.
 */
static int bad_link(struct verifier *v, const struct rec *rec,
		    uint64_t line_no,
		    const unsigned char want[AUDIT_HASH_BYTES])
{
	char before[96] = "it is the first run of the file";
	int64_t at = scan_for_hash(v, want);

	if (at < 0)
		return (int)at;
	if (!v->link_first)
		snprintf(before, sizeof(before),
			 "the run before it ends at line %" PRIu64,
			 v->link_line);
	if (at > (int64_t)line_no)
		return bad(v, AT_RUN "run.start follows the record at line "
			   "%" PRId64 ", further down, but %s: reordered",
			   v->runs, rec->run, line_no, at, before);
	if (at > 0)
		return bad(v, AT_RUN "run.start follows the record at line "
			   "%" PRId64 ", but %s: inserted", v->runs, rec->run,
			   line_no, at, before);
	return bad(v, AT_RUN "run.start follows a record that is not in the "
		   "file, but %s: the run before it removed, or this run "
		   "taken from another file: removed", v->runs, rec->run,
		   line_no, before);
}

/*
 * The first record of a run (chained from zero, rec at line_no): does its
 * prev_run_hash name the last record of the run before it, or null for the
 * file's first run?  A run.start without the member was written before
 * runs were chained: it is let through, each such run verified on its own,
 * but only before the first run that has the member (a writer that chains
 * never leaves it out).
 */
static int check_run_link(struct verifier *v, const struct rec *rec,
			  uint64_t line_no)
{
	json_t *p = json_object_get(rec->root, AUDIT_PREV_RUN_KEY);
	unsigned char h[AUDIT_HASH_BYTES];
	size_t bin_len = 0;

	if (strcmp(rec->type, "run.start") != 0 || !p) {
		if (v->chained)
			return bad(v, AT_RUN "run.start does not name the run "
				   "before it (no " AUDIT_PREV_RUN_KEY ") but "
				   "an earlier run does: a run of an older "
				   "trail inserted", v->runs, rec->run,
				   line_no);
		v->unchained++;
		return 0;
	}
	v->chained = true;
	if (json_is_null(p)) {
		if (v->link_first)
			return 0;
		return bad(v, AT_RUN "run.start says it is the first run of "
			   "its file, but the run before it ends at line %"
			   PRIu64 ": inserted", v->runs, rec->run, line_no,
			   v->link_line);
	}
	if (!json_is_string(p) ||
	    json_string_length(p) != 2 * AUDIT_HASH_BYTES ||
	    !is_lower_hex(json_string_value(p), 2 * AUDIT_HASH_BYTES) ||
	    sodium_hex2bin(h, sizeof(h), json_string_value(p),
			   json_string_length(p), NULL, &bin_len, NULL) != 0 ||
	    bin_len != sizeof(h))
		return bad(v, AT_RUN AUDIT_PREV_RUN_KEY " is neither a hash "
			   "nor null", v->runs, rec->run, line_no);
	if (!v->link_first && memcmp(h, v->link_hash, sizeof(h)) == 0)
		return 0;
	return bad_link(v, rec, line_no, h);
}

/*
 * The record at line_no (rec, text line) does not carry on the chain.
 * Say why, naming the first bad line.  next_off is where the next line
 * starts.
 */
static int classify(struct verifier *v, const struct rec *rec,
		    const char *line, uint64_t line_no, off_t next_off)
{
	uint64_t want = v->prev_seq + 1, found = 0;
	unsigned char next_hash[AUDIT_HASH_BYTES];
	int64_t at;
	int rc;

	/* Does the next line carry on from the record before this one? */
	rc = peek_continues(v, next_off, want, v->prev_hash, next_hash);
	if (rc < 0)
		return rc;

	if (rec->seq == want) {
		if (rc == 1)
			return bad(v, "line %" PRIu64 ": not part of the chain "
				   "(record %" PRIu64 " at line %" PRIu64
				   " follows record %" PRIu64 "): inserted",
				   line_no, want, line_no + 1, v->prev_seq);
		return bad(v, AT_REC "hash does not match its content: edited",
			   rec->seq, line_no);
	}
	if (rec->seq < want)
		return bad(v, "line %" PRIu64 ": seq %" PRIu64 " after %" PRIu64
			   ": record %" PRIu64 " appears twice: inserted",
			   line_no, rec->seq, v->prev_seq, rec->seq);

	/* seq jumps ahead. */
	if (rc == 1) {
		/* Two records swapped: this one chains from the next. */
		if (rec->seq == want + 1 && chains_from(next_hash, line, rec))
			return bad(v, "line %" PRIu64 ": seq %" PRIu64
				   " comes before seq %" PRIu64
				   " (line %" PRIu64 "): reordered",
				   line_no, rec->seq, want, line_no + 1);
		return bad(v, "line %" PRIu64 ": not part of the chain "
			   "(record %" PRIu64 " at line %" PRIu64
			   " follows record %" PRIu64 "): inserted",
			   line_no, want, line_no + 1, v->prev_seq);
	}
	at = scan_for_seq(v, next_off, line_no, want, rec->seq, &found);
	if (at < 0)
		return (int)at;
	if (at > 0)
		return bad(v, "line %" PRIu64 ": seq %" PRIu64
			   " comes before seq %" PRIu64 " (line %" PRId64
			   "): reordered", line_no, rec->seq, found, at);
	if (rec->seq == want + 1)
		return bad(v, "record %" PRIu64 " missing: line %" PRIu64
			   " has seq %" PRIu64 ": removed", want, line_no,
			   rec->seq);
	return bad(v, "records %" PRIu64 "-%" PRIu64 " missing: line %" PRIu64
		   " has seq %" PRIu64 ": removed", want, rec->seq - 1, line_no,
		   rec->seq);
}

/* Check one whole line.  Returns 0 or -EBADMSG / -errno. */
static int check_line(struct verifier *v, const char *line, size_t len,
		      uint64_t line_no, off_t next_off)
{
	struct rec rec;
	uint64_t want = v->prev_seq + 1;
	int rc;

	switch (rec_parse(line, len, &rec)) {
	case REC_OK:
		break;
	case REC_BAD_JSON:
		rc = bad(v, AT_REC
			 "not valid JSON", want, line_no);
		goto out;
	case REC_NOT_OBJECT:
		rc = bad(v, AT_REC
			 "not a JSON object", want, line_no);
		goto out;
	case REC_NO_HASH:
		rc = bad(v, AT_REC
			 "does not end with a valid \"hash\"", want, line_no);
		goto out;
	case REC_NO_SEQ:
		rc = bad(v, AT_REC
			 "no valid \"seq\"", want, line_no);
		goto out;
	case REC_NO_TYPE:
		rc = bad(v, AT_REC
			 "no \"type\" or \"run\"", want, line_no);
		goto out;
	}

	if (v->runs == 0 || (v->ended && rec.seq == 1)) {
		/* A file may hold several runs, each after the last one's
		 * run.end, each chained from zero again. */
		start_run(v, rec.run);
		want = 1;
	} else if (v->ended) {
		rc = bad(v, "line %" PRIu64 ": seq %" PRIu64 " after run.end "
			 "(record %" PRIu64 "): appended", line_no, rec.seq,
			 v->prev_seq);
		goto out;
	} else if (rec.seq == 1 && strcmp(rec.run, v->run) != 0) {
		rc = bad(v, "truncated after record %" PRIu64 " (no run.end): "
			 "line %" PRIu64 " starts another run", v->prev_seq,
			 line_no);
		goto out;
	}

	if (rec.seq != want || !chains_from(v->prev_hash, line, &rec)) {
		rc = classify(v, &rec, line, line_no, next_off);
		goto out;
	}
	if (strcmp(rec.run, v->run) != 0) {
		rc = bad(v, AT_REC "run id differs from record 1's", rec.seq,
			 line_no);
		goto out;
	}
	if (v->prev_seq == 0) {
		rc = check_run_link(v, &rec, line_no);
		if (rc < 0)
			goto out;
	}
	if (strcmp(rec.type, "run.end") == 0) {
		rc = check_run_end(v, &rec, line_no);
		if (rc < 0)
			goto out;
		v->ended = true;
	}
	v->prev_seq = rec.seq;
	memcpy(v->prev_hash, rec.stored, AUDIT_HASH_BYTES);
	v->last_line = line_no;
	rc = 0;
out:
	rec_release(&rec);
	return rc;
}

/* A good trail: why gets a note when runs in it could not be chained. */
static int note_unchained(struct verifier *v)
{
	if (v->unchained && v->why && v->why_len > 0)
		snprintf(v->why, v->why_len,
			 "note: %" PRIu64 " of %" PRIu64 " runs written "
			 "before runs were chained (no " AUDIT_PREV_RUN_KEY
			 "), each verified on its own: a whole run of these "
			 "dropped or reordered would not be seen",
			 v->unchained, v->runs);
	return 0;
}

int audit_verify_fd(int fd, const unsigned char *pubkey, char *why,
		    size_t why_len)
{
	return audit_verify_fd_last(fd, pubkey, NULL, why, why_len);
}

int audit_verify_fd_last(int fd, const unsigned char *pubkey,
			 unsigned char last[AUDIT_HASH_BYTES], char *why,
			 size_t why_len)
{
	struct verifier v = {
		.fd = fd, .pubkey = pubkey, .why = why, .why_len = why_len,
	};
	struct reader rd;
	int rc;

	if (fd < 0)
		return -EINVAL;
	if (why && why_len > 0)
		why[0] = '\0';
	if (sodium_init() < 0)
		return -EIO;
	reader_init(&rd, fd, 0, 0);
	for (;;) {
		const char *line = NULL;
		size_t len = 0;

		rc = reader_next(&rd, &line, &len);
		if (rc < 0)
			break;
		if (rc == LINE_EOF) {
			if (v.runs == 0)
				rc = bad(&v, "empty trail: no records");
			else if (!v.ended)
				rc = bad(&v, "truncated after record %" PRIu64
					 " (no run.end)", v.prev_seq);
			else
				rc = note_unchained(&v);
			if (rc == 0 && last)
				memcpy(last, v.prev_hash, AUDIT_HASH_BYTES);
			break;
		}
		if (rc == LINE_TOO_LONG) {
			rc = bad(&v, AT_REC
				 "longer than %d bytes", v.prev_seq + 1,
				 rd.line_no, AUDIT_MAX_LINE);
			break;
		}
		if (rc == LINE_PARTIAL) {
			rc = bad(&v, "truncated after record %" PRIu64
				 ": line %" PRIu64
				 " is incomplete (no newline)",
				 v.prev_seq, rd.line_no);
			break;
		}
		rc = check_line(&v, line, len, rd.line_no, reader_tell(&rd));
		if (rc < 0)
			break;
	}
	reader_release(&rd);
	return rc;
}

int audit_verify_path(const char *path, const unsigned char *pubkey,
		      char *why, size_t why_len)
{
	return audit_verify_path_last(path, pubkey, NULL, why, why_len);
}

int audit_verify_path_last(const char *path, const unsigned char *pubkey,
			   unsigned char last[AUDIT_HASH_BYTES], char *why,
			   size_t why_len)
{
	AUTO_CLOSE int fd = -1;

	if (why && why_len)
		why[0] = '\0';
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return audit_verify_fd_last(fd, pubkey, last, why, why_len);
}
