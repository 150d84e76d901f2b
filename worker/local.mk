# worker/ — bulkhead-worker, the sandboxed reconcile process.
libexec_PROGRAMS += worker/bulkhead-worker
worker_bulkhead_worker_SOURCES = \
	worker/main.c \
	worker/job.c worker/job.h \
	worker/broker.c worker/broker.h \
	worker/reconcile.c worker/reconcile.h \
	worker/snapshot.c worker/snapshot.h
worker_bulkhead_worker_LDADD = helm/libbhaction.a $(BH_RELEASE_LIBS) $(BH_SANDBOX_LIBS) $(BH_RENDER_LIBS) kube/libbhkube.a \
	$(BH_LIB_LIBS) $(OPENSSL_LIBS) $(ZLIB_LIBS)
