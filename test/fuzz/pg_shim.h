/*
 * pg_shim.h — see pg_shim.c.
 */
#ifndef GD_PG_SHIM_H
#define GD_PG_SHIM_H

#include <setjmp.h>

#include "postgis_fn.h"

/* Where errfinish jumps for an ERROR; NULL aborts (an unexpected error). */
extern sigjmp_buf *gd_shim_jump;
/* The last error's message, and how many errors were raised. */
extern char gd_shim_message[256];
extern int	gd_shim_errors;

/* Starts an input: stack depth is measured from base. */
extern void gd_shim_begin(const char *base, long max_stack_bytes);
/* Frees everything palloc'd since the last reset. */
extern void gd_shim_reset(void);

#endif
