# cli/ — the `bulkhead` command.
bin_PROGRAMS += cli/bulkhead
cli_bulkhead_SOURCES = cli/main.c
cli_bulkhead_libs = $(BH_LIB_LIBS)
# static archives of jansson, yaml, pcre2, zlib, crypt when configure found them (configure.ac)
cli_bulkhead_LDFLAGS = $(CLI_LDFLAGS)
# libcurl is loaded on first use (cli/curl_lazy.c): link no $(CURL_LIBS) here
cli_bulkhead_SOURCES += cli/curl_lazy.c
cli_bulkhead_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
# so is libcrypto (cli/crypto_lazy.c): the libraries' $(OPENSSL_LIBS) are left out of the link below
cli_bulkhead_SOURCES += cli/crypto_lazy.c
# and libm's fmod/pow (cli/libm_lazy.c, which has floor/modf/frexp/ldexp
# itself): --as-needed then leaves libm out of the CLI's start
cli_bulkhead_SOURCES += cli/libm_lazy.c
cli_bulkhead_SOURCES += cli/lazy_open.c cli/lazy_open.h
cli_bulkhead_LDFLAGS += -Wl,--as-needed
BH_CLI_KUBE_LIBS = kube/libbhkubecurl.a kube/libbhkube.a $(BH_LIB_LIBS) -lpthread
# check-kubeconfig (owned by kube/)
cli_bulkhead_SOURCES += cli/cmd_kube.c
cli_bulkhead_libs += $(BH_CLI_KUBE_LIBS)
# template (owned by the chart engine: helm/chart*, values, render)
cli_bulkhead_SOURCES += cli/cmd_template.c cli/template_flags.c cli/template_flags.h
cli_bulkhead_SOURCES += cli/template_postrender.c cli/template_postrender.h
cli_bulkhead_SOURCES += cli/template_remote.c cli/template_remote.h
cli_bulkhead_SOURCES += cli/template_cluster.c cli/template_cluster.h
cli_bulkhead_SOURCES += cli/template_deps.c cli/template_deps.h cli/template_deps_files.c cli/template_deps_files.h
cli_bulkhead_libs += fetcher/libbhfetch.a fetcher/libbhcosign.a proto/libbhproto.a
cli_bulkhead_SOURCES += cli/budget.c cli/budget.h
cli_bulkhead_libs += $(BH_RENDER_LIBS)
cli_bulkhead_libs += $(BH_PROV_LIBS)
# release (owned by the actions task: helm/action*)
cli_bulkhead_SOURCES += cli/cmd_release.c
cli_bulkhead_libs += $(BH_ACTION_LIBS) $(BH_CLI_KUBE_LIBS)
# values, reconcile --once (operations, issue 13): the HelmRelease from a file or the cluster
cli_bulkhead_SOURCES += cli/hr_source.c cli/hr_source.h cli/cmd_values.c cli/cmd_reconcile.c worker/values.c worker/values.h
cli_bulkhead_LDADD = $(filter-out $(OPENSSL_LIBS),$(cli_bulkhead_libs))
cli_bulkhead_DEPENDENCIES = $(filter %.a,$(cli_bulkhead_libs))
# the same command with libc as a shared library (configure may link
# cli/bulkhead statically, libc too): valgrind's memcheck replaces malloc and
# free in a shared libc only (tests/conformance/valgrind_render.sh)
check_PROGRAMS += cli/bulkhead-dynamic
cli_bulkhead_dynamic_SOURCES = $(cli_bulkhead_SOURCES)
cli_bulkhead_dynamic_CFLAGS = $(cli_bulkhead_CFLAGS)
cli_bulkhead_dynamic_LDFLAGS = $(filter-out -static,$(cli_bulkhead_LDFLAGS))
cli_bulkhead_dynamic_LDADD = $(cli_bulkhead_LDADD)
cli_bulkhead_dynamic_DEPENDENCIES = $(cli_bulkhead_DEPENDENCIES)
