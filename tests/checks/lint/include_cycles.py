#!/usr/bin/env python3
"""Find include circles between the modules of a C tree.

A module is a .c file and the .h of the same name (conn.c + conn.h); module A
depends on B when a file of A includes B's header ("..." includes only, looked
up beside the including file, then in each -I folder given). Any circle of
dependencies is printed and the exit status is 1.

    include_cycles.py ROOT [-I DIR]...     check the tree under ROOT
    include_cycles.py --self-test          a tree with a circle is caught, one without is not
"""
import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    found = set()
    for folder, _, names in os.walk(root):
        found.update(os.path.normpath(os.path.join(folder, n))
                     for n in names if n.endswith(('.c', '.h')))
    return found


def resolve(files, including, name, incdirs):
    for base in [os.path.dirname(including)] + incdirs:
        path = os.path.normpath(os.path.join(base, name))
        if path in files:
            return path
    return None


def module_graph(root, incdirs):
    files = sources(root)
    graph = {}
    for path in files:
        with open(path, encoding='utf-8', errors='replace') as f:
            names = INCLUDE.findall(f.read())
        mod = os.path.splitext(path)[0]
        deps = graph.setdefault(mod, set())
        for name in names:
            target = resolve(files, path, name, incdirs)
            if target and os.path.splitext(target)[0] != mod:
                deps.add(os.path.splitext(target)[0])
    return graph


def cycles(graph):
    """Every elementary circle once, as a list starting at its smallest module."""
    found = set()

    def walk(start, node, path, on_path):
        for nxt in graph.get(node, ()):
            if nxt == start:
                found.add(tuple(path))
            elif nxt not in on_path and nxt > start:
                on_path.add(nxt)
                walk(start, nxt, path + [nxt], on_path)
                on_path.discard(nxt)

    for start in sorted(graph):
        walk(start, start, [start], {start})
    return sorted(found)


def report(graph, kind, where):
    """Print every circle of graph (kind: what its edges are) and their count; 1 if any."""
    found = cycles(graph)
    for circle in found:
        print(f'{kind} circle: ' + ' -> '.join(circle + (circle[0],)))
    print(f'{where}: {len(found)} {kind} circle(s)')
    return 1 if found else 0


def plant(folder, files):
    """Write each file (name: text) into folder: a self-test's tree."""
    for name, text in files.items():
        with open(os.path.join(folder, name), 'w', encoding='utf-8') as f:
            f.write(text)


def check(root, incdirs):
    return report(module_graph(root, incdirs), 'include', root)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, {
            'a.h': '#include "b.h"\n',
            'b.c': '#include "b.h"\n#include "c.h"\n',
            'b.h': '',
            'c.c': '#include "a.h"\n',
            'c.h': '',
            'd.c': '#include "a.h"\n#include <stdio.h>\n',
        })
        found = cycles(module_graph(tmp, []))
        want = [tuple(os.path.join(tmp, m) for m in ('a', 'b', 'c'))]
        if found != want:
            print(f'self-test: expected {want}, found {found}')
            return 1
        os.remove(os.path.join(tmp, 'c.c'))
        if cycles(module_graph(tmp, [])):
            print('self-test: a tree without a circle was reported')
            return 1
    print('self-test: passed')
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0])
    parser.add_argument('root', nargs='?')
    parser.add_argument('-I', dest='incdirs', action='append', default=[])
    parser.add_argument('--self-test', action='store_true')
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.root:
        parser.error('give ROOT or --self-test')
    return check(os.path.normpath(args.root), [os.path.normpath(d) for d in args.incdirs])


if __name__ == '__main__':
    sys.exit(main())
