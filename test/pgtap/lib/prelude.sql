-- test/pgtap/lib/prelude.sql — the common head of every pgTAP file:
-- quiet TAP output, stop on error, one transaction (each file ends with
-- ROLLBACK, so nothing it creates outlives it), the extensions and helpers.
\ir quiet.sql

BEGIN;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpu_dbscan;
\ir labelings.sql
\ir datasets.sql
\ir errors.sql
