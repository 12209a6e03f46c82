"""A stand-in for arXiv on 127.0.0.1: real recorded pages (../shared/realdata/arxiv),
served with the faults arXiv's servers show (HTTP 503 with Retry-After, a connection
dropped mid-page, a refused resumption token, malformed XML). Nothing leaves the machine."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from tests.conftest import realdata

RAW = "arxiv/oai_ListRecords_arXivRaw_with-resumptionToken__mikesaelim-arXivOAIHarvester.xml"
NOCK = "arxiv/oai_ListRecords_arXiv_503-retry-then-complete-list__paperhive-oai-pmh.nock.json"
BAD_TOKEN = "arxiv/oai_error_badResumptionToken__mikesaelim-arXivOAIHarvester.xml"
NO_RECORDS = "arxiv/oai_error_noRecordsMatch__mikesaelim-arXivOAIHarvester.xml"
ATOM_LEGACY = "arxiv/api_atom_legacy-2017_10-entries__orijtech-arxiv.atom"
ATOM_2026 = "arxiv/api_atom_2026_10-entries_github-comment__lukasschwab-arxiv.py.fixture.json"
ATOM_400 = "arxiv/api_atom_2026_error-400-bad-id__lukasschwab-arxiv.py.fixture.json"


def oai_pages() -> dict[str, bytes]:
    """The real arXivRaw page's six records as a list of three pages: "first" (records
    1-3, token t1), "t1" (4-6, token t2), "t2" (none, an empty token: the empty last page
    arXiv sends when the list's size is a multiple of the page's)."""
    text = realdata(RAW).read_text(encoding="utf-8")
    head, rest = text.split("<ListRecords>\n", 1)
    records = re.findall(r"<record>.*?</record>\n", rest, flags=re.S)
    assert len(records) == 6

    def page(body: str, token: str, cursor: int) -> bytes:
        attrs = f'cursor="{cursor}" completeListSize="6"'
        return (
            f"{head}<ListRecords>\n{body}<resumptionToken {attrs}>{token}</resumptionToken>\n"
            "</ListRecords>\n</OAI-PMH>\n"
        ).encode()

    return {
        "first": page("".join(records[:3]), "t1", 0),
        "t1": page("".join(records[3:]), "t2", 3),
        "t2": page("", "", 6),
    }


def nock_exchanges() -> list[dict]:
    return json.loads(realdata(NOCK).read_text(encoding="utf-8"))


def atom_pages() -> dict[int, tuple[int, bytes]]:
    """The query API by `start`: 0 the legacy feed, 10 the current one, 20 an empty page."""
    legacy = realdata(ATOM_LEGACY).read_bytes()
    current = json.loads(realdata(ATOM_2026).read_text(encoding="utf-8"))["body"].encode()
    empty = re.sub(rb"<entry>.*</entry>\s*", b"", current, flags=re.S)
    return {0: (200, legacy), 10: (200, current), 20: (200, empty)}


def atom_error() -> tuple[int, bytes]:
    recorded = json.loads(realdata(ATOM_400).read_text(encoding="utf-8"))
    return recorded["status_code"], recorded["body"].encode()


@dataclass
class FakeArxiv:
    """Serves `pages` by key (the resumption token, "first" without one, or the API's
    start); `faults` are taken in order, each once, by the request whose key they name:
    ("t1", "503"), ("t1", "drop"), ("t2", "malformed"), ("t1", "bad-token"), ("t1",
    "down") (every request for the key fails: the harvest gives up)."""

    pages: dict
    faults: list[tuple[object, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    down: set = field(default_factory=set)

    def __enter__(self) -> FakeArxiv:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.requests.append(self.path)
                fake.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/oai"

    def key(self, path: str):
        query = parse_qs(urlsplit(path).query)
        if "start" in query:
            return int(query["start"][0])
        return query.get("resumptionToken", ["first"])[0]

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        key = self.key(handler.path)
        if key in self.down:
            return self.drop(handler, b"<?xml version='1.0'?><OAI-PMH>" + b"x" * 5000)
        for index, (on, fault) in enumerate(self.faults):
            if on == key:
                del self.faults[index]
                return self.fault(handler, key, fault)
        status, body = self.page(key)
        self.send(handler, status, body)

    def page(self, key) -> tuple[int, bytes]:
        value = self.pages.get(key)
        if value is None:
            return 404, b"not found"
        return value if isinstance(value, tuple) else (200, value)

    def fault(self, handler, key, fault: str) -> None:
        if fault == "503":
            body = b"<html><body>\n<h1>Retry after 10 seconds</h1>\n</body></html>\n"
            return self.send(handler, 503, body, {"Retry-After": "10"}, "text/html")
        if fault == "drop":
            return self.drop(handler, self.page(key)[1])
        if fault == "malformed":
            return self.send(handler, 200, self.page(key)[1][:-200])
        if fault == "bad-token":
            return self.send(handler, 200, realdata(BAD_TOKEN).read_bytes())
        if fault == "down":
            self.down.add(key)
            return self.drop(handler, self.page(key)[1])
        raise AssertionError(fault)

    @staticmethod
    def send(handler, status: int, body: bytes, headers=None, content_type="text/xml") -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    @staticmethod
    def drop(handler, body: bytes) -> None:
        """Headers promising the whole page, half of it, then the connection closed."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/xml")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[: len(body) // 2])
        handler.wfile.flush()
        handler.close_connection = True
        handler.connection.shutdown(2)
