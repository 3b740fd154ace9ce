-- gpu_dbscan 0.1 -> 0.2
\echo Use "ALTER EXTENSION gpu_dbscan UPDATE TO '0.2'" to load this file. \quit

-- What 0.2 adds to 0.1; gpu_dbscan--0.2.sql holds the same objects for a new install.
