# cli/ — the `bulkhead` command.
bin_PROGRAMS += cli/bulkhead
cli_bulkhead_SOURCES = cli/main.c
cli_bulkhead_LDADD = $(BH_LIB_LIBS)
