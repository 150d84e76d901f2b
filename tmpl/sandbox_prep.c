/* tmpl/sandbox_prep.c — see tmpl_prepare_sandbox() in tmpl.h. */
#include "tmpl/tmpl.h"

#include "tmpl/gotime.h"

void tmpl_prepare_sandbox(void)
{
	gotime_preload();
	gotime_set_file_access(0);
}
