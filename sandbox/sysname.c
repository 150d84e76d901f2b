/* sandbox/sysname.c — the name of a refused syscall, for the supervisor's
 * reports (see sandbox.h). Apart from sandbox.c so that the worker, which
 * never names one, does not link libseccomp. */
#include "sandbox/sandbox.h"

#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

const char *sandbox_syscall_name(uint32_t nr, uint32_t arch, char *buf, unsigned long n)
{
	char *name = seccomp_syscall_resolve_num_arch(arch ? arch : SCMP_ARCH_NATIVE, (int)nr);
	if (name) {
		snprintf(buf, n, "%s", name);
		free(name);
	} else {
		snprintf(buf, n, "syscall %u", nr);
	}
	return buf;
}
