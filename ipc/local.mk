# ipc/ — framing over AF_UNIX socketpairs, fd passing, size limits.
noinst_LIBRARIES += ipc/libbhipc.a
ipc_libbhipc_a_SOURCES = ipc/ipc.c ipc/ipc.h

check_PROGRAMS += tests/unit/test_ipc
tests_unit_test_ipc_SOURCES = tests/unit/test_ipc.c
tests_unit_test_ipc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_ipc_LDADD = ipc/libbhipc.a $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_ipc
UNIT_TESTS += tests/unit/test_ipc
