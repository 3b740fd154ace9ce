-- 93_agg_fast_path: gpu_dbscan_agg(geom, eps, minpoints) (and _params,
-- _collect) FROM t [WHERE ...] [GROUP BY k, ...] [HAVING ...]
-- planned as the custom scan GpuDbscanAgg (issue 9: parallel read, groups
-- by a stable sort, clustering per group) give today's Agg's rows and
-- errors, with the leader alone and with workers:
--   every case of 10_equivalence_random's data sets ungrouped (leader
--   alone), every set grouped by its partitions (two workers);
--   group keys of every type sort_keys.c orders (NULLs, NaN, -0 and 0),
--   NULL, EMPTY and non-point rows, no row at all, HAVING, ORDER BY inside
--   the aggregate;
--   errors raised by row (NaN, malformed, second SRID: the same row number
--   within the group), by the parameters, inside the workers' quals;
--   gpu_dbscan_params and gpu_dbscan_collect, alone and beside it;
--   queries it does not serve (other aggregates, joins, expressions as
--   arguments, a _3d one or float8[] over an expression, ...) plan as before
--   (97_point_z_fast_path and 98_array_fast_path: over a column).
-- Today's side is the serial Agg over a sequential scan from block 0, a
-- HashAggregate where grouped (enable_sort off): each group's rows in heap
-- order, the fast path's order.
\ir lib/prelude.sql
\ir lib/fast_path.sql
\ir lib/equivalence_sets.sql

SELECT plan(84 + (SELECT count(*)::int FROM gd_test.cases) + (SELECT count(DISTINCT ds)::int FROM gd_test.cases));

-- 1. every case ungrouped, the leader alone
SELECT is(gd_test.agg_fast_diff(format('SELECT gpu_dbscan_agg(geom, %s::float8, %s) AS a FROM gd_test.pts WHERE ds = %s',
									   quote_literal(eps), minpoints, ds), 0), NULL,
		  format('ungrouped, leader alone: ds %s %s eps %s minpoints %s', ds, family, eps, minpoints))
FROM gd_test.cases c
ORDER BY case_id;

-- 2. every set grouped by its partitions, two workers
SELECT is(gd_test.agg_fast_diff(format('SELECT part, gpu_dbscan_agg(geom, %s::float8, %s) AS a FROM gd_test.pts WHERE ds = %s GROUP BY part ORDER BY part',
									   quote_literal(eps), minpoints, ds), 2), NULL,
		  format('GROUP BY part, 2 workers: ds %s %s eps %s minpoints %s', ds, family, eps, minpoints))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id) c
ORDER BY ds;

-- 3. the whole table in one query: groups of every set, two workers and none
SELECT is(gd_test.agg_fast_diff('SELECT ds, part, gpu_dbscan_agg(geom, 2.5, 4) AS a, gpu_dbscan_agg(geom, 0.7, 2) AS b FROM gd_test.pts GROUP BY ds, part ORDER BY ds, part', 2),
		  NULL, 'GROUP BY ds, part over every set, two aggregates, 2 workers');
SELECT is(gd_test.agg_fast_diff('SELECT ds, array_length(gpu_dbscan_agg(geom, 2.5, 4), 1) AS n, gpu_dbscan_agg(geom, 2.5, 4) AS a FROM gd_test.pts WHERE id % 7 <> 3 GROUP BY ds ORDER BY ds DESC', 0),
		  NULL, 'GROUP BY ds ORDER BY ds DESC, an expression over the aggregate, a WHERE, leader alone');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.pts', 2),
		  NULL, 'ungrouped over every set, 2 workers');

