#!/usr/bin/env python3
"""gen_man.py -- build librpma's man pages from docs/api/*.md and the public header.

Each section-3 page takes its SYNOPSIS from librpma/include/librpma.h (the
prototypes of the functions it documents and the librpma types they use) and
the rest from a block of docs/api/<object>.md; librpma(7) comes from
docs/api/librpma.7.md. The markdown dialect is described in docs/api/README.md.

It fails, naming the culprit, when a public function has no documentation, a
documented name is not in the header, a block lacks a required section, or a
page refers to an rpma_ page that does not exist. The output depends only on
the inputs (no dates), so two runs produce identical files.
"""

import argparse
import os
import re
import sys

PROG = "gen_man.py"
MANUAL = "librpma Programmer's Manual"
REQUIRED_SECTIONS = ("DESCRIPTION", "RETURN VALUE", "SEE ALSO")
SECTION_ORDER = ("DESCRIPTION", "RETURN VALUE", "ERRORS", "DEPRECATED", "NOTES", "SEE ALSO")
SYNOPSIS_WIDTH = 72


class DocError(Exception):
    """A problem in the inputs; the message names the file and what is wrong."""


# ---------------------------------------------------------------- the header

class Header:
    """What the public header declares: functions, librpma types and RPMA_ macros."""

    def __init__(self, path):
        self.path = path
        self.functions = {}   # name -> prototype text (one line, normalised)
        self.deprecated = set()
        self.types = {}       # "struct rpma_x" / "enum rpma_x" / "rpma_log_function" -> decl
        self.defines = []     # (name, value) in header order
        self._parse(read_text(path))

    def _parse(self, text):
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        # C++ guards hold only extern "C" { and }
        text = re.sub(r"#ifdef __cplusplus.*?#endif", " ", text, flags=re.S)
        body = []
        for line in text.splitlines():
            m = re.match(r"\s*#\s*define\s+(RPMA_\w+)\s+(.+?)\s*$", line)
            if m and m.group(1) not in ("RPMA_DEPRECATED",):
                self.defines.append((m.group(1), m.group(2)))
            if not line.lstrip().startswith("#"):
                body.append(line)
        for decl in split_top_level(" ".join(body)):
            self._add_decl(" ".join(decl.split()))

    def _add_decl(self, decl):
        if not decl:
            return
        decl = re.sub(r"\(\s+", "(", decl)
        m = re.match(r"(typedef\s+.*?\b(rpma_\w+)\s*\(.*\))$", decl)
        if m:
            self.types[m.group(2)] = "\n".join(wrap_prototype(m.group(1) + ";"))
            return
        m = re.match(r"(RPMA_DEPRECATED\s+)?(.*?[\s*])(rpma_\w+)\s*\((.*)\)$", decl)
        if m:
            name = m.group(3)
            self.functions[name] = "%s%s(%s);" % (m.group(2).strip() + " ", name, m.group(4))
            self.functions[name] = self.functions[name].replace("* ", "*").replace(" *", " *")
            if m.group(1):
                self.deprecated.add(name)
            return
        m = re.match(r"(struct|enum) (rpma_\w+)\s*(\{.*\})?$", decl)
        if m:
            key = "%s %s" % (m.group(1), m.group(2))
            if m.group(3):
                self.types[key] = format_aggregate(m.group(1), m.group(2), m.group(3))
            else:
                self.types.setdefault(key, key + ";")

    def types_used(self, prototypes):
        """The librpma types the prototypes mention, and the types those mention,
        each before the first type that uses it."""
        used = []

        def visit(text, own=None):
            for m in re.finditer(r"\b(?:(struct|enum) )?(rpma_\w+)\b", text):
                key = "%s %s" % (m.group(1), m.group(2)) if m.group(1) else m.group(2)
                if key in self.types and key != own and key not in used:
                    visit(self.types[key], key)
                    used.append(key)
        for proto in prototypes:
            visit(proto.split("(", 1)[1] if "(" in proto else proto)
            visit(proto.split("(", 1)[0])
        return [self.types[k] for k in used]

    def defines_matching(self, patterns, where):
        found = []
        for pattern in patterns:
            rx = re.compile("^" + re.escape(pattern).replace(r"\*", r"\w*") + "$")
            hits = [d for d in self.defines if rx.match(d[0])]
            if not hits:
                raise DocError("%s: 'defines: %s' matches no macro of %s" %
                               (where, pattern, self.path))
            found += [d for d in hits if d not in found]
        return found


