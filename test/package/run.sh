#!/usr/bin/env bash
# test/package/run.sh — the Debian package, as a user gets it.
#
#   1. scripts/deb.sh builds dist/postgresql-15-gpu-dbscan_<version>_<arch>.deb
#      (reusing the core's build folder);
#   2. the source-built files are removed (make uninstall) and the package
#      is installed with `apt-get install ./dist/<the .deb>`: its files must
#      be where PostgreSQL looks (pg_config --pkglibdir, --sharedir);
#   3. against the package: CREATE EXTENSION in a fresh database, the
#      version, a clustering, and the pg_regress suite (make installcheck);
#   4. apt-get purge: nothing of gpu_dbscan may be left under PostgreSQL's
#      folders, and dpkg must not know the package any more;
#   5. the source build is installed again (make install), as the rest of
#      scripts/test.sh expects.
#
# Prints "ok - ..." / "not ok - ..." lines; exits nonzero on a failure.
# Needs root (apt) and the throwaway server running; without root it prints
# "skip - ..." and does nothing.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PKG=postgresql-15-gpu-dbscan
DB=gd_package
failed=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=1; }

if ! gd_is_root || ! command -v apt-get >/dev/null; then
	echo "skip - the package test needs root and apt"
	exit 0
fi
cd "$GD_ROOT" || exit 1
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
leftovers() { find "$pkglibdir" "$sharedir" /usr/share/doc -name '*gpu_dbscan*' -o -name '*gpu-dbscan*' 2>/dev/null; }
reinstall_source() {
	if make install CORE_BUILD="$GD_BUILD_DIR" PG_CONFIG="$PG_CONFIG" >"$GD_LOGDIR/package-reinstall.log" 2>&1; then
		ok "the source build installed again (make install)"
	else
		not_ok "make install of the source build (log/package-reinstall.log)"
	fi
}

# ---- 1. build ---------------------------------------------------------------------
if bash scripts/deb.sh; then
	deb=$(ls dist/"$PKG"_*.deb | head -n 1)
	ok "scripts/deb.sh built $deb"
else
	not_ok "scripts/deb.sh (log/deb-build.log)"
	exit 1
fi
want_files=$(printf '%s\n' "$pkglibdir/gpu_dbscan.so" "$sharedir/extension/gpu_dbscan.control" \
	"$GD_ROOT"/gpu_dbscan--*.sql | sed "s|^$GD_ROOT/|$sharedir/extension/|" | sort)

# ---- 2. install ---------------------------------------------------------------------
make uninstall PG_CONFIG="$PG_CONFIG" >"$GD_LOGDIR/package-uninstall.log" 2>&1
if [[ -n $(leftovers | grep -v "^/usr/share/doc") ]]; then
	not_ok "make uninstall left: $(leftovers | tr '\n' ' ')"
fi
export DEBIAN_FRONTEND=noninteractive
if apt-get install -y -q --no-install-recommends "$GD_ROOT/$deb" >"$GD_LOGDIR/package-apt-install.log" 2>&1; then
	ok "apt-get install ./$deb"
else
	not_ok "apt-get install ./$deb (log/package-apt-install.log)"
	tail -n 5 "$GD_LOGDIR/package-apt-install.log"
	reinstall_source
	exit 1
fi
have=$(dpkg -L "$PKG" | grep -E '\.(so|sql|control)$' | sort)
if [[ $have == "$want_files" ]]; then
	ok "the package holds $(wc -l <<<"$have") files where pg_config says: the module, the control file, every SQL script"
else
	not_ok "package files: $(diff <(echo "$want_files") <(echo "$have") | tr '\n' ' ')"
fi

# ---- 3. use it ------------------------------------------------------------------------
gd_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
if gd_psql "$DB" -c 'CREATE EXTENSION postgis' -c 'CREATE EXTENSION gpu_dbscan' >/dev/null; then
	ok "CREATE EXTENSION gpu_dbscan from the package"
	default=$(sed -nE "s/^default_version *= *'([^']+)'.*/\1/p" gpu_dbscan.control)
	got=$(gd_psql "$DB" -tAc "SELECT extversion FROM pg_extension WHERE extname = 'gpu_dbscan'")
	[[ $got == "$default" ]] && ok "version $got" || not_ok "version $got, want $default"
	got=$(gd_psql "$DB" -tAc "SELECT string_agg(coalesce(c::text, 'N'), ',' ORDER BY i) FROM (
		SELECT i, gpu_dbscan(ST_MakePoint(CASE WHEN i < 4 THEN i ELSE 10 * i END, 0), 1.5, 2) OVER (ORDER BY i) AS c
		FROM generate_series(1, 6) i) s")
	[[ $got == 0,0,0,N,N,N ]] && ok "a clustering with the package's module" || not_ok "clustering: $got"
else
	not_ok "CREATE EXTENSION gpu_dbscan from the package"
fi
gd_psql postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null
make installcheck PG_CONFIG="$PG_CONFIG" >"$GD_LOGDIR/package-installcheck.log" 2>&1
rc=$?
n_ok=$(grep -cE '\.\.\. ok' "$GD_LOGDIR/package-installcheck.log")
if [[ $rc -eq 0 && $n_ok -gt 0 ]]; then
	ok "pg_regress against the package: $n_ok tests"
else
	not_ok "pg_regress against the package (log/package-installcheck.log, regression.diffs)"
fi

# ---- 4. purge -------------------------------------------------------------------------
if apt-get purge -y -q "$PKG" >"$GD_LOGDIR/package-apt-purge.log" 2>&1; then
	ok "apt-get purge $PKG"
else
	not_ok "apt-get purge $PKG (log/package-apt-purge.log)"
fi
left=$(leftovers)
if [[ -z $left ]]; then
	ok "nothing of gpu_dbscan left under $pkglibdir, $sharedir, /usr/share/doc"
else
	not_ok "left behind: $(tr '\n' ' ' <<<"$left")"
fi
if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q installed; then
	not_ok "dpkg still lists $PKG: $(dpkg-query -W -f='${Status}' "$PKG")"
else
	ok "dpkg no longer lists $PKG"
fi

# ---- 5. back to the source build ---------------------------------------------------------------
reinstall_source
exit "$failed"
