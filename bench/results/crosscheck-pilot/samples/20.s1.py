from typing import List, Tuple

def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    """ From a supplied list of numbers (of length at least two) select and return two that are the closest to each
    other and return them in order (smaller number, larger number).
    >>> find_closest_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.2])
    (2.0, 2.2)
    >>> find_closest_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.0])
    (2.0, 2.0)
    """
    # Sort the list to make finding the closest elements easier
    sorted_numbers = sorted(numbers)
    
    # Initialize variables to store the closest elements
    smallest_difference = float('inf')
    closest_elements = (None, None)
    
    # Iterate through the sorted list to find the closest pair of elements
    for i in range(len(sorted_numbers) - 1):
        current_difference = sorted_numbers[i+1] - sorted_numbers[i]
        if current_difference < smallest_difference:
            smallest_difference = current_difference
            closest_elements = (sorted_numbers[i], sorted_numbers[i+1])
    
    return closest_elements
