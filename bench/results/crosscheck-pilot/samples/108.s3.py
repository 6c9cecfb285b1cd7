def count_nums(arr):
    """
    Write a function count_nums which takes an array of integers and returns
    the number of elements which has a sum of digits > 0.
    If a number is negative, then its first signed digit will be negative:
    e.g. -123 has signed digits -1, 2, and 3.
    >>> count_nums([]) == 0
    >>> count_nums([-1, 11, -11]) == 1
    >>> count_nums([1, 1, 2]) == 3
    """
    if not arr:
        return 0
    count = 0
    for num in arr:
        if num > 0:
            count += 1
        elif num < 0:
            # Calculate sum of digits for negative numbers
            sum_digits = 0
            num = abs(num)
            while num:
                sum_digits += num % 10
                num //= 10
            count += sum_digits > 0
    return count
