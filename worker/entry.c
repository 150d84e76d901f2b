/* worker/entry.c — bulkhead-worker's ELF entry point (linked with
 * -e bh_worker_start), run before libc's _start: it maps the worker's
 * writable segment in one madvise call, then jumps to _start with the
 * registers the kernel gave it.
 *
 * Why: on a paravirtualised guest (PVM) a page fault costs far more than
 * the page. A static PIE relocates itself at start and so writes every page
 * of its writable segment (.data.rel.ro is about 100 pages of OpenSSL's
 * tables, all relocated): one MADV_POPULATE_WRITE copies them all instead
 * of ~117 copy-on-write faults. The read-only segments (code and constants,
 * about 1500 pages) are not populated: the start touches some 30 clusters
 * of them (the kernel maps 16 pages around each read fault), and mapping
 * all 1500 cost more than those faults (exec to main 1367 -> 1040 us CPU
 * median without it). Nor is the stack: of the 24 pages below the
 * arguments a populate mapped, a worker's start and lock-down touch about
 * five (minor faults 185 -> 166 without it, exec to locked down about
 * 150 us less). A kernel older than 5.14 refuses the call (EINVAL) and the
 * pages fault in as before. Addresses stay the kernel's random ones:
 * nothing is moved.
 *
 * No C here can run: before _start there is no relocation, no TLS and no
 * stack protector, so the entry is a few instructions of assembly (x86-64;
 * on aarch64 it only branches to _start). */

#if defined(__x86_64__)
/* madvise(2) = 28; MADV_POPULATE_WRITE = 23.
 * The page of __init_array_start .. _end: the writable segment (.tdata,
 * .data.rel.ro, .data, .bss). rdx (rtld_fini) is kept in r12; a syscall
 * clobbers rcx and r11. A call that fails changes nothing. */
__asm__(".text\n"
	".globl bh_worker_start\n"
	".type bh_worker_start, @function\n"
	"bh_worker_start:\n"
	"	mov %rdx, %r12\n"
	"	lea __init_array_start(%rip), %rdi\n"
	"	and $-4096, %rdi\n"
	"	lea _end(%rip), %rsi\n"
	"	add $4095, %rsi\n"
	"	and $-4096, %rsi\n"
	"	sub %rdi, %rsi\n"
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
