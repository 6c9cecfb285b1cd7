"""Ask mode's retrieval first, on a real three-file package (VAT rates, invoices, money):
a question the code index covers is answered with one model call; each part of a
multi-part question is answered part by part, each call with the evidence of every part; a
question the code has nothing on goes through the research loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli, scripted_profile, tool_calls, write_files
from test_ask import FINISH, ask_in_process, nodes

from codur.ask.parts import split_question
from codur.ask.tidy import (
    MAX_SOURCES,
    SOURCES_LEAD,
    model_cited,
    with_sources,
    without_repeats,
)

SHOP = {
    "shop/rates.py": '''"""VAT rates by country."""

STANDARD_RATES = {"DE": 0.19, "FR": 0.20, "NL": 0.21, "IE": 0.23}
REDUCED_RATES = {"DE": 0.07, "FR": 0.055, "NL": 0.09, "IE": 0.135}


def vat_rate(country: str, reduced: bool = False) -> float:
    """The VAT rate of a country (ISO code); 0 for a country outside the table."""
    table = REDUCED_RATES if reduced else STANDARD_RATES
    return table.get(country.upper(), 0.0)
''',
    "shop/invoice.py": '''"""Invoices: lines of goods sold to one customer."""

from dataclasses import dataclass, field

from shop.money import round_cents
from shop.rates import vat_rate


@dataclass
class Line:
    description: str
    quantity: int
    unit_price: float
    reduced: bool = False


@dataclass
class Invoice:
    customer: str
    country: str
    lines: list[Line] = field(default_factory=list)

    def add(self, line: Line) -> None:
        self.lines.append(line)

    def total(self) -> float:
        """Net amount of every line plus its VAT, rounded to cents."""
        gross = 0.0
        for line in self.lines:
            net = line.quantity * line.unit_price
            gross += net * (1 + vat_rate(self.country, line.reduced))
        return round_cents(gross)
''',
    "shop/money.py": '''"""Amounts of money."""

from decimal import ROUND_HALF_UP, Decimal


def round_cents(amount: float) -> float:
    """Round half up to whole cents."""
    return float(Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def format_amount(amount: float, currency: str = "EUR") -> str:
    return f"{amount:,.2f} {currency}"
''',
}

VAT = (
    "Where is the VAT rate for a country decided, and which function uses it to compute "
    "an invoice total?"
)
RATE_ANSWER = (
    "`vat_rate` looks it up in `STANDARD_RATES` or `REDUCED_RATES` (`shop/rates.py:7-10`)."
)
TOTAL_ANSWER = "`Invoice.total` adds each line's VAT (`shop/invoice.py:31`)."


def shop(root: Path) -> Path:
    root.mkdir()
    write_files(root, SHOP)
    return root


SEARCHED = "ask.max_retrieved_chars=1000"
"""Less than the package's 1.5 KB of code: it is searched (all of it would be shown)."""


def direct(root: Path, replies: list, question: str, searched: bool = True) -> tuple:
    flags = ["ask.direct_answer=true", *([SEARCHED] if searched else [])]
    return ask_in_process(root, replies, flags, question)


def test_a_project_this_small_is_the_evidence_itself(tmp_path: Path) -> None:
    """No search, no research loop: all of its files, whole, fit the answer's evidence (a
    question about a two-function project took five calls, 228 s, through the loop)."""
    answer = "Nothing in this package sends refunds; it only totals invoices."
    question = "How are refunds sent to the payment provider?"
    root = shop(tmp_path / "w")
    (root / "README.md").write_text("Invoices with VAT.\n")
    result, events = direct(root, [answer], question, searched=False)
    (route,) = [e.data for e in events if e.kind == "ask.route"]
    reason = "the project is small: all of its files are the evidence"
    assert route == {"route": "answer", "reason": reason}
    assert result.status == "done" and result.model_calls == 1 and result.answer == answer
    (request,) = [e.data["messages"] for e in events if e.kind == "model.request"]
    shown = request[0]["content"]
    assert 'shop/money.py\n   1 """Amounts of money."""' in shown
    assert "  31             gross += net * (1 + vat_rate(self.country, line.reduced))" in shown
    assert "README.md\n   1 Invoices with VAT." in shown
    assert {"shop/rates.py", "shop/invoice.py", "shop/money.py"} <= set(result.files_read)


def test_a_question_retrieval_covers_is_answered_with_one_model_call(tmp_path: Path) -> None:
    answer = "`vat_rate` picks the reduced or the standard table (`shop/rates.py:7-10`)."
    result, events = direct(
        shop(tmp_path / "w"), [answer], "Which table does vat_rate use for a reduced rate?"
    )
    assert result.status == "done" and result.model_calls == 1
    assert nodes(events) == ["retrieve", "synthesizer"]
    (route,) = [e.data for e in events if e.kind == "ask.route"]
    assert route == {"route": "answer", "reason": "retrieval is strong for every part"}
    (request,) = [e.data["messages"] for e in events if e.kind == "model.request"]
    assert "shop/rates.py:7-10 (function vat_rate)" in request[0]["content"]
    assert result.answer == answer
    assert [(c.path, c.line, c.exists) for c in result.citations] == [("shop/rates.py", 7, True)]


