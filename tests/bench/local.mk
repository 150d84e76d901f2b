# tests/bench/ — build fragment (see top Makefile.am).
# runstat: one command's wall time, CPU and peak RSS (bench_template.sh)
EXTRA_PROGRAMS += tests/bench/runstat
tests_bench_runstat_SOURCES = tests/bench/runstat.c
BENCH_TARGETS += tests/bench/runstat
CLEANFILES += tests/bench/runstat
