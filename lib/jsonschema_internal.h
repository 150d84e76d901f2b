/* lib/jsonschema_internal.h — internal to lib/jsonschema*.c. */
#ifndef BH_JSONSCHEMA_INTERNAL_H
#define BH_JSONSCHEMA_INTERNAL_H

/* The bundled meta-schema for a draft (4, 6, 7, 2019, 2020) and the URL v6
 * names it by in messages ("...schema#"). */
const char *jsonschema_meta_text(int draft, const char **url);

#endif
