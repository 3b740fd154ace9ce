-- test/pgtap/lib/quiet.sql — psql settings for TAP output: quiet, stop on
-- the first error, bare rows.  Included by prelude.sql, and by the files that
-- cannot use the prelude's one transaction (they run ALTER SYSTEM).
\set QUIET 1
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SET client_min_messages = warning;
