# tests/bench/ — build fragment (see top Makefile.am).
