# tmpl/ — Go text/template engine, Helm root objects and function families.
# Function helpers: add your tmpl/funcs_<family>.c to the SOURCES list below.
noinst_LIBRARIES += tmpl/libbhtmpl.a
tmpl_libbhtmpl_a_SOURCES = tmpl/sandbox_prep.c \
	tmpl/tmpl.h tmpl/value.h tmpl/funcs.h tmpl/gofmt.h tmpl/helmctx.h \
	tmpl/internal.h tmpl/strconv.h \
	tmpl/value.c tmpl/valuejson.c tmpl/gofmt.c tmpl/strconv.c tmpl/parse.c tmpl/exec.c \
	tmpl/engine.c tmpl/engine_parallel.c tmpl/funcs.c tmpl/funcs_registry.c tmpl/funcs_builtin.c \
	tmpl/funcs_core.c tmpl/funcs_helm.c tmpl/funcs_sprig_only.c tmpl/helmctx.c
# Link line for anything using tmpl/ (lib/ comes with it).
BH_TMPL_LIBS = tmpl/libbhtmpl.a $(BH_LIB_LIBS)

check_PROGRAMS += tests/unit/test_tmpl
tests_unit_test_tmpl_SOURCES = tests/unit/test_tmpl.c
tests_unit_test_tmpl_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_tmpl_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_tmpl
UNIT_TESTS += tests/unit/test_tmpl

# --- Sprig/Helm families: JSON, YAML/TOML, encoding, crypto, dates, semver, network ---
tmpl_libbhtmpl_a_SOURCES += \
	tmpl/funcs_json.c tmpl/funcs_yaml.c \
	tmpl/funcs_semver.c \
	tmpl/funcs_encoding.c tmpl/sha256.h tmpl/sha256.c \
	tmpl/gotime.h tmpl/gotime.c tmpl/gotime_zone.h tmpl/gotime_zone.c tmpl/funcs_dates.c \
	tmpl/funcs_crypto.c tmpl/rsa_keygen.c tmpl/rsa_keygen.h tmpl/toml.h tmpl/toml_encode.c tmpl/toml_decode.c \
	tmpl/yaml_pretty.h tmpl/yaml_pretty.c
check_PROGRAMS += tests/unit/test_funcs_formats
tests_unit_test_funcs_formats_SOURCES = tests/unit/test_funcs_formats.c tests/unit/funcs_golden.h
tests_unit_test_funcs_formats_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_funcs_formats_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_funcs_formats
UNIT_TESTS += tests/unit/test_funcs_formats
EXTRA_DIST += tests/unit/gen_funcs_formats_goldens.py
BH_TMPL_LIBS += $(OPENSSL_LIBS) $(ZLIB_LIBS)

# --- Sprig families: strings, regex, conversion, math, defaults/reflection, lists, dicts, paths/urls ---
tmpl_libbhtmpl_a_SOURCES += tmpl/sprig_unicode.h tmpl/sprig_unicode.c tmpl/unicode_tables.c \
	tmpl/sprig_util.h tmpl/sprig_util.c \
	tmpl/funcs_strings.c tmpl/funcs_lists.c tmpl/funcs_dicts.c tmpl/funcs_reflect.c \
	tmpl/funcs_conv.c tmpl/funcs_math.c tmpl/funcs_paths.c tmpl/funcs_regex.c
BH_TMPL_LIBS += $(OPENSSL_LIBS)
EXTRA_DIST += tmpl/unicode_gen.py
check_PROGRAMS += tests/unit/test_funcs_strings
tests_unit_test_funcs_strings_SOURCES = tests/unit/test_funcs_strings.c tests/unit/funcs_golden.h
tests_unit_test_funcs_strings_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_funcs_strings_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_funcs_strings
UNIT_TESTS += tests/unit/test_funcs_strings
check_PROGRAMS += tests/unit/test_funcs_data
tests_unit_test_funcs_data_SOURCES = tests/unit/test_funcs_data.c tests/unit/funcs_golden.h
tests_unit_test_funcs_data_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_funcs_data_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_funcs_data
UNIT_TESTS += tests/unit/test_funcs_data
check_PROGRAMS += tests/unit/test_funcs_math
tests_unit_test_funcs_math_SOURCES = tests/unit/test_funcs_math.c tests/unit/funcs_golden.h
tests_unit_test_funcs_math_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_funcs_math_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_funcs_math
UNIT_TESTS += tests/unit/test_funcs_math
check_PROGRAMS += tests/unit/test_funcs_paths
tests_unit_test_funcs_paths_SOURCES = tests/unit/test_funcs_paths.c tests/unit/funcs_golden.h
tests_unit_test_funcs_paths_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_funcs_paths_LDADD = $(BH_TMPL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_funcs_paths
UNIT_TESTS += tests/unit/test_funcs_paths

# `make bench`: tests/bench/bench_tmpl.sh runs this.
EXTRA_PROGRAMS += tests/bench/bench_tmpl
BENCH_TARGETS += tests/bench/bench_tmpl
tests_bench_bench_tmpl_SOURCES = tests/bench/bench_tmpl.c
tests_bench_bench_tmpl_LDADD = $(BH_CHART_LIBS) $(BH_TMPL_LIBS)
