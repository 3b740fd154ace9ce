#!/usr/bin/env python3
"""postgis_probe.py -- which geometry shapes crash PostGIS's distance code
(issue 11; the tables of docs/reliability.md, section 1).

Builds trees of every geometry type (leaves with 0 to 5 vertices, open and
closed, EMPTY points, polygons and triangles with EMPTY and short rings,
curve polygons and compound curves with EMPTY members, every collection
type around each leaf, nested collections), and for each runs st_dwithin
against a point inside and outside it, a line, a polygon, a curve polygon,
a far polygon and itself (both argument orders), Box3D and
ST_ClusterDBSCAN, noting which statements crash the backend.

    PGHOST=<checkout>/tmp_pg/run PGPORT=<port> PGUSER=postgres \
        python3 test/reliability/postgis_probe.py MODE OUT.jsonl

MODE: wkbaccept (which trees PostGIS's WKB reader takes: OUT is text),
wkb (those trees, read from WKB; needs wkbaccept's output in
/tmp/i11/wkbaccept.txt or --accepted FILE), raw (every tree as serialized
bytes through a superuser's byteasend cast), count.  Needs a database
"probe" with PostGIS (nothing of gpu_dbscan).  IT CRASHES THE SERVER, many
times: only ever against a throwaway server of your own (the PGHOST must
be a tmp_pg/ socket).  Not part of CI; pgTAP 89 is the CI fuzz.
"""
import struct, subprocess, sys, json, time, os

if 'tmp_pg' not in os.environ.get('PGHOST', '') and sys.argv[1:2] != ['count']:
    sys.exit('postgis_probe.py crashes its server: set PGHOST to a throwaway tmp_pg/ socket')

T = dict(POINT=1, LINE=2, POLY=3, MPOINT=4, MLINE=5, MPOLY=6, COLL=7, CIRC=8, COMP=9,
         CPOLY=10, MCURVE=11, MSURF=12, PSURF=13, TRI=14, TIN=15)
SQUARE = [(0,0),(4,0),(4,4),(0,4),(2,6),(1,7)]

def pts(k, closed=True):
    out = [SQUARE[i % len(SQUARE)] for i in range(k)]
    if closed and k >= 2: out[-1] = out[0]
    return out

# tree: (type, payload); POINT payload: None|(x,y); LINE/CIRC: [pts]; POLY/TRI: [[pts]]; others: [children]
def name(t):
    ty, p = t
    if ty == 'POINT': return 'PT' if p else 'PTE'
    if ty in ('LINE', 'CIRC'): return f'{ty}{len(p)}' + ('' if len(p) < 2 or p[0] == p[-1] else 'o')
    if ty in ('POLY', 'TRI'): return f'{ty}[' + ','.join(str(len(r)) for r in p) + ']'
    return ty + '(' + ','.join(name(c) for c in p) + ')'

def gs_body(t):
    ty, p = t
    if ty == 'POINT':
        return struct.pack('<II', 1, 0) if p is None else struct.pack('<IIdd', 1, 1, *p)
    if ty in ('LINE', 'CIRC'):
        return struct.pack('<II', T[ty], len(p)) + b''.join(struct.pack('<dd', *v) for v in p)
    if ty == 'TRI':
        ring = p[0] if p else []
        return struct.pack('<II', T[ty], len(ring)) + b''.join(struct.pack('<dd', *v) for v in ring)
    if ty == 'POLY':
        b = struct.pack('<II', 3, len(p)) + b''.join(struct.pack('<I', len(r)) for r in p)
        if len(p) % 2: b += b'\0\0\0\0'
        for r in p: b += b''.join(struct.pack('<dd', *v) for v in r)
        return b
    return struct.pack('<II', T[ty], len(p)) + b''.join(gs_body(c) for c in p)

def gserialized(t):
    body = b'\0\0\0' + bytes([0x40]) + gs_body(t)   # srid 0, v2, no box
    return body

WKB_T = dict(T, PSURF=15, TIN=16, TRI=17)

def wkb(t):
    ty, p = t
    h = struct.pack('<BI', 1, WKB_T[ty])
    if ty == 'POINT':
        return h + struct.pack('<dd', *(p if p else (float('nan'),)*2))
    if ty in ('LINE', 'CIRC'):
        return h + struct.pack('<I', len(p)) + b''.join(struct.pack('<dd', *v) for v in p)
    if ty in ('POLY', 'TRI'):
        b = h + struct.pack('<I', len(p))
        for r in p: b += struct.pack('<I', len(r)) + b''.join(struct.pack('<dd', *v) for v in r)
        return b
    return h + struct.pack('<I', len(p)) + b''.join(wkb(c) for c in p)

