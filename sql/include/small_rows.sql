-- sql/include/small_rows.sql — the small partition of the aggregates, flags
-- and sweep cases: two groups of three points 0.5 to 1 apart, a lone point,
-- a NULL and an EMPTY row.
CREATE TEMP TABLE pts (id int, geom geometry);
INSERT INTO pts VALUES
(1, 'POINT (0 0)'),
(2, 'POINT (0 1)'),
(3, 'POINT (-0.5 0.5)'),
(4, 'POINT (1 0)'),
(5, 'POINT (1 1)'),
(6, 'POINT (1.0 0.5)'),
(7, 'POINT (9 9)'),
(8, NULL),
(9, 'POINT EMPTY');
