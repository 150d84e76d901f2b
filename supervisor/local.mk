# supervisor/ — bulkheadd: watch, queue, spawn, broker, status, audit.
# Everything but main.c is a library so unit tests reach the policy code.
noinst_LIBRARIES += supervisor/libbhsupervisor.a
supervisor_libbhsupervisor_a_SOURCES = \
	supervisor/spawn.c supervisor/spawn.h \
	supervisor/broker.c supervisor/broker.h supervisor/job.h \
	supervisor/broker_watch.c supervisor/broker_watch.h \
	supervisor/loopwatch.c supervisor/loopwatch.h \
	supervisor/evset.c supervisor/evset.h \
	supervisor/status.c supervisor/status.h \
	supervisor/source.c supervisor/source.h \
	supervisor/artifact.c supervisor/artifact.h \
	supervisor/artcache.c supervisor/artcache.h \
	supervisor/artfetch.c supervisor/artfetch.h \
	supervisor/noop.c supervisor/noop.h \
	supervisor/fetchcl.c supervisor/fetchcl.h \
	supervisor/sources.c supervisor/sources.h \
	supervisor/audit.c supervisor/audit.h \
	supervisor/log.c supervisor/log.h \
	supervisor/metrics.c supervisor/metrics.h \
	supervisor/httpd.c supervisor/httpd.h \
	supervisor/notify.c supervisor/notify.h \
	supervisor/leader.c supervisor/leader.h \
	supervisor/sched.c supervisor/sched.h \
	supervisor/forward.c supervisor/forward.h \
	supervisor/acl.c supervisor/acl.h \
	supervisor/depends.c supervisor/depends.h \
	supervisor/requeue.c supervisor/requeue.h \
	supervisor/remote.c supervisor/remote.h \
	supervisor/discovery.c supervisor/discovery.h \
	supervisor/hccache.c supervisor/hccache.h \
	supervisor/hrent.c supervisor/hrent.h \
	supervisor/jtext.c supervisor/jtext.h
supervisor_libbhsupervisor_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(MHD_CFLAGS) $(SYSTEMD_CFLAGS)
BH_SUPERVISOR_LIBS = supervisor/libbhsupervisor.a fetcher/libbhcosign.a $(BH_RELEASE_LIBS) $(BH_SANDBOX_LIBS) $(BH_KUBEH2_LIBS) $(BH_KUBECURL_LIBS) \
	$(OPENSSL_LIBS) $(MHD_LIBS) $(SYSTEMD_LIBS)

sbin_PROGRAMS += supervisor/bulkheadd
supervisor_bulkheadd_SOURCES = supervisor/main.c
supervisor_bulkheadd_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) -pthread
supervisor_bulkheadd_LDADD = api/libbhapi.a $(BH_SUPERVISOR_LIBS) -lpthread

check_PROGRAMS += tests/unit/test_evset
tests_unit_test_evset_SOURCES = tests/unit/test_evset.c
tests_unit_test_evset_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_evset_LDADD = supervisor/libbhsupervisor.a $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_evset
UNIT_TESTS += tests/unit/test_evset
check_PROGRAMS += tests/unit/test_broker
tests_unit_test_broker_SOURCES = tests/unit/test_broker.c
tests_unit_test_broker_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_broker_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_broker
UNIT_TESTS += tests/unit/test_broker
check_PROGRAMS += tests/unit/test_depends
tests_unit_test_depends_SOURCES = tests/unit/test_depends.c
tests_unit_test_depends_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_depends_LDADD = supervisor/libbhsupervisor.a $(BH_API_LIBS) $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_depends
UNIT_TESTS += tests/unit/test_depends
check_PROGRAMS += tests/unit/test_remote
tests_unit_test_remote_SOURCES = tests/unit/test_remote.c
tests_unit_test_remote_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_remote_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_remote
UNIT_TESTS += tests/unit/test_remote
EXTRA_DIST += systemd/bulkheadd.service
# the unit, with the installed paths of the binaries (make install systemdunitdir=... to move it)
systemdunitdir = $(prefix)/lib/systemd/system
systemdunit_DATA = bulkheadd.service
bulkheadd.service: $(srcdir)/systemd/bulkheadd.service Makefile
	$(AM_V_GEN)sed -e 's|/usr/sbin/|$(sbindir)/|g' -e 's|/usr/libexec/|$(libexecdir)/|g' $(srcdir)/systemd/bulkheadd.service >$@
CLEANFILES += bulkheadd.service
EXTRA_DIST += deploy/bulkhead.yaml

check_PROGRAMS += tests/unit/test_audit
tests_unit_test_audit_SOURCES = tests/unit/test_audit.c
tests_unit_test_audit_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_audit_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_audit
UNIT_TESTS += tests/unit/test_audit

check_PROGRAMS += tests/unit/test_forward
tests_unit_test_forward_SOURCES = tests/unit/test_forward.c
tests_unit_test_forward_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_forward_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_forward
UNIT_TESTS += tests/unit/test_forward

check_PROGRAMS += tests/unit/test_ops
tests_unit_test_ops_SOURCES = tests/unit/test_ops.c
tests_unit_test_ops_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_ops_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_ops
UNIT_TESTS += tests/unit/test_ops

check_PROGRAMS += tests/unit/test_acl
tests_unit_test_acl_SOURCES = tests/unit/test_acl.c
tests_unit_test_acl_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_acl_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_acl
UNIT_TESTS += tests/unit/test_acl

check_PROGRAMS += tests/unit/test_sources_oci
tests_unit_test_sources_oci_SOURCES = tests/unit/test_sources_oci.c
tests_unit_test_sources_oci_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_sources_oci_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_sources_oci
UNIT_TESTS += tests/unit/test_sources_oci

check_PROGRAMS += tests/unit/test_noop
tests_unit_test_noop_SOURCES = tests/unit/test_noop.c
tests_unit_test_noop_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_noop_LDADD = $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_noop
UNIT_TESTS += tests/unit/test_noop

check_PROGRAMS += tests/unit/test_hrent
tests_unit_test_hrent_SOURCES = tests/unit/test_hrent.c
tests_unit_test_hrent_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_hrent_LDADD = supervisor/libbhsupervisor.a $(BH_API_LIBS) $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_hrent
UNIT_TESTS += tests/unit/test_hrent

check_PROGRAMS += tests/unit/test_status
tests_unit_test_status_SOURCES = tests/unit/test_status.c
tests_unit_test_status_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_status_LDADD = supervisor/libbhsupervisor.a $(BH_API_LIBS) $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_status
UNIT_TESTS += tests/unit/test_status

check_PROGRAMS += tests/unit/test_jtext
tests_unit_test_jtext_SOURCES = tests/unit/test_jtext.c
tests_unit_test_jtext_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_jtext_LDADD = supervisor/libbhsupervisor.a $(BH_LIB_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_jtext
UNIT_TESTS += tests/unit/test_jtext

# spawn_exec: the child's signal dispositions and mask (h-spawn)
check_PROGRAMS += tests/unit/test_spawn
tests_unit_test_spawn_SOURCES = tests/unit/test_spawn.c
tests_unit_test_spawn_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_spawn_LDADD = supervisor/libbhsupervisor.a $(BH_SUPERVISOR_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_spawn
UNIT_TESTS += tests/unit/test_spawn