-- 4. group keys of every type: NULLs, NaN, -0 and 0, infinities; NULL, EMPTY and non-point rows
CREATE TABLE gd_test.keys AS
SELECT i AS id,
	   (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', NULL, '1.5', '-1e300'])[1 + i % 8]::float8 AS f8,
	   (ARRAY['NaN', '-0', '0', NULL, '2.5'])[1 + i % 5]::float4 AS f4,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919 % 7 - 3) * 3074457345618258 END::int8 AS i8,
	   (i % 3 - 1)::int2 AS i2,
	   date '2000-01-01' + (i * 31 % 5) AS d,
	   timestamptz '2020-01-01 00:00:00+00' + (i * 13 % 4) * interval '1 hour' AS tz,
	   CASE WHEN i % 97 = 0 THEN NULL
			WHEN i % 89 = 0 THEN 'POINT EMPTY'::geometry
			WHEN i % 83 = 0 THEN 'LINESTRING(0 0, 6 6)'::geometry
			WHEN i % 79 = 0 THEN 'POLYGON((10 10, 14 10, 14 14, 10 10))'::geometry
			ELSE ST_MakePoint(i % 40, i / 40) END AS geom
FROM generate_series(1, 4000) i;
SELECT is(gd_test.agg_fast_diff('SELECT f8, i2, gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.keys GROUP BY f8, i2 ORDER BY f8, i2', 2),
		  NULL, 'float8 (NaN, -0 = 0, infinities, NULL) and int2 groups, non-point rows, 2 workers');
SELECT is(gd_test.agg_fast_diff('SELECT i8, gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.keys GROUP BY i8 ORDER BY i8 DESC NULLS LAST', 2),
		  NULL, 'int8 groups ORDER BY DESC NULLS LAST');
SELECT is(gd_test.agg_fast_diff('SELECT f4, d, tz, gpu_dbscan_agg(geom, 2, 4) AS a FROM gd_test.keys GROUP BY f4, d, tz ORDER BY f4, d, tz', 0),
		  NULL, 'float4, date and timestamptz groups, leader alone');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1.2, 2) AS a FROM gd_test.keys', 2),
		  NULL, 'ungrouped with NULL, EMPTY and non-point rows');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1.2, 2) AS a FROM gd_test.keys WHERE id < 0', 2),
		  NULL, 'no row, ungrouped: one NULL');
SELECT is(gd_test.agg_fast_diff('SELECT i2, gpu_dbscan_agg(geom, 1.2, 2) AS a FROM gd_test.keys WHERE id < 0 GROUP BY i2', 2),
		  NULL, 'no row, grouped: no group');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1.2, 2) AS a FROM gd_test.keys WHERE geom IS NULL', 0),
		  NULL, 'only NULL rows');
SELECT is((SELECT gpu_dbscan_agg(geom, 1.2, 2) FROM gd_test.keys WHERE id < 0), NULL, 'no row: NULL');

SELECT is(gd_test.agg_fast_diff('SELECT i2, gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.keys GROUP BY i2 HAVING array_length(gpu_dbscan_agg(geom, 1.5, 3), 1) > 1333 AND i2 <> 1 ORDER BY i2', 2),
		  NULL, 'HAVING over the aggregate and a group column, evaluated by the node');
SELECT is(gd_test.agg_fast_diff('SELECT 1 AS one FROM gd_test.keys HAVING gpu_dbscan_agg(geom, 1.5, 3) IS NULL', 0),
		  NULL, 'HAVING over an aggregate that the target leaves out');

-- 5. ORDER BY inside the aggregate: the rows of each group in that order
-- (gd_test.bad: rows that fail the checks, for here and 6)
CREATE TABLE gd_test.bad AS
SELECT i AS id, i % 3 AS part,
	   CASE WHEN i = 700 THEN ST_MakePoint('NaN'::float8, 1)
			WHEN i = 900 THEN ST_SetSRID(ST_MakePoint(1, 1), 4326)
			WHEN i = 400 THEN 'MULTIPOINT(EMPTY, 1 1)'::geometry
			ELSE ST_MakePoint(i % 100, i / 100) END AS geom
