// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof - a QEMU TCG plugin that counts the guest instructions executed
 * at each translated block, for scripts/insn-profile.
 *
 Each block's first address gets a counter that the translated code
 * itself increments (an inline add, no call per execution). Only what runs
 * inside windows counts: the guest opens one by executing the code at
 * INSNPROF_ON (a page ctxbench maps there, holding a "ret") and closes it
 * at INSNPROF_OFF; each toggle walks the table once. At exit the plugin
 * writes one line per block that ran in a window, "ADDRESS INSNS
 * EXECUTIONS", to the file named by its argument out=FILE.
 * scripts/insn-profile turns them into instructions per kernel function.
 *
 * Only the few entry points of QEMU's plugin API that this file uses are
 * declared here (QEMU 7.2, API version 1); Debian ships no header for it.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, void *udata), void *udata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu, void *udata),
	enum qemu_plugin_cb_flags flags, void *udata);

/* The guest's switches (bench/ctxbench.c maps them) */
#define INSNPROF_ON	0x7e5700000000ULL
#define INSNPROF_OFF	0x7e5700001000ULL

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/*
 * One entry per (address, length) of a block: the same address can be
 * translated again with another length (a breakpoint, an interrupt in
 * icount mode), and each translation counts its own executions.
 */
struct block {
	uint64_t addr;
	uint64_t insns;
	uint64_t execs;		/* incremented by the translated code */
	uint64_t mark;		/* execs when the window opened */
	uint64_t in_windows;	/* executions inside windows */
	struct block *next;
};

#define HASH_BITS	20
static struct block *table[1u << HASH_BITS];
static char *out_path;
static int window_open;
static unsigned long windows;

static unsigned int hash(uint64_t addr, uint64_t insns)
{
	return (unsigned int)(((addr ^ (insns << 40)) * 0x9e3779b97f4a7c15ULL) >>
			      (64 - HASH_BITS));
}

/* One vCPU thread (thread=single): the toggles need no locking either. */
static void toggle(unsigned int vcpu, void *udata)
{
	int open = udata != NULL;
	struct block *b;
	unsigned int i;

	if (open == window_open)
		return;
	window_open = open;
	windows += open;
	for (i = 0; i < (1u << HASH_BITS); i++)
		for (b = table[i]; b; b = b->next) {
			if (open)
				b->mark = b->execs;
			else
				b->in_windows += b->execs - b->mark;
		}
}

/* Translation runs under QEMU's translation lock: no locking of our own. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	uint64_t insns = qemu_plugin_tb_n_insns(tb);
	unsigned int h = hash(addr, insns);
	struct block *b;

	for (b = table[h]; b; b = b->next)
		if (b->addr == addr && b->insns == insns)
			break;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			abort();
		b->addr = addr;
		b->insns = insns;
		b->next = table[h];
		table[h] = b;
	}
	/* A block made while a window is open counts from zero. */
	if (window_open)
		b->mark = b->execs;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
	if (addr == INSNPROF_ON || addr == INSNPROF_OFF)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, toggle,
			QEMU_PLUGIN_CB_NO_REGS,
			addr == INSNPROF_ON ? (void *)1 : NULL);
}

static void write_counts(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;
	unsigned int i;

	if (!f) {
		perror(out_path);
		return;
	}
	if (window_open)
		toggle(0, NULL);
	fprintf(f, "windows %lu\n", windows);
	for (i = 0; i < (1u << HASH_BITS); i++)
		for (b = table[i]; b; b = b->next)
			if (b->in_windows)
				fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					b->addr, b->insns, b->in_windows);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
	if (!out_path) {
		fprintf(stderr, "insnprof: needs out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
