"""What a mutation makes of a source, told without building it (codur/repair/outcome.py):
random edits of repetitive text, checked against the new source built in full."""

from __future__ import annotations

import itertools
import random

from codur.repair.outcome import outcome
from codur.repair.source import Mutation, apply_mutations


def edit(start: int, end: int, text: str) -> Mutation:
    return Mutation("a.py", start, end, text, 1, 1, "test", "an edit")


def test_outcomes_are_equal_exactly_when_the_new_sources_are() -> None:
    rng = random.Random(7)
    for _ in range(300):
        source = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 12)))
        edits = []
        for _ in range(8):
            start = rng.randint(0, len(source))
            end = rng.randint(start, len(source))
            text = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 4)))
            edits.append(edit(start, end, text))
        for one, other in itertools.combinations(edits, 2):
            new, new_other = apply_mutations(source, [one]), apply_mutations(source, [other])
            assert (outcome(source, one) == outcome(source, other)) == (new == new_other)
        for one in edits:
            found = outcome(source, one)
            new = apply_mutations(source, [one])
            if found is None:
                assert new == source
            else:
                prefix, suffix, between = found
                assert source[:prefix] + between + source[len(source) - suffix :] == new != source


def test_a_change_of_one_character_in_a_long_source_is_told_by_that_character() -> None:
    source = "x = 1\n" * 20_000
    assert outcome(source, edit(4, 5, "2")) == (4, len(source) - 5, "2")
    assert outcome(source, edit(4, 5, "1")) is None
    assert outcome(source, edit(0, 6, "")) == (len(source) - 6, 0, "")  # as a deletion at the end
