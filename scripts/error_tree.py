"""Draw the tree of `redstring.errors` from the classes into the errors reference page.

    uv run python -m scripts.error_tree           # rewrite the page's tree
    uv run python -m scripts.error_tree --check   # exit 1 when the page differs

Each line is a class, its builtin mix-ins in brackets, and the first line of
its docstring; a class sits under its first redstring base.
"""

from __future__ import annotations

import sys

import redstring.errors as errors
from scripts import ROOT

PAGE = ROOT / "docs" / "reference" / "errors.md"
BEGIN = "<!-- the tree below is drawn from the classes by `python -m scripts.error_tree` -->"
END = "<!-- end of the drawn tree -->"


def _parent(cls: type) -> type | None:
    return next((b for b in cls.__bases__ if issubclass(b, errors.RedstringError)), None)


def _line(cls: type) -> str:
    builtin = [b for b in cls.__bases__ if b.__module__ == "builtins" and b is not Exception]
    mixins = [b.__name__ for b in builtin]
    mixed = f" ({', '.join(mixins)})" if mixins else ""
    summary = (cls.__doc__ or "").strip().splitlines()[0]
    return f"{cls.__name__}{mixed}: {summary}"


def tree() -> str:
    """Every class of `redstring.errors`, drawn under its parent, families before leaves."""
    classes = [getattr(errors, name) for name in errors.__all__]
    children: dict[type, list[type]] = {cls: [] for cls in classes}
    for cls in classes:
        parent = _parent(cls)
        if parent is not None:
            children[parent].append(cls)
    lines = [_line(errors.RedstringError)]

    def draw(cls: type, indent: str) -> None:
        kids = sorted(children[cls], key=lambda k: (not children[k], k.__name__))
        for number, kid in enumerate(kids):
            last = number == len(kids) - 1
            lines.append(f"{indent}{'└── ' if last else '├── '}{_line(kid)}")
            draw(kid, indent + ("    " if last else "│   "))

    draw(errors.RedstringError, "")
    return "\n".join(lines) + "\n"


def drawn(page: str) -> str:
    """`page` with the text between its markers replaced by the tree."""
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n```text\n{tree()}```\n\n{END}{tail}"


def main(argv: list[str]) -> int:
    page = PAGE.read_text()
    if "--check" in argv:
        return 0 if drawn(page) == page else 1
    PAGE.write_text(drawn(page))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
