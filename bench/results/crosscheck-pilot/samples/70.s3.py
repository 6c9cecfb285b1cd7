from typing import List

def strange_sort_list(lst):
    """
    Given list of integers, return list in strange order.
    Strange sorting, is when you start with the minimum value,
    then maximum of the remaining integers, then minimum and so on.

    Examples:
    strange_sort_list([1, 2, 3, 4]) == [1, 4, 2, 3]
    strange_sort_list([5, 5, 5, 5]) == [5, 5, 5, 5]
    strange_sort_list([]) == []
    """
    sorted_list = []
    while lst:
        # Append the minimum value to the sorted list
        sorted_list.append(min(lst))
        # Remove the minimum value from the original list
        lst.remove(min(lst))
        
        # Append the maximum value to the sorted list
        sorted_list.append(max(lst))
        # Remove the maximum value from the original list
        lst.remove(max(lst))
    
    return sorted_list
