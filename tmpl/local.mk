# tmpl/ — build fragment (see top Makefile.am).
