# worker/ — build fragment (see top Makefile.am).
