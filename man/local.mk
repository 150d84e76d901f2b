# man/ — manual pages, installed by make install.
man1_MANS = man/bulkhead.1
man8_MANS = man/bulkheadd.8
EXTRA_DIST += $(man1_MANS) $(man8_MANS)
