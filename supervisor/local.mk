# supervisor/ — bulkheadd: watch, queue, spawn, broker, status, audit.
sbin_PROGRAMS += supervisor/bulkheadd
supervisor_bulkheadd_SOURCES = \
	supervisor/main.c \
	supervisor/spawn.c supervisor/spawn.h \
	supervisor/broker.c supervisor/broker.h supervisor/job.h \
	supervisor/status.c supervisor/status.h \
	supervisor/source.c supervisor/source.h \
	supervisor/artifact.c supervisor/artifact.h \
	supervisor/audit.c supervisor/audit.h
supervisor_bulkheadd_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) -pthread
supervisor_bulkheadd_LDADD = $(BH_RELEASE_LIBS) $(BH_SANDBOX_LIBS) $(BH_KUBECURL_LIBS) $(OPENSSL_LIBS) -lpthread
