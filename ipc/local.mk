# ipc/ — build fragment (see top Makefile.am).
