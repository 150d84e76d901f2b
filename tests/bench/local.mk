# tests/bench/ — build fragment (see top Makefile.am).
# runstat: one command's wall time, CPU and peak RSS (bench_template.sh)
EXTRA_PROGRAMS += tests/bench/runstat
tests_bench_runstat_SOURCES = tests/bench/runstat.c
BENCH_TARGETS += tests/bench/runstat
CLEANFILES += tests/bench/runstat

# exec_nop: a program that only returns, linked as the worker is (bench_spawn.sh's scale)
EXTRA_PROGRAMS += tests/bench/exec_nop
tests_bench_exec_nop_SOURCES = tests/bench/exec_nop.c
tests_bench_exec_nop_LDFLAGS = $(WORKER_LDFLAGS)
BENCH_TARGETS += tests/bench/exec_nop
CLEANFILES += tests/bench/exec_nop

# worker_tap records a worker's IPC conversation (in the worker's place under
# bulkheadd); worker_replay plays it back to the job code in-process
# (bench_worker.sh; instruction counts with callgrind, see worker_replay.c)
EXTRA_PROGRAMS += tests/bench/worker_tap tests/bench/worker_replay
tests_bench_worker_tap_SOURCES = tests/bench/worker_tap.c tests/bench/ipcrec.c tests/bench/ipcrec.h
tests_bench_worker_tap_LDADD = ipc/libbhipc.a $(BH_LIB_LIBS)
tests_bench_worker_replay_SOURCES = tests/bench/worker_replay.c tests/bench/ipcrec.c tests/bench/ipcrec.h \
	worker/prepare.c worker/job.c worker/broker.c worker/reconcile.c worker/plan.c worker/snapshot.c \
	worker/manifest.c worker/drift.c worker/values.c
tests_bench_worker_replay_LDADD = api/libbhapi.a helm/libbhaction.a $(BH_RELEASE_LIBS) $(BH_SANDBOX_WORKER_LIBS) \
	$(BH_RENDER_LIBS) kube/libbhkube.a $(BH_LIB_LIBS) $(OPENSSL_LIBS) $(ZLIB_LIBS)
BENCH_TARGETS += tests/bench/worker_tap tests/bench/worker_replay
CLEANFILES += tests/bench/worker_tap tests/bench/worker_replay

# bench_relay: the floor of bulkheadd's relay design, per request and per
# install (tests/bench/bench_relay.sh; issue 14's 0.2 ratio)
EXTRA_PROGRAMS += tests/bench/bench_relay
tests_bench_bench_relay_SOURCES = tests/bench/bench_relay.c tests/bench/ipcrec.c tests/bench/ipcrec.h
tests_bench_bench_relay_LDADD = ipc/libbhipc.a $(BH_LIB_LIBS) $(OPENSSL_LIBS) -lpthread
BENCH_TARGETS += tests/bench/bench_relay
CLEANFILES += tests/bench/bench_relay
