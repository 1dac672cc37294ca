/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-rules.c: CUnit tests of rules/: the parser and each of its
 * messages, globs, addresses, matching, mechanisms, the syscall table against
 * libseccomp, and the BPF filters (loaded in forked children).
 */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules/internal.h"
#include "rules/prebuilt.h"
#include "rules/rules.h"
#include "tests/unit/unit.h"

#define NAME "policy.ini"
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct rules_vars vars = {
	.home = "/home/u",
	.cwd = "/work/p",
	.tmpdir = "/tmp/sg",
	.run = "r1",
};

static struct rules_set *load_ok(const char *text)
{
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX] = "";
	int rc = rules_load_string(text, NAME, &vars, &rs, err, sizeof(err));

	if (rc != 0)
		fprintf(stderr, "\nunexpected error: %s\n", err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	return rs;
}

/* ---------------------------------------------------------------------
 * Parser errors: each message, with its exact FILE:LINE.
 */

#define R "[rule x]\n"
#define OK_RULE "[rule x]\nsyscalls = openat\naction = allow\n"

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	/* [policy] unmediated: known families only. */
	{ "[policy]\nunmediated = io-uring\n",
	  NAME ":2: unknown unmediated family 'io-uring' (did you mean 'io_uring'?)" },
	{ "[policy]\nunmediated = ,\n",
	  NAME ":2: unmediated: name one or more of io_uring, mount, handles" },
	/* Lines and sections (the inih traps). */
	{ "[policy]\ndefault = al\001low\n",
	  NAME ":2: control character 0x01 in line" },
	{ "[policy]\ndefault = allow\n  errno = EPERM\n",
	  NAME ":3: line starts with whitespace (it would continue the previous value); remove the indentation" },
	{ "[policy]\ndefault = allow\n\tpath = /x\n",
	  NAME ":3: line starts with whitespace (it would continue the previous value); remove the indentation" },
	{ "[policy\n", NAME ":1: section header without ']'" },
	{ "[policy ;x]\n", NAME ":1: section header without ']'" },
	{ "\n[policy] x\n", NAME ":2: unexpected text after ']'" },
	{ "[]\n", NAME ":1: empty section name" },
	{ "[ policy ]\n", NAME ":1: section name ' policy ' has surrounding spaces" },
	{ "[rule aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	  NAME ":1: section name too long (54 bytes, the limit is 49)" },
	{ "[policy]\ndefault\n", NAME ":2: expected 'key = value'" },
	{ "[policy]\ndefault ; = allow\n", NAME ":2: expected 'key = value'" },
	{ "[policy]\ndefault: allow\n",
	  NAME ":2: use '=' between key and value, not ':'" },
	{ "[policy]\n= allow\n", NAME ":2: missing key name before '='" },
	{ "; c\ndefault = allow\n",
	  NAME ":2: key 'default' outside of any section" },
	{ "[policy]\ndefault =\n", NAME ":2: empty value for 'default'" },
	/* An inline comment right after '=' leaves an empty value, while a
	 * ';' glued to the '=' is part of the value (as in inih). */
	{ "[policy]\ndefault = ; comment\n",
	  NAME ":2: empty value for 'default'" },
	{ "[policy]\ndefault =;comment\n",
	  NAME ":2: unknown action ';comment'" },
	/* Sections. */
	{ "[polciy]\n", NAME ":1: unknown section [polciy] (did you mean [policy]?)" },
	{ "[rules x]\n", NAME ":1: unknown section [rules x] (did you mean [rule x]?)" },
	{ "[frobnicate]\n", NAME ":1: unknown section [frobnicate]" },
	{ "[policy]\n[policy]\n",
	  NAME ":2: duplicate section [policy] (first at line 1)" },
	{ "[limits]\n\n[limits]\n",
	  NAME ":3: duplicate section [limits] (first at line 1)" },
	{ "[rule]\n", NAME ":1: a rule section needs a name: [rule NAME]" },
	{ "[rule a b]\n",
	  NAME ":1: invalid rule name 'a b' (letters, digits, '-', '_' and '.')" },
	{ "[rule aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	  NAME ":1: rule name too long (the limit is 40 bytes)" },
	{ OK_RULE "[rule x]\n", NAME ":4: duplicate rule 'x' (first at line 1)" },
	/* [policy] */
	{ "[policy]\ndefualt = allow\n",
	  NAME ":2: unknown key 'defualt' in [policy] (did you mean 'default'?)" },
	{ "[policy]\ndefault = allow\ndefault = deny\n",
	  NAME ":3: duplicate key 'default' in [policy] (first at line 2)" },
	{ "[policy]\ndefault = alow\n",
	  NAME ":2: unknown action 'alow' (did you mean 'allow'?)" },
	{ "[policy]\ndefault = rewrite\n",
	  NAME ":2: default = rewrite: the default has nothing to rewrite (use allow, deny, kill or ask; rewrite in a rule)" },
	/* action = rewrite */
	{ "[rule r]\nsyscalls = execve\naction = rewrite\narg1_value = 0\n",
	  NAME ":1: rule 'r' rewrites arg1 of 'execve': the arguments of exec calls are pointers or lengths (use 'redirect')" },
	{ "[rule r]\nsyscalls = sendto\naction = rewrite\narg3_set = 1\n",
	  NAME ":1: rule 'r' rewrites arg3 of 'sendto': the arguments of network calls are pointers or lengths (use 'redirect')" },
	{ "[rule r]\nsyscalls = openat\npath = /tmp/*.log\naction = rewrite\nredirect = /x\n",
	  NAME ":3: path '/tmp/*.log' of rule 'r' cannot be redirected: use a literal path or PREFIX/** with a literal PREFIX" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\nredirect = /x\n",
	  NAME ":4: 'redirect' in rule 'r' needs 'path' patterns (the literal part of each is replaced)" },
	{ "[rule r]\nsyscalls = openat\npath = /tmp/**\naction = rewrite\nredirect = /x\nredirect_if = maybe\n",
	  NAME ":6: redirect_if = 'maybe': the one condition is 'exists'" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\narg2_set = O_CLOEXEC\nredirect_if = exists\n",
	  NAME ":5: 'redirect_if' in rule 'r' needs a path 'redirect'" },
	{ "[rule r]\nsyscalls = openat\npath = /tmp/**\naction = rewrite\nredirect = rel\n",
	  NAME ":5: redirect 'rel' of rule 'r' must be an absolute path other than '/', without wildcards" },
	{ "[rule r]\nsyscalls = openat, connect\naction = rewrite\nredirect = /x\n",
	  NAME ":4: 'redirect' in rule 'r' applies to paths (file syscalls) or to addresses (connect, sendto, sendmsg, sendmmsg), but 'connect' is neither or the rule mixes both" },
	{ "[rule r]\nsyscalls = connect\naction = rewrite\nredirect = 10.0.0.0/8\n",
	  NAME ":4: redirect '10.0.0.0/8' of rule 'r' must be one IPv4 or IPv6 host, with one port or none (IP:PORT, [IPv6]:PORT)" },
	{ "[rule r]\nsyscalls = connect\naction = rewrite\nredirect = nowhere\n",
	  NAME ":4: invalid redirect address 'nowhere': not an address (IPv4, [IPv6], unix:GLOB or unix-abstract:GLOB)" },
	{ "[rule r]\nsyscalls = connect, openat\naction = rewrite\nredirect = 127.0.0.1\n",
	  NAME ":4: 'redirect' in rule 'r' applies to paths (file syscalls) or to addresses (connect, sendto, sendmsg, sendmmsg), but 'connect' is neither or the rule mixes both" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\narg1_set = 1\n",
	  NAME ":1: rule 'r' rewrites arg1 of 'openat', a pointer to a path: use 'redirect'" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\narg2_set = O_CLOEXEC\narg2_value = 0\n",
	  NAME ":5: 'arg2_value' with arg2_value in rule 'r': replace the value, or set and clear bits, not both" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\narg2_set = O_NOPE\n",
	  NAME ":4: arg2_set: unknown constant 'O_NOPE'" },
	{ "[rule r]\nsyscalls = openat\naction = allow\narg2_set = O_CLOEXEC\n",
	  NAME ":4: 'arg2_set' is only valid with action = rewrite (rule 'r' has action = allow)" },
	{ "[rule r]\nsyscalls = openat\naction = rewrite\n",
	  NAME ":1: rule 'r' has action = rewrite but nothing to rewrite (add 'redirect', or argN_set, argN_clear or argN_value)" },
	{ "[policy]\nerrno = EACCESS\n",
	  NAME ":2: unknown errno 'EACCESS' (did you mean 'EACCES'?)" },
	{ "[policy]\naudit = denid\n",
	  NAME ":2: unknown audit level 'denid' (did you mean 'denied'?)" },
	{ "[policy]\naudit = everything\n",
	  NAME ":2: unknown audit level 'everything'" },
	/* [limits] */
	{ "[limits]\nmemroy = 1G\n",
	  NAME ":2: unknown key 'memroy' in [limits] (did you mean 'memory'?)" },
	{ "[limits]\ncpu = 1s\ncpu = 2s\n",
	  NAME ":3: duplicate key 'cpu' in [limits] (first at line 2)" },
	{ "[limits]\nprocesses = 10x\n",
	  NAME ":2: invalid value '10x' for 'processes' (a number)" },
	{ "[limits]\nopen_files = -1\n",
	  NAME ":2: invalid value '-1' for 'open_files' (a number)" },
	{ "[limits]\nmemory = 2X\n",
	  NAME ":2: invalid value '2X' for 'memory' (a number with an optional K, M, G or T)" },
	{ "[limits]\nfile_size = G\n",
	  NAME ":2: invalid value 'G' for 'file_size' (a number with an optional K, M, G or T)" },
	{ "[limits]\ncpu = 5y\n",
	  NAME ":2: invalid value '5y' for 'cpu' (a number with an optional ms, s, m or h)" },
	{ "[limits]\nwall = 0\n", NAME ":2: 'wall' must be more than 0" },
	{ "[limits]\nmemory = 99999999999999999999\n",
	  NAME ":2: value '99999999999999999999' of 'memory' is too large" },
	{ "[limits]\nmemory = 20000000T\n",
	  NAME ":2: value '20000000T' of 'memory' is too large" },
	{ "[limits]\nprocesses = 3000000000\n",
	  NAME ":2: value '3000000000' of 'processes' is too large" },
	/* Rule keys. */
	{ R "syscalls = opne\n",
	  NAME ":2: unknown syscall 'opne' (did you mean 'open'?)" },
	{ R "syscalls = open, xyzzyplugh\n",
	  NAME ":2: unknown syscall 'xyzzyplugh'" },
	{ R "syscalls = @fil\n",
	  NAME ":2: unknown group '@fil' (did you mean '@file'?)" },
	{ R "syscalls = open,,read\n",
	  NAME ":2: empty item in the list of 'syscalls'" },
	{ R "syscalls = open,\n",
	  NAME ":2: empty item in the list of 'syscalls'" },
	{ R "acton = deny\n",
	  NAME ":2: unknown key 'acton' in [rule x] (did you mean 'action'?)" },
	{ R "syscalls = openat\naction = deny\nredirect = /tmp\n",
	  NAME ":4: 'redirect' is only valid with action = rewrite (rule 'x' has action = deny)" },
	{ R "syscalls = openat\naction = allow\nredirect_if = exists\n",
	  NAME ":4: 'redirect_if' is only valid with action = rewrite (rule 'x' has action = allow)" },
	{ R "syscalls = open\naction = deny\naction = allow\n",
	  NAME ":4: duplicate key 'action' in [rule x] (first at line 3)" },
	{ R "syscalls = open\nerrno = EPERM\nerrno = EPERM\n",
	  NAME ":4: duplicate key 'errno' in [rule x] (first at line 3)" },
	{ R "syscalls = socket\narg0 = 1\narg0 = 2\n",
	  NAME ":4: duplicate key 'arg0' in [rule x] (first at line 3)" },
	{ R "syscalls = open\naction = deny\nask = /bin/true\n",
	  NAME ":4: 'ask' is only valid with action = ask (rule 'x' has action = deny)" },
	{ R "syscalls = open\naction = allow\nremember = yes\n",
	  NAME ":4: 'remember' is only valid with action = ask (rule 'x' has action = allow)" },
	{ R "syscalls = open\naction = ask\nask_timeout = soon\n",
	  NAME ":4: invalid value 'soon' for 'ask_timeout' (a number with an optional ms, s, m or h)" },
	{ R "action = frobnicate\n", NAME ":2: unknown action 'frobnicate'" },
	{ R "stack = maybe\n",
	  NAME ":2: invalid value 'maybe' for 'stack' (expected yes or no)" },
	{ R "audit = 1\n",
	  NAME ":2: invalid value '1' for 'audit' (expected yes or no)" },
	{ R "access = reed\n",
	  NAME ":2: unknown access 'reed' (did you mean 'read'?)" },
	{ R "path = ${HOEM}/x\n",
	  NAME ":2: unknown variable ${HOEM} (did you mean ${HOME}?)" },
	{ R "path = ${FOOBARBAZ}/x\n",
	  NAME ":2: unknown variable ${FOOBARBAZ}" },
	{ R "path = ${HOME/x\n", NAME ":2: '${' without '}'" },
	{ R "path = ${}/x\n", NAME ":2: invalid variable name" },
	{ R "path = foo/*\n",
	  NAME ":2: relative path glob 'foo/*' (paths must start with '/', '**', 'memfd:', 'deleted:', 'pipe:', 'socket:' or 'anon_inode:')" },
	{ R "exe = python3\n",
	  NAME ":2: relative path glob 'python3' (paths must start with '/', '**', 'memfd:', 'deleted:', 'pipe:', 'socket:' or 'anon_inode:')" },
	{ R "path = /x, ${RUN}/y\n",
	  NAME ":2: relative path glob 'r1/y' (paths must start with '/', '**', 'memfd:', 'deleted:', 'pipe:', 'socket:' or 'anon_inode:')" },
	{ R "path = /a**\n",
	  NAME ":2: '**' must be a whole path component: '/a**'" },
	{ R "path = /a/***\n",
	  NAME ":2: '**' must be a whole path component: '/a/***'" },
	{ R "path = /a/../b\n",
	  NAME ":2: path glob '/a/../b' is not canonical (no '.', '..', '//' or trailing '/')" },
	{ R "path = /a/./b\n",
	  NAME ":2: path glob '/a/./b' is not canonical (no '.', '..', '//' or trailing '/')" },
	{ R "path = /a//b\n",
	  NAME ":2: path glob '/a//b' is not canonical (no '.', '..', '//' or trailing '/')" },
	{ R "path = /a/\n",
	  NAME ":2: path glob '/a/' is not canonical (no '.', '..', '//' or trailing '/')" },
	{ R "addr = 1.2.3.4/33\n",
	  NAME ":2: invalid address '1.2.3.4/33': invalid prefix length" },
	{ R "addr = 127.0.0.1/8\n",
	  NAME ":2: invalid address '127.0.0.1/8': the address has bits set beyond its prefix" },
	{ R "addr = [fe80::1]/10\n",
	  NAME ":2: invalid address '[fe80::1]/10': the address has bits set beyond its prefix" },
	{ R "addr = [::1\n",
	  NAME ":2: invalid address '[::1': missing ']' after the IPv6 address" },
	{ R "addr = [zz]\n",
	  NAME ":2: invalid address '[zz]': invalid IPv6 address" },
	{ R "addr = 1.2.3:80\n",
	  NAME ":2: invalid address '1.2.3:80': invalid IPv4 address" },
	{ R "addr = 1.2.3.4:99999\n",
	  NAME ":2: invalid address '1.2.3.4:99999': invalid port" },
	{ R "addr = 1.2.3.4:90-80\n",
	  NAME ":2: invalid address '1.2.3.4:90-80': port range is backwards" },
	{ R "addr = [::1]x\n",
	  NAME ":2: invalid address '[::1]x': unexpected text after the address" },
	{ R "addr = localhost\n",
	  NAME ":2: invalid address 'localhost': not an address (IPv4, [IPv6], unix:GLOB or unix-abstract:GLOB)" },
	{ R "addr = *\n",
	  NAME ":2: invalid address '*': not an address (IPv4, [IPv6], unix:GLOB or unix-abstract:GLOB)" },
	{ R "addr = unix:\n",
	  NAME ":2: invalid address 'unix:': empty socket glob" },
	{ R "addr = unix-abstract:a**\n",
	  NAME ":2: invalid address 'unix-abstract:a**': '**' must be a whole path component" },
	{ R "arg0 = O_RDONYL\n",
	  NAME ":2: arg0: unknown constant 'O_RDONYL' (did you mean 'O_RDONLY'?)" },
	{ R "arg1 = FROB\n", NAME ":2: arg1: unknown constant 'FROB'" },
	{ R "arg0 = 12abc\n", NAME ":2: arg0: invalid number '12abc'" },
	{ R "arg0 = 99999999999999999999\n",
	  NAME ":2: arg0: invalid number '99999999999999999999'" },
	{ R "arg0 = -\n", NAME ":2: arg0: invalid number '-'" },
	{ R "arg0 = =< 3\n", NAME ":2: arg0: unknown operator at '=< 3'" },
	{ R "arg0 = & 0\n", NAME ":2: arg0: mask is zero" },
	{ R "arg0 = & 4 = 4\n",
	  NAME ":2: arg0: expected '== VALUE' after the mask, not '= 4'" },
	{ R "arg0 = 1 2\n", NAME ":2: arg0: unexpected text '2'" },
	{ R "arg5 = |\n",
	  NAME ":2: arg5: expected a constant or a number at '|'" },
	{ R "arg2 = O_CREAT |\n",
	  NAME ":2: arg2: expected a constant or a number" },
	{ R "arg6 = 1\n",
	  NAME ":2: unknown key 'arg6' in [rule x] (did you mean 'arg0'?)" },
	/* Whole-rule checks. */
	{ "[rule x]\naction = deny\n\n", NAME ":1: rule 'x' has no 'syscalls'" },
	{ OK_RULE "[rule y]\nsyscalls = read\n[policy]\n",
	  NAME ":4: rule 'y' has no 'action'" },
	{ R "syscalls = openat\naction = allow\nerrno = EPERM\n",
	  NAME ":4: 'errno' is only valid with action = deny or ask (rule 'x' has action = allow)" },
	{ R "syscalls = openat\nerrno = EPERM\naction = kill\n",
	  NAME ":3: 'errno' is only valid with action = deny or ask (rule 'x' has action = kill)" },
	{ R "syscalls = openat, read\npath = /x\naction = deny\n",
	  NAME ":3: 'path' in rule 'x', but syscall 'read' takes no path" },
	{ R "syscalls = @network, getpid\naddr = [::1]\naction = deny\n",
	  NAME ":3: 'addr' in rule 'x', but syscall 'getpid' has no socket address" },
	{ R "syscalls = openat\naddr = [::1]\naction = deny\n",
	  NAME ":3: 'addr' in rule 'x', but syscall 'openat' has no socket address" },
	{ R "syscalls = @file, read\naccess = read\naction = deny\n",
	  NAME ":3: 'access' in rule 'x', but syscall 'read' has no path to check" },
	{ R "syscalls = @file\naccess = exec\naction = deny\n",
	  NAME ":3: access 'exec' never applies to the syscalls of rule 'x'" },
	{ R "syscalls = unlink\naccess = delete, read\naction = deny\n",
	  NAME ":3: access 'read' never applies to the syscalls of rule 'x'" },
	/* [env]: keys, names, globs, set. */
	{ "[env]\nkeeps = X\n",
	  NAME ":2: unknown key 'keeps' in [env] (did you mean 'keep'?)" },
	{ "[evn]\n", NAME ":1: unknown section [evn] (did you mean [env]?)" },
	{ "[env]\nkeep = A\n[env]\n",
	  NAME ":3: duplicate section [env] (first at line 1)" },
	{ "[env]\nkeep = OPENAI_API_KEY=1\n",
	  NAME ":2: 'OPENAI_API_KEY=1' in 'keep' is a name, not NAME=VALUE (to give a variable a value: set = NAME=VALUE)" },
	{ "[env]\ndrop = [AB]*\n",
	  NAME ":2: '[AB]*': '[' is no glob in [env] (only '*' and '?')" },
	{ "[env]\ndrop = MY KEY\n",
	  NAME ":2: invalid variable name or glob 'MY KEY' in 'drop' (letters, digits, '_', '.' and '-'; globs '*' and '?')" },
	{ "[env]\nkeep = A,,B\n", NAME ":2: empty item in the list of 'keep'" },
	{ "[env]\nset = FOO\n", NAME ":2: set: expected NAME=VALUE, not 'FOO'" },
	{ "[env]\nset = =x\n", NAME ":2: set: expected NAME=VALUE, not '=x'" },
	{ "[env]\nset = 1X=y\n",
	  NAME ":2: invalid variable name '1X' in 'set' (it starts with a digit)" },
	{ "[env]\nset = A*=y\n",
	  NAME ":2: invalid variable name 'A*' in 'set' (letters, digits, '_', '.' and '-')" },
	{ "[env]\nset = TMPDIR=/x\n",
	  NAME ":2: set: TMPDIR is sysgate's (it is set for each run, after [env])" },
	{ "[env]\nset = SYSGATE_RUN=x\n",
	  NAME ":2: set: SYSGATE_RUN is sysgate's (it is set for each run, after [env])" },
	{ "[env]\nset = A=1\nset = B=2\nset = A=3\n",
	  NAME ":4: set: A is set twice (first at line 2)" },
	{ "[env]\nset = A=${HOME\n", NAME ":2: '${' without '}'" },
	/* The mistakes people make, each with what was meant. */
	{ R "syscalls = openat\naction = denied\n",
	  NAME ":3: unknown action 'denied' (did you mean 'deny'?)" },
	{ R "syscalls = openat\naction = block\n",
	  NAME ":3: unknown action 'block' (did you mean 'deny'?)" },
	{ "[policy]\ndefault = allowed\n",
	  NAME ":2: unknown action 'allowed' (did you mean 'allow'?)" },
	{ R "syscalls = openat\naction = deny\nerrno = 13\n",
	  NAME ":4: errno = 13: errno takes a name (13 is EACCES: errno = EACCES)" },
	{ "[policy]\nerrno = 1\n",
	  NAME ":2: errno = 1: errno takes a name (1 is EPERM: errno = EPERM)" },
	{ "[policy]\nerrno = 99999\n",
	  NAME ":2: errno = 99999: errno takes a name, such as EPERM or EACCES" },
	{ "[policy]\nmemory = 1G\n",
	  NAME ":2: key 'memory' belongs in [limits], not in [policy]" },
	{ "[policy]\nprocesses = 10\n",
	  NAME ":2: key 'processes' belongs in [limits], not in [policy]" },
	{ "[limits]\ndefault = allow\n",
	  NAME ":2: key 'default' belongs in [policy], not in [limits]" },
	{ "[policy]\nsyscalls = openat\n",
	  NAME ":2: key 'syscalls' belongs in a [rule NAME] section, not in [policy]" },
	{ R "syscalls = openat\nwall = 1s\n",
	  NAME ":3: key 'wall' belongs in [limits], not in [rule x]" },
	{ R "syscalls = openat\npath = ~/.ssh/**\naction = deny\n",
	  NAME ":3: path = ~/.ssh/**: '~' is not expanded (write ${HOME}/.ssh/**)" },
	{ R "syscalls = openat\npath = $HOME/.ssh\naction = deny\n",
	  NAME ":3: path = $HOME/.ssh: '$HOME' is not expanded (write ${HOME})" },
	{ R "syscalls = openat\npath = $PWD/**\naction = deny\n",
	  NAME ":3: path = $PWD/**: '$PWD' is not expanded (write ${CWD})" },
	{ R "syscalls = execve\nexe = ~/bin/tool\naction = deny\n",
	  NAME ":3: exe = ~/bin/tool: '~' is not expanded (write ${HOME}/bin/tool)" },
};

static void test_parse_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rules_set *rs = NULL;
		char err[RULES_ERR_MAX] = "";
		int rc = rules_load_string(bad[i].text, NAME, &vars, &rs, err,
					   sizeof(err));

		if (rc != -EINVAL || strcmp(err, bad[i].msg) != 0)
			fprintf(stderr, "\ncase %zu: rc=%d\n  got  '%s'\n  want '%s'\n",
				i, rc, err, bad[i].msg);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, bad[i].msg);
		CU_ASSERT_PTR_NULL(rs);
		rules_free(rs);
	}
}

/* Mistakes that leave a valid policy: warned about, with FILE:LINE and
 * the key, and the policy loads as written. */
