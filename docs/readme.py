"""Regenerate the README's generated blocks: ``python docs/readme.py`` (``--check``: exit 1 if one is stale).

A block sits between ``<!-- generated: NAME -->`` and ``<!-- /generated: NAME -->``; its text comes from the
code, so it cannot go stale: ``groups`` is the table ``lab groups`` prints (``lab.groups.group_catalog``),
``screenshots`` the pictures ``docs/screenshots.py`` saves (one per dashboard tab, ``lab.dashboard.PANES``).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
sys.path.insert(0, str(ROOT))


def groups_block() -> str:
    from lab.groups import group_catalog

    rows = ["| group | what it is |", "|---|---|"]
    # a "|" in a description (Z4 x| (Zn x Zn)) would end its table cell: escaped
    rows += [f"| `{signature}` | {text.replace('|', chr(92) + '|')} |" for signature, text in group_catalog()]
    return "\n".join(rows)


def screenshots_block() -> str:
    from docs.screenshots import README_SIZE, image_name
    from lab.dashboard import PANES

    w, h = README_SIZE
    return "\n".join(f"**{title}**\n\n![{title} tab at {w}×{h}](docs/img/{image_name(title, w, h)})\n"
                     for title, _ in PANES).rstrip()


BLOCKS = {"groups": groups_block, "screenshots": screenshots_block}


def render(text: str) -> str:
    """``text`` with every generated block replaced by its current content."""
    for name, make in BLOCKS.items():
        pattern = re.compile(rf"(<!-- generated: {name} -->).*?(<!-- /generated: {name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no generated block {name!r}")
        text = pattern.sub(lambda m: f"{m.group(1)}\n{make()}\n{m.group(2)}", text)
    return text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    old = README.read_text()
    new = render(old)
    if "--check" in argv:
        if new != old:
            print("README.md is stale: run python docs/readme.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
