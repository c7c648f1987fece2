#!/usr/bin/env python3
"""Find call circles between the modules of a C tree.

A module is a .c file and the .h of the same name (conn.c + conn.h). Module A
depends on B when A's .c names a function B's .c defines without `static`
(a call, or its address taken: a callback is a use too); a name A's .c
defines itself is A's own. A function defined in more than one module is a
hook each program links one of (engines/common/method.h: each engine's I/O
path hooks, called from client/io.c): naming it binds to no module, so it
makes no dependency. Any circle of dependencies is printed and the exit
status is 1.

Only .c files are read (a header's inline functions are not), without their
comments, string and character literals; a definition is a name and its
parameters at the start of a line, followed by its body.

    call_cycles.py ROOT...                 check the trees under each ROOT
    call_cycles.py --self-test             a tree with a circle is caught, one without is not
"""
import os
import re
import sys
import tempfile

from include_cycles import cycles, plant, report

NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
ATTRIBUTE = re.compile(r'__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)\s*')
# (the name's line: a label or a statement above it is not its type)
DEFINITION = re.compile(r'^(?![\s#])([^;{}#=():\n]*?)\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{', re.M)
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof'}
# a name, not a member (s.name, s->name) nor a tag (struct name)
NAME = re.compile(r'(?<![\w.])(?<!->)(?:(struct|union|enum)\s+)?([A-Za-z_]\w*)')


def code_of(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = NOISE.sub(' ', f.read())
    return ATTRIBUTE.sub('', text)


def c_files(roots):
    for root in roots:
        for folder, _, names in os.walk(root):
            for n in sorted(names):
                if n.endswith('.c'):
                    yield os.path.normpath(os.path.join(folder, n))


def module_graph(roots):
    """module -> the modules whose functions it names"""
    code = {path: code_of(path) for path in c_files(roots)}
    own = {}        # path -> every function it defines
    exported = {}   # function -> the modules defining it without static
    for path, text in code.items():
        own[path] = set()
        for prefix, name in DEFINITION.findall(text):
            if name in KEYWORDS:
                continue
            own[path].add(name)
            if 'static' not in prefix.split():
                exported.setdefault(name, set()).add(os.path.splitext(path)[0])
    graph = {}
    for path, text in code.items():
        mod = os.path.splitext(path)[0]
        deps = graph.setdefault(mod, set())
        names = {name for tag, name in NAME.findall(text) if not tag}
        for name in names - own[path]:
            where = exported.get(name, set())
            if len(where) == 1 and mod not in where:
                deps |= where
    return graph


def check(roots):
    return report(module_graph(roots), 'call', ' '.join(roots))


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, {
            # a -> b -> c -> a (c takes a_f's address); d names b_f in a comment and a string
            'a.c': 'int a_f(void)\n{\n\treturn b_f();\n}\n',
            'b.c': 'static int helper(void) { return 1; }\n'
                   'int b_f(void)\n{\n\treturn helper() + c_f(2);\n}\n',
            'c.c': '#include "c.h"\n__attribute__((cold)) int c_f(int x)\n{\n'
                   '\tint (*back)(void) = a_f;\n\treturn back() + x;\n}\n',
            'd.c': '/* b_f() */\nint d_f(void)\n{\n\tputs("b_f()");\n\treturn a_f();\n}\n',
            # a hook both e.c and f.c define (a program links one): no edge to either
            'e.c': 'int hook(void)\n{\n\treturn d_f();\n}\n',
            'f.c': 'int hook(void)\n{\n\treturn 0;\n}\n',
            'g.c': 'int g_f(void)\n{\n\treturn hook();\n}\n',
        })
        graph = module_graph([tmp])
        mod = {m: os.path.join(tmp, m) for m in 'abcdg'}
        want = [(mod['a'], mod['b'], mod['c'])]
        found = cycles(graph)
        if found != want or graph[mod['d']] != {mod['a']} or graph[mod['g']]:
            print(f'self-test: expected {want}, found {found} (graph {graph})')
            return 1
        # a static definition of the same name in c.c is its own: no edge to a, no circle
        plant(tmp, {'c.c': 'static int a_f(void) { return 0; }\nint c_f(int x)\n{\n'
                           '\treturn a_f() + x;\n}\n'})
        graph = module_graph([tmp])
        if graph[mod['c']] or cycles(graph):
            print(f'self-test: c.c calls its own a_f, yet: {graph[mod["c"]]}, {cycles(graph)}')
            return 1
    print('self-test: passed')
    return 0


def main(args):
    if args == ['--self-test']:
        return self_test()
    if not args or any(a.startswith('-') for a in args):
        sys.exit(__doc__)
    return check([os.path.normpath(r) for r in args])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
