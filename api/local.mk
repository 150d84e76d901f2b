# api/ — the typed HelmRelease model: decode, defaults, validation, v2beta2
# conversion and the table of every API field (consumed or refused by name).
noinst_LIBRARIES += api/libbhapi.a
api_libbhapi_a_SOURCES = \
	api/helmrelease.c api/helmrelease.h \
	api/helmrelease_fields.c
BH_API_LIBS = api/libbhapi.a $(BH_LIB_LIBS)

check_PROGRAMS += tests/unit/test_api_model
tests_unit_test_api_model_SOURCES = tests/unit/test_api_model.c
tests_unit_test_api_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_api_model_LDADD = $(BH_API_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_api_model
UNIT_TESTS += tests/unit/test_api_model
