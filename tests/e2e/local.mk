# tests/e2e/ — build fragment (see top Makefile.am).
