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

# --- chart engine (chart loading, values, strvals, sort, render): chart task ---
noinst_LIBRARIES += helm/libbhchart.a
helm_libbhchart_a_SOURCES = \
	helm/chart.c helm/chart.h helm/chart_internal.h \
	helm/chart_archive.c helm/chart_dir.c helm/chart_deps.c \
	helm/strvals.c helm/strvals.h \
	helm/values.c helm/values.h \
	helm/sort.c helm/sort_head.c helm/sort.h \
	helm/targz.c helm/targz.h
BH_CHART_LIBS = helm/libbhchart.a $(ZLIB_LIBS)

# chart provenance (`template --verify`): OpenPGP subset + Helm's check — h-verify
noinst_LIBRARIES += helm/libbhprov.a
helm_libbhprov_a_SOURCES = helm/pgp.c helm/pgp_packet.c helm/pgp_packet.h helm/pgp_armor.c helm/pgp.h helm/provenance.c helm/provenance.h
BH_PROV_LIBS = helm/libbhprov.a $(BH_CHART_LIBS) $(BH_LIB_LIBS) $(OPENSSL_LIBS)
check_PROGRAMS += tests/unit/test_pgp
tests_unit_test_pgp_SOURCES = tests/unit/test_pgp.c
tests_unit_test_pgp_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_pgp_LDADD = $(BH_PROV_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_pgp
UNIT_TESTS += tests/unit/test_pgp
EXTRA_DIST += tests/unit/data/pgp

# kustomize post-renderer (patches, images) — h-postrender
noinst_LIBRARIES += helm/libbhkustomize.a
helm_libbhkustomize_a_SOURCES = \
	helm/kustomize.c helm/kustomize.h helm/kustomize_internal.h \
	helm/kustomize_texts.c helm/kustomize_select.c helm/kustomize_decode.c \
	helm/kustomize_smp.c helm/kustomize_jsonpatch.c helm/kustomize_nameref.c \
	helm/kustomize_schema.c helm/kustomize_schema.h \
	helm/postrender.c helm/postrender.h
helm_libbhkustomize_a_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS)
BH_KUSTOMIZE_LIBS = helm/libbhkustomize.a $(BH_CHART_LIBS) $(BH_LIB_LIBS)

# rendering pipeline (needs tmpl/ and lib/jsonschema)
noinst_LIBRARIES += helm/libbhrender.a
helm_libbhrender_a_SOURCES = \
	helm/render.c helm/render.h \
	helm/render_schema.c helm/render_schema.h
BH_RENDER_LIBS = helm/libbhrender.a helm/libbhkustomize.a $(BH_CHART_LIBS) $(BH_TMPL_LIBS)
# --- end chart engine ---

# --- chart engine tests (chart task) ---
check_PROGRAMS += tests/unit/test_strvals tests/unit/test_chart tests/unit/test_values
tests_unit_test_values_SOURCES = tests/unit/test_values.c
tests_unit_test_values_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_values_LDADD = $(BH_CHART_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
tests_unit_test_strvals_SOURCES = tests/unit/test_strvals.c
tests_unit_test_strvals_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_strvals_LDADD = $(BH_CHART_LIBS) $(BH_LIB_LIBS) $(CHECK_LIBS)
tests_unit_test_chart_SOURCES = tests/unit/test_chart.c
tests_unit_test_chart_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(ARCHIVE_CFLAGS)
tests_unit_test_chart_LDADD = $(BH_CHART_LIBS) $(BH_LIB_LIBS) $(ARCHIVE_LIBS) $(CHECK_LIBS)
check_PROGRAMS += tests/unit/test_chart_render
tests_unit_test_chart_render_SOURCES = tests/unit/test_chart_render.c
tests_unit_test_chart_render_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_chart_render_LDADD = $(BH_RENDER_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_strvals tests/unit/test_chart tests/unit/test_values tests/unit/test_chart_render
UNIT_TESTS += tests/unit/test_strvals tests/unit/test_chart tests/unit/test_values tests/unit/test_chart_render
EXTRA_DIST += tests/unit/data/chart-render
# --- end chart engine tests ---

# --- release actions and storage (helm/action*, hooks*, storage*): actions task ---
noinst_LIBRARIES += helm/libbhaction.a
helm_libbhaction_a_SOURCES = \
	helm/action.c helm/action.h helm/action_more.c helm/action_internal.h \
	helm/action_objects.c helm/action_objects.h \
	helm/hooks.c helm/hooks.h helm/objmeta.c helm/objmeta.h helm/storage.c helm/storage.h
BH_ACTION_LIBS = helm/libbhaction.a $(BH_RELEASE_LIBS) $(BH_RENDER_LIBS) $(BH_KUBE_LIBS)

check_PROGRAMS += tests/unit/test_action
tests_unit_test_action_SOURCES = tests/unit/test_action.c
tests_unit_test_action_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_action_LDADD = $(BH_ACTION_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_action
UNIT_TESTS += tests/unit/test_action
# --- end release actions ---
