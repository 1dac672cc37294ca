/* SPDX-License-Identifier: MIT */
/*
 * Names for the numbers calls and signals carry (decode.h): pure tables
 * and parsers, shared by every consumer of the trail through record.c.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "common/util.h"
#include "rules/rules.h"
#include "supervisor/decode.h"

struct code_name {
	int code;
	const char *name;
};

static const char *code_lookup(const struct code_name *t, size_t n, int code)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

#define LOOKUP(t, c) code_lookup((t), ARRAY_SIZE(t), (c))

/* siginfo.h: codes a task or the kernel sets for any signal. */
static const struct code_name si_any[] = {
	{ 0, "SI_USER" }, { 0x80, "SI_KERNEL" }, { -1, "SI_QUEUE" },
	{ -2, "SI_TIMER" }, { -3, "SI_MESGQ" }, { -4, "SI_ASYNCIO" },
	{ -5, "SI_SIGIO" }, { -6, "SI_TKILL" }, { -7, "SI_DETHREAD" },
	{ -60, "SI_ASYNCNL" },
};

static const struct code_name si_segv[] = {
	{ 1, "SEGV_MAPERR" }, { 2, "SEGV_ACCERR" }, { 3, "SEGV_BNDERR" },
	{ 4, "SEGV_PKUERR" }, { 5, "SEGV_ACCADI" }, { 6, "SEGV_ADIDERR" },
	{ 7, "SEGV_ADIPERR" }, { 8, "SEGV_MTEAERR" }, { 9, "SEGV_MTESERR" },
	{ 10, "SEGV_CPERR" },
};

static const struct code_name si_bus[] = {
	{ 1, "BUS_ADRALN" }, { 2, "BUS_ADRERR" }, { 3, "BUS_OBJERR" },
	{ 4, "BUS_MCEERR_AR" }, { 5, "BUS_MCEERR_AO" },
};

static const struct code_name si_ill[] = {
	{ 1, "ILL_ILLOPC" }, { 2, "ILL_ILLOPN" }, { 3, "ILL_ILLADR" },
	{ 4, "ILL_ILLTRP" }, { 5, "ILL_PRVOPC" }, { 6, "ILL_PRVREG" },
	{ 7, "ILL_COPROC" }, { 8, "ILL_BADSTK" }, { 9, "ILL_BADIADDR" },
};

static const struct code_name si_fpe[] = {
	{ 1, "FPE_INTDIV" }, { 2, "FPE_INTOVF" }, { 3, "FPE_FLTDIV" },
	{ 4, "FPE_FLTOVF" }, { 5, "FPE_FLTUND" }, { 6, "FPE_FLTRES" },
	{ 7, "FPE_FLTINV" }, { 8, "FPE_FLTSUB" }, { 14, "FPE_FLTUNK" },
	{ 15, "FPE_CONDTRAP" },
};

static const struct code_name si_trap[] = {
	{ 1, "TRAP_BRKPT" }, { 2, "TRAP_TRACE" }, { 3, "TRAP_BRANCH" },
	{ 4, "TRAP_HWBKPT" }, { 5, "TRAP_UNK" }, { 6, "TRAP_PERF" },
};

static const struct code_name si_chld[] = {
	{ 1, "CLD_EXITED" }, { 2, "CLD_KILLED" }, { 3, "CLD_DUMPED" },
	{ 4, "CLD_TRAPPED" }, { 5, "CLD_STOPPED" }, { 6, "CLD_CONTINUED" },
};

static const struct code_name si_poll[] = {
	{ 1, "POLL_IN" }, { 2, "POLL_OUT" }, { 3, "POLL_MSG" },
	{ 4, "POLL_ERR" }, { 5, "POLL_PRI" }, { 6, "POLL_HUP" },
};

static const struct code_name si_sys[] = {
	{ 1, "SYS_SECCOMP" }, { 2, "SYS_USER_DISPATCH" },
};

const char *decode_si_code(int signo, int code)
{
	/* Codes <= 0 and SI_KERNEL mean the same for every signal; the
	 * positive ones are per signal. */
	if (code <= 0 || code == 0x80)
		return LOOKUP(si_any, code);
	switch (signo) {
	case SIGSEGV:
		return LOOKUP(si_segv, code);
	case SIGBUS:
		return LOOKUP(si_bus, code);
	case SIGILL:
		return LOOKUP(si_ill, code);
	case SIGFPE:
		return LOOKUP(si_fpe, code);
	case SIGTRAP:
		return LOOKUP(si_trap, code);
	case SIGCHLD:
		return LOOKUP(si_chld, code);
	case SIGIO:
		return LOOKUP(si_poll, code);
	case SIGSYS:
		return LOOKUP(si_sys, code);
	default:
		return NULL;
	}
}

static bool is_fault_signal(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
	       signo == SIGFPE;
}

void decode_sig_note(const void *siginfo, struct sig_note *n)
{
	siginfo_t si;

	memcpy(&si, siginfo, sizeof(si));
	*n = (struct sig_note){ .have = true, .signo = si.si_signo,
				.code = si.si_code, .syscall = -1 };
	/* Sent by a task (kill, sigqueue, tgkill, a message queue's
	 * notification): si_pid and si_uid name it.  A timer's and the
	 * other negative codes carry no sender there. */
	if (si.si_code == SI_USER || si.si_code == SI_QUEUE ||
	    si.si_code == SI_TKILL || si.si_code == SI_MESGQ) {
		n->has_sender = true;
		n->pid = si.si_pid;
		n->uid = si.si_uid;
	} else if (is_fault_signal(si.si_signo) && si.si_code != 0x80) {
		n->has_addr = true;
		n->addr = (uint64_t)(uintptr_t)si.si_addr;
	} else if (si.si_signo == SIGSYS && si.si_code == 1) {
		n->syscall = si.si_syscall;
	}
}

void decode_add_sig_note(struct audit_rec *r, const struct sig_note *n)
{
	const char *cn;

	if (!n->have)
		return;
	cn = decode_si_code(n->signo, n->code);
	if (cn)
		audit_str(r, "si_code", cn);
	else
		audit_int(r, "si_code", n->code);
	if (n->has_sender) {
		audit_int(r, "sender_pid", n->pid);
		audit_uint(r, "sender_uid", n->uid);
	}
	if (n->has_addr)
		audit_hex(r, "fault_addr", n->addr);
	if (n->syscall >= 0 && rules_syscall_name(n->syscall))
		audit_str(r, "si_syscall", rules_syscall_name(n->syscall));
	else if (n->syscall >= 0)
		audit_int(r, "si_syscall", n->syscall);
}