static void test_parse_warnings(void)
{
	static const struct {
		const char *text;
		const char *warning; /* NULL: none */
	} cases[] = {
		{ "[policy]\ndefault = allow\n" R "syscalls = openat\n"
		  "path = /tmp/[ab]\naction = deny\n",
		  NAME ":5: path = /tmp/[ab]: '[' is a plain character in sysgate globs, not a class: this matches a name with the brackets in it (list each path instead)" },
		{ "[policy]\ndefault = allow\n" R "syscalls = openat\n"
		  "path = /x/$HOME/y\naction = deny\n",
		  NAME ":5: path = /x/$HOME/y: '$HOME' is a literal name here (a variable is written ${HOME})" },
		{ "[policy]\ndefault = allow\n" R "syscalls = openat\n"
		  "path = /x/~/y\naction = deny\n",
		  NAME ":5: path = /x/~/y: '~' is a literal name here (the home directory is ${HOME})" },
		{ "", NAME ": the policy has no rule and its default is deny: it denies every call, the command's own execve included (add rules, or include = default)" },
		{ "[policy]\ndefault = kill\n",
		  NAME ": the policy has no rule and its default is kill: it kills on every call, the command's own execve included (add rules, or include = default)" },
		/* No warning: the names of files without one, a rewrite to an
		 * IPv6 address, a policy that allows by default. */
		{ "[policy]\ndefault = allow\n" R "syscalls = fchmod\n"
		  "path = pipe:[*]\naction = deny\n", NULL },
		{ "[policy]\ndefault = allow\n" R "syscalls = connect\n"
		  "action = rewrite\nredirect = [::1]:80\n", NULL },
		{ "[policy]\ndefault = allow\n", NULL },
		{ OK_RULE, NULL },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct rules_set *rs = load_ok(cases[i].text);
		const char *w = rules_warning(rs, 0);

		if (!rs)
			continue;
		if (cases[i].warning && (!w || strcmp(w, cases[i].warning)))
			fprintf(stderr, "\ncase %zu:\n  got  '%s'\n  want '%s'\n",
				i, w ? w : "(none)", cases[i].warning);
		if (cases[i].warning) {
			CU_ASSERT_STRING_EQUAL(w ? w : "", cases[i].warning);
		} else {
			CU_ASSERT_PTR_NULL(w);
		}
		CU_ASSERT_PTR_NULL(rules_warning(rs, 1));
		rules_free(rs);
	}
	/* The literal name is matched as written. */
	{
		struct rules_set *rs = load_ok(
			"[policy]\ndefault = allow\n" R
			"syscalls = openat\npath = /tmp/[ab]\naction = deny\n");
		struct rules_event ev = { .nr = SYS_openat,
					  .access = RULES_ACC_READ,
					  .path = "/tmp/a" };
		struct rules_verdict v;

		rules_match(rs, &ev, &v);
		CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
		ev.path = "/tmp/[ab]";
		rules_match(rs, &ev, &v);
		CU_ASSERT_EQUAL(v.action, RULES_DENY);
		rules_free(rs);
	}
	/* The built-in policy's are not the user's to act on. */
	{
		struct rules_set *rs = NULL;
		char err[RULES_ERR_MAX];

		CU_ASSERT_EQUAL(rules_load_default(&vars, &rs, err, sizeof(err)), 0);
		CU_ASSERT_PTR_NULL(rules_warning(rs, 0));
		rules_free(rs);
	}
}

/* Variables: unset, relative, holding glob characters. */
static void test_parse_vars(void)
{
	static const struct {
		struct rules_vars v;
		const char *text;
		const char *msg;
	} cases[] = {
		{ { .home = "/h", .cwd = "/c", .tmpdir = "/t" },
		  R "path = /tmp/${RUN}\n", NAME ":2: variable ${RUN} is not set" },
		{ { .cwd = "/c" }, R "path = ${HOME}/x\n",
		  NAME ":2: variable ${HOME} is not set" },
		{ { .home = "relative" }, R "path = ${HOME}/x\n",
		  NAME ":2: variable ${HOME} is not an absolute path ('relative')" },
		{ { .home = "/home/a*" }, R "path = ${HOME}/x\n",
		  NAME ":2: variable ${HOME} holds characters that would change the glob ('/home/a*')" },
		{ { .run = "a/b" }, R "path = /tmp/${RUN}\n",
		  NAME ":2: variable ${RUN} holds characters that would change the glob ('a/b')" },
		{ { .home = "/h", .cwd_why = "deleted" }, R "path = ${CWD}/x\n",
		  NAME ":2: variable ${CWD} cannot be determined: deleted" },
		{ { .home_why = "HOME is not an absolute path ('x')" },
		  R "path = ${HOME}/x\n",
		  NAME ":2: variable ${HOME} cannot be determined: HOME is not an absolute path ('x')" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_set *rs = NULL;
		char err[RULES_ERR_MAX] = "";
		int rc = rules_load_string(cases[i].text, NAME, &cases[i].v,
					   &rs, err, sizeof(err));

		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, cases[i].msg);
		CU_ASSERT_PTR_NULL(rs);
	}
	/* A NULL vars pointer is fine until a variable is used. */
	{
		struct rules_set *rs = NULL;
		char err[RULES_ERR_MAX];

		CU_ASSERT_EQUAL(rules_load_string(OK_RULE, NAME, NULL, &rs, err,
						  sizeof(err)), 0);
		rules_free(rs);
		rs = NULL;
		CU_ASSERT_EQUAL(rules_load_string(R "path = ${CWD}\n", NAME,
						  NULL, &rs, err, sizeof(err)),
				-EINVAL);
		CU_ASSERT_STRING_EQUAL(err, NAME ":2: variable ${CWD} is not set");
	}
	/* Too long after expansion. */
	{
		char home[700];
		struct rules_vars v = { .home = home };
		struct rules_set *rs = NULL;
		char err[RULES_ERR_MAX];

		home[0] = '/';
		memset(home + 1, 'h', sizeof(home) - 2);
		home[sizeof(home) - 1] = '\0';
		CU_ASSERT_EQUAL(rules_load_string(R "path = ${HOME}${HOME}\n",
						  NAME, &v, &rs, err,
						  sizeof(err)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, NAME ":2: glob too long after expansion (the limit is 1024 bytes)");
		/* An include has room for a whole path, and says so. */
		CU_ASSERT_EQUAL(rules_load_string("[policy]\ninclude = ${HOME}${HOME}${HOME}${HOME}${HOME}${HOME}\n",
						  NAME, &v, &rs, err,
						  sizeof(err)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, NAME ":2: include too long after expansion (the limit is 4095 bytes)");
	}
}

/* A variable spelled through a symlink: its items match either form;
 * a redirect takes the canonical one. */
static void test_parse_vars_spelled(void)
{
	static const struct rules_vars v = {
		.home = "/real/u", .home_spelled = "/home/u",
		.cwd = "/work/p", .tmpdir = "/var/tmp/sg",
		.tmpdir_spelled = "/tmp/sg",
	};
	static const struct {
		const char *path;
		enum rules_action want;
	} cases[] = {
		{ "/real/u/.ssh/id", RULES_DENY },
		{ "/home/u/.ssh/id", RULES_DENY },
		{ "/real/u/x", RULES_ALLOW },
		{ "/var/tmp/sg/a", RULES_DENY },
		{ "/tmp/sg/a", RULES_DENY },
		{ "/real/u/sg/a", RULES_ALLOW },
	};
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX] = "";
	int rc = rules_load_string("[policy]\ndefault = allow\n"
				   "[rule s]\nsyscalls = openat\n"
				   "path = ${HOME}/.ssh/**, ${TMPDIR}/a\n"
				   "action = deny\n", NAME, &v, &rs, err,
				   sizeof(err));

	CU_ASSERT_EQUAL_FATAL(rc, 0);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct rules_event ev = { .nr = __NR_openat,
					  .access = RULES_ACC_READ,
					  .path = cases[i].path };
		struct rules_verdict vd;

		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.action, cases[i].want);
	}
	rules_free(rs);
}

/* A rewritten call is decided by every rule but its own rewrite; another
 * rewrite denies it. */
static void test_match_rewritten(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\n"
		"[rule scratch]\nsyscalls = openat\npath = /tmp/**\n"
		"action = rewrite\nredirect = /w/t\n"
		"[rule env]\nsyscalls = openat\npath = **/.env\n"
		"action = deny\nerrno = EACCES\n"
		"[rule again]\nsyscalls = openat\npath = /w/t/b/**\n"
		"action = rewrite\narg2_set = O_CLOEXEC\n");
	struct rules_event ev = { .nr = __NR_openat, .access = RULES_ACC_READ,
				  .path = "/tmp/x" };
	struct rules_verdict by, v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	rules_match(rs, &ev, &by);
	CU_ASSERT_EQUAL(by.action, RULES_REWRITE);
	/* Its own rule matches the target again: left out. */
	ev.path = "/tmp/y";
	rules_match_rewritten(rs, &ev, by.rule, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_PTR_NULL(v.rule);
	/* A later rule the own rewrite used to hide. */
	ev.path = "/tmp/p/.env";
	rules_match_rewritten(rs, &ev, by.rule, &v);
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_STRING_EQUAL(v.rule, "env");
	/* Another rewrite: refused, named. */
	ev.path = "/w/t/b/c";
	rules_match_rewritten(rs, &ev, by.rule, &v);
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_EQUAL(v.err, EACCES);
	CU_ASSERT_STRING_EQUAL(v.rule, "again");
	CU_ASSERT_PTR_NULL(v.rewrite);
	rules_free(rs);
}

/* The inih traps: a long line, a continuation line, a BOM, comments. */
static void test_parse_inih_traps(void)
{
	char text[512];
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX];

	/* 198 bytes is the longest line accepted; 199 is refused. */
	snprintf(text, sizeof(text),
		 "[rule x]\nsyscalls = openat\naction = allow\npath = /%0*d\n",
		 198 - 8, 0);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), 0);
	rules_free(rs);
	rs = NULL;
	snprintf(text, sizeof(text),
		 "[rule x]\nsyscalls = openat\naction = allow\npath = /%0*d\n",
		 199 - 8, 0);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ":4: line too long (199 bytes, the limit is 198)");
	/* The attack of docs/PLATFORM.md 2: the tail of a long line read as a key. */
	snprintf(text, sizeof(text),
		 "[rule x]\nsyscalls = openat\naction = deny\npath = /%0*d/allow = /etc/shadow\n",
		 192, 0);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ":4: line too long (220 bytes, the limit is 198)");
	CU_ASSERT_PTR_NULL(rs);

	/* A BOM counts in the first line's length, as inih reads it. */
	snprintf(text, sizeof(text), "\xEF\xBB\xBF;%0*d\n[policy]\n", 194, 0);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), 0);
	rules_free(rs);
	rs = NULL;
	snprintf(text, sizeof(text), "\xEF\xBB\xBF;%0*d\n[policy]\n", 195, 0);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ":1: line too long (199 bytes, the limit is 198)");

	/* BOM, CRLF, comments, inline comments. */
	rs = NULL;
	CU_ASSERT_EQUAL(rules_load_string(
		"\xEF\xBB\xBF; comment\r\n# comment\r\n  ; indented comment\r\n"
		"[policy] ; c\r\ndefault = deny ; why\r\nerrno = EXDEV\r\n\r\n"
		"[rule a.b-c_d]\r\nsyscalls = getppid\r\naction = deny;x\r\n",
		NAME, &vars, &rs, err, sizeof(err)), -EINVAL);
	/* "deny;x": ';' without a space before is not a comment. */
	CU_ASSERT_STRING_EQUAL(err, NAME ":10: unknown action 'deny;x' (did you mean 'deny'?)");
	rs = load_ok("\xEF\xBB\xBF; comment\r\n# comment\r\n  ; indented\r\n"
		     "[policy] ; c\r\ndefault = deny ; why\r\nerrno = EXDEV\r\n\r\n"
		     "[rule a.b-c_d]\r\nsyscalls = getppid\r\naction = allow\r\n");
	if (rs) {
		int e = 0;

		CU_ASSERT_EQUAL(rules_default_action(rs, &e), RULES_DENY);
		CU_ASSERT_EQUAL(e, EXDEV);
		CU_ASSERT_EQUAL(rules_rule_count(rs), 1);
		CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 0), "a.b-c_d");
		CU_ASSERT_PTR_NULL(rules_rule_name(rs, 1));
		CU_ASSERT_STRING_EQUAL(rules_source(rs), NAME);
	}
	rules_free(rs);
}

static void test_parse_limits(void)
{
	struct rules_set *rs;
	uint64_t v = 0;

	rs = load_ok("[limits]\nprocesses = 64\nmemory = 2G\ncpu = 60s\n"
		     "wall = 5m\nfile_size = 512KiB\n");
	if (!rs)
		return;
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_PROCESSES, &v), 0);
	CU_ASSERT_EQUAL(v, 64);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_MEMORY, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_C(2) << 30);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_CPU, &v), 0);
	CU_ASSERT_EQUAL(v, 60000);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_WALL, &v), 0);
	CU_ASSERT_EQUAL(v, 300000);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_FILE_SIZE, &v), 0);
	CU_ASSERT_EQUAL(v, 512 * 1024);
	v = 7;
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_OPEN_FILES, &v), -ENOENT);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_COUNT, &v), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rules_limit_name(RULES_LIMIT_OPEN_FILES),
			       "open_files");
	rules_free(rs);

	rs = load_ok("[limits]\nopen_files = 1024\nmemory = 100\ncpu = 1500ms\n"
		     "wall = 2h\nfile_size = 1M\n");
	if (!rs)
		return;
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_OPEN_FILES, &v), 0);
	CU_ASSERT_EQUAL(v, 1024);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_MEMORY, &v), 0);
	CU_ASSERT_EQUAL(v, 100);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_CPU, &v), 0);
	CU_ASSERT_EQUAL(v, 1500);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_WALL, &v), 0);
	CU_ASSERT_EQUAL(v, 7200000);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_FILE_SIZE, &v), 0);
	CU_ASSERT_EQUAL(v, 1 << 20);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_PROCESSES, &v), -ENOENT);
	rules_free(rs);
}

static void test_parse_policy_defaults(void)
{
	struct rules_set *rs;
	int e = 0;

	/* Without [policy]: deny with EPERM, audit all (fail closed). */
	rs = load_ok(OK_RULE);
	if (!rs)
		return;
	CU_ASSERT_EQUAL(rules_default_action(rs, &e), RULES_DENY);
	CU_ASSERT_EQUAL(e, EPERM);
	CU_ASSERT_EQUAL(rules_audit_level(rs), RULES_AUDIT_ALL);
	rules_free(rs);

	/* A rule's deny takes [policy] errno even when [policy] comes last. */
	rs = load_ok("[rule x]\nsyscalls = getppid\naction = deny\n"
		     "[policy]\ndefault = kill\nerrno = EXDEV\naudit = none\n");
	if (!rs)
		return;
	{
		struct rules_event ev = { .nr = __NR_getppid };
		struct rules_verdict vd;

		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.action, RULES_DENY);
		CU_ASSERT_EQUAL(vd.err, EXDEV);
		ev.nr = __NR_getpid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.action, RULES_KILL);
		CU_ASSERT_EQUAL(vd.err, 0);
		CU_ASSERT_PTR_NULL(vd.rule);
	}
	CU_ASSERT_EQUAL(rules_audit_level(rs), RULES_AUDIT_NONE);
	rules_free(rs);
}

/* Limits of size: items, rules, file. */
static void test_parse_sizes(void)
{
	size_t cap = 2 * 1024 * 1024, len = 0, i;
	char *text = malloc(cap);
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX];

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* 513 paths in one rule. */
	len = (size_t)snprintf(text, cap, OK_RULE);
	for (i = 0; i < 513; i++)
		len += (size_t)snprintf(text + len, cap - len, "path = /p%zu\n",
					i);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ":516: too many items (the limit is 512 per rule)");
	/* 1025 rules. */
	len = 0;
	for (i = 0; i < 1025; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"[rule r%zu]\nsyscalls = read\naction = allow\n",
					i);
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ":3073: too many rules (the limit is 1024)");
	/* 1 MiB + 1 byte of comments. */
	memset(text, '\n', 1024 * 1024 + 1);
	text[0] = ';';
	text[1024 * 1024 + 1] = '\0';
	CU_ASSERT_EQUAL(rules_load_string(text, NAME, &vars, &rs, err,
					  sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, NAME ": policy too large (1048577 bytes, the limit is 1048576)");
	CU_ASSERT_PTR_NULL(rs);
	free(text);

	/* A small error buffer is still NUL-terminated. */
	{
		char small[8];

		CU_ASSERT_EQUAL(rules_load_string("[x]\n", NAME, &vars, &rs,
						  small, sizeof(small)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(small, "policy.");
		CU_ASSERT_EQUAL(rules_load_string("[x]\n", NAME, &vars, &rs,
						  NULL, 0), -EINVAL);
	}
}

/* Files in tests/data, found through $srcdir. */
static void data_path(char *buf, size_t len, const char *file)
{
	const char *srcdir = getenv("srcdir");

	snprintf(buf, len, "%s/tests/data/%s", srcdir ? srcdir : ".", file);
}

/* The verdict of an openat of path for reading under rs. */
static struct rules_verdict open_verdict(const struct rules_set *rs,
					 const char *path)
{
	struct rules_event ev = { .nr = __NR_openat, .access = RULES_ACC_READ,
				  .path = path };
	struct rules_verdict v;

	rules_match(rs, &ev, &v);
	return v;
}

/* include = FILE: own rules first, [policy] and [limits] merged. */
static void test_include_ok(void)
{
	struct rules_set *rs = NULL;
	char path[4096], err[RULES_ERR_MAX] = "";
	struct rules_verdict v;
	uint64_t n = 0;
	int e = 0;

	data_path(path, sizeof(path), "include-top.ini");
	CU_ASSERT_EQUAL_FATAL(rules_load_file(path, &vars, &rs, err,
					      sizeof(err)), 0);
	CU_ASSERT_EQUAL(rules_rule_count(rs), 2);
	CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 0), "top-allow");
	CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 1), "base-deny");
	/* Each rule keeps the file and line it was read from. */
	CU_ASSERT_STRING_EQUAL(rules_rule_file(rs, 0), path);
	CU_ASSERT_EQUAL(rules_rule_line(rs, 0), 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rules_rule_file(rs, 1));
	CU_ASSERT_PTR_NOT_NULL(strstr(rules_rule_file(rs, 1),
				      "include-base.ini"));
	CU_ASSERT_EQUAL(rules_rule_line(rs, 1), 9);
	CU_ASSERT_PTR_NULL(rules_rule_file(rs, 2));
	/* The including file's default wins, the errno and the limit come
	 * from the include, which sets them. */
	CU_ASSERT_EQUAL(rules_default_action(rs, &e), RULES_DENY);
	CU_ASSERT_EQUAL(e, EACCES);
	CU_ASSERT_EQUAL(rules_limit(rs, RULES_LIMIT_PROCESSES, &n), 0);
	CU_ASSERT_EQUAL(n, 7);
	/* The including file's allow overrides the included deny. */
	v = open_verdict(rs, "/etc/shadow");
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_STRING_EQUAL(v.rule, "top-allow");
	v = open_verdict(rs, "/etc/passwd");
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_EQUAL(v.err, EACCES);
	CU_ASSERT_STRING_EQUAL(v.rule, "base-deny");
	v = open_verdict(rs, "/usr/x");
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_PTR_NULL(v.rule);
	rules_free(rs);
}

/* include = default: the built-in policy, extended in three lines. */
static void test_include_default(void)
{
	struct rules_set *rs = NULL, *def = NULL;
	char err[RULES_ERR_MAX] = "";
	struct rules_verdict v;
	int e = 0;

	CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &def, err,
						 sizeof(err)), 0);
	rs = load_ok("[policy]\ninclude = default\n"
		     "[rule mine]\nsyscalls = @file\npath = /srv/**\n"
		     "action = allow\n");
	CU_ASSERT_FATAL(rs != NULL);
	CU_ASSERT_EQUAL(rules_rule_count(rs), rules_rule_count(def) + 1);
	CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 0), "mine");
	CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 1),
			       rules_rule_name(def, 0));
	/* The built-in policy's rules are placed in it, not in the file
	 * that includes it. */
	CU_ASSERT_STRING_EQUAL(rules_rule_file(rs, 1), rules_source(def));
	CU_ASSERT_STRING_NOT_EQUAL(rules_rule_file(rs, 0), rules_source(def));
	CU_ASSERT_EQUAL(rules_default_action(rs, &e), RULES_ALLOW);
	v = open_verdict(rs, "/home/u/.ssh/id_rsa");
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_EQUAL(v.err, EACCES);
	CU_ASSERT_STRING_EQUAL(v.rule, "no-secrets");
	{
		struct rules_event ev = { .nr = __NR_openat,
					  .access = RULES_ACC_WRITE,
					  .path = "/srv/data" };

		rules_match(rs, &ev, &v);
		CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
		rules_match(def, &ev, &v);
		CU_ASSERT_EQUAL(v.action, RULES_DENY);
	}
	rules_free(rs);
	rules_free(def);
}

