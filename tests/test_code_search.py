"""Code search on real files: AST chunks with path:line ranges, BM25 and fused rankings,
the index on disk (incremental by hash, .gitignore and secrets honoured, progress
events) and the static call graph, through the registry's tools."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import watched_context, write_files

from codur.search.calls import python_calls
from codur.search.chunks import MAX_CHUNK_CHARS, python_chunks
from codur.search.index import INDEX_FILE, CodeIndex
from codur.search.rank import fuse, tokens
from codur.tools.registry import invoke

LOADER = '''"""Load layered configuration files."""

import json

from cfg.layers import Layer


def merge(base: dict, override: dict) -> dict:
    """Later layers win: values of `override` replace those of `base`."""
    out = dict(base)
    out.update(override)
    return out


class Loader:
    def __init__(self, paths):
        self.paths = paths

    def load(self) -> dict:
        result = {}
        for path in self.paths:
            result = merge(result, self.read(path))
        return result

    def read(self, path):
        with open(path) as fh:
            return json.load(fh)
'''
FILES = {
    "cfg/__init__.py": '"""Configuration package."""\n',
    "cfg/loader.py": LOADER,
    "cfg/layers.py": "class Layer:\n    name = 'default'\n",
    "app.py": "from cfg.loader import Loader\nfrom cfg import loader as ld\n\n\n"
    "def main():\n    print(Loader(['a.json']).load())\n    return ld.merge({}, {})\n",
    "render/tables.py": "def draw_table(rows):\n    '''Draw rows as an ASCII table.'''\n"
    "    return '\\n'.join(' | '.join(r) for r in rows)\n",
    "build/generated.py": "def merge_generated():\n    pass\n",
    ".gitignore": "build/\n",
    ".env": "SECRET_MERGE_TOKEN=abc\n",
    "id_rsa.py": "def merge_private_key():\n    pass\n",
}


def repo(root: Path) -> Path:
    root.mkdir()
    write_files(root, FILES)
    return root


def test_chunks_cover_module_head_functions_classes_and_methods() -> None:
    chunks = {c.name: c for c in python_chunks("cfg/loader.py", LOADER)}
    assert set(chunks) == {
        "cfg.loader", "merge", "Loader", "Loader.__init__", "Loader.load", "Loader.read",
    }  # fmt: skip
    assert (chunks["cfg.loader"].start, chunks["cfg.loader"].end) == (1, 5)  # blank lines aside
    assert chunks["merge"].where == "cfg/loader.py:8-12"
    assert chunks["Loader.load"].where == "cfg/loader.py:19-23"
    assert chunks["Loader.load"].text.startswith("    def load(self)")
    assert python_chunks("bad.py", "def (:\n")[0].kind == "module"  # unparsable: one chunk


def test_chunks_hold_statements_after_the_first_definition() -> None:
    # rich's box.py: a class, then 290 lines of `NAME: Box = Box(...)` constants, then a
    # demo under `if __name__`; before, no chunk held the constants, so no search found them
    styles = "".join(f'S_{n}: Box = Box("{n}" * 30)\n' for n in range(300))
    source = f"class Box:\n    def __init__(self, s):\n        self.s = s\n\n\n# styles\n{styles}\n"
    source += 'if __name__ == "__main__":\n    print(S_0)\n'
    chunks = python_chunks("box.py", source)
    lines = source.splitlines()
    held = {n for c in chunks for n in range(c.start, c.end + 1)}
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= held  # every line of code
    module = [c for c in chunks if c.kind == "module"]
    assert len(module) > 2  # the constants are cut between statements
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in module)
    assert all(c.name == "box" for c in module)
    assert any("S_299: Box" in c.text for c in module) and "__main__" in module[-1].text
    assert sorted(c.start for c in chunks) == [c.start for c in chunks]  # in file order


def test_chunks_hold_comments_and_cut_long_runs_with_what_leads_them() -> None:
    """A reviewer's cases: a head of comments alone, a file of comments, a comment between
    a definition and the statements after it, two statements on one long line, and a
    head whose 3.4 KB of licence pushed the constants after it out of the chunk's text."""
    cases = {
        "# Box styles\n# licence\n\ndef f():\n    pass\n": [("module", 1, 2), ("function", 4, 5)],
        "# only comments\n": [("module", 1, 1)],
        "def f():\n    pass\n\n# constants\n\nA = 1\n": [("function", 1, 2), ("module", 4, 6)],
        "a = '" + "x" * 4100 + "'; b = 2\ndef f(): pass\n": [("module", 1, 1), ("function", 2, 2)],
        "\n\n": [],
    }
    for source, spans in cases.items():
        assert [(c.kind, c.start, c.end) for c in python_chunks("m.py", source)] == spans
    licence = "".join(f"# {'licence text ' * 5}{n}\n" for n in range(50))  # ~3.4 KB
    consts = "".join(f"CONST_{n} = '{'v' * 280}'\n" for n in range(10))
    chunks = python_chunks("m.py", licence + consts)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert all(any(f"CONST_{n} =" in c.text for c in chunks) for n in range(10))
    assert chunks[0].start == 1 and [c.end + 1 for c in chunks[:-1]] == [
        c.start for c in chunks[1:]
    ]


def test_tokens_split_identifiers() -> None:
    assert tokens("loadConfig merge_layers the") == [
        "loadconfig", "load", "config", "merge_layers", "merge", "layers",
    ]  # fmt: skip


def test_reciprocal_rank_fusion() -> None:
    assert fuse([[1, 2, 3], [3, 1]]) == [1, 3, 2]
    assert fuse([[], [5]]) == [5]


