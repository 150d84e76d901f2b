# helm/ — build fragment (see top Makefile.am).

# --- release storage (helm/release.{c,h}): owned by the spine task ---
noinst_LIBRARIES += helm/libbhrelease.a
helm_libbhrelease_a_SOURCES = helm/release.c helm/release.h
helm_libbhrelease_a_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
BH_RELEASE_LIBS = helm/libbhrelease.a $(ZLIB_LIBS)

check_PROGRAMS += tests/unit/test_release
tests_unit_test_release_SOURCES = tests/unit/test_release.c
tests_unit_test_release_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_release_LDADD = $(BH_RELEASE_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_release
UNIT_TESTS += tests/unit/test_release
# --- end release storage ---