/* Include errors, each with FILE:LINE of the right file. */
static void test_include_errors(void)
{
	static const struct {
		const char *file;
		const char *inner; /* the included file's part of the message */
		const char *msg;
		const char *from; /* "(included from" ... */
		int rc;
	} files[] = {
		{ "include-bad.ini", "include-broken.ini",
		  ":3: unknown syscall 'opne' (did you mean 'open'?)",
		  "include-bad.ini:2)", -EINVAL },
		{ "include-missing.ini", "include-nowhere.ini",
		  ": cannot read: No such file or directory",
		  "include-missing.ini:2)", -ENOENT },
		{ "include-cycle-a.ini", "include-cycle-b.ini",
		  ":2: include cycle: ", "include-cycle-a.ini:2)", -EINVAL },
	};
	char path[4096], want[4096], err[RULES_ERR_MAX];
	struct rules_set *rs = NULL;
	const char *srcdir = getenv("srcdir");
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		data_path(path, sizeof(path), files[i].file);
		err[0] = '\0';
		CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err,
						sizeof(err)), files[i].rc);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want), "%s/tests/data/%s%s",
			 srcdir ? srcdir : ".", files[i].inner, files[i].msg);
		if (strncmp(err, want, strlen(want)) != 0)
			fprintf(stderr, "\n%s: got '%s'\nwant '%s...'\n",
				files[i].file, err, want);
		CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "(included from "));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, files[i].from));
	}

	/* Strings: a rule name used twice, a self include, an unknown
	 * shipped policy, an include outside [policy]. */
	rs = NULL;
	CU_ASSERT_EQUAL(rules_load_string("[policy]\ninclude = default\n"
					  "[rule no-network]\nsyscalls = bind\n"
					  "action = allow\n",
					  NAME, &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       NAME ":2: included policy <default> has a rule 'no-network' too (rule names must be unique)");
	CU_ASSERT_EQUAL(rules_load_string("[policy]\ninclude = no-such-policy\n",
					  NAME, &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(strncmp(err, NAME ":2: no shipped policy 'no-such-policy'",
				strlen(NAME ":2: no shipped policy 'no-such-policy'")),
			0);
	CU_ASSERT_EQUAL(rules_load_string("[policy]\ninclude = a b\n", NAME,
					  &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       NAME ":2: invalid policy name 'a b' (a file needs a '/' or the .ini suffix)");
	CU_ASSERT_EQUAL(rules_load_string("[limits]\ninclude = default\n",
					  NAME, &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       NAME ":2: key 'include' belongs in [policy], not in [limits]");
	CU_ASSERT_PTR_NULL(rs);
}

/* A chain of includes: 8 levels below the top load, 9 are refused at
 * the include line of the file that goes one too deep. */
static void test_include_depth(void)
{
	char dir[] = "/tmp/test-rules-include.XXXXXX";
	char path[4096], err[RULES_ERR_MAX], want[4096];
	struct rules_set *rs = NULL;
	int i, levels;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	for (levels = 8; levels <= 9; levels++) {
		for (i = 0; i <= levels; i++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/d%d.ini", dir, i);
			f = fopen(path, "w");
			CU_ASSERT_PTR_NOT_NULL_FATAL(f);
			if (i < levels)
				fprintf(f, "[policy]\ninclude = d%d.ini\n", i + 1);
			fprintf(f, "[rule r%d]\nsyscalls = getpid\naction = allow\n",
				i);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/d0.ini", dir);
		err[0] = '\0';
		rs = NULL;
		if (levels == 8) {
			CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err,
							sizeof(err)), 0);
			CU_ASSERT_EQUAL(rules_rule_count(rs), 9);
			CU_ASSERT_STRING_EQUAL(rules_rule_name(rs, 8), "r8");
			rules_free(rs);
			continue;
		}
		CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want),
			 "%s/d8.ini:2: includes nested too deeply (the limit is 8 levels)",
			 dir);
		CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	}
	for (i = 0; i <= 9; i++) {
		snprintf(path, sizeof(path), "%s/d%d.ini", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/* At most 64 includes are loaded for one policy, all levels together:
 * files that include each other 16 times over, 8 levels deep, would take
 * 16^8 loads.  Here a file includes one 16 times that includes an empty
 * one 16 times: the 65th load, the 13th include of the 4th, is refused. */
static void test_include_total(void)
{
	char dir[] = "/tmp/test-rules-fanout.XXXXXX";
	char path[4096], err[RULES_ERR_MAX], want[8192];
	struct rules_set *rs = NULL;
	int i, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	for (i = 0; i <= 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/f%d.ini", dir, i);
		f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f, "[policy]\n");
		for (k = 0; i < 2 && k < 16; k++)
			fprintf(f, "include = f%d.ini\n", i + 1);
		fclose(f);
	}
	/* 16 loads of f2 through one f1: fine. */
	snprintf(path, sizeof(path), "%s/f1.ini", dir);
	CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err, sizeof(err)),
			0);
	rules_free(rs);
	rs = NULL;
	snprintf(path, sizeof(path), "%s/f0.ini", dir);
	err[0] = '\0';
	CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NULL(rs);
	snprintf(want, sizeof(want),
		 "%s/f1.ini:14: too many included policies (the limit is 64 in all) (included from %s/f0.ini:5)",
		 dir, dir);
	CU_ASSERT_STRING_EQUAL(err, want);
	for (i = 0; i <= 2; i++) {
		snprintf(path, sizeof(path), "%s/f%d.ini", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/* A policy or an include naming a FIFO or a device is refused without
 * opening it: open() of a FIFO used to wait for a writer for ever.  An
 * alarm turns a hang back into a failure. */
static void test_include_special_files(void)
{
	char dir[] = "/tmp/test-rules-fifo.XXXXXX";
	char fifo[4096], top[4096], err[RULES_ERR_MAX], want[8192];
	const char *const specials[] = { fifo, "/dev/zero", "/dev/null" };
	struct rules_set *rs = NULL;
	FILE *f;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.ini", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	snprintf(top, sizeof(top), "%s/top.ini", dir);
	alarm(10);
	for (i = 0; i < ARRAY_LEN(specials); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(rules_load_file(specials[i], &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want), "%s: not a regular file",
			 specials[i]);
		CU_ASSERT_STRING_EQUAL(err, want);

		f = fopen(top, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f, "[policy]\ninclude = %s\n", specials[i]);
		fclose(f);
		err[0] = '\0';
		CU_ASSERT_EQUAL(rules_load_file(top, &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want),
			 "%s: not a regular file (included from %s:2)",
			 specials[i], top);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	alarm(0);
	unlink(top);
	unlink(fifo);
	rmdir(dir);
}

/* A policy or an include on /proc or /sys is refused before a byte is
 * read (reading /proc/kmsg would consume the kernel's messages); a file
 * named through /proc/self/fd/N is the real file and loads. */
static void test_include_kernel_files(void)
{
	char tmpl[] = "/tmp/test-rules-kfs.XXXXXX";
	char top[4096], err[RULES_ERR_MAX], want[8192];
	static const struct {
		const char *path, *fs;
	} kfiles[] = {
		{ "/proc/self/status", "/proc" },
		{ "/sys/kernel/profiling", "/sys" },
	};
	struct rules_set *rs = NULL;
	FILE *f;
	size_t i;
	int fd;

	fd = mkstemp(tmpl);
	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < ARRAY_LEN(kfiles); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(rules_load_file(kfiles[i].path, &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want),
			 "%s: a file of the kernel's %s, not a policy",
			 kfiles[i].path, kfiles[i].fs);
		CU_ASSERT_STRING_EQUAL(err, want);

		f = fopen(tmpl, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f, "[policy]\ninclude = %s\n", kfiles[i].path);
		fclose(f);
		err[0] = '\0';
		CU_ASSERT_EQUAL(rules_load_file(tmpl, &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_PTR_NULL(rs);
		snprintf(want, sizeof(want),
			 "%s: a file of the kernel's %s, not a policy (included from %s:2)",
			 kfiles[i].path, kfiles[i].fs, tmpl);
		CU_ASSERT_STRING_EQUAL(err, want);
	}

	/* The same policy through /proc/self/fd/N: the real file, loaded. */
	f = fopen(tmpl, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "[policy]\ndefault = allow\n");
	fclose(f);
	snprintf(top, sizeof(top), "/proc/self/fd/%d", fd);
	err[0] = '\0';
	CU_ASSERT_EQUAL(rules_load_file(top, &vars, &rs, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_PTR_NOT_NULL(rs);
	rules_free(rs);
	close(fd);
	unlink(tmpl);
}

static void test_parse_files(void)
{
	static const struct {
		const char *file;
		const char *msg; /* after "PATH:" */
	} files[] = {
		{ "unknown-syscall.ini",
		  "12: unknown syscall 'opne' (did you mean 'open'?)" },
		{ "long-line.ini", "7: line too long (230 bytes, the limit is 198)" },
		{ "continuation.ini",
		  "8: line starts with whitespace (it would continue the previous value); remove the indentation" },
		{ "unknown-key.ini",
		  "9: unknown key 'pathh' in [rule secrets] (did you mean 'path'?)" },
		{ "rewrite.ini",
		  "3: rule 'scratch-tmp' has action = rewrite but nothing to rewrite (add 'redirect', or argN_set, argN_clear or argN_value)" },
		{ "path-on-read.ini",
		  "5: 'path' in rule 'reads', but syscall 'read' takes no path" },
	};
	char path[4096], want[4200], err[RULES_ERR_MAX];
	struct rules_set *rs = NULL;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		data_path(path, sizeof(path), files[i].file);
		snprintf(want, sizeof(want), "%s:%s", path, files[i].msg);
		rc = rules_load_file(path, &vars, &rs, err, sizeof(err));
		if (strcmp(err, want) != 0)
			fprintf(stderr, "\n%s: got '%s'\n", files[i].file, err);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, want);
		CU_ASSERT_PTR_NULL(rs);
	}
	data_path(path, sizeof(path), "valid.ini");
	rc = rules_load_file(path, &vars, &rs, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\nvalid.ini: %s\n", err);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL(rs);
	if (rs) {
		CU_ASSERT_STRING_EQUAL(rules_source(rs), path);
		CU_ASSERT_EQUAL(rules_rule_count(rs), 3);
	}
	rules_free(rs);
	rs = NULL;

	/* Missing file, directory, NUL byte. */
	data_path(path, sizeof(path), "does-not-exist.ini");
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory",
		 path);
	CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err, sizeof(err)),
			-ENOENT);
	CU_ASSERT_STRING_EQUAL(err, want);
	data_path(path, sizeof(path), "");
	CU_ASSERT_EQUAL(rules_load_file(path, &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT(strstr(err, ": not a regular file") != NULL);
	{
		char tmpl[] = "/tmp/test-rules-XXXXXX";
		int fd = mkstemp(tmpl);
		static const char nul[] = "[policy]\ndefault = allow\nerrno = E\0PERM\n";

		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, nul, sizeof(nul) - 1),
				(ssize_t)sizeof(nul) - 1);
		close(fd);
		snprintf(want, sizeof(want), "%s:3: NUL byte in line", tmpl);
		CU_ASSERT_EQUAL(rules_load_file(tmpl, &vars, &rs, err,
						sizeof(err)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err, want);
		unlink(tmpl);
	}
	CU_ASSERT_PTR_NULL(rs);
}

/* ---------------------------------------------------------------------
 * Globs.
 */

static void test_glob_table(void)
{
	static const struct {
		const char *pattern, *path;
		bool match;
	} cases[] = {
		{ "/a/**", "/a", true },
		{ "/a/**", "/a/x", true },
		{ "/a/**", "/a/x/y", true },
		{ "/a/**", "/ab", false },
		{ "/a/**", "/", false },
		{ "/a/**", "/b/a/x", false },
		{ "/home/u/.ssh/**", "/home/u/.ssh", true },
		{ "/home/u/.ssh/**", "/home/u/.sshx", false },
		{ "**/.env", "/.env", true },
		{ "**/.env", "/x/y/.env", true },
		{ "**/.env", "/x/y/a.env", false },
		{ "**/.env", "/x/.env/y", false },
		{ "**/.env", "/x/.envy", false },
		{ "**/.env.*", "/p/.env.local", true },
		{ "**/.env.*", "/p/.env", false },
		/* Bytes every match holds (a needed run, a tail): tried
		 * before the NFA, never instead of it. */
		{ "**/.env.*", "/p/.env.", true },
		{ "**/.env.*", ".env.x", true },
		{ "**/.env.*", "/a.env.x", false },
		{ "**/.env.*", "/p/.env.x/y", false },
		{ "**/*.pem", "/k/a.pem", true },
		{ "**/*.pem", "/.pem", true },
		{ "**/*.pem", "/k/a.pem/x", false },
		{ "**/*.pem", "/k/a.pe", false },
		{ "/a*bc*bc", "/abcbc", true },
		{ "/a*bc*bc", "/abc", false },
		{ "/a*bc*bc", "/axbcybc", true },
		{ "/a*bc*bc", "/axbcybcz", false },
		{ "/s/*/key*/**", "/s/x/key1/z", true },
		{ "/s/*/key*/**", "/s/x/key", true },
		{ "/s/*/key*/**", "/s/x/ke/y", false },
		{ "/a/*/c", "/a/b/c", true },
		{ "/a/*/c", "/a/b/x/c", false },
		{ "/a/*/c", "/a//c", true },
		{ "/a/*", "/a/", true },
		{ "/a/*", "/a", false },
		{ "/a/?", "/a/b", true },
		{ "/a/?", "/a/bc", false },
		{ "/a/?", "/a/", false },
		{ "/a/?/c", "/a///c", false },
		{ "/a/**/c", "/a/c", true },
		{ "/a/**/c", "/a/b/c", true },
		{ "/a/**/c", "/a/b/d/c", true },
		{ "/a/**/c", "/a/bc", false },
		{ "/a/**/c", "/ac", false },
		{ "/a/**/c", "/a/b/cd", false },
		{ "/a/**/b/**", "/a/x/b", true },
		{ "/a/**/b/**", "/a/b/y/z", true },
		{ "/a/**/b/**", "/a/x/bb", false },
		{ "**", "/anything/at/all", true },
		{ "**", "", true },
		{ "/**", "/", true },
		{ "/**", "/x/y", true },
		{ "/dev/pts/*", "/dev/pts/0", true },
		{ "/dev/pts/*", "/dev/pts/0/x", false },
		{ "/x*y", "/xaby", true },
		{ "/x*y", "/xy", true },
		{ "/x*y", "/xa/by", false },
		{ "/x*y*z", "/xyyyzzz", true },
		{ "/a*", "/a/b", false },
		{ "/a[b]", "/a[b]", true },
		{ "/a[b]", "/ab", false },
		{ "/etc/shadow", "/etc/shadow", true },
		{ "/etc/shadow", "/etc/shadow-", false },
		{ "/etc/shadow", "/etc/shado", false },
		{ "/etc/shadow-", "/etc/shadow-", true },
		{ "/a\xff*", "/a\xff\xfe\x01", true },
		{ "/a\xff*", "/a\xfe", false },
		{ "/a**b", "/axxb", true }, /* not a component: as '*' */
		{ "/a**b", "/ax/xb", false },
		{ "", "", true },
		{ "", "/", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = rules_glob_match(cases[i].pattern, cases[i].path);
		struct rules_glob g;
		bool cgot;

		if (got != cases[i].match)
			fprintf(stderr, "\nglob '%s' vs '%s': got %d\n",
				cases[i].pattern, cases[i].path, got);
		CU_ASSERT_EQUAL(got, cases[i].match);
		/* The compiled glob gives the same answer. */
		CU_ASSERT_EQUAL_FATAL(rules_glob_compile(cases[i].pattern, &g), 0);
		cgot = rules_glob_match_compiled(&g, cases[i].path,
						 strlen(cases[i].path));
		if (cgot != cases[i].match)
			fprintf(stderr, "\ncompiled glob '%s' vs '%s': got %d\n",
				cases[i].pattern, cases[i].path, cgot);
		CU_ASSERT_EQUAL(cgot, cases[i].match);
		rules_glob_release(&g);
	}
	CU_ASSERT_FALSE(rules_glob_match(NULL, "/a"));
	CU_ASSERT_FALSE(rules_glob_match("/a", NULL));
	/* Bytes after a NUL (abstract socket names) are matched too. */
	CU_ASSERT_TRUE(rules_glob_match_n("a?b", "a\0b", 3));
	CU_ASSERT_FALSE(rules_glob_match_n("a?b", "a\0c", 3));
}

/* A small deterministic generator (xorshift), so a failure repeats. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15u;

static unsigned rnd(unsigned n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

/* Compiled globs against the reference matcher, on random globs built from
 * the pieces that matter (literal runs, '*', '?', "**" in and out of
 * components, "/" "**" at the end, "**" "/" at the start) and random paths
 * over a small alphabet, so that most pairs are near misses. */
static void test_glob_compiled_random(void)
{
	static const char *const gp[] = { "a", "b", "ab", "/", "/", ".", "*",
					  "?", "**", "/**", "**/", "/a", "x" };
	static const char *const pp[] = { "a", "b", "/", "/", ".", "x", "ab",
					  "/a", "" };
	char pat[64], path[64];
	struct rules_glob g;
	unsigned fails = 0;

	for (unsigned t = 0; t < 60000; t++) {
		unsigned np = rnd(7), nq;

		pat[0] = '\0';
		for (unsigned k = 0; k < np; k++)
			strcat(pat, gp[rnd(sizeof(gp) / sizeof(gp[0]))]);
		CU_ASSERT_EQUAL_FATAL(rules_glob_compile(pat, &g), 0);
		for (unsigned q = 0; q < 12; q++) {
			bool want, got;

			path[0] = '\0';
			nq = rnd(9);
			for (unsigned k = 0; k < nq; k++)
				strcat(path, pp[rnd(sizeof(pp) / sizeof(pp[0]))]);
			/* Half the time, a path that the glob may well match:
			 * the pattern with its wildcards filled in. */
			if (rnd(2)) {
				size_t o = 0;

				for (const char *c = pat; *c && o < 40; c++)
					if (*c == '*' || *c == '?')
						o += (size_t)snprintf(path + o, sizeof(path) - o,
								      "%s", pp[rnd(sizeof(pp) / sizeof(pp[0]))]);
					else
						path[o++] = *c;
				path[o] = '\0';
			}
			want = rules_glob_match(pat, path);
			got = rules_glob_match_compiled(&g, path, strlen(path));
			if (want != got && fails++ < 10)
				fprintf(stderr, "\ncompiled glob '%s' vs '%s': %d, reference %d\n",
					pat, path, got, want);
			CU_ASSERT_EQUAL(got, want);
		}
		rules_glob_release(&g);
	}
	/* Too long: matches nothing, like the reference. */
	{
		static char longp[RULES_GLOB_MAX + 2];

		memset(longp, 'p', RULES_GLOB_MAX + 1);
		CU_ASSERT_EQUAL(rules_glob_compile(longp, &g), 0);
		CU_ASSERT_FALSE(rules_glob_match_compiled(&g, longp,
							  strlen(longp)));
		rules_glob_release(&g);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_glob_limits(void)
{
	static char path[4097], pattern[RULES_GLOB_MAX + 2];
	double t0, t;
	size_t i;

	/* A hostile 4096-byte path against nested globstars: linear. */
	for (i = 0; i < 4096; i += 2) {
		path[i] = '/';
		path[i + 1] = 'a';
	}
	path[4096] = '\0';
	t0 = now_s();
	CU_ASSERT_FALSE(rules_glob_match("**/**/**/**/x", path));
	CU_ASSERT_FALSE(rules_glob_match("/**/a*a*a*a*a*a*a*x", path));
	CU_ASSERT_FALSE(rules_glob_match("/*/*/*/*/*/*/*/*/*/*/**/x", path));
	path[4095] = 'x';
	CU_ASSERT_TRUE(rules_glob_match("**/**/**/**/x", path));
	t = now_s() - t0;
	CU_ASSERT(t < 1.0);
	if (t >= 1.0)
		fprintf(stderr, "\nglob took %.3f s\n", t);

	/* The longest pattern works; a longer one matches nothing. */
	memset(pattern, 'p', RULES_GLOB_MAX);
	pattern[0] = '/';
	pattern[RULES_GLOB_MAX] = '\0';
	CU_ASSERT_TRUE(rules_glob_match(pattern, pattern));
	pattern[RULES_GLOB_MAX] = 'p';
	pattern[RULES_GLOB_MAX + 1] = '\0';
	CU_ASSERT_FALSE(rules_glob_match(pattern, pattern));
}

/* ---------------------------------------------------------------------
 * Addresses.
 */

struct sa_buf {
	struct sockaddr_storage ss;
	socklen_t len;
};

static void mk_in4(struct sa_buf *b, const char *ip, int port)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };

	CU_ASSERT_EQUAL(inet_pton(AF_INET, ip, &in.sin_addr), 1);
	memset(b, 0, sizeof(*b));
	memcpy(&b->ss, &in, sizeof(in));
	b->len = sizeof(in);
}

static void mk_in6(struct sa_buf *b, const char *ip, int port)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons((uint16_t)port) };

	CU_ASSERT_EQUAL(inet_pton(AF_INET6, ip, &in6.sin6_addr), 1);
	memset(b, 0, sizeof(*b));
	memcpy(&b->ss, &in6, sizeof(in6));
	b->len = sizeof(in6);
}

/* name starting with '@' is abstract; NULL is unnamed. */
static void mk_un(struct sa_buf *b, const char *name)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n;

	memset(b, 0, sizeof(*b));
	if (!name) {
		memcpy(&b->ss, &un, sizeof(sa_family_t));
		b->len = sizeof(sa_family_t);
		return;
	}
	n = strlen(name);
	memcpy(un.sun_path, name, n);
	if (name[0] == '@')
		un.sun_path[0] = '\0';
	else
		n++; /* count the NUL, as most callers do */
	memcpy(&b->ss, &un, sizeof(un));
	b->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
}

static void test_addr_table(void)
{
	static const struct {
		const char *pattern;
		char kind; /* 4, 6, u(nix) */
		const char *addr;
		int port;
		bool connect;
		bool match;
	} cases[] = {
		{ "127.0.0.0/8", '4', "127.0.0.1", 80, true, true },
		{ "127.0.0.0/8", '4', "127.255.1.2", 1, true, true },
		{ "127.0.0.0/8", '4', "128.0.0.1", 80, true, false },
		{ "127.0.0.0/8", '4', "0.0.0.0", 80, true, true },
		{ "127.0.0.0/8", '4', "0.0.0.0", 80, false, false },
		{ "127.0.0.0/8", '6', "::ffff:127.0.0.1", 80, true, true },
		{ "127.0.0.0/8", '6', "::ffff:10.0.0.1", 80, true, false },
		{ "127.0.0.0/8", '6', "::ffff:0.0.0.0", 80, true, true },
		{ "127.0.0.0/8", '6', "::1", 80, true, false },
		{ "[::1]", '6', "::1", 80, true, true },
		{ "[::1]", '6', "::", 80, true, true },
		{ "[::1]", '6', "::", 80, false, false },
		{ "[::1]", '6', "::2", 80, true, false },
		{ "[::1]", '4', "127.0.0.1", 80, true, false },
		{ "[::]", '6', "::", 80, false, true },
		{ "0.0.0.0", '4', "0.0.0.0", 80, false, true },
		{ "0.0.0.0", '4', "0.0.0.0", 80, true, false },
		{ "[fe80::]/10:443", '6', "fe80::1", 443, true, true },
		{ "[fe80::]/10:443", '6', "febf::1", 443, true, true },
		{ "[fe80::]/10:443", '6', "fec0::1", 443, true, false },
		{ "[fe80::]/10:443", '6', "fe80::1", 444, true, false },
		{ "[::ffff:10.0.0.0]/104", '4', "10.1.2.3", 1, true, true },
		{ "[::ffff:10.0.0.0]/104", '6', "::ffff:10.1.2.3", 1, true, true },
		{ "[::ffff:10.0.0.0]/104", '4', "11.1.2.3", 1, true, false },
		{ "10.0.0.1:53", '4', "10.0.0.1", 53, true, true },
		{ "10.0.0.1:53", '4', "10.0.0.1", 54, true, false },
		{ "10.0.0.1:53", '4', "10.0.0.2", 53, true, false },
		{ "10.0.0.0/24:8000-8999", '4', "10.0.0.9", 8000, true, true },
		{ "10.0.0.0/24:8000-8999", '4', "10.0.0.9", 8999, true, true },
		{ "10.0.0.0/24:8000-8999", '4', "10.0.0.9", 7999, true, false },
		{ "10.0.0.0/24:8000-8999", '4', "10.0.0.9", 9000, true, false },
		{ "10.0.0.0/24:8000-8999", '4', "10.0.1.9", 8000, true, false },
		{ "0.0.0.0/0", '4', "203.0.113.9", 1, true, true },
		{ "0.0.0.0/0", '6', "2001:db8::1", 1, true, false },
		{ "[::]/0", '6', "2001:db8::1", 1, true, true },
		{ "[::]/0", '4', "203.0.113.9", 1, true, false },
		{ "10.0.0.0/31", '4', "10.0.0.1", 1, true, true },
		{ "10.0.0.0/31", '4', "10.0.0.2", 1, true, false },
		{ "unix:/run/*.sock", 'u', "/run/a.sock", 0, true, true },
		{ "unix:/run/*.sock", 'u', "/run/x/a.sock", 0, true, false },
		{ "unix:/run/*.sock", 'u', "@/run/a.sock", 0, true, false },
		{ "unix:**", 'u', "relative.sock", 0, true, true },
		{ "unix:**", 'u', "@abstract", 0, true, false },
		{ "unix:**", 'u', NULL, 0, false, false },
		{ "unix-abstract:**", 'u', "@abstract", 0, true, true },
		{ "unix-abstract:**", 'u', "/run/a.sock", 0, true, false },
		{ "unix-abstract:**", 'u', NULL, 0, false, true },
		{ "unix-abstract:dbus-*", 'u', "@dbus-1234", 0, true, true },
		{ "unix-abstract:dbus-*", 'u', "@x11", 0, true, false },
		{ "unix-abstract:dbus-*", 'u', NULL, 0, false, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_addr a;
		const char *why = NULL;
		struct sa_buf b;
		bool got;

		CU_ASSERT_EQUAL_FATAL(rules_addr_parse(cases[i].pattern, &a,
						       &why), 0);
		if (cases[i].kind == '4')
			mk_in4(&b, cases[i].addr, cases[i].port);
		else if (cases[i].kind == '6')
			mk_in6(&b, cases[i].addr, cases[i].port);
		else
			mk_un(&b, cases[i].addr);
		got = rules_addr_match(&a, (struct sockaddr *)&b.ss, b.len,
				       cases[i].connect);
		if (got != cases[i].match)
			fprintf(stderr, "\naddr case %zu '%s' vs '%s': got %d\n",
				i, cases[i].pattern,
				cases[i].addr ? cases[i].addr : "(unnamed)", got);
		CU_ASSERT_EQUAL(got, cases[i].match);
		rules_addr_release(&a);
	}
}

static void test_addr_edges(void)
{
	struct rules_addr a;
	const char *why;
	struct sa_buf b;
	struct sockaddr_un un = { .sun_family = AF_UNIX };

	CU_ASSERT_EQUAL_FATAL(rules_addr_parse("127.0.0.0/8", &a, &why), 0);
	/* Short lengths match nothing. */
	mk_in4(&b, "127.0.0.1", 1);
	CU_ASSERT_TRUE(rules_addr_match(&a, (struct sockaddr *)&b.ss, b.len, true));
	CU_ASSERT_FALSE(rules_addr_match(&a, (struct sockaddr *)&b.ss, b.len - 1, true));
	CU_ASSERT_FALSE(rules_addr_match(&a, (struct sockaddr *)&b.ss, 1, true));
	CU_ASSERT_FALSE(rules_addr_match(&a, NULL, b.len, true));
	/* Other families match nothing. */
	b.ss.ss_family = AF_NETLINK;
	CU_ASSERT_FALSE(rules_addr_match(&a, (struct sockaddr *)&b.ss, b.len, true));
	rules_addr_release(&a);

	/* A sun_path that fills the array without a NUL. */
	CU_ASSERT_EQUAL_FATAL(rules_addr_parse("unix:/x*", &a, &why), 0);
	un.sun_path[0] = '/';
	memset(un.sun_path + 1, 'x', sizeof(un.sun_path) - 1);
	CU_ASSERT_TRUE(rules_addr_match(&a, (struct sockaddr *)&un,
					sizeof(un), true));
	rules_addr_release(&a);
	/* Abstract names may hold NUL bytes. */
	CU_ASSERT_EQUAL_FATAL(rules_addr_parse("unix-abstract:a?b", &a, &why), 0);
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	memcpy(un.sun_path, "\0a\0b", 4);
	CU_ASSERT_TRUE(rules_addr_match(&a, (struct sockaddr *)&un,
					offsetof(struct sockaddr_un, sun_path) + 4,
					true));
	CU_ASSERT_FALSE(rules_addr_match(&a, (struct sockaddr *)&un,
					 offsetof(struct sockaddr_un, sun_path) + 5,
					 true));
	rules_addr_release(&a);
}

/* ---------------------------------------------------------------------
 * Constants and argument conditions.
 */

static void test_consts(void)
{
	static const struct {
		const char *text;
		uint64_t value;
	} ok[] = {
		{ "O_WRONLY|O_CREAT", O_WRONLY | O_CREAT },
		{ " O_RDONLY ", O_RDONLY },
		{ "AT_FDCWD", (uint64_t)(int64_t)AT_FDCWD },
		{ "-100", (uint64_t)(int64_t)-100 },
		{ "0x10 | 010 | 1", 0x10 | 8 | 1 },
		{ "AF_INET6", AF_INET6 },
		{ "SOCK_STREAM|SOCK_CLOEXEC", SOCK_STREAM | SOCK_CLOEXEC },
		{ "CLONE_NEWUSER|CLONE_NEWNET", CLONE_NEWUSER | CLONE_NEWNET },
		{ "PROT_READ|PROT_EXEC", 5 },
		{ "MAP_SHARED|MAP_ANONYMOUS", 0x21 },
		{ "18446744073709551615", UINT64_MAX },
	};
	char why[256];
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CU_ASSERT_EQUAL(rules_expr_parse(ok[i].text, &v, why,
						 sizeof(why)), 0);
		CU_ASSERT_EQUAL(v, ok[i].value);
	}
	CU_ASSERT_EQUAL(rules_expr_parse("O_CREAT O_EXCL", &v, why,
					 sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "unexpected text 'O_EXCL'");
}

static void test_argcond_parse(void)
{
	struct rules_argcond c;
	char why[256];

	CU_ASSERT_EQUAL(rules_argcond_parse("AF_INET", 0, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_EQ);
	CU_ASSERT_EQUAL(c.value, AF_INET);
	CU_ASSERT_EQUAL(rules_argcond_parse("!= 3", 2, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_NE);
	CU_ASSERT_EQUAL(c.arg, 2);
	CU_ASSERT_EQUAL(rules_argcond_parse("<= 4096", 1, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_LE);
	CU_ASSERT_EQUAL(rules_argcond_parse("< 1", 1, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_LT);
	CU_ASSERT_EQUAL(rules_argcond_parse(">= 1", 1, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_GE);
	CU_ASSERT_EQUAL(rules_argcond_parse("> 1", 1, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_GT);
	CU_ASSERT_EQUAL(rules_argcond_parse("== 1", 1, &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_EQ);
	CU_ASSERT_EQUAL(rules_argcond_parse("& CLONE_NEWUSER|CLONE_NEWNS", 0,
					    &c, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_ANY);
	CU_ASSERT_EQUAL(c.mask, CLONE_NEWUSER | CLONE_NEWNS);
	CU_ASSERT_EQUAL(rules_argcond_parse("&O_ACCMODE==O_WRONLY", 2, &c, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(c.op, RULES_OP_MASKED_EQ);
	CU_ASSERT_EQUAL(c.mask, O_ACCMODE);
	CU_ASSERT_EQUAL(c.value, O_WRONLY);
}

static void match_args(const struct rules_set *rs, int nr, const uint64_t *a,
		       struct rules_verdict *vd)
{
	struct rules_event ev = { .nr = nr };

	memcpy(ev.args, a, sizeof(ev.args));
	rules_match(rs, &ev, vd);
}

static void test_arg_match(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\naudit = none\n"
		/* socket's domain is an int: only the low 32 bits count. */
		"[rule no-inet]\nsyscalls = socket\narg0 = AF_INET\n"
		"action = deny\nerrno = EAFNOSUPPORT\n"
		/* mmap's length is 64-bit. */
		"[rule big-map]\nsyscalls = mmap\narg1 = > 0x100000\n"
		"action = deny\nerrno = ENOMEM\n"
		"[rule wx]\nsyscalls = mmap, mprotect\narg2 = & PROT_EXEC\n"
		"action = deny\nerrno = EACCES\n"
		"[rule wronly]\nsyscalls = openat\narg0 = AT_FDCWD\n"
		"arg2 = & O_ACCMODE == O_WRONLY\naction = deny\nerrno = EROFS\n"
		/* getpriority is not in the width table: both readings. */
		"[rule prio-allow]\nsyscalls = getpriority\narg0 = 1\naction = allow\n"
		"[rule prio-deny]\nsyscalls = getpriority\naction = deny\nerrno = EPERM\n"
		"[rule kill-a]\nsyscalls = setpriority\narg0 = 7\naction = kill\n");
	struct rules_verdict vd;

	if (!rs)
		return;
	match_args(rs, __NR_socket, (uint64_t[6]){ AF_INET, 1 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	CU_ASSERT_EQUAL(vd.err, EAFNOSUPPORT);
	CU_ASSERT_STRING_EQUAL(vd.rule, "no-inet");
	match_args(rs, __NR_socket, (uint64_t[6]){ 0xffffffff00000002ull }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	match_args(rs, __NR_socket, (uint64_t[6]){ AF_UNIX }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	CU_ASSERT_PTR_NULL(vd.rule);

	match_args(rs, __NR_mmap, (uint64_t[6]){ 0, 0x100001, 3 }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "big-map");
	match_args(rs, __NR_mmap, (uint64_t[6]){ 0, 0x100000000ull, 3 }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "big-map");
	match_args(rs, __NR_mmap, (uint64_t[6]){ 0, 0x100000, 3 }, &vd);
	CU_ASSERT_PTR_NULL(vd.rule);
	match_args(rs, __NR_mmap, (uint64_t[6]){ 0, 4096, PROT_READ | PROT_EXEC }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "wx");
	CU_ASSERT_EQUAL(vd.err, EACCES);
	match_args(rs, __NR_mprotect, (uint64_t[6]){ 0, 4096, PROT_EXEC }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "wx");

	/* glibc's AT_FDCWD (zero-extended) and a sign-extended one. */
	match_args(rs, __NR_openat, (uint64_t[6]){ 0xffffff9cull, 0, O_WRONLY | O_CREAT }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "wronly");
	CU_ASSERT_EQUAL(vd.err, EROFS);
	match_args(rs, __NR_openat, (uint64_t[6]){ (uint64_t)(int64_t)AT_FDCWD, 0, O_WRONLY }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "wronly");
	match_args(rs, __NR_openat, (uint64_t[6]){ (uint64_t)(int64_t)AT_FDCWD, 0, O_RDWR }, &vd);
	CU_ASSERT_PTR_NULL(vd.rule);
	match_args(rs, __NR_openat, (uint64_t[6]){ 3, 0, O_WRONLY }, &vd);
	CU_ASSERT_PTR_NULL(vd.rule);

	/* Unknown width: the allow needs both readings. */
	match_args(rs, __NR_getpriority, (uint64_t[6]){ 1 }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "prio-allow");
	match_args(rs, __NR_getpriority, (uint64_t[6]){ 0x100000001ull }, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "prio-deny");
	/* ... and the kill either. */
	match_args(rs, __NR_setpriority, (uint64_t[6]){ 0x700000007ull }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_KILL);
	CU_ASSERT_STRING_EQUAL(vd.rule, "kill-a");
	match_args(rs, __NR_setpriority, (uint64_t[6]){ 0x700000000ull }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	rules_free(rs);

	/* Comparisons are unsigned; several argN are ANDed. */
	rs = load_ok("[policy]\ndefault = deny\naudit = none\n"
		     "[rule r]\nsyscalls = write\narg0 = 1\narg2 = <= 100\naction = allow\n"
		     "[rule ne]\nsyscalls = read\narg0 = != 0\naction = allow\n");
	if (!rs)
		return;
	match_args(rs, __NR_write, (uint64_t[6]){ 1, 0, 100 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	match_args(rs, __NR_write, (uint64_t[6]){ 1, 0, 101 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	match_args(rs, __NR_write, (uint64_t[6]){ 2, 0, 1 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	match_args(rs, __NR_write, (uint64_t[6]){ 1, 0, (uint64_t)-1 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	match_args(rs, __NR_read, (uint64_t[6]){ 0 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	match_args(rs, __NR_read, (uint64_t[6]){ 0x100000000ull }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY); /* fd: low 32 bits are 0 */
	match_args(rs, __NR_read, (uint64_t[6]){ 5 }, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	rules_free(rs);
}

/* ---------------------------------------------------------------------
 * Matching: order, conditions, verdict fields.
 */

static void test_match_order(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = deny\nerrno = EXDEV\n"
		"[rule first]\nsyscalls = openat\npath = /a/**\naccess = write\n"
		"action = deny\nerrno = EROFS\nstack = yes\n"
		"[rule second]\nsyscalls = openat, open\npath = /a/**\naction = allow\naudit = no\n"
		"[rule third]\nsyscalls = @file\npath = /**\naction = kill\n"
		"[rule by-exe]\nsyscalls = execve\nexe = /usr/bin/*\naction = allow\n");
	struct rules_event ev = { .nr = __NR_openat, .access = RULES_ACC_WRITE,
				  .path = "/a/b" };
	struct rules_verdict vd;

	if (!rs)
		return;
	/* The supervisor loads its unwinder only for such a set. */
	CU_ASSERT_TRUE(rules_wants_stacks(rs));
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	CU_ASSERT_EQUAL(vd.err, EROFS);
	CU_ASSERT_STRING_EQUAL(vd.rule, "first");
	CU_ASSERT_TRUE(vd.stack);
	CU_ASSERT_TRUE(vd.audit);

	ev.access = RULES_ACC_READ;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(vd.err, 0);
	CU_ASSERT_STRING_EQUAL(vd.rule, "second");
	CU_ASSERT_FALSE(vd.stack);
	CU_ASSERT_FALSE(vd.audit);

	/* "open" is only in the second rule. */
	ev.nr = __NR_open;
	ev.access = RULES_ACC_WRITE;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "second");

	ev.nr = __NR_unlink;
	ev.access = RULES_ACC_DELETE;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_KILL);
	CU_ASSERT_EQUAL(vd.err, 0);
	CU_ASSERT_STRING_EQUAL(vd.rule, "third");

	/* No path in the event: rules with a path do not apply. */
	ev.path = NULL;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	CU_ASSERT_EQUAL(vd.err, EXDEV);
	CU_ASSERT_PTR_NULL(vd.rule);
	CU_ASSERT_TRUE(vd.audit);

	/* exe globs. */
	ev = (struct rules_event){ .nr = __NR_execve, .access = RULES_ACC_EXEC,
				   .path = "/bin/x", .exe = "/usr/bin/python3" };
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "by-exe");
	ev.exe = "/usr/local/bin/python3";
	rules_match(rs, &ev, &vd);
	CU_ASSERT_PTR_NULL(vd.rule);
	ev.exe = NULL;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_PTR_NULL(vd.rule);

	/* An event with an extra access bit: the allow must cover all,
	 * the deny any. */
	ev = (struct rules_event){ .nr = __NR_openat, .path = "/a/x",
				   .access = RULES_ACC_READ | RULES_ACC_WRITE };
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "first");
	rules_free(rs);

	/* A NULL set denies. */
	rules_match(NULL, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	CU_ASSERT_EQUAL(vd.err, EPERM);
}

static void test_match_access_allow(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = deny\n"
		"[rule reads]\nsyscalls = @file\naccess = read, stat\naction = allow\n");
	struct rules_event ev = { .nr = __NR_openat, .path = "/x" };
	struct rules_verdict vd;

	if (!rs)
		return;
	ev.access = RULES_ACC_READ;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	ev.access = RULES_ACC_STAT;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_ALLOW);
	ev.access = RULES_ACC_READ | RULES_ACC_WRITE;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	ev.access = 0;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_EQUAL(vd.action, RULES_DENY);
	rules_free(rs);
}

static void test_verdict_audit(void)
{
	static const struct {
		const char *level;
		bool allow_rule, deny_rule, quiet_allow, quiet_deny, def;
	} cases[] = {
		{ "all", true, true, false, false, true },
		{ "denied", false, true, false, true, true },
		{ "none", false, false, false, false, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct rules_set *rs;
		struct rules_event ev = { 0 };
		struct rules_verdict vd;

		snprintf(text, sizeof(text),
			 "[policy]\ndefault = kill\naudit = %s\n"
			 "[rule a]\nsyscalls = getpid\naction = allow\n"
			 "[rule d]\nsyscalls = getppid\naction = deny\n"
			 "[rule qa]\nsyscalls = gettid\naction = allow\naudit = no\n"
			 "[rule qd]\nsyscalls = getuid\naction = deny\naudit = no\n",
			 cases[i].level);
		rs = load_ok(text);
		if (!rs)
			continue;
		ev.nr = __NR_getpid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.audit, cases[i].allow_rule);
		ev.nr = __NR_getppid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.audit, cases[i].deny_rule);
		ev.nr = __NR_gettid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.audit, cases[i].quiet_allow);
		ev.nr = __NR_getuid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.audit, cases[i].quiet_deny);
		ev.nr = __NR_getgid;
		rules_match(rs, &ev, &vd);
		CU_ASSERT_EQUAL(vd.action, RULES_KILL);
		CU_ASSERT_EQUAL(vd.audit, cases[i].def);
		CU_ASSERT_EQUAL(rules_audit_level(rs), (enum rules_audit_level)i);
		rules_free(rs);
	}
}

static void test_match_addr(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\n"
		"[rule lo]\nsyscalls = connect, bind\naddr = 127.0.0.0/8, [::1]\naction = allow\n"
		"[rule net]\nsyscalls = @network\naction = deny\nerrno = ENETUNREACH\n");
	struct rules_event ev = { .nr = __NR_connect };
	struct rules_verdict vd;
	struct sa_buf b;

	if (!rs)
		return;
	mk_in4(&b, "0.0.0.0", 80);
	ev.addr = (struct sockaddr *)&b.ss;
	ev.addr_len = b.len;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "lo");
	/* bind to 0.0.0.0 listens on every interface. */
	ev.nr = __NR_bind;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "net");
	CU_ASSERT_EQUAL(vd.err, ENETUNREACH);
	mk_in6(&b, "::ffff:127.0.0.1", 80);
	ev.addr_len = b.len;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "lo");
	ev.addr = NULL;
	rules_match(rs, &ev, &vd);
	CU_ASSERT_STRING_EQUAL(vd.rule, "net");
	rules_free(rs);
}

/* ---------------------------------------------------------------------
 * The default policy.
 */

static void test_rewrite(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\n"
		"[rule scratch]\nsyscalls = @file\npath = /tmp/**\npath = /var/tmp/**\n"
		"action = rewrite\nredirect = ${CWD}/.scratch/\n"
		"[rule null]\nsyscalls = openat\npath = ${HOME}/.netrc\n"
		"action = rewrite\nredirect = /dev/null\n"
		"[rule cloexec]\nsyscalls = openat\npath = /work/**\n"
		"action = rewrite\narg2_set = O_CLOEXEC\narg2_clear = O_APPEND\narg3_value = 0600\n"
		"[rule proxy]\nsyscalls = connect\naddr = 0.0.0.0/0:80\n"
		"action = rewrite\nredirect = 127.0.0.1:3128\n"
		"[rule proxy6]\nsyscalls = connect\naddr = [2001:db8::]/32\n"
		"action = rewrite\nredirect = [::1]\n"
		"[rule back]\nsyscalls = @stat\npath = /srv/**\n"
		"action = rewrite\nredirect = /w/back\nredirect_if = exists\n");
	struct rules_event ev = { .nr = __NR_openat, .access = RULES_ACC_WRITE,
				  .path = "/tmp/a/b" };
	struct rules_verdict v;
	struct sockaddr_storage out;
	socklen_t out_len = 0;
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(443) };
	uint64_t args[6] = { 0, 0, O_WRONLY | O_APPEND, 0644, 0, 0 };
	char buf[64];

	if (!rs)
		return;
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_REWRITE);
	CU_ASSERT_STRING_EQUAL(v.rule, "scratch");
	CU_ASSERT_FALSE(rules_rewrite_if_exists(&v));
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, "/tmp/a/b", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/work/p/.scratch/a/b");
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, "/tmp", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/work/p/.scratch");
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, "/var/tmp/x", buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/work/p/.scratch/x");
	/* "/tmpx" is not under "/tmp/" "**". */
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, "/tmpx", buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, "/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", buf, sizeof(buf)),
			-ENAMETOOLONG);
	CU_ASSERT_FALSE(rules_rewrite_args(&v, args));
	CU_ASSERT_EQUAL(rules_rewrite_addr(&v, (struct sockaddr *)&in, sizeof(in), &out, &out_len), -ENOENT);
	CU_ASSERT_STRING_EQUAL(rules_rule_redirect_dir(rs, 0), "/work/p/.scratch");
	CU_ASSERT_PTR_NULL(rules_rule_redirect_dir(rs, 1));
	CU_ASSERT_PTR_NULL(rules_rule_redirect_dir(rs, 2));

	/* redirect_if = exists: the rule says so; the supervisor checks. */
	ev.nr = __NR_newfstatat;
	ev.access = RULES_ACC_STAT;
	ev.path = "/srv/x";
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "back");
	CU_ASSERT_TRUE(rules_rewrite_if_exists(&v));
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, ev.path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/w/back/x");
	rules_match_rewritten(rs, &ev, v.rule, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_FALSE(rules_rewrite_if_exists(&v));

	ev.nr = __NR_openat;
	ev.path = "/home/u/.netrc";
	ev.access = RULES_ACC_READ;
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "null");
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, ev.path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/dev/null");

	ev.path = "/work/f";
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "cloexec");
	CU_ASSERT_EQUAL(rules_rewrite_path(&v, ev.path, buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_TRUE(rules_rewrite_args(&v, args));
	CU_ASSERT_EQUAL(args[2], (uint64_t)(O_WRONLY | O_CLOEXEC));
	CU_ASSERT_EQUAL(args[3], 0600);
	CU_ASSERT_FALSE(rules_rewrite_args(&v, args));

	memset(&ev, 0, sizeof(ev));
	ev.nr = __NR_connect;
	ev.addr = (struct sockaddr *)&in;
	ev.addr_len = sizeof(in);
	inet_pton(AF_INET, "93.184.216.34", &in.sin_addr);
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "proxy");
	CU_ASSERT_EQUAL(rules_rewrite_addr(&v, ev.addr, ev.addr_len, &out, &out_len), 0);
	CU_ASSERT_EQUAL(out_len, sizeof(struct sockaddr_in));
	CU_ASSERT_EQUAL(((struct sockaddr_in *)&out)->sin_port, htons(3128));
	CU_ASSERT_EQUAL(((struct sockaddr_in *)&out)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	/* The same rule on an IPv6 socket (a mapped address): IPv4-mapped. */
	inet_pton(AF_INET6, "::ffff:93.184.216.34", &in6.sin6_addr);
	in6.sin6_port = htons(80);
	ev.addr = (struct sockaddr *)&in6;
	ev.addr_len = sizeof(in6);
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "proxy");
	CU_ASSERT_EQUAL(rules_rewrite_addr(&v, ev.addr, ev.addr_len, &out, &out_len), 0);
	CU_ASSERT_EQUAL(out_len, sizeof(struct sockaddr_in6));
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&out)->sin6_addr, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "::ffff:127.0.0.1");
	/* An IPv6 redirect without a port keeps the port; an AF_INET
	 * socket cannot reach it. */
	inet_pton(AF_INET6, "2001:db8::1", &in6.sin6_addr);
	in6.sin6_port = htons(443);
	rules_match(rs, &ev, &v);
	CU_ASSERT_STRING_EQUAL(v.rule, "proxy6");
	CU_ASSERT_EQUAL(rules_rewrite_addr(&v, ev.addr, ev.addr_len, &out, &out_len), 0);
	CU_ASSERT_EQUAL(((struct sockaddr_in6 *)&out)->sin6_port, htons(443));
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&out)->sin6_addr, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "::1");
	CU_ASSERT_EQUAL(rules_rewrite_addr(&v, (struct sockaddr *)&in, sizeof(in), &out, &out_len),
			-EAFNOSUPPORT);
	rules_free(rs);
}

static void test_default_policy(void)
{
	static const struct {
		int nr;
		unsigned access;
		const char *path;
		enum rules_action action;
		int err;
		const char *rule;
	} cases[] = {
		{ __NR_openat, RULES_ACC_READ, "/home/u/.ssh/id_ed25519", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_STAT, "/home/u/.ssh", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/home/u/.aws/credentials", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/home/u/.netrc", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/home/u/.docker/config.json", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/work/p/.env", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/work/p/sub/.env.production", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/etc/shadow", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_READ, "/etc/sudoers.d/x", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_execve, RULES_ACC_EXEC, "/home/u/.ssh/evil", RULES_DENY, EACCES, "no-secrets" },
		{ __NR_openat, RULES_ACC_WRITE, "/work/p/src/main.c", RULES_ALLOW, 0, "workdir" },
		{ __NR_unlink, RULES_ACC_DELETE, "/work/p/build/x.o", RULES_ALLOW, 0, "workdir" },
		{ __NR_mkdir, RULES_ACC_CREATE, "/work/p", RULES_ALLOW, 0, "workdir" },
		{ __NR_openat, RULES_ACC_CREATE, "/tmp/sg/x", RULES_ALLOW, 0, "workdir" },
		{ __NR_openat, RULES_ACC_WRITE, "/dev/null", RULES_ALLOW, 0, "devices" },
		{ __NR_openat, RULES_ACC_WRITE, "/dev/pts/3", RULES_ALLOW, 0, "devices" },
		{ __NR_openat, RULES_ACC_WRITE, "/dev/sda", RULES_DENY, EACCES, "no-writes-elsewhere" },
		{ __NR_openat, RULES_ACC_READ, "/etc/passwd", RULES_ALLOW, 0, "read-anywhere" },
		{ __NR_openat, RULES_ACC_READ, "/proc/123/status", RULES_ALLOW, 0, "read-anywhere" },
		{ __NR_openat, RULES_ACC_WRITE, "/proc/123/mem", RULES_DENY, EACCES, "no-writes-elsewhere" },
		{ __NR_openat, RULES_ACC_WRITE, "/etc/passwd", RULES_DENY, EACCES, "no-writes-elsewhere" },
		{ __NR_rename, RULES_ACC_CREATE, "/home/u/x", RULES_DENY, EACCES, "no-writes-elsewhere" },
		{ __NR_chmod, RULES_ACC_WRITE, "/usr/bin/ls", RULES_DENY, EACCES, "no-writes-elsewhere" },
		{ __NR_execve, RULES_ACC_EXEC, "/usr/bin/python3.11", RULES_ALLOW, 0, "exec-installed" },
		{ __NR_execveat, RULES_ACC_EXEC, "/work/p/build/test", RULES_ALLOW, 0, "exec-installed" },
		{ __NR_execve, RULES_ACC_EXEC, "/home/u/.cargo/bin/cargo", RULES_ALLOW, 0, "exec-installed" },
		{ __NR_execve, RULES_ACC_EXEC, "/srv/x", RULES_DENY, EACCES, "no-other-exec" },
		{ __NR_execve, RULES_ACC_EXEC, "/home/u/bin/x", RULES_DENY, EACCES, "no-other-exec" },
		{ __NR_ptrace, 0, NULL, RULES_DENY, EPERM, "no-escape" },
		{ __NR_io_uring_setup, 0, NULL, RULES_DENY, EPERM, "no-escape" },
		{ __NR_unshare, 0, NULL, RULES_DENY, EPERM, "no-escape" },
		{ __NR_getpid, 0, NULL, RULES_ALLOW, 0, NULL },
		{ __NR_clone, 0, NULL, RULES_ALLOW, 0, NULL },
	};
	struct rules_set *rs = NULL;
	char err[RULES_ERR_MAX];
	size_t i;
	int rc = rules_load_default(&vars, &rs, err, sizeof(err));

	if (rc)
		fprintf(stderr, "\ndefault policy: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(rules_source(rs), "<default>");
	CU_ASSERT_PTR_NOT_NULL(strstr(rules_default_text(), "[rule no-secrets]"));
	CU_ASSERT_EQUAL(rules_audit_level(rs), RULES_AUDIT_ALL);
	/* No stacks: runs under it never load libunwind. */
	CU_ASSERT_FALSE(rules_wants_stacks(rs));
	CU_ASSERT_FALSE(rules_wants_stacks(NULL));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_event ev = { .nr = cases[i].nr,
					  .access = cases[i].access,
					  .path = cases[i].path };
		struct rules_verdict vd;

		rules_match(rs, &ev, &vd);
		if (vd.action != cases[i].action ||
		    (cases[i].rule == NULL) != (vd.rule == NULL) ||
		    (vd.rule && strcmp(vd.rule, cases[i].rule)))
			fprintf(stderr, "\ndefault case %zu (%s): got %s by %s\n",
				i, cases[i].path ? cases[i].path : "-",
				rules_action_name(vd.action),
				vd.rule ? vd.rule : "(default)");
		CU_ASSERT_EQUAL(vd.action, cases[i].action);
		CU_ASSERT_EQUAL(vd.err, cases[i].err);
		if (cases[i].rule) {
			CU_ASSERT_STRING_EQUAL(vd.rule ? vd.rule : "", cases[i].rule);
		} else {
			CU_ASSERT_PTR_NULL(vd.rule);
		}
		CU_ASSERT_TRUE(vd.audit);
	}
	/* Network. */
	{
		static const struct {
			int nr;
			char kind;
			const char *addr;
			bool allow;
		} net[] = {
			{ __NR_connect, '4', "127.0.0.1", true },
			{ __NR_connect, '4', "0.0.0.0", true },
			{ __NR_connect, '6', "::1", true },
			{ __NR_connect, '6', "::ffff:127.0.0.53", true },
			{ __NR_connect, '4', "8.8.8.8", false },
			{ __NR_connect, '6', "2001:db8::1", false },
			{ __NR_bind, '4', "0.0.0.0", false },
			{ __NR_bind, '4', "127.0.0.1", true },
			{ __NR_connect, 'u', "/run/dbus/system_bus_socket", true },
			{ __NR_connect, 'u', "@abstract", true },
			{ __NR_bind, 'u', NULL, true },
		};

		for (i = 0; i < sizeof(net) / sizeof(net[0]); i++) {
			struct rules_event ev = { .nr = net[i].nr };
			struct rules_verdict vd;
			struct sa_buf b;

			if (net[i].kind == '4')
				mk_in4(&b, net[i].addr, 80);
			else if (net[i].kind == '6')
				mk_in6(&b, net[i].addr, 80);
			else
				mk_un(&b, net[i].addr);
			ev.addr = (struct sockaddr *)&b.ss;
			ev.addr_len = b.len;
			rules_match(rs, &ev, &vd);
			CU_ASSERT_EQUAL(vd.action, net[i].allow ? RULES_ALLOW :
								  RULES_DENY);
			CU_ASSERT_STRING_EQUAL(vd.rule, net[i].allow ? "loopback" :
								       "no-network");
			CU_ASSERT_EQUAL(vd.err, net[i].allow ? 0 : ENETUNREACH);
		}
	}
	/* Mechanisms. */
	{
		enum rules_action ka = RULES_KILL;

		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_openat, NULL), RULES_MECH_NOTIFY);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_execve, NULL), RULES_MECH_NOTIFY);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_connect, NULL), RULES_MECH_NOTIFY);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_ptrace, NULL), RULES_MECH_NOTIFY);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_read, &ka), RULES_MECH_KERNEL);
		CU_ASSERT_EQUAL(ka, RULES_ALLOW);
	}
	/* No call can change a root (the supervisor then keeps each
	 * task's root: resolve.c). */
	CU_ASSERT_TRUE(rules_never_allows(rs, __NR_chroot));
	CU_ASSERT_TRUE(rules_never_allows(rs, __NR_pivot_root));
	CU_ASSERT_TRUE(rules_never_allows(rs, __NR_setns));
	CU_ASSERT_TRUE(rules_never_allows(rs, __NR_unshare));
	CU_ASSERT_FALSE(rules_never_allows(rs, __NR_read));
	CU_ASSERT_FALSE(rules_never_allows(rs, __NR_openat));
	rules_free(rs);

	/* The default policy needs its variables. */
	rs = NULL;
	CU_ASSERT_EQUAL(rules_load_default(NULL, &rs, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "<default>:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not set"));
}

