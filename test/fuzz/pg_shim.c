/*
 * pg_shim.c — the few backend functions src/gserialized_points.c calls,
 * for running the decoder outside a server (the fuzz target).
 *
 * ereport(ERROR) ends in errfinish, which longjmps back to the fuzz target
 * (gd_shim_catch); palloc'd memory is kept on a list and freed after each
 * input; check_stack_depth fails past a fixed depth as the server's does past
 * max_stack_depth.  The decoder's own code is compiled unchanged.
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmgr.h"
#include "miscadmin.h"

#include "pg_shim.h"

/* port.h maps these to libpgport's; the C library's do here */
#undef vsnprintf

sigjmp_buf *gd_shim_jump = NULL;
char		gd_shim_message[256];
int			gd_shim_errors = 0;

static const char *stack_base = NULL;
static long stack_limit = 0;

/* Every allocation of the current input, freed by gd_shim_reset. */
typedef struct Chunk
{
	struct Chunk *next;
	max_align_t data[];
} Chunk;
static Chunk *chunks = NULL;

void
gd_shim_begin(const char *base, long max_stack_bytes)
{
	stack_base = base;
	stack_limit = max_stack_bytes;
	gd_shim_message[0] = '\0';
}

void
gd_shim_reset(void)
{
	while (chunks)
	{
		Chunk	   *next = chunks->next;

		free(chunks);
		chunks = next;
	}
}

void *
palloc(Size size)
{
	Chunk	   *c = malloc(sizeof(Chunk) + size);

	if (c == NULL)
		abort();
	c->next = chunks;
	chunks = c;
	return c->data;
}

void
pfree(void *pointer)
{
	Chunk	  **p;

	for (p = &chunks; *p; p = &(*p)->next)
		if ((void *) (*p)->data == pointer)
		{
			Chunk	   *c = *p;

			*p = c->next;
			free(c);
			return;
		}
	/* not ours: a bug of the decoder (freeing the input, say) */
	abort();
}

char *
psprintf(const char *fmt,...)
{
	va_list		ap;
	char	   *buf = palloc(256);

	va_start(ap, fmt);
	vsnprintf(buf, 256, fmt, ap);
	va_end(ap);
	return buf;
}

/* The input is never toasted here: plain and short varlenas pass through. */
struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum) && !VARATT_IS_SHORT(datum))
		abort();				/* external or compressed: the target never builds one */
	return datum;
}

void
check_stack_depth(void)
{
	char		here;

	if (stack_base != NULL && labs((long) (stack_base - &here)) > stack_limit)
		ereport(ERROR,
				(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
				 errmsg("stack depth limit exceeded")));
}

static int	error_level;

bool
errstart(int elevel, const char *domain)
{
	error_level = elevel;
	return elevel >= ERROR;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errcode(int sqlerrcode)
{
	return 0;
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(gd_shim_message, sizeof(gd_shim_message), fmt, ap);
	va_end(ap);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	char		buf[256];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (error_level < ERROR)
		return;
	gd_shim_errors++;
	if (gd_shim_jump == NULL)
		abort();
	siglongjmp(*gd_shim_jump, 1);
}

/* Never reached with fns == NULL; with the fake fns of the target, a box. */
bool
postgis_box2d(PostgisFns *fns, Datum geom, double *xmin, double *ymin,
			  double *xmax, double *ymax)
{
	*xmin = *ymin = -1.0;
	*xmax = *ymax = 1.0;
	return true;
}
