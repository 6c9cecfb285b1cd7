from typing import List

def match_parens(lst: List[str]) -> str:
    total_open = 0
    for s in lst:
        for c in s:
            if c == '(':
                total_open += 1
            else:
                total_open -= 1
                if total_open < 0:
                    return 'No'
    return 'Yes' if total_open == 0 else 'No'
