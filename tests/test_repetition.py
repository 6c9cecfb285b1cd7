"""A reply caught in a loop stops (codur/models/repetition.py): the block finder on
token lists, and the real embedded model asked to write one line again and again."""

from __future__ import annotations

import pytest
from helpers import embedded_model_unavailable, embedded_profile
from langchain_core.messages import HumanMessage

from codur.models import local
from codur.models.repetition import MIN_PERIOD, period

BLOCK = list(range(100, 130))  # 30 tokens


def test_the_end_repeating_a_block_three_times_is_a_loop() -> None:
    start = list(range(7, 50))
    assert period(start + BLOCK * 3, 3) == 30
    assert period(start + BLOCK * 2, 3) == 0  # twice is not yet a loop
    assert period(start + BLOCK * 2, 2) == 30
    assert period(start + BLOCK * 3 + [1], 3) == 0  # the loop broke
    assert period(start + BLOCK * 3, 0) == 0  # repeat_stop 0: never
    line = list(range(200, 210))  # a 10-token line, over and over: blocks of 3 lines
    assert period(line * 10, 3) == 30
    assert period([0] * 3 * (MIN_PERIOD - 1), 3) == 0  # short repeats are ordinary code


@pytest.mark.embedded
def test_the_embedded_model_writing_one_line_over_and_over_is_stopped() -> None:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    model = local.build("local", embedded_profile(400))
    ask = "Write the line print('hello from the loop') 40 times, one per line, nothing else."
    reply = model.invoke([HumanMessage(ask)])
    assert reply.response_metadata["finish_reason"] == "length"  # cut, as at the cap
    assert reply.response_metadata["repeated"] >= MIN_PERIOD
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["output_tokens"] < 200  # the 40 lines are ~360 tokens
    assert reply.content.count("hello from the loop") >= 4


def test_the_model_response_event_keeps_the_block_a_looping_reply_repeated() -> None:
    from langchain_core.messages import AIMessage

    from codur.models.call_log import response_fields

    reply = AIMessage("x", response_metadata={"finish_reason": "length", "repeated": 30})
    fields = response_fields(reply, {"prompt_tokens": 1, "completion_tokens": 90}, 1.0)
    assert (fields["finish_reason"], fields["repeated"]) == ("length", 30)
    assert "repeated" not in response_fields(AIMessage("x"), {}, 1.0)
