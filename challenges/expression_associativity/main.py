"""A small calculator: tokenize, convert to postfix (shunting-yard), evaluate.

Numbers are exact fractions. Operators: + - * / ^ and parentheses; ^ binds
tightest and is right-associative, the others are left-associative.
"""

from fractions import Fraction

PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}
RIGHT_ASSOC = {"^"}


class CalcError(Exception):
    pass


def tokenize(text):
    tokens = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            tokens.append(int(text[i:j]))
            i = j
        elif ch in PREC or ch in "()":
            tokens.append(ch)
            i += 1
        else:
            raise CalcError(f"unexpected character {ch!r} at {i}")
    return tokens


def should_pop(top, op):
    """Must operator `top` on the stack be output before pushing `op`?"""
    if top == "(":
        return False
    if op in RIGHT_ASSOC:
        return PREC[top] > PREC[op]
    return PREC[top] > PREC[op]


def to_postfix(tokens):
    output = []
    stack = []
    for tok in tokens:
        if isinstance(tok, int):
            output.append(tok)
        elif tok == "(":
            stack.append(tok)
        elif tok == ")":
            while stack and stack[-1] != "(":
                output.append(stack.pop())
            if not stack:
                raise CalcError("unbalanced )")
            stack.pop()
        else:
            while stack and should_pop(stack[-1], tok):
                output.append(stack.pop())
            stack.append(tok)
    while stack:
        op = stack.pop()
        if op == "(":
            raise CalcError("unbalanced (")
        output.append(op)
    return output


def apply(op, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise CalcError("division by zero")
        return a / b
    if b.denominator != 1:
        raise CalcError("fractional exponent")
    return a ** int(b)


def evaluate(postfix):
    stack = []
    for tok in postfix:
        if isinstance(tok, int):
            stack.append(Fraction(tok))
        else:
            if len(stack) < 2:
                raise CalcError("missing operand")
            b = stack.pop()
            a = stack.pop()
            stack.append(apply(tok, a, b))
    if len(stack) != 1:
        raise CalcError("missing operator")
    return stack[0]


def calculate(text):
    return evaluate(to_postfix(tokenize(text)))


EXPRESSIONS = [
    "1 + 2 * 3",
    "(1 + 2) * 3",
    "8 - 2 - 3",
    "100 / 10 / 5",
    "2 ^ 3 ^ 2",
    "2 * 3 ^ 2 - 4 / 8",
    "7 - (4 - 1) + 2",
    "1 / 3 + 1 / 6",
    "5 / (2 - 2)",
    "(3 + 4",
]

for expr in EXPRESSIONS:
    try:
        value = calculate(expr)
    except CalcError as exc:
        print(f"{expr} -> error: {exc}")
    else:
        print(f"{expr} = {value}")
