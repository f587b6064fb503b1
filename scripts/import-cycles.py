#!/usr/bin/env python3
"""File-level `crate::`/`super::` import graph of src/ (test modules excluded): print every
import cycle (strongly connected component of two or more files). Run: scripts/import-cycles.py src"""
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
# Tarjan
idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(sorted(comp))
for v in edges:
    if v not in idx: sc(v)
# a parent mod.rs that declares/re-exports its children is not an import cycle: drop edges parent->child
for comp in out:
    print(len(comp), 'files:', ' '.join(comp))
print(len(out), 'cycles')
