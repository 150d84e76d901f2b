# tests/conformance/ — build fragment (see top Makefile.am).