/* ---------------------------------------------------------------------
 * Mechanisms.
 */

static void test_mechanism(void)
{
	static const struct {
		const char *text;
		int nr;
		enum rules_mech mech;
		enum rules_action kernel_action; /* when KERNEL */
	} cases[] = {
		/* Unnamed syscalls: the default. */
		{ "[policy]\ndefault = allow\n", __NR_getpid, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\ndefault = deny\naudit = none\n", __NR_getpid, RULES_MECH_KERNEL, RULES_DENY },
		{ "[policy]\ndefault = deny\naudit = all\n", __NR_getpid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = kill\naudit = denied\n", __NR_getpid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = all\n", __NR_getpid, RULES_MECH_KERNEL, RULES_ALLOW },
		/* What the supervisor keeps per task (cwd, umask, --user's
		 * credentials) and signals: always notified, named or not,
		 * recorded or not. */
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_chdir, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_fchdir, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_umask, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_kill, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setuid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setresgid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setfsuid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setfsgid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setgroups, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_capset, RULES_MECH_NOTIFY, 0 },
		/* sched_setaffinity: supervisor/cpubind.c must see each. */
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_sched_setaffinity, RULES_MECH_NOTIFY, 0 },
		/* A root move the policy may allow: supervisor/resolve.c keeps
		 * roots and cwds and must see each; one it never allows is
		 * decided in the kernel as any other. */
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_chroot, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_pivot_root, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_setns, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n", __NR_unshare, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = deny\naudit = none\n", __NR_unshare, RULES_MECH_KERNEL, RULES_DENY },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = chroot\naction = deny\n",
		  __NR_chroot, RULES_MECH_KERNEL, RULES_DENY },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = setns\narg1 = CLONE_NEWNET\naction = deny\n",
		  __NR_setns, RULES_MECH_NOTIFY, 0 },
		/* One unconditional rule: recorded or not. */
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = getppid\naction = deny\n",
		  __NR_getppid, RULES_MECH_KERNEL, RULES_DENY },
		{ "[policy]\naudit = all\n[rule a]\nsyscalls = getppid\naction = deny\n",
		  __NR_getppid, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\naudit = all\n[rule a]\nsyscalls = getppid\naction = deny\naudit = no\n",
		  __NR_getppid, RULES_MECH_KERNEL, RULES_DENY },
		{ "[policy]\naudit = denied\n[rule a]\nsyscalls = getppid\naction = allow\n",
		  __NR_getppid, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\naudit = denied\n[rule a]\nsyscalls = getppid\naction = kill\n",
		  __NR_getppid, RULES_MECH_NOTIFY, 0 },
		/* stack = yes: a stack goes into a record, so it is taken where
		 * the decision is recorded, which is always notified. */
		{ "[policy]\ndefault = allow\naudit = all\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = allow\nstack = yes\n",
		  __NR_socket, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = denied\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = deny\nstack = yes\n",
		  __NR_socket, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = deny\nstack = yes\n",
		  __NR_socket, RULES_MECH_KERNEL, RULES_ALLOW },
		/* Pointer conditions always notify. */
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = openat\npath = /x\naction = deny\n",
		  __NR_openat, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = openat\naccess = read\naction = allow\n",
		  __NR_openat, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = connect\naddr = [::1]\naction = allow\n",
		  __NR_connect, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = getpid\nexe = /x\naction = allow\n",
		  __NR_getpid, RULES_MECH_NOTIFY, 0 },
		/* Scalar conditions. */
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = deny\n",
		  __NR_socket, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\ndefault = allow\naudit = all\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = deny\naudit = no\n",
		  __NR_socket, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = denied\n[rule a]\nsyscalls = socket\narg0 = AF_INET\naction = allow\n",
		  __NR_socket, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = socket\narg0 = != AF_INET\naction = deny\n",
		  __NR_socket, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = mmap\narg1 = != 5\naction = deny\n",
		  __NR_mmap, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = clone\narg0 = & CLONE_NEWUSER\naction = deny\n",
		  __NR_clone, RULES_MECH_KERNEL, RULES_ALLOW },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = clone\narg0 = & CLONE_NEWUSER|CLONE_NEWNS\naction = deny\n",
		  __NR_clone, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\ndefault = allow\naudit = none\n[rule a]\nsyscalls = getpriority\narg0 = 1\naction = deny\n",
		  __NR_getpriority, RULES_MECH_NOTIFY, 0 },
		/* Several rules. */
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = socket\narg0 = 1\naction = deny\n"
		  "[rule b]\nsyscalls = socket\narg0 = 2\naction = deny\n",
		  __NR_socket, RULES_MECH_NOTIFY, 0 },
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = socket\naction = kill\n"
		  "[rule b]\nsyscalls = socket\narg0 = 2\naction = deny\n",
		  __NR_socket, RULES_MECH_KERNEL, RULES_KILL },
		{ "[policy]\naudit = none\n[rule a]\nsyscalls = socket\naction = allow\n"
		  "[rule b]\nsyscalls = socket, getppid\naction = deny\n",
		  __NR_getppid, RULES_MECH_KERNEL, RULES_DENY },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_set *rs = load_ok(cases[i].text);
		enum rules_action ka = (enum rules_action)99;
		enum rules_mech m;

		if (!rs)
			continue;
		m = rules_mechanism(rs, cases[i].nr, &ka);
		if (m != cases[i].mech)
			fprintf(stderr, "\nmechanism case %zu: got %d\n", i, m);
		CU_ASSERT_EQUAL(m, cases[i].mech);
		if (cases[i].mech == RULES_MECH_KERNEL) {
			CU_ASSERT_EQUAL(ka, cases[i].kernel_action);
		} else {
			CU_ASSERT_EQUAL(ka, (enum rules_action)99);
		}
		rules_free(rs);
	}

	/* rules_never_allows(): every rule that may decide denies or kills. */
	{
		static const struct {
			const char *text;
			int nr;
			bool never;
		} nv[] = {
			{ "[policy]\ndefault = allow\n", __NR_chroot, false },
			{ "[policy]\ndefault = deny\n", __NR_chroot, true },
			{ "[policy]\ndefault = kill\n", __NR_chroot, true },
			{ "[policy]\ndefault = allow\n[rule a]\nsyscalls = chroot\naction = deny\n",
			  __NR_chroot, true },
			{ "[policy]\ndefault = allow\n[rule a]\nsyscalls = unshare\narg0 = & CLONE_NEWNS\naction = deny\n",
			  __NR_unshare, false },
			{ "[policy]\ndefault = deny\n[rule a]\nsyscalls = unshare\narg0 = & CLONE_NEWNS\naction = deny\n",
			  __NR_unshare, true },
			{ "[policy]\ndefault = deny\n[rule a]\nsyscalls = unshare\narg0 = 0\naction = allow\n",
			  __NR_unshare, false },
			{ "[policy]\ndefault = deny\n[rule a]\nsyscalls = setns\naction = ask\n",
			  __NR_setns, false },
			{ "[policy]\ndefault = allow\n[rule a]\nsyscalls = setns\naction = kill\n"
			  "[rule b]\nsyscalls = setns\naction = allow\n", __NR_setns, true },
			{ "[policy]\ndefault = deny\n[rule a]\nsyscalls = pivot_root\narg0 = 1\naction = deny\n"
			  "[rule b]\nsyscalls = pivot_root\naction = allow\n", __NR_pivot_root, false },
		};

		for (i = 0; i < sizeof(nv) / sizeof(nv[0]); i++) {
			struct rules_set *rs = load_ok(nv[i].text);

			if (!rs)
				continue;
			if (rules_never_allows(rs, nv[i].nr) != nv[i].never)
				fprintf(stderr, "\nnever-allows case %zu wrong\n", i);
			CU_ASSERT_EQUAL(rules_never_allows(rs, nv[i].nr), nv[i].never);
			rules_free(rs);
		}
	}
}

