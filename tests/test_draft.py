"""The copy draft: what followed the longest latest earlier match of the context's end."""

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("llama_cpp")

from codur.models.draft import CopyDraft, follow  # noqa: E402


def ids(*tokens: int) -> "np.ndarray":
    return np.array(tokens, dtype=np.intc)


def test_follows_the_longest_match_not_the_first():
    # "1 2 3" stands at 0 and at 6; the context ends "9 2 3": only the occurrence at 6
    # ... is preceded by 9, so it is the longest (3 tokens) and its follower is 7 8.
    context = ids(1, 2, 3, 4, 5, 0, 9, 2, 3, 7, 8, 0, 9, 2, 3)
    assert follow(context, 2, 3, 16).tolist() == [7, 8]


def test_of_equally_long_matches_the_latest():
    context = ids(5, 6, 7, 1, 0, 5, 6, 7, 2, 0, 5, 6, 7)
    assert follow(context, 1, 3, 16).tolist() == [2]


def test_no_draft_when_the_match_is_short():
    context = ids(1, 2, 3, 4, 9, 3, 4)  # the end matches 2 tokens only
    assert follow(context, 5, 3, 16).size == 0
    assert follow(context, 5, 2, 16).tolist() == [9, 3, 4]


def test_the_draft_stops_at_the_context_end_and_at_its_size():
    context = ids(1, 2, 3, 4, 5, 6, 1, 2, 3)
    assert follow(context, 2, 3, 16).tolist() == [4, 5]
    assert follow(context, 10, 3, 16).tolist() == [4, 5, 6, 1, 2, 3]


def test_a_short_context_drafts_nothing():
    assert follow(ids(1, 2), 4, 3, 16).size == 0


def test_the_draft_model_returns_llama_tokens():
    draft = CopyDraft(3)(ids(1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6))
    assert draft.dtype == np.intc and draft.tolist() == [7, 1, 2]


def test_the_draft_model_drafts_from_six_matching_tokens():
    # a wrong draft costs a batch of tokens: a chance match of prose (3-5 tokens) drafts
    # nothing, a copy under way (6 or more) does
    assert CopyDraft(3)(ids(1, 2, 3, 4, 5, 9, 8, 0, 1, 2, 3, 4, 5)).size == 0
    assert CopyDraft(3)(ids(1, 2, 3, 4, 5, 6, 9, 8, 0, 1, 2, 3, 4, 5, 6)).tolist() == [9, 8, 0]


def test_the_profile_names_the_draft_model():
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from codur.config.schema import LLMProfile
    from codur.models.local_llama import draft_model

    assert LLMProfile(provider="local", draft="copy").draft == "copy"
    assert isinstance(draft_model("copy", 4), CopyDraft)
    assert isinstance(draft_model("prompt_lookup", 4), LlamaPromptLookupDecoding)
    assert draft_model("none", 4) is None
