/* cli/main.c — the `bulkhead` command: dispatches to subcommands. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
} commands[] = {
	{"version", cmd_version, "print the version"},
	{"check-kubeconfig", cmd_check_kubeconfig, "validate a kubeconfig (--strict: as a tenant's)"},
	{"template", cmd_template, "render a chart like `helm template` (same flags, same output)"},
	{"release", cmd_release, "Helm actions: install|upgrade|rollback|uninstall|test|unlock NAME ..."},
	{"values", cmd_values, "the values a HelmRelease gives its chart (as flux debug hr --show-values)"},
	{"reconcile", cmd_reconcile, "--once NAME|-f HR.yaml: one reconcile through the sandboxed worker, no daemon"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-18s %s\n", commands[i].name, commands[i].help);
}

/* The heap's first HEAP_START bytes, populated in one madvise: a page
 * faulted in one at a time costs ~20 us on this kind of VM, a populated
 * one ~1 us, and a small chart's run touches most of them anyway (podinfo's
 * heap peaks at 240 KiB; 60 of its 156 page faults were the heap's).
 * Later growth takes the same pad, so brk is called rarely. Under a
 * sanitizer's allocator brk does not move and nothing is populated. */
#define HEAP_START (256 * 1024)

static void heap_prefault(void)
{
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	char *b0, *b1;
	void *volatile p; /* not elided with its free() */
	if (pg <= 0 || !mallopt(M_TOP_PAD, HEAP_START))
		return;
	b0 = sbrk(0);
	p = malloc(1); /* the main arena takes its first HEAP_START from brk */
	b1 = sbrk(0);
	b0 = (char *)(((uintptr_t)b0 + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1));
	if (b0 != (char *)-1 && b1 > b0)
		(void)madvise(b0, (size_t)(b1 - b0), MADV_POPULATE_WRITE);
	free(p);
#endif
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

int main(int argc, char **argv)
{
	heap_prefault();
	stack_prefault();
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
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "bulkhead: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