FROM generate_series(1, 3000) i;
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 2, 3 ORDER BY id DESC) AS a FROM gd_test.pts WHERE ds = 3', 2),
		  NULL, 'ORDER BY id DESC inside the aggregate, ungrouped');
SELECT is(gd_test.agg_fast_diff('SELECT i2, d, gpu_dbscan_agg(geom, 1.5, 3 ORDER BY f8 DESC NULLS LAST, id) AS a, gpu_dbscan_agg(geom, 3, 5 ORDER BY f8 DESC NULLS LAST, id) AS b FROM gd_test.keys GROUP BY i2, d ORDER BY i2, d', 2),
		  NULL, 'GROUP BY i2, d with ORDER BY f8 DESC NULLS LAST, id inside two aggregates');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1, 2 ORDER BY id DESC) AS a FROM gd_test.bad WHERE id <> 400', 2),
		  NULL, 'ORDER BY id DESC: a second SRID before a NaN in that order, the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(geom, -1, 2 ORDER BY id) AS a FROM gd_test.bad WHERE id > 500 AND id <> 900 GROUP BY part ORDER BY part', 2),
		  NULL, 'ORDER BY inside, grouped: the first group''s parameter error before a later group''s NaN row, as the GroupAggregate');
SELECT matches(gd_test.plan_of('SELECT part, gpu_dbscan_agg(geom, 1, 2 ORDER BY id DESC) FROM gd_test.bad GROUP BY part'),
			   'GpuDbscanAgg.*Group Key: part\n  Order Key: id DESC\n', 'EXPLAIN: the aggregate''s ORDER BY as Order Key');

-- 6. errors: the same error, the same row within the group
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1, 2) AS a FROM gd_test.bad WHERE id > 400', 2),
		  NULL, 'a NaN coordinate: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(geom, 1, 2) AS a FROM gd_test.bad WHERE id > 800 GROUP BY part', 2),
		  NULL, 'a second SRID in a group: the same error and row number within the group');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(geom, 1, 2) AS a FROM gd_test.bad GROUP BY part', 2),
		  NULL, 'a malformed value first in heap order: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, -1, 2) AS a FROM gd_test.bad WHERE id NOT IN (400, 700, 900)', 2),
		  NULL, 'a negative eps: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(geom, ''NaN'', NULL) AS a FROM gd_test.bad WHERE id NOT IN (400, 700, 900) GROUP BY part', 0),
		  NULL, 'a NULL minpoints: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, -1, 2) AS a FROM gd_test.bad WHERE id > 500', 2),
		  NULL, 'a NaN row and a negative eps: the row''s error first, as the transition function raises it');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1, 2) AS a FROM gd_test.bad WHERE id NOT IN (400, 700, 900) AND 1 / (id - 1777) > -10', 2),
		  NULL, 'division by zero in the workers'' quals: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(geom, 1, -3) AS a FROM gd_test.bad WHERE id < 0', 2),
		  NULL, 'a negative minpoints over no row: no error, NULL');
-- the texts
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT gpu_dbscan_agg(geom, -1, 2) FROM gd_test.bad WHERE id NOT IN (400, 700, 900)'),
		  '22023 Tolerance must be a positive number: ', 'a negative eps: ST_ClusterDBSCAN''s message');
SELECT is(gd_test.error_of('SELECT gpu_dbscan_agg(geom, 1, -2) FROM gd_test.bad WHERE id NOT IN (400, 700, 900)'),
		  '22023 Minpoints must be a positive number: ', 'a negative minpoints: ST_ClusterDBSCAN''s message');
SELECT is(gd_test.error_of('SELECT gpu_dbscan_agg(geom, ''NaN'', 2) FROM gd_test.bad WHERE id NOT IN (400, 700, 900)'),
		  '22023 Tolerance must be a number, not NaN: ', 'a NaN eps: ST_ClusterDBSCAN''s message');
