#!/usr/bin/env python3
"""weathertag's xgettext: po/weathertag.pot from the `tr(...)` calls in Sources/ (`make generated`).

xgettext has no Swift parser, so this reads the calls itself: `tr("id")`, `tr("id", context: "ctx")`,
`tr("id", plural: "ids", count: n)` and their arguments, each literal a Swift string (one line, or a multi-line
`\"\"\"` literal whose lines a trailing backslash joins). `Messages.tr` takes `StaticString`s, so every message is a
literal the compiler has checked. A `// Translators: ...` comment on the lines just above a call is the message's
comment for translators (`#.`); a message with `{name}`s is marked `python-brace-format`, so that
`msgfmt --check` finds a translation that lost or misspelt one.

    tools/make-pot.py            write po/weathertag.pot
    tools/make-pot.py --check    exit 1 when po/weathertag.pot is not what Sources/ says
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POT = os.path.join(ROOT, "po", "weathertag.pot")
CALL = re.compile(r"\b(?:tr|Said)\(")
NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SwiftLiteral:
    """A Swift string literal starting at text[start]: its value and where it ends."""

    ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}

    @classmethod
    def read(cls, text, start, interpolated=False):
        """`interpolated`: a literal that is not a message (an argument's), whose `\\(…)` is skipped."""
        if text.startswith('"""', start):
            return cls.read_multiline(text, start, interpolated)
        if not text.startswith('"', start):
            return None
        value, index = [], start + 1
        while index < len(text):
            char = text[index]
            if char == '"':
                return "".join(value), index + 1
            if char == "\n":
                return None
            if char == "\\" and interpolated and text[index + 1] == "(":
                index = cls.skip_interpolation(text, index + 2)
                continue
            if char == "\\":
                index = cls.escape(text, index, value)
                continue
            value.append(char)
            index += 1
        return None

    @staticmethod
    def skip_interpolation(text, index):
        depth = 1
        while index < len(text) and depth:
            if text[index] == '"':
                literal = SwiftLiteral.read(text, index, interpolated=True)
                if literal is None:
                    raise SystemExit("make-pot: a string that does not close near offset %d" % index)
                index = literal[1]
                continue
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            index += 1
        return index

    @classmethod
    def escape(cls, text, index, value):
        code = text[index + 1]
        if code == "u":
            close = text.index("}", index)
            value.append(chr(int(text[index + 3:close], 16)))
            return close + 1
        if code == "(":
            raise SystemExit("make-pot: an interpolation in a message (Messages.tr takes a StaticString)")
        value.append(cls.ESCAPES.get(code, code))
        return index + 2

    @staticmethod
    def raw_end(text, start):
        """Where a raw string (#"..."#, or ## and three quotes) that starts at `start` (its first #) ends."""
        hashes = len(text[start:]) - len(text[start:].lstrip("#"))
        quote = start + hashes
        closing = ('"""' if text.startswith('"""', quote) else '"') + "#" * hashes
        end = text.find(closing, quote + (3 if closing.startswith('"""') else 1))
        return len(text) if end < 0 else end + len(closing)

    @classmethod
    def read_multiline(cls, text, start, interpolated=False):
        end = text.index('"""', start + 3)
        body = text[start + 3:end]
        lines = body.split("\n")[1:]  # the opening line holds nothing
        indent = lines[-1]  # the closing delimiter's indentation
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[:-1]]
        raw = "\n".join(lines)
        value, index = [], 0
        while index < len(raw):
            char = raw[index]
            if char == "\\" and index + 1 < len(raw) and raw[index + 1] == "\n":
                index += 2
                continue
            if char == "\\" and interpolated and raw[index + 1] == "(":
                index = cls.skip_interpolation(raw, index + 2)
                continue
            if char == "\\":
                index = cls.escape(raw, index, value)
                continue
            value.append(char)
            index += 1
        return "".join(value), end + 3


def arguments(text, start):
    """The text of a call's arguments from just after its '(' to its ')'."""
    depth, index = 1, start
    while index < len(text):
        char = text[index]
        if char == '"':
            literal = SwiftLiteral.read(text, index, interpolated=True)
            if literal is None:
                raise SystemExit("make-pot: a string that does not close near offset %d" % index)
            index = literal[1]
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return text[start:index]
        index += 1
    raise SystemExit("make-pot: a tr( call that does not close")


def top_level(args):
    """`args` with what nested calls, arrays and dictionaries hold blanked out: a nested `tr(..., plural: ...)` is
    its own message, not this one's."""
    out, depth, index = [], 0, 0
    while index < len(args):
        char = args[index]
        if char == '"':
            literal = SwiftLiteral.read(args, index, interpolated=True)
            end = literal[1] if literal else len(args)
            out.append(args[index:end] if depth == 0 else " " * (end - index))
            index = end
            continue
        if char in "([":
            depth += 1
        out.append(char if depth == 0 else " ")
        if char in ")]":
            depth -= 1
        index += 1
    return "".join(out)


