from typing import List

def get_positive(l: List[int]) -> List[int]:
    """Return only positive numbers in the list."""
    return [num for num in l if num > 0]
