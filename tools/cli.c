/* SPDX-License-Identifier: MIT */
/*
 * What the subcommands' command lines share: options parsed so that what
 * is not known is refused (never taken for a file name), a policy read
 * from standard input ("-r -"), and trails named "latest" or "~N".
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "tools/tools.h"

/* Whether getopt_long's error was about the long option arg: optopt is 0
 * for an unknown one, else the value of the option arg abbreviates. */
static bool long_error(const char *arg, const struct option *longopts)
{
	size_t n = strcspn(arg, "=");

	if (strncmp(arg, "--", 2) != 0 || n <= 2)
		return false;
	if (optopt == 0)
		return true;
	for (const struct option *o = longopts; o && o->name; o++)
		if (o->val == optopt && strncmp(o->name, arg + 2, n - 2) == 0)
			return true;
	return false;
}

int tools_getopt(int argc, char **argv, const char *cmd,
		 const char *shortopts, const struct option *longopts)
{
	const char *arg;
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	/* A long option is named by its word (up to '='), a short one by
	 * its letter: in a cluster ("-qx") optind may not have moved on. */
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (long_error(arg, longopts)) {
		int n = (int)strcspn(arg, "=");

		if (c == ':')
			fprintf(stderr, "sysgate %s: option '%.*s' needs an argument\n",
				cmd, n, arg);
		else if (optopt && arg[n] == '=')
			fprintf(stderr, "sysgate %s: option '%.*s' takes no argument\n",
				cmd, n, arg);
		else
			fprintf(stderr, "sysgate %s: unknown option '%.*s'\n",
				cmd, n, arg);
	} else if (c == ':') {
		fprintf(stderr, "sysgate %s: option '-%c' needs an argument\n",
			cmd, optopt);
	} else {
		fprintf(stderr, "sysgate %s: unknown option '-%c'\n", cmd,
			optopt);
	}
	return '?';
}

int tools_usage_error(const char *cmd)
{
	fprintf(stderr, "Try 'sysgate %s --help'.\n", cmd);
	return TOOLS_EXIT_USAGE;
}

int tools_read_policy_stdin(char **text, size_t *len, char *err,
			    size_t err_len)
{
	char *buf = malloc(TOOLS_MAX_POLICY + 1);
	size_t got = 0;

	if (!buf) {
		snprintf(err, err_len, "<stdin>: out of memory");
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf + got, TOOLS_MAX_POLICY + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			snprintf(err, err_len, "<stdin>: %s", strerror(e));
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > TOOLS_MAX_POLICY) {
			snprintf(err, err_len, "<stdin>: policy too large (the limit is %d bytes)",
				 TOOLS_MAX_POLICY);
			free(buf);
			return -EFBIG;
		}
	}
	/* Security: the policy is what was read, all of it: a NUL would
	 * end the text the rules see before its end. */
	if (memchr(buf, '\0', got)) {
		snprintf(err, err_len, "<stdin>: NUL byte in the policy");
		free(buf);
		return -EINVAL;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

/* "latest" (0), "~N" or "latest~N" (N): how far back; -1 for a path. */
static long trail_ref_back(const char *arg)
{
	const char *p = arg;
	char *end;
	long n;

	if (!strncmp(p, "latest", 6)) {
		p += 6;
		if (!*p)
			return 0;
	}
	if (*p != '~' || p[1] < '0' || p[1] > '9')
		return -1;
	errno = 0;
	n = strtol(p + 1, &end, 10);
	if (*end || errno || n < 0)
		return -1;
	return n;
}

const char *tools_trail_arg(const char *cmd, const char *arg,
			   char path[PATH_MAX], char run_id[TOOLS_RUN_ID_MAX])
{
	long back = trail_ref_back(arg);
	struct tools_runs rs;
	const struct tools_run *r;
	const char *out = path;
	int rc;

	run_id[0] = '\0';
	if (back < 0)
		return arg;
	rc = tools_runs_scan(cmd, &rs);
	if (rc < 0) {
		fprintf(stderr, "sysgate %s: %s: %s\n", cmd, arg, strerror(-rc));
		return NULL;
	}
	if ((size_t)back >= rs.n) {
		char dir[PATH_MAX];

		tools_state_dir(dir);
		fprintf(stderr, "sysgate %s: %s: %s (%zu run%s in %s; ./%s names a file)\n",
			cmd, arg, rs.n ? "no such run" : "no runs", rs.n,
			rs.n == 1 ? "" : "s", dir, arg);
		tools_runs_release(&rs);
		return NULL;
	}
	r = &rs.v[rs.n - 1 - (size_t)back];
	if (snprintf(path, PATH_MAX, "%s", r->path) >= PATH_MAX ||
	    (r->in_file > 1 &&
	     snprintf(run_id, TOOLS_RUN_ID_MAX, "%s", r->id) >= TOOLS_RUN_ID_MAX)) {
		fprintf(stderr, "sysgate %s: %s: %s\n", cmd, arg,
			strerror(ENAMETOOLONG));
		out = NULL;
	}
	tools_runs_release(&rs);
	return out;
}
