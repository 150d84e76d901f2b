# tests/kubesim/ — build fragment (see top Makefile.am).
