# tests/ — shell-level suites (conformance, e2e) registered with make check.
EXTRA_DIST += tests/kubesim
