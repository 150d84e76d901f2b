# tests/conformance/ — build fragment (see top Makefile.am).

# --- helm template conformance cases (chart engine task) ---
TESTS += tests/conformance/run_cases.sh
UNIT_TESTS += tests/conformance/run_cases.sh
EXTRA_DIST += tests/conformance/run_cases.sh tests/conformance/run_cases.py \
	tests/conformance/cases-known-failures.txt
# --- end helm template conformance cases ---

# --- template conformance vectors (tmpl task) ---
check_PROGRAMS += tests/conformance/run_vectors
tests_conformance_run_vectors_SOURCES = tests/conformance/run_vectors.c
tests_conformance_run_vectors_LDADD = $(BH_CHART_LIBS) $(BH_TMPL_LIBS)
TESTS += tests/conformance/run_vectors.sh
UNIT_TESTS += tests/conformance/run_vectors.sh
EXTRA_DIST += tests/conformance/run_vectors.sh tests/conformance/vectors-known-failures.txt \
	tests/conformance/tmpl-diff.jsonl tests/conformance/gen_tmpl_diff.py
# --- end template conformance vectors ---

# --- template conformance vectors through `bulkhead template` (tmpl must-show 2) ---
TESTS += tests/conformance/run_vectors_cli.sh
UNIT_TESTS += tests/conformance/run_vectors_cli.sh
EXTRA_DIST += tests/conformance/run_vectors_cli.sh tests/conformance/run_vectors_cli.py \
	tests/conformance/vectors-cli-known-failures.txt
# --- end template conformance vectors through the CLI ---
# --- valgrind memcheck of the render path (not in UNIT_TESTS: not under ASan) ---
TESTS += tests/conformance/valgrind_render.sh
EXTRA_DIST += tests/conformance/valgrind_render.sh

# --- kustomize post-renderer conformance against `kubectl kustomize` (h-postrender) ---
check_PROGRAMS += tests/conformance/run_kustomize
tests_conformance_run_kustomize_SOURCES = tests/conformance/run_kustomize.c
tests_conformance_run_kustomize_LDADD = $(BH_KUSTOMIZE_LIBS)
TESTS += tests/conformance/run_kustomize.sh
UNIT_TESTS += tests/conformance/run_kustomize.sh
EXTRA_DIST += tests/conformance/run_kustomize.sh tests/conformance/gen_kustomize_goldens.sh \
	tests/conformance/kustomize
# `bulkhead template --post-renderer-config` against helm template | kubectl kustomize
TESTS += tests/conformance/template_postrender.sh
EXTRA_DIST += tests/conformance/template_postrender.sh
# --- end kustomize conformance ---
# --- `bulkhead template` budgets: CPU limit, anchor cycles, output cap ---
TESTS += tests/conformance/template_budgets.sh
UNIT_TESTS += tests/conformance/template_budgets.sh
EXTRA_DIST += tests/conformance/template_budgets.sh
# --- end template budgets ---

# --- `bulkhead template` vs helm goldens: heads, every flag (issue 15) ---
TESTS += tests/conformance/run_template_cli.sh
UNIT_TESTS += tests/conformance/run_template_cli.sh
EXTRA_DIST += tests/conformance/run_template_cli.sh tests/conformance/template_cli
# --- end template CLI goldens ---
# `bulkhead template --verify` against `helm template --verify` (charts signed at run time by helm and gpg) — h-verify
TESTS += tests/conformance/template_verify.sh
UNIT_TESTS += tests/conformance/template_verify.sh
EXTRA_DIST += tests/conformance/template_verify.sh

# --- `bulkhead template` error texts vs helm goldens (issue 15 item 4) ---
TESTS += tests/conformance/run_template_errors.sh
UNIT_TESTS += tests/conformance/run_template_errors.sh
EXTRA_DIST += tests/conformance/run_template_errors.sh tests/conformance/template_errors
# --- end template error goldens ---
