/* worker/prepare.h — everything a worker finishes before its lock-down:
 * the lazy initialisations of libc and the libraries that would otherwise
 * open files or ask the kernel for things the seccomp filter forbids, the
 * first time a job needs them. The list comes from the syscall survey
 * (sandbox/SYSCALLS.md): add here, not to the filter, when a new one shows. */
#ifndef BH_WORKER_PREPARE_H
#define BH_WORKER_PREPARE_H

/* 0, or -1 when a library could not initialise (the worker must not run). */
int worker_prepare(void);

#endif
