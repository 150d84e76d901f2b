/* lib/yaml_internal.h — the node tree lib/yaml.c reads a document into
 * (what libyaml's events, or lib/yaml_fast.c's direct reader, give), shared
 * by the two readers. Not a public interface. */
#ifndef BH_YAML_INTERNAL_H
#define BH_YAML_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "lib/error.h"

enum { N_SCALAR, N_SEQ, N_MAP, N_ALIAS };

typedef struct ynode ynode;
struct ynode {
	int kind;
	char *tag;      /* NULL when none */
	char *value;    /* scalar text; alias: anchor name */
	size_t len;
	int implicit;   /* plain scalar without tag */
	ynode **kids;
	size_t n, cap;
	ynode *alias;   /* alias target */
	int busy;       /* alias being expanded */
	int printing;   /* alias being printed (go_sharp_v) */
	size_t line;    /* 0-based line where the node starts */
};

typedef struct anchor_ent {
	char *name;
	ynode *node;
} anchor_ent;

/* Nodes, and the kid arrays of yaml_fast_build's collections (each of
 * its final size), come from blocks of growing size (nodes: 16, 32, ...
 * 1024), not one malloc each. */
typedef struct yblock {
	struct yblock *next;
	size_t n, cap; /* items used, items there is room for */
	max_align_t items[];
} yblock;

/* a node block's nodes */
#define YBLOCK_NODES(blk) ((ynode *)(void *)(blk)->items)

typedef struct builder {
	yblock *blocks; /* every node, newest block first */
	size_t nall;
	anchor_ent *anchors; /* open-addressing table */
	size_t acap, acount;
	size_t max_depth, max_nodes;
	bh_error *err;
	char *arena; /* yaml_fast_build's scalar texts (nodes' values point
		      * into it, not freed one by one); NULL for libyaml's */
	yblock *kid_blocks; /* yaml_fast_build's kid arrays (the nodes'
			     * kids point into them), newest first */
} builder;

/* ynode_new when the newest block is full (or there is none, or the node
 * limit is reached) */
ynode *ynode_new_block(builder *b, int kind);

/* A new node of kind in b (its fields zero but kind); NULL with b->err set
 * when the node limit is reached or memory is out. */
static inline ynode *ynode_new(builder *b, int kind)
{
	yblock *blk = b->blocks;
	ynode *n;
	if (b->nall >= b->max_nodes || !blk || blk->n == blk->cap)
		return ynode_new_block(b, kind);
	n = &YBLOCK_NODES(blk)[blk->n++];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	b->nall++;
	return n;
}

/* Appends kid to parent's kids; an error code with b->err set on failure.
 * Not for the nodes of yaml_fast_build (their kids are ykids_take's). */
int ynode_add(builder *b, ynode *parent, ynode *kid);

/* Room for n kid pointers from b's kid blocks (freed with b); NULL when
 * memory is out. */
ynode **ykids_take(builder *b, size_t n);

/* Frees every node (and the anchors) of b and makes it empty again, its
 * limits and err kept. */
void ybuilder_reset(builder *b);

/* Reads text (one document, no document markers) into b's nodes when it is
 * made only of what this reader knows: block mappings and sequences, plain
 * scalars on one line, quoted scalars on one line, literal and folded block
 * scalars, empty and one-line flow sequences of scalars — the tree is the
 * one libyaml's events give, node for node (values, lines, implicit).
 * Returns 0 with *root set (NULL for an empty document), or 1 when the text
 * holds anything else (or anything libyaml would refuse): then b is empty
 * again and the caller reads the text with libyaml. */
int yaml_fast_build(builder *b, const char *text, size_t len, ynode **root);

/* 1 to make yaml_fast_build always answer 1 (tests compare both readers). */
extern int yaml_fast_off;

#endif
