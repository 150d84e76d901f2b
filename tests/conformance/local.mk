# tests/conformance/ — build fragment (see top Makefile.am).

# --- helm template conformance cases (chart engine task) ---
TESTS += tests/conformance/run_cases.sh
UNIT_TESTS += tests/conformance/run_cases.sh
EXTRA_DIST += tests/conformance/run_cases.sh tests/conformance/run_cases.py \
	tests/conformance/cases-known-failures.txt
# --- end helm template conformance cases ---
