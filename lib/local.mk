# lib/ — small shared pieces at the bottom of the dependency graph.
noinst_LIBRARIES += lib/libbhlib.a
lib_libbhlib_a_SOURCES = \
	lib/error.c lib/error.h \
	lib/buf.c lib/buf.h lib/hash.h \
	lib/gostrconv.c lib/gostrconv.h lib/gostrconv_print.c lib/gostrconv_print.h \
	lib/gojson.c lib/gojson.h \
	lib/yaml.c lib/yaml.h lib/yaml_internal.h lib/yaml_fast.c lib/yaml_emit.c lib/yaml_pretty.c \
	lib/yaml_resolve.c lib/yaml_resolve.h \
	lib/scan.h \
	lib/jsonschema.c lib/jsonschema.h lib/goregex.c lib/goregex.h \
	lib/goregex_uni.c lib/goregex_uni.h lib/goregex_uni_tables.c \
	lib/jsonschema_formats.c lib/jsonschema_formats.h \
	lib/jsonschema_meta.c lib/jsonschema_internal.h \
	lib/jsonschema_quick.c \
	lib/semver.c lib/semver.h lib/semver_match.h \
	lib/gotime_rfc3339.c lib/gotime_rfc3339.h \
	lib/json_skim.c lib/json_skim.h \
	lib/gzip.c lib/gzip.h \
	lib/heap.c lib/heap.h \
	lib/vec.c lib/vec.h \
	lib/json_pool.c lib/json_pool.h \
	lib/gopath.c lib/gopath.h
# regenerates lib/gostrconv_print.c from the Unicode Character Database
EXTRA_DIST += lib/gostrconv_print_gen.py
# regenerates lib/goregex_uni_tables.c from the Unicode Character Database
EXTRA_DIST += lib/goregex_uni_gen.py
# Link line for anything using lib/ (libraries it needs come with it).
BH_LIB_LIBS = lib/libbhlib.a $(JANSSON_LIBS) $(YAML_LIBS) $(PCRE2_LIBS) $(ZLIB_LIBS) $(LIBDEFLATE_LIBS) -lm

check_PROGRAMS += tests/unit/test_lib
tests_unit_test_lib_SOURCES = tests/unit/test_lib.c tests/unit/go_print_helm.h
# regenerates tests/unit/go_print_helm.h (Go's IsPrint of every code point) from helm
EXTRA_DIST += tests/unit/gen_go_print_ranges.py
tests_unit_test_lib_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_lib_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_lib
UNIT_TESTS += tests/unit/test_lib
# lib/gopath.c: Go's path.Clean/Dir/Base (helm goldens), filepath.Abs, errno texts
check_PROGRAMS += tests/unit/test_gopath
tests_unit_test_gopath_SOURCES = tests/unit/test_gopath.c
tests_unit_test_gopath_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_gopath_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_gopath
UNIT_TESTS += tests/unit/test_gopath
# lib/vec.h (VEC_RESERVE)
# lib/goregex.c's \p{...} classes and (?i) folding (lib/goregex_uni.c)
check_PROGRAMS += tests/unit/test_goregex
tests_unit_test_goregex_SOURCES = tests/unit/test_goregex.c tests/unit/goregex_helm.h
# regenerates tests/unit/goregex_helm.h from helm
EXTRA_DIST += tests/unit/gen_goregex_goldens.py
tests_unit_test_goregex_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_goregex_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_goregex
UNIT_TESTS += tests/unit/test_goregex
check_PROGRAMS += tests/unit/test_vec
tests_unit_test_vec_SOURCES = tests/unit/test_vec.c
tests_unit_test_vec_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_vec_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_vec
UNIT_TESTS += tests/unit/test_vec
# lib/heap.c (heap_expect)
check_PROGRAMS += tests/unit/test_heap
tests_unit_test_heap_SOURCES = tests/unit/test_heap.c
tests_unit_test_heap_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_heap_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_heap
UNIT_TESTS += tests/unit/test_heap

check_PROGRAMS += tests/unit/test_yaml tests/unit/test_gojson
tests_unit_test_yaml_SOURCES = tests/unit/test_yaml.c tests/unit/vectors.h
tests_unit_test_yaml_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_yaml_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
tests_unit_test_gojson_SOURCES = tests/unit/test_gojson.c tests/unit/vectors.h
tests_unit_test_gojson_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_gojson_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_yaml tests/unit/test_gojson
UNIT_TESTS += tests/unit/test_yaml tests/unit/test_gojson

check_PROGRAMS += tests/unit/test_jsonschema
tests_unit_test_jsonschema_SOURCES = tests/unit/test_jsonschema.c tests/unit/vectors.h
tests_unit_test_jsonschema_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_jsonschema_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_jsonschema
UNIT_TESTS += tests/unit/test_jsonschema

check_PROGRAMS += tests/unit/test_semver
tests_unit_test_semver_SOURCES = tests/unit/test_semver.c
tests_unit_test_semver_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_semver_LDADD = $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_semver
UNIT_TESTS += tests/unit/test_semver
