"""The app's modules import one another without a circle.

Every `import` and `from … import` of every module under papers/ and codewithpapers/ is
read with `ast` (nothing is imported): those a module runs when it is imported (at its
top, under `if TYPE_CHECKING:` too, since a circle a type needs is a circle of the
design), and, in a second check, those inside its functions as well. Importing
`a.b.c` runs `a` and `a.b` first, unless they are the importer's own packages. A function-level
import that only dodges a circle hides it; one that defers a heavy optional import
(pyarrow, tqdm) makes none, and passes.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("papers", "codewithpapers")
# Imports inside functions that close a known circle, as (importing module's prefix,
# imported module): none.
KNOWN_DEFERRED: set[tuple[str, str]] = set()


def modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module under the packages, by dotted name (a package by its own name)."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _statements(body: list[ast.stmt], deferred: bool):
    """The import statements of a block: those that run with it, and with `deferred`
    those inside its functions too."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if deferred:
                yield from _statements(node.body, deferred)
        else:
            for block in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, block, ()):
                    if isinstance(child, ast.ExceptHandler | ast.match_case):
                        yield from _statements(child.body, deferred)
                    elif isinstance(child, ast.stmt):
                        yield from _statements([child], deferred)


def _target(name: str, known: dict[str, Path]) -> str | None:
    """The module of ours an imported name is (its package, for a name in it)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imported(name: str, path: Path, known: dict[str, Path], *, deferred: bool) -> set[str]:
    """The modules of ours that module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in _statements(ast.parse(path.read_text(), str(path)).body, deferred):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [n if n in known else base for n in names]
        for target in filter(None, (_target(n, known) for n in names)):
            out.update(_runs(target, name, known))
    out.discard(name)
    return out


def _runs(target: str, importer: str, known: dict[str, Path]) -> set[str]:
    """What importing `target` runs: the module, and first each package above it that
    is not above the importer too (Python imported those before the importer)."""
    parts = target.split(".")
    above = {".".join(parts[:i]) for i in range(1, len(parts))}
    mine = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 1)}
    return {target, *(package for package in above - mine if package in known)}


def graph(root: Path, *, deferred: bool, packages: tuple[str, ...] = PACKAGES):
    known = modules(root, packages)
    edges = {name: imported(name, path, known, deferred=deferred) for name, path in known.items()}
    if deferred:
        for name, targets in edges.items():
            targets -= {t for prefix, t in KNOWN_DEFERRED if name.startswith(prefix)}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import one another, as a path
    that ends where it starts."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(_path(group, edges) for group in groups)


def _path(group: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest circle from the group's first module back to it, within the group."""
    start, members = group[0], set(group)
    previous: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        ahead = []
        for node in frontier:
            for other in sorted(edges[node] & members):
                if other == start:
                    path = [node]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if other not in previous:
                    previous[other] = node
                    ahead.append(other)
        frontier = ahead
    return group


def _named(found: list[list[str]]) -> str:
    return "\n".join(" → ".join(circle) for circle in found)


def test_no_module_imports_itself_through_others():
    found = circles(graph(ROOT, deferred=False))
    assert not found, "import circles:\n" + _named(found)


def test_no_import_inside_a_function_hides_a_circle():
    found = circles(graph(ROOT, deferred=True))
    assert not found, "import circles through imports inside functions:\n" + _named(found)


def test_the_check_names_each_circle_even_one_only_a_type_needs(tmp_path):
    app = tmp_path / "app"
    (app / "sub").mkdir(parents=True)
    (app / "pkg").mkdir()
    files = {
        "__init__.py": "",
        "sub/__init__.py": "",
        "pkg/__init__.py": "from app import g\n",
        "pkg/h.py": "",
        "g.py": "import app.pkg.h\n",  # runs app/pkg/__init__.py first
        "a.py": "from app.sub import b\n",
        "sub/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n",
        "sub/c.py": "import app.a\n",
        "e.py": "def later():\n    from app import f\n",
        "f.py": "from app.e import later\n",
    }
    for name, text in files.items():
        (app / name).write_text(text)
    assert circles(graph(tmp_path, deferred=False, packages=("app",))) == [
        ["app.a", "app.sub.b", "app.sub.c", "app.a"],
        ["app.g", "app.pkg", "app.g"],
    ]
    assert circles(graph(tmp_path, deferred=True, packages=("app",))) == [
        ["app.a", "app.sub.b", "app.sub.c", "app.a"],
        ["app.e", "app.f", "app.e"],
        ["app.g", "app.pkg", "app.g"],
    ]
