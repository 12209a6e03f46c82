"""Repository and project URLs mentioned in a paper's abstract or comments.

Code hosts (GitHub, GitLab, Bitbucket, Hugging Face, Codeberg) give code links, each
normalised to its repository: scheme https, host lowercase without "www.", no ".git",
no trailing punctuation, "/tree/…", "/blob/…" and the like cut off. Project pages
(`*.github.io`, gists) are project links, not code.
"""

from __future__ import annotations

import re

CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
# Where a host's name occurs (in the lowercased text); the URL around it is the run of
# characters no URL here holds (white space, LaTeX's \\url{…} braces, quotes, angle
# brackets) on either side. A literal pattern: most texts name no host, and finding that
# out is one fast scan.
_HOSTS = re.compile(
    r"github\.com|github\.io|gitlab\.com|bitbucket\.org|huggingface\.co|codeberg\.org"
)
_STOP = frozenset(" \t\n\r<>\"'{}|\\^`[]()")
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
        low = text.lower()
        end = 0
        for match in _HOSTS.finditer(low):
            if match.start() < end:
                continue  # inside the URL just read
            start = match.start()
            while start > 0 and low[start - 1] not in _STOP:
                start -= 1
            end = match.end()
            while end < len(low) and low[end] not in _STOP:
                end += 1
            token = text[start:end]
            rest = token.split("://", 1)[1] if "://" in token[:8] else token
            host, _, path = rest.partition("/")
            host = host.lower().removeprefix("www.")
            kind, url = classify(host, "/" + path.rstrip(_TRAILING))
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
