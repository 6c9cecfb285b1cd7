from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    """ From a supplied list of numbers (of length at least two) select and return two that are the closest to each
    other and return them in order (smaller number, larger number).
    >>> find_closest_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.2])
    (2.0, 2.2)
    >>> find_closest_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.0])
    (2.0, 2.0)
    """
    numbers.sort()  # Sort the list in ascending order
    closest_pair = numbers[0], numbers[1]  # Initialize the closest pair with the first two elements
    min_diff = numbers[1] - numbers[0]  # Initialize the minimum difference with the difference between the first two elements

    # Iterate through the sorted list starting from the second element
    for i in range(1, len(numbers) - 1):
        current_diff = numbers[i + 1] - numbers[i]  # Calculate the difference between the current element and the previous element
        if current_diff < min_diff:  # If the current difference is smaller than the minimum difference
            min_diff = current_diff  # Update the minimum difference
            closest_pair = numbers[i], numbers[i + 1]  # Update the closest pair

    return closest_pair