SELECT is(gd_test.error_of('SELECT part, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad WHERE id > 400 GROUP BY part'),
		  '22023 gpu_dbscan: geometry has a NaN or infinite coordinate: Row 100 of the window partition.',
		  'a NaN coordinate: the message, the row within its group (id 700 is part 1''s 100th row)');
-- a cancel (statement timeout) in the middle of the parallel read
-- (error_of's WHEN others does not catch a cancel)
CREATE FUNCTION pg_temp.cancel_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN query_canceled THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.is_agg_fast('SELECT part, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.pts WHERE pg_sleep(0.0001) IS NOT NULL GROUP BY part'),
		  true, 'the query to cancel is planned with the fast path');
SET LOCAL statement_timeout = '300ms';
SELECT is(pg_temp.cancel_of($$SELECT part, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.pts
												  WHERE pg_sleep(0.0001) IS NOT NULL GROUP BY part$$),
		  '57014 canceling statement due to statement timeout', 'a statement timeout cancels the parallel read');
RESET statement_timeout;
SELECT is((SELECT count(*)::int FROM pg_backend_memory_contexts WHERE name LIKE 'gpu_dbscan aggregate scan%'), 0,
		  'no memory of the fast path is left after the errors and the cancel');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(geom, 2, 3) AS a FROM gd_test.pts WHERE ds = 2 GROUP BY part ORDER BY part', 2),
		  NULL, 'the next query after the cancel: the same rows');

-- 7. gpu_dbscan_params: the same sweep summaries, alone and beside gpu_dbscan_agg
SELECT is(gd_test.agg_fast_diff(format('SELECT gpu_dbscan_params(geom, ''{0.5, 1, 2.5}'', ''{1, 3, 8}'') AS p FROM gd_test.pts WHERE ds = %s', ds), 0),
		  NULL, format('gpu_dbscan_params ungrouped, leader alone: ds %s', ds))
FROM generate_series(1, 30, 7) ds;
SELECT is(gd_test.agg_fast_diff('SELECT ds, gpu_dbscan_params(geom, ''{0.7, 2}'', ''{2, 4, 9}'') AS p, gpu_dbscan_agg(geom, 2, 4) AS a FROM gd_test.pts GROUP BY ds ORDER BY ds', 2),
		  NULL, 'gpu_dbscan_params and gpu_dbscan_agg grouped by set, 2 workers');
SELECT is(gd_test.agg_fast_diff('SELECT i2, gpu_dbscan_params(geom, ''{1.5, 3}'', ''{2, 5}'' ORDER BY id DESC) AS p FROM gd_test.keys GROUP BY i2 ORDER BY i2', 2),
		  NULL, 'gpu_dbscan_params with ORDER BY inside, NULL, EMPTY and non-point rows');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params(geom, ''{1, NULL}'', ''{2}'') AS p FROM gd_test.keys', 2),
		  NULL, 'gpu_dbscan_params, a NULL eps: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params(geom, ''{}'', ''{2}'') AS p FROM gd_test.keys', 2),
		  NULL, 'gpu_dbscan_params, no eps: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params(geom, ''{{1, 2}}'', ''{2}'') AS p FROM gd_test.keys', 0),
		  NULL, 'gpu_dbscan_params, a 2-D eps array: the same error');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params(geom, ''{1}'', ''{2}'') AS p FROM gd_test.bad WHERE id > 400', 2),
		  NULL, 'gpu_dbscan_params, a NaN row: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params(geom, ''{1}'', ''{2}'') AS p FROM gd_test.bad WHERE id < 0', 2),
		  NULL, 'gpu_dbscan_params over no row: NULL');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT gpu_dbscan_params(geom, ''{}'', ''{2}'') FROM gd_test.keys'),
		  '22023 gpu_dbscan_params: eps must hold at least one value: ', 'gpu_dbscan_params, no eps: the message');