def labelled(args, label):
    args = top_level(args)
    match = re.search(r"\b%s:\s*" % label, args)
    if not match:
        return None
    literal = SwiftLiteral.read(args, match.end())
    if literal is None:
        return None
    return literal[0]


def translators_comment(lines, line_number):
    """The `// Translators:` comment just above line `line_number` (1-based), if any."""
    comment, index = [], line_number - 2
    while index >= 0 and lines[index].strip().startswith("//"):
        comment.insert(0, lines[index].strip()[2:].strip())
        index -= 1
    text = " ".join(comment)
    at = text.find("Translators:")
    return text[at:] if at >= 0 else None


def without_comments(text):
    """`text` with its comments blanked (`//` to the line's end, `/* */`), its strings and lines where they were: a
    comment that shows a call (`tr("…")`) is not a message."""
    out, index = [], 0
    while index < len(text):
        if text[index] == "#" and text[index:].lstrip("#").startswith('"'):
            end = SwiftLiteral.raw_end(text, index)
            out.append(text[index:end])
            index = end
        elif text.startswith('"', index):
            literal = SwiftLiteral.read(text, index, interpolated=True)
            end = literal[1] if literal else index + 1
            out.append(text[index:end])
            index = end
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            out.append(" " * (end - index))
            index = end
        elif text.startswith("/*", index):
            end = text.find("*/", index)
            end = len(text) if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[index:end]))
            index = end
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def messages():
    found = {}
    order = []
    sources = os.path.join(ROOT, "Sources")
    for folder, _, files in sorted(os.walk(sources)):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            original = open(path, encoding="utf-8").read()
            lines = original.split("\n")
            text = without_comments(original)
            for match in CALL.finditer(text):
                start = match.end()
                while start < len(text) and text[start] in " \n\t":
                    start += 1
                literal = SwiftLiteral.read(text, start)
                if literal is None:
                    continue  # `func tr(` itself, or a call with a variable: not a message
                args = arguments(text, literal[1])
                msgid = literal[0]
                context = labelled(args, "context")
                plural = labelled(args, "plural")
                line = text.count("\n", 0, match.start()) + 1
                key = (context, msgid)
                if key not in found:
                    found[key] = {"plural": plural, "references": [], "comments": []}
                    order.append(key)
                entry = found[key]
                if plural and entry["plural"] and plural != entry["plural"]:
                    raise SystemExit("make-pot: %r has two plurals" % msgid)
                entry["plural"] = entry["plural"] or plural
                reference = os.path.relpath(path, ROOT)
                if reference not in entry["references"]:
                    entry["references"].append(reference)
                comment = translators_comment(lines, line)
                if comment and comment not in entry["comments"]:
                    entry["comments"].append(comment)
    return [(key, found[key]) for key in order]


def quoted(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    parts = escaped.split("\n")
    if len(parts) == 1:
        return '"%s"' % escaped
    return '""\n' + "\n".join('"%s\\n"' % part for part in parts[:-1]) + ('\n"%s"' % parts[-1] if parts[-1] else "")


def pot():
    out = [
        "# The messages weathertag shows people, in its own English (made by tools/make-pot.py: `make generated`).",
        "# Translate them in po/LL.po; docs/your-language.md says how.",
        'msgid ""',
        'msgstr ""',
        '"Project-Id-Version: weathertag\\n"',
        '"Report-Msgid-Bugs-To: \\n"',
        '"Language: \\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        '"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"',
        "",
    ]
    for (context, msgid), entry in messages():
        for comment in entry["comments"]:
            out.append("#. " + comment)
        out.append("#: " + " ".join(entry["references"]))
        if NAME.search(msgid) or (entry["plural"] and NAME.search(entry["plural"])):
            out.append("#, python-brace-format")
        if context is not None:
            out.append("msgctxt " + quoted(context))
        out.append("msgid " + quoted(msgid))
        if entry["plural"]:
            out.append("msgid_plural " + quoted(entry["plural"]))
            out.append('msgstr[0] ""')
            out.append('msgstr[1] ""')
        else:
            out.append('msgstr ""')
        out.append("")
    return "\n".join(out)


def main():
    text = pot()
    if "--check" in sys.argv[1:]:
        current = open(POT, encoding="utf-8").read() if os.path.exists(POT) else ""
        if current != text:
            sys.exit("po/weathertag.pot is not what Sources/ says: run `make generated`")
        return
    os.makedirs(os.path.dirname(POT), exist_ok=True)
    with open(POT, "w", encoding="utf-8") as pot_file:
        pot_file.write(text)
    print("po/weathertag.pot: %d messages" % len(messages()))


if __name__ == "__main__":
    main()
