"""The `local` provider: an embedded GGUF model run in-process by llama.cpp.

Tool calling is built on constrained decoding rather than llama.cpp's "auto" tool choice
(which small models follow unreliably): when tools are bound, the reply is forced by a
JSON-schema grammar into exactly one action, either `{"tool": NAME, "arguments": {...}}`
or `{"final_answer": TEXT}`, and that action becomes an AIMessage with `tool_calls` or
plain content. Tool results go back to the model as user turns, because the Qwen GGUF
chat template handles the tool role unreliably.
"""

from __future__ import annotations

import atexit
import os
import threading
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from codur.config.schema import LLMProfile
from codur.errors import ModelUnreachable
from codur.models.base import ErrorKind
from codur.models.local_actions import (
    LlamaRuntimeError,
    action_schema,
    parse_action,
    salvage_final_answer,
    to_llama_messages,
    tool_prompts,
)

_REMINDER_MARK = "--- reminder ---"
_MAX_REQUEST = 400  # characters of the user's request repeated after a tool result
_LLAMAS: dict[tuple[str, int, int], Any] = {}
_LOCK = threading.Lock()  # guards _LLAMAS
_GENERATE_LOCK = threading.Lock()  # a llama.cpp context runs one generation at a time


def load_llama(path: str, n_ctx: int, n_threads: int, seed: int) -> Any:
    """The process-wide llama.cpp model for (path, n_ctx, n_threads), loaded once."""
    key = (path, n_ctx, n_threads)
    with _LOCK:
        if key in _LLAMAS:
            return _LLAMAS[key]
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelUnreachable(
                "the embedded model needs the local extra: pip install 'codur[local]'"
            ) from None
        try:
            llama = Llama(
                model_path=path,
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelUnreachable(f"cannot load model {path}: {exc}") from exc
        if not _LLAMAS:
            atexit.register(close_all)
        _LLAMAS[key] = llama
        return llama


def close_all() -> None:
    """Free the loaded models while llama.cpp is still whole (its own finaliser fails when
    it runs during interpreter shutdown, after the library's globals are gone)."""
    with _LOCK:
        for llama in _LLAMAS.values():
            llama.close()
        _LLAMAS.clear()


class LocalChatModel(BaseChatModel):
    """A chat model running a GGUF file in-process; tool calls via constrained decoding."""

    model_name: str
    model_path: str
    n_ctx: int = 8192
    n_threads: int = 1
    temperature: float = 0.2
    max_tokens: int = 2048
    seed: int = 0

    @property
    def _llm_type(self) -> str:
        return "codur-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "model_path": self.model_path}

    @property
    def llama(self) -> Any:
        return load_llama(self.model_path, self.n_ctx, self.n_threads, self.seed)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        request: dict[str, Any] = {
            "temperature": self.temperature,
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "seed": self.seed,
            "stop": stop,
        }
        if tools and tool_choice != "none":
            forced = tool_choice not in (None, "auto", "none")
            if isinstance(tool_choice, str) and forced and tool_choice not in ("any", "required"):
                tools = [t for t in tools if t["function"]["name"] == tool_choice] or tools
            schema = action_schema(tools, allow_final=not forced)
            request["response_format"] = {"type": "json_object", "schema": schema}
            request["messages"] = to_llama_messages(messages, *tool_prompts(tools))
        else:
            request["messages"] = to_llama_messages(messages)
        llama = self.llama
        with _GENERATE_LOCK:
            try:
                out = llama.create_chat_completion(**request)
            except (RuntimeError, ValueError) as exc:
                raise LlamaRuntimeError(f"llama.cpp: {exc}") from exc
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        usage = out.get("usage") or {}
        meta: dict[str, Any] = {
            "model_name": self.model_name,
            "finish_reason": choice.get("finish_reason"),
        }
        message = self._reply(text, tools if "response_format" in request else None, meta)
        message.usage_metadata = {
            "input_tokens": int(usage.get("prompt_tokens", 0)),
            "output_tokens": int(usage.get("completion_tokens", 0)),
            "total_tokens": int(usage.get("total_tokens", 0)),
        }
        return ChatResult(generations=[ChatGeneration(message=message)])

    @staticmethod
    def _reply(text: str, tools: list[dict[str, Any]] | None, meta: dict[str, Any]) -> AIMessage:
        if not tools:
            return AIMessage(content=text, response_metadata=meta)
        try:
            action = parse_action(text, [t["function"]["name"] for t in tools])
        except ValueError as exc:
            meta["parse_error"] = f"reply is not a valid action ({exc})"
            return AIMessage(content=salvage_final_answer(text) or text, response_metadata=meta)
        if action.tool is None:
            return AIMessage(content=action.final_answer or "", response_metadata=meta)
        call = {"name": action.tool, "args": action.arguments, "id": f"call_{uuid.uuid4().hex}"}
        return AIMessage(
            content="", tool_calls=[{**call, "type": "tool_call"}], response_metadata=meta
        )


def model_path(profile: LLMProfile) -> str:
    if profile.model_file:
        return str(os.path.expanduser(profile.model_file))
    if not profile.weights:
        raise ModelUnreachable("provider 'local' needs `model_file: PATH` or `weights: KEY`")
    from codur.models.weights import ensure_weights

    return str(ensure_weights(profile.weights))


def build(name: str, profile: LLMProfile) -> LocalChatModel:
    path = model_path(profile)
    n_threads = profile.n_threads or os.cpu_count() or 1
    model = LocalChatModel(
        model_name=profile.model or os.path.basename(path),
        model_path=path,
        n_ctx=profile.n_ctx,
        n_threads=n_threads,
        temperature=profile.temperature,
        max_tokens=profile.max_tokens,
        seed=profile.seed,
    )
    _ = model.llama  # load now, so a bad file fails here as ModelUnreachable
    return model


def classify(exc: BaseException) -> ErrorKind | None:
    return "fatal" if isinstance(exc, LlamaRuntimeError) else None


def endpoint(profile: LLMProfile) -> str:
    return profile.model_file or f"packaged weights {profile.weights}"
