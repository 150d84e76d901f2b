# supervisor/ — build fragment (see top Makefile.am).
