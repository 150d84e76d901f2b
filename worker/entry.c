/* worker/entry.c — bulkhead-worker's ELF entry point (linked with
 * -e bh_worker_start), run before libc's _start: it maps the worker's own
 * image and the top of its stack in three madvise calls, then jumps to
 * _start with the registers the kernel gave it.
 *
 * Why: on a paravirtualised guest (PVM) each page fault costs 20-50 us (the
 * exception, not the page). A static PIE relocates itself at start: about
 * 100 copy-on-write faults on .data.rel.ro (OpenSSL's tables, mostly), then
 * 70-80 read faults on the code it runs and some 25 on its stack.
 * MADV_POPULATE_READ maps the read-only segments (about 6 MiB of shared page
 * cache, no copy) and MADV_POPULATE_WRITE copies the writable one and the
 * stack's top, one call each: about 0.5 ms in all.
 * A kernel older than 5.14 refuses the calls (EINVAL) and the pages fault
 * in as before. Addresses stay the kernel's random ones: nothing is moved.
 *
 * No C here can run: before _start there is no relocation, no TLS and no
 * stack protector, so the entry is a few instructions of assembly (x86-64;
 * on aarch64 it only branches to _start). */

#if defined(__x86_64__)
/* madvise(2) = 28; MADV_POPULATE_READ = 22, MADV_POPULATE_WRITE = 23.
 * __ehdr_start .. the page of __init_array_start: the read-only segments
 * (headers and relocations, code, constants); that page .. _end: the
 * writable segment (.tdata, .data.rel.ro, .data, .bss); 96 KiB below the
 * stack pointer's page: the stack's first pages (the kernel maps 128 KiB
 * below the arguments). rdx (rtld_fini) is kept in r12; a syscall clobbers
 * rcx and r11. A call that fails changes nothing. */
__asm__(".text\n"
	".globl bh_worker_start\n"
	".type bh_worker_start, @function\n"
	"bh_worker_start:\n"
	"	mov %rdx, %r12\n"
	"	lea __ehdr_start(%rip), %rdi\n"
	"	lea __init_array_start(%rip), %r13\n"
	"	and $-4096, %r13\n"
	"	mov %r13, %rsi\n"
	"	sub %rdi, %rsi\n"
	"	mov $22, %edx\n"
	"	mov $28, %eax\n"
	"	syscall\n"
	"	mov %r13, %rdi\n"
	"	lea _end(%rip), %rsi\n"
	"	add $4095, %rsi\n"
	"	and $-4096, %rsi\n"
	"	sub %rdi, %rsi\n"
	"	mov $23, %edx\n"
	"	mov $28, %eax\n"
	"	syscall\n"
	"	mov %rsp, %rdi\n"
	"	and $-4096, %rdi\n"
	"	sub $0x17000, %rdi\n"
	"	mov $0x18000, %esi\n"
	"	mov $23, %edx\n"
	"	mov $28, %eax\n"
	"	syscall\n"
	"	mov %r12, %rdx\n"
	"	jmp _start\n"
	".size bh_worker_start, .-bh_worker_start\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl bh_worker_start\n"
	".type bh_worker_start, %function\n"
	"bh_worker_start:\n"
	"	b _start\n");
#else
#error "worker/entry.c: no entry for this target (sandbox/ supports x86-64 and aarch64)"
#endif
