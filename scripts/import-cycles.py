#!/usr/bin/env python3
"""Import cycles of src/ (test modules excluded), at two levels:
- files: the `crate::`/`super::` import graph between files;
- modules: the top-level modules under src/ (`error`, `ingest/`, …), an edge Y -> X for every
  `crate::X` reference (`use crate::X…`, `crate::X::…`, `crate::{X, …}`) in any file of Y.
Prints every cycle (strongly connected component of two or more files or modules), with the
edges that close it, then the total; the last line is "0 cycles" when there is none.
Run: scripts/import-cycles.py src"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            files[os.path.relpath(p, root)] = open(p).read()
def modpath(rel):
    parts = rel[:-3].split('/')
    if parts[-1] in ('mod', 'lib', 'main'): parts = parts[:-1]
    return parts
def resolve(segs):
    for k in range(len(segs), 0, -1):
        base = '/'.join(segs[:k])
        for cand in (base + '.rs', base + '/mod.rs'):
            if cand in files: return cand
    return None
edges = {f: set() for f in files}
for f, text in files.items():
    text = re.split(r'#\[cfg\(test\)\]\s*mod tests', text)[0]
    text = re.sub(r'//.*', '', text)
    me = modpath(f)
    for m in re.finditer(r'\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)', text):
        segs = m.group(2).split('::')[1:]
        if m.group(1) == 'super':
            base = me[:-1] if not f.endswith('mod.rs') else me[:-1]
            segs = base + segs
        # `use crate::a::{b, c}` : also add each brace item
        t = resolve(segs)
        if t and t != f: edges[f].add(t)
    for m in re.finditer(r'\bcrate((?:::[A-Za-z_]\w*)*)::\{([^}]*)\}', text):
        pre = m.group(1).split('::')[1:]
        for item in m.group(2).split(','):
            item = item.strip().split(' ')[0].split('::')
            if item and item[0] and item[0] != 'self':
                t = resolve(pre + item)
                if t and t != f: edges[f].add(t)
# module level: the first path segment of a file (`ingest/read.rs` -> `ingest`); the crate
# roots (lib.rs, main.rs) declare every module and are not a module of their own
def top(rel):
    first = rel.split('/')[0]
    return first[:-3] if first.endswith('.rs') else first
mods = {top(f) for f in files if f not in ('lib.rs', 'main.rs')}
medges = {m: {} for m in mods}  # module -> {module it uses: a file that does}
for f, text in files.items():
    if f in ('lib.rs', 'main.rs'): continue
    text = re.split(r'#\[cfg\(test\)\]\s*mod tests', text)[0]
    text = re.sub(r'//.*', '', text)
    me = top(f)
    names = [m.group(1) for m in re.finditer(r'\bcrate::([A-Za-z_]\w*)', text)]
    for m in re.finditer(r'\bcrate::\{([^}]*)\}', text):
        names += [i.strip().split(':')[0].split(' ')[0] for i in m.group(1).split(',')]
    # `super::x` in a top-level file (src/x.rs) names the crate root
    if '/' not in f:
        names += [m.group(1) for m in re.finditer(r'\bsuper::([A-Za-z_]\w*)', text)]
    for n in names:
        if n in mods and n != me: medges[me].setdefault(n, f)

def cycles(graph):
    """Tarjan: the strongly connected components of two or more nodes."""
    idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
    def sc(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in graph[v]:
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(graph):
        if v not in idx: sc(v)
    return out
sys.setrecursionlimit(10000)
fcyc = cycles(edges)
for comp in fcyc:
    print(len(comp), 'files:', ' '.join(comp))
mcyc = cycles(medges)
for comp in mcyc:
    print(len(comp), 'modules:', ' '.join(comp))
    for y in comp:
        for x in sorted(medges[y]):
            if x in comp: print('   ', y, '->', x, '(e.g.', medges[y][x] + ')')
print(len(fcyc) + len(mcyc), 'cycles')
