# SPDX-License-Identifier: BSD-3-Clause
"""A report's Markdown written out as report.md and as report.html: the few Markdown
forms the reports use (headings, tables, lists, bold, code) in HTML, charts inlined as
SVG so that the page stands alone."""
import os
import re


# a durability verdict's cell, coloured at a glance (scripts/matrix/rpmamatrix/durability.py)
VERDICT_CLASSES = {"<b>LOST": "lost", "<b>SURVIVED": "survived", "<b>NOT JUDGED": "notjudged"}


def verdict_class(cell):
    for start, cls in VERDICT_CLASSES.items():
        if cell.startswith(start):
            return f" class='{cls}'"
    return ""


def md_to_html(md_lines, charts, folder, title):
    """The report's Markdown as HTML: tables and headings converted, charts inlined as SVG."""
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>",
           "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
           "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #aaa;"
           "padding:2px 6px;text-align:right}.partial{color:#b00;font-weight:bold}"
           ".lost{background:#f4b6b6}.survived{background:#bfe8bf}.notjudged{background:#f6deb0}</style>",
           "</head><body>"]
    open_block = None  # "table" or "ul": the block the previous lines opened
    for line in md_lines:
        esc = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        esc = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", esc)
        esc = re.sub(r"`(.+?)`", r"<code>\1</code>", esc)
        block = "table" if line.startswith("|") else "ul" if line.startswith("- ") else None
        if open_block and block != open_block:
            out.append(f"</{open_block}>")
            open_block = None
        if block == "table":
            if set(line) <= set("|-"):
                continue
            cells = [c.strip() for c in esc.strip("|").split("|")]
            tag = "th" if not open_block else "td"
            if not open_block:
                out.append("<table>")
                open_block = "table"
            out.append("<tr>" + "".join(f"<{tag}{verdict_class(c)}>{c}</{tag}>" for c in cells) + "</tr>")
            continue
        if block == "ul":
            if not open_block:
                out.append("<ul>")
                open_block = "ul"
            out.append(f"<li>{esc[2:]}</li>")
            continue
        m = re.match(r"(#+) (.*)", line)
        if m:
            n = len(m.group(1))
            out.append(f"<h{n}>{esc[n + 1:]}</h{n}>")
        elif line.startswith("![chart]("):
            name = line[len("![chart]("):-len(".png)")]
            with open(os.path.join(folder, name + ".svg")) as f:
                svg = f.read()
            svg = svg[svg.index("<svg"):]
            out.append(f"<div>{svg}</div>")
        elif line.strip():
            cls = " class='partial'" if "PARTIAL" in line else ""
            out.append(f"<p{cls}>{esc}</p>")
    if open_block:
        out.append(f"</{open_block}>")
    out.append("</body></html>")
    return "\n".join(out)


def write_reports(folder, title, md):
    charts = [line[len("![chart]("):-len(".png)")] for line in md if line.startswith("![chart](")]
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(folder, "report.html"), "w") as f:
        f.write(md_to_html(md, charts, folder, title))
