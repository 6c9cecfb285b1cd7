def strange_sort_list(lst):
    '''
    Given list of integers, return list in strange order.
    Strange sorting, is when you start with the minimum value,
    then maximum of the remaining integers, then minimum and so on.

    Examples:
    strange_sort_list([1, 2, 3, 4]) == [1, 4, 2, 3]
    strange_sort_list([5, 5, 5, 5]) == [5, 5, 5, 5]
    strange_sort_list([]) == []
    '''
    if not lst:
        return []
    
    sorted_list = []
    while lst:
        # Get the smallest element
        smallest = min(lst)
        sorted_list.append(smallest)
        lst.remove(smallest)
        
        # Get the largest element
        largest = max(lst)
        sorted_list.append(largest)
        lst.remove(largest)
    
    return sorted_list
