from typing import List

def pluck(arr: List[int]) -> List[int]:
    if not arr or not any(node % 2 == 0 for node in arr):
        return []
    
    min_value = float('inf')
    min_index = -1
    
    for i, node in enumerate(arr):
        if node % 2 == 0 and node < min_value:
            min_value = node
            min_index = i
    
    return [min_value, min_index]