/* ---------------------------------------------------------------------
 * The syscall table against libseccomp.
 */

static void test_syscall_table(void)
{
	static const struct {
		const char *name;
		enum rules_kind kind;
		unsigned access;
		signed char p0, d0, p1, d1, addr, addrlen;
	} want[] = {
		{ "open", RULES_KIND_PATH, 0x27, 0, -1, -1, -1, -1, -1 },
		{ "openat", RULES_KIND_PATH, 0x27, 1, 0, -1, -1, -1, -1 },
		{ "openat2", RULES_KIND_PATH, 0x27, 1, 0, -1, -1, -1, -1 },
		{ "creat", RULES_KIND_PATH, 0x27, 0, -1, -1, -1, -1, -1 },
		{ "mkdir", RULES_KIND_PATH, RULES_ACC_CREATE, 0, -1, -1, -1, -1, -1 },
		{ "mkdirat", RULES_KIND_PATH, RULES_ACC_CREATE, 1, 0, -1, -1, -1, -1 },
		{ "mknod", RULES_KIND_PATH, RULES_ACC_CREATE, 0, -1, -1, -1, -1, -1 },
		{ "mknodat", RULES_KIND_PATH, RULES_ACC_CREATE, 1, 0, -1, -1, -1, -1 },
		{ "rmdir", RULES_KIND_PATH, RULES_ACC_DELETE, 0, -1, -1, -1, -1, -1 },
		{ "unlink", RULES_KIND_PATH, RULES_ACC_DELETE, 0, -1, -1, -1, -1, -1 },
		{ "unlinkat", RULES_KIND_PATH, RULES_ACC_DELETE, 1, 0, -1, -1, -1, -1 },
		{ "rename", RULES_KIND_PATH, 0xe, 0, -1, 1, -1, -1, -1 },
		{ "renameat", RULES_KIND_PATH, 0xe, 1, 0, 3, 2, -1, -1 },
		{ "renameat2", RULES_KIND_PATH, 0xe, 1, 0, 3, 2, -1, -1 },
		{ "link", RULES_KIND_PATH, 0x6, 0, -1, 1, -1, -1, -1 },
		{ "linkat", RULES_KIND_PATH, 0x6, 1, 0, 3, 2, -1, -1 },
		{ "symlink", RULES_KIND_PATH, RULES_ACC_CREATE, 1, -1, -1, -1, -1, -1 },
		{ "symlinkat", RULES_KIND_PATH, RULES_ACC_CREATE, 2, 1, -1, -1, -1, -1 },
		{ "chmod", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "fchmodat", RULES_KIND_PATH, RULES_ACC_WRITE, 1, 0, -1, -1, -1, -1 },
		{ "fchmodat2", RULES_KIND_PATH, RULES_ACC_WRITE, 1, 0, -1, -1, -1, -1 },
		{ "chown", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "lchown", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "fchownat", RULES_KIND_PATH, RULES_ACC_WRITE, 1, 0, -1, -1, -1, -1 },
		{ "truncate", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "setxattr", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "lsetxattr", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "removexattr", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "lremovexattr", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "utime", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "utimes", RULES_KIND_PATH, RULES_ACC_WRITE, 0, -1, -1, -1, -1, -1 },
		{ "futimesat", RULES_KIND_PATH, RULES_ACC_WRITE, 1, 0, -1, -1, -1, -1 },
		{ "utimensat", RULES_KIND_PATH, RULES_ACC_WRITE, 1, 0, -1, -1, -1, -1 },
		{ "stat", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "lstat", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "newfstatat", RULES_KIND_PATH, RULES_ACC_STAT, 1, 0, -1, -1, -1, -1 },
		{ "statx", RULES_KIND_PATH, RULES_ACC_STAT, 1, 0, -1, -1, -1, -1 },
		{ "access", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "fchmod", RULES_KIND_PATH, RULES_ACC_WRITE, -1, 0, -1, -1, -1, -1 },
		{ "fchown", RULES_KIND_PATH, RULES_ACC_WRITE, -1, 0, -1, -1, -1, -1 },
		{ "fsetxattr", RULES_KIND_PATH, RULES_ACC_WRITE, -1, 0, -1, -1, -1, -1 },
		{ "fremovexattr", RULES_KIND_PATH, RULES_ACC_WRITE, -1, 0, -1, -1, -1, -1 },
		{ "faccessat", RULES_KIND_PATH, RULES_ACC_STAT, 1, 0, -1, -1, -1, -1 },
		{ "faccessat2", RULES_KIND_PATH, RULES_ACC_STAT, 1, 0, -1, -1, -1, -1 },
		{ "readlink", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "readlinkat", RULES_KIND_PATH, RULES_ACC_STAT, 1, 0, -1, -1, -1, -1 },
		{ "chdir", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "statfs", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "getxattr", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "lgetxattr", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "listxattr", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "llistxattr", RULES_KIND_PATH, RULES_ACC_STAT, 0, -1, -1, -1, -1, -1 },
		{ "inotify_add_watch", RULES_KIND_PATH, RULES_ACC_STAT, 1, -1, -1, -1, -1, -1 },
		{ "fanotify_mark", RULES_KIND_PATH, RULES_ACC_STAT, 4, 3, -1, -1, -1, -1 },
		{ "execve", RULES_KIND_EXEC, RULES_ACC_EXEC, 0, -1, -1, -1, -1, -1 },
		{ "execveat", RULES_KIND_EXEC, RULES_ACC_EXEC, 1, 0, -1, -1, -1, -1 },
		{ "connect", RULES_KIND_NET, 0, -1, -1, -1, -1, 1, 2 },
		{ "bind", RULES_KIND_NET, 0, -1, -1, -1, -1, 1, 2 },
		{ "sendto", RULES_KIND_NET, 0, -1, -1, -1, -1, 4, 5 },
		{ "sendmsg", RULES_KIND_NET, 0, -1, -1, -1, -1, -1, -1 },
		{ "sendmmsg", RULES_KIND_NET, 0, -1, -1, -1, -1, -1, -1 },
	};
	size_t i, n_special = 0;
	int nr;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct rules_syscall_info *si =
			rules_syscall_by_name(want[i].name);
		int lib = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64,
							    want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(si);
		CU_ASSERT_EQUAL(si->nr, lib);
		CU_ASSERT_PTR_EQUAL(rules_syscall_by_nr(si->nr), si);
		CU_ASSERT_EQUAL(si->kind, want[i].kind);
		CU_ASSERT_EQUAL(si->access, want[i].access);
		CU_ASSERT_EQUAL(si->path_arg[0], want[i].p0);
		CU_ASSERT_EQUAL(si->dirfd_arg[0], want[i].d0);
		CU_ASSERT_EQUAL(si->path_arg[1], want[i].p1);
		CU_ASSERT_EQUAL(si->dirfd_arg[1], want[i].d1);
		CU_ASSERT_EQUAL(si->addr_arg, want[i].addr);
		CU_ASSERT_EQUAL(si->addrlen_arg, want[i].addrlen);
	}
	/* Every number libseccomp names is in the table under that name;
	 * everything else (but the hand-written ones above) is SCALAR. */
	for (nr = 0; nr < RULES_NR_MAX; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		const struct rules_syscall_info *si = rules_syscall_by_nr(nr);

		if (name) {
			CU_ASSERT_PTR_NOT_NULL(si);
			if (si) {
				CU_ASSERT_STRING_EQUAL(si->name, name);
				CU_ASSERT_EQUAL(si->nr, nr);
				CU_ASSERT_PTR_EQUAL(rules_syscall_by_name(name), si);
				CU_ASSERT_STRING_EQUAL(rules_syscall_name(nr), name);
			}
		}
		free(name);
		if (si && si->kind != RULES_KIND_SCALAR)
			n_special++;
		if (si && si->kind == RULES_KIND_SCALAR) {
			CU_ASSERT_EQUAL(si->path_arg[0], -1);
			CU_ASSERT_EQUAL(si->addr_arg, -1);
			CU_ASSERT_EQUAL(si->access, 0);
		}
	}
	CU_ASSERT_EQUAL(n_special, sizeof(want) / sizeof(want[0]));
	/* Numbers newer than libseccomp 2.5.4. */
	CU_ASSERT_STRING_EQUAL(rules_syscall_name(462), "mseal");
	CU_ASSERT_STRING_EQUAL(rules_syscall_name(457), "statmount");
	CU_ASSERT_STRING_EQUAL(rules_syscall_name(467), "open_tree_attr");
	CU_ASSERT_EQUAL(rules_syscall_by_name("open_tree_attr")->kind, RULES_KIND_SCALAR);
	CU_ASSERT_STRING_EQUAL(rules_syscall_name(468), "file_getattr");
	CU_ASSERT_STRING_EQUAL(rules_syscall_name(469), "file_setattr");
	CU_ASSERT_PTR_NULL(rules_syscall_by_nr(470));
	CU_ASSERT_PTR_NULL(rules_syscall_by_nr(-1));
	CU_ASSERT_PTR_NULL(rules_syscall_by_nr(0x40000000));
	CU_ASSERT_PTR_NULL(rules_syscall_name(400));
	CU_ASSERT_PTR_NULL(rules_syscall_by_name("nope"));
	CU_ASSERT_PTR_NULL(rules_syscall_by_name(NULL));
}

static void test_groups(void)
{
	uint64_t set[RULES_NR_WORDS] = { 0 };
	int nr, n = 0;

	uint64_t stat_set[RULES_NR_WORDS] = { 0 };
	int n_stat = 0;

	/* Every path syscall is in exactly one of @file (opens and changes)
	 * and @stat (looking at a path). */
	CU_ASSERT_EQUAL(rules_group_lookup("@file", set), 0);
	CU_ASSERT_EQUAL(rules_group_lookup("@stat", stat_set), 0);
	for (nr = 0; nr < RULES_NR_MAX; nr++) {
		const struct rules_syscall_info *si = rules_syscall_by_nr(nr);
		bool path = si && si->kind == RULES_KIND_PATH;

		CU_ASSERT_EQUAL(rules_nr_has(set, nr) || rules_nr_has(stat_set, nr),
				path);
		CU_ASSERT_FALSE(rules_nr_has(set, nr) && rules_nr_has(stat_set, nr));
		n += rules_nr_has(set, nr);
		n_stat += rules_nr_has(stat_set, nr);
	}
	CU_ASSERT_EQUAL(n, 37);
	CU_ASSERT_EQUAL(n_stat, 17);
	CU_ASSERT_TRUE(rules_nr_has(stat_set, __NR_newfstatat));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_utimensat));
	/* Changes through an open file are changes too. */
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_fchmod));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_fchown));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_fsetxattr));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_fremovexattr));
	CU_ASSERT_FALSE(rules_nr_has(set, __NR_fgetxattr));
	memset(set, 0, sizeof(set));
	CU_ASSERT_EQUAL(rules_group_lookup("@privileged", set), 0);
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_ptrace));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_io_uring_setup));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_setns));
	CU_ASSERT_TRUE(rules_nr_has(set, 467)); /* open_tree_attr, raw */
	CU_ASSERT_FALSE(rules_nr_has(set, __NR_getpid));
	memset(set, 0, sizeof(set));
	CU_ASSERT_EQUAL(rules_group_lookup("@process", set), 0);
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_clone3));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_prctl));
	memset(set, 0, sizeof(set));
	CU_ASSERT_EQUAL(rules_group_lookup("@network", set), 0);
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_connect));
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_bind));
	CU_ASSERT_FALSE(rules_nr_has(set, __NR_socket));
	CU_ASSERT_EQUAL(rules_group_lookup("@exec", set), 0);
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_execveat));
	/* A lookup adds to the set, and looks the same the next time (the
	 * numbers are looked up once, rules/syscalls.c). */
	CU_ASSERT_TRUE(rules_nr_has(set, __NR_connect));
	memset(stat_set, 0, sizeof(stat_set));
	CU_ASSERT_EQUAL(rules_group_lookup("@network", stat_set), 0);
	CU_ASSERT_EQUAL(rules_group_lookup("@exec", stat_set), 0);
	CU_ASSERT_EQUAL(memcmp(set, stat_set, sizeof(set)), 0);
	CU_ASSERT_EQUAL(rules_group_lookup("@nope", set), -ENOENT);
}

/* Actions are ordered by strictness by value, ask below deny. */
static void test_action_order(void)
{
	CU_ASSERT(RULES_ALLOW < RULES_REWRITE);
	CU_ASSERT(RULES_REWRITE < RULES_ASK);
	CU_ASSERT(RULES_ASK < RULES_DENY);
	CU_ASSERT(RULES_DENY < RULES_KILL);
	for (int a = RULES_ALLOW; a <= RULES_KILL; a++)
		CU_ASSERT_EQUAL(rules_action_rank((enum rules_action)a), a);
	CU_ASSERT_EQUAL(rules_action_rank((enum rules_action)99), RULES_KILL);
}

static void test_names(void)
{
	CU_ASSERT_EQUAL(rules_errno_by_name("EACCES"), EACCES);
	CU_ASSERT_EQUAL(rules_errno_by_name("ENETUNREACH"), ENETUNREACH);
	CU_ASSERT_EQUAL(rules_errno_by_name("EWOULDBLOCK"), EAGAIN);
	CU_ASSERT_EQUAL(rules_errno_by_name("eacces"), -1);
	CU_ASSERT_EQUAL(rules_errno_by_name(NULL), -1);
	CU_ASSERT_STRING_EQUAL(rules_errno_name(EAGAIN), "EAGAIN");
	CU_ASSERT_STRING_EQUAL(rules_errno_name(EXDEV), "EXDEV");
	CU_ASSERT_PTR_NULL(rules_errno_name(0));
	CU_ASSERT_PTR_NULL(rules_errno_name(9999));
	CU_ASSERT_STRING_EQUAL(rules_action_name(RULES_ALLOW), "allow");
	CU_ASSERT_STRING_EQUAL(rules_action_name(RULES_DENY), "deny");
	CU_ASSERT_STRING_EQUAL(rules_action_name(RULES_KILL), "kill");
	CU_ASSERT_STRING_EQUAL(rules_action_name(RULES_REWRITE), "rewrite");
	CU_ASSERT_STRING_EQUAL(rules_access_name(RULES_ACC_DELETE), "delete");
	CU_ASSERT_STRING_EQUAL(rules_access_name(RULES_ACC_STAT), "stat");
	CU_ASSERT_PTR_NULL(rules_access_name(RULES_ACC_READ | RULES_ACC_WRITE));
	CU_ASSERT_EQUAL(rules_edit_distance("opne", "open"), 1);
	CU_ASSERT_EQUAL(rules_edit_distance("kitten", "sitting"), 3);
}

/* ---------------------------------------------------------------------
 * The filters, loaded in forked children.
 */

#define CHILD_OK 0
/* Each check a child fails exits with its own code. */

static int load_raw(struct sock_fprog *prog)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

