"""A generated package with one big module, for the tests of finding the code in a big
repository: `ledger/` (four modules, `ledger/rates.py` about 1,500 lines) and a `tests/`
tree. `late_fee` in the big module charges a fee on the last day of the grace period
(`<` where `<=` is right), so `tests/test_statement.py::test_no_fee_within_grace` fails
by an assertion in the test (its traceback shows only the test); every other test passes.
"""

from __future__ import annotations

from pathlib import Path

KINDS = (
    "wire", "card", "cheque", "cash", "crypto", "voucher", "coupon", "refund", "transfer",
    "deposit", "payroll", "invoice", "escrow", "loan", "lease", "rent", "grant", "bond",
    "share", "option", "future", "swap", "forex", "gold", "silver", "fund", "pension", "tax",
)  # fmt: skip
TIERS = ("basic", "silver", "gold", "platinum", "corporate")

BUGGY = '''def late_fee(days, balance):
    """The fee for paying `days` late on `balance`: nothing within the grace period,
    then the daily rate on the balance for each day past it, never below the floor."""
    if days < GRACE_DAYS:
        return 0.0
    return round_cents(max(FEE_FLOOR, balance * DAILY_RATE * (days - GRACE_DAYS)))
'''
FIXED = BUGGY.replace("if days < GRACE_DAYS:", "if days <= GRACE_DAYS:")
FAILING = "tests/test_statement.py::test_no_fee_within_grace"


def _fee_function(kind: str, tier: str, n: int) -> str:
    return f'''def {kind}_{tier}_fee(amount, count=1):
    """The fee for {count_words(n)} {kind} payment(s) of `amount` on the {tier} tier:
    a fixed part per payment and a share of the amount, never below the floor."""
    fixed = {n % 7 + 1}.{n % 10}0 * count
    share = amount * {(n % 13 + 2) / 1000:.3f}
    total = fixed + share
    if total < FEE_FLOOR:
        total = FEE_FLOOR
    return round_cents(total)


'''


def count_words(n: int) -> str:
    return "one or more" if n % 2 else "any number of"


def rates_module() -> str:
    """`ledger/rates.py`: constants, a rate table class, 140 fee functions and
    `late_fee` in the middle of them."""
    head = '''"""Fees and rates for every kind of payment the ledger books."""

from __future__ import annotations

from ledger.money import round_cents

GRACE_DAYS = 10
"""Days after the due date on which no late fee is charged."""
DAILY_RATE = 0.001
FEE_FLOOR = 0.25


class RateTable:
    """Rates by tier, looked up by name."""

    def __init__(self, rates=None):
        self.rates = dict(rates or {})

    def rate(self, tier):
        return self.rates.get(tier, 0.0)

    def with_rate(self, tier, rate):
        table = RateTable(self.rates)
        table.rates[tier] = rate
        return table


'''
    parts = [head]
    n = 0
    for kind in KINDS:
        for tier in TIERS:
            parts.append(_fee_function(kind, tier, n))
            n += 1
            if n == len(KINDS) * len(TIERS) // 2:
                parts.append(BUGGY + "\n\n")
    return "".join(parts).rstrip("\n") + "\n"


MONEY = '''"""Money arithmetic."""


def round_cents(value):
    """`value` rounded to whole cents."""
    return round(value + 1e-9, 2)


def add_all(values):
    return round_cents(sum(values))
'''

STATEMENT = '''"""A customer's monthly statement."""

from ledger.money import add_all
from ledger.rates import late_fee


def statement_total(balance, days_late, charges=()):
    """What the statement asks for: the balance, its charges and any late fee."""
    return add_all([balance, *charges, late_fee(days_late, balance)])


def statement_lines(balance, days_late):
    fee = late_fee(days_late, balance)
    return [f"balance {balance:.2f}", f"late fee {fee:.2f}"]
'''

ACCOUNTS = '''"""Accounts: a name and a tier."""


class Account:
    def __init__(self, name, tier="basic"):
        self.name = name
        self.tier = tier

    def label(self):
        return f"{self.name} ({self.tier})"
'''

TEST_STATEMENT = """from ledger.statement import statement_lines, statement_total


def test_no_fee_within_grace():
    assert statement_total(100.0, 10) == 100.0


def test_fee_after_grace():
    assert statement_total(100.0, 15) == 100.5


def test_lines():
    assert statement_lines(100.0, 0) == ["balance 100.00", "late fee 0.00"]
"""

TEST_RATES = """from ledger.rates import RateTable, card_gold_fee, wire_basic_fee


def test_wire_fee_has_a_floor():
    assert wire_basic_fee(0.0) == 1.0


def test_card_fee():
    assert card_gold_fee(100.0, 2) > 0


def test_rate_table():
    assert RateTable({"gold": 0.1}).with_rate("basic", 0.2).rate("basic") == 0.2
"""


def files() -> dict[str, str]:
    """The package's files by path."""
    return {
        "ledger/__init__.py": '"""A small ledger."""\n',
        "ledger/money.py": MONEY,
        "ledger/rates.py": rates_module(),
        "ledger/statement.py": STATEMENT,
        "ledger/accounts.py": ACCOUNTS,
        "tests/__init__.py": "",
        "tests/test_statement.py": TEST_STATEMENT,
        "tests/test_rates.py": TEST_RATES,
    }


def write(root: Path) -> Path:
    """The package written into `root` (created); returns `root`."""
    for path, text in files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root
