# worker/ — bulkhead-worker, the sandboxed reconcile process.
libexec_PROGRAMS += worker/bulkhead-worker
worker_bulkhead_worker_SOURCES = \
	worker/main.c worker/entry.c \
	worker/prepare.c worker/prepare.h \
	worker/job.c worker/job.h \
	worker/broker.c worker/broker.h \
	worker/reconcile.c worker/reconcile.h \
	worker/plan.c worker/plan.h \
	worker/snapshot.c worker/snapshot.h \
	worker/manifest.c worker/manifest.h \
	worker/drift.c worker/drift.h \
	worker/values.c worker/values.h
worker_bulkhead_worker_LDADD = api/libbhapi.a helm/libbhaction.a $(BH_RELEASE_LIBS) $(BH_SANDBOX_WORKER_LIBS) $(BH_RENDER_LIBS) kube/libbhkube.a \
	$(BH_LIB_LIBS) $(OPENSSL_LIBS) $(ZLIB_LIBS)
# a static PIE when the libraries allow (configure --enable-static-worker);
# entered at worker/entry.c's bh_worker_start, which maps its image first
worker_bulkhead_worker_LDFLAGS = $(WORKER_LDFLAGS) -Wl,-e,bh_worker_start

# the same worker with a logging (not trapping) filter, for the syscall survey
# (sandbox/survey.sh); never installed
check_PROGRAMS += tests/e2e/survey_worker
tests_e2e_survey_worker_SOURCES = $(worker_bulkhead_worker_SOURCES)
tests_e2e_survey_worker_CFLAGS = $(AM_CFLAGS) -DBH_SANDBOX_SURVEY
tests_e2e_survey_worker_LDADD = $(worker_bulkhead_worker_LDADD)

check_PROGRAMS += tests/unit/test_worker_snapshot
tests_unit_test_worker_snapshot_SOURCES = tests/unit/test_worker_snapshot.c worker/snapshot.c worker/snapshot.h tmpl/sha256.c
tests_unit_test_worker_snapshot_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_worker_snapshot_LDADD = $(BH_LIB_LIBS) $(OPENSSL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_worker_snapshot
UNIT_TESTS += tests/unit/test_worker_snapshot

# the manifest pipeline's pieces (post-render chain, digests, JSON pointers, drift diff) — h-postrender
check_PROGRAMS += tests/unit/test_postrender
tests_unit_test_postrender_SOURCES = tests/unit/test_postrender.c worker/manifest.c worker/manifest.h \
	worker/drift.c worker/drift.h worker/snapshot.c worker/snapshot.h tmpl/sha256.c
tests_unit_test_postrender_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_postrender_LDADD = $(BH_KUSTOMIZE_LIBS) kube/libbhkube.a $(BH_LIB_LIBS) $(OPENSSL_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_postrender
UNIT_TESTS += tests/unit/test_postrender

# the state machine's choice of the next action, as a table (worker/plan.c)
check_PROGRAMS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c worker/plan.c worker/plan.h
tests_unit_test_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_plan_LDADD = $(CHECK_LIBS)
TESTS += tests/unit/test_plan
UNIT_TESTS += tests/unit/test_plan

# the broker transport's batch of requests against a fake broker (worker/broker.c)
check_PROGRAMS += tests/unit/test_worker_broker
tests_unit_test_worker_broker_SOURCES = tests/unit/test_worker_broker.c worker/broker.c worker/broker.h
tests_unit_test_worker_broker_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_worker_broker_LDADD = kube/libbhkube.a ipc/libbhipc.a proto/libbhproto.a $(BH_LIB_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_worker_broker
UNIT_TESTS += tests/unit/test_worker_broker
