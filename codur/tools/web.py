"""Web tools: fetch a page as readable text; search the web with ddgs (DuckDuckGo).

Both are bounded by `tools.web_timeout_s` in all: with no network they fail fast with a
clear message instead of hanging the run.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from typing import Any

from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.registry import TaskType, register_tool

NOISE = ["script", "style", "noscript", "template", "svg", "iframe", "nav", "footer", "aside"]
"""Elements dropped before converting a page to text."""


def html_to_text(html: str) -> tuple[str, str]:
    """(title, readable markdown-ish text) of an HTML page: its main content, no chrome."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(NOISE):
        tag.decompose()
    main = soup.find("main") or soup.find("article") or soup.body or soup
    converter = MarkdownConverter(
        heading_style="ATX",
        bullets="-",
        strip=["a", "img"],
        escape_underscores=False,
        escape_asterisks=False,
        escape_misc=False,
    )
    text = converter.convert_soup(main)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return title, re.sub(r"\n{3,}", "\n\n", text).strip()


def _download(ctx: ToolContext, url: str) -> tuple[str, bytes, str, bool]:
    """(content type, body, final URL, cut?) within the time and size limits."""
    import httpx

    limit, timeout = ctx.config.web_max_bytes, ctx.config.web_timeout_s
    deadline = time.monotonic() + timeout
    headers = {"User-Agent": "codur (coding agent)", "Accept": "text/html,text/*;q=0.9,*/*;q=0.5"}
    body = bytearray()
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True, headers=headers) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise ToolError(f"HTTP {response.status_code} {response.reason_phrase} for {url}")
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > limit or time.monotonic() > deadline:
                    break
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            return kind, bytes(body[:limit]), str(response.url), len(body) > limit
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise ToolError(f"could not fetch {url}: {exc} (is the network reachable?)") from None


@register_tool(TaskType.WEB)
def fetch_webpage(ctx: Ctx, url: str) -> str:
    """Fetch a web page and return its main content as readable text.

    Args:
        url: An http:// or https:// address.
    """
    if not re.match(r"^https?://[^/\s]+", url, re.IGNORECASE):
        raise ToolError(f"not a web address: {url!r} (only http:// and https:// are fetched)")
    kind, body, final_url, cut = _download(ctx, url)
    text = body.decode("utf-8", errors="replace")
    if kind in ("text/html", "application/xhtml+xml") or (not kind and "<html" in text[:2000]):
        title, text = html_to_text(text)
        text = f"# {title}\n\n{text}" if title else text
    elif not (kind.startswith("text/") or kind.endswith(("json", "xml", "javascript"))):
        raise ToolError(f"{url} is not a text page ({kind or 'unknown type'}, {len(body)} bytes)")
    note = f"\n\n[page cut at {ctx.config.web_max_bytes} bytes]" if cut else ""
    return f"{final_url}\n\n{text}{note}"


@register_tool(TaskType.WEB)
def duckduckgo_search(ctx: Ctx, query: str, max_results: int = 5) -> list[str]:
    """Search the web (DuckDuckGo via ddgs); returns titles, addresses and snippets.

    Args:
        query: What to search for.
        max_results: How many results to return.
    """
    if not query.strip():
        raise ToolError("the search query is empty")
    timeout = ctx.config.web_timeout_s
    answers: queue.Queue[tuple[bool, Any]] = queue.Queue()

    def search() -> None:
        from ddgs import DDGS

        try:
            found = DDGS(timeout=max(1, int(timeout))).text(
                query, max_results=max(1, max_results), backend=ctx.config.search_backend
            )
            answers.put((True, found))
        except Exception as exc:  # noqa: BLE001  handed to the caller, which reports it
            answers.put((False, exc))

    # a daemon thread: a search stuck in the network cannot keep Codur from exiting
    threading.Thread(target=search, name="codur-web-search", daemon=True).start()
    try:
        ok, found = answers.get(timeout=timeout)
    except queue.Empty:
        raise ToolError(f"web search got no answer within {timeout:g} s (no network?)") from None
    if not ok:
        raise ToolError(f"web search failed: {type(found).__name__}: {found} (no network?)")
    return [
        f"{r.get('title', '')} — {r.get('href', '')}\n  {r.get('body', '')}".rstrip()
        for r in found[:max_results]
    ]