LINES = [('LINE', pts(k, c)) for k, c in ((0,1),(1,1),(2,0),(3,0),(4,1),(5,1))]
CIRCS = [('CIRC', pts(k, c)) for k, c in ((0,1),(1,1),(2,0),(3,0),(4,1),(5,1))]
GOOD_ARC = ('CIRC', [(0,0),(2,2),(4,0)])
BACK = ('LINE', [(4,0),(0,0)])
COMPS = [('COMP', []), ('COMP', [LINES[0]]), ('COMP', [LINES[1]]), ('COMP', [CIRCS[0]]),
         ('COMP', [GOOD_ARC, BACK]), ('COMP', [GOOD_ARC, BACK, LINES[0]]),
         ('COMP', [LINES[0], GOOD_ARC, BACK]), ('COMP', [GOOD_ARC, LINES[0], BACK]),
         ('COMP', [GOOD_ARC, ('LINE', [(4,0),(4,0)]), BACK]), ('COMP', [GOOD_ARC])]
RINGS = LINES + CIRCS + COMPS
LEAVES = [('POINT', (0.5, 0.5)), ('POINT', None)] + LINES + CIRCS + COMPS
for rs in ([], [0], [1], [2], [3], [5], [5, 0], [5, 1], [5, 3], [0, 5], [5, 5]):
    LEAVES.append(('POLY', [pts(k) for k in rs]))
for rs in ([], [0], [1], [3], [4], [5]):
    LEAVES.append(('TRI', [pts(k) for k in rs]))
LEAVES.append(('CPOLY', []))
for r in RINGS:
    LEAVES.append(('CPOLY', [r]))
    LEAVES.append(('CPOLY', [CIRCS[5], r]))
    LEAVES.append(('CPOLY', [LINES[5], r]))
OUTER = ['MPOINT', 'MLINE', 'MPOLY', 'COLL', 'MCURVE', 'MSURF', 'PSURF', 'TIN']
GOODPOLY = ('POLY', [pts(5)])

def candidates():
    for v in LEAVES: yield v
    for o in OUTER:
        yield (o, [])
        for v in LEAVES:
            yield (o, [v]); yield (o, [GOODPOLY, v]); yield (o, [v, ('POINT', (0.5, 0.5))])
    for v in LEAVES:
        yield ('COLL', [('COLL', [v])]); yield ('COLL', [('MSURF', [v]), ('POINT', (0.5, 0.5))])

PARTNERS = {
    'pt_in': "'POINT(0.5 0.5)'::geometry", 'pt_far': "'POINT(100 100)'::geometry",
    'line': "'LINESTRING(-1 -1, 10 10)'::geometry",
    'poly': "'POLYGON((-1 -1, 10 -1, 10 10, -1 10, -1 -1))'::geometry",
    'cpoly': "'CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0))'::geometry",
    'farpoly': "'POLYGON((100 100, 110 100, 110 110, 100 100))'::geometry",
}

def psql(sql):
    return subprocess.run(['psql', '-X', '-At', '-d', 'probe'], input=sql, capture_output=True, text=True, timeout=120)

def wait_up():
    for _ in range(200):
        if psql('select 1').returncode == 0: return
        time.sleep(0.2)

def run_tests(tests):
    res = {}
    pending = list(tests.items())
    while pending:
        script = ''.join(f"\\echo @@{tn}\n{sql};\n" for tn, sql in pending)
        r = psql(script)
        cur = None; outs = {}
        for line in r.stdout.splitlines():
            if line.startswith('@@'): cur = line[2:]; outs[cur] = ''
            elif cur: outs[cur] += line
        errs = {}
        for line in r.stderr.splitlines():
            pass
        done = list(outs)
        crashed = 'terminated abnormally' in r.stderr or 'connection to server was lost' in r.stderr
        for tn in done: res[tn] = ('ok:' + outs[tn][:30]) if outs[tn] else 'err'
        if crashed and done:
            res[done[-1]] = 'CRASH'; wait_up(); pending = pending[len(done):]
        else:
            pending = []
    return res

