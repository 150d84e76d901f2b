# kube/ — build fragment (see top Makefile.am).
