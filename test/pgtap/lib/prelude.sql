-- test/pgtap/lib/prelude.sql — the common head of every pgTAP file:
-- quiet TAP output, stop on error, one transaction (each file ends with
-- ROLLBACK, so nothing it creates outlives it), the extensions and helpers.
\set QUIET 1
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;

BEGIN;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS gpu_dbscan;
\ir labelings.sql
\ir datasets.sql
