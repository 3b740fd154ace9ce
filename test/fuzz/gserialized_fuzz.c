/*
 * gserialized_fuzz.c — libFuzzer target over the GSERIALIZED decoder
 * (src/gserialized_points.c, compiled unchanged against test/fuzz/pg_shim.c).
 *
 * Input: one mode byte, then the serialized bytes after the varlena header.
 *   mode bit 0: decode as geography (else geometry)
 *   mode bit 1: pass a PostgisFns (the shim's postgis_box2d) for curves
 * Each input is decoded with a 4-byte varlena header in an exactly sized heap
 * block (ASan sees any read past the end), and, when it fits, again with a
 * 1-byte header at an odd address (unaligned, as a value stored in a table):
 * both must agree, an ERROR included.  A decoded value must be sane (a kind a
 * non-NULL row can have, a 21-bit SRID, finite matching the coordinates).
 * Then the point writer's output must decode to what was written.
 *
 * Build and run: test/fuzz/run.sh (see there).
 */
#include "postgres.h"

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gserialized_points.h"
#include "pg_shim.h"

#define MAX_STACK (1024L * 1024L)

typedef struct Outcome
{
	bool		error;
	GeomInfo	info;
} Outcome;

static void
decode_one(const uint8_t *payload, size_t len, bool short_header, uint8_t mode, Outcome *out)
{
	sigjmp_buf	jump;
	uint8_t    *block;
	struct varlena *v;
	PostgisFns	fns;

	memset(out, 0, sizeof(*out));
	memset(&fns, 0, sizeof(fns));
	if (short_header)
	{
		/* 1-byte header at an odd address: block[1] is the header */
		block = malloc(len + 2);
		block[1] = (uint8_t) (((len + 1) << 1) | 0x01);	/* SET_VARSIZE_1B, little-endian */
		memcpy(block + 2, payload, len);
		v = (struct varlena *) (block + 1);
	}
	else
	{
		block = malloc(len + VARHDRSZ);
		SET_VARSIZE(block, len + VARHDRSZ);
		memcpy(block + VARHDRSZ, payload, len);
		v = (struct varlena *) block;
	}

	gd_shim_jump = &jump;
	if (sigsetjmp(jump, 0) == 0)
	{
		if (mode & 1)
			gserialized_decode_geography(PointerGetDatum(v), &out->info);
		else
			gserialized_decode(PointerGetDatum(v), (mode & 2) ? &fns : NULL, &out->info);
	}
	else
		out->error = true;
	gd_shim_jump = NULL;
	gd_shim_reset();
	free(block);
}

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

static void
check_sane(const Outcome *o)
{
	const GeomInfo *g = &o->info;

	if (o->error)
		return;
	if (g->kind != GEOM_POINT && g->kind != GEOM_EMPTY && g->kind != GEOM_OTHER)
		abort();
	if (g->srid < -(1 << 20) || g->srid >= (1 << 20))
		abort();
	if (g->kind == GEOM_POINT && g->finite != (isfinite(g->x) && isfinite(g->y)))
		abort();
}

static void
check_same(const Outcome *a, const Outcome *b)
{
	if (a->error != b->error)
		abort();
	if (a->error)
		return;
	if (a->info.kind != b->info.kind || a->info.srid != b->info.srid ||
		a->info.finite != b->info.finite ||
		(a->info.malformed == NULL) != (b->info.malformed == NULL))
		abort();
	if (a->info.kind == GEOM_POINT &&
		(!same_double(a->info.x, b->info.x) || !same_double(a->info.y, b->info.y) ||
		 a->info.has_z != b->info.has_z || !same_double(a->info.z, b->info.z)))
		abort();
	if (a->info.kind == GEOM_OTHER &&
		(!same_double(a->info.xmin, b->info.xmin) || !same_double(a->info.ymin, b->info.ymin) ||
		 !same_double(a->info.xmax, b->info.xmax) || !same_double(a->info.ymax, b->info.ymax)))
		abort();
}

/* The point writer: what it writes decodes to the same point and SRID. */
static void
check_writer(const uint8_t *data, size_t size)
{
	double		x,
				y;
	int32_t		srid;
	union
	{
		int32_t		align;
		uint8_t		bytes[GSERIALIZED_POINT_SIZE];
	}			buf;
	Outcome		o;

	if (size < 20)
		return;
	memcpy(&x, data, 8);
	memcpy(&y, data + 8, 8);
	memcpy(&srid, data + 16, 4);
	srid = (int32_t) ((uint32_t) srid << 11) >> 11;	/* 21 bits */
	gserialized_write_point(buf.bytes, x, y, srid, false);
	decode_one(buf.bytes + VARHDRSZ, GSERIALIZED_POINT_SIZE - VARHDRSZ, false, 0, &o);
	if (o.error || o.info.kind != GEOM_POINT || o.info.srid != srid ||
		!same_double(o.info.x, x) || !same_double(o.info.y, y))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		base;
	uint8_t		mode;
	Outcome		longh,
				shorth;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	gd_shim_begin(&base, MAX_STACK);

	decode_one(data, size, false, mode, &longh);
	check_sane(&longh);
	if (size + 1 <= 127)
	{
		decode_one(data, size, true, mode, &shorth);
		check_same(&longh, &shorth);
	}
	check_writer(data, size);
	return 0;
}
