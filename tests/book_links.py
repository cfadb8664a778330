#!/usr/bin/env python3
"""Checks every relative link of the built book (docs/, built by mdBook) and
of the repository's README.md.

A link in a chapter either stays inside the book, and must then name a page
the build made and, with `#anchor`, an id on that page; or leaves it, and
must then name a file or folder of the repository, resolved from the
chapter's source file in docs/ (so `../server/src/` from docs/contributing.md
is the repository's server/src/, as on a forge). A link to a page that is
neither is an error: mdBook turns a link to any `.md` file into `.html`, so
a repository's markdown file is linked through a chapter that includes it.
README.md's links must name repository files; those into docs/ with an
anchor must name an id of the built page.

Usage: python3 tests/book_links.py [BOOK_DIR]  (default: target/book)
"""

import html.parser
import os
import sys
import urllib.parse

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
DOCS = os.path.join(ROOT, "docs")


class Page(html.parser.HTMLParser):
    """The ids of a page, and the hrefs of the links in its <main>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []
        self.in_main = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "main":
            self.in_main += 1
        elif tag == "a" and self.in_main and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "main":
            self.in_main -= 1


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def is_external(href):
    return urllib.parse.urlsplit(href).scheme != "" or href.startswith("//")


def chapters(book):
    """Every built page whose source is a chapter in docs/, by path relative
    to the book."""
    found = []
    for folder, _, files in os.walk(book):
        for name in files:
            if not name.endswith(".html"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), book)
            if os.path.isfile(os.path.join(DOCS, rel[: -len(".html")] + ".md")):
                found.append(rel)
    return sorted(found)


def check_book(book, pages, errors):
    """Checks the pages' links into `errors`; answers how many it checked."""
    checked = 0
    for rel in pages:
        page = parse(os.path.join(book, rel))
        for href in page.links:
            if is_external(href):
                continue
            checked += 1
            parts = urllib.parse.urlsplit(href)
            path = urllib.parse.unquote(parts.path)
            frag = urllib.parse.unquote(parts.fragment)
            where = f"docs/{rel[:-5]}.md: link {href}"
            if not path:
                if frag and frag not in page.ids:
                    errors.append(f"{where}: no such anchor on the page")
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(rel), path))
            if not target.startswith(".."):
                built = os.path.join(book, target)
                if os.path.isfile(built) and target.endswith(".html"):
                    if frag and frag not in ids_of(built):
                        errors.append(f"{where}: no anchor #{frag} on {target}")
                    continue
            # Out of the book: a file of the repository, from the source.
            source_dir = os.path.dirname(os.path.join(DOCS, rel))
            repo_target = os.path.normpath(os.path.join(source_dir, path))
            if not repo_target.startswith(ROOT + os.sep):
                errors.append(f"{where}: leaves the repository")
            elif repo_target.endswith(".html"):
                errors.append(f"{where}: no such page in the book (link a chapter, not a repository .md file)")
            elif not os.path.exists(repo_target):
                errors.append(f"{where}: no such file in the repository ({os.path.relpath(repo_target, ROOT)})")
    return checked


_ids = {}


def ids_of(path):
    if path not in _ids:
        _ids[path] = parse(path).ids
    return _ids[path]


def markdown_links(text):
    """The targets of `[text](target)` links outside code blocks."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        rest = line
        while "](" in rest:
            start = rest.index("](") + 2
            end = rest.find(")", start)
            if end < 0:
                break
            out.append(rest[start:end].strip())
            rest = rest[end + 1 :]
    return out


def heading_ids(text):
    """The anchors a forge gives a markdown file's headings."""
    ids, fence = set(), False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            ids.add("".join(c for c in title if c.isalnum() or c in " -_").replace(" ", "-"))
    return ids


def check_readme(book, errors):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    links = markdown_links(text)
    readme_ids = heading_ids(text)
    for href in links:
        if is_external(href) or not href:
            continue
        parts = urllib.parse.urlsplit(href)
        path = urllib.parse.unquote(parts.path)
        frag = urllib.parse.unquote(parts.fragment)
        where = f"README.md: link {href}"
        if not path:
            if frag not in readme_ids:
                errors.append(f"{where}: no such section in README.md")
            continue
        target = os.path.normpath(os.path.join(ROOT, path))
        if not target.startswith(ROOT + os.sep) or not os.path.exists(target):
            errors.append(f"{where}: no such file in the repository")
            continue
        rel = os.path.relpath(target, DOCS)
        if frag and target.endswith(".md") and not rel.startswith(".."):
            built = os.path.join(book, rel[: -len(".md")] + ".html")
            if not os.path.isfile(built):
                errors.append(f"{where}: {rel} is not a chapter of the book")
            elif frag not in ids_of(built):
                errors.append(f"{where}: no anchor #{frag} in the book's {rel}")


def main():
    book = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "book"))
    pages = chapters(book)
    if not pages:
        sys.exit(f"no chapters built in {book}")
    errors = []
    checked = check_book(book, pages, errors)
    check_readme(book, errors)
    for error in errors:
        print(error)
    if errors:
        sys.exit(f"{len(errors)} broken links")
    print(f"book links: {checked} relative links in {len(pages)} pages, and README.md's: all resolve")


if __name__ == "__main__":
    main()
