/* sandbox/sandbox.c — see sandbox.h. */
#include "sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h> /* ST_RDONLY, statfs's f_flags too */
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "proto/proto.h"

static int close_span(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return 0;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	for (unsigned fd = lo; fd <= hi && fd < 65536; fd++)
		close((int)fd);
	return 0;
}

int sandbox_close_fds(int keep1, int keep2, bh_error *err)
{
	int keep[2] = {keep1 < keep2 ? keep1 : keep2, keep1 < keep2 ? keep2 : keep1};
	unsigned lo = 0;
	for (int i = 0; i < 2; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo && close_span(lo, (unsigned)keep[i] - 1) < 0)
			goto fail;
		lo = (unsigned)keep[i] + 1;
	}
	if (close_span(lo, ~0U) < 0)
		goto fail;
	return 0;
fail:
	return bh_error_set(err, BH_EIO, "closing inherited file descriptors: %s", strerror(errno));
}

int sandbox_drop_caps(bh_error *err)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return bh_error_set(err, BH_EIO, "clearing ambient capabilities: %s", strerror(errno));
	/* one call per capability the kernel knows (41 on 6.x): they are
	 * numbered from 0 without gaps, and the first one past the last is
	 * EINVAL; dropping one already out of the set is no error. EPERM: no
	 * CAP_SETPCAP (no user namespace of our own), the set stays as it is;
	 * the kernel checks that before the number, so every later call would
	 * be EPERM too (64 calls, not 41, in a fetcher or a worker without a
	 * user namespace): the first one ends the loop */
	for (int c = 0; c <= 63; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EPERM)
			break;
		if (errno == EINVAL && c > 0)
			break;
		return bh_error_set(err, BH_EIO, "dropping capability %d from the bounding set: %s", c, strerror(errno));
	}
	{ /* capset(2) with empty sets: effective, permitted and inheritable */
		struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
		memset(d, 0, sizeof d);
		if (syscall(SYS_capset, &h, d) < 0)
			return bh_error_set(err, BH_EIO, "dropping all capabilities: %s", strerror(errno));
	}
	return 0;
}

static int set_limit(int res, const char *name, rlim_t soft, rlim_t hard, bh_error *err)
{
	struct rlimit rl = {soft, hard};
	if (setrlimit(res, &rl) < 0)
		return bh_error_set(err, BH_EIO, "setting %s: %s", name, strerror(errno));
	return 0;
}

