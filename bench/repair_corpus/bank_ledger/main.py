class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError(f"invalid deposit: {amount}")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(f"{self.owner} cannot withdraw {amount}")
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def total(self, kind):
        return sum(amount for k, amount in self.history if k == kind)


def apply_ledger(accounts, ledger):
    errors = 0
    for name, action, amount in ledger:
        account = accounts.get(name)
        if account is None:
            print(f"unknown account: {name}")
            errors += 1
            continue
        try:
            if action == "deposit":
                account.deposit(amount)
            else:
                account.withdraw(amount)
        except InsufficientFunds as exc:
            print(f"rejected: {exc}")
            errors += 1
        except ValueError as exc:
            print(f"error: {exc}")
            errors += 1
    return errors


accounts = {"alice": Account("alice", 100), "bob": Account("bob", 20)}
ledger = [
    ("alice", "deposit", 50),
    ("bob", "withdraw", 30),
    ("alice", "withdraw", 120),
    ("carol", "deposit", 10),
    ("bob", "deposit", 0),
    ("bob", "deposit", 45),
    ("alice", "withdraw", 31),
    ("bob", "withdraw", 65),
]
failed = apply_ledger(accounts, ledger)
for name in sorted(accounts):
    acc = accounts[name]
    dep, wd = acc.total("deposit"), acc.total("withdraw")
    print(f"{name}: balance={acc.balance} deposits={dep} withdrawals={wd} ops={len(acc.history)}")
print(f"failed operations: {failed} of {len(ledger)}")