/* Run fn in a child with prog loaded; returns the wait status. */
static int run_child(struct sock_fprog *prog, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		if (load_raw(prog) != 0)
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static long expect_fail(long rc, int err)
{
	return rc == -1 && errno == err;
}

static int guard_child(void *arg)
{
	pid_t pid;
	int st;

	(void)arg;
	if (!expect_fail(syscall(__NR_clone3, NULL, 0), ENOSYS))
		return 1;
	if (!expect_fail(syscall(__NR_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0),
			 EPERM))
		return 2;
	if (!expect_fail(syscall(__NR_clone,
				 (uint64_t)0xffffffff00000000ull | CLONE_UNTRACED | SIGCHLD,
				 0, 0, 0, 0), EPERM))
		return 3;
	if (syscall(__NR_getppid) <= 0)
		return 4;
	/* A plain fork (clone without CLONE_UNTRACED) still works. */
	pid = (pid_t)syscall(__NR_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(7);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 7)
		return 5;
	return CHILD_OK;
}

static int x32_child(void *arg)
{
	(void)arg;
	syscall(0x40000000 | __NR_getpid);
	return 1; /* not reached: killed */
}

static void test_guard_filter(void)
{
	struct sock_fprog prog = { 0 };
	int st;

	CU_ASSERT_EQUAL_FATAL(rules_build_guard_filter(&prog), 0);
	CU_ASSERT(prog.len > 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(prog.filter);
	st = run_child(&prog, guard_child, NULL);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), CHILD_OK);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "\nguard child status 0x%x\n", st);
	st = run_child(&prog, x32_child, NULL);
	CU_ASSERT(WIFSIGNALED(st));
	CU_ASSERT_EQUAL(WTERMSIG(st), SIGSYS);
	free(prog.filter);
	CU_ASSERT_EQUAL(rules_build_guard_filter(NULL), -EINVAL);
}

static int policy_child(void *arg)
{
	(void)arg;
	if (!expect_fail(syscall(__NR_getppid), EXDEV))
		return 1;
	if (syscall(__NR_getpid) <= 0)
		return 2;
	/* socket: the domain compared on its low 32 bits. */
	if (!expect_fail(syscall(__NR_socket, AF_INET, SOCK_STREAM, 0), EAFNOSUPPORT))
		return 3;
	if (!expect_fail(syscall(__NR_socket, 0xffffffff00000000ull | AF_INET,
				 SOCK_STREAM, 0), EAFNOSUPPORT))
		return 4;
	{
		long fd = syscall(__NR_socket, AF_UNIX, SOCK_STREAM, 0);

		if (fd < 0)
			return 5;
		close((int)fd);
	}
	/* 64-bit compare on mmap's length. */
	if (!expect_fail(syscall(__NR_mmap, 0, 0x100000000ull, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), EDOM))
		return 6;
	/* The guard inside the policy filter. */
	if (!expect_fail(syscall(__NR_clone3, NULL, 0), ENOSYS))
		return 7;
	if (!expect_fail(syscall(__NR_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0),
			 EPERM))
		return 8;
	/* openat from AT_FDCWD (int) for writing is refused. */
	if (!expect_fail(syscall(__NR_openat, AT_FDCWD, "/nonexistent/x",
				 O_WRONLY | O_CREAT, 0600), EROFS))
		return 9;
	if (!expect_fail(syscall(__NR_openat, AT_FDCWD, "/nonexistent/x",
				 O_RDONLY), ENOENT))
		return 10;
	return CHILD_OK;
}

static int kill_child(void *arg)
{
	(void)arg;
	syscall(__NR_getppid);
	return 1;
}

static void test_policy_filter(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\naudit = none\n"
		"[rule a]\nsyscalls = getppid\naction = deny\nerrno = EXDEV\n"
		"[rule b]\nsyscalls = socket\narg0 = AF_INET\naction = deny\nerrno = EAFNOSUPPORT\n"
		"[rule c]\nsyscalls = mmap\narg1 = >= 0x100000000\naction = deny\nerrno = EDOM\n"
		"[rule d]\nsyscalls = openat\narg0 = AT_FDCWD\narg2 = & O_ACCMODE == O_WRONLY\n"
		"action = deny\nerrno = EROFS\n");
	struct sock_fprog prog = { 0 };
	int st;

	if (!rs)
		return;
	CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_openat, NULL), RULES_MECH_KERNEL);
	CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
	st = run_child(&prog, policy_child, NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "\npolicy child status 0x%x\n", st);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), CHILD_OK);
	st = run_child(&prog, x32_child, NULL);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
	free(prog.filter);
	rules_free(rs);

	/* A kill in the kernel. */
	rs = load_ok("[policy]\ndefault = allow\naudit = none\n"
		     "[rule a]\nsyscalls = getppid\naction = kill\n");
	if (!rs)
		return;
	CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
	st = run_child(&prog, kill_child, NULL);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS);
	free(prog.filter);
	rules_free(rs);
	CU_ASSERT_EQUAL(rules_build_filter(NULL, &prog), -EINVAL);
}

/* The default policy compiles, and its BPF can be simulated on the
 * decisions it makes in the kernel; notified calls without a listener
 * fail with ENOSYS. */
static int default_child(void *arg)
{
	(void)arg;
	if (!expect_fail(syscall(__NR_openat, AT_FDCWD, "/", O_RDONLY), ENOSYS))
		return 1;
	if (!expect_fail(syscall(__NR_ptrace, 0, 0, 0, 0), ENOSYS))
		return 2;
	if (syscall(__NR_getppid) <= 0)
		return 3;
	if (!expect_fail(syscall(__NR_clone3, NULL, 0), ENOSYS))
		return 4;
	return CHILD_OK;
}

static void test_default_filter(void)
{
	struct rules_set *rs = NULL;
	struct sock_fprog prog = { 0 };
	char err[RULES_ERR_MAX];
	int st;

	CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
	st = run_child(&prog, default_child, NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "\ndefault child status 0x%x\n", st);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), CHILD_OK);
	free(prog.filter);
	rules_free(rs);
}

/*
 * Where rules_filter_has_guards() says the policy filter holds the guards,
 * stacking the guard filter under it changes no decision: every syscall
 * number (and x32 and out-of-range ones, and another arch), with argument
 * values around every guard's and the owner commands'.  The built-in and
 * shipped policies hold them (sysgate then loads one filter); some
 * policies cannot, and say so.
 */
static void test_filter_holds_guards(void)
{
	static const char *const shipped[] = { "default", "strict", "build",
					       "python", "node" };
	static const struct {
		const char *text;
		bool holds;
	} crafted[] = {
		{ "[policy]\ndefault = deny\nerrno = EPERM\naudit = none\n", true },
		{ "[policy]\ndefault = kill\naudit = none\n"
		  "[rule r]\nsyscalls = clone, read, write\naction = allow\n", true },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule c]\nsyscalls = clone\naction = kill\n", true },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule c]\nsyscalls = clone\narg2 = 0\naction = deny\nerrno = EAGAIN\n", true },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule x]\nsyscalls = setxattrat, getxattrat\naction = deny\nerrno = EXDEV\n"
		  "[rule y]\nsyscalls = listxattrat\naction = allow\n", true },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule i]\nsyscalls = ioctl\naction = deny\nerrno = ENOTTY\n", false },
		/* clone's own arg0 condition; a conditional kill of clone;
		 * ioctl decided by the supervisor (named, or every call by a
		 * recorded deny default). */
		{ "[policy]\ndefault = deny\naudit = all\n", false },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule c]\nsyscalls = clone\narg0 = & CLONE_THREAD == CLONE_THREAD\naction = deny\n", false },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule c]\nsyscalls = clone\narg2 = 0\naction = kill\n", false },
		{ "[policy]\ndefault = allow\naudit = all\n"
		  "[rule i]\nsyscalls = ioctl\naction = allow\n", false },
	};
	static const uint64_t vals[] = {
		0, 1, 8, 15, CLONE_UNTRACED, CLONE_UNTRACED | SIGCHLD,
		CLONE_THREAD | CLONE_UNTRACED, 0xffffffff00000000ull | CLONE_UNTRACED,
		0x5412, 0x541C, 0x100005412ull, 0x8901, 0x8902, 0x5413,
		FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FIFREEZE, FITHAW,
		0xffffffff00000000ull | FIFREEZE,
		0xffffffffffffffffull,
	};
	static const int arg_at[] = { 0, 1, 2, 4 };
	struct sock_fprog guard = { 0 };
	char err[RULES_ERR_MAX], path[PATH_MAX];
	const char *srcdir = getenv("srcdir");
	size_t n_policies = ARRAY_LEN(shipped) + ARRAY_LEN(crafted);
	unsigned checked = 0, differ = 0;

	CU_ASSERT_EQUAL_FATAL(rules_build_guard_filter(&guard), 0);
	for (size_t i = 0; i < n_policies; i++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };
		bool holds = true;
		int rc;

		if (i == 0) {
			rc = rules_load_default(&vars, &rs, err, sizeof(err));
		} else if (i < ARRAY_LEN(shipped)) {
			snprintf(path, sizeof(path), "%s/rules/policies/%s.ini",
				 srcdir ? srcdir : ".", shipped[i]);
			rc = rules_load_file(path, &vars, &rs, err, sizeof(err));
		} else {
			rc = rules_load_string(crafted[i - ARRAY_LEN(shipped)].text,
					       NAME, &vars, &rs, err, sizeof(err));
			holds = crafted[i - ARRAY_LEN(shipped)].holds;
		}
		if (rc < 0)
			fprintf(stderr, "\npolicy %zu: %s\n", i, err);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		if (rules_filter_has_guards(rs) != holds)
			fprintf(stderr, "\npolicy %zu: holds the guards: expected %d\n",
				i, holds);
		CU_ASSERT_EQUAL(rules_filter_has_guards(rs), holds);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (int64_t nr = -1; holds && nr <= RULES_NR_MAX + 2; nr++) {
			for (int arch = 0; arch < 2; arch++) {
				struct seccomp_data d = {
					.nr = nr < 0 ? -1 : (int)nr,
					.arch = arch ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64,
				};

				if (nr == RULES_NR_MAX + 2)
					d.nr = 0x40000000 | __NR_ioctl;	/* x32 */
				for (size_t v = 0; v < ARRAY_LEN(vals); v++) {
					for (size_t w = 0; w < ARRAY_LEN(arg_at); w++) {
						int64_t one, two;

						memset(d.args, 0, sizeof(d.args));
						d.args[arg_at[w]] = vals[v];
						one = rules_filter_run(&prog, &d);
						two = rules_filter_stacked(&guard, &prog, &d);
						checked++;
						if ((one < 0 || one != two) && differ++ < 5)
							fprintf(stderr, "\npolicy %zu: nr %d arch %x arg%d=0x%llx: alone 0x%llx, with the guard 0x%llx\n",
								i, d.nr, d.arch, arg_at[w],
								(unsigned long long)vals[v],
								(long long)one, (long long)two);
					}
				}
			}
		}
		free(prog.filter);
		rules_free(rs);
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT(checked > 100000);
	CU_ASSERT_FALSE(rules_filter_has_guards(NULL));
	free(guard.filter);
}

/*
 * Calls that do a mediated call's work without making it: refused under a
 * policy with path, address or exe rules unless it opts in (its own key,
 * not an include's), never under one with scalar rules only; the filter
 * sends them to the supervisor then, whatever the policy says of them.
 */
static void test_unmediated(void)
{
	static const char *const paths =
		"[policy]\ndefault = allow\n%s\n"
		"[rule p]\nsyscalls = @file\npath = /etc/**\naccess = write\n"
		"action = deny\n"
		"[rule u]\nsyscalls = io_uring_setup\naction = allow\n";
	char text[512], buf[64];
	struct rules_set *rs;
	int uring = __NR_io_uring_setup, mount = __NR_mount;

	CU_ASSERT_STRING_EQUAL(rules_unmediated_family(uring), "io_uring");
	CU_ASSERT_STRING_EQUAL(rules_unmediated_family(__NR_move_mount), "mount");
	CU_ASSERT_STRING_EQUAL(rules_unmediated_family(__NR_open_by_handle_at),
			       "handles");
	CU_ASSERT_PTR_NULL(rules_unmediated_family(__NR_openat));

	rs = load_ok("[policy]\ndefault = allow\n"
		     "[rule s]\nsyscalls = getpid\naction = allow\n");
	CU_ASSERT_FALSE(rules_has_object_rules(rs));
	CU_ASSERT_FALSE(rules_unmediated_refused(rs, uring));
	rules_free(rs);
	/* An audit-only policy: it records every file call, so what io_uring
	 * would do unrecorded is refused too. */
	rs = load_ok("[policy]\ndefault = allow\n"
		     "[rule r]\nsyscalls = @file, @exec, @network\naction = allow\n");
	CU_ASSERT_TRUE(rules_has_object_rules(rs));
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, uring));
	rules_free(rs);

	snprintf(text, sizeof(text), paths, "");
	rs = load_ok(text);
	CU_ASSERT_TRUE(rules_has_object_rules(rs));
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, uring));
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, mount));
	CU_ASSERT_FALSE(rules_unmediated_refused(rs, __NR_openat));
	/* Its own allow rule does not lift the guard. */
	CU_ASSERT_EQUAL(rules_mechanism(rs, uring, NULL), RULES_MECH_NOTIFY);
	CU_ASSERT_EQUAL(rules_unmediated_text(rs, buf, sizeof(buf)), 0);
	rules_free(rs);

	snprintf(text, sizeof(text), paths, "unmediated = io_uring, handles");
	rs = load_ok(text);
	CU_ASSERT_FALSE(rules_unmediated_refused(rs, uring));
	CU_ASSERT_FALSE(rules_unmediated_refused(rs, __NR_name_to_handle_at));
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, mount));
	rules_unmediated_text(rs, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "io_uring, handles");
	rules_free(rs);

	/* The built-in policy keeps the guard. */
	CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, text, sizeof(text)), 0);
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, uring));
	CU_ASSERT_TRUE(rules_unmediated_refused(rs, mount));
	rules_free(rs);
}

/*
 * The closed world: every number 0..1023 (and a few far above, below the
 * x32 bit) through the compiled filters of the built-in policy, the
 * shipped ones and policies that allow or deny everything.  A number
 * without a row of the syscall table, and file_getattr and file_setattr,
 * reach the supervisor (which refuses them with ENOSYS and records the
 * attempt) under every policy, stacked with the guard filter too; a number
 * with a row gets the action its plan says, never the notification by
 * omission where the plan is the kernel's.
 */
static void test_filter_closed_world(void)
{
	static const char *const shipped[] = { "default", "strict", "build",
					       "python", "node" };
	static const char *const crafted[] = {
		"[policy]\ndefault = allow\naudit = none\n",
		"[policy]\ndefault = allow\naudit = all\n",
		"[policy]\ndefault = deny\naudit = none\n",
		"[policy]\ndefault = kill\naudit = none\n"
		"[rule r]\nsyscalls = read, write, exit_group\naction = allow\n",
	};
	static const int far[] = { 1024, 4096, 65536, 0x3fffffff };
	struct sock_fprog guard = { 0 };
	char err[RULES_ERR_MAX], path[PATH_MAX];
	const char *srcdir = getenv("srcdir");
	size_t n_policies = ARRAY_LEN(shipped) + ARRAY_LEN(crafted);
	unsigned unknown = 0, n_bad = 0;

	CU_ASSERT_EQUAL_FATAL(rules_build_guard_filter(&guard), 0);
	/* Rows: the kernel headers' numbers and 6.17's two, nothing above. */
	CU_ASSERT_PTR_NOT_NULL(rules_syscall_by_nr(__NR_openat));
	CU_ASSERT_PTR_NOT_NULL(rules_syscall_by_nr(469));
	CU_ASSERT_EQUAL(rules_syscall_max_nr(), 469);
	CU_ASSERT_EQUAL(rules_syscall_by_nr(468)->decide, RULES_DECIDE_REFUSED);
	CU_ASSERT_EQUAL(rules_syscall_by_nr(__NR_clone3)->decide,
			RULES_DECIDE_REFUSED);
	CU_ASSERT_EQUAL(rules_syscall_by_nr(__NR_openat)->decide,
			RULES_DECIDE_SUPERVISOR);
	CU_ASSERT_EQUAL(rules_syscall_by_nr(__NR_ioctl)->decide,
			RULES_DECIDE_FLAGS);
	CU_ASSERT_EQUAL(rules_syscall_by_nr(__NR_getpid)->decide,
			RULES_DECIDE_KERNEL);
	/* Every row names its handler family, consistent with its kind. */
	for (int nr = 0; nr < 1024; nr++) {
		const struct rules_syscall_info *si = rules_syscall_by_nr(nr);
		bool ok;

		if (!si)
			continue;
		switch (si->kind) {
		case RULES_KIND_PATH:
			ok = si->family == RULES_FAM_OPEN ||
			     si->family == RULES_FAM_CHANGE ||
			     si->family == RULES_FAM_META;
			break;
		case RULES_KIND_EXEC:
			ok = si->family == RULES_FAM_EXEC;
			break;
		case RULES_KIND_NET:
			ok = si->family == RULES_FAM_NET;
			break;
		case RULES_KIND_SCALAR:
		default:
			ok = si->family == RULES_FAM_SCALAR ||
			     si->family == RULES_FAM_REFUSED;
			break;
		}
		ok = ok && (si->family == RULES_FAM_REFUSED) ==
			   (si->decide == RULES_DECIDE_REFUSED);
		if (!ok)
			fprintf(stderr, "\nnr %d (%s): family %d, kind %d, decide %d\n",
				nr, si->name, si->family, si->kind, si->decide);
		CU_ASSERT_TRUE(ok);
	}
	CU_ASSERT_EQUAL(rules_syscall_by_name("openat")->family, RULES_FAM_OPEN);
	CU_ASSERT_EQUAL(rules_syscall_by_name("renameat2")->family, RULES_FAM_CHANGE);
	CU_ASSERT_EQUAL(rules_syscall_by_name("utimensat")->family, RULES_FAM_META);
	CU_ASSERT_PTR_NULL(rules_syscall_by_nr(400));	/* a hole */
	CU_ASSERT_PTR_NULL(rules_syscall_by_nr(470));
	for (size_t i = 0; i < n_policies; i++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };
		int rc;

		if (i == 0) {
			rc = rules_load_default(&vars, &rs, err, sizeof(err));
		} else if (i < ARRAY_LEN(shipped)) {
			snprintf(path, sizeof(path), "%s/rules/policies/%s.ini",
				 srcdir ? srcdir : ".", shipped[i]);
			rc = rules_load_file(path, &vars, &rs, err, sizeof(err));
		} else {
			rc = rules_load_string(crafted[i - ARRAY_LEN(shipped)],
					       NAME, &vars, &rs, err, sizeof(err));
		}
		if (rc < 0)
			fprintf(stderr, "\npolicy %zu: %s\n", i, err);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (int k = 0; k < 1024 + (int)ARRAY_LEN(far); k++) {
			int nr = k < 1024 ? k : far[k - 1024];
			const struct rules_syscall_info *si =
				rules_syscall_by_nr(nr);
			struct seccomp_data d = { .nr = nr,
						  .arch = AUDIT_ARCH_X86_64 };
			bool closed = !si || nr == 468 || nr == 469;
			int64_t one = rules_filter_run(&prog, &d);
			int64_t two = rules_filter_stacked(&guard, &prog, &d);
			uint32_t want = SECCOMP_RET_USER_NOTIF;

			if (i == 0 && !si)
				unknown++;
			if (!closed) {
				enum rules_action ka = RULES_ALLOW;

				if (rules_mechanism(rs, nr, &ka) != RULES_MECH_KERNEL ||
				    si->decide != RULES_DECIDE_KERNEL)
					continue;
				want = ka == RULES_ALLOW ? SECCOMP_RET_ALLOW :
				       ka == RULES_KILL ? SECCOMP_RET_KILL_PROCESS :
				       SECCOMP_RET_ERRNO;
			}
			if (((uint32_t)one & SECCOMP_RET_ACTION_FULL) == want &&
			    ((uint32_t)two & SECCOMP_RET_ACTION_FULL) == want)
				continue;
			if (n_bad++ < 5)
				fprintf(stderr, "\npolicy %zu: nr %d: 0x%llx (with the guard 0x%llx), expected 0x%x\n",
					i, nr, (long long)one, (long long)two,
					want);
		}
		free(prog.filter);
		rules_free(rs);
	}
	CU_ASSERT_EQUAL(n_bad, 0);
	/* 1024 numbers, a row for about 380: the rest is unknown. */
	CU_ASSERT(unknown > 1024 - 470);
	free(guard.filter);
}

/*
 * Calls aimed at another process by pid (prlimit64, sched_set*) or by
 * "which" and "who" (setpriority, ioprio_set) reach the supervisor unless
 * they aim at the caller itself, under the built-in policy (which names
 * none of them) and under one that allows everything; a policy that names
 * one has every call of it notified.
 */
static void test_filter_target_calls(void)
{
	static const struct {
		int nr;
		uint64_t a0, a1;
		bool notified;
	} cases[] = {
		{ __NR_prlimit64, 0, 7, false },
		{ __NR_prlimit64, 4242, 7, true },
		{ __NR_prlimit64, 0x100000000ull, 7, true },
		{ __NR_prlimit64, (uint64_t)-1, 7, true },
		{ __NR_sched_setscheduler, 0, 3, false },
		{ __NR_sched_setscheduler, 4242, 3, true },
		{ __NR_sched_setparam, 4242, 0, true },
		{ __NR_sched_setattr, 4242, 0, true },
		{ __NR_sched_setattr, 0, 0, false },
		{ __NR_migrate_pages, 0, 64, false },
		{ __NR_migrate_pages, 4242, 64, true },
		{ __NR_move_pages, 0, 1, false },
		{ __NR_move_pages, 4242, 1, true },
		{ __NR_kcmp, 4242, 4243, true },
		{ __NR_process_madvise, 3, 0, true },	/* always: a pidfd */
		{ __NR_process_madvise, 0, 0, true },
		{ __NR_process_mrelease, 3, 0, true },	/* always: a pidfd */
		{ __NR_setpriority, 0, 0, false },	/* PRIO_PROCESS, self */
		{ __NR_setpriority, 1, 0, false },	/* PRIO_PGRP, own */
		{ __NR_setpriority, 2, 0, true },	/* PRIO_USER */
		{ __NR_setpriority, 0x100000002ull, 0, true },
		{ __NR_setpriority, 0, 4242, true },
		{ __NR_setpriority, 1, 4242, true },
		{ __NR_ioprio_set, 1, 0, false },	/* IOPRIO_WHO_PROCESS */
		{ __NR_ioprio_set, 2, 0, false },	/* IOPRIO_WHO_PGRP */
		{ __NR_ioprio_set, 3, 0, true },	/* IOPRIO_WHO_USER */
		{ __NR_ioprio_set, 1, 4242, true },
		{ __NR_sched_setaffinity, 0, 8, true },	/* always (cpubind.c) */
	};
	static const char *const texts[] = {
		NULL,	/* the built-in policy */
		"[policy]\ndefault = allow\naudit = none\n",
	};
	char err[RULES_ERR_MAX];

	for (size_t t = 0; t < ARRAY_LEN(texts); t++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };

		if (texts[t])
			rs = load_ok(texts[t]);
		else
			CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err,
								 sizeof(err)), 0);
		CU_ASSERT_FATAL(rs != NULL);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
			struct seccomp_data d = {
				.nr = cases[i].nr, .arch = AUDIT_ARCH_X86_64,
				.args = { cases[i].a0, cases[i].a1 },
			};
			int64_t r = rules_filter_run(&prog, &d);
			uint32_t want = cases[i].notified ?
					SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;

			if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) != want)
				fprintf(stderr, "\npolicy %zu: nr %d (0x%llx, 0x%llx): 0x%llx\n",
					t, d.nr, (unsigned long long)d.args[0],
					(unsigned long long)d.args[1], (long long)r);
			CU_ASSERT_EQUAL(r >= 0 ? (uint32_t)r & SECCOMP_RET_ACTION_FULL :
				       0xdead, want);
		}
		free(prog.filter);
		rules_free(rs);
	}
	/* Named by a rule: every call of it goes to the supervisor. */
	{
		struct rules_set *rs = load_ok(
			"[policy]\ndefault = allow\naudit = none\n"
			"[rule p]\nsyscalls = prlimit64, setpriority\narg1 = 4\n"
			"action = deny\n");

		CU_ASSERT_FATAL(rs != NULL);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_prlimit64, NULL),
				RULES_MECH_NOTIFY);
		CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_setpriority, NULL),
				RULES_MECH_NOTIFY);
		rules_free(rs);
	}
}

/*
 * socket() and setsockopt reach the supervisor exactly for the odd
 * sockets (rules_socket_unnamed: packet, raw, families without
 * addresses) and the options that change where packets go
 * (rules_route_sockopt), on the low 32 bits, under the built-in policy
 * and under one that names no network call; the rest stays in the kernel.
 */
