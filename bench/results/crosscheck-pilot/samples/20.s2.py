from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    if len(numbers) < 2:
        raise ValueError("List must contain at least two elements")
    
    closest_elements = (numbers[0], numbers[1])
    smallest_difference = abs(numbers[0] - numbers[1])
    
    for i in range(len(numbers)):
        for j in range(i + 1, len(numbers)):
            current_difference = abs(numbers[i] - numbers[j])
            if current_difference < smallest_difference:
                smallest_difference = current_difference
                closest_elements = (min(numbers[i], numbers[j]), max(numbers[i], numbers[j]))
    
    return closest_elements
