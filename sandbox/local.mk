# sandbox/ — the worker's lock-down (seccomp, capabilities, rlimits).
noinst_LIBRARIES += sandbox/libbhsandbox.a
sandbox_libbhsandbox_a_SOURCES = sandbox/sandbox.c sandbox/sandbox.h
sandbox_libbhsandbox_a_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS) $(CAP_CFLAGS)
BH_SANDBOX_LIBS = sandbox/libbhsandbox.a ipc/libbhipc.a proto/libbhproto.a $(SECCOMP_LIBS) $(CAP_LIBS)
EXTRA_DIST += sandbox/SYSCALLS.md sandbox/survey.sh sandbox/survey_fuzz.c

check_PROGRAMS += tests/unit/test_sandbox
tests_unit_test_sandbox_SOURCES = tests/unit/test_sandbox.c
tests_unit_test_sandbox_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_sandbox_LDADD = $(BH_SANDBOX_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_sandbox
UNIT_TESTS += tests/unit/test_sandbox
