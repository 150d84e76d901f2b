# sandbox/ — build fragment (see top Makefile.am).
