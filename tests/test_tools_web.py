"""Web tools against real local servers on 127.0.0.1: pages, errors, floods and stalls."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codur.config.schema import ToolsConfig

ARTICLE = """<!doctype html><html><head><title>Pathlib notes</title>
<style>body { color: red }</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/x">Menu item</a></nav>
<main><h1>Using pathlib</h1><p>Paths are <b>objects</b>, see
<a href="https://docs.python.org">the docs</a>.</p>
<ul><li>Path.read_text</li><li>Path.write_text</li></ul>
<pre><code>p = Path("a") / "b"</code></pre></main>
<footer>Copyright footer</footer></body></html>"""

PAGES: dict[str, tuple[int, str, bytes]] = {
    "/article.html": (200, "text/html; charset=utf-8", ARTICLE.encode()),
    "/plain.txt": (200, "text/plain", "just text, café\n".encode()),
    "/data.json": (200, "application/json", b'{"ok": true}'),
    "/image.png": (200, "image/png", b"\x89PNG\r\n\x1a\n\x00\x00"),
    "/big.html": (
        200,
        "text/html",
        b"<html><body><p>" + b"word " * 400_000 + b"</p></body></html>",
    ),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/article.html")
            self.end_headers()
            return
        if self.path == "/stall":  # headers, then nothing for longer than any timeout
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body>start")
            self.wfile.flush()
            self.server.release.wait(30)  # type: ignore[attr-defined]
            return
        status, kind, body = PAGES.get(self.path, (404, "text/plain", b"not found"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read results, not access logs."""


@pytest.fixture
def site() -> Iterator[str]:
    """The base URL of a page server on 127.0.0.1 (a free port)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.release = threading.Event()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.release.set()  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


def test_fetch_html_as_readable_text(call, site) -> None:
    result = call("fetch_webpage", url=f"{site}/article.html")
    assert result.ok
    text = result.output
    assert text.startswith(f"{site}/article.html\n\n# Pathlib notes\n\n# Using pathlib")
    assert "Paths are **objects**, see\nthe docs." in text
    assert "- Path.read_text\n- Path.write_text" in text and 'p = Path("a") / "b"' in text
    for noise in ("tracking", "color: red", "Menu item", "Copyright footer", "<"):
        assert noise not in text


def test_fetch_other_text_types_and_redirects(call, site) -> None:
    assert call("fetch_webpage", url=f"{site}/plain.txt").output.endswith("just text, café\n")
    assert call("fetch_webpage", url=f"{site}/data.json").output.endswith('{"ok": true}')
    redirected = call("fetch_webpage", url=f"{site}/redirect").output
    assert redirected.startswith(f"{site}/article.html\n")


def test_fetch_bad_inputs(call, site) -> None:
    missing = call("fetch_webpage", url=f"{site}/missing")
    assert not missing.ok and "HTTP 404 Not Found" in missing.output
    image = call("fetch_webpage", url=f"{site}/image.png")
    assert not image.ok and "not a text page (image/png" in image.output
    for url in ("file:///etc/passwd", "ftp://example.com/x", "example.com"):
        assert "only http:// and https://" in call("fetch_webpage", url=url).output


def test_fetch_is_bounded_in_size_and_time(call, tool_ctx, site) -> None:
    tool_ctx.config = ToolsConfig(web_max_bytes=50_000, max_result_chars=100_000)
    big = call("fetch_webpage", url=f"{site}/big.html")
    assert big.ok and big.output.endswith("[page cut at 50000 bytes]")
    tool_ctx.config = ToolsConfig(web_timeout_s=1)
    start = time.monotonic()
    stalled = call("fetch_webpage", url=f"{site}/stall")
    assert not stalled.ok and "did not answer within 1 s" in stalled.output
    assert time.monotonic() - start < 5


def test_fetch_refused_connection_fails_fast(call) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = call("fetch_webpage", url=f"http://127.0.0.1:{port}/")
    assert not result.ok and "could not fetch" in result.output and result.duration_s < 5


def test_search_without_network_fails_fast_and_clearly(call, tool_ctx, monkeypatch) -> None:
    with socket.socket() as sock:  # a proxy address nobody listens on: no network at all
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("DDGS_PROXY", f"http://127.0.0.1:{port}")
    tool_ctx.config = ToolsConfig(web_timeout_s=3)
    result = call("duckduckgo_search", query="python pathlib")
    assert not result.ok and "web search" in result.output and "no network?" in result.output
    assert result.duration_s < 5
    assert "query is empty" in call("duckduckgo_search", query=" ").output


def test_search_that_hangs_is_cut_at_the_timeout(call, tool_ctx, monkeypatch) -> None:
    listener = socket.socket()  # accepts connections and never answers
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    monkeypatch.setenv("DDGS_PROXY", f"http://127.0.0.1:{listener.getsockname()[1]}")
    tool_ctx.config = ToolsConfig(web_timeout_s=1)
    try:
        start = time.monotonic()
        result = call("duckduckgo_search", query="python pathlib")
        assert not result.ok and "no network?" in result.output
        assert time.monotonic() - start < 4
    finally:
        listener.close()