static int set_limits(const sandbox_opts *o, bh_error *err)
{
	int hi = o->report_fd > o->keep_fd ? o->report_fd : o->keep_fd;
	int rc;
	if ((rc = set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", (rlim_t)hi + 4, (rlim_t)hi + 4, err)) < 0 ||
	    (rc = set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", 0, 0, err)) < 0 ||
	    (rc = set_limit(RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE", 0, 0, err)) < 0)
		return rc;
	if (o->as_bytes && (rc = set_limit(RLIMIT_AS, "RLIMIT_AS", o->as_bytes, o->as_bytes, err)) < 0)
		return rc;
	if (o->cpu_seconds &&
	    (rc = set_limit(RLIMIT_CPU, "RLIMIT_CPU", o->cpu_seconds, o->cpu_seconds + 5, err)) < 0)
		return rc;
	return 0;
}

/* ---- SIGSYS report ---------------------------------------------------------- */
static volatile int report_fd = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	unsigned char frame[IPC_HDR_SIZE + 8];
	ipc_hdr h = {PROTO_SECCOMP, 8, 0, 0};
	(void)sig;
	(void)uc;
	ipc_hdr_encode(&h, frame);
	proto_seccomp_encode(frame + IPC_HDR_SIZE, (uint32_t)si->si_syscall, si->si_arch);
	if (report_fd >= 0) {
		ssize_t n = write(report_fd, frame, sizeof frame);
		(void)n;
	}
	_exit(SANDBOX_EXIT_SECCOMP);
}

int sandbox_sigsys_report(int fd, bh_error *err)
{
	struct sigaction sa;
	sigset_t s;
	report_fd = fd;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		return bh_error_set(err, BH_EIO, "installing the SIGSYS handler: %s", strerror(errno));
	sigemptyset(&s);
	sigaddset(&s, SIGSYS);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	return 0;
}

/* ---- seccomp: a BPF program of our own (no libseccomp in the worker) ------------
 * The policy is data (the tables below); filter_build() turns each row into
 * a rule "nr == X [&& argument tests] -> action" tried in order, as
 * libseccomp's rules are, and the default action ends the program. A
 * non-native architecture or an x32 call is killed. */
#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SANDBOX_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "sandbox: no seccomp architecture for this target"
#endif
#ifndef __NR_poll /* legacy calls some architectures lack */
#define __NR_poll (-1)
#endif
#ifndef __NR_fchmodat2 /* newer than these kernel headers (Linux 6.6) */
#define __NR_fchmodat2 452
#endif

/* ---- the worker's policy: the whole of it on one screen ------------------------
 * Which calls a worker makes after its lock-down was measured, not guessed:
 * sandbox/SYSCALLS.md lists them and how (every corpus chart through bulkheadd
 * and every fuzz corpus through the locked-down render path, under strace).
 * Anything else traps: the worker is reported and ends. */
static const int worker_allow[] = {
	__NR_read, __NR_write, __NR_readv, __NR_writev, __NR_close, __NR_lseek, __NR_pread64, __NR_recvmsg,
	__NR_sendmsg, __NR_poll, __NR_ppoll, __NR_brk, __NR_munmap, __NR_mremap, __NR_madvise, __NR_futex,
	__NR_set_robust_list, __NR_clock_gettime, __NR_clock_nanosleep, __NR_nanosleep, __NR_gettimeofday,
	__NR_getrandom, __NR_getpid, __NR_gettid, __NR_getuid, __NR_geteuid, __NR_getgid, __NR_getegid, __NR_fstat,
	__NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_restart_syscall, __NR_sigaltstack, __NR_sched_yield, __NR_exit,
	__NR_exit_group,
};
/* Probes that libc and libraries survive: answered with an errno, not a kill.
 * sysinfo: glibc's qsort asks sysconf(_SC_PHYS_PAGES) when it first sorts
 * 1 KiB or more; worker_prepare() sorts once before the lock-down, so this
 * only guards a second caller (which then gets "unknown" and goes on). */
static const struct { int nr, err; } worker_errno[] = {
	{__NR_clone3, ENOSYS}, {__NR_openat2, ENOSYS}, {__NR_faccessat2, ENOSYS}, {__NR_statx, ENOSYS},
	{__NR_close_range, ENOSYS}, {__NR_rseq, ENOSYS}, {__NR_fchmodat2, ENOSYS}, {__NR_io_uring_setup, ENOSYS},
	{__NR_io_uring_enter, ENOSYS}, {__NR_io_uring_register, ENOSYS}, {__NR_sysinfo, ENOSYS}, {__NR_ioctl, ENOTTY},
};
const char sandbox_empty_path[] = "";

/* The policy as rules, tried in order: the first whose syscall number and
 * argument tests all match gives its action; a call no rule matches gets
 * the default (sandbox.h: sandbox_rule). The values that depend on the
 * process (the "" of sandbox_fstat, the pid) are filled in at load time. */
#define ARG_EQ(a, v) {(a), ~(uint64_t)0, (uint64_t)(v)}
#define ARG_CLEAR(a, bits) {(a), (uint64_t)(bits), 0}

unsigned sandbox_worker_rules(sandbox_rule *r, unsigned cap)
{
	const sandbox_rule args[] = {
		/* fcntl: the four flag commands */
		{__NR_fcntl, SECCOMP_RET_ALLOW, 1, {ARG_EQ(1, F_GETFL)}},
		{__NR_fcntl, SECCOMP_RET_ALLOW, 1, {ARG_EQ(1, F_SETFL)}},
		{__NR_fcntl, SECCOMP_RET_ALLOW, 1, {ARG_EQ(1, F_GETFD)}},
		{__NR_fcntl, SECCOMP_RET_ALLOW, 1, {ARG_EQ(1, F_SETFD)}},
		/* memory, never executable */
		{__NR_mmap, SECCOMP_RET_ALLOW, 1, {ARG_CLEAR(2, PROT_EXEC)}},
		{__NR_mprotect, SECCOMP_RET_ALLOW, 1, {ARG_CLEAR(2, PROT_EXEC)}},
		/* fstat(fd) only: newfstatat(fd, sandbox_empty_path, st, AT_EMPTY_PATH)
		 * (see sandbox_fstat); any other path pointer or flag traps */
		{__NR_newfstatat, SECCOMP_RET_ALLOW, 2, {ARG_EQ(1, (uintptr_t)sandbox_empty_path), ARG_EQ(3, AT_EMPTY_PATH)}},
		/* getrlimit of this process only: pid 0 or its own pid, no new limit */
		{__NR_prlimit64, SECCOMP_RET_ALLOW, 2, {ARG_EQ(0, 0), ARG_EQ(2, 0)}},
		{__NR_prlimit64, SECCOMP_RET_ALLOW, 2, {ARG_EQ(0, getpid()), ARG_EQ(2, 0)}},
		/* send/recv on the connected socket: no address */
		{__NR_sendto, SECCOMP_RET_ALLOW, 1, {ARG_EQ(4, 0)}},
		{__NR_recvfrom, SECCOMP_RET_ALLOW, 1, {ARG_EQ(4, 0)}},
	};
	unsigned n = 0;
	size_t i;
	for (i = 0; i < sizeof worker_allow / sizeof *worker_allow; i++)
		if (worker_allow[i] >= 0 && n++ < cap)
			r[n - 1] = (sandbox_rule){worker_allow[i], SECCOMP_RET_ALLOW, 0, {{0, 0, 0}}};
	for (i = 0; i < sizeof worker_errno / sizeof *worker_errno; i++)
		if (worker_errno[i].nr >= 0 && n++ < cap)
			r[n - 1] = (sandbox_rule){worker_errno[i].nr,
						  SECCOMP_RET_ERRNO | ((uint32_t)worker_errno[i].err & SECCOMP_RET_DATA), 0, {{0, 0, 0}}};
	for (i = 0; i < sizeof args / sizeof *args; i++)
		if (n++ < cap)
			r[n - 1] = args[i];
	return n;
}

/* ---- the rules as a BPF program ------------------------------------------------
 * The rules are sorted by syscall number (stable: rules of one number keep
 * their order) and searched as a binary tree: a few JGE tests, then a short
 * run of "nr == X" at a leaf. Every action ends in one RET at the end of
 * the program, shared by every rule that gives it: a plain number's JEQ
 * jumps there, a number's argument rules are tried in order and the last
 * test of each jumps there when it holds, and every miss (a leaf's last
 * number, a number's last rule) jumps to the default's RET. So a leaf is
 * its JEQs and its argument tests and nothing else. The program is emitted
 * twice: the first pass only counts (its jumps are not written), which
 * places the shared RETs; the second writes it.
 *
 * Fewer instructions are a cheaper load (the kernel checks, converts and
 * JIT-compiles each): 242 -> 181 made the seccomp() call about 150 -> 132
 * us of CPU, 181 -> 131 (the shared RETs) 78 -> 68 us on a later kernel
 * (bench_spawn --parts). The kernel walks the program for every syscall
 * number when it loads it (to cache the calls it always allows) and then
 * for each call the cache does not answer: a linear program of 220
 * instructions made the load cost about 240 us more than a trivial one.
 * Jumps in classic BPF go forward by at most 255: a program that would
 * need more is refused (BH_ELIMIT) rather than built wrong. */
#define FILTER_MAX 512
#define FILTER_LEAF 4 /* numbers per leaf */
#define FILTER_RETS 8 /* distinct actions, the default and the kill included */
#define FILTER_NEXT (~0u) /* a test that holds goes on to the next instruction */
typedef struct {
	struct sock_filter *f; /* NULL in the counting pass */
	unsigned cap, n;
	int too_far;
	unsigned ret_at; /* where the shared RETs begin (the counted length) */
	uint32_t rets[FILTER_RETS];
	unsigned nrets;
} filter;

static void emit(filter *p, uint16_t code, uint32_t k, unsigned jt, unsigned jf)
{
	if (jt > 255 || jf > 255)
		p->too_far = 1;
	if (p->f && p->n < p->cap)
		p->f[p->n] = (struct sock_filter){code, (uint8_t)jt, (uint8_t)jf, k};
	p->n++;
}

/* The jump from the instruction emitted next to the one at index at
 * (FILTER_NEXT: no jump); 0 in the counting pass, where the shared RETs
 * are not placed yet. */
static unsigned dist(const filter *p, unsigned at)
{
	return at != FILTER_NEXT && at > p->n ? at - p->n - 1 : 0;
}

/* The index of action's shared RET (filter_rets put it in the list). */
static unsigned ret_of(const filter *p, uint32_t action)
{
	unsigned i = 0;
	while (i + 1 < p->nrets && p->rets[i] != action)
		i++;
	return p->ret_at + i;
}

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4) /* little-endian */

/* One half (32 bits) of an argument test, "(word & mask) == val", in as
 * few instructions as it needs: none when it always holds (mask 0, val 0);
 * load and JEQ when the whole word is compared; load and JSET when the
 * masked bits must be clear (val 0); else load, AND and JEQ. */
static unsigned half_len(uint32_t mask, uint32_t val)
{
	if (mask == 0 && val == 0)
		return 0;
	return mask == ~(uint32_t)0 || val == 0 ? 2 : 3;
}

/* A half that fails jumps to fail_at, one that holds to ok_at (or on). */
static void emit_half(filter *p, uint32_t off, uint32_t mask, uint32_t val, unsigned fail_at, unsigned ok_at)
{
	unsigned len = half_len(mask, val);
	if (len == 0)
		return;
	emit(p, BPF_LD | BPF_W | BPF_ABS, off, 0, 0);
	if (len == 3)
		emit(p, BPF_ALU | BPF_AND | BPF_K, mask, 0, 0);
	if (len == 2 && mask != ~(uint32_t)0)
		emit(p, BPF_JMP | BPF_JSET | BPF_K, mask, dist(p, fail_at), dist(p, ok_at));
	else
		emit(p, BPF_JMP | BPF_JEQ | BPF_K, val, dist(p, ok_at), dist(p, fail_at));
}

static unsigned test_len(const sandbox_arg_test *t)
{
	return half_len((uint32_t)(t->mask >> 32), (uint32_t)(t->val >> 32)) + half_len((uint32_t)t->mask, (uint32_t)t->val);
}

/* The length of one rule's code: its tests, or a RET when it has none
 * that can fail. */
static unsigned rule_len(const sandbox_rule *r)
{
	unsigned len = 0;
	for (unsigned i = 0; i < r->n; i++)
		len += test_len(&r->t[i]);
	return len ? len : 1;
}

/* A rule whose tests always hold: it answers, and later rules of its
 * number never match. */
static int rule_plain(const sandbox_rule *r)
{
	for (unsigned i = 0; i < r->n; i++)
		if (test_len(&r->t[i]))
			return 0;
	return 1;
}

/* The rules r[0..n) of one syscall number, after "nr == X": each rule's
 * tests, a failing one jumping to the next rule (after the last, to the
 * default's RET) and the last one, when it holds, to the action's RET. */
static void emit_number(filter *p, const sandbox_rule *r, size_t n, uint32_t dflt)
{
	for (size_t k = 0; k < n; k++) {
		unsigned left = rule_len(&r[k]), next = p->n + left;
		if (rule_plain(&r[k])) {
			emit(p, BPF_RET | BPF_K, r[k].action, 0, 0);
			return;
		}
		if (k + 1 == n)
			next = ret_of(p, dflt);
		for (unsigned i = 0; i < r[k].n; i++) {
			const sandbox_arg_test *t = &r[k].t[i];
			uint32_t halves[2][3] = {{(uint32_t)ARG_HI(t->arg), (uint32_t)(t->mask >> 32), (uint32_t)(t->val >> 32)},
						 {(uint32_t)ARG_LO(t->arg), (uint32_t)t->mask, (uint32_t)t->val}};
			for (int h = 0; h < 2; h++) {
				left -= half_len(halves[h][1], halves[h][2]);
				emit_half(p, halves[h][0], halves[h][1], halves[h][2], next,
					  left ? FILTER_NEXT : ret_of(p, r[k].action));
			}
		}
	}
}

/* The length of emit_number's code for r[0..n). */
static unsigned number_len(const sandbox_rule *r, size_t n)
{
	unsigned len = 0;
	for (size_t k = 0; k < n; k++) {
		len += rule_len(&r[k]);
		if (rule_plain(&r[k]))
			break;
	}
	return len;
}

/* How many rules from r[0] share its syscall number. */
static size_t same_number(const sandbox_rule *r, size_t n)
{
	size_t k = 1;
	while (k < n && r[k].nr == r[0].nr)
		k++;
	return k;
}

/* A leaf: r[0..n) (sorted, at most FILTER_LEAF numbers). A number whose
 * first rule is plain is one "nr == X" jumping to its action's RET; any
 * other is "nr == X" and its rules (emit_number). The leaf's last number,
 * when it is not the call's, jumps to the default's RET. */
static void emit_leaf(filter *p, const sandbox_rule *r, size_t n, uint32_t dflt)
{
	size_t k, m;
	for (k = 0; k < n; k += m) {
		unsigned miss;
		m = same_number(r + k, n - k);
		miss = k + m == n ? ret_of(p, dflt) : p->n + 1 + (rule_plain(&r[k]) ? 0 : number_len(r + k, m));
		if (rule_plain(&r[k])) {
			emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r[k].nr, dist(p, ret_of(p, r[k].action)), dist(p, miss));
		} else {
			emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r[k].nr, 0, dist(p, miss));
			emit_number(p, r + k, m, dflt);
		}
	}
}

/* The search over r[0..n) (sorted); the accumulator holds the number. */
static void emit_tree(filter *p, const sandbox_rule *r, size_t n, unsigned numbers, uint32_t dflt)
{
	if (numbers <= FILTER_LEAF) {
		emit_leaf(p, r, n, dflt);
		return;
	}
	{ /* split at the first rule of the middle number */
		size_t mid = 0;
		unsigned jge, seen = 0;
		while (seen < numbers / 2) {
			mid += same_number(r + mid, n - mid);
			seen++;
		}
		jge = p->n;
		emit(p, BPF_JMP | BPF_JGE | BPF_K, (uint32_t)r[mid].nr, 0, 0);
		emit_tree(p, r, mid, seen, dflt);
		if (p->n - jge - 1 > 255)
			p->too_far = 1;
		if (p->f && jge < p->cap)
			p->f[jge].jt = (uint8_t)(p->n - jge - 1);
		emit_tree(p, r + mid, n - mid, numbers - seen, dflt);
	}
}

/* The program up to its shared RETs: the architecture (another one, or an
 * x32 call, is killed), then the search. */
static void emit_body(filter *p, const sandbox_rule *r, unsigned n, unsigned numbers, uint32_t dflt)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 0, dist(p, ret_of(p, SECCOMP_RET_KILL_PROCESS)));
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#ifdef SANDBOX_X32_BIT
	emit(p, BPF_JMP | BPF_JGE | BPF_K, SANDBOX_X32_BIT, dist(p, ret_of(p, SECCOMP_RET_KILL_PROCESS)), 0);
