"""The `local` provider: an embedded GGUF model run in-process by llama.cpp.

Tool calling is built on constrained decoding rather than llama.cpp's "auto" tool choice
(which small models follow unreliably): when tools are bound, the reply is forced by a
JSON-schema grammar into exactly one action, either `{"tool": NAME, "arguments": {...}}`
or `{"final_answer": TEXT}`, and that action becomes an AIMessage with `tool_calls` or
plain content. Tool results go back to the model as user turns, because the Qwen GGUF
chat template handles the tool role unreliably.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from codur.config.schema import LLMProfile
from codur.errors import ModelUnreachable
from codur.models.base import ErrorKind
from codur.models.cancel import current_cancel
from codur.models.local_actions import (
    LlamaRuntimeError,
    action_schema,
    parse_action,
    salvage_final_answer,
    to_llama_messages,
    tool_prompts,
)
from codur.models.local_llama import (
    close_all,
    draft_model,
    generating,
    load_llama,
    prompt_tokens,
)
from codur.models.local_prefix import MIN_GAIN, PrefixStore, store_folder
from codur.models.progress import CallProgress, current_progress
from codur.models.repetition import Repeating
from codur.promptbook import PromptBook

__all__ = ["LocalChatModel", "close_all", "load_llama"]


class LocalChatModel(BaseChatModel):
    """A chat model running a GGUF file in-process; tool calls via constrained decoding."""

    model_name: str
    model_path: str
    n_ctx: int = 8192
    n_threads: int = 1
    temperature: float = 0.2
    max_tokens: int = 2048
    seed: int = 0
    draft: str = "copy"
    """Speculative decoding: none, prompt_lookup or copy (LLMProfile.draft)."""
    draft_tokens: int = 15
    repeat_stop: int = 3
    """A reply ending in the same block this many times stops (LLMProfile.repeat_stop)."""
    prefix_cache_mb: int = 512
    """Disk space for saved prompt states (LLMProfile.prefix_cache_mb); 0: none."""
    prompts: PromptBook | None = None
    """The run's prompts (the tool protocol is worded by them); None: the shipped ones."""

    @property
    def _llm_type(self) -> str:
        return "codur-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "model_path": self.model_path}

    @property
    def book(self) -> PromptBook:
        return self.prompts if self.prompts is not None else PromptBook()

    @property
    def llama(self) -> Any:
        return load_llama(self.model_path, self.n_ctx, self.n_threads, self.seed)

    @property
    def prefix_store(self) -> PrefixStore | None:
        if self.prefix_cache_mb <= 0:
            return None
        folder = store_folder(self.model_path, self.n_ctx)
        return PrefixStore(folder, self.prefix_cache_mb * 1024 * 1024)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def count_tokens(self, messages: Sequence[BaseMessage], tools: Sequence[Any] = ()) -> int:
        """Prompt tokens of a call with `messages` (and `tools` bound): exact, by the
        model's own chat template and tokenizer."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        request = chat_request(messages, formatted or None, None, self.book)
        return len(prompt_tokens(self.llama, request["messages"]))

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
            **chat_request(messages, tools, tool_choice, self.book),
        }
        llama = self.llama
        asked = time.perf_counter()
        # a reply under a tool call's JSON grammar is short and copies little: no draft
        draft = draft_model(self.draft, self.draft_tokens) if not tools else None
        progress = current_progress()
        on_decode = _reporter(progress) if progress is not None else None
        # the run cancelled, llama.cpp stops before its next decode and Cancelled propagates
        store, kept = self.prefix_store, {}
        with generating(llama, current_cancel(), draft, on_decode, self.repeat_stop):
            if store is not None:
                kept = keep_prefix(store, llama, request["messages"], before=True)
            try:
                out = llama.create_chat_completion(**request)
            except (RuntimeError, ValueError) as exc:
                raise LlamaRuntimeError(f"llama.cpp: {exc}") from exc
            except Repeating as loop:  # read as a reply cut at its cap
                out = _cut(llama, loop)
            if store is not None and llama.decoding.prompt_todo >= MIN_GAIN:
                kept |= keep_prefix(store, llama, request["messages"], before=False)
            # the prompt's tokens in the KV cache before its first decode were not evaluated
            cached = llama.decoding.cached or 0
            timings = {"wait_s": round(llama.decoding.started - asked, 3)}
            timings.update(llama.decoding.timings())
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        usage = out.get("usage") or {}
        meta: dict[str, Any] = {
            "model_name": self.model_name,
            "finish_reason": choice.get("finish_reason"),
            "timings": timings,
            **kept,
            **({"repeated": out["repeated"]} if "repeated" in out else {}),
        }
        message = self._reply(text, tools if "response_format" in request else None, meta)
        prompt = int(usage.get("prompt_tokens", 0))
        message.usage_metadata = {
            "input_tokens": prompt,
            "output_tokens": int(usage.get("completion_tokens", 0)),
            "total_tokens": int(usage.get("total_tokens", 0)),
            "input_token_details": {"cache_read": cached},
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


def keep_prefix(
    store: PrefixStore, llama: Any, messages: list[dict[str, Any]], before: bool
) -> dict[str, Any]:
    """Before a call, load the saved state sharing the most of its prompt; after it, save
    the state. The call goes on either way: what failed is said in the reply's metadata
    (`prefix_cache_error`), and what was loaded too (`prefix_restored`, tokens)."""
    try:
        if before:
            restored = store.restore(llama, prompt_tokens(llama, messages))
            return {"prefix_restored": restored} if restored else {}
        store.save(llama)
    except OSError as exc:  # a full disk or an unreadable entry costs time, not the call
        return {"prefix_cache_error": str(exc)}
    return {}


def _reporter(progress: CallProgress) -> Callable[[Any], None]:
    """What reports a generation's decodes to `progress`: the prompt tokens evaluated,
    then the reply's confirmed tokens and their text."""

    def report(llama: Any) -> None:
        record = llama.decoding
        if llama.n_tokens <= record.prompt:
            done = llama.n_tokens - (record.cached or 0)
            progress.prompt(done, record.prompt_todo)
            return
        reply = llama.input_ids[record.prompt : record.confirmed].tolist()
        text = lambda: llama.detokenize(reply).decode("utf-8", errors="ignore")  # noqa: E731
        progress.reply(len(reply), text)

    return report