def split_top_level(text):
    """Split C text into declarations at ';' outside braces."""
    decls, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            decls.append(text[start:i].strip())
            start = i + 1
    return decls


def format_aggregate(kind, name, body):
    inner = body.strip()[1:-1]
    sep = "," if kind == "enum" else ";"
    members = [" ".join(m.split()) for m in inner.split(sep)]
    members = [m for m in members if m]
    end = "," if kind == "enum" else ";"
    lines = ["%s %s {" % (kind, name)]
    lines += ["    %s%s" % (m, end) for m in members]
    lines.append("};")
    return "\n".join(lines)


def wrap_prototype(proto):
    """Break a prototype after commas so that it fits the synopsis width."""
    head, _, args = proto.partition("(")
    parts = [p.strip() for p in args.split(",")]
    lines, line = [], head + "("
    indent = " " * 8
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "")
        if line.strip() and len(line) + len(piece) + 1 > SYNOPSIS_WIDTH and not line.endswith("("):
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return lines


# ------------------------------------------------------------- the markdown

class Block:
    """One documented group of functions: '## name[, name...] - summary'."""

    def __init__(self, names, summary, source, line):
        self.names = names
        self.summary = summary
        self.source = source
        self.line = line
        self.defines = []
        self.sections = {}   # title -> list of markdown lines

    def where(self):
        return "%s:%d" % (self.source, self.line)


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise DocError("cannot read %s: %s" % (path, e.strerror))


def parse_api_file(path):
    """Return (object title, [Block]) of one docs/api/<object>.md."""
    title, blocks, block, section = None, [], None, None
    for no, line in enumerate(read_text(path).splitlines(), 1):
        where = "%s:%d" % (path, no)
        if line.startswith("# "):
            title = line[2:].strip()
            continue
        if line.startswith("## "):
            m = re.match(r"## (rpma_\w+(?:, rpma_\w+)*) - (\S.*)$", line)
            if not m:
                raise DocError("%s: expected '## rpma_name[, rpma_name...] - summary'" % where)
            block = Block(m.group(1).split(", "), m.group(2), path, no)
            blocks.append(block)
            section = None
            continue
        if block is None:
            continue  # the object's introduction is for readers of the markdown only
        if line.startswith("### "):
            section = line[4:].strip()
            if section not in SECTION_ORDER:
                raise DocError("%s: unknown section '%s' (one of: %s)" %
                               (where, section, ", ".join(SECTION_ORDER)))
            if section in block.sections:
                raise DocError("%s: section '%s' given twice" % (where, section))
            block.sections[section] = []
            continue
        m = re.match(r"defines: (.+)$", line)
        if m and section is None:
            block.defines += m.group(1).split()
            continue
        if section is None:
            if line.strip():
                raise DocError("%s: text before the first '### SECTION'" % where)
            continue
        block.sections[section].append(line)
    if title is None:
        raise DocError("%s: no '# title' line" % path)
    return title, blocks


# ------------------------------------------------------------------ roff

def roff_escape(text):
    text = text.replace("\\", "\\e")
    return text


def roff_code(text):
    return roff_escape(text).replace("-", "\\-")


def roff_line(text):
    """A text line: protect a leading control character."""
    if text.startswith((".", "'")):
        return "\\&" + text
    return text


# `code`, **bold**, *italic* (where \* is a literal star: *\*ptr*), name(3)
INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*((?:\\\*|[^*\\\s])(?:\\\*|[^*\\])*?)\*"
                    r"|\b([a-z_][a-z0-9_]*)\((\d)\)")