#endif
	emit_tree(p, r, n, numbers, dflt);
}

/* The shared RETs' actions: the default first, the kill, then each rule's
 * in the order first met. -1 when there are more than FILTER_RETS. */
static int filter_rets(filter *p, const sandbox_rule *r, unsigned n, uint32_t dflt)
{
	p->rets[0] = dflt;
	p->rets[1] = SECCOMP_RET_KILL_PROCESS;
	p->nrets = 2;
	for (unsigned i = 0; i < n; i++) {
		unsigned a = 0;
		while (a < p->nrets && p->rets[a] != r[i].action)
			a++;
		if (a < p->nrets)
			continue;
		if (p->nrets == FILTER_RETS)
			return -1;
		p->rets[p->nrets++] = r[i].action;
	}
	return 0;
}

int sandbox_worker_filter(struct sock_filter *out, unsigned cap, int survey, bh_error *err)
{
	uint32_t dflt = survey ? SECCOMP_RET_LOG : SECCOMP_RET_TRAP;
	filter p = {NULL, cap < FILTER_MAX ? cap : FILTER_MAX, 0, 0, 0, {0}, 0};
	sandbox_rule r[FILTER_MAX / 4];
	unsigned n = sandbox_worker_rules(r, sizeof r / sizeof *r), numbers = 0;
	if (n > sizeof r / sizeof *r)
		return bh_error_set(err, BH_ELIMIT, "the seccomp policy has %u rules (at most %zu)", n, sizeof r / sizeof *r);
	/* insertion sort, stable (a few dozen rules) */
	for (unsigned i = 1; i < n; i++) {
		sandbox_rule x = r[i];
		unsigned j = i;
		for (; j > 0 && r[j - 1].nr > x.nr; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
	for (unsigned i = 0; i < n; i++)
		numbers += i == 0 || r[i].nr != r[i - 1].nr;
	if (filter_rets(&p, r, n, dflt) < 0)
		return bh_error_set(err, BH_ELIMIT, "the seccomp policy has more than %d actions", FILTER_RETS);
	emit_body(&p, r, n, numbers, dflt); /* counting */
	p.ret_at = p.n;
	p.f = out;
	p.n = 0;
	p.too_far = 0;
	emit_body(&p, r, n, numbers, dflt);
	for (unsigned a = 0; a < p.nrets; a++)
		emit(&p, BPF_RET | BPF_K, p.rets[a], 0, 0);
	if (p.n > p.cap)
		return bh_error_set(err, BH_ELIMIT, "the seccomp filter has %u instructions (at most %u)", p.n, p.cap);
	if (p.too_far)
		return bh_error_set(err, BH_ELIMIT, "the seccomp filter needs a jump longer than 255 instructions");
	return (int)p.n;
}

int sandbox_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, fd, sandbox_empty_path, st, AT_EMPTY_PATH);
}

