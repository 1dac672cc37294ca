/* SPDX-License-Identifier: MIT */
/*
 * audit/syslog: a second sink of the trail (--audit-syslog).  Each record,
 * once it is in the trail, is sent as one RFC 5424 message to a syslog
 * daemon: over a unix socket (datagram, as /dev/log, or stream), UDP, or
 * TCP with octet-counted framing (RFC 6587).
 *
 *	<86>1 TS HOST sysgate PID RUNID - {"seq":1,...,"hash":"..."}
 *
 * PRI 86 is authpriv.info (records name files and arguments); TS is the
 * record's own ts; MSGID is the run id (sysgate's run ids are at most 32
 * printable ASCII characters; another is sent as "-"); no structured data;
 * the message is the trail's line without its newline, unchanged (no BOM).
 *
 * The trail stays the source of truth: the writer sends a batch only once
 * it is in the file, and a record counts as handed over once the kernel
 * took it (sendmsg returned): a datagram may still be lost (UDP), and a
 * stream's receiver may still die before reading it.
 */
#ifndef SYSGATE_AUDIT_SYSLOG_H
#define SYSGATE_AUDIT_SYSLOG_H

#include <stddef.h>

struct audit_syslog;
struct audit_writer;

/* Longest a blocked send (or connect) waits before it fails (-EAGAIN). */
#define AUDIT_SYSLOG_TIMEOUT_MS 5000

/*
 * Connect to dest: "unix:PATH", "udp:HOST:PORT" or "tcp:HOST:PORT", HOST a
 * numeric IPv4 address or an IPv6 one in brackets ("tcp:[::1]:514"); no
 * name is resolved.  run_id is copied.  Returns 0 and sets *out, or
 * -EINVAL (a malformed dest) or the errno of socket/connect (ENOENT,
 * ECONNREFUSED, ...).  The socket is close-on-exec.
 */
int audit_syslog_open(const char *dest, const char *run_id,
		      struct audit_syslog **out);

/*
 * Send buf[0..len), whole trail lines, one message per line, in order.
 * Returns 0 once every message was handed to the kernel, or -errno (the
 * first error; later calls return it and send nothing).  Blocks at most
 * AUDIT_SYSLOG_TIMEOUT_MS per message.
 */
int audit_syslog_send(struct audit_syslog *s, const char *buf, size_t len);

/*
 * Send something else than the line as each message's text: fmt(ctx,
 * line, len, &text, &text_len) gives a malloc'd text (freed here), or
 * -errno, which fails the record as a send error would.  Called by the
 * writer's flusher, one record at a time, in trail order.  (sysgate run
 * --audit-format ocsf: tools/export.c's export_live_line.)
 */
typedef int (*audit_syslog_fmt)(void *ctx, const char *line, size_t len,
				char **text, size_t *text_len);
void audit_syslog_set_format(struct audit_syslog *s, audit_syslog_fmt fmt,
			     void *ctx);

/* The seq of the first record not handed over (0: none failed). */
unsigned long long audit_syslog_failed_seq(const struct audit_syslog *s);

/*
 * A sink on an open fd (taken: closed by audit_syslog_close) instead of a
 * daemon: each record's text (with audit_syslog_set_format, its OCSF
 * event) and a newline, written with write(2), no syslog head; for run
 * --audit-fd N --audit-format ocsf.  Blocks in write(2) as long as the fd
 * does (a pipe whose reader stops reading).  Returns 0 and sets *out, or
 * -EINVAL, -ENOMEM.
 */
int audit_syslog_open_fd(int fd, struct audit_syslog **out);

/*
 * Send what s sends to next too, after s (next taken: closed with s):
 * both a daemon and an fd.  The first error of either is the sinks' error
 * (audit_syslog_send, audit_syslog_failed_seq), and nothing more is sent
 * to any of them.
 */
void audit_syslog_chain(struct audit_syslog *s, struct audit_syslog *next);

/* Close and free (and the sinks chained to it).  Accepts NULL. */
void audit_syslog_close(struct audit_syslog *s);

/*
 * Give the writer its syslog sink (taken: closed by audit_close), before
 * the first record.  From then on audit_commit() returns 0 only once its
 * record is in the file AND handed over; when a send fails the records go
 * on into the file (the run's end included), nothing more is sent, and
 * every commit of a record not handed over returns the send's error.
 * audit_ship_error() gives that error (0: none).
 */
void audit_set_syslog(struct audit_writer *w, struct audit_syslog *s);
int audit_ship_error(struct audit_writer *w);

#endif