-- 8. gpu_dbscan_collect: the same collections (the members fetched again by TID)
SELECT is(gd_test.agg_fast_diff(format('SELECT gpu_dbscan_collect(geom, %s::float8, %s) AS c FROM gd_test.pts WHERE ds = %s',
									   quote_literal(eps), minpoints, ds), 2), NULL,
		  format('gpu_dbscan_collect ungrouped, 2 workers: ds %s eps %s minpoints %s', ds, eps, minpoints))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases WHERE ds % 6 = 1 ORDER BY ds, case_id DESC) c
ORDER BY ds;
SELECT is(gd_test.agg_fast_diff('SELECT i2, gpu_dbscan_collect(geom, 1.5, 3) AS c, gpu_dbscan_agg(geom, 1.5, 3) AS a, gpu_dbscan_params(geom, ''{1.5}'', ''{3}'') AS p FROM gd_test.keys GROUP BY i2 ORDER BY i2', 2),
		  NULL, 'gpu_dbscan_collect, _agg and _params grouped, non-point rows');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_collect(geom, 2, 3 ORDER BY id DESC) AS c FROM gd_test.pts WHERE ds = 2 GROUP BY part', 0),
		  NULL, 'gpu_dbscan_collect with ORDER BY inside, leader alone');
CREATE TABLE gd_test.dims AS
SELECT i AS id, i % 2 AS part, CASE WHEN i = 37 THEN ST_MakePoint(i % 10, i / 10, 5) ELSE ST_MakePoint(i % 10, i / 10) END AS geom
FROM generate_series(1, 200) i;
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_collect(geom, 1.5, 2) AS c FROM gd_test.dims GROUP BY part', 2),
		  NULL, 'gpu_dbscan_collect, 2D and 3D points in one cluster: the same error and row numbers');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT gpu_dbscan_collect(geom, 1.5, 2) FROM gd_test.dims'),
		  '22023 gpu_dbscan_collect: cluster 0 holds geometries of different dimensions: Input row 1 is 2D, input row 37 is Z.',
		  'gpu_dbscan_collect, 2D and 3D points: the message');

-- 9. the plan
SELECT gd_test.use_fast_path(true, 2);
SELECT matches(gd_test.plan_of('SELECT part, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad WHERE id > 5 GROUP BY part ORDER BY part'),
			   '^Custom Scan \(GpuDbscanAgg\)\n  Relation: bad\n  Group Key: part\n  Filter: \(id > 5\)\n  Workers Planned: 2\n$',
			   'EXPLAIN: the custom scan, its group key, filter and workers; no Sort for ORDER BY the group key');
SELECT is(gd_test.is_agg_fast('SELECT gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad'), true, 'ungrouped: the custom scan');
SET LOCAL gpu_dbscan.fast_path = off;
SELECT is(gd_test.is_agg_fast('SELECT gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad'), false,
		  'gpu_dbscan.fast_path = off: the Agg');
-- a new session's first query, before anything has loaded the module: the
-- transition functions' support function loads it while the query is planned
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('fresh', format('host=%s port=%s dbname=%s user=%s',
									  coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'),
									  current_setting('port'), current_database(), current_user));
SELECT dblink_exec('fresh', 'CREATE TEMP TABLE t_fresh AS SELECT 1 AS g, ST_MakePoint(1, 2) AS geom');
SELECT is((SELECT string_agg(line, ' ') FROM dblink('fresh', 'EXPLAIN (COSTS OFF) SELECT gpu_dbscan_agg(geom, 1, 2), gpu_dbscan_params(geom, ''{1}'', ''{2}''), gpu_dbscan_collect(geom, 1, 2) FROM t_fresh') AS t(line text)),
		  'Custom Scan (GpuDbscanAgg)   Relation: t_fresh   Workers Planned: 0',
		  'a new session''s first query plans the custom scan (the module loaded at plan time)');
SELECT dblink_disconnect('fresh');
SELECT gd_test.use_fast_path(true, 0);

