# tests/kubesim/ — build fragment (see top Makefile.am).
# kubesim is Python 3 (the standard library, and h2 for HTTP/2): nothing to build. Its unit and
# server tests (python3 -m unittest) run under `make check`. They start kubesim
# on loopback, so they are not in UNIT_TESTS.
TESTS += tests/kubesim/run-tests.sh