int sandbox_seccomp_load(int fd, bh_error *err)
{
	return sandbox_seccomp_load_mode(fd, 0, err);
}

/* The filter, after the SIGSYS handler; no_new_privs is set first unless
 * the caller (sandbox_lockdown) already did. */
static int seccomp_load(int fd, int survey, int nnp_set, bh_error *err)
{
	static struct sock_filter f[FILTER_MAX]; /* 4 KiB: off the stack */
	struct sock_fprog prog;
	int rc, n;
	if ((rc = sandbox_sigsys_report(fd, err)) < 0)
		return rc;
	if ((n = sandbox_worker_filter(f, FILTER_MAX, survey, err)) < 0)
		return n;
	if (!nnp_set && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "setting no_new_privs: %s", strerror(errno));
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return bh_error_set(err, BH_EIO, "loading the seccomp filter: %s", strerror(errno));
	return 0;
}

int sandbox_seccomp_load_mode(int fd, int survey, bh_error *err)
{
	return seccomp_load(fd, survey, 0, err);
}

/* ---- namespaces: best effort, measured, reported ------------------------------ */
static unsigned isolation;

#define SANDBOX_NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)

/* An empty read-only tmpfs mounted on /tmp of a new mount namespace, and
 * the cwd there. */
static int mount_empty(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("bulkhead-empty", "/tmp", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555") < 0)
		return -1;
	return chdir("/tmp");
}

static unsigned isolate(void)
{
	unsigned got = 0;
	if (unshare(SANDBOX_NS_FLAGS) < 0)
		return 0;
	got |= SANDBOX_ISO_USERNS | SANDBOX_ISO_NONET;
	/* an empty read-only tmpfs as the root: no path leads anywhere */
	if (mount_empty() == 0 && chroot(".") == 0 && chdir("/") == 0)
		got |= SANDBOX_ISO_NOFS;
	return got;
}

/* Joins the namespaces of the holder whose pidfd is fd (all five at once,
 * the user namespace first: the kernel orders them). Its mount namespace
 * holds only the empty tmpfs, pivoted to be its root, which setns makes
 * this process's root and cwd: checked (a read-only tmpfs), not assumed;
 * were it not, a mount namespace of its own with the empty root as
 * isolate() makes. 0 when nothing was joined (the caller unshares its
 * own). */
static unsigned join(int fd)
{
	struct statfs sf;
	unsigned got = SANDBOX_ISO_USERNS | SANDBOX_ISO_NONET;
	if (setns(fd, SANDBOX_NS_FLAGS) < 0)
		return 0;
	if ((statfs("/", &sf) == 0 && sf.f_type == TMPFS_MAGIC && (sf.f_flags & ST_RDONLY)) ||
	    (unshare(CLONE_NEWNS) == 0 && mount_empty() == 0 && chroot(".") == 0 && chdir("/") == 0))
		got |= SANDBOX_ISO_NOFS;
	return got;
}

/* The holder's namespaces: new ones, the tmpfs made the mount
 * namespace's root (the host's detached), and then nothing left to use:
 * its other fds closed, its capabilities dropped, the worker's filter. */
static int hold_setup(int fd, bh_error *err)
{
	int rc;
	if (unshare(SANDBOX_NS_FLAGS) < 0)
		return bh_error_set(err, BH_EDENIED, "unsharing the namespaces: %s", strerror(errno));
	if (mount_empty() < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return bh_error_set(err, BH_EDENIED, "an empty root for the namespaces: %s", strerror(errno));
	if ((rc = sandbox_close_fds(fd, -1, err)) < 0 || (rc = sandbox_drop_caps(err)) < 0 ||
	    (rc = sandbox_seccomp_load(fd, err)) < 0)
		return rc;
	return 0;
}

int sandbox_hold_namespaces(int fd, bh_error *err)
{
	char c;
	ssize_t r;
	int rc = hold_setup(fd, err);
	if (write(fd, rc < 0 ? "n" : "y", 1) != 1 && rc == 0)
		rc = bh_error_set(err, BH_EIO, "telling the supervisor: %s", strerror(errno));
	if (rc < 0)
		return rc;
	while ((r = read(fd, &c, 1)) > 0 || (r < 0 && errno == EINTR))
		;
	return 0;
}

unsigned sandbox_isolation(void)
{
	return isolation;
}

/* The phase worker (tests/bench/phase_worker, built with
 * -DBH_SANDBOX_PHASES) records the thread's CPU time after each step of
 * the lock-down for tests/bench/bench_spawn; bulkhead-worker does not. */
#ifdef BH_SANDBOX_PHASES
#include <time.h>
unsigned long sandbox_phase_us[SANDBOX_PHASES];
static void phase(int i)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	sandbox_phase_us[i] = (unsigned long)ts.tv_sec * 1000000ul + (unsigned long)ts.tv_nsec / 1000;
}
#else
#define phase(i) ((void)0)
#endif

int sandbox_lockdown(const sandbox_opts *o, bh_error *err)
{
	int rc;
	phase(0);
	isolation = o->ns_fd > 2 ? join(o->ns_fd) : 0; /* before its fd is closed */
	if ((rc = sandbox_close_fds(o->report_fd, o->keep_fd, err)) < 0)
		return rc;
	if (!isolation)
		isolation = isolate();
	phase(1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "setting no_new_privs: %s", strerror(errno));
	if ((rc = sandbox_drop_caps(err)) < 0)
		return rc;
	phase(2);
	if ((rc = set_limits(o, err)) < 0)
		return rc;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return bh_error_set(err, BH_EIO, "clearing dumpable: %s", strerror(errno));
	rc = seccomp_load(o->report_fd, o->survey, 1, err);
	phase(3);
	return rc;
}
