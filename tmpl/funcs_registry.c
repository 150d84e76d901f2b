/* tmpl/funcs_registry.c — the list of function families, lowest priority
 * first (a later family overrides an earlier one's name, as Helm overrides
 * Sprig). To add a family: declare it in tmpl/funcs.h and add one line. */
#include "tmpl/funcs.h"

const tmpl_func_def *const tmpl_func_families[] = {
	tmpl_funcs_builtin,
	tmpl_funcs_core,
	/* Sprig families go here, one line each. */
	tmpl_funcs_json,
	tmpl_funcs_yaml,
	tmpl_funcs_semver,
	tmpl_funcs_encoding,
	tmpl_funcs_dates,
	tmpl_funcs_crypto,
	tmpl_funcs_strings,
	tmpl_funcs_reflect,
	tmpl_funcs_dicts,
	tmpl_funcs_lists,
	tmpl_funcs_math,
	tmpl_funcs_conv,
	tmpl_funcs_paths,
	tmpl_funcs_regex,
	tmpl_funcs_helm,
	NULL,
};
