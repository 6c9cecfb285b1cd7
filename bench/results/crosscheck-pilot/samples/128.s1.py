def prod_signs(arr):
    """
    You are given an array arr of integers and you need to return
    sum of magnitudes of integers multiplied by product of all signs
    of each number in the array, represented by 1, -1 or 0.
    Note: return None for empty arr.

    Example:
    >>> prod_signs([1, 2, 2, -4]) == -9
    >>> prod_signs([0, 1]) == 0
    >>> prod_signs([]) == None
    """
    if not arr:
        return None

    product_of_signs = 1
    sum_of_magnitudes = 0

    for num in arr:
        if num == 0:
            return 0  # If any number is 0, the product of signs is 0.
        product_of_signs *= (-1 if num < 0 else 1)
        sum_of_magnitudes += abs(num)

    return sum_of_magnitudes * product_of_signs
