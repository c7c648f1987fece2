#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_report_html.py -- the matrix's Markdown-to-HTML (run by
tests/matrix/test_matrix.sh): lists become lists, tables tables, nothing is left as
literal Markdown; and a built report (REPORT_DIR, the fixture folder test_matrix.sh
built) names only the methods it ran and shows its environment before the charts."""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix.report_html import md_to_html  # noqa: E402


def render(lines):
    return md_to_html(lines, [], ".", "t")


class MdToHtml(unittest.TestCase):
    def test_list_becomes_a_list(self):
        html = render(["Methods:", "", "- `apm`: one", "- `gpspm-busy`: two", "", "after"])
        self.assertIn("<ul>\n<li><code>apm</code>: one</li>\n<li><code>gpspm-busy</code>: "
                      "two</li>\n</ul>", html)
        self.assertIn("<p>after</p>", html)
        self.assertNotRegex(html, r"<p>- ")

    def test_table_then_list_then_table(self):
        html = render(["| a | b |", "|---|---|", "| 1 | 2 |", "- x", "| c |", "| 3 |"])
        self.assertEqual(html.count("<table>"), 2)
        self.assertEqual(html.count("</table>"), 2)
        self.assertEqual(html.count("<ul>"), 1)
        self.assertEqual(html.count("</ul>"), 1)
        self.assertLess(html.index("</table>"), html.index("<ul>"))
        self.assertLess(html.index("</ul>"), html.rindex("<table>"))
        self.assertIn("<tr><th>a</th><th>b</th></tr>", html)
        self.assertIn("<tr><td>1</td><td>2</td></tr>", html)

    def test_list_at_the_end_is_closed(self):
        html = render(["- last"])
        self.assertRegex(html, r"<ul>\n<li>last</li>\n</ul>\n</body>")

    def test_no_literal_markdown(self):
        html = render(["# Title", "**bold** and `code`", "- item **b**"])
        text = re.sub(r"<[^>]+>", "", html)
        for mark in ("**", "`", "# ", "- "):
            self.assertNotIn(mark, text, mark)


class BuiltReport(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(os.environ["REPORT_DIR"], "report.md")) as f:
            self.md = f.read()

    def test_only_the_methods_that_ran(self):
        ran = set(re.findall(r"^\| p\d+ \| ([a-z-]+) \|", self.md, re.M))
        listed = set(re.findall(r"^- `([a-z-]+)`: ", self.md, re.M))
        self.assertTrue(ran)
        self.assertEqual(listed, ran)

    def test_environment_before_the_charts(self):
        self.assertLess(self.md.index("## Summary"), self.md.index("## Environment"))
        self.assertLess(self.md.index("## Environment"), self.md.index("## Charts"))


if __name__ == "__main__":
    if not os.environ.get("REPORT_DIR"):
        sys.exit("usage: REPORT_DIR=<a built result folder> " + sys.argv[0])
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
