def median(l: list):
    """Return median of elements in the list l.
    >>> median([3, 1, 2, 4, 5])
    3
    >>> median([-10, 4, 6, 1000, 10, 20])
    15.0
    """
    # Sort the list
    sorted_l = sorted(l)
    
    # Calculate the median
    n = len(sorted_l)
    if n % 2 == 1:
        # If the length of the list is odd, return the middle element
        return sorted_l[n // 2]
    else:
        # If the length of the list is even, return the average of the two middle elements
        return (sorted_l[n // 2 - 1] + sorted_l[n // 2]) / 2