def test_search_codebase_ranks_the_right_chunk_and_skips_ignored_and_secret_files(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path / "w")
    ctx, events = watched_context(root)
    result = invoke("search_codebase", {"query": "merge base with override", "n_results": 3}, ctx)
    assert result.ok, result.output
    assert result.value.hits[0].chunk.where == "cfg/loader.py:8-12"
    assert result.output.startswith("1. cfg/loader.py:8-12 (function merge)")
    indexed = set(ctx.code_index.files)
    assert indexed == {
        "cfg/__init__.py",
        "cfg/loader.py",
        "cfg/layers.py",
        "app.py",
        "render/tables.py",
    }  # fmt: skip  (no build/, no id_rsa*, no .env)
    progress = [e.data for e in events if e.kind == "index.progress"]
    last = progress[-1]  # no embedding stage: BM25 alone by default
    assert (last["stage"], last["done"], last["total"]) == ("parse", 5, 5)
    saved = json.loads((root / ".codur/index" / INDEX_FILE).read_text())
    assert set(saved["files"]) == indexed
    assert "merge_private_key" not in (root / ".codur/index" / INDEX_FILE).read_text()
    table = invoke("search_codebase", {"query": "ascii table rows"}, ctx)
    assert table.value.hits[0].chunk.name == "draw_table"


def test_the_index_updates_by_file_hash(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    folder = root / ".codur/index"
    files = [(rel, root / rel) for rel in ("cfg/loader.py", "app.py")]
    index = CodeIndex.load(folder)
    assert index.update(files).parsed == 2
    index.save()
    again = CodeIndex.load(folder)
    assert (again.update(files).parsed, len(again.chunks)) == (0, len(index.chunks))
    (root / "app.py").write_text((root / "app.py").read_text())  # new mtime, same bytes
    assert again.update(files).parsed == 0
    (root / "app.py").write_text("def main():\n    return 2\n")
    stats = again.update(files)
    assert (stats.parsed, stats.removed) == (1, 0)
    assert again.update(files[:1]).removed == 1
    assert [h.chunk.path for h in again.search("later layers win override")][:1] == [
        "cfg/loader.py"
    ]


def test_call_graph_resolves_imports_and_methods(tmp_path: Path) -> None:
    defs, calls = python_calls("cfg/loader.py", LOADER)
    assert [d.qualname for d in defs][:2] == ["cfg.loader.merge", "cfg.loader.Loader"]
    pairs = {(c.caller, c.callee) for c in calls}
    assert ("cfg.loader.Loader.load", "cfg.loader.merge") in pairs
    assert ("cfg.loader.Loader.load", "cfg.loader.Loader.read") in pairs  # self.read
    assert ("cfg.loader.Loader.read", "json.load") in pairs

    root = repo(tmp_path / "w")
    ctx, _ = watched_context(root)
    callers = invoke("get_callers", {"name": "merge"}, ctx)
    found = {(c.path, c.line, c.caller) for c in callers.value.calls}
    assert found == {("cfg/loader.py", 22, "cfg.loader.Loader.load"), ("app.py", 7, "app.main")}
    assert "merge is defined as cfg.loader.merge at cfg/loader.py:8" in callers.output
    load = invoke("get_callers", {"name": "Loader.load"}, ctx)
    assert ("app.py", 6) in {(c.path, c.line) for c in load.value.calls}  # `*.load`
    callees = invoke("get_callees", {"name": "Loader.load"}, ctx)
    assert {c.callee for c in callees.value.calls} == {"cfg.loader.merge", "cfg.loader.Loader.read"}
    assert "cfg/loader.py:22: cfg.loader.Loader.load -> cfg.loader.merge" in callees.output
    assert "no definition found" in invoke("get_callees", {"name": "nope"}, ctx).output


def test_a_fifo_named_like_a_source_file_is_skipped_not_waited_on(tmp_path: Path) -> None:
    from codur.search.index import CodeIndex

    (tmp_path / "a.py").write_text("def real():\n    return 1\n")
    os.mkfifo(tmp_path / "evil.py")
    index = CodeIndex.load(None)
    index.update([("a.py", tmp_path / "a.py"), ("evil.py", tmp_path / "evil.py")])
    assert "a.py" in index.files and "evil.py" not in index.files


STYLES = "STYLES = {\n" + "".join(f'    "tag.n{n}": Style(bold=True),\n' for n in range(40))
STYLES += '    "repr.number": Style(color="cyan"),\n' + '    "tail": Style(),\n' * 5 + "}\n"


def test_a_long_chunk_is_shown_by_the_lines_the_query_matches(tmp_path: Path) -> None:
    """A 47-line table whose asked-about entry is line 42: shown by its first lines, the
    entry never reached the model; the result shows the table's head, says what is left
    out and from which line, and the lines around the entry."""
    write_files(tmp_path, {"styles.py": STYLES})
    ctx, _ = watched_context(tmp_path)
    text = invoke("search_codebase", {"query": "style of numbers in repr"}, ctx).output
    assert '"repr.number": Style(color="cyan")' in text, text
    assert "STYLES = {" in text and "lines left out; from line 39:" in text, text
    assert len(text.splitlines()) <= 2 + 12 + 1  # the result's line, 12 lines, the markers
    # no word of the query further down: the chunk's first lines, as before
    first = invoke("search_codebase", {"query": "STYLES tag"}, ctx).output
    assert '"tag.n0"' in first and "repr.number" not in first and "left out" not in first
