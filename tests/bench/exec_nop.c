/* tests/bench/exec_nop.c — a C program that only returns, linked as
 * bulkhead-worker is (WORKER_LDFLAGS: a static PIE when the worker is one).
 * bench_spawn.sh times its exec to exit: what this machine charges any such
 * program before its main (the kernel's exec, the C library's start-up)
 * and after, the scale against which the worker's start-up is read. */
int main(void)
{
	return 0;
}