def chat_request(
    messages: Sequence[BaseMessage],
    tools: list[dict[str, Any]] | None,
    tool_choice: Any,
    book: PromptBook,
) -> dict[str, Any]:
    """The `messages` (and, with tools, the `response_format`) of a llama.cpp chat call:
    with tools bound the reply is constrained to one action and the tools are described
    in the system message."""
    if not tools or tool_choice == "none":
        return {"messages": to_llama_messages(messages)}
    forced = tool_choice not in (None, "auto", "none")
    if isinstance(tool_choice, str) and forced and tool_choice not in ("any", "required"):
        tools = [t for t in tools if t["function"]["name"] == tool_choice] or tools
    schema = action_schema(tools, allow_final=not forced)
    return {
        "response_format": {"type": "json_object", "schema": schema},
        "messages": to_llama_messages(messages, *tool_prompts(tools, messages, book)),
    }


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
        draft=profile.draft,
        draft_tokens=profile.draft_tokens,
        repeat_stop=profile.repeat_stop,
        prefix_cache_mb=profile.prefix_cache_mb,
    )
    _ = model.llama  # load now, so a bad file fails here as ModelUnreachable
    return model


def classify(exc: BaseException) -> ErrorKind | None:
    return "fatal" if isinstance(exc, LlamaRuntimeError) else None


def endpoint(profile: LLMProfile) -> str:
    return profile.model_file or f"packaged weights {profile.weights}"


def context_window(profile: LLMProfile) -> int | None:
    return profile.n_ctx


def count_tokens(
    model: Callable[[], Any], messages: Sequence[BaseMessage], tools: Sequence[Any]
) -> int:
    return int(model().count_tokens(messages, tools))


def _cut(llama: Any, loop: Repeating) -> dict[str, Any]:
    """A completion as llama-cpp-python gives one, for a reply stopped in a loop: its
    text so far, finish reason "length" (it did not end by itself)."""
    text = llama.detokenize(loop.tokens).decode("utf-8", errors="replace")
    prompt = llama.decoding.prompt
    usage = {"prompt_tokens": prompt, "completion_tokens": len(loop.tokens)}
    usage["total_tokens"] = prompt + len(loop.tokens)
    choice = {"message": {"role": "assistant", "content": text}, "finish_reason": "length"}
    return {"choices": [choice], "usage": usage, "repeated": loop.period}