def inline(text, refs):
    """Markdown inline markup to roff fonts; collects rpma_ page references."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(roff_escape(text[pos:m.start()].replace("\\*", "*")))
        if m.group(1) is not None:
            out.append("\\fB%s\\fR" % roff_code(m.group(1)))
        elif m.group(2) is not None:
            out.append("\\fB%s\\fR" % roff_escape(m.group(2)))
        elif m.group(3) is not None:
            out.append("\\fI%s\\fR" % roff_code(m.group(3).replace("\\*", "*")))
        else:
            refs.add((m.group(4), m.group(5)))
            out.append("\\fB%s\\fR(%s)" % (roff_code(m.group(4)), m.group(5)))
        pos = m.end()
    out.append(roff_escape(text[pos:].replace("\\*", "*")))
    return "".join(out)


# '- `TERM`: text' or '- `TERM1`, `TERM2`: text'
TAGGED_ITEM = re.compile(r"- (`[^`]+`(?:, `[^`]+`)*): (.*)$")


def render_body(lines, refs):
    """Paragraphs, '- ' and '1. ' lists ('- `TERM`: text' is a tagged item), ``` code.

    A line that follows text without a blank line continues that text (a list
    item's too); a blank line ends it.
    """
    out, para, in_code = [], [], False

    def flush():
        if para:
            out.append(roff_line(inline(" ".join(para), refs)))
            para.clear()

    for line in lines:
        if line.startswith("```"):
            flush()
            out += [".fi", ".RE"] if in_code else [".PP", ".RS 4", ".nf"]
            in_code = not in_code
        elif in_code:
            out.append(roff_line(roff_code(line)))
        elif not line.strip():
            flush()
        elif TAGGED_ITEM.match(line):
            flush()
            term, text = TAGGED_ITEM.match(line).groups()
            out += [".TP 4", roff_line(inline(term, refs))]
            para.append(text)
        elif line.startswith("- "):
            flush()
            out.append(".IP \\(bu 2")
            para.append(line[2:])
        elif re.match(r"\d+\. ", line):
            flush()
            number, text = line.split(" ", 1)
            out.append(".IP %s 4" % number)
            para.append(text)
        else:
            if not para:
                out.append(".PP")
            para.append(line.strip())
    if in_code:
        raise DocError("an unterminated ``` code block")
    flush()
    return tidy(out)


def tidy(out):
    """Drop a paragraph macro that would open the body or follow another one."""
    result = []
    for line in out:
        if line == ".PP" and (not result or result[-1] in (".PP", ".SH", ".SS")):
            continue
        result.append(line)
    return result


def th(name, section, version):
    """The title line, then left-adjusted text without hyphenation: long identifiers
    neither stretch the spaces of a line nor get split."""
    return '.TH %s %s "" "rpma-fio %s" "%s"\n.ad l\n.nh' % (
        name.upper().replace("-", "\\-"), section, version, MANUAL)


# ----------------------------------------------------------- section 3

def render_function_page(name, block, header, version, refs):
    out = ['.\\" generated by scripts/gen_man.py from %s and %s; do not edit' %
           (block.source, header.path), th(name, 3, version), ".SH NAME",
           "%s \\- %s%s" % (", ".join(roff_code(n) for n in block.names),
                             inline(block.summary, refs),
                             " (deprecated)" if name in header.deprecated else "")]
    protos = [header.functions[n] for n in block.names]
    synopsis = ["#include <librpma.h>", ""]
    types = header.types_used(protos)
    opaque = [t for t in types if re.match(r"(struct|enum) \w+;$", t)]
    synopsis += opaque + ([""] if opaque else [])
    for decl in types:
        if decl not in opaque:
            synopsis += decl.splitlines() + [""]
    for macro, value in header.defines_matching(block.defines, block.where()):
        synopsis.append("#define %s %s" % (macro, value))
    if block.defines:
        synopsis.append("")
    for n in block.names:
        if n in header.deprecated:
            synopsis.append("/* deprecated */")
        synopsis += wrap_prototype(header.functions[n])
    out += [".SH SYNOPSIS", ".nf"]
    out += [roff_line(roff_code(s)) if s else ".sp" for s in synopsis]
    out += [".fi", ".PP", "Link with \\fB\\-lrpma\\fR (\\fBpkg\\-config \\-\\-libs librpma\\fR)."]
    for title in SECTION_ORDER:
        if title in block.sections:
            out.append(".SH %s" % title)
            try:
                out += render_body(block.sections[title], refs)
            except DocError as e:
                raise DocError("%s: section %s: %s" % (block.where(), title, e))
    return "\n".join(out) + "\n"


def check_block(block, header):
    where = block.where()
    for n in block.names:
        if n not in header.functions:
            raise DocError("%s: %s is documented but %s does not declare it" %
                           (where, n, header.path))
    for title in REQUIRED_SECTIONS:
        if title not in block.sections:
            raise DocError("%s: %s lacks the section '### %s'" % (where, block.names[0], title))
    deprecated = [n for n in block.names if n in header.deprecated]
    if deprecated and "DEPRECATED" not in block.sections:
        raise DocError("%s: %s is deprecated in the header: add '### DEPRECATED'" %
                       (where, deprecated[0]))
    if "DEPRECATED" in block.sections and not deprecated:
        raise DocError("%s: '### DEPRECATED' but the header does not deprecate %s" %
                       (where, block.names[0]))


