/* fetcher/lockdown.h — bulkhead-fetcher's sandbox, applied before it reads
 * its request: every fd closed but its socket, no_new_privs, no
 * capabilities, rlimits (address space, CPU, no core, 1 GiB per file: the
 * artifact memfd), not
 * dumpable, a Landlock ruleset that lets it read only the resolver's files
 * (/etc/hosts, /etc/resolv.conf, ...) and write nothing, and the seccomp
 * allow-list in lockdown.c: network sockets (AF_INET/AF_INET6 only), threads
 * (libcurl's resolver) but no fork or exec, no ptrace, no kill. Without
 * Landlock (an old kernel) opening any path fails with EACCES instead. */
#ifndef BH_FETCHER_LOCKDOWN_H
#define BH_FETCHER_LOCKDOWN_H

#include "lib/error.h"

typedef struct lockdown_opts {
	int sock;                     /* kept open; SIGSYS reports go there */
	unsigned long long as_bytes;  /* RLIMIT_AS */
	unsigned long cpu_seconds;    /* RLIMIT_CPU */
} lockdown_opts;

/* 1 when the Landlock ruleset was applied, 0 when the kernel has none
 * (paths then cannot be opened at all), negative on failure (the caller
 * must exit). */
int lockdown_apply(const lockdown_opts *o, bh_error *err);

#endif