TRY = """CREATE OR REPLACE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN EXECUTE q INTO r; RETURN 'ok:' || coalesce(left(r, 30), 'null');
EXCEPTION WHEN OTHERS THEN RETURN 'err:' || SQLSTATE || ' ' || left(SQLERRM, 80); END $$"""

def main():
    mode = sys.argv[1]     # raw | wkb
    out = open(sys.argv[2], 'w')
    psql("CREATE OR REPLACE FUNCTION raw_geom(bytea) RETURNS geometry LANGUAGE internal IMMUTABLE STRICT AS 'byteasend'")
    psql(TRY)
    seen = set()
    accepted = None
    if mode == 'wkb':
        path = sys.argv[sys.argv.index('--accepted') + 1] if '--accepted' in sys.argv else '/tmp/i11/wkbaccept.txt'
        accepted = {l.split('|')[0] for l in open(path) if '|ok' in l}
    jobs = []   # (name, test, sql)
    trees = {}
    for t in candidates():
        n = name(t)
        if n in seen: continue
        seen.add(n)
        if accepted is not None and n not in accepted: continue
        trees[n] = t
        if mode == 'raw':
            g = f"raw_geom(decode(''{gserialized(t).hex()}'',''hex''))"
        else:
            g = f"ST_GeomFromEWKB(decode(''{wkb(t).hex()}'',''hex''))"
        tests = {'parse': f"SELECT ST_AsText({g})", 'box': f"SELECT Box3D({g})::text", 'self': f"SELECT ST_DWithin({g}, {g}, 1)::text"}
        for pn, p in PARTNERS.items():
            p = p.replace("'", "''")
            tests[pn] = f"SELECT ST_DWithin({g}, {p}, 1)::text"
            tests[pn + '_r'] = f"SELECT ST_DWithin({p}, {g}, 1)::text"
        tests['dbscan'] = f"SELECT string_agg(c::text, ',') FROM (SELECT ST_ClusterDBSCAN(g, 1, 1) OVER () AS c FROM (VALUES ({g}), (''POINT(0.5 0.5)''::geometry), (''LINESTRING(0 0, 1 1)''::geometry)) t(g)) s"
        for tn, sql in tests.items(): jobs.append((n, tn, sql))
    results = {}
    i = 0
    while i < len(jobs):
        chunk = jobs[i:i + 400]
        script = ''.join(f"\\echo @@{k}\nSELECT try('{sql}');\n" for k, (n, tn, sql) in enumerate(chunk))
        r = psql(script)
        cur = None; got = {}
        for line in r.stdout.splitlines():
            if line.startswith('@@'): cur = int(line[2:]); got[cur] = None
            elif cur is not None: got[cur] = line
        crashed = 'terminated abnormally' in r.stderr or 'connection to server was lost' in r.stderr
        last = max(got) if got else -1
        for k in range(last + 1):
            n, tn, _ = chunk[k]
            results.setdefault(n, {})[tn] = got.get(k) or 'none'
        if crashed:
            n, tn, _ = chunk[last]
            results[n][tn] = 'CRASH'
            wait_up()
            i += last + 1
        elif last + 1 < len(chunk):
            print('stopped early', r.stderr[:300]); i += last + 1
        else:
            i += len(chunk)
        print(i, len(jobs), flush=True)
    for n, res in results.items():
        out.write(json.dumps(dict(name=n, tree=trees[n], tests=res)) + '\n')

if __name__ == '__main__':
    if sys.argv[1] == 'wkbaccept':
        # one session: which candidates does ST_GeomFromEWKB accept?
        psql('''CREATE OR REPLACE FUNCTION try_wkb(h text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN RETURN 'ok ' || ST_AsText(ST_GeomFromEWKB(decode(h, 'hex')));
EXCEPTION WHEN OTHERS THEN RETURN 'err ' || SQLERRM; END $$''')
        seen = {}
        for t in candidates():
            seen.setdefault(name(t), wkb(t).hex())
        vals = ','.join(f"('{n}','{h}')" for n, h in seen.items())
        r = psql(f"SELECT n || '|' || try_wkb(h) FROM (VALUES {vals}) v(n, h)")
        open(sys.argv[2], 'w').write(r.stdout)
        print(r.stderr[:300])
    elif sys.argv[1] == 'count':
        print(len({name(t) for t in candidates()}))
    else:
        main()
