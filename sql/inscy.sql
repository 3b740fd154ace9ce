--
-- inscy: gpu_inscy, subspace clustering (docs/subspace.md), on a small case
-- worked out by hand, the row numbering, and every bad input.  The session
-- goes on after every error.
--
-- Eight rows, two columns; both columns run from 0 to 1, so normalising
-- leaves every value as it is.  eps = 0.15, n = 8:
--   threshold(s) = max(F * 8 * c(s) * 0.15^s, mu), c(1) = 2, c(2) = pi;
--   F = 1:   s = 1: 2.4 -> 3 neighbours; s = 2: max(0.565, mu = 2) -> 2
--   F = 0.5: s = 1: max(1.2, 2) -> 2;      s = 2: 2
-- Column x (col 1): rows 1-4 at 0, 0.05, 0.1, 0.1 have 3 neighbours each
-- (all within 0.1); rows 5-7 at 0.5, 0.55, 0.6 have 2 each; row 8 (1.0) none.
-- Column y (col 2): rows 1-4 at 0, 0.05, 0.1, 0.05 have 3 each; rows 5-8 at
-- 0.3, 0.6, 1.0, 0.55: rows 6 and 8 see each other (0.05), nothing else.
-- In {x, y} rows 1-4 are within 0.1414 <= 0.15 of each other (1 and 3 are
-- (0.1, 0.1) apart), 3 neighbours each; rows 5-8 are all farther apart.
CREATE TEMP TABLE pts (id int, x float8, y float8);
INSERT INTO pts VALUES
(1, 0.0, 0.0), (2, 0.05, 0.05), (3, 0.1, 0.1), (4, 0.1, 0.05),
(5, 0.5, 0.3), (6, 0.55, 0.6), (7, 0.6, 1.0), (8, 1.0, 0.55);

-- F = 1, r = 1, min_size 3: rows 1-4 in {x}, in {y} and in {x, y}.  Rows 5-7
-- (2 neighbours on x) are not dense at s = 1.  The 1-D clusters stay:
-- |C| * r = 4 is not less than |C'| = 4.
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 1.0, 1.0 ORDER BY id) AS r FROM pts) s,
     unnest(s.r) AS c;

-- F = 0.5: rows 5-7 are dense on x too (2 neighbours each), a cluster of
-- size 3 in {x} only.
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 0.5, 1.0 ORDER BY id) AS r FROM pts) s,
     unnest(s.r) AS c;

-- r = 0.5: 4 * 0.5 < 4, so {x} 1-4 and {y} 1-4 are dropped for {x, y} 1-4;
-- {x} 5-7 shares no row with it and stays.
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 0.5, 0.5 ORDER BY id) AS r FROM pts) s,
     unnest(s.r) AS c;

-- min_size 4: only the clusters of rows 1-4
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 4, 0.5, 1.0 ORDER BY id) AS r FROM pts) s,
     unnest(s.r) AS c;

-- members are positions in the aggregate's input order: ORDER BY id DESC
-- numbers row 8 as 1, ..., row 1 as 8
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 0.5, 0.5 ORDER BY id DESC) AS r FROM pts) s,
     unnest(s.r) AS c;

-- a constant third column becomes 0: all 8 rows are one cluster in {3},
-- and every cluster of {x}, {y}, {x, y} comes back with 3 added to its dims
-- (the same rows: distances do not change); r = 1 keeps them all.  (In
-- {x, const} the threshold is that of s = 2, 2 neighbours, so rows 5-7 are
-- dense there, but 3 rows are fewer than min_size 4.)
SELECT c.dims, c.members
FROM (SELECT gpu_inscy(ARRAY[x, y, 7.0], 0.15, 2, 4, 1.0, 1.0 ORDER BY id) AS r FROM pts) s,
     unnest(s.r) AS c;

-- exactly eps: 0 and 0.5 on a column from 0 to 1 are 0.5 apart, a neighbour
-- at eps 0.5; at the next double below 0.5 they are not
CREATE TEMP TABLE tie (id int, f float8[]);
INSERT INTO tie VALUES (1, '{0, 0}'), (2, '{0.5, 0}'), (3, '{1, 0}');
SELECT gpu_inscy(f, 0.5, 1, 2, 0.001, 1.0 ORDER BY id) FROM tie;
SELECT gpu_inscy(f, 0.49999999999999994, 1, 2, 0.001, 1.0 ORDER BY id) FROM tie;

-- no rows: no clusters
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM tie WHERE false;

-- the CPU back end gives the same
SET gpu_dbscan.backend = cpu;
SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 0.5, 0.5 ORDER BY id) FROM pts;
RESET gpu_dbscan.backend;

-- bad input
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1,2}'::float8[]), (NULL)) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1,NULL}'::float8[])) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1,2}'::float8[]), ('{1,NaN}')) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1,2}'::float8[]), ('{-Infinity,2}')) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1,2}'::float8[]), ('{1,2,3}')) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{1}'::float8[])) v(f);
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 1.0) FROM (VALUES ('{}'::float8[])) v(f);
SELECT gpu_inscy(array_fill(1.0::float8, ARRAY[65]), 0.1, 2, 2, 1.0, 1.0);
SELECT gpu_inscy(array_fill(1.0::float8, ARRAY[64]), 0.1, 2, 2, 1.0, 1.0) IS NOT NULL AS d64_ok;
SELECT gpu_inscy('{{1,2},{3,4}}'::float8[], 0.1, 2, 2, 1.0, 1.0);
SELECT gpu_inscy(f, 0, 2, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, -1, 2, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 'NaN', 2, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 'Infinity', 2, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 0, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 0, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 2, 0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, 0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, -2) FROM tie;
SELECT gpu_inscy(f, NULL, 2, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, NULL, 2, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, NULL, 1.0, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 2, NULL, 1.0) FROM tie;
SELECT gpu_inscy(f, 0.1, 2, 2, 1.0, NULL) FROM tie;
SELECT gpu_inscy(f, id * 0.1, 2, 2, 1.0, 1.0) FROM tie;
-- the session is fine
SELECT count(*) FROM unnest((SELECT gpu_inscy(ARRAY[x, y], 0.15, 2, 3, 1.0, 1.0) FROM pts));

-- the run's host memory counts against gpu_dbscan.max_query_memory (20,000 rows
-- x 3 columns: 1.4 MB of normalised points and windows before any level)
-- (terse: the detail's sizes depend on the back end)
SET gpu_dbscan.max_query_memory = '1MB';
\set VERBOSITY terse
SELECT cardinality(gpu_inscy(ARRAY[i % 97, i % 89, i % 83]::float8[], 0.05, 4, 10, 1, 1 ORDER BY i))
FROM generate_series(1, 20000) i;
\set VERBOSITY default
SELECT cardinality(gpu_inscy(ARRAY[i % 97, i % 89, i % 83]::float8[], 0.05, 4, 10, 1, 1 ORDER BY i))
FROM generate_series(1, 2000) i;
RESET gpu_dbscan.max_query_memory;
