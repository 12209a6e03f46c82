"""Repository URLs found in abstracts and comments (papers.arxiv.code)."""

from __future__ import annotations

import pytest

from papers.arxiv.code import find


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("see \\url{https://github.com/Lab/Repo.git}.", ["https://github.com/Lab/Repo"]),
        ("github.com/a/b/tree/main/src/x.py", ["https://github.com/a/b"]),
        ("https://github.com/a/b/blob/main/README.md)", ["https://github.com/a/b"]),
        ("https://gitlab.com/group/sub/proj/-/blob/x", ["https://gitlab.com/group/sub/proj"]),
        ("(https://huggingface.co/datasets/o/n)", ["https://huggingface.co/datasets/o/n"]),
        ("https://huggingface.co/org/model/resolve/main/x", ["https://huggingface.co/org/model"]),
        ("https://www.GitHub.com/owner/name,", ["https://github.com/owner/name"]),
        ("codeberg.org/x/y; bitbucket.org/a/b", ["https://codeberg.org/x/y", "https://bitbucket.org/a/b"]),
        ("https://github.com/a/b and again https://github.com/a/b.", ["https://github.com/a/b"]),
        ("https://github.com/features and https://github.com/onlyowner", []),
        ("no code here, only words", []),
    ],
)  # fmt: skip
def test_code_urls_are_found_and_cut_to_the_repository(text, code):
    assert find(text)[0] == code


def test_project_pages_and_gists_are_project_links_not_code():
    code, projects = find("Page: https://Lab.github.io/thing/ and https://gist.github.com/u/abc1")
    assert code == []
    assert projects == ["https://lab.github.io/thing", "https://gist.github.com/u/abc1"]
