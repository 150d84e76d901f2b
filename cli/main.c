/* cli/main.c — the `bulkhead` command: dispatches to subcommands. */
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helm/chart.h"
#include "lib/heap.h"

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("bulkhead %s\n", PACKAGE_VERSION);
	return 0;
}

int cmd_check_kubeconfig(int argc, char **argv); /* cli/cmd_kube.c */
int cmd_template(int argc, char **argv); /* cli/cmd_template.c */
int cmd_release(int argc, char **argv); /* cli/cmd_release.c */
int cmd_values(int argc, char **argv); /* cli/cmd_values.c */
int cmd_reconcile(int argc, char **argv); /* cli/cmd_reconcile.c */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	int heavy; /* loads charts or values: the heap and stack are set up first (memory_setup) */
} commands[] = {
	{"version", cmd_version, "print the version", 0},
	{"check-kubeconfig", cmd_check_kubeconfig, "validate a kubeconfig (--strict: as a tenant's)", 0},
	{"template", cmd_template, "render a chart like `helm template` (same flags, same output)", 1},
	{"release", cmd_release, "Helm actions: install|upgrade|rollback|uninstall|test|unlock NAME ...", 1},
	{"values", cmd_values, "the values a HelmRelease gives its chart (as flux debug hr --show-values)", 1},
	{"reconcile", cmd_reconcile, "--once NAME|-f HR.yaml: one reconcile through the sandboxed worker, no daemon", 1},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-18s %s\n", commands[i].name, commands[i].help);
}

/* The heap's first HEAP_START bytes, populated in one madvise
 * (lib/heap.h): a small chart's run touches most of them anyway (podinfo's
 * heap peaks at 240 KiB; 60 of its 156 page faults were the heap's); a
 * bigger one's chart loader asks for more (heap_expect). Under a
 * sanitizer's allocator brk does not move and nothing is populated. */
#define HEAP_START (256 * 1024)
#define HEAP_MMAP (32 << 20) /* glibc's largest M_MMAP_THRESHOLD on 64-bit */

static int heap_prefault(void)
{
	/* template's parse threads (tmpl/engine_parallel.c) allocate little:
	 * from this heap, not from an arena of their own (a 64 MiB mapping and
	 * its trimming per thread) */
	if (!mallopt(M_MMAP_THRESHOLD, HEAP_MMAP) || !mallopt(M_ARENA_MAX, 1))
		return -1;
	return heap_populate(HEAP_START);
}

/* Past the first HEAP_SMALL bytes, the heap is on transparent huge pages
 * (lib/heap.h). A big chart's run touches thousands of heap pages (argo-cd's
 * documents are copied from the engine's output to each template's text, to
 * the documents, to the sorted manifest: 3100 page faults, half its CPU),
 * and a 2 MiB huge page is one fault. The first HEAP_SMALL bytes stay on
 * 4 KiB pages: a small or mid-size chart's whole heap (vault's,
 * external-secrets', about 1.5 MiB), whose peak RSS is then what it was. */
#define HEAP_SMALL ((size_t)2 << 20)
#define HEAP_HUGE ((size_t)28 << 20)

static void heap_huge(void)
{
	(void)heap_huge_pages(HEAP_SMALL, HEAP_HUGE, HEAP_MMAP);
}

/* The stack's next STACK_START bytes below this frame, populated the same
 * way (podinfo faulted 11 stack pages one at a time, 8 of them here). The kernel maps a
 * new process's stack 128 KiB deep, so the range is inside it. */
#define STACK_START (32 * 1024)

static void stack_prefault(void)
{
#ifdef MADV_POPULATE_WRITE
	char here;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t top = (uintptr_t)&here;
	if (pg <= 0)
		return;
	top &= ~((uintptr_t)pg - 1); /* this frame's page is present */
	(void)madvise((void *)(top - STACK_START), STACK_START, MADV_POPULATE_WRITE);
#endif
}

/* The heap and the stack of a command that loads charts or values; the
 * others (version, check-kubeconfig) touch less than the 64 heap pages
 * heap_prefault would populate (bulkhead version: 0.59 -> 0.52 ms of CPU). */
static void memory_setup(void)
{
	if (heap_prefault() == 0)
		heap_huge();
	stack_prefault();
}

/* A chart file that shrinks while it is mapped (helm/chart.h) raises SIGBUS
 * when its lost pages are read: name the file and stop with an error, as a
 * failed read would. Any other SIGBUS keeps its default action (the handler
 * is reset, and the faulting access runs again). */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char a[] = "Error: chart file ", b[] = " was truncated while it was being read\n";
	const char *p = chart_mapped_path(si->si_addr);
	(void)sig;
	(void)uc;
	if (!p)
		return;
	(void)!write(2, a, sizeof a - 1);
	(void)!write(2, p, strlen(p));
	(void)!write(2, b, sizeof b - 1);
	_exit(1);
}

static void sigbus_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGBUS, &sa, NULL);
}

int main(int argc, char **argv)
{
	sigbus_catch();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			if (commands[i].heavy)
				memory_setup();
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "bulkhead: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
