"""A reply caught in a loop stops (codur/models/repetition.py): the block finder on
token lists, and the real embedded model asked to write one line again and again."""

from __future__ import annotations

import pytest
from helpers import embedded_model_unavailable, embedded_profile
from langchain_core.messages import HumanMessage

from codur.models import local
from codur.models.repetition import MIN_PERIOD, MIN_SPAN, period

BLOCK = list(range(100, 200))  # 100 tokens


def test_the_end_repeating_a_block_three_times_is_a_loop() -> None:
    start = list(range(7, 50))
    assert period(start + BLOCK * 3, 3) == 100
    assert period(start + BLOCK * 2, 3) == 0  # twice is not yet a loop
    assert period(start + BLOCK * 3 + [1], 3) == 0  # the loop broke
    assert period(start + BLOCK * 3, 0) == 0  # repeat_stop 0: never
    long = list(range(300, 430))  # twice 130 tokens: past MIN_SPAN
    assert period(start + long * 2, 2) == 130 and period(start + BLOCK * 2, 2) == 0
    line = list(range(200, 210))  # a 10-token line over and over: blocks of 9 lines
    assert period(line * 30, 3) == 90
    # rows repeated in ordinary code (an 8x8 board of zeros is 209 tokens) are no loop
    assert period([0] * (MIN_SPAN - 1), 3) == 0 and period([0] * 300, 3) > 0


@pytest.mark.embedded
def test_the_embedded_model_writing_one_line_over_and_over_is_stopped() -> None:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    model = local.build("local", embedded_profile(900))
    sentence = "The quick brown fox jumps over the lazy dog."
    ask = f"Write the sentence '{sentence}' 60 times in plain text, each on its own line. No code."
    for _ in range(2):  # the second time, the prompt is in the KV cache already
        reply = model.invoke([HumanMessage(ask)])
        assert reply.response_metadata["finish_reason"] == "length"  # cut, as at the cap
        assert reply.response_metadata["repeated"] >= MIN_PERIOD
        assert reply.usage_metadata is not None
        assert reply.usage_metadata["output_tokens"] < 400  # the 60 lines are ~660 tokens
        assert reply.content.count(sentence) >= 10
        assert "<|im_start|>" not in reply.content  # the reply, not the prompt with it


def test_the_model_response_event_keeps_the_block_a_looping_reply_repeated() -> None:
    from langchain_core.messages import AIMessage

    from codur.models.call_log import response_fields

    reply = AIMessage("x", response_metadata={"finish_reason": "length", "repeated": 30})
    fields = response_fields(reply, {"prompt_tokens": 1, "completion_tokens": 90}, 1.0)
    assert (fields["finish_reason"], fields["repeated"]) == ("length", 30)
    assert "repeated" not in response_fields(AIMessage("x"), {}, 1.0)
