#!/usr/bin/env python3
"""Hold a document's tables to the tests that back them.

Every table of the document whose header has a "shown by" column must name,
in that column of every row, at least one test in backticks:

    `e2e:NAME`            an end-to-end test (tests/e2e/lib.sh e2e_result, the
                          fault suites' own rows, tests/fault/check_free_test.sh):
                          PASS in one of the result tables (build/e2e-results/*.tsv)
                          and FAIL in none
    `unit:BINARY/TEST`    a cmocka test: BINARY (build/test/unit/BINARY) run once,
                          TEST among its "[       OK ]" lines
    `fuzz:TARGET`         a fuzz target of mk/fuzz.mk (its FUZZ_TARGETS), run by
                          make fuzz-brief in make test
    `lint:NAME`           a make lint check (lint-NAME in mk/lint.mk)

A row naming no test, or a test that did not pass, is a claim the tests do not
show: it is printed and the exit status is 1. A table without the column is
prose (say, a list of commands) and is left alone.

    check_claims.py [--results DIR] [--unit-dir DIR] DOC.md
    check_claims.py --self-test
"""
import argparse
import contextlib
import csv
import io
import glob
import os
import re
import subprocess
import sys
import tempfile

REF = re.compile(r'`(e2e|unit|fuzz|lint):([^`\s]+)`')
COLUMN = 'shown by'