def test_each_part_of_the_vat_question_is_answered_in_its_own_call(
    tmp_path: Path,
) -> None:
    result, events = direct(shop(tmp_path / "w"), [RATE_ANSWER, TOTAL_ANSWER], VAT)
    retrieved = [e.data for e in events if e.kind == "ask.retrieve"]
    assert [e["query"] for e in retrieved] == [
        "Where is the VAT rate for a country decided",
        "which function uses it to compute an invoice total",
    ]
    assert retrieved[0]["hits"][0] == "shop/rates.py:7-10"
    assert retrieved[1]["hits"][0] == "shop/invoice.py:26-32"
    first, second = [e.data["messages"] for e in events if e.kind == "model.request"]
    one, two = first[0]["content"], second[0]["content"]
    assert 'This is part 1 of 2 of the question "Where is the VAT rate' in one
    assert 'This is part 2 of 2 of the question "Where is the VAT rate' in two
    for prompt in (one, two):  # the same evidence, before the question: a shared prefix
        part_one = prompt.index("### Code search for part 1: Where is the VAT rate")
        part_two = prompt.index("### Code search for part 2: which function uses it")
        rates = prompt.index("shop/rates.py:7-10 (function vat_rate)")
        total = prompt.index("shop/invoice.py:26-32 (method Invoice.total)")
        assert part_one < rates < part_two and part_one < total
        assert "- shop/invoice.py:31: shop.invoice.Invoice.total -> shop.rates.vat_rate" in prompt
    asked_at = one.index("Question: ")
    assert one[:asked_at] == two[:asked_at] and asked_at > len(one) // 2
    assert first[1]["content"] == "Where is the VAT rate for a country decided"
    assert second[1]["content"] == "which function uses it to compute an invoice total"
    assert result.status == "done" and result.model_calls == 2
    first_part, second_part = result.answer.split("\n\n### 2. ")
    assert first_part.startswith("### 1. Where is the VAT rate for a country decided\n\n")
    assert "`vat_rate` looks it up" in first_part and "Invoice.total" not in first_part
    assert second_part.startswith("which function uses it to compute an invoice total\n\n")
    assert "`Invoice.total`" in second_part and "adds each line's VAT" in second_part
    cited = {(c.path, c.line) for c in result.citations if c.exists}
    assert {("shop/rates.py", 7), ("shop/invoice.py", 31)} <= cited
    assert {"shop/rates.py", "shop/invoice.py"} <= set(result.files_read)


@pytest.mark.slow
def test_codur_ask_on_the_command_line_answers_each_part(tmp_path: Path) -> None:
    root = shop(tmp_path / "w")
    flags = scripted_profile(tmp_path, [RATE_ANSWER, TOTAL_ANSWER])
    done = run_cli(["ask", "--json", *flags, "-o", "log.enabled=false", "-o", SEARCHED, VAT], root)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [e["route"] for e in events if e["event"] == "ask.route"] == ["answer"]
    end = events[-1]
    assert end["event"] == "ask.end" and end["model_calls"] == 2
    assert all(c["exists"] for c in end["citations"])
    cited = {(c["path"], c["line"]) for c in end["citations"]}
    assert {("shop/rates.py", 7), ("shop/invoice.py", 31)} <= cited


def test_a_question_the_code_has_nothing_on_goes_through_the_research_loop(
    tmp_path: Path,
) -> None:
    search = tool_calls(("search_codebase", {"query": "refund payment provider"}))
    plan = json.dumps(["Search for refunds"])
    answer = "Nothing in this package sends refunds; it only totals invoices."
    replies = [plan, search, "no refunds found", FINISH, answer]
    result, events = direct(
        shop(tmp_path / "w"), replies, "How are refunds sent to the payment provider?"
    )
    (route,) = [e.data for e in events if e.kind == "ask.route"]
    assert route == {"route": "research", "reason": "retrieval is weak for part(s) 1"}
    assert result.status == "done" and result.model_calls == 5
    assert nodes(events)[1:5] == ["planner", "setup_executor", "executor_llm", "tool_node"]
    assert result.answer == answer