# ----------------------------------------------------------- section 7

def render_overview(path, objects, version, refs):
    """librpma(7): '# librpma - summary', '## SECTION', '### subsection'."""
    lines = read_text(path).splitlines()
    if not lines or not re.match(r"# librpma - \S", lines[0]):
        raise DocError("%s:1: expected '# librpma - summary'" % path)
    out = ['.\\" generated by scripts/gen_man.py from %s; do not edit' % path,
           th("librpma", 7, version), ".SH NAME",
           "librpma \\- %s" % inline(lines[0][len("# librpma - "):], refs)]
    body = []

    def flush():
        if body:
            out.extend(render_body(body, refs))
            body.clear()

    for line in lines[1:]:
        if line.startswith("## "):
            flush()
            out.append('.SH "%s"' % line[3:].strip())
        elif line.startswith("### "):
            flush()
            out.append('.SS "%s"' % line[4:].strip())
        else:
            body.append(line)
    flush()
    # the index of the section-3 pages, by object, from docs/api itself
    out.append(".SH \"FUNCTIONS BY OBJECT\"")
    for title, names in objects:
        out += [".TP 4", title, ", ".join("\\fB%s\\fR(3)" % roff_code(n) for n in names)]
    return "\n".join(tidy(out)) + "\n"


# -------------------------------------------------------------------- main

def version_from_makefile(path):
    try:
        text = read_text(path)
    except DocError:
        return "unknown"
    m = re.search(r"^VERSION\s*:?=\s*(\S+)", text, flags=re.M)
    return m.group(1) if m else "unknown"


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generate(args):
    header = Header(args.header)
    files = sorted(f for f in os.listdir(args.docs)
                   if f.endswith(".md") and f not in ("README.md", "librpma.7.md"))
    if not files:
        raise DocError("%s: no <object>.md files" % args.docs)
    documented, objects, pages = {}, [], {}
    refs_by_page = {}
    for f in files:
        title, blocks = parse_api_file(os.path.join(args.docs, f))
        names = []
        for block in blocks:
            check_block(block, header)
            for n in block.names:
                if n in documented:
                    raise DocError("%s: %s is already documented at %s" %
                                   (block.where(), n, documented[n]))
                documented[n] = block.where()
                refs = set()
                pages[n] = render_function_page(n, block, header, args.version, refs)
                refs_by_page[block.where() + " (" + n + ")"] = refs
                names.append(n)
        objects.append((title, names))
    missing = sorted(set(header.functions) - set(documented))
    if missing:
        raise DocError("%s: %d public function(s) without documentation in %s: %s" %
                       (args.header, len(missing), args.docs, ", ".join(missing)))
    overview_refs = set()
    overview = render_overview(os.path.join(args.docs, "librpma.7.md"), objects,
                               args.version, overview_refs)
    refs_by_page["librpma.7.md"] = overview_refs
    for page, refs in sorted(refs_by_page.items()):
        for name, section in sorted(refs):
            if name.startswith("rpma_") and (section != "3" or name not in pages):
                raise DocError("%s: refers to %s(%s), which is no page of librpma" %
                               (page, name, section))
    for name, text in sorted(pages.items()):
        write_if_changed(os.path.join(args.out, "man3", name + ".3"), text)
    # a page of a function that is gone would otherwise linger and be installed
    for f in os.listdir(os.path.join(args.out, "man3")):
        if f.endswith(".3") and f[:-2] not in pages:
            os.remove(os.path.join(args.out, "man3", f))
    write_if_changed(os.path.join(args.out, "man7", "librpma.7"), overview)
    return len(pages)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(
        prog=PROG, description="Generate librpma's man pages (section 3 and librpma(7)) "
        "from docs/api/*.md and the public header.")
    p.add_argument("--header", default=os.path.join(root, "librpma/include/librpma.h"),
                   help="the public header (default: %(default)s)")
    p.add_argument("--docs", default=os.path.join(root, "docs/api"),
                   help="the markdown sources (default: %(default)s)")
    p.add_argument("--out", default=os.path.join(root, "build/man"),
                   help="output directory; pages go to man3/ and man7/ (default: %(default)s)")
    p.add_argument("--version", default=version_from_makefile(os.path.join(root, "Makefile")),
                   help="version shown in the page footer (default: the Makefile's, %(default)s)")
    args = p.parse_args()
    try:
        n = generate(args)
    except DocError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1
    print("%s: %d section-3 pages and librpma(7) in %s" % (PROG, n, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