def tables(text):
    """(line number, header cells, rows of cells) of every markdown table."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if (lines[i].lstrip().startswith('|') and i + 1 < len(lines)
                and re.match(r'^\s*\|[\s:|-]+\|\s*$', lines[i + 1])):
            header = cells(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith('|'):
                rows.append((j + 1, cells(lines[j])))
                j += 1
            yield i + 1, header, rows
            i = j
        else:
            i += 1


def cells(line):
    parts = re.split(r'(?<!\\)\|', line.strip())
    return [p.strip() for p in parts[1:-1]]


class Evidence:
    """What the test runs left behind, loaded on first use."""

    def __init__(self, results_dir, unit_dir, root):
        self.results_dir, self.unit_dir, self.root = results_dir, unit_dir, root
        self._e2e = None
        self._unit = {}

    def e2e(self):
        if self._e2e is None:
            self._e2e = {}
            for path in sorted(glob.glob(os.path.join(self.results_dir, '*.tsv'))):
                with open(path, encoding='utf-8') as f:
                    for row in csv.reader(f, delimiter='\t'):
                        if len(row) >= 2:
                            self._e2e.setdefault(row[0], set()).add(row[1])
        return self._e2e

    def unit(self, binary):
        if binary not in self._unit:
            path = os.path.join(self.unit_dir, binary)
            passed = set()
            if os.access(path, os.X_OK):
                out = subprocess.run([path], capture_output=True, text=True,
                                     timeout=120, check=False).stdout
                passed = set(re.findall(r'^\[\s+OK \] (\S+)', out, re.M))
            self._unit[binary] = passed
        return self._unit[binary]

    def make_list(self, fragment, variable):
        path = os.path.join(self.root, 'mk', fragment)
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except OSError:
            return set()
        m = re.search(r'^' + variable + r'\s*:?=\s*(.*)$', text, re.M)
        return set(m.group(1).split()) if m else set(re.findall(variable, text))

    def verdict(self, kind, name):
        """None when the test backs the claim, else why not."""
        if kind == 'e2e':
            seen = self.e2e().get(name)
            if not seen:
                return f'no result for e2e test {name} in {self.results_dir}'
            return None if seen == {'PASS'} else f'e2e test {name}: {"/".join(sorted(seen))}'
        if kind == 'unit':
            binary, _, test = name.partition('/')
            if test in self.unit(binary):
                return None
            return f'unit test {test} did not pass in {self.unit_dir}/{binary}'
        if kind == 'fuzz':
            if name in self.make_list('fuzz.mk', 'FUZZ_TARGETS'):
                return None
            return f'no fuzz target {name} in mk/fuzz.mk'
        if re.search(r'^lint-' + re.escape(name) + r':', open(
                os.path.join(self.root, 'mk', 'lint.mk'), encoding='utf-8').read(), re.M):
            return None
        return f'no make target lint-{name} in mk/lint.mk'


def check(doc, evidence):
    with open(doc, encoding='utf-8') as f:
        text = f.read()
    problems, claims = [], 0
    for line, header, rows in tables(text):
        lowered = [h.lower() for h in header]
        if COLUMN not in lowered:
            continue
        col = lowered.index(COLUMN)
        for row_line, row in rows:
            claims += 1
            refs = REF.findall(row[col]) if col < len(row) else []
            if not refs:
                problems.append(f'{doc}:{row_line}: names no test')
            for kind, name in refs:
                why = evidence.verdict(kind, name)
                if why:
                    problems.append(f'{doc}:{row_line}: {why}')
    for p in problems:
        print(p)
    print(f'{doc}: {claims} claims, {len(problems)} not shown by a test')
    return 1 if problems or claims == 0 else 0


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'results'))
        os.makedirs(os.path.join(tmp, 'mk'))
        with open(os.path.join(tmp, 'results', 'k.tsv'), 'w', encoding='utf-8') as f:
            f.write('good\tPASS\t1.0\nflaky\tPASS\t1.0\nflaky\tFAIL\t1.0\n')
        with open(os.path.join(tmp, 'mk', 'fuzz.mk'), 'w', encoding='utf-8') as f:
            f.write('FUZZ_TARGETS := alpha beta\n')
        with open(os.path.join(tmp, 'mk', 'lint.mk'), 'w', encoding='utf-8') as f:
            f.write('lint-includes:\n\ttrue\n')
        unit_dir = os.path.join(tmp, 'unit')
        os.makedirs(unit_dir)
        fake = os.path.join(unit_dir, 'u')
        with open(fake, 'w', encoding='utf-8') as f:
            f.write('#!/bin/sh\necho "[       OK ] t1"\necho "[  FAILED  ] t2"\n')
        os.chmod(fake, 0o755)
        ev = Evidence(os.path.join(tmp, 'results'), unit_dir, tmp)
        cases = [
            ('| a | shown by |\n|---|---|\n| x | `e2e:good` `unit:u/t1` |\n'
             '| y | `fuzz:beta`, `lint:includes` |\n', 0),
            ('| a | shown by |\n|---|---|\n| x | nothing |\n', 1),
            ('| a | shown by |\n|---|---|\n| x | `e2e:flaky` |\n', 1),
            ('| a | shown by |\n|---|---|\n| x | `e2e:absent` |\n', 1),
            ('| a | shown by |\n|---|---|\n| x | `unit:u/t2` |\n', 1),
            ('| a | shown by |\n|---|---|\n| x | `fuzz:gamma` |\n', 1),
            ('| a | b |\n|---|---|\n| x | y |\n', 1),  # no claim at all: a doc checked for nothing
        ]
        for i, (text, want) in enumerate(cases):
            doc = os.path.join(tmp, f'doc{i}.md')
            with open(doc, 'w', encoding='utf-8') as f:
                f.write(text)
            said = io.StringIO()
            with contextlib.redirect_stdout(said):
                got = check(doc, ev)
            if got != want:
                print(said.getvalue(), end='')
                print(f'self-test: case {i} gave {got}, expected {want}')
                return 1
    print(f'self-test: passed ({len(cases)} cases)')
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, '..', '..', '..'))
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0])
    parser.add_argument('doc', nargs='?')
    parser.add_argument('--results', default=os.path.join(root, 'build', 'e2e-results'))
    parser.add_argument('--unit-dir', default=os.path.join(root, 'build', 'test', 'unit'))
    parser.add_argument('--self-test', action='store_true')
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.doc:
        parser.error('give DOC.md or --self-test')
    return check(args.doc, Evidence(args.results, args.unit_dir, root))


if __name__ == '__main__':
    sys.exit(main())
