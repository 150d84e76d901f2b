# kube/ — Kubernetes API client. Two libraries: libbhkube.a (everything but
# the network: config, request model, retries, REST mapping, verbs, watch,
# readiness) and libbhkubecurl.a (the libcurl transport). The worker links
# only the first.
noinst_LIBRARIES += kube/libbhkube.a kube/libbhkubecurl.a
kube_libbhkube_a_SOURCES = \
	kube/kube.h kube/transport.h kube/config.h kube/watchdec.h kube/ready.h kube/wait.h \
	kube/internal.h kube/client_priv.h kube/addr.h kube/watch_priv.h \
	kube/util.c kube/addr.c kube/config.c kube/client.c kube/mapping.c kube/verbs.c \
	kube/watch.c kube/ready.c kube/wait.c kube/exec.c
EXTRA_DIST += kube/README.md
kube_libbhkubecurl_a_SOURCES = kube/curl.h kube/curl_priv.h kube/curl.c kube/curl_multi.c kube/curl_tls.c \
	kube/watch_multi.h kube/watch_multi.c
kube_libbhkubecurl_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(OPENSSL_CFLAGS)
# Link lines: BH_KUBE_LIBS for the worker, BH_KUBECURL_LIBS for the rest.
BH_KUBE_LIBS = kube/libbhkube.a $(BH_LIB_LIBS)
BH_KUBECURL_LIBS = kube/libbhkubecurl.a kube/libbhkube.a $(BH_LIB_LIBS) $(CURL_LIBS) $(OPENSSL_LIBS) -lpthread

check_PROGRAMS += tests/unit/test_kube
tests_unit_test_kube_SOURCES = tests/unit/test_kube.c
tests_unit_test_kube_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_kube_LDADD = $(BH_KUBE_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_kube
UNIT_TESTS += tests/unit/test_kube

# C-level e2e test against kubesim: built by `make check`, run by
# tests/e2e/kube_client.sh (skips with 77 when run without a kubeconfig).
check_PROGRAMS += tests/unit/test_kube_e2e
tests_unit_test_kube_e2e_SOURCES = tests/unit/test_kube_e2e.c
tests_unit_test_kube_e2e_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_kube_e2e_LDADD = $(BH_KUBECURL_LIBS) $(CHECK_LIBS) -lpthread

# the libcurl transport's header hygiene and strict connect check (a loopback
# listener in the test process; no cluster needed)
check_PROGRAMS += tests/unit/test_kube_curl
tests_unit_test_kube_curl_SOURCES = tests/unit/test_kube_curl.c
tests_unit_test_kube_curl_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CURL_CFLAGS)
tests_unit_test_kube_curl_LDADD = $(BH_KUBECURL_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_kube_curl
UNIT_TESTS += tests/unit/test_kube_curl
# the watch driven by a caller's poll (kube/watch_multi.h)
check_PROGRAMS += tests/unit/test_kube_watch_multi
tests_unit_test_kube_watch_multi_SOURCES = tests/unit/test_kube_watch_multi.c
tests_unit_test_kube_watch_multi_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CURL_CFLAGS)
tests_unit_test_kube_watch_multi_LDADD = $(BH_KUBECURL_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_kube_watch_multi
UNIT_TESTS += tests/unit/test_kube_watch_multi

# the process's TLS identity decoded once (an in-process TLS server)
check_PROGRAMS += tests/unit/test_kube_curl_tls
tests_unit_test_kube_curl_tls_SOURCES = tests/unit/test_kube_curl_tls.c tests/unit/tls_server.c tests/unit/tls_server.h
tests_unit_test_kube_curl_tls_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CURL_CFLAGS) $(OPENSSL_CFLAGS)
tests_unit_test_kube_curl_tls_LDADD = $(BH_KUBECURL_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_kube_curl_tls
UNIT_TESTS += tests/unit/test_kube_curl_tls

# the direct HTTP/2 client of bulkheadd's forwarding (kube/h2.h): its own
# library, so that nghttp2 is linked into bulkheadd alone
noinst_LIBRARIES += kube/libbhkubeh2.a
kube_libbhkubeh2_a_SOURCES = kube/h2.h kube/h2.c kube/h2_head.c
kube_libbhkubeh2_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(OPENSSL_CFLAGS) $(NGHTTP2_CFLAGS)
BH_KUBEH2_LIBS = kube/libbhkubeh2.a $(NGHTTP2_LIBS)

check_PROGRAMS += tests/unit/test_h2
tests_unit_test_h2_SOURCES = tests/unit/test_h2.c tests/unit/tls_server.c tests/unit/tls_server.h
tests_unit_test_h2_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(OPENSSL_CFLAGS) $(NGHTTP2_CFLAGS)
tests_unit_test_h2_LDADD = $(BH_KUBEH2_LIBS) $(BH_KUBECURL_LIBS) $(CHECK_LIBS) -lpthread
TESTS += tests/unit/test_h2
UNIT_TESTS += tests/unit/test_h2
