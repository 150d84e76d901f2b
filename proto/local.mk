# proto/ — the supervisor<->worker message catalogue.
noinst_LIBRARIES += proto/libbhproto.a
proto_libbhproto_a_SOURCES = proto/proto.c proto/proto.h proto/fetch.c proto/fetch.h proto/jload.c proto/jload.h

check_PROGRAMS += tests/unit/test_proto
tests_unit_test_proto_SOURCES = tests/unit/test_proto.c
tests_unit_test_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_proto_LDADD = proto/libbhproto.a $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_proto
UNIT_TESTS += tests/unit/test_proto
