"""Repository and project URLs mentioned in a paper's abstract or comments.

Code hosts (GitHub, GitLab, Bitbucket, Hugging Face, Codeberg) give code links, each
normalised to its repository: scheme https, host lowercase without "www.", no ".git",
no trailing punctuation, "/tree/…", "/blob/…" and the like cut off. Project pages
(`*.github.io`, gists) are project links, not code.
"""

from __future__ import annotations

import re

CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
# A URL-ish run: scheme optional (abstracts write "github.com/owner/repo"), ended by
# white space or a character no URL here holds (LaTeX's \url{…} braces, quotes, angle
# brackets).
_CANDIDATE = re.compile(
    r"(?:https?://)?(?:www\.)?"
    r"((?:[a-z0-9-]+\.)*(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|"
    r"codeberg\.org|github\.io))(/[^\s<>\"'{}|\\^`\[\]]*)?",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?)]}'\"*"
# Path segments that end a repository's part of a URL (GitLab writes "/-/" before them).
_CUT = {"-", "tree", "blob", "raw", "issues", "pulls", "pull", "wiki", "releases", "commit",
        "commits", "src", "resolve", "discussions", "actions", "archive"}  # fmt: skip
# Hugging Face: a model is /owner/name; datasets and spaces are /datasets/owner/name.
_HF_KINDS = {"datasets", "spaces"}
# Paths on a code host that are never a repository.
_NOT_REPOS = {"about", "features", "pricing", "login", "join", "explore", "topics",
              "search", "settings", "orgs", "users", "sponsors", "marketplace", "docs",
              "blog", "papers", "collections", "models"}  # fmt: skip


def find(*texts: str) -> tuple[list[str], list[str]]:
    """(code URLs, project URLs) found in the texts, each once, in order of appearance."""
    code: list[str] = []
    projects: list[str] = []
    for text in texts:
        if not text:
            continue
        for match in _CANDIDATE.finditer(text):
            host = match.group(1).lower()
            path = (match.group(2) or "").rstrip(_TRAILING)
            kind, url = classify(host, path)
            target = code if kind == "code" else projects if kind == "project" else None
            if target is not None and url not in target:
                target.append(url)
    return code, projects


def classify(host: str, path: str) -> tuple[str, str]:
    """("code" | "project" | "", normalised URL) for a host and path."""
    segments = [s for s in path.split("/") if s]
    if host.endswith(".github.io"):
        user = host.removesuffix(".github.io")
        if not user or "." in user:
            return "", ""
        tail = "/".join(segments)
        return "project", f"https://{host}/" + (f"{tail}" if tail else "")
    if host == "gist.github.com":
        return (
            ("project", f"https://gist.github.com/{'/'.join(segments[:2])}")
            if segments
            else (
                "",
                "",
            )
        )
    if host not in CODE_HOSTS:
        return "", ""
    if host == "huggingface.co" and segments and segments[0] in _HF_KINDS:
        prefix, segments = [segments[0]], segments[1:]
    else:
        prefix = []
    kept: list[str] = []
    for segment in segments:
        if segment in _CUT or segment.startswith(("#", "?")):
            break
        kept.append(segment.split("#")[0].split("?")[0])
        if host != "gitlab.com" and len(kept) == 2:
            break  # owner/name; only GitLab nests groups
    if len(kept) < 2 or kept[0].lower() in _NOT_REPOS:
        return "", ""
    kept[-1] = kept[-1].removesuffix(".git").rstrip(_TRAILING)
    if not kept[-1]:
        return "", ""
    return "code", f"https://{host}/" + "/".join(prefix + kept)
