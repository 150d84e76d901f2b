# fetcher/ — bulkhead-fetcher, the sandboxed source fetcher (network, no
# Kubernetes access). libbhfetch.a is the fetch code (also for the CLI).
noinst_LIBRARIES += fetcher/libbhfetch.a
fetcher_libbhfetch_a_SOURCES = \
	fetcher/chartvalues.c fetcher/chartvalues.h \
	fetcher/fetch.c fetcher/fetch.h \
	fetcher/http.c fetcher/http.h \
	fetcher/index.c fetcher/index.h \
	fetcher/oci.c fetcher/oci.h \
	fetcher/tarball.c fetcher/tarball.h
fetcher_libbhfetch_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(ZLIB_CFLAGS)
# the registry decoders and cosign's checks, also for the supervisor (which
# checks again what a fetcher reports verified)
noinst_LIBRARIES += fetcher/libbhcosign.a
fetcher_libbhcosign_a_SOURCES = \
	fetcher/cosign.c fetcher/cosign.h \
	fetcher/ocidec.c fetcher/ocidec.h
BH_FETCH_LIBS = fetcher/libbhfetch.a fetcher/libbhcosign.a proto/libbhproto.a $(BH_CHART_LIBS) tmpl/libbhtmpl.a $(BH_LIB_LIBS) $(CURL_LIBS) $(OPENSSL_LIBS)

libexec_PROGRAMS += fetcher/bulkhead-fetcher
fetcher_bulkhead_fetcher_SOURCES = fetcher/main.c fetcher/lockdown.c fetcher/lockdown.h
fetcher_bulkhead_fetcher_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(SECCOMP_CFLAGS)
fetcher_bulkhead_fetcher_LDADD = fetcher/libbhfetch.a $(BH_SANDBOX_LIBS) $(BH_FETCH_LIBS)

check_PROGRAMS += tests/unit/test_fetcher
tests_unit_test_fetcher_SOURCES = tests/unit/test_fetcher.c
tests_unit_test_fetcher_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_fetcher_LDADD = $(BH_FETCH_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_fetcher
UNIT_TESTS += tests/unit/test_fetcher

# e2e tests of the built-in sources (registered here, not in tests/e2e/local.mk)
SOURCES_E2E = tests/e2e/sources_helmrepo.sh tests/e2e/sources_hostile.sh tests/e2e/sources_external.sh tests/e2e/sources_template.sh \
	tests/e2e/sources_oci_template.sh tests/e2e/sources_oci.sh tests/e2e/sources_oci_hostile.sh tests/e2e/sources_oci_fields.sh tests/e2e/sources_valuesfiles.sh \
	tests/e2e/sources_template_deps.sh tests/e2e/sources_oci_verify.sh tests/e2e/sources_oci_verify_external.sh
TESTS += $(SOURCES_E2E)
EXTRA_DIST += $(SOURCES_E2E) tests/e2e/sources

check_PROGRAMS += tests/unit/test_fetcher_sandbox
tests_unit_test_fetcher_sandbox_SOURCES = tests/unit/test_fetcher_sandbox.c fetcher/lockdown.c fetcher/lockdown.h
tests_unit_test_fetcher_sandbox_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(SECCOMP_CFLAGS)
tests_unit_test_fetcher_sandbox_LDADD = $(BH_SANDBOX_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_fetcher_sandbox
UNIT_TESTS += tests/unit/test_fetcher_sandbox

check_PROGRAMS += tests/unit/test_ocidec
tests_unit_test_ocidec_SOURCES = tests/unit/test_ocidec.c
tests_unit_test_ocidec_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_ocidec_LDADD = $(BH_FETCH_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_ocidec
UNIT_TESTS += tests/unit/test_ocidec

check_PROGRAMS += tests/unit/test_cosign
tests_unit_test_cosign_SOURCES = tests/unit/test_cosign.c
tests_unit_test_cosign_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cosign_LDADD = $(BH_FETCH_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_cosign
UNIT_TESTS += tests/unit/test_cosign
