# sandbox/ — the worker's lock-down (seccomp, capabilities, rlimits).
noinst_LIBRARIES += sandbox/libbhsandbox.a
sandbox_libbhsandbox_a_SOURCES = sandbox/sandbox.c sandbox/sandbox.h sandbox/sysname.c
sandbox_libbhsandbox_a_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
# the worker's lock-down is plain system calls (its own BPF program, capset):
# no libseccomp or libcap to load in every worker; sandbox_syscall_name()
# (sysname.c) needs libseccomp, for the supervisor and the fetcher
BH_SANDBOX_WORKER_LIBS = sandbox/libbhsandbox.a ipc/libbhipc.a proto/libbhproto.a
BH_SANDBOX_LIBS = $(BH_SANDBOX_WORKER_LIBS) $(SECCOMP_LIBS)
EXTRA_DIST += sandbox/SYSCALLS.md sandbox/survey.sh sandbox/survey_fuzz.c

check_PROGRAMS += tests/unit/test_sandbox
tests_unit_test_sandbox_SOURCES = tests/unit/test_sandbox.c
tests_unit_test_sandbox_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_sandbox_LDADD = $(BH_SANDBOX_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_sandbox
UNIT_TESTS += tests/unit/test_sandbox

# bench_spawn: a worker's start-up cost (exec + lock-down) through
# supervisor/spawn.c, N spawns (tests/bench/bench_spawn.sh, `make bench`)
EXTRA_PROGRAMS += tests/bench/bench_spawn
tests_bench_bench_spawn_SOURCES = tests/bench/bench_spawn.c tests/bench/ipcrec.c tests/bench/ipcrec.h
tests_bench_bench_spawn_LDADD = supervisor/libbhsupervisor.a sandbox/libbhsandbox.a ipc/libbhipc.a proto/libbhproto.a $(BH_LIB_LIBS)
BENCH_TARGETS += tests/bench/bench_spawn
CLEANFILES += tests/bench/bench_spawn

# bulkhead-worker (worker/local.mk) timing its start-up phases
# (-DBH_SANDBOX_PHASES: a "phases:" log line before the "sandbox:" one), for
# tests/bench/bench_spawn; its own copy of sandbox.c, so the library's member
# is not linked
EXTRA_PROGRAMS += tests/bench/phase_worker
tests_bench_phase_worker_SOURCES = $(worker_bulkhead_worker_SOURCES) sandbox/sandbox.c
tests_bench_phase_worker_CFLAGS = $(AM_CFLAGS) -DBH_SANDBOX_PHASES
tests_bench_phase_worker_LDADD = $(worker_bulkhead_worker_LDADD)
tests_bench_phase_worker_LDFLAGS = $(worker_bulkhead_worker_LDFLAGS)
BENCH_TARGETS += tests/bench/phase_worker
CLEANFILES += tests/bench/phase_worker