-- 10. what the fast path does not serve plans as before
SELECT is(gd_test.agg_fallback_diff('SELECT part, count(*), gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad WHERE id NOT IN (400, 700, 900) GROUP BY part ORDER BY part'),
		  NULL, 'another aggregate in the query: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(p.geom, 1, 2) FROM gd_test.pts p JOIN gd_test.cases k ON k.case_id = p.id WHERE p.ds = 3'),
		  NULL, 'a join: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(ST_Translate(geom, 1, 1), 1, 2) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'an expression as the geometry: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(geom, id / 1000.0, 2) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'a column as eps: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(geom, 1, 2 ORDER BY id DESC), gpu_dbscan_agg(geom, 1, 2 ORDER BY id) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'two aggregates of different ORDER BY: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(geom, 1, 2 ORDER BY md5(id::text)) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'ORDER BY an expression inside the aggregate: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(geom, 1, 2) FILTER (WHERE id > 10) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'FILTER: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT part, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.bad WHERE id NOT IN (400, 700, 900) GROUP BY part HAVING count(*) > 5 ORDER BY part'),
		  NULL, 'another aggregate in HAVING: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT id % 3, gpu_dbscan_agg(geom, 1, 2) FROM gd_test.pts WHERE ds = 3 GROUP BY id % 3 ORDER BY 1'),
		  NULL, 'GROUP BY an expression: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg_3d(ST_Force3DZ(geom), 1, 2) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'gpu_dbscan_agg_3d over an expression: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(ARRAY[ST_X(geom), ST_Y(geom)], 1, 2) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'float8[] points of an expression: today''s path (98_array_fast_path: a column)');
CREATE TABLE gd_test.geog AS SELECT i AS id, ST_MakePoint(i % 50 * 0.01, i % 40 * 0.01)::geography AS v FROM generate_series(1, 2000) i;
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(v, 1500, 3) AS a, gpu_dbscan_params(v, ''{1500}'', ''{3}'') AS p FROM gd_test.geog', 2),
		  NULL, 'a geography column: the fast path (99_geography_fast_path), the Agg''s answers');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_params_3d(ST_Force3DZ(geom), ''{1}'', ''{2}'') FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'gpu_dbscan_params_3d over an expression: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_collect(ST_Force3DZ(geom), 1, 2) FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'gpu_dbscan_collect over an expression: today''s path');

SELECT is(gd_test.agg_fallback_diff('SELECT p.part, (SELECT gpu_dbscan_agg(b.geom, 1, 2) FROM gd_test.bad b WHERE b.part = p.part AND b.id NOT IN (400, 700, 900)) FROM (VALUES (0), (1)) p(part)'),
		  NULL, 'a correlated sub-query (a parameter in the quals): today''s path');

-- 11. what sits above it: a view, DISTINCT, LIMIT, a qual on the group key pushed into the scan
CREATE VIEW gd_test.v_pts AS SELECT ds, part, id, geom FROM gd_test.pts WHERE ds < 20;
SELECT is(gd_test.agg_fast_diff('SELECT ds, gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.v_pts GROUP BY ds ORDER BY ds LIMIT 5', 2),
		  NULL, 'over a view, ORDER BY the group key with LIMIT');
SELECT is(gd_test.agg_fast_diff('SELECT * FROM (SELECT ds, gpu_dbscan_agg(geom, 1.5, 3) AS a FROM gd_test.pts GROUP BY ds) s WHERE ds IN (3, 9) ORDER BY ds', 2),
		  NULL, 'a sub-query''s qual on the group key, pushed into the read');
SELECT is(gd_test.agg_fast_diff('SELECT DISTINCT array_length(gpu_dbscan_agg(geom, 1.5, 3), 1) AS n FROM gd_test.pts GROUP BY ds ORDER BY 1', 0),
		  NULL, 'DISTINCT over the groups');

SELECT * FROM finish();
ROLLBACK;
