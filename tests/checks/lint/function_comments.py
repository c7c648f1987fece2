#!/usr/bin/env python3
"""Check that every external function of a C tree says what it does and how it fails.

An external function is one a .c file under SRC defines without `static`. Its
prototype, in a header under SRC or one of the HEADERs, must have a comment
right above it (the lines of a prototype's return type may stand between) that
holds an ERRORS list: "ERRORS: none." for a function that cannot fail, else
the codes it returns and when. Each function that falls short is printed and
the exit status is 1.

    function_comments.py SRC HEADER...     check SRC's functions
    function_comments.py --self-test       a function without the comment is caught
"""
import glob
import os
import re
import sys
import tempfile

from call_cycles import DEFINITION, KEYWORDS, code_of
from include_cycles import plant

# a prototype: the name and its parameters at the start of a line, or after its
# return type on the same line, ending in ';' (maybe lines later)
PROTOTYPE = r'^(?![\s#])[^;{{}}#=()\n]*?\b{name}\s*\([^;{{}}]*\)\s*;'


def external_functions(src):
    names = set()
    for path in sorted(glob.glob(os.path.join(src, '*.c'))):
        for prefix, name in DEFINITION.findall(code_of(path)):
            if name not in KEYWORDS and 'static' not in prefix.split():
                names.add(name)
    return sorted(names)


def comment_above(text, start):
    """The comment that ends right above the prototype at offset start, or None.

    Lines between that belong to the prototype (a return type, an attribute
    macro such as RPMA_DEPRECATED) are passed over."""
    lines = text[:start].split('\n')[:-1]
    while lines and lines[-1].strip() and not lines[-1].startswith('#') and \
            not lines[-1].rstrip().endswith(('*/', ';', '{', '}')):
        lines.pop()
    if not lines or not lines[-1].rstrip().endswith('*/'):
        return None
    above = '\n'.join(lines)
    begin = above.rfind('/*')
    return above[begin:] if begin >= 0 else None


def check(src, headers):
    texts = {}
    for path in sorted(glob.glob(os.path.join(src, '*.h'))) + list(headers):
        with open(path, encoding='utf-8') as f:
            texts[path] = f.read()
    bad = []
    for name in external_functions(src):
        found = None
        for path, text in texts.items():
            match = re.search(PROTOTYPE.format(name=re.escape(name)), text, re.M)
            if match:
                found = (path, text, match.start())
                break
        if found is None:
            bad.append(f'{name}: no prototype in a header')
            continue
        path, text, start = found
        comment = comment_above(text, start)
        if comment is None:
            bad.append(f'{path}: {name}: no comment at its prototype')
        elif 'ERRORS:' not in comment:
            bad.append(f'{path}: {name}: its comment has no ERRORS list')
    for line in bad:
        print(f'lint: {line}', file=sys.stderr)
    if not bad:
        print(f'{src}: every external function has a comment with its errors')
    return 1 if bad else 0


def quiet_check(root):
    """check(root), its report to nowhere: a self-test's run."""
    with open(os.devnull, 'w') as null:
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = null
        try:
            return check(root, [])
        finally:
            sys.stdout, sys.stderr = out, err


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        plant(tmp, {
            'a.c': 'int a_new(int x)\n{\n\treturn x;\n}\nstatic int helper(void)\n{\n'
                   '\treturn 0;\n}\nvoid a_delete(void)\n{\n}\nint a_get(void)\n{\n'
                   '\treturn 1;\n}\n',
            'a.h': '/* Make an a. ERRORS: RPMA_E_INVAL (x < 0). */\nint a_new(int x);\n'
                   '/* Free it. */\nvoid a_delete(void);\nint a_get(void);\n',
        })
        if quiet_check(tmp) != 1:
            print('function_comments self-test: missing comments not caught', file=sys.stderr)
            return 1
        plant(tmp, {
            'a.h': '/* Make an a. ERRORS: RPMA_E_INVAL (x < 0). */\nint a_new(int x);\n'
                   '/* Free it. ERRORS: none. */\nvoid a_delete(void);\n'
                   '/*\n * The a.\n * ERRORS: none.\n */\nint\na_get(void);\n',
        })
        if quiet_check(tmp):
            print('function_comments self-test: a commented tree fails', file=sys.stderr)
            return 1
    print('function_comments self-test: OK')
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1], sys.argv[2:]))