static void test_filter_unnamed_network(void)
{
	static const struct {
		uint64_t level, opt;
		bool route;
	} opts[] = {
		{ SOL_IP, IP_OPTIONS, true }, { SOL_IPV6, 57 /* IPV6_RTHDR */, true },
		{ SOL_SOCKET, SO_BINDTODEVICE, true },
		{ 0xffffffff00000000ull | SOL_IP, IP_OPTIONS, true },
		{ SOL_SOCKET, SO_REUSEADDR, false }, { SOL_IP, IP_TOS, false },
		{ SOL_IPV6, IPV6_V6ONLY, false },
		{ (uint64_t)SOL_IPV6 << 32, 57, false },
	};
	const char *texts[] = { NULL, "[policy]\ndefault = allow\naudit = none\n" };
	char err[RULES_ERR_MAX];

	for (size_t t = 0; t < ARRAY_LEN(texts); t++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };
		unsigned wrong = 0;

		if (texts[t])
			rs = load_ok(texts[t]);
		else
			CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err,
								 sizeof(err)), 0);
		CU_ASSERT_FATAL(rs != NULL);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (uint64_t d = 0; d < 80; d++)
			for (uint64_t ty = 0; ty < 16; ty++) {
				uint64_t hi = (d & 1) ? 0xabcd00000000ull : 0;
				struct seccomp_data sd = {
					.nr = __NR_socket,
					.arch = AUDIT_ARCH_X86_64,
					.args = { hi | d, hi | SOCK_CLOEXEC | ty, 0 },
				};
				int64_t r = rules_filter_run(&prog, &sd);
				uint32_t want = rules_socket_unnamed(d, ty) ?
						SECCOMP_RET_USER_NOTIF :
						SECCOMP_RET_ALLOW;

				if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) != want)
					wrong++;
			}
		for (uint32_t bit = 6; bit < 32; bit++) {
			struct seccomp_data sd = {
				.nr = __NR_socket, .arch = AUDIT_ARCH_X86_64,
				.args = { (1u << bit) | AF_INET, SOCK_STREAM },
			};
			int64_t r = rules_filter_run(&prog, &sd);

			if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) !=
				     SECCOMP_RET_USER_NOTIF)
				wrong++;
		}
		for (size_t i = 0; i < ARRAY_LEN(opts); i++) {
			struct seccomp_data sd = {
				.nr = __NR_setsockopt, .arch = AUDIT_ARCH_X86_64,
				.args = { 3, opts[i].level, opts[i].opt, 0x1000, 8 },
			};
			int64_t r = rules_filter_run(&prog, &sd);
			uint32_t want = opts[i].route ? SECCOMP_RET_USER_NOTIF :
							SECCOMP_RET_ALLOW;

			CU_ASSERT_EQUAL(!!rules_route_sockopt(opts[i].level,
							      opts[i].opt),
					opts[i].route);
			if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) != want)
				wrong++;
		}
		/* listen and accept: notified where bind is not allowed in
		 * the kernel (the built-in policy), and said so. */
		for (size_t k = 0; k < 3; k++) {
			static const int nrs[] = { __NR_listen, __NR_accept,
						   __NR_accept4 };
			struct seccomp_data sd = {
				.nr = nrs[k], .arch = AUDIT_ARCH_X86_64,
				.args = { 3 },
			};
			int64_t r = rules_filter_run(&prog, &sd);
			bool notified = !texts[t];

			if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) !=
				     (notified ? SECCOMP_RET_USER_NOTIF :
						 SECCOMP_RET_ALLOW))
				wrong++;
			CU_ASSERT_EQUAL(rules_mechanism(rs, nrs[k], NULL),
					notified ? RULES_MECH_NOTIFY :
						   RULES_MECH_KERNEL);
		}
		CU_ASSERT_EQUAL(wrong, 0);
		free(prog.filter);
		rules_free(rs);
	}
	CU_ASSERT(rules_socket_unnamed(AF_PACKET, SOCK_DGRAM));
	CU_ASSERT(rules_socket_unnamed(AF_INET, SOCK_RAW));
	CU_ASSERT(rules_socket_unnamed(AF_INET6, SOCK_PACKET));
	CU_ASSERT(rules_socket_unnamed(AF_VSOCK, SOCK_STREAM));
	CU_ASSERT(!rules_socket_unnamed(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK));
	CU_ASSERT(!rules_socket_unnamed(AF_UNIX, SOCK_RAW));
	CU_ASSERT(!rules_socket_unnamed(AF_NETLINK, SOCK_RAW));
	CU_ASSERT(!rules_socket_unnamed(0xffffffff00000000ull | AF_INET,
					SOCK_STREAM));
}

/*
 * The ioctl commands that change a file's attributes reach the supervisor
 * where the policy mediates fchmod (the built-in one: @file), whatever
 * the high 32 bits of cmd, and stay in the kernel where it does not; the
 * other ioctls stay in the kernel either way.
 */
static void test_filter_fileattr_ioctls(void)
{
	static const struct {
		uint64_t cmd;
		bool attr;
	} cmds[] = {
		{ FS_IOC_SETFLAGS, true }, { FS_IOC32_SETFLAGS, true },
		{ FS_IOC_FSSETXATTR, true }, { FS_IOC_SETVERSION, true },
		{ FS_IOC32_SETVERSION, true }, { FS_IOC_ENABLE_VERITY, true },
		{ FS_IOC_SET_ENCRYPTION_POLICY, true },
		{ FS_IOC_MEASURE_VERITY, false },
		{ 0xffffffff00000000ull | FS_IOC_SETFLAGS, true },
		{ FS_IOC_GETFLAGS, false }, { FS_IOC_FSGETXATTR, false },
		{ 0x5401 /* TCGETS */, false },
		{ (uint64_t)FS_IOC_SETFLAGS << 32, false },
	};
	static const struct {
		const char *text;
		bool mediates;
	} texts[] = {
		{ NULL, true },	/* the built-in policy */
		{ "[policy]\ndefault = allow\naudit = none\n", false },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule w]\nsyscalls = fchmod\npath = /tmp/**\naction = deny\n", true },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule w]\nsyscalls = chmod\npath = /tmp/**\naction = deny\n", false },
	};
	char err[RULES_ERR_MAX];

	for (size_t t = 0; t < ARRAY_LEN(texts); t++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };

		if (texts[t].text)
			rs = load_ok(texts[t].text);
		else
			CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err,
								 sizeof(err)), 0);
		CU_ASSERT_FATAL(rs != NULL);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (size_t i = 0; i < ARRAY_LEN(cmds); i++) {
			struct seccomp_data d = {
				.nr = __NR_ioctl, .arch = AUDIT_ARCH_X86_64,
				.args = { 3, cmds[i].cmd, 0x1000 },
			};
			int64_t r = rules_filter_run(&prog, &d);
			uint32_t want = cmds[i].attr && texts[t].mediates ?
					SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;

			if (r < 0 || ((uint32_t)r & SECCOMP_RET_ACTION_FULL) != want)
				fprintf(stderr, "\npolicy %zu: ioctl 0x%llx: 0x%llx\n",
					t, (unsigned long long)cmds[i].cmd,
					(long long)r);
			CU_ASSERT_EQUAL(r >= 0 ? (uint32_t)r & SECCOMP_RET_ACTION_FULL :
				       0xdead, want);
			CU_ASSERT_EQUAL(rules_fileattr_cmd(cmds[i].cmd) != NULL,
					cmds[i].attr);
		}
		free(prog.filter);
		rules_free(rs);
	}
	CU_ASSERT_STRING_EQUAL(rules_fileattr_cmd(0x100000000ull | FS_IOC_FSSETXATTR),
			       "FS_IOC_FSSETXATTR");
}

/* True when p holds exactly pb's instructions. */
static bool same_prog(const struct sock_fprog *p, const struct rules_prebuilt *pb)
{
	return p->len == pb->len && pb->insns &&
	       memcmp(p->filter, pb->insns, pb->len * sizeof(*pb->insns)) == 0;
}

/*
 * The prebuilt program (rules/default-filters.c, made by rules/gen-filters
 * when sysgate is built) is what the compiler makes now for the built-in
 * policy, under other variables than the build used (it must not depend
 * on them).  Prebuilt ones are only used for a set that
 * rules_load_default() loaded, not for the same text loaded otherwise.
 */
static void test_prebuilt_filters(void)
{
	static const struct rules_vars other = {
		.home = "/root", .cwd = "/srv/a/b/c", .tmpdir = "/var/tmp/x",
		.run = "20261202T000000Z-000000000000",
	};
	const struct rules_vars *each[] = { &vars, &other };
	struct sock_fprog prog = { 0 };
	char err[RULES_ERR_MAX];

	for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++) {
		struct rules_set *rs = NULL;

		CU_ASSERT_EQUAL_FATAL(rules_load_default(each[i], &rs, err,
							 sizeof(err)), 0);
		CU_ASSERT(rules_is_builtin_default(rs));
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		CU_ASSERT(same_prog(&prog, &rules_prebuilt_default));
		free(prog.filter);
		rules_free(rs);
	}
	/* The same text from elsewhere, and a policy including it. */
	{
		struct rules_set *rs = NULL;

		CU_ASSERT_EQUAL_FATAL(rules_load_string(rules_default_text(),
							"<default>", &vars, &rs,
							err, sizeof(err)), 0);
		CU_ASSERT_FALSE(rules_is_builtin_default(rs));
		rules_free(rs);
		rs = load_ok("[policy]\ninclude = default\n");
		CU_ASSERT_FALSE(rules_is_builtin_default(rs));
		rules_free(rs);
		CU_ASSERT_FALSE(rules_is_builtin_default(NULL));
	}
}

/* ---------------------------------------------------------------------
 * BEGIN explain tests (sysgate check --explain): rules_explain() agrees with
 * rules_match() and names the first failing condition of each rule tried;
 * rules_shadowed(); condition text; line numbers and literal paths.
 */

#define EXPLAIN_MAX_STEPS 8

struct explain_seen {
	enum rules_why why[EXPLAIN_MAX_STEPS];
	unsigned arg[EXPLAIN_MAX_STEPS];
	size_t n;
};

static void explain_collect(const struct rules_explain_step *st, void *ctx)
{
	struct explain_seen *s = ctx;

	CU_ASSERT_EQUAL(st->index, s->n);
	if (s->n < EXPLAIN_MAX_STEPS) {
		s->why[s->n] = st->why;
		s->arg[s->n] = st->arg;
	}
	s->n++;
}

static void test_explain(void)
{
	static const char policy[] =
		"[policy]\ndefault = deny\nerrno = EXDEV\n"
		"[rule by-path]\nsyscalls = openat\npath = ${HOME}/.aws/**\naction = deny\n"
		"[rule by-access]\nsyscalls = openat\naccess = write\naction = deny\n"
		"[rule by-addr]\nsyscalls = connect\naddr = 127.0.0.0/8\naction = allow\n"
		"[rule by-exe]\nsyscalls = openat, connect\nexe = /usr/bin/*\naction = allow\n"
		"[rule by-arg]\nsyscalls = openat, kill\narg1 = 9\naction = kill\n"
		"[rule last]\nsyscalls = kill\naction = allow\n";
	static const struct {
		int nr;
		const char *path;
		unsigned access;
		const char *exe;
		uint64_t arg1;
		bool inet;		/* connect to 10.0.0.5:443 */
		size_t n_steps;
		enum rules_why why[6];
		const char *rule;	/* deciding rule, NULL: default */
	} cases[] = {
		{ __NR_openat, "/home/u/.ssh/id_rsa", RULES_ACC_READ, NULL, 0,
		  false, 6, { RULES_WHY_PATH, RULES_WHY_ACCESS,
			      RULES_WHY_SYSCALL, RULES_WHY_EXE, RULES_WHY_ARG,
			      RULES_WHY_SYSCALL }, NULL },
		{ __NR_openat, "/home/u/.aws/credentials", RULES_ACC_READ,
		  NULL, 0, false, 1, { RULES_WHY_MATCH }, "by-path" },
		{ __NR_openat, "/x", RULES_ACC_WRITE, NULL, 0, false, 2,
		  { RULES_WHY_PATH, RULES_WHY_MATCH }, "by-access" },
		{ __NR_openat, "/x", RULES_ACC_READ, "/usr/bin/cat", 0, false,
		  4, { RULES_WHY_PATH, RULES_WHY_ACCESS, RULES_WHY_SYSCALL,
		       RULES_WHY_MATCH }, "by-exe" },
		{ __NR_connect, NULL, 0, "/opt/x", 0, true, 6,
		  { RULES_WHY_SYSCALL, RULES_WHY_SYSCALL, RULES_WHY_ADDR,
		    RULES_WHY_EXE, RULES_WHY_SYSCALL, RULES_WHY_SYSCALL },
		  NULL },
		{ __NR_kill, NULL, 0, NULL, 9, false, 5,
		  { RULES_WHY_SYSCALL, RULES_WHY_SYSCALL, RULES_WHY_SYSCALL,
		    RULES_WHY_SYSCALL, RULES_WHY_MATCH }, "by-arg" },
		{ __NR_kill, NULL, 0, NULL, 15, false, 6,
		  { RULES_WHY_SYSCALL, RULES_WHY_SYSCALL, RULES_WHY_SYSCALL,
		    RULES_WHY_SYSCALL, RULES_WHY_ARG, RULES_WHY_MATCH },
		  "last" },
	};
	struct rules_set *rs = load_ok(policy);
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(443) };
	char buf[256];
	size_t i, k;

	if (!rs)
		return;
	inet_pton(AF_INET, "10.0.0.5", &in.sin_addr);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_event ev = {
			.nr = cases[i].nr, .path = cases[i].path,
			.access = cases[i].access, .exe = cases[i].exe,
			.args = { 0, cases[i].arg1 },
		};
		struct rules_verdict v, m;
		struct explain_seen seen = { .n = 0 };

		if (cases[i].inet) {
			ev.addr = (const struct sockaddr *)&in;
			ev.addr_len = sizeof(in);
		}
		rules_explain(rs, &ev, explain_collect, &seen, &v);
		rules_match(rs, &ev, &m);
		CU_ASSERT_EQUAL(seen.n, cases[i].n_steps);
		for (k = 0; k < seen.n && k < cases[i].n_steps; k++)
			CU_ASSERT_EQUAL(seen.why[k], cases[i].why[k]);
		CU_ASSERT_EQUAL(v.action, m.action);
		CU_ASSERT_EQUAL(v.err, m.err);
		if (cases[i].rule) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(v.rule);
			CU_ASSERT_STRING_EQUAL(v.rule, cases[i].rule);
		} else {
			CU_ASSERT_PTR_NULL(v.rule);
			CU_ASSERT_EQUAL(v.err, EXDEV);
		}
	}

	/* Condition text, variables expanded; line numbers. */
	rules_rule_condition(rs, 0, RULES_WHY_PATH, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "/home/u/.aws/**");
	rules_rule_condition(rs, 1, RULES_WHY_ACCESS, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "write");
	rules_rule_condition(rs, 2, RULES_WHY_ADDR, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "127.0.0.0/8");
	rules_rule_condition(rs, 4, RULES_WHY_ARG, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "arg1 == 0x9");
	CU_ASSERT_EQUAL(rules_rule_condition(rs, 4, RULES_WHY_PATH, 0, buf,
					     sizeof(buf)), 0);
	CU_ASSERT_EQUAL(rules_rule_line(rs, 0), 4);
	CU_ASSERT_EQUAL(rules_rule_line(rs, 5), 24);
	CU_ASSERT_EQUAL(rules_rule_line(rs, 6), 0);
	CU_ASSERT_STRING_EQUAL(rules_rule_path(rs, 0, 0), "/home/u/.aws/**");
	CU_ASSERT_PTR_NULL(rules_rule_path(rs, 0, 1));
	CU_ASSERT_FALSE(rules_glob_is_literal("/home/u/.aws/**"));
	CU_ASSERT_TRUE(rules_glob_is_literal("/etc/passwd"));
	/* by-arg could still match kill: "last" comes after it. */
	for (i = 0; i < rules_rule_count(rs); i++)
		CU_ASSERT_FALSE(rules_shadowed(rs, i, NULL));
	/* The mechanism explain prints. */
	CU_ASSERT_EQUAL(rules_mechanism(rs, __NR_openat, NULL),
			RULES_MECH_NOTIFY);
	rules_free(rs);

	rs = load_ok("[policy]\ndefault = allow\n"
		     "[rule files]\nsyscalls = @file\naction = allow\n"
		     "[rule late]\nsyscalls = openat\npath = /etc/passwd\naction = deny\n"
		     "[rule deny-writes]\nsyscalls = openat, creat\naccess = write, create\naction = deny\n"
		     "[rule sub]\nsyscalls = openat\naccess = write\npath = /x\naction = deny\n"
		     "[rule kill-scalar]\nsyscalls = kill\narg1 = 9\naction = deny\n"
		     "[rule kill-all]\nsyscalls = kill, tkill\naction = deny\n"
		     "[rule allow-write]\nsyscalls = mkdir\naccess = create\naction = allow\n"
		     "[rule deny-create]\nsyscalls = mkdir\naccess = create\naction = deny\n");
	if (!rs)
		return;
	{
		size_t by = 99;

		CU_ASSERT_FALSE(rules_shadowed(rs, 0, &by));
		CU_ASSERT_TRUE(rules_shadowed(rs, 1, &by));
		CU_ASSERT_EQUAL(by, 0);
		CU_ASSERT_TRUE(rules_shadowed(rs, 3, &by));
		CU_ASSERT_EQUAL(by, 0);
		/* An earlier rule with a condition decides nothing for sure. */
		CU_ASSERT_FALSE(rules_shadowed(rs, 5, &by));
		/* files decides mkdir first, even with access lists. */
		CU_ASSERT_TRUE(rules_shadowed(rs, 7, &by));
		CU_ASSERT_EQUAL(by, 0);
	}
	rules_free(rs);

	/* Access lists: an earlier rule whose list covers a later rule's
	 * shadows it (deny before anything, allow before allow). */
	rs = load_ok("[policy]\ndefault = allow\n"
		     "[rule deny-w]\nsyscalls = openat, creat\naccess = write, create\naction = deny\n"
		     "[rule sub]\nsyscalls = openat\naccess = write\npath = /x\naction = allow\n"
		     "[rule other]\nsyscalls = openat\naccess = read\naction = deny\n"
		     "[rule allow-r]\nsyscalls = unlink\naccess = delete\naction = allow\n"
		     "[rule deny-r]\nsyscalls = unlink\naccess = delete\npath = /y\naction = deny\n"
		     "[rule allow-r2]\nsyscalls = unlink\naccess = delete\npath = /z\naction = allow\n");
	if (!rs)
		return;
	CU_ASSERT_TRUE(rules_shadowed(rs, 1, NULL));
	CU_ASSERT_FALSE(rules_shadowed(rs, 2, NULL));
	/* An allow list before a deny: an event with two classes could pass
	 * the allow; not "never". */
	CU_ASSERT_FALSE(rules_shadowed(rs, 4, NULL));
	CU_ASSERT_TRUE(rules_shadowed(rs, 5, NULL));
	rules_free(rs);

	/* Shadowed both by the including file's rule and by one of its own
	 * file: the latter is named (the include's author can fix it). */
	{
		char path[4096], text[4200];
		size_t by = 99;

		data_path(path, sizeof(path), "include-shadow.ini");
		snprintf(text, sizeof(text),
			 "[policy]\ninclude = %s\n"
			 "[rule top-all]\nsyscalls = openat\naction = deny\n",
			 path);
		rs = load_ok(text);
		if (!rs)
			return;
		CU_ASSERT_TRUE(rules_shadowed(rs, 1, &by));
		CU_ASSERT_EQUAL(by, 0);
		CU_ASSERT_TRUE(rules_shadowed(rs, 2, &by));
		CU_ASSERT_EQUAL(by, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(rules_rule_file(rs, 2),
					      "include-shadow.ini"));
		CU_ASSERT_STRING_EQUAL(rules_rule_file(rs, 0), NAME);
		rules_free(rs);
	}
}

/* rules_explain() is rules_match()'s own walk: a rule that fails several
 * conditions is reported by the first one the matcher tries (the access
 * class and the argument conditions before any glob). */
static void test_explain_order(void)
{
	struct rules_set *rs = load_ok(
		"[policy]\ndefault = allow\n"
		"[rule both]\nsyscalls = openat\npath = /etc/**\n"
		"access = write\narg2 = 1\naction = deny\n");
	struct rules_event ev = { .nr = __NR_openat, .path = "/x",
				  .access = RULES_ACC_READ };
	struct explain_seen seen = { .n = 0 };
	struct rules_verdict v;

	if (!rs)
		return;
	rules_explain(rs, &ev, explain_collect, &seen, &v);
	CU_ASSERT_EQUAL(seen.n, 1);
	CU_ASSERT_EQUAL(seen.why[0], RULES_WHY_ACCESS);
	ev.access = RULES_ACC_WRITE;
	seen.n = 0;
	rules_explain(rs, &ev, explain_collect, &seen, &v);
	CU_ASSERT_EQUAL(seen.why[0], RULES_WHY_ARG);
	ev.args[2] = 1;
	seen.n = 0;
	rules_explain(rs, &ev, explain_collect, &seen, &v);
	CU_ASSERT_EQUAL(seen.why[0], RULES_WHY_PATH);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	ev.path = "/etc/passwd";
	seen.n = 0;
	rules_explain(rs, &ev, explain_collect, &seen, &v);
	CU_ASSERT_EQUAL(seen.why[0], RULES_WHY_MATCH);
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	rules_free(rs);
}

/* END explain tests. */

/* ---------------------------------------------------------------------
 * System-wide state (SECURITY.md, *State the whole
 * system shares*): the groups, the shipped policies
 * that refuse them, and SysV IPC always reaching the supervisor.
 */

static void test_groups_system_state(void)
{
	static const struct {
		const char *group;
		const char *const members[13];
	} want[] = {
		{ "@hostname", { "sethostname", "setdomainname" } },
		{ "@mqueue", { "mq_open", "mq_unlink", "mq_timedsend",
			       "mq_timedreceive", "mq_notify",
			       "mq_getsetattr" } },
		{ "@quota", { "quotactl", "quotactl_fd" } },
		{ "@ipc", { "shmget", "shmat", "shmdt", "shmctl", "msgget",
			    "msgsnd", "msgrcv", "msgctl", "semget", "semop",
			    "semtimedop", "semctl" } },
	};

	for (size_t g = 0; g < ARRAY_LEN(want); g++) {
		uint64_t set[RULES_NR_WORDS] = { 0 };
		int n = 0, nr;
		size_t m;

		CU_ASSERT_EQUAL_FATAL(rules_group_lookup(want[g].group, set), 0);
		for (m = 0; want[g].members[m]; m++) {
			const struct rules_syscall_info *si =
				rules_syscall_by_name(want[g].members[m]);

			CU_ASSERT_PTR_NOT_NULL_FATAL(si);
			if (!rules_nr_has(set, si->nr))
				fprintf(stderr, "\n%s lacks %s\n",
					want[g].group, want[g].members[m]);
			CU_ASSERT_TRUE(rules_nr_has(set, si->nr));
		}
		/* Nothing else. */
		for (nr = 0; nr < RULES_NR_MAX; nr++)
			n += rules_nr_has(set, nr);
		CU_ASSERT_EQUAL(n, (int)m);
	}
}

/* The calls the supervisor must see whatever the policy: it makes the
 * tree's SysV objects and refuses calls on others' (supervisor/sysv.c). */
static void test_sysv_always_notified(void)
{
	static const char *const calls[] = {
		"shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv",
		"msgctl", "semget", "semop", "semtimedop", "semctl",
	};
	struct rules_set *rs = load_ok("[policy]\ndefault = allow\n"
				       "audit = none\n");

	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	for (size_t i = 0; i < ARRAY_LEN(calls); i++) {
		const struct rules_syscall_info *si =
			rules_syscall_by_name(calls[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(si);
		CU_ASSERT_TRUE(rules_always_notified(si->nr));
		CU_ASSERT_EQUAL(rules_mechanism(rs, si->nr, NULL),
				RULES_MECH_NOTIFY);
	}
	/* shmdt detaches the caller's own mapping: no id to check. */
	CU_ASSERT_FALSE(rules_always_notified(__NR_shmdt));
	rules_free(rs);
}

/* The built-in and strict policies refuse the host name, message queues
 * and quotas, in the kernel's filter too; a policy can refuse @ipc. */
static void test_policies_system_state(void)
{
	static const char *const refused[] = {
		"sethostname", "setdomainname", "mq_open", "mq_unlink",
		"mq_timedsend", "mq_timedreceive", "mq_notify",
		"mq_getsetattr", "quotactl", "quotactl_fd",
	};
	const char *srcdir = getenv("srcdir");
	char err[RULES_ERR_MAX], path[PATH_MAX];

	for (int p = 0; p < 2; p++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };

		if (p == 0) {
			CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err,
								 sizeof(err)), 0);
		} else {
			snprintf(path, sizeof(path), "%s/rules/policies/strict.ini",
				 srcdir ? srcdir : ".");
			CU_ASSERT_EQUAL_FATAL(rules_load_file(path, &vars, &rs, err,
							      sizeof(err)), 0);
		}
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
			const struct rules_syscall_info *si =
				rules_syscall_by_name(refused[i]);
			struct rules_event ev = { .nr = si ? si->nr : -1 };
			struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64 };
			struct rules_verdict v;
			int64_t r;

			CU_ASSERT_PTR_NOT_NULL_FATAL(si);
			rules_match(rs, &ev, &v);
			CU_ASSERT_EQUAL(v.action, RULES_DENY);
			CU_ASSERT_EQUAL(v.err, EPERM);
			CU_ASSERT_TRUE(v.audit);
			CU_ASSERT_TRUE(rules_never_allows(rs, si->nr));
			/* Refused in the kernel, or shown to the supervisor
			 * (which then records the refusal): never allowed. */
			d.nr = si->nr;
			r = rules_filter_run(&prog, &d);
			CU_ASSERT_NOT_EQUAL(r & SECCOMP_RET_ACTION_FULL,
					    SECCOMP_RET_ALLOW);
		}
		free(prog.filter);
		rules_free(rs);
	}
	{
		struct rules_set *rs = load_ok("[policy]\ndefault = allow\n"
					       "[rule no-ipc]\nsyscalls = @ipc\n"
					       "action = deny\n");
		struct rules_event ev = { .nr = __NR_shmget };
		struct rules_verdict v;

		CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
		rules_match(rs, &ev, &v);
		CU_ASSERT_EQUAL(v.action, RULES_DENY);
		CU_ASSERT_STRING_EQUAL(v.rule, "no-ipc");
		rules_free(rs);
	}
}

