-- gpu_dbscan 0.1 -> 0.2
\echo Use "ALTER EXTENSION gpu_dbscan UPDATE TO '0.2'" to load this file. \quit

-- What 0.2 adds to 0.1; gpu_dbscan--0.2.sql holds the same objects for a new install.

-- ---- Progress of long runs (progress.c): what every session that is
-- clustering a partition of more than 64 rows is doing now.

CREATE FUNCTION gpu_dbscan_progress(
    OUT pid int,
    OUT backend_start timestamptz,
    OUT function text,
    OUT phase text,
    OUT rows_read bigint,
    OUT rows_total bigint,
    OUT partitions_done bigint,
    OUT partition_ms float8,
    OUT phase_ms float8,
    OUT datid oid)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_dbscan_progress'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_progress() IS
'A row per session clustering now (a partition of more than 64 rows, or an aggregate''s rows): function, phase, rows read of the partition''s rows, partitions done in the transaction, time in the partition and the phase; other roles'' sessions only for members of pg_read_all_stats';
