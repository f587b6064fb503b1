#!/usr/bin/env python3
"""Import cycles of src/ (test code excluded: every `#[cfg(test)]` item, and the files a
`#[cfg(test)] mod x;` declares), at two levels:
- files: the `crate::`/`super::` import graph between files;
- modules: the top-level modules under src/ (`error`, `ingest/`, …), an edge Y -> X for every
  path into X in any file of Y: `crate::X…`, `super::…` reaching X, an item of a use tree
  (`use crate::{X::a, Z::{b, c}}`), or a name the crate root re-exports from X
  (`pub use error::Error` makes `crate::Error` an edge to `error`).
Comments and string literals are not code. Prints every cycle (strongly connected component
of two or more files or modules), with the edges that close a module cycle, then the total;
the last line is "0 cycles" when there is none.
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
# Code only: comments, strings and char literals go first (a `{` in one would unbalance the
# braces), then every `#[cfg(test)]` item: a `mod x { … }` or `fn … { … }` with its body, and
# a `mod x;` with the file it declares (and that file's own modules).
LIT = re.compile(r'//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?\'(?:\\.|[^\'\\])\'', re.S)
def code(text):
    return LIT.sub(lambda m: ' ' if m.group(0).startswith('/') else '""', text)
test_files = set()
for f in list(files):
    text, out, i = code(files[f]), [], 0
    for m in re.finditer(r'#\[cfg\(test\)\]', text):
        if m.start() < i: continue
        out.append(text[i:m.start()])
        decl = re.match(r'\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', text[m.end():])
        if decl:
            here = os.path.dirname(f)
            if not f.endswith(('mod.rs', 'lib.rs', 'main.rs')):
                here = os.path.join(here, f[:-3].split('/')[-1]) if here else f[:-3]
            for cand in (decl.group(1) + '.rs', decl.group(1) + '/mod.rs'):
                test_files.add(os.path.normpath(os.path.join(here, cand)))
            i = m.end() + decl.end()
            continue
        j = text.find('{', m.end()); k = text.find(';', m.end())
        if k != -1 and (j == -1 or k < j): i = k + 1; continue
        depth, i = 0, j
        while i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0); i += 1
            if depth == 0: break
    out.append(text[i:])
    files[f] = ''.join(out)
for t in list(test_files):  # a test module's own submodules are tests too
    for f in list(files):
        if f == t or f.startswith(t[:-len('mod.rs')] if t.endswith('/mod.rs') else t[:-3] + '/'):
            files.pop(f, None)
# Every path a file names, as segments from the crate root: `crate::a::b`, `super::super::c`
# (resolved against the file's place), and each item of a `use …::{x, y::{z}}` tree.
def refs(f):
    me = modpath(f)
    out = []
    def walk(prefix, tree):  # tree: the text between the braces of a use tree
        depth, start, items = 0, 0, []
        for n, ch in enumerate(tree + ','):
            if ch == '{': depth += 1
            elif ch == '}': depth -= 1
            elif ch == ',' and depth == 0: items.append(tree[start:n].strip()); start = n + 1
        for item in items:
            head, _, rest = item.partition('{')
            segs = [s for s in head.split(' as ')[0].split('::') if s]
            if segs and segs[0] == 'self': segs = segs[1:]
            if rest: walk(prefix + segs, rest[:rest.rfind('}')])
            elif segs and segs != ['*']: out.append(prefix + [s for s in segs if s != '*'])
    for m in re.finditer(r'\b(crate|super)((?:::(?:super|[A-Za-z_]\w*))*)(::\{)?', files[f]):
        segs = [s for s in m.group(2).split('::') if s]
        if m.group(1) == 'super':
            up = 1
            while segs and segs[0] == 'super': segs, up = segs[1:], up + 1
            segs = me[:len(me) - up] + segs
        if m.group(3):
            text, depth, n = files[f], 1, m.end()
            while n < len(text) and depth:
                depth += {'{': 1, '}': -1}.get(text[n], 0); n += 1
            walk(segs, text[m.end():n - 1])
        elif segs:
            out.append(segs)
    return out
edges = {f: set() for f in files}
for f in files:
    for segs in refs(f):
        t = resolve(segs)
        if t and t != f: edges[f].add(t)
# module level: the first path segment of a file (`ingest/read.rs` -> `ingest`); the crate
# roots (lib.rs, main.rs) declare every module and are not a module of their own, and a name
# they re-export (`pub use error::Error`) is its module's (`crate::Error` is `error`)
def top(rel):
    first = rel.split('/')[0]
    return first[:-3] if first.endswith('.rs') else first
mods = {top(f) for f in files if f not in ('lib.rs', 'main.rs')}
reexport = {}
for m in re.finditer(r'\bpub\s+use\s+(\w+)::([^;]*);', files.get('lib.rs', '')):
    for name in re.findall(r'(\w+)\s*(?:[,}]|$)', m.group(2)):
        reexport[name] = m.group(1)
medges = {m: {} for m in mods}  # module -> {module it uses: a file that does}
for f in files:
    if f in ('lib.rs', 'main.rs'): continue
    me = top(f)
    for segs in refs(f):
        n = reexport.get(segs[0], segs[0])
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