/* A lease (fcntl F_SETLEASE) reaches the supervisor wherever fchmod is
 * mediated, to be decided as a change of the file; other fcntl commands
 * stay in the kernel. */
static void test_filter_lease(void)
{
	static const struct {
		const char *text;
		bool notified;
	} pols[] = {
		{ NULL, true },	/* the built-in policy */
		{ "[policy]\ndefault = allow\naudit = none\n", false },
		{ "[policy]\ndefault = allow\naudit = none\n"
		  "[rule w]\nsyscalls = fchmod\npath = /tmp/**\n"
		  "action = allow\n", true },
	};
	char err[RULES_ERR_MAX];

	for (size_t i = 0; i < ARRAY_LEN(pols); i++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };
		struct seccomp_data d = { .nr = __NR_fcntl,
					  .arch = AUDIT_ARCH_X86_64 };

		if (pols[i].text)
			rs = load_ok(pols[i].text);
		else
			CU_ASSERT_EQUAL(rules_load_default(&vars, &rs, err,
							   sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		d.args[0] = 3;
		d.args[1] = 1024;	/* F_SETLEASE */
		d.args[2] = 0;		/* F_RDLCK */
		CU_ASSERT_EQUAL(rules_filter_run(&prog, &d) & SECCOMP_RET_ACTION_FULL,
				pols[i].notified ? SECCOMP_RET_USER_NOTIF :
						   SECCOMP_RET_ALLOW);
		/* Only the low 32 bits are the command. */
		d.args[1] = 0xffffffff00000000ull | 1024;
		CU_ASSERT_EQUAL(rules_filter_run(&prog, &d) & SECCOMP_RET_ACTION_FULL,
				pols[i].notified ? SECCOMP_RET_USER_NOTIF :
						   SECCOMP_RET_ALLOW);
		d.args[1] = 1025;	/* F_GETLEASE */
		CU_ASSERT_EQUAL(rules_filter_run(&prog, &d) & SECCOMP_RET_ACTION_FULL,
				SECCOMP_RET_ALLOW);
		free(prog.filter);
		rules_free(rs);
	}
}

/* A call that sets RLIMIT_CORE reaches the supervisor under any policy
 * (which refuses and records a raise); reads and other limits do not. */
static void test_filter_core_limit(void)
{
	static const struct {
		int nr;
		uint64_t args[4];
		bool notified;
	} calls[] = {
		{ __NR_prlimit64, { 0, 4, 0x1000, 0 }, true },
		{ __NR_prlimit64, { 0, 0xffffffff00000004ull, 0x1000, 0 }, true },
		{ __NR_prlimit64, { 0, 4, 0, 0x1000 }, false },
		{ __NR_prlimit64, { 0, 7, 0x1000, 0 }, false },
		{ __NR_setrlimit, { 4, 0x1000 }, true },
		{ __NR_setrlimit, { 7, 0x1000 }, false },
		{ __NR_getrlimit, { 4, 0x1000 }, false },
	};
	static const char *const texts[] = {
		NULL,
		"[policy]\ndefault = allow\naudit = none\n",
	};
	char err[RULES_ERR_MAX];

	for (size_t p = 0; p < ARRAY_LEN(texts); p++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };

		if (texts[p])
			rs = load_ok(texts[p]);
		else
			CU_ASSERT_EQUAL(rules_load_default(&vars, &rs, err,
							   sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (size_t i = 0; i < ARRAY_LEN(calls); i++) {
			struct seccomp_data d = { .nr = calls[i].nr,
						  .arch = AUDIT_ARCH_X86_64 };
			uint32_t act;

			memcpy(d.args, calls[i].args, sizeof(calls[i].args));
			act = (uint32_t)rules_filter_run(&prog, &d) & SECCOMP_RET_ACTION_FULL;
			if ((act == SECCOMP_RET_USER_NOTIF) != calls[i].notified)
				fprintf(stderr, "\npolicy %zu call %zu: 0x%x\n",
					p, i, act);
			CU_ASSERT_EQUAL(act, calls[i].notified ?
					SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW);
		}
		free(prog.filter);
		rules_free(rs);
	}
}

/* ---------------------------------------------------------------------
 * Permissive mode: a refusal of the policy becomes an allow that says
 * what it would have been; rewrites and sysgate's own guards stay.
 */

static void test_permissive_match(void)
{
	static const char text[] =
		"[policy]\ndefault = deny\nerrno = EPERM\n"
		"[rule rw]\nsyscalls = openat\npath = /tmp/**\n"
		"action = rewrite\nredirect = /tmp/sg\n"
		"[rule secret]\nsyscalls = openat\npath = /home/u/.ssh/**\n"
		"action = deny\nerrno = EACCES\naudit = no\n"
		"[rule k]\nsyscalls = ptrace\naction = kill\n"
		"[rule ok]\nsyscalls = openat\npath = /work/p/**\n"
		"action = allow\n";
	struct rules_set *rs = load_ok(text);
	struct rules_event ev = { .nr = __NR_openat,
				  .access = RULES_ACC_READ,
				  .path = "/home/u/.ssh/id_rsa" };
	struct rules_verdict v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_FALSE(rules_is_permissive(rs));
	CU_ASSERT_TRUE(rules_never_allows(rs, __NR_ptrace));
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	CU_ASSERT_EQUAL(v.would, RULES_ALLOW);

	rules_set_permissive(rs, true);
	CU_ASSERT_TRUE(rules_is_permissive(rs));
	CU_ASSERT_FALSE(rules_never_allows(rs, __NR_ptrace));
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(v.would, RULES_DENY);
	CU_ASSERT_EQUAL(v.err, EACCES);
	CU_ASSERT_TRUE(v.audit);	/* recorded despite audit = no */
	CU_ASSERT_STRING_EQUAL(v.rule, "secret");
	/* The default. */
	ev.path = "/etc/passwd";
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(v.would, RULES_DENY);
	CU_ASSERT_EQUAL(v.err, EPERM);
	CU_ASSERT_PTR_NULL(v.rule);
	/* A kill. */
	ev = (struct rules_event){ .nr = __NR_ptrace };
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(v.would, RULES_KILL);
	/* A rewrite stays one; an allow is plain. */
	ev = (struct rules_event){ .nr = __NR_openat,
				   .access = RULES_ACC_WRITE,
				   .path = "/tmp/x" };
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_REWRITE);
	CU_ASSERT_EQUAL(v.would, RULES_ALLOW);
	/* Rewritten again by another rewrite: denied in enforcement. */
	rules_match_rewritten(rs, &ev, "nothing", &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(v.would, RULES_DENY);
	ev.path = "/work/p/a";
	rules_match(rs, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_ALLOW);
	CU_ASSERT_EQUAL(v.would, RULES_ALLOW);
	/* Ranks: a would-be denial above a plain allow, below a rewrite. */
	{
		struct rules_verdict a = { .action = RULES_ALLOW };
		struct rules_verdict w = { .action = RULES_ALLOW,
					   .would = RULES_DENY };
		struct rules_verdict r = { .action = RULES_REWRITE };

		CU_ASSERT_TRUE(rules_verdict_rank(&w) > rules_verdict_rank(&a));
		CU_ASSERT_TRUE(rules_verdict_rank(&r) > rules_verdict_rank(&w));
	}
	/* Fail closed: no set, no relaxing. */
	rules_match(NULL, &ev, &v);
	CU_ASSERT_EQUAL(v.action, RULES_DENY);
	rules_free(rs);
}

static void test_permissive_key(void)
{
	struct rules_set *rs = load_ok("[policy]\nmode = permissive\n");
	char err[RULES_ERR_MAX] = "";

	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_TRUE(rules_is_permissive(rs));
	/* Not the prebuilt default's filter any more. */
	rules_free(rs);
	rs = load_ok("[policy]\nmode = enforce\n");
	CU_ASSERT_FALSE(rules_is_permissive(rs));
	rules_free(rs);
	rs = NULL;
	CU_ASSERT_EQUAL(rules_load_string("[policy]\nmode = permisive\n", NAME,
					  &vars, &rs, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "policy.ini:2:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "permissive"));
	CU_ASSERT_EQUAL(rules_load_default(&vars, &rs, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(rules_is_builtin_default(rs));
	rules_set_permissive(rs, true);
	CU_ASSERT_FALSE(rules_is_builtin_default(rs));
	rules_free(rs);
}

/*
 * The permissive filter refuses nothing the guards do not: every syscall
 * number with argument values around the guards', under the built-in
 * policy and a default-deny one, is allowed or notified unless the guard
 * filter alone refuses it the same way.
 */
static void test_permissive_filter(void)
{
	static const char *const texts[] = {
		NULL,
		"[policy]\ndefault = deny\naudit = none\n"
		"[rule a]\nsyscalls = read, write, getppid\naction = allow\n"
		"[rule b]\nsyscalls = getpid\narg0 = 5\naction = allow\n"
		"[rule c]\nsyscalls = personality\naction = kill\n",
		"[policy]\ndefault = kill\naudit = none\n"
		"[rule c]\nsyscalls = clone\narg0 = & CLONE_NEWUSER\n"
		"action = deny\n",
	};
	static const uint64_t argvals[] = { 0, 5, 0x00800000 /* UNTRACED */,
					    0x10000000, 0x5412, ~0ull };
	struct sock_fprog guard = { 0 };
	char err[RULES_ERR_MAX];

	CU_ASSERT_EQUAL_FATAL(rules_build_guard_filter(&guard), 0);
	for (size_t p = 0; p < ARRAY_LEN(texts); p++) {
		struct rules_set *rs = NULL;
		struct sock_fprog prog = { 0 };

		if (texts[p])
			rs = load_ok(texts[p]);
		else
			CU_ASSERT_EQUAL(rules_load_default(&vars, &rs, err,
							   sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
		rules_set_permissive(rs, true);
		CU_ASSERT_EQUAL_FATAL(rules_build_filter(rs, &prog), 0);
		for (int nr = 0; nr < 480; nr++)
			for (size_t a = 0; a < ARRAY_LEN(argvals); a++) {
				struct seccomp_data d = {
					.nr = nr, .arch = AUDIT_ARCH_X86_64,
					.args = { argvals[a], argvals[a] },
				};
				uint32_t act = (uint32_t)rules_filter_stacked(&guard,
								    &prog, &d);
				uint32_t g = (uint32_t)rules_filter_run(&guard, &d);
				uint32_t full = act & SECCOMP_RET_ACTION_FULL;

				if (full == SECCOMP_RET_ALLOW ||
				    full == SECCOMP_RET_USER_NOTIF)
					continue;
				if (act != g)
					fprintf(stderr,
						"\npolicy %zu nr %d arg 0x%llx: 0x%x\n",
						p, nr,
						(unsigned long long)argvals[a],
						act);
				CU_ASSERT_EQUAL(act, g);
			}
		free(prog.filter);
		rules_free(rs);
	}
	free(guard.filter);
}

/* ---------------------------------------------------------------------
 */

/* ---------------------------------------------------------------------
 * [env]: rules_env_apply().
 */

static size_t list_len(char **l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

/* Is s one of the strings of l? */
static bool list_has(char **l, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (strcmp(l[i], s) == 0)
			return true;
	return false;
}

static void test_env_glob(void)
{
	static const struct {
		const char *glob, *name;
		bool match;
	} t[] = {
		{ "*KEY", "OPENAI_API_KEY", true },
		{ "*KEY", "api_key", true },
		{ "*KEY", "KEYBOARD", false },
		{ "*KEY_*", "AWS_ACCESS_KEY_ID", true },
		{ "*KEY_*", "PYTHON_KEYRING_BACKEND", false },
		{ "*TOKEN_*", "TOKENIZERS_PARALLELISM", false },
		{ "*SECRET*", "AWS_SECRET_ACCESS_KEY", true },
		{ "A?C", "abc", true },
		{ "A?C", "AC", false },
		{ "*", "", true },
		{ "", "", true },
		{ "", "A", false },
		{ "**X*", "aXb", true },
		{ "*_*_*", "A_B", false },
		{ "*A*A*A*A*B", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", false },
	};

	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		bool m = rules_env_glob_match(t[i].glob, t[i].name,
					      strlen(t[i].name));

		if (m != t[i].match)
			fprintf(stderr, "\nglob '%s' name '%s': %d\n",
				t[i].glob, t[i].name, m);
		CU_ASSERT_EQUAL(m, t[i].match);
	}
	/* Only the n bytes given: "KEY=v" is matched as KEY. */
	CU_ASSERT_TRUE(rules_env_glob_match("*KEY", "MY_KEY=x", 6));
}

static void test_env_apply(void)
{
	static char e0[] = "PATH=/bin", e1[] = "api_key=1", e2[] = "API_KEY=2",
		    e3[] = "KEEP_KEY=3", e4[] = "GREETING=old", e5[] = "api_key=4",
		    e6[] = "NOEQUALS", e7[] = "LANG=C";
	char *envp[] = { e0, e1, e2, e3, e4, e5, e6, e7, NULL };
	struct rules_set *rs = load_ok("[policy]\ndefault = allow\n[env]\n"
				       "drop = *KEY, lang, NOEQ*\n"
				       "keep = keep_*\n"
				       "set = GREETING=hi ${RUN}\n"
				       "set = NEW = ${HOME}/x\n");
	char **env = NULL, **dropped = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_EQUAL_FATAL(rules_env_apply(rs, envp, &env, &dropped), 0);
	/* Kept in order, then the sets. */
	CU_ASSERT_EQUAL_FATAL(list_len(env), 4);
	CU_ASSERT_STRING_EQUAL(env[0], "PATH=/bin");
	CU_ASSERT_STRING_EQUAL(env[1], "KEEP_KEY=3");
	CU_ASSERT_STRING_EQUAL(env[2], "GREETING=hi r1");
	CU_ASSERT_STRING_EQUAL(env[3], "NEW=/home/u/x");
	/* Names only, each once, in envp's order; case is ignored. */
	CU_ASSERT_EQUAL_FATAL(list_len(dropped), 4);
	CU_ASSERT_STRING_EQUAL(dropped[0], "api_key");
	CU_ASSERT_STRING_EQUAL(dropped[1], "API_KEY");
	CU_ASSERT_STRING_EQUAL(dropped[2], "NOEQUALS");
	CU_ASSERT_STRING_EQUAL(dropped[3], "LANG");
	rules_env_free(env);
	rules_env_free(dropped);
	/* Without dropped_out. */
	CU_ASSERT_EQUAL(rules_env_apply(rs, envp, &env, NULL), 0);
	CU_ASSERT_EQUAL(list_len(env), 4);
	rules_env_free(env);
	rules_free(rs);

	/* No [env]: a copy, nothing dropped. */
	rs = load_ok("[policy]\ndefault = allow\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_EQUAL_FATAL(rules_env_apply(rs, envp, &env, &dropped), 0);
	CU_ASSERT_EQUAL(list_len(env), 8);
	CU_ASSERT_STRING_EQUAL(env[1], "api_key=1");
	CU_ASSERT_TRUE(env[1] != envp[1]);
	CU_ASSERT_EQUAL(list_len(dropped), 0);
	rules_env_free(env);
	rules_env_free(dropped);
	rules_free(rs);
	rules_env_free(NULL);
}

/* The built-in policy: secrets dropped, lookalikes kept. */
static void test_env_default(void)
{
	static const struct {
		const char *name;
		bool dropped;
	} t[] = {
		{ "OPENAI_API_KEY", true },
		{ "ANTHROPIC_API_KEY", true },
		{ "AWS_SECRET_ACCESS_KEY", true },
		{ "AWS_ACCESS_KEY_ID", true },
		{ "AWS_SESSION_TOKEN", true },
		{ "GITHUB_TOKEN", true },
		{ "GH_TOKEN", true },
		{ "HF_TOKEN", true },
		{ "NPM_TOKEN", true },
		{ "NODE_AUTH_TOKEN", true },
		{ "CARGO_REGISTRY_TOKEN", true },
		{ "TWINE_PASSWORD", true },
		{ "PGPASSWORD", true },
		{ "MYSQL_PWD", true },
		{ "SMTP_PASS", true },
		{ "AZURE_CLIENT_SECRET", true },
		{ "GOOGLE_APPLICATION_CREDENTIALS", true },
		{ "DOCKER_AUTH_CONFIG", true },
		{ "SSH_AUTH_SOCK", true },
		{ "npm_config__auth", true },
		{ "GITHUB_PAT", true },
		{ "GPG_PASSPHRASE", true },
		{ "openai_api_key", true },
		{ "PATH", false },
		{ "HOME", false },
		{ "PWD", false },
		{ "OLDPWD", false },
		{ "KEYBOARD", false },
		{ "TOKENIZERS_PARALLELISM", false },
		{ "XAUTHORITY", false },
		{ "XDG_RUNTIME_DIR", false },
		{ "XDG_SESSION_TYPE", false },
		{ "PYTHON_KEYRING_BACKEND", false },
		{ "GIT_ASKPASS", false },
		{ "SSH_ASKPASS", false },
		{ "GIT_AUTHOR_NAME", false },
		{ "DBUS_SESSION_BUS_ADDRESS", false },
		{ "LANG", false },
		{ "TERM", false },
		{ "TMPDIR", false },
		{ "ASAN_OPTIONS", false },
		{ "SSL_CERT_FILE", false },
	};
	char err[RULES_ERR_MAX] = "";
	struct rules_set *rs = NULL;
	char *envp[ARRAY_LEN(t) + 1];
	char buf[ARRAY_LEN(t)][64];
	char **env = NULL, **dropped = NULL;

	CU_ASSERT_EQUAL_FATAL(rules_load_default(&vars, &rs, err, sizeof(err)),
			      0);
	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s=v%zu", t[i].name, i);
		envp[i] = buf[i];
	}
	envp[ARRAY_LEN(t)] = NULL;
	CU_ASSERT_EQUAL_FATAL(rules_env_apply(rs, envp, &env, &dropped), 0);
	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		bool d = list_has(dropped, t[i].name);

		if (d != t[i].dropped)
			fprintf(stderr, "\n%s: dropped %d\n", t[i].name, d);
		CU_ASSERT_EQUAL(d, t[i].dropped);
		CU_ASSERT_EQUAL(list_has(env, buf[i]), !t[i].dropped);
	}
	rules_env_free(env);
	rules_env_free(dropped);
	rules_free(rs);
}

/* [env] and includes: keep and drop joined (keep wins), the including
 * file's set wins. */
static void test_env_include(void)
{
	char dir[] = "/tmp/sysgate-test-env.XXXXXX";
	char base[sizeof(dir) + 16], text[512];
	static char e0[] = "ABC=1", e1[] = "ABD=2", e2[] = "XYZ=3",
		    e3[] = "X=env";
	char *envp[] = { e0, e1, e2, e3, NULL };
	char **env = NULL, **dropped = NULL;
	struct rules_set *rs;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/base.ini", dir);
	f = fopen(base, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("[policy]\ndefault = allow\n[env]\ndrop = AB*\n"
	      "set = X=base\nset = Y=base\n", f);
	fclose(f);
	snprintf(text, sizeof(text),
		 "[policy]\ninclude = %s\n[env]\nkeep = ABD\ndrop = XYZ\n"
		 "set = X=top\n", base);
	rs = load_ok(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	CU_ASSERT_EQUAL_FATAL(rules_env_apply(rs, envp, &env, &dropped), 0);
	CU_ASSERT_EQUAL_FATAL(list_len(env), 3);
	CU_ASSERT_STRING_EQUAL(env[0], "ABD=2");
	CU_ASSERT_STRING_EQUAL(env[1], "X=top");
	CU_ASSERT_STRING_EQUAL(env[2], "Y=base");
	CU_ASSERT_EQUAL_FATAL(list_len(dropped), 2);
	CU_ASSERT_STRING_EQUAL(dropped[0], "ABC");
	CU_ASSERT_STRING_EQUAL(dropped[1], "XYZ");
	rules_env_free(env);
	rules_env_free(dropped);
	rules_free(rs);

	/* include = default and keep = NAME: the documented way. */
	rs = load_ok("[policy]\ninclude = default\n[env]\n"
		     "keep = OPENAI_API_KEY\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
	{
		static char k[] = "OPENAI_API_KEY=k",
			    sec[] = "AWS_SECRET_ACCESS_KEY=s";
		char *env2[] = { k, sec, NULL };

		CU_ASSERT_EQUAL_FATAL(rules_env_apply(rs, env2, &env, &dropped),
				      0);
		/* The key kept, and the default's four sets (caches in the
		 * private TMPDIR, npm's network checks off). */
		CU_ASSERT_EQUAL(list_len(env), 5);
		CU_ASSERT_TRUE(list_has(env, "OPENAI_API_KEY=k"));
		CU_ASSERT_TRUE(list_has(env, "npm_config_audit=false"));
		CU_ASSERT_EQUAL(list_len(dropped), 1);
		CU_ASSERT_TRUE(list_has(dropped, "AWS_SECRET_ACCESS_KEY"));
		rules_env_free(env);
		rules_env_free(dropped);
	}
	rules_free(rs);
	unlink(base);
	rmdir(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "parse: every error message", test_parse_errors },
		{ "parse: variables", test_parse_vars },
		{ "parse: variables as spelled", test_parse_vars_spelled },
		{ "match: a rewritten call", test_match_rewritten },
		{ "parse: inih traps", test_parse_inih_traps },
		{ "parse: limits", test_parse_limits },
		{ "parse: policy defaults", test_parse_policy_defaults },
		{ "parse: sizes", test_parse_sizes },
		{ "parse: files in tests/data", test_parse_files },
		{ "include: file, order and merge", test_include_ok },
		{ "include: default", test_include_default },
		{ "include: errors", test_include_errors },
		{ "include: depth", test_include_depth },
		{ "include: FIFOs and devices", test_include_special_files },
		{ "include: files of /proc and /sys", test_include_kernel_files },
		{ "include: 64 in all", test_include_total },
		{ "glob: table", test_glob_table },
		{ "glob: limits and speed", test_glob_limits },
		{ "glob: compiled = reference", test_glob_compiled_random },
		{ "addr: table", test_addr_table },
		{ "addr: edges", test_addr_edges },
		{ "consts", test_consts },
		{ "argcond parse", test_argcond_parse },
		{ "match: scalar args", test_arg_match },
		{ "match: order and verdict", test_match_order },
		{ "match: access on allow", test_match_access_allow },
		{ "match: audit per level", test_verdict_audit },
		{ "match: addresses", test_match_addr },
		{ "rewrite: paths, addresses, arguments", test_rewrite },
		{ "default policy", test_default_policy },
		{ "mechanism", test_mechanism },
		{ "permissive: verdicts", test_permissive_match },
		{ "permissive: [policy] mode", test_permissive_key },
		{ "permissive: filter", test_permissive_filter },
		{ "syscall table vs libseccomp", test_syscall_table },
		{ "groups", test_groups },
		{ "names", test_names },
		{ "filter: guard", test_guard_filter },
		{ "filter: policy", test_policy_filter },
		{ "filter: default policy", test_default_filter },
		{ "filter: prebuilt programs", test_prebuilt_filters },
		{ "filter: the guards held by the policy filter", test_filter_holds_guards },
		{ "filter: calls aimed at another process by pid", test_filter_target_calls },
		{ "filter: the closed syscall world", test_filter_closed_world },
		{ "filter: unmediated calls", test_unmediated },
		{ "filter: ioctls that change a file's attributes", test_filter_fileattr_ioctls },
		{ "filter: sockets and options no address describes", test_filter_unnamed_network },
		{ "explain: steps, shadowed rules, conditions", test_explain },
		{ "parse: warnings of valid policies", test_parse_warnings },
		{ "actions ordered by strictness", test_action_order },
		{ "explain: the matcher's order", test_explain_order },
		{ "env: name globs", test_env_glob },
		{ "env: keep, drop, set", test_env_apply },
		{ "env: the default policy's drops", test_env_default },
		{ "env: includes", test_env_include },
		{ "groups: system-wide state", test_groups_system_state },
		{ "filter: SysV IPC always notified", test_sysv_always_notified },
		{ "policies: system-wide state refused", test_policies_system_state },
		{ "filter: file leases", test_filter_lease },
		{ "filter: RLIMIT_CORE set", test_filter_core_limit },
	};
	return unit_run("rules", tests, ARRAY_LEN(tests));
}
