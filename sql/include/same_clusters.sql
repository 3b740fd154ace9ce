-- sql/include/same_clusters.sql — same clusters up to relabelling: the same
-- NULL rows, and every id of one side maps to exactly one id of the other.
CREATE FUNCTION pg_temp.same_clusters(a int[], b int[]) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
  SELECT cardinality(a) = cardinality(b)
     AND NOT EXISTS (SELECT 1 FROM unnest(a, b) u(x, y) WHERE (x IS NULL) <> (y IS NULL))
     AND NOT EXISTS (SELECT 1 FROM unnest(a, b) u(x, y) WHERE x IS NOT NULL
                     GROUP BY x HAVING count(DISTINCT y) > 1)
     AND NOT EXISTS (SELECT 1 FROM unnest(a, b) u(x, y) WHERE y IS NOT NULL
                     GROUP BY y HAVING count(DISTINCT x) > 1)
$$;
