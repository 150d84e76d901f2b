# proto/ — build fragment (see top Makefile.am).
