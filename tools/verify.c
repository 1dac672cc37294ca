/* SPDX-License-Identifier: MIT */
/*
 * sysgate verify AUDIT [--key PUB] and sysgate keygen SECRET PUBLIC: check a
 * trail's hash chain and signature with audit/'s own reader; make keys.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sodium.h>

#include "audit/audit.h"
#include "tools/tools.h"

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate verify [--key PUBLIC] [--hash HASH] [--] AUDIT\n"
		"Check the hash chain of the trail AUDIT, the chain of its runs (each\n"
		"run.start names the run before it) and, with --key, the signature of each\n"
		"run's end; name the first bad record.  Exit 0 when it verifies, 1 when\n"
		"it does not, 125 when it cannot be read.  AUDIT may be latest or ~N\n"
		"(see sysgate runs).\n"
		"  --key PUBLIC  the public key (sysgate keygen) the runs were signed with\n"
		"  --hash HASH   the trail must end with this record hash (the one\n"
		"                sysgate run printed beside the trail's path)\n"
		"  -h, --help    this text\n");
}

int tool_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "hash", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	const char *key = NULL;
	const char *want = NULL;
	unsigned char pk[32];
	unsigned char last[AUDIT_HASH_BYTES];
	char last_hex[2 * AUDIT_HASH_BYTES + 1];
	char why[512] = "";
	char path_buf[PATH_MAX], id[TOOLS_RUN_ID_MAX];
	int c, r;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "verify", ":h", longopts)) != -1) {
		switch (c) {
		case 'k':
			key = optarg;
			break;
		case 'H':
			want = optarg;
			break;
		case 'h':
			verify_usage(stdout);
			return 0;
		default:
			return tools_usage_error("verify");
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sysgate verify: %s\n", optind >= argc ?
			"no trail given" : "one trail at a time");
		return tools_usage_error("verify");
	}
	/* latest, ~N: the trail, whole (every run of the file). */
	path = tools_trail_arg("verify", argv[optind], path_buf, id);
	if (!path)
		return 125;
	if (key) {
		r = audit_load_public_key(key, pk);
		if (r < 0) {
			fprintf(stderr, "sysgate: %s: cannot read the public key: %s\n",
				key, strerror(-r));
			return 125;
		}
	}
	r = audit_verify_path_last(path, key ? pk : NULL, last, why, sizeof(why));
	if (r == 0 && want) {
		/* Security: the trail a run wrote ends with the hash it
		 * printed; any other whole trail (a forgery re-chained from
		 * the start, another run's) ends with another. */
		sodium_bin2hex(last_hex, sizeof(last_hex), last, sizeof(last));
		if (strcasecmp(want, last_hex) != 0) {
			printf("%s: BAD: the last record's hash is %s, not %s: not the trail that was given\n",
			       path, last_hex, want);
			return 1;
		}
	}
	if (r == 0) {
		printf("%s: OK: the hash chain is whole%s%s\n", path,
		       key ? " and the signature verifies" : "",
		       want ? " and ends with the given hash" : "");
		/* Runs from before runs were chained: said, not hidden. */
		if (why[0])
			printf("%s: %s\n", path, why);
		return 0;
	}
	if (r == -EBADMSG) {
		printf("%s: BAD: %s\n", path, why);
		return 1;
	}
	fprintf(stderr, "sysgate: %s: %s\n", path, why[0] ? why : strerror(-r));
	return 125;
}

static void keygen_usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate keygen [--] SECRET PUBLIC\n"
		"Make an Ed25519 key pair: the secret key (for sysgate run --sign-key) into\n"
		"the new file SECRET (mode 0600), the public key (for sysgate verify --key)\n"
		"into the new file PUBLIC.\n"
		"  -h, --help  this text\n");
}

int tool_keygen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "keygen", ":h", longopts)) != -1) {
		switch (c) {
		case 'h':
			keygen_usage(stdout);
			return 0;
		default:
			return tools_usage_error("keygen");
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "sysgate keygen: two files are needed, SECRET and PUBLIC\n");
		return tools_usage_error("keygen");
	}
	r = audit_keygen(argv[optind], argv[optind + 1]);
	if (r < 0) {
		fprintf(stderr, "sysgate: keygen: %s\n", strerror(-r));
		return 125;
	}
	printf("secret key: %s\npublic key: %s\n", argv[optind], argv[optind + 1]);
	return 0;
}
