/* SPDX-License-Identifier: MIT */
/*
 * rules/bpf.c: what a seccomp filter returns for one call, by running its
 * classic BPF program as the kernel would.  For `sysgate check --explain`,
 * which tells what the filter of a run decides, and for the unit tests,
 * which compare the filters with the rules.  Not on the trusted path.
 */
#include <linux/seccomp.h>
#include <string.h>

#include "rules/internal.h"

static bool bpf_alu(uint16_t code, uint32_t src, uint32_t *a)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += src; break;
	case BPF_SUB: *a -= src; break;
	case BPF_AND: *a &= src; break;
	case BPF_OR: *a |= src; break;
	case BPF_XOR: *a ^= src; break;
	case BPF_LSH: *a = src < 32 ? *a << src : 0; break;
	case BPF_RSH: *a = src < 32 ? *a >> src : 0; break;
	case BPF_NEG: *a = -*a; break;
	default: return false;
	}
	return true;
}

/* The jump's offset, or -1 for an unknown one. */
static long bpf_jump(const struct sock_filter *f, uint32_t a, uint32_t src)
{
	switch (BPF_OP(f->code)) {
	case BPF_JA: return f->k;
	case BPF_JEQ: return a == src ? f->jt : f->jf;
	case BPF_JGT: return a > src ? f->jt : f->jf;
	case BPF_JGE: return a >= src ? f->jt : f->jf;
	case BPF_JSET: return a & src ? f->jt : f->jf;
	default: return -1;
	}
}

int64_t rules_filter_run(const struct sock_fprog *p,
			 const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (unsigned pc = 0; pc < p->len; pc++) {
		const struct sock_filter *f = &p->filter[pc];
		uint32_t k = f->k, src = BPF_SRC(f->code) == BPF_X ? x : k;
		long off;

		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
				if (k % 4 || k > sizeof(*d) - 4)
					return -1;
				memcpy(&a, (const char *)d + k, 4);
			} else if (f->code == (BPF_LD | BPF_IMM)) {
				a = k;
			} else if (f->code == (BPF_LD | BPF_MEM) &&
				   k < BPF_MEMWORDS) {
				a = mem[k];
			} else {
				return -1;
			}
			break;
		case BPF_LDX:
			if (f->code == (BPF_LDX | BPF_IMM))
				x = k;
			else if (f->code == (BPF_LDX | BPF_MEM) &&
				 k < BPF_MEMWORDS)
				x = mem[k];
			else
				return -1;
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return -1;
			mem[k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (!bpf_alu(f->code, src, &a))
				return -1;
			break;
		case BPF_JMP:
			off = bpf_jump(f, a, src);
			if (off < 0 || (unsigned long)off >= p->len - pc)
				return -1;
			pc += (unsigned)off;
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return -1;
		}
	}
	return -1;
}

int64_t rules_filter_stacked(const struct sock_fprog *guard,
			     const struct sock_fprog *policy,
			     const struct seccomp_data *d)
{
	int64_t p = rules_filter_run(policy, d), g;

	if (!guard || p < 0)
		return p;
	g = rules_filter_run(guard, d);
	if (g < 0)
		return -1;
	return (int32_t)((uint32_t)g & SECCOMP_RET_ACTION_FULL) <
	       (int32_t)((uint32_t)p & SECCOMP_RET_ACTION_FULL) ? g : p;
}
