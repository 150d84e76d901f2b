# helm/ — build fragment (see top Makefile.am).