def test_a_weak_part_sends_a_multi_part_question_to_the_research_loop(tmp_path: Path) -> None:
    question = "Where is the VAT rate decided, and how are refunds sent to the payment provider?"
    plan = json.dumps(["Search for refunds"])
    replies = [plan, "no refunds found", FINISH, "`shop/rates.py:7`.", "No refunds here."]
    result, events = direct(shop(tmp_path / "w"), replies, question)
    coverage = [e.data["coverage"] for e in events if e.kind == "ask.retrieve"]
    assert coverage[0] > 0.5 and coverage[1] == 0.0
    assert [e.data["route"] for e in events if e.kind == "ask.route"] == ["research"]
    assert result.model_calls == 5
    *_, one, two = [e.data["messages"] for e in events if e.kind == "model.request"]
    assert "This is part 2 of 2" in two[0]["content"] and "no refunds found" in two[0]["content"]
    assert two[1]["content"] == "how are refunds sent to the payment provider"
    assert (
        "### 2. how are refunds sent to the payment provider\n\nNo refunds here." in result.answer
    )


def test_questions_split_into_parts_by_their_structure() -> None:
    assert split_question(VAT) == [
        "Where is the VAT rate for a country decided",
        "which function uses it to compute an invoice total",
    ]
    assert split_question("What is X? How is it used?") == ["What is X", "How is it used"]
    assert split_question("Where is the cache kept; and why?") == [
        "Where is the cache kept, and why"
    ]
    single = "How are numbers and strings highlighted in repr output?"
    assert split_question(single) == [single.rstrip("?")]
    many = "What is alpha? What is beta? Where is gamma? Why delta? Who calls epsilon?"
    assert split_question(many) == [
        "What is alpha", "What is beta", "Where is gamma", "Why delta, Who calls epsilon",
    ]  # fmt: skip


def test_a_part_that_asks_nothing_is_answered_with_the_question_before_it(
    tmp_path: Path,
) -> None:
    question = "What does vat_rate return for a reduced rate? Please keep it short."
    assert split_question(question) == [
        "What does vat_rate return for a reduced rate, Please keep it short."
    ]
    answer = "The reduced table's rate (`shop/rates.py:7-10`)."
    result, _ = direct(shop(tmp_path / "w"), [answer], question)
    assert result.model_calls == 1 and result.answer == answer


def test_an_answer_citing_no_location_says_where_the_search_found_code(tmp_path: Path) -> None:
    """The 1.5B model answered 2 of 25 questions on rich in prose with no `path:line`;
    the chunks retrieved for the question are listed under it, marked as the search's."""
    prose = "It looks the country up in a table of rates, reduced or standard."
    question = "Which table does vat_rate use for a reduced rate?"
    result, events = direct(shop(tmp_path / "w"), [prose], question)
    (hits,) = [e.data["hits"] for e in events if e.kind == "ask.retrieve"]
    listed = ", ".join(f"`{where}`" for where in hits[:MAX_SOURCES])
    assert result.answer == f"{prose}\n\n{SOURCES_LEAD} {listed}"
    assert hits[0] == "shop/rates.py:7-10"
    assert result.citations == [] and model_cited(result.answer) == prose  # not the answer's
    empty, _ = direct(shop(tmp_path / "e"), [""], question)  # no answer: nothing to point from
    assert SOURCES_LEAD not in empty.answer


def test_a_paragraph_written_again_is_shown_once(tmp_path: Path) -> None:
    loop = "vat_rate reads `REDUCED_RATES` (`shop/rates.py:9`) when asked for it."
    reply = f"The reduced table.\n\n{loop}\n\n{loop}\n\n{loop}\n\n{loop[:30]}"
    result, _ = direct(shop(tmp_path / "w"), [reply], "Which table does vat_rate use?")
    assert result.answer == f"The reduced table.\n\n{loop}"


def test_without_repeats_drops_loops_only() -> None:
    code = "```python\nx = 1\n\nx = 1\n```"
    text = f"One.\n\n{code}\n\n{code}\n\nTwo,\n  wrapped.\n\nTwo, wrapped.\n\nTw"
    assert without_repeats(text) == f"One.\n\n{code}\n\n{code}\n\nTwo,\n  wrapped."
    assert without_repeats("Alone, cut") == "Alone, cut"
    # said again further on, not back to back: a heading over each of two functions
    twice = "`f` (`a.py:1`)\n\n**Parameters:**\n\n- `x`: int\n\n`g` (`a.py:9`)\n\n"
    twice += "**Parameters:**\n\n- `x`: int"
    assert without_repeats(twice) == twice
    # a cycle of three paragraphs written three times, cut in its fourth (seen on rich)
    cycle = ["The `Box` class is defined in `box.py`.", "It has a `style`.", "And a border."]
    looped = "\n\n".join(["First (`box.py:10`).", *cycle * 3, "The `Box` class is"])
    assert without_repeats(looped) == "\n\n".join(["First (`box.py:10`).", *cycle])
    indented = "Call it:\n\n    f(1)\n\n    f(1)\n\nDone."
    assert without_repeats(indented) == indented
    assert with_sources("See `a.py:3`.", ["b.py:1-2"]) == "See `a.py:3`."
    assert with_sources("In `conf/app.yaml:12`.", ["b.py:1-2"]) == "In `conf/app.yaml:12`."
    assert with_sources("Prose.", []) == "Prose."
