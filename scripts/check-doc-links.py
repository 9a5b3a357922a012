#!/usr/bin/env python3
"""check-doc-links.py [FILE.md ...] — every relative link in the Markdown files resolves, offline.

Default files: README.md and docs/*.md of the repository this script sits in. For each inline
link [text](target) outside code spans and fenced blocks: a target with a scheme (https:, mailto:)
is not followed (no network); a path must exist relative to the file that links it; a #fragment
must name a heading of the target file (or of the file itself for "#fragment" alone), spelled as
GitHub spells heading anchors: lower case, every character dropped that is not a letter, a mark, a
decimal digit, '_', '-' or a space, spaces turned into '-', and "-1", "-2", ... appended to a
repeated anchor. Prints one line per broken link and a count; exit status 1 if any is broken.
"""
import os
import re
import sys
import unicodedata

LINK = re.compile(r"(?<!\!)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def strip_code(lines):
    """The lines with fenced blocks blanked and inline code spans removed."""
    out, fenced = [], False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`+[^`]*`+", "", line))
    return out


def slug(text):
    keep = []
    for ch in text.strip().lower():
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LM" or cat == "Nd":
            keep.append(ch)
    return "".join(keep).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found, fenced = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def check(md):
    bad = 0
    with open(md, encoding="utf-8") as f:
        lines = strip_code(f.read().split("\n"))
    for no, line in enumerate(lines, 1):
        for m in LINK.finditer(line):
            target = m.group(2)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # a URL: not followed offline
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            why = None
            if not os.path.exists(dest):
                why = "no such file"
            elif frag and (os.path.isdir(dest) or not dest.endswith(".md")):
                why = "an anchor into something that is not a Markdown file"
            elif frag and frag not in anchors(dest):
                why = f"no heading with anchor #{frag} in {os.path.relpath(dest)}"
            if why:
                print(f"{md}:{no}: [{m.group(1)[:40]}]({target}): {why}")
                bad += 1
    return bad


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = argv[1:]
    if not files:
        docs = os.path.join(root, "docs")
        files = [os.path.join(root, "README.md")] + sorted(
            os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    total, links = 0, 0
    for md in files:
        with open(md, encoding="utf-8") as f:
            links += sum(len(LINK.findall(l)) for l in strip_code(f.read().split("\n")))
        total += check(md)
    print(f"check-doc-links: {len(files)} files, {links} links, {total} broken")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
