"""Sizes: no module of the project's code over 600 lines and no function over 60, so
that each reads in one sitting; a module that grows past the limit becomes a package
split by what it holds (as papers/models/, papers/views/ and papers/admin/ did)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES = 600
FUNCTION_LINES = 60  # from its first decorator (or its def) to its last line

CHECKED = ("papers", "codewithpapers")
SKIPPED = (
    # Schema history Django writes: a migration is as long as its operations.
    "papers/migrations/",
)


def _modules() -> list[Path]:
    found = []
    for package in CHECKED:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if not name.startswith(SKIPPED):
                found.append(path)
    return found


MODULES = _modules()


def _functions(path: Path):
    """(name, line, length) of every function and method of a module, nested ones too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            yield node.name, node.lineno, node.end_lineno - start + 1


def test_the_limits_read_the_project_s_code():
    names = {path.relative_to(ROOT).as_posix() for path in MODULES}
    assert "papers/models/papers.py" in names and "codewithpapers/settings.py" in names
    assert not any(name.startswith(SKIPPED) for name in names)
    assert len(MODULES) > 50


def test_no_module_is_over_600_lines():
    long = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for path in MODULES
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    ]
    assert not long, "split these modules:\n" + "\n".join(long)


def test_no_function_is_over_60_lines():
    long = [
        f"{path.relative_to(ROOT)}:{line} {name}(): {length} lines"
        for path in MODULES
        for name, line, length in _functions(path)
        if length > FUNCTION_LINES
    ]
    assert not long, "split these functions:\n" + "\n".join(long)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n" + "    x = 1\n" * 59, 60),
        ("@decorator\ndef f():\n" + "    x = 1\n" * 59, 61),
        ("class C:\n    def m(self):\n        def inner():\n            pass\n", 3),
    ],
)
def test_a_function_s_length_counts_its_decorators_and_body(tmp_path, source, expected):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert max(length for _, _, length in _functions(path)) == expected
